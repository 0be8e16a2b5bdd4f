"""The live check: after every change of the hidden clues, the puzzle as the player gets it is
checked again in a background thread (is it still unique? solvable by the chosen logic? its
score; which cells logic leaves undecided), and the result lands on the object from a timer on
the main thread. A newer change cancels the check still running for the same nonogram.

The check is the engine's ``DesignSession.check`` on a session kept per nonogram (built once
from the stored full puzzle). The thread only gets engine objects (the session, the mask, the
logic level) and never touches bpy. Without an event loop (background mode, scripts that ask
for it) the check runs in place.
"""
from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from typing import Optional

import bpy
import numpy as np

from . import scene
from .runtime import engine

# When logic leaves cells undecided (and every cell is on a shown clue's line), whether the
# puzzle is still unique takes a search: bounded by this, after which the verdict is 'unknown'.
SEARCH_TIME = 1.0
# Sessions (the engine's net of a puzzle's full clue set) kept for the nonograms edited last.
MAX_SESSIONS = 4

_sessions: "OrderedDict[tuple, tuple]" = OrderedDict()


def session(obj):
    """(engine ``DesignSession`` of the stored full puzzle, lock) for ``obj``: built once per
    puzzle and kept, since building the net costs more than a check. The lock serializes the
    session's users (its work arrays are shared)."""
    text = scene.props(obj).puzzle
    key = (obj.name, hashlib.blake2b(text.encode(), digest_size=16).hexdigest())
    found = _sessions.get(key)
    if found is None:
        found = (engine("design.session").DesignSession(scene.load_full_puzzle(obj)), threading.Lock())
        _sessions[key] = found
        while len(_sessions) > MAX_SESSIONS:
            _sessions.popitem(last=False)
    _sessions.move_to_end(key)
    return found


def check_mask(sess, lock, hidden, logic: str):
    """(summary dict, per-cell state, undecided mask) of the puzzle with clues ``hidden``."""
    with lock:
        c = sess.check(hidden, logic, search_time=SEARCH_TIME)
    summary = {k: v for k, v in c.to_dict().items() if k != "difficulty"}
    summary["logic"] = logic
    solution = np.asarray(sess.full.solution, dtype=bool)
    state = np.where(solution, scene.FILLED, scene.EMPTY).astype(np.int32)
    state[c.undecided] = scene.UNKNOWN  # logic deduces only true values: the rest is known
    return summary, state, c.undecided


class _Check:
    def __init__(self, name, key, args):
        self.name, self.key = name, key
        self.cancel = threading.Event()
        self.done = threading.Event()
        self.result = None
        self.error: Optional[BaseException] = None
        self._args = args

    def run(self):
        try:
            self.result = check_mask(*self._args)
        except BaseException as e:  # reported on the main thread
            self.error = e
        finally:
            self.done.set()


_pending: dict = {}
_threads: list = []  # the check threads started, until cancel_all() has joined them


def request(obj, *, wait: Optional[bool] = None) -> None:
    """Check ``obj``'s puzzle as the player gets it, in the background (``wait`` False) or in
    place (True; default: in place when there is no event loop to deliver a result)."""
    if wait is None:
        wait = bpy.app.background
    mask = scene.hidden_mask(obj)
    job = _Check(obj.name, scene.mask_key(mask),
                 (*session(obj), mask, scene.props(obj).design_options.logic))
    old = _pending.pop(obj.name, None)
    if old is not None:
        old.cancel.set()
    if wait:
        job.run()
        _apply(obj, job)
        return
    _pending[obj.name] = job
    thread = threading.Thread(target=job.run, name="nonogram: live check", daemon=True)
    _threads[:] = [t for t in _threads if t.is_alive()] + [thread]
    thread.start()
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


def cancel_all(deadline: Optional[float] = None) -> bool:
    """Drop every check still running and, with a ``deadline`` (``time.monotonic()``), wait for
    their threads until then (a check ends within ``SEARCH_TIME`` plus its logic). True when no
    check thread is left."""
    for job in _pending.values():
        job.cancel.set()
    _pending.clear()
    _sessions.clear()
    if bpy.app.timers.is_registered(_poll):
        bpy.app.timers.unregister(_poll)
    if deadline is not None:
        for thread in list(_threads):
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
    _threads[:] = [t for t in _threads if t.is_alive()]
    return not _threads
