"""The live check, scene side: after every change of the hidden clues, the puzzle as the player
gets it is checked again in the background (``jobs/live_check.py`` runs the check) and the
result lands on the object from a timer on the main thread. Without an event loop (background
mode, scripts that ask for it) the check runs in place.
"""
from __future__ import annotations

import hashlib
from typing import Optional

import bpy
import numpy as np

from ..jobs import live_check as checks
from .check import apply_check, load_check
from .common import EMPTY, FILLED, UNKNOWN
from .hidden import hidden_mask, mask_key
from .store import load_full_puzzle, nonogram_of, props

SEARCH_TIME = checks.SEARCH_TIME


def session(obj):
    """(engine ``DesignSession`` of ``obj``'s stored full puzzle, lock): built once per puzzle."""
    text = props(obj).puzzle
    key = (obj.name, hashlib.blake2b(text.encode(), digest_size=16).hexdigest())
    return checks.session(key, lambda: load_full_puzzle(obj))


def request(obj, *, wait: Optional[bool] = None) -> None:
    """Check ``obj``'s puzzle as the player gets it, in the background (``wait`` False) or in
    place (True; default: in place when there is no event loop to deliver a result)."""
    if wait is None:
        wait = bpy.app.background
    mask = hidden_mask(obj)
    logic = props(obj).design_options.logic
    job = checks.Check(obj.name, mask_key(mask), (*session(obj), mask, logic))
    if wait:
        checks.replace(job)
        job.run()
        _apply(obj, job)
        return
    checks.start(job)
    if not bpy.app.timers.is_registered(_poll):
        bpy.app.timers.register(_poll, first_interval=0.02)


def apply_proven(obj, summary: dict, full) -> None:
    """Store ``summary`` (``jobs.live_check.proven``: what a design proved about the clues now
    hidden on ``obj``) as its check: every cell known, nothing undecided. ``full`` is the full
    puzzle the design ran on (its solution colours the cells)."""
    checks.cancel(obj.name)
    solution = np.asarray(full.solution, dtype=bool)
    state = np.where(solution, FILLED, EMPTY).astype(np.int32)
    apply_check(obj, dict(summary, mask=mask_key(hidden_mask(obj))), state,
                np.zeros(solution.shape, dtype=bool))


def running(obj) -> bool:
    return obj is not None and checks.running(obj.name)


def _apply(obj, job) -> None:
    if job.error is not None:
        props(obj).check = ""
        print(f"Nonogram live check failed: {type(job.error).__name__}: {job.error}")
        return
    if job.cancel.is_set() or mask_key(hidden_mask(obj)) != job.key:
        return  # the clues changed meanwhile: a newer check is on its way
    summary, c = job.result
    summary["mask"] = job.key
    apply_check(obj, summary, _cell_states(job), c.undecided)


def _cell_states(job) -> np.ndarray:
    """Each cell's state as the check leaves it: logic deduces only true values, so a cell it
    did not leave undecided is known."""
    _summary, c = job.result
    solution = np.asarray(job.session.full.solution, dtype=bool)
    state = np.where(solution, FILLED, EMPTY).astype(np.int32)
    state[c.undecided] = UNKNOWN
    return state


def _poll():
    for job in checks.finished():
        obj: "bpy.types.Object | None" = bpy.data.objects.get(job.name)
        if obj is not None and nonogram_of(obj) is obj:
            _apply(obj, job)
        _redraw()
    return 0.05 if checks.pending() else None


def _redraw():
    wm = bpy.context.window_manager
    for win in (wm.windows if wm is not None else ()):
        for area in win.screen.areas:
            if area.type == 'VIEW_3D':
                area.tag_redraw()


def stale(obj) -> bool:
    """Whether the stored check is about other clues than the current ones (e.g. after undo)."""
    check = load_check(obj)
    return check is None or check.get("mask") != mask_key(hidden_mask(obj))


@bpy.app.handlers.persistent
def recheck_after_undo(*_args):
    """Undo and redo bring hidden clues back without running our operators: check again."""
    obj = nonogram_of(bpy.context.view_layer.objects.active if bpy.context.view_layer else None)
    if obj is not None and load_check(obj) is not None and stale(obj):
        request(obj)


def cancel_all(deadline: Optional[float] = None) -> bool:
    """Drop every check still running and its timer; with a ``deadline``
    (``time.monotonic()``) wait for their threads until then. True when none is left."""
    if bpy.app.timers.is_registered(_poll):
        bpy.app.timers.unregister(_poll)
    return checks.cancel_all(deadline)
