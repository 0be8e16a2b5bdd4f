"""Solving colour puzzles: propagation to a fixpoint (``colourprop.py``), probing
(``colourprobe.py``), search; verdicts like black-and-white.

- ``search``: depth-first on the undecided cell with the fewest values (the known solution's
  value first, when the puzzle carries one), each node closed under propagation; stops at two
  solutions. Once it has spent its budget it takes turns with a CDCL solver over the puzzle's
  CNF (``coloursat.py``, python-sat), as the black-and-white search does.

Verdicts ``unique`` / ``multiple`` / ``none`` (``unknown`` when the time limit stops it), the
logic level (``line``, ``probe``, ``search``) and a difficulty score from a synchronous round
solve (``grade``), on the same scale and bands as black-and-white (``difficulty.py``). The
state, the net, ``propagate`` and ``probe`` are importable from here as before.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..lines.colourline import relax_3d, solve_automaton, solve_dfa_dense
from ..model.colourpuzzle import ColourPuzzle, check_colour_solution
from .coloursat import HAVE_SAT, ColourSat, colour_encoding_size
from .search import SAT_CHUNK_S, SAT_MAX_LITERALS, SAT_MIN_SLICE_S, SAT_SHARE, next_chunk
from .difficulty import BAND_EDGES, BANDS
from .linecache import K_COMPLETE, K_FILTER, cache_slot, cache_store, new_cache
from .colourprop import (NO_CACHE, QS_LEN, ST_BUDGET, ST_CONTRADICTION, ST_OK, ST_TIMEOUT, ColourNet,  # noqa: F401
                         build_net, decided, filter_line, full_state, lines_of, open_to_two, popcount,
                         propagate, propagate_queues, values_of)
from .colourprobe import probe  # noqa: F401
from .. import gate
from ..jit import njit


@dataclass
class ColourReport:
    verdict: str
    difficulty: Optional[str]
    linesolvers: int
    known_fraction: float
    time_s: float
    state: np.ndarray
    solutions: list
    nodes: int = 0
    score: Optional[float] = None
    band: Optional[str] = None
    stats: dict = field(default_factory=dict)

    @property
    def solution(self):
        return self.solutions[0] if self.solutions else None

    @property
    def differing_cells(self):
        if len(self.solutions) == 2:
            return np.flatnonzero(self.solutions[0] != self.solutions[1])
        return np.zeros(0, np.int64)

    def to_dict(self) -> dict:
        from ..files.colourfile import colour_solution_text
        return {"verdict": self.verdict, "difficulty": self.difficulty, "linesolvers": self.linesolvers,
                "known_fraction": self.known_fraction, "time_s": self.time_s, "nodes": self.nodes,
                "solution": colour_solution_text(self.solutions[0]) if len(self.solutions) == 1 else None,
                "solutions": [colour_solution_text(s) for s in self.solutions],
                "differing_cells": [int(c) for c in self.differing_cells],
                "score": self.score, "band": self.band, "stats": dict(self.stats)}


class _Stop(Exception):
    pass


# Line-solver calls the colour search spends before the CDCL solver (``coloursat.py``, when
# python-sat is installed) starts taking turns with it, each turn as long as the search's time
# since the last one (``search.SAT_SHARE``), as the black-and-white search does. Fewer than
# black-and-white's 30,000: a colour line solve costs more (30,000 were 600-1,900 nodes and
# 2-4 s of search on 8^3 three-colour puzzles with 45 % of the clues hidden). Measured on 12 such
# 7^3 / 8^3 puzzles (k = 2, 3; all with many solutions) on the loaded shared machine: 32.8 s in
# all with 10,000 against 44.5 s with 30,000 (1,000: 41.5 s; 3,000: 42.1 s; the CDCL solver
# alone after probing: 39.8 s); most of each solve is root probing, so the figures are noisy.
SAT_AFTER_STEPS = 10_000


class _Search:
    """Depth-first search below a propagated state (an explicit stack, so that the CDCL solver
    can take turns with it), the puzzle's own solution's value first when it has one. Solutions
    (value arrays) go to ``sols``; ``run`` returns once ``want`` are known or every solution is
    (the tree exhausted, or the CDCL solver found no further one), raises _Stop on the time
    limit, or on ``node_limit`` without the CDCL solver."""

    def __init__(self, puzzle, net, root, counters, want, known, deadline, use_sat, sat_after, node_limit,
                 cache=None):
        self.puzzle, self.net, self.root, self.counters, self.want = puzzle, net, root, counters, want
        self.cache = cache  # a line cache its propagations share (``linecache.py``), or None
        self.known, self.deadline, self.node_limit = known, deadline, node_limit
        self.use_sat = use_sat and HAVE_SAT
        self.sat_after = SAT_AFTER_STEPS if sat_after is None else sat_after
        self.sols: list = []
        self.stack: list = []
        self.nodes = 0
        self.cs = None
        self.sat_conflicts = -1  # -1: the CDCL solver was not used

    def _add(self, sol) -> bool:
        """Keep a new solution; True once ``want`` are known."""
        if not any(np.array_equal(sol, s) for s in self.sols):
            self.sols.append(sol)
        return len(self.sols) >= self.want

    def _expand(self, state):
        self.nodes += 1
        dec = decided(state)
        if dec.all():
            self._add(values_of(state))
            return
        und = np.flatnonzero(~dec)
        pc = popcount(state[und])
        c = int(und[np.argmin(pc)])
        m = int(state[c])
        vals = [v for v in range(self.net.k + 1) if (m >> v) & 1]
        if self.known is not None and int(self.known[c]) in vals:
            vals.remove(int(self.known[c]))
            vals.insert(0, int(self.known[c]))
        self.stack.append([state, c, vals, 0])

    def run(self):
        try:
            # the CNF alone, from the root (False: no CDCL solver after all, the search goes on)
            if self.use_sat and self.sat_after == 0 and self._sat_turn(None):
                return
            self._expand(self.root)
            steps0 = int(self.counters[0])
            t_turn = time.perf_counter()
            while self.stack and len(self.sols) < self.want:
                now = time.perf_counter()
                if self.deadline is not None and now > self.deadline:
                    raise _Stop
                if self.node_limit is not None and self.nodes >= self.node_limit:
                    # the search's budget is spent: the CDCL solver alone, if there is one
                    if self.use_sat and self._sat_turn(None):
                        return
                    raise _Stop
                if self.use_sat and int(self.counters[0]) - steps0 >= self.sat_after:
                    # the search wanders: the CDCL solver gets as much time as the search had
                    # since its last turn; the first to finish settles the puzzle
                    done = self._sat_turn(max((now - t_turn) * SAT_SHARE, SAT_MIN_SLICE_S))
                    t_turn = time.perf_counter()
                    if done:
                        return
                frame = self.stack[-1]
                state, c, vals, i = frame
                if i >= len(vals):
                    self.stack.pop()
                    continue
                frame[3] = i + 1
                trial = state.copy()
                trial[c] = 1 << vals[i]
                st = propagate(self.net, trial, lines_of(self.net, c), self.counters, self.deadline,
                               cache=self.cache)
                if st == ST_TIMEOUT:
                    raise _Stop
                if st == ST_OK:
                    self._expand(trial)
        finally:
            if self.cs is not None:
                self.cs.close()
                self.cs = None

    def _sat_turn(self, seconds) -> bool:
        """Run the CDCL solver from the root (so its answer is complete) for about ``seconds``
        (None: to the end), the solutions known so far excluded. True once the puzzle is
        settled (``want`` solutions, or no further one); False when the turn is over or the
        solver is unavailable (the search goes on alone)."""
        if self.cs is None:
            if self.sat_conflicts >= 0:
                return False  # the CNF was too large or python-sat did not load
            self.sat_conflicts = 0
            clues = self.puzzle.clues()  # Python lists: only now, most searches never get here
            if colour_encoding_size(self.net, self.root, clues) > SAT_MAX_LITERALS:
                self.use_sat = False
                return False
            try:
                self.cs = ColourSat(self.net, self.root, clues)
            except (ImportError, OSError):  # python-sat is there but does not load: search on
                self.use_sat = False
                return False
            self.fed, self.feed_lines, self.blocked = False, 8, 0
        cs = self.cs
        t_end = None if seconds is None else time.perf_counter() + seconds
        while True:
            t = time.perf_counter()
            if self.deadline is not None and t > self.deadline:
                raise _Stop
            if t_end is not None and t >= t_end:
                return False
            if not self.fed:
                # the CNF, line by line: a large puzzle's takes seconds to build
                self.fed = cs.feed(self.feed_lines)
                if time.perf_counter() - t < SAT_CHUNK_S / 2:
                    self.feed_lines *= 2
                continue
            while self.blocked < len(self.sols):
                cs.block(self.sols[self.blocked])
                self.blocked += 1
            c = time.process_time()
            r = cs.step()
            self.sat_conflicts = cs.conflicts
            if r is None:
                # chunks grow by CPU time, shrink by wall time (see search.SAT_CHUNK_S)
                cs.chunk = next_chunk(cs.chunk, time.process_time() - c, time.perf_counter() - t)
                continue
            if r is False:
                return True
            if check_colour_solution(self.puzzle, r):
                raise AssertionError("the SAT solver's colour solution breaks a clue")
            if self._add(r):
                return True


def solve_colour(p: ColourPuzzle, *, time_limit: Optional[float] = None, want: int = 2,
                 use_known: bool = True, probing: bool = True, grade: bool = False, use_sat: bool = True,
                 sat_after: Optional[int] = None, node_limit: Optional[int] = None) -> ColourReport:
    """Solve a colour puzzle: verdict, logic level, solutions (value arrays, 0 empty, 1..k).

    Below probing's fixpoint the search takes turns with the CDCL solver (``coloursat.py``, when
    python-sat is installed and ``use_sat``) once it has spent ``sat_after`` line-solver calls
    (default ``SAT_AFTER_STEPS``; 0: the CDCL solver alone from there). ``node_limit``: the
    search's nodes, after which the CDCL solver goes on alone (or, without it, the verdict is
    ``unknown``)."""
    # compile (or load) the colour kernels first: neither time_s nor time_limit counts it
    compile_s = gate.ensure("colour")
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    net = build_net(p)
    state = full_state(net)
    counters = np.zeros(2, dtype=np.int64)
    nodes = [0]
    sols: list = []
    verdict, level = "unknown", None
    sat_conflicts = -1
    st = propagate(net, state, None, counters, deadline)
    if st == ST_TIMEOUT:
        pass  # "unknown": the time limit passed before line logic's fixpoint
    elif st != ST_OK:
        verdict, level = "none", "line"
    elif decided(state).all():
        verdict, level, sols = "unique", "line", [values_of(state)]
    else:
        # below line logic, probing and the search solve many of the same lines again (a cache
        # took a loose 8^3 puzzle's root probing from 0.5-1.7 s to 0.1-0.7 s)
        cache = new_cache(net)
        if probing:
            st = probe(net, state, counters, deadline, cache=cache)
        if st != ST_OK:
            verdict, level = "none", "probe"
        elif decided(state).all():
            verdict, level, sols = "unique", "probe", [values_of(state)]
        elif deadline is not None and time.perf_counter() > deadline:
            pass  # "unknown": probing stopped at the time limit
        else:
            known = p.colour_solution if use_known else None
            logic = state.copy()
            srch = _Search(p, net, state.copy(), counters, want, known, deadline, use_sat, sat_after, node_limit,
                           cache)
            try:
                srch.run()
                verdict = {0: "none", 1: "unique"}.get(len(srch.sols), "multiple")
                level = "search"
            except _Stop:
                verdict, level = "unknown", None
            sols, nodes[0], sat_conflicts = srch.sols[:want], srch.nodes, srch.sat_conflicts
            state = logic
    if want == 1 and verdict == "unique" and level == "search":
        verdict = "solved"
    n = max(p.n_cells, 1)
    rep = ColourReport(verdict, level, int(counters[0]), float(np.count_nonzero(decided(state) & (state > 0))) / n,
                       time.perf_counter() - t0, state, sols, nodes[0])
    rep.stats["exact_3d"] = int(counters[1])
    rep.stats["compile_s"] = compile_s
    rep.stats["sat_conflicts"] = sat_conflicts
    if grade and verdict == "unique" and level in ("line", "probe"):
        rep.score, rep.band = grade_colour(p, net)
    return rep


# ---------------------------------------------------------------------------------------------
# difficulty: synchronous rounds, the black-and-white score's formula (difficulty.py)


def _technique(p: ColourPuzzle, i: int, length: int) -> int:
    clue = p.clue(i)
    if p.is_3d:
        total = sum(n for n, _ in clue)
        if total == 0 or total == length:
            return 0
        return 1 + max((m for n, m in clue if n), default=0)
    need = sum(n for n, _ in clue) + sum(1 for a, b in zip(clue, clue[1:]) if a[1] == b[1])
    return 0 if not clue or need == length else 1


@njit(cache=True)
def _cached_solve(li, kind, masks, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out):
    """The per-colour filter (``kind`` K_FILTER) or the product solver (K_COMPLETE) on 3D line
    ``li``, through the line cache when it has slots (a copy: a later store may reuse the slot)."""
    caching = c_line.shape[0] > 0
    s = 0
    if caching:
        s, hit = cache_slot(li, kind, masks, c_line, c_kind, c_in)
        if hit:
            return c_out[s, :masks.shape[0]].copy()
    if kind == K_FILTER:
        res = relax_3d(masks, k, cnt, rmax)
    else:
        res = solve_automaton(masks, 2, no_tab, k, cnt, rmax)
    if caching:
        cache_store(s, li, kind, masks, res, c_line, c_kind, c_in, c_out)
    return res


@njit(cache=True)
def _complete_3d(masks, k, cnt, rmax, no_tab, li, c_line, c_kind, c_in, c_out):
    """The complete 3D line solve (``solve_automaton``'s answer), cheaper: the per-colour filter
    to its fixpoint first, and the product solver only when a cell is still open to two colours
    (else the colours cannot compete for cells and the filter's fixpoint is exact, as in
    ``propagate_queues``; the product solver from the filtered states gives the same answer as
    from the given ones, the filter being sound). Each step through the line cache ``c_*`` (empty:
    none), where a designer's propagations left the filter's and the product solver's answers."""
    cur = masks
    while True:
        res = _cached_solve(li, K_FILTER, cur, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out)
        if res[0] == 0:
            return res
        same = True
        for j in range(res.shape[0]):
            if res[j] != cur[j]:
                same = False
                break
        cur = res
        if same:
            break
    if open_to_two(cur):
        return _cached_solve(li, K_COMPLETE, cur, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out)
    return cur


@njit(cache=True)
def _grade_round(snap, new, cost, dirty, tech, k, line_start, line_cells, mode, tab_all, tab_start, cnt,
                 rmax, c_line, c_kind, c_in, c_out):
    """One synchronous round of ``grade_colour``: every dirty clued line solved completely from
    ``snap``, its narrowings ANDed into ``new``; ``cost`` per changed cell: the cheapest technique
    (``tech`` per line) that changed it. False on a contradiction. ``c_*``: a line cache
    (``linecache.py``)."""
    no_tab = np.zeros((1, 1), dtype=np.int64)
    for li in range(mode.shape[0]):
        if not dirty[li] or mode[li] == 0:
            continue
        a = line_start[li]
        b = line_start[li + 1]
        masks = np.empty(b - a, dtype=np.int64)
        for j in range(b - a):
            masks[j] = snap[line_cells[a + j]]
        s, hit = cache_slot(li, K_COMPLETE, masks, c_line, c_kind, c_in)
        if hit:
            res = c_out[s, :b - a].copy()
        else:
            if mode[li] == 1:
                res = solve_dfa_dense(masks, tab_all[tab_start[li]:tab_start[li + 1]])
            else:
                res = _complete_3d(masks, k, cnt[li], rmax[li], no_tab, li, c_line, c_kind, c_in, c_out)
            # the slot again: the filter's and product solver's own entries may have taken it
            s, hit = cache_slot(li, K_COMPLETE, masks, c_line, c_kind, c_in)
            cache_store(s, li, K_COMPLETE, masks, res, c_line, c_kind, c_in, c_out)
        if res[0] == 0:
            return False
        for j in range(b - a):
            if res[j] != masks[j]:
                c = line_cells[a + j]
                new[c] &= res[j]
                cost[c] = min(cost[c], tech[li])
    return True


@njit(cache=True)
def _dirty_lines(new, snap, cell_start, cell_lines, dirty):
    """Flag the lines through every cell where ``new`` differs from ``snap`` (only those)."""
    dirty[:] = False
    for c in range(new.shape[0]):
        if new[c] != snap[c]:
            for t in range(cell_start[c], cell_start[c + 1]):
                dirty[cell_lines[t]] = True


def techniques(p: ColourPuzzle) -> np.ndarray:
    """Per line, the technique cost its deductions count at in the grade (``_technique``; 9 for a
    hidden line, which the grade never solves)."""
    return np.array([_technique(p, i, int(p.line_start[i + 1] - p.line_start[i])) if p.clue(i) is not None else 9
                     for i in range(p.n_lines)], dtype=np.int64)


def grade_colour(p: ColourPuzzle, net: Optional[ColourNet] = None, cache: Optional[tuple] = None):
    """(score, band) of a puzzle that line logic (with probing rounds) solves; (None, None) else.

    Rounds are synchronous: every line whose cells changed in the last round is solved completely
    from the round's start; a round that changes nothing probes (technique cost 4). ``cache``: a
    line cache (``linecache.new_cache``) to share between grades of puzzles whose shown lines
    have the same clues (the designer's bisection; its trials' cache)."""
    return grade_net(net or build_net(p), techniques(p), cache)


@njit(cache=True)
def _grade_rounds(state, dirty, tech, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start,
                  cell_lines, c_line, c_kind, c_in, c_out, acc):
    """``grade_colour``'s synchronous line rounds from ``state`` (changed in place) until every
    cell is decided (returns 0), a contradiction (1) or a round that changes nothing (2: the
    caller probes). ``acc`` += [rounds, bits of looking, technique cost, cells decided]."""
    n = state.shape[0]
    snap = np.empty(n, dtype=np.int64)
    cost = np.empty(n, dtype=np.int64)
    while True:
        unknown = 0
        for x in range(n):
            if state[x] & (state[x] - 1):
                unknown += 1
        if unknown == 0:
            return 0
        snap[:] = state
        cost[:] = 99
        if not _grade_round(snap, state, cost, dirty, tech, k, line_start, line_cells, mode, tab_all, tab_start,
                            cnt, rmax, c_line, c_kind, c_in, c_out):
            return 1
        d = 0
        spent = 0
        moved = False
        for x in range(n):
            if state[x] != snap[x]:
                moved = True
                if not state[x] & (state[x] - 1):
                    d += 1
                    spent += min(cost[x], 4)
        if not moved:
            return 2
        acc[0] += 1
        if d:
            acc[1] += d * np.log2(unknown / d)
            acc[2] += spent
            acc[3] += d
        _dirty_lines(state, snap, cell_start, cell_lines, dirty)


def grade_net(net: ColourNet, tech: np.ndarray, cache: Optional[tuple] = None):
    """``grade_colour`` of the lines shown in ``net.mode``, ``tech`` from ``techniques`` (so a
    designer grades its masks of one puzzle without building a puzzle for each)."""
    cache = cache if cache is not None else new_cache(net)
    state = full_state(net)
    acc = np.zeros(4, dtype=np.float64)  # rounds, bits of looking, technique cost, cells decided
    counters = np.zeros(2, dtype=np.int64)
    dirty = np.ones(len(net.mode), dtype=np.bool_)
    while True:
        st = _grade_rounds(state, dirty, tech, net.k, net.line_start, net.line_cells, net.mode, net.tab_all,
                           net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, *cache, acc)
        if st == 0:
            break
        if st == 1:
            return None, None
        # a round of line solves changed nothing: a probing round (technique cost 4)
        snap = state.copy()
        if probe(net, state, counters, cache=cache) != ST_OK or np.array_equal(state, snap):
            return None, None
        d = int(np.count_nonzero(decided(state) & ~decided(snap)))
        unknown = int(np.count_nonzero(~decided(snap)))
        acc[0] += 1
        if d:
            acc[1] += d * math.log2(unknown / d)
            acc[2] += 4 * d
            acc[3] += d
        dirty[:] = True
    rounds, bits_sum, tech_sum, found = int(acc[0]), float(acc[1]), float(acc[2]), int(acc[3])
    if found == 0:
        return 0.0, BANDS[0]
    B, T = bits_sum / found, tech_sum / found
    score = round(10 * (B + T / 2 + math.log2(max(rounds, 1)) / 2), 1)
    band = BANDS[sum(score >= e for e in BAND_EDGES)]
    return score, band
