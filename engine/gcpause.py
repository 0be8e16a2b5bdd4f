"""Hold the cyclic garbage collector off while the engine works.

A full collection walks every object the process holds, and nothing can check a time limit or
call the progress callback while it runs: in the whole test suite's process one took 0.8-1.0 s
(about a million objects, Blender's module loaded), and in CI one stretched a gap between two
progress calls of a solve to 1.46 s, past the second that every limit and Esc must hold within.
A Blender session with a large scene may hold as many objects (not measured). The engine makes
almost no reference cycles (numpy arrays, lists and tuples of numbers, freed by reference
counting as they go), so what the collector would find can wait until the work is done.

Nested and concurrent holds (a solve inside a design, a warm-up thread beside a solve) share one
count: the collector is turned back on when the last hold ends, and only if it was on when the
first began.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_holds = 0
_was_enabled = False


@contextmanager
def collector_held():
    """No automatic collection inside (usable as a decorator too)."""
    global _holds, _was_enabled
    with _lock:
        if _holds == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holds += 1
    try:
        yield
    finally:
        with _lock:
            _holds -= 1
            if _holds == 0 and _was_enabled:
                gc.enable()
