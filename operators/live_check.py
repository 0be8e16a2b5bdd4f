"""The live check: after every change of the hidden clues, the puzzle as the player gets it is
checked again in a background thread (is it still unique? solvable by the chosen logic? its
score; which cells logic leaves undecided), and the result lands on the object from a timer on
the main thread. A newer change cancels the check still running for the same nonogram.

The thread only gets plain engine objects (the puzzle, the logic level) and never touches bpy.
Without an event loop (background mode, scripts that ask for it) the check runs in place.
"""
from __future__ import annotations

import threading
import time
from typing import Optional

import bpy
import numpy as np

from . import scene
from .runtime import engine

# A check of a 24³ model takes milliseconds once the solver is compiled; the first one in a
# session may compile kernels for seconds, and a puzzle with many solutions may need a long
# search. The check runs in the background and the next edit cancels it, so the limit can be
# generous; past it the verdict is 'unknown' (the panel says so).
CHECK_TIME_LIMIT = 30.0
LEVELS = {"line": ("line",), "probe": ("line", "probe")}


def check_puzzle(puzzle, logic: str, progress=None, time_limit: float = CHECK_TIME_LIMIT):
    """(summary dict, per-cell state, undecided mask) of the puzzle as the player gets it."""
    solve = engine("solve")
    cells = engine("cells")
    t0 = time.perf_counter()
    rep = solve.solve(puzzle, method="full", time_limit=time_limit, progress=progress)
    state = rep.state
    if logic == "line" and rep.difficulty not in (None, "line"):
        # what line solving alone decides (the full method probes too)
        state = solve.solve(puzzle, method="hierarchical", time_limit=time_limit, progress=progress).state
    undecided = (state == cells.UNKNOWN)
    if len(rep.differing_cells):
        undecided[np.asarray(rep.differing_cells)] = True
    summary = {"verdict": rep.verdict, "difficulty": rep.difficulty, "logic": logic,
               "solvable": rep.verdict == "unique" and rep.difficulty in LEVELS[logic],
               "score": None, "band": None, "undecided": int(undecided.sum()),
               "hidden": int((puzzle.clue_kind == 0).sum()), "lines": int(puzzle.n_lines),
               "time_s": time.perf_counter() - t0}
    return summary, state, undecided


class _Check:
    def __init__(self, name, key, puzzle, logic):
        self.name, self.key = name, key
        self.cancel = threading.Event()
        self.done = threading.Event()
        self.result = None
        self.error: Optional[BaseException] = None
        self._args = (puzzle, logic)

    def run(self):
        try:
            self.result = check_puzzle(*self._args, progress=lambda f, m="": self.cancel.is_set())
        except BaseException as e:  # reported on the main thread
            self.error = e
        finally:
            self.done.set()


_pending: dict = {}


def request(obj, *, wait: Optional[bool] = None) -> None:
    """Check ``obj``'s puzzle as the player gets it, in the background (``wait`` False) or in
    place (True; default: in place when there is no event loop to deliver a result)."""
    if wait is None:
        wait = bpy.app.background
    pg = scene.props(obj)
    mask = scene.hidden_mask(obj)
    job = _Check(obj.name, scene.mask_key(mask), scene.load_stored_puzzle(obj), pg.design_options.logic)
    old = _pending.pop(obj.name, None)
    if old is not None:
        old.cancel.set()
    if wait:
        job.run()
        _apply(obj, job)
        return
    _pending[obj.name] = job
    threading.Thread(target=job.run, name="nonogram: live check", daemon=True).start()
    if not bpy.app.timers.is_registered(_poll):
        bpy.app.timers.register(_poll, first_interval=0.02)


def running(obj) -> bool:
    return obj is not None and obj.name in _pending


def _apply(obj, job) -> None:
    if job.error is not None:
        scene.props(obj).check = ""
        print(f"Nonogram live check failed: {type(job.error).__name__}: {job.error}")
        return
    if job.cancel.is_set() or scene.mask_key(scene.hidden_mask(obj)) != job.key:
        return  # the clues changed meanwhile: a newer check is on its way
    summary, state, undecided = job.result
    summary["mask"] = job.key
    scene.apply_check(obj, summary, state, undecided)


def _poll():
    for name, job in list(_pending.items()):
        if not job.done.is_set():
            continue
        del _pending[name]
        obj: "bpy.types.Object | None" = bpy.data.objects.get(name)
        if obj is not None and scene.nonogram_of(obj) is obj:
            _apply(obj, job)
        _redraw()
    return 0.05 if _pending else None


def _redraw():
    wm = bpy.context.window_manager
    for win in (wm.windows if wm is not None else ()):
        for area in win.screen.areas:
            if area.type == 'VIEW_3D':
                area.tag_redraw()


def stale(obj) -> bool:
    """Whether the stored check is about other clues than the current ones (e.g. after undo)."""
    check = scene.load_check(obj)
    return check is None or check.get("mask") != scene.mask_key(scene.hidden_mask(obj))


@bpy.app.handlers.persistent
def recheck_after_undo(*_args):
    """Undo and redo bring hidden clues back without running our operators: check again."""
    obj = scene.nonogram_of(bpy.context.view_layer.objects.active if bpy.context.view_layer else None)
    if obj is not None and scene.load_check(obj) is not None and stale(obj):
        request(obj)


def cancel_all() -> None:
    for job in _pending.values():
        job.cancel.set()
    _pending.clear()
    if bpy.app.timers.is_registered(_poll):
        bpy.app.timers.unregister(_poll)
