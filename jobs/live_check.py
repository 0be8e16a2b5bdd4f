"""The live check's threads (bpy-free): a puzzle as the player gets it is checked again in a
background thread after every change of the hidden clues (is it still unique? solvable by the
chosen logic? its score; which cells logic leaves undecided). A newer request for the same
nonogram cancels the one still running.

The check is the engine's ``DesignSession.check`` on a session kept per nonogram (built once
from the stored full puzzle, plain or colour): building its net costs more than a check. The scene side
(``scene/live_check.py``) reads the object, starts checks here and writes their results back
from a timer on the main thread; nothing here touches bpy.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable, Optional

from . import engine_access

# When logic leaves cells undecided (and every cell is on a shown clue's line), whether the
# puzzle is still unique takes a search: bounded by this, after which the verdict is 'unknown'.
SEARCH_TIME = 1.0
# Sessions (the engine's net of a puzzle's full clue set) kept for the nonograms edited last.
MAX_SESSIONS = 4

_sessions: "OrderedDict[tuple, tuple]" = OrderedDict()


def session(key: tuple, full_puzzle: Callable[[], "engine_access.puzzle.Puzzle"]):
    """(engine ``DesignSession``, lock) for ``key`` (a nonogram's name and its stored puzzle's
    digest), built from ``full_puzzle()`` once and kept. The lock serializes the session's users
    (its work arrays are shared)."""
    found = _sessions.get(key)
    if found is None:
        found = (engine_access.design_session.DesignSession(full_puzzle()), threading.Lock())
        _sessions[key] = found
        while len(_sessions) > MAX_SESSIONS:
            _sessions.popitem(last=False)
    _sessions.move_to_end(key)
    return found


def check_mask(sess, lock, hidden, logic: str):
    """(summary dict, the engine's check) of the puzzle with clues ``hidden``."""
    with lock:
        c = sess.check(hidden, logic, search_time=SEARCH_TIME)
    summary = {k: v for k, v in c.to_dict().items() if k != "difficulty"}
    summary["logic"] = logic
    return summary, c


class Check:
    """One check of nonogram ``name`` with clues ``key``: ``check(*args)``, by default
    ``check_mask`` (whose first argument, the session, is kept as ``session``)."""

    def __init__(self, name, key, args, check: Callable = check_mask):
        self.name, self.key = name, key
        self.cancel = threading.Event()
        self.done = threading.Event()
        self.result = None
        self.error: Optional[BaseException] = None
        self._args = args
        self._check = check
        self.session = args[0]

    def run(self):
        try:
            self.result = self._check(*self._args)
        except BaseException as e:  # reported on the main thread
            self.error = e
        finally:
            self.done.set()


_pending: dict = {}
_threads: list = []  # the check threads started, until cancel_all() has joined them


def replace(job: Check) -> None:
    """Cancel the check still running for ``job``'s nonogram (``job`` supersedes it)."""
    cancel(job.name)


def start(job: Check) -> None:
    """Run ``job`` in a background thread; ``finished()`` hands it over once done."""
    replace(job)
    _pending[job.name] = job
    thread = threading.Thread(target=job.run, name="nonogram: live check", daemon=True)
    _threads[:] = [t for t in _threads if t.is_alive()] + [thread]
    thread.start()


def proven(result) -> Optional[dict]:
    """The check's summary of a Hide Clues result, taken from what the design proved (its
    own solver found the designed puzzle unique and its logic solved it: nothing undecided, no
    cell without a shown clue), so the mask it just verified is not checked again. None when
    the design could not prove it (its solver's check ran out of time): then check it."""
    diff = result.difficulty
    if result.stats.get("check_verdict") != "unique" or not diff.solved or diff.level is None:
        return None
    return {"verdict": "unique", "solvable": True, "level": diff.level, "score": diff.score,
            "band": diff.band, "undecided": 0, "uncovered": 0, "hidden_count": result.hidden_count,
            "lines": result.n_lines, "time_s": 0.0, "compile_s": 0.0, "logic": result.logic}


def cancel(name: str) -> None:
    """Drop the check still running for nonogram ``name`` (its result is out of date)."""
    old = _pending.pop(name, None)
    if old is not None:
        old.cancel.set()


def running(name: str) -> bool:
    return name in _pending


def pending() -> bool:
    return bool(_pending)


def finished() -> list:
    """The checks done since the last call, taken off the pending ones."""
    done = [job for job in _pending.values() if job.done.is_set()]
    for job in done:
        del _pending[job.name]
    return done


def cancel_all(deadline: Optional[float] = None) -> bool:
    """Drop every check still running and, with a ``deadline`` (``time.monotonic()``), wait for
    their threads until then (a check ends within ``SEARCH_TIME`` plus its logic). True when no
    check thread is left."""
    for job in _pending.values():
        job.cancel.set()
    _pending.clear()
    _sessions.clear()
    if deadline is not None:
        for thread in list(_threads):
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
    _threads[:] = [t for t in _threads if t.is_alive()]
    return not _threads
