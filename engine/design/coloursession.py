"""Suggest Clue and Repair for colour puzzles: the black-and-white ``DesignSession.suggest`` and
``repair`` (``session.py``) on the colour solver's propagation and probing.

``ColourSession(full)`` keeps the net of the full clue set (``full``: a colour puzzle with its
solution); masks are bool arrays over lines, True = clue hidden.

- ``suggest``: the hidden clues whose showing settles the most undecided cells, by line
  propagation from what ``logic`` already deduced (cells logic decides are the solution's).
- ``repair``: the fewest hidden clues to show so that the puzzle is unique and solvable at
  ``logic`` again. Greedy: show the clue that settles the most undecided cells until logic
  solves it; then hide again every shown clue the rest does without (one pass suffices: hiding
  is monotone); and when two are left, whether one alone does it.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from .. import gate
from ..model.colourpuzzle import ColourPuzzle, line_names
from ..solve.colourprobe import probe
from ..solve.colourprop import ST_OK, build_net, decided, full_state, propagate
from ..solve.difficulty import LOGICS
from ..solve.linecache import new_cache
from .colourdesign import COLOUR_PARTS, ColourDesignError
from .session import Repair, Suggestion


class ColourSession:
    def __init__(self, full: ColourPuzzle):
        if full.colour_solution is None:
            raise ColourDesignError("suggesting and repairing clues need the puzzle's solution")
        gate.ensure(*COLOUR_PARTS)  # compiled (or loaded) first, as a design does
        self.full = full
        self.net = build_net(full)
        self.clued = self.net.mode.copy()
        # every check re-runs much of the same propagation under another mask (a line's results
        # depend only on its clue): one line cache for the session, as a design keeps one
        self.cache = new_cache(self.net)
        self.probe_order = np.arange(self.net.n_cells, dtype=np.int64)  # see TrialRun.probe_order
        self._names: Optional[list] = None

    @property
    def n_lines(self) -> int:
        return len(self.clued)

    def line_name(self, li: int) -> str:
        if self._names is None:
            self._names = line_names(self.full)
        return self._names[li]

    def _mask(self, hidden) -> np.ndarray:
        h = np.asarray(hidden, dtype=bool).ravel()
        if h.size != self.n_lines:
            raise ValueError(f"hidden mask has {h.size} entries for {self.n_lines} lines")
        return h

    def _logic(self, h, logic):
        """(solved, state) of the puzzle with clues ``h`` hidden, at ``logic``."""
        if logic not in LOGICS:
            raise ValueError(f"unknown logic level {logic!r} (choose from {', '.join(LOGICS)})")
        net = self.net
        net.mode[:] = np.where(h, 0, self.clued)
        state = full_state(net)
        if propagate(net, state, cache=self.cache) != ST_OK:
            return False, state
        if not decided(state).all() and logic == "probe":
            if probe(net, state, np.zeros(2, dtype=np.int64), cache=self.cache,
                     order=self.probe_order) != ST_OK:
                return False, state
        return bool(decided(state).all()), state

    def _gains(self, h, state, cands) -> np.ndarray:
        """Per candidate line: the undecided cells of ``state`` its clue settles (propagating
        from ``state`` with it shown)."""
        net = self.net
        undecided = int(np.count_nonzero(~decided(state)))
        gains = np.zeros(len(cands), dtype=np.int64)
        for i, li in enumerate(cands):
            net.mode[li] = self.clued[li]
            trial = state.copy()
            if propagate(net, trial, [int(li)], cache=self.cache) == ST_OK:
                gains[i] = undecided - int(np.count_nonzero(~decided(trial)))
            net.mode[li] = 0
        return gains

    def _candidates(self, h, state):
        """(hidden clued lines with an undecided cell, undecided cells per line)."""
        net = self.net
        undecided = ~decided(state)
        per_line = np.add.reduceat(undecided[net.line_cells].astype(np.int64), net.line_start[:-1])
        return np.flatnonzero(h & (per_line > 0) & (self.clued > 0)), per_line

    def suggest(self, hidden, logic: str = "line", k: int = 5) -> list:
        """Up to ``k`` hidden clues whose showing settles the most undecided cells, best first
        (ties: the lower line); [] when logic already solves the puzzle."""
        h = self._mask(hidden)
        solved, state = self._logic(h, logic)
        if solved:
            return []
        cands, _ = self._candidates(h, state)
        gains = self._gains(h, state, cands)
        n_undecided = int(np.count_nonzero(~decided(state)))
        order = np.lexsort((cands, -gains))[:max(int(k), 0)]
        return [Suggestion(int(cands[i]), self.line_name(int(cands[i])), int(gains[i]), int(gains[i]) == n_undecided)
                for i in order if gains[i] > 0]

    def repair(self, hidden, logic: str = "line", progress=None) -> Optional[Repair]:
        """The fewest hidden clues to show so that the puzzle is unique and solvable at ``logic``
        (see the module docstring). ``progress(fraction, message) -> bool`` may cancel (True):
        then None. Raises ColourDesignError when even every clue shown is not solvable."""
        t0 = time.perf_counter()
        h = self._mask(hidden).copy()
        if self._logic(h, logic)[0]:
            return Repair([], [], h, time.perf_counter() - t0)
        if not self._logic(np.zeros_like(h), logic)[0]:
            raise ColourDesignError(f"even with every clue shown this puzzle is not solvable by {logic} logic")
        n0 = None
        shown: list = []

        def stop(frac):
            return progress is not None and progress(frac, "repairing")
        while True:
            solved, state = self._logic(h, logic)
            if solved:
                break
            n_und = int(np.count_nonzero(~decided(state)))
            n0 = n0 or max(n_und, 1)
            if stop(0.8 * (1.0 - n_und / n0)):
                return None
            cands, per_line = self._candidates(h, state)
            if len(cands) == 0:  # logic is stuck on lines whose clues are all shown
                cands = np.flatnonzero(h & (self.clued > 0))
            gains = self._gains(h, state, cands)
            # most cells settled, then most undecided cells on the line, then the lowest index
            best = int(cands[np.lexsort((cands, -per_line[cands], -gains))[0]])
            h[best] = False
            shown.append(best)
        for li in reversed(shown):  # latest first: the early picks did most of the work
            h[li] = True
            if not self._logic(h, logic)[0]:
                h[li] = False
        kept = [li for li in shown if not h[li]]
        if len(kept) == 2:  # is one clue enough? (exhaustive: the fewest is then known)
            base = h.copy()
            base[kept] = True
            tries = np.flatnonzero(base & (self.clued > 0))
            for i, li in enumerate(tries):
                if i % 64 == 0 and stop(0.8 + 0.2 * i / max(len(tries), 1)):
                    return None
                base[li] = False
                if self._logic(base, logic)[0]:
                    kept, h = [int(li)], base
                    break
                base[li] = True
        return Repair(kept, [self.line_name(li) for li in kept], h, time.perf_counter() - t0)


def suggest_colour_clues(full: ColourPuzzle, hidden, logic: str = "line", k: int = 5) -> list:
    """``ColourSession(full).suggest(hidden, logic, k)``."""
    return ColourSession(full).suggest(hidden, logic, k)


def repair_colour(full: ColourPuzzle, hidden, logic: str = "line", progress=None) -> Optional[Repair]:
    """``ColourSession(full).repair(hidden, logic, progress)``."""
    return ColourSession(full).repair(hidden, logic, progress)
