"""Live editing of a design, for every puzzle kind: check a hand-edited mask of hidden clues,
suggest the clue to show, repair a mask logic cannot solve. ``DesignSession`` keeps the kind object
of the full clue set between calls (an editor checks after every toggle); ``check_design`` and
``suggest_clues`` are one-off forms. The design search itself (``design``) is in ``hiding.py``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..gcpause import collector_held
from ..model.difficulty import LOGICS, Difficulty
from ..solve.kinds import kind_for
from ..kinds.plain.maskprop import RUN_CONTRADICTION, RUN_SOLVED
from .hiding import DesignError, designed_puzzle, full_puzzle, parts_of, prepare


def reveal_gains(K, cands) -> np.ndarray:
    """Per hidden line of ``cands``: the undecided cells propagation settles with its clue shown,
    from the kind's state (a fixpoint of the shown lines: adding a clue only adds deductions, so
    starting there is sound), -1 on a contradiction; the state and ``K.shown`` are left as they
    were."""
    cands = np.asarray(cands, np.int64)
    out = np.zeros(len(cands), np.int64)
    before = K.undecided()
    for i, li in enumerate(cands):
        mark = K.mark()
        was = K.shown[li]
        K.shown[li] = 1
        out[i] = before - K.undecided() if K.propagate(np.array([li], np.int64)) else -1
        K.undo(mark)
        K.shown[li] = was
    return out


@dataclass
class DesignCheck:
    """What logic makes of a puzzle with some clues hidden."""
    verdict: str                  # "unique", "multiple", "none" or "unknown" (search time ran out)
    solvable: bool                # logic alone settles every cell
    level: Optional[str]          # "line" or "probe" when solvable
    difficulty: Difficulty        # score and band (None unless solvable)
    undecided: np.ndarray         # bool per cell: logic leaves it undecided
    uncovered: np.ndarray         # bool per cell: no shown clue on any of its lines
    hidden_count: int
    n_lines: int
    time_s: float
    compile_s: float = 0.0        # compiling (or loading) kernels first, not in time_s

    @property
    def score(self) -> Optional[float]:
        return self.difficulty.score

    @property
    def band(self) -> Optional[str]:
        return self.difficulty.band

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "solvable": self.solvable, "level": self.level,
                "score": self.score, "band": self.band, "undecided": int(self.undecided.sum()),
                "uncovered": int(self.uncovered.sum()), "hidden_count": self.hidden_count,
                "lines": self.n_lines, "time_s": round(self.time_s, 4),
                "compile_s": round(self.compile_s, 4), "difficulty": self.difficulty.to_dict()}


@dataclass
class Suggestion:
    """A hidden clue worth showing: ``settles`` undecided cells become decided by line
    propagation once it is shown (``solves``: then every cell is decided)."""
    line: int
    name: str
    settles: int
    solves: bool


@dataclass
class Repair:
    """``DesignSession.repair``'s answer: the clues to show (``lines``, ``names``) and the
    hidden mask after showing them."""
    lines: list
    names: list
    hidden: np.ndarray
    time_s: float


class DesignSession:
    """The kind object of a puzzle's full clue set, kept for many checks of hand-edited masks (the
    live check of an editor calls ``check`` after every toggle; building the net costs more than
    a check on small puzzles).

    ``puzzle_or_grid``: a puzzle (plain or colour) with its solution (its own hidden clues are
    the default mask) or a voxel grid. Masks are bool arrays over lines, True = clue hidden.
    ``compile_ahead`` False leaves compiling to the kernels' first calls (the warm-up's
    ``masks`` part)."""

    def __init__(self, puzzle_or_grid, *, compile_ahead: bool = True):
        # the net is built by solver kernels: compiled here (or waited for, when a warm-up is
        # compiling them) once, and reported by the first check
        parts = parts_of(puzzle_or_grid)
        self._prepare = (lambda: prepare(None, parts)) if compile_ahead else (lambda: 0.0)
        self._compile_s = self._prepare()
        self.full, self.hidden = full_puzzle(puzzle_or_grid)
        self.K = kind_for(self.full)
        self._names = None

    @property
    def n_lines(self) -> int:
        return self.full.n_lines

    @property
    def kind(self) -> str:
        return self.K.name

    def line_name(self, li: int) -> str:
        if self._names is None:
            from ..model.colourpuzzle import is_colour, line_names as colour_line_names
            from ..model.puzzle import line_names
            self._names = colour_line_names(self.full) if is_colour(self.full) else line_names(self.full)
        return self._names[li]

    def _mask(self, hidden):
        h = self.hidden if hidden is None else np.asarray(hidden, bool).ravel()
        if h.size != self.full.n_lines:
            raise ValueError(f"hidden mask has {h.size} entries for {self.full.n_lines} lines")
        return h

    def _logic(self, hidden, logic):
        """(hidden mask, RUN_* status) of logic on the puzzle with clues ``hidden`` hidden; the
        kind's state is then what logic deduced."""
        if logic not in LOGICS:
            raise ValueError(f"unknown logic level {logic!r} (choose from {', '.join(LOGICS)})")
        h = self._mask(hidden)
        self.K.shown[:] = ~h & self.K.clued
        return h, self.K.run(probe=logic == "probe")

    # the editor's calls hold the collector off, as ``solve`` does: a full collection of a large
    # Blender session (~1 s for a million objects, ``gcpause``) would stall a check after a toggle
    # and a repair's Esc
    @collector_held()
    def check(self, hidden=None, logic: str = "line", *, search_time: float = 0.1) -> DesignCheck:
        """Whether the puzzle with clues ``hidden`` is unique and solvable at ``logic``, its score,
        and which cells logic leaves undecided. When logic does not settle it, uniqueness is
        decided by the full solver within ``search_time`` seconds (verdict "unknown" after)."""
        compile_s, self._compile_s = self._prepare() + self._compile_s, 0.0
        t0 = time.perf_counter()
        h, st = self._logic(hidden, logic)
        K = self.K
        undecided = K.undecided_cells()
        uncovered = K.cover() == 0
        solvable = st == RUN_SOLVED
        if solvable:
            diff = K.grade(logic == "probe")
            verdict = "unique"
        else:
            diff = Difficulty(None, None, None, False,
                              known_fraction=1.0 - float(undecided.mean()) if undecided.size else 1.0)
            if st == RUN_CONTRADICTION:
                verdict = "none"
            elif uncovered.any():
                verdict = "multiple"  # a cell no clue covers takes either value
            else:
                from ..solve.driver import solve
                verdict = solve(designed_puzzle(self.full, h), time_limit=max(float(search_time), 0.0)).verdict
        return DesignCheck(verdict, solvable, diff.level, diff, undecided, uncovered, int(h.sum()),
                           self.full.n_lines, time.perf_counter() - t0, compile_s)

    def _candidates(self, h):
        """(hidden clued lines with an undecided cell, undecided cells per line), from the state
        logic left."""
        K = self.K
        undecided = K.undecided_cells()
        per_line = np.add.reduceat(undecided[K.line_cells].astype(np.int64), K.line_start[:-1]) \
            if K.n_lines else np.zeros(0, np.int64)
        lens = np.diff(K.line_start)
        return np.flatnonzero(h & (per_line > 0) & (lens > 0) & K.clued).astype(np.int64), per_line

    @collector_held()
    def suggest(self, hidden=None, logic: str = "line", k: int = 5) -> list:
        """Up to ``k`` hidden clues whose showing settles the most undecided cells (by line
        propagation from what ``logic`` already deduced), best first (ties: the lower line);
        [] when logic already solves the puzzle."""
        self._prepare()
        h, st = self._logic(hidden, logic)
        if st == RUN_SOLVED:
            return []
        cands, _ = self._candidates(h)
        gains = reveal_gains(self.K, cands)
        n_undecided = self.K.undecided()
        order = np.lexsort((cands, -gains))[:max(int(k), 0)]
        return [Suggestion(int(cands[i]), self.line_name(int(cands[i])), int(gains[i]),
                           int(gains[i]) == n_undecided) for i in order if gains[i] > 0]

    @collector_held()
    def repair(self, hidden=None, logic: str = "line", progress=None) -> Optional[Repair]:
        """The fewest hidden clues to show so that the puzzle is unique and solvable at ``logic``
        again (a hand-broken design). Greedy: show the clue that settles the most undecided
        cells, until logic solves it; then hide again every shown clue the rest does without
        (one pass suffices: hiding is monotone), so no clue of the answer can be left out; and
        when two are left, whether one alone does it (so one or two are the fewest).
        ``progress(fraction, message) -> bool`` may cancel (True): then None. Raises DesignError
        when even every clue shown is not solvable at ``logic``."""
        self._prepare()
        t0 = time.perf_counter()
        h = self._mask(hidden).copy()
        if self._logic(h, logic)[1] == RUN_SOLVED:
            return Repair([], [], h, time.perf_counter() - t0)
        if self._logic(np.zeros_like(h), logic)[1] != RUN_SOLVED:
            raise DesignError(f"even with every clue shown this puzzle is not solvable by {logic} logic")
        clued = self.K.clued
        n0 = None
        shown: list = []

        def stop(frac):
            return progress is not None and progress(frac, "repairing")
        while True:
            _, st = self._logic(h, logic)
            if st == RUN_SOLVED:
                break
            n_und = self.K.undecided()
            n0 = n0 or max(n_und, 1)
            if stop(0.8 * (1.0 - n_und / n0)):
                return None
            cands, per_line = self._candidates(h)
            if len(cands) == 0:  # logic is stuck on lines whose clues are all shown
                cands = np.flatnonzero(h & clued).astype(np.int64)
            gains = reveal_gains(self.K, cands)
            # most cells settled, then most undecided cells on the line, then the lowest index
            best = int(cands[np.lexsort((cands, -per_line[cands], -gains))[0]])
            h[best] = False
            shown.append(best)
        for li in reversed(shown):  # latest first: the early picks did most of the work
            h[li] = True
            if self._logic(h, logic)[1] != RUN_SOLVED:
                h[li] = False
        kept = [li for li in shown if not h[li]]
        if len(kept) == 2:  # is one clue enough? (exhaustive: the fewest is then known)
            base = h.copy()
            base[kept] = True
            tries = np.flatnonzero(base & clued)
            for i, li in enumerate(tries):
                if i % 64 == 0 and stop(0.8 + 0.2 * i / max(len(tries), 1)):
                    return None
                base[li] = False
                if self._logic(base, logic)[1] == RUN_SOLVED:
                    kept, h = [int(li)], base
                    break
                base[li] = True
        return Repair(kept, [self.line_name(li) for li in kept], h, time.perf_counter() - t0)


def check_design(puzzle_or_grid, hidden=None, logic: str = "line", *, search_time: float = 0.1) -> DesignCheck:
    """``DesignSession(puzzle_or_grid).check(hidden, logic)``: keep a session for repeated checks."""
    return DesignSession(puzzle_or_grid).check(hidden, logic, search_time=search_time)


def suggest_clues(puzzle_or_grid, hidden=None, logic: str = "line", k: int = 5) -> list:
    """``DesignSession(puzzle_or_grid).suggest(hidden, logic, k)``."""
    return DesignSession(puzzle_or_grid).suggest(hidden, logic, k)

