"""The ``full`` method: propagation, then probing, then backtracking search for up to two solutions.

The numba kernels (``propagate.py``, ``probe.py``) do the work in chunks; this module is the
Python driver between chunks, so it can report progress, honour cancellation and the caller's
time/step limits, and keep the search stack (one frame per guess: the trail mark, the cell and
the value still to try). Every search node is closed under propagation and FP2 probing before it
branches, on the cell whose two probes fixed the most cells (the product of the two counts, so a
cell that is informative both ways wins), trying the value that fixed more cells first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..model.cells import EMPTY, FILLED, UNKNOWN
from ..jit import njit
from .probe import (C_CHANGED, C_IDLE, C_MAX_TIER, C_NSOLS, C_TIER, P_CONTRADICTION, P_FIXPOINT, P_PAUSED,
                    P_SOLVED, assume,
                    close, mark_affected, new_probe, probe_round, relation_literals, reset_relations)
from .propagate import (CHUNK_GROWTH, DEFAULT_CACHE_SLOTS, LS_DP, S_CHECKS, S_LINESOLVERS, S_STEP_CAP, S_TLEN, check_all,
                        first_chunk, new_work, queue_all, satisfies_all, undo_to)
from ..model.puzzle import KIND_BLOCKS
from .quicksearch import K_NODES, K_NSOL, Q_EXHAUSTED, Q_PAUSED, Q_TWO, new_quick, quick_search
from .sat import HAVE_SAT, SatSearch, encoding_size, open_lines
from .walk import walk, walk_start, walkable

STOPPED = -1  # driver-only status: a limit or the progress callback ended the run


@njit
def choose_branch(state, cnt, cell_start, mode):
    """(cell, first value) for the next guess, from the probe outcome sizes n0, n1 of each
    unknown cell. mode 0: max n0*n1, larger side first; 1: the same, smaller side first;
    2: max min(n0,n1) + 1.85 log(1+|n0-n1|) (LalaFrogKK's score), larger side first; 3: max
    n0+n1; 4: LalaFrogKK's score, empty first (its order). Modes 2-4 are for experiments: in
    first-solution mode on 17 TAAI 2011 puzzles mode 4 without restarts took 29.7 s against
    26.8 s for the default (0 and 1 alternating), though LalaFrogKK itself needs fewer nodes."""
    best = -1
    best_s = -1.0
    first = FILLED
    for c in range(len(state)):
        if state[c] != UNKNOWN:
            continue
        n1 = cnt[2 * c + 1]
        n0 = cnt[2 * c]
        if n1 < 0 or n0 < 0:
            if best < 0 and cell_start[c + 1] == cell_start[c]:
                best = c  # a cell no clue covers: any guess, used only if nothing better
            continue
        if mode == 0 or mode == 1:
            sc = float(n0) * float(n1) + 1e-6 * (n0 + n1)
        elif mode == 2 or mode == 4:
            sc = min(n0, n1) + 1.85 * np.log(1.0 + abs(n0 - n1))
        else:
            sc = float(n0 + n1)
        if sc > best_s:
            best, best_s = c, sc
            if mode == 1:
                first = FILLED if n1 < n0 else np.int8(1)
            elif mode == 4:
                first = np.int8(1)
            else:
                first = FILLED if n1 >= n0 else np.int8(1)
    if best < 0:
        for c in range(len(state)):
            if state[c] == UNKNOWN:
                return c, FILLED
    return best, first


BRANCH_MODE = 0
SEARCH_MAX_TIER = 0
# Restarts: the search runs with branching mode 0 (larger side first) for RESTART_NODES guesses,
# then restarts from the root with mode 1 (smaller side first) for as many, then both again with
# twice the budget, and so on (0 disables restarts: BRANCH_MODE only). Measured on TAAI 2011
# puzzles that had no verdict in 2 s (most have several solutions): mode 0 settled 2 of 24 in 4 s,
# mode 1 settled 13; but on 93 puzzles mode 0 settled in 2 s, mode 1 alone missed 6 in 10 s and
# took 2.5x the time. A complete run of either still proves uniqueness, and the doubling bounds
# the cost of the restarts.
BRANCH_MODES = (0, 1)
RESTART_NODES = 64
# Budget of the quick search (``quicksearch.py``), in line-solver applications: this many per
# unknown cell left by line solving plus QUICK_STEPS_PER_LINE per clued line, a few percent of
# one root probing pass (which costs ~2 probes x ~60 applications per unknown cell). Measured on
# blobs with 30% of clues hidden: 4x cells settled 24^3-36^3 in 10-200 ms, but a 64^3 one needed
# 14.6k applications for 3k unknown cells, hence the per-line term; 16x or 64x settled no more
# puzzles and made failing ones slower. It runs only on puzzles with 3D clues or hidden lines:
# with exact block lists everywhere a search without probing was measured to thrash (TAAI 2011:
# 50 of 53 puzzles that probing search could not settle in 2 s gave nothing in 200k guesses).
QUICK_STEPS_PER_CELL = 4
QUICK_STEPS_PER_LINE = 2
# Flips the walk (``walk.py``) may spend on each solution it looks for, when the quick search did
# not settle a 3D puzzle of circle / square clues without a known solution: per unknown cell, at
# most WALK_MAX_FLIPS. Measured on white noise (fill 0.35, every clue shown; CPU time on a shared
# machine): a solution took 5-13 flips per cell at 20^3, 6-25 at 16^3, 90-600 at 12^3 (one seed
# of five needed over 3500); 1M flips take ~1-3 s. A spent budget (a unique puzzle, or none)
# hands over to probing and search unchanged.
WALK_FLIPS_PER_CELL = 600
WALK_MAX_FLIPS = 2_000_000
WALK_SEED = 20261123
# With a known solution the quick search walks to it and searches around it (``quicksearch.py``),
# which pays on every kind of clue, so it runs for every puzzle with a larger budget.
QUICK_STEPS_PER_CELL_KNOWN = 64
# Line-solver applications the guided search spends before the CDCL solver (``sat.py``, when
# python-sat is installed) starts taking turns with it: about three nodes of a 25x25 search.
# Measured in first-solution mode on 17 TAAI 2011 puzzles that needed more: 200k, 50k and 20k
# took 16.2, 13.2 and 11.3 s in all (LalaFrogKK 19.5 s).
SAT_AFTER_STEPS = 30_000
# The CDCL solver's time per second of search since its last turn (once it has started).
SAT_SHARE = 1.0
# First-solution mode (want=1) hands over after this fraction of SAT_AFTER_STEPS and gives the
# CDCL solver SAT_FIRST_SHARE: there it finds nearly every first solution the search does not
# find in a few nodes (202 of the 206 icga2018-2020 puzzles, every 10th, that reach the
# hand-over). Measured in one run on those 206: 75.7 s CPU with 1/3 and 4 against 83.8 s with
# 1 and 1 (earlier runs, as noisy: a share of 3 or of all the time saved 3-10 %). Uniqueness
# mode keeps even turns: proving that no second solution exists is often the search's strength.
SAT_FIRST_AFTER = 1 / 3
SAT_FIRST_SHARE = 4.0
# Seconds of SAT work between checks of the limits and calls of the progress callback: every
# call restarts the solver's own schedule, so not much shorter. Measured from the root of 22 of
# the slowest ICGA 2018/2020 tournament puzzles (CaDiCaL, one call per chunk): chunks of 300
# conflicts needed 2.7x the conflicts of one uninterrupted call, chunks of 2000 (~0.1 s) 1.07x.
# Chunks grow while a step takes under half of this in CPU time (and under all of it in wall
# time), shrink when one takes over 2.5x in wall time: sized by wall time alone, on a shared
# machine they stayed near a few hundred conflicts. 0.3 rather than 0.1: in first-solution mode
# on every 10th puzzle of the seven tournament sets (one process per setting, CPU time), 121.0 s
# and 1.98M conflicts in all against 132.0 s and 2.13M (0.2: 128.5 s); the long tail gains most
# (icga2017 #630: 3.0 s instead of 14.3 s; taai2011 16.4 s against 22.0 s) while sets of short
# solves do not move (icga2020 13.8 / 13.6 s) and one got slower (icga2019 20.7 / 16.5 s: the
# chunk boundaries change the solver's path, a few puzzles swing either way). A stop still comes
# within ~0.6 s (a chunk grows to at most ~2x this in CPU time).
SAT_CHUNK_S = 0.3

# The shortest turn of the CDCL solver (s): short, as many puzzles are solved by the search soon
# after the hand-over point.
SAT_MIN_SLICE_S = 0.02
# Puzzles whose CNF would be larger than this (``sat.encoding_size``, literals) are left to the
# search: a 36^3 puzzle of count clues takes millions of clauses and tens of seconds to build.
SAT_MAX_LITERALS = 8_000_000
# Hand the root's probing relations (p=v -> q=w, derived across lines) to the CDCL solver as
# binary clauses (``sat.implication_clauses``). Measured from the root (one uninterrupted CaDiCaL
# call) on the 206 ICGA 2018-2020 tournament puzzles (every 10th) that reached the hand-over:
# 52.6 s CPU instead of 67.9 s, geometric mean of conflicts 1982 instead of 3171.
SAT_PROBE_CLAUSES = True


def next_chunk(chunk: int, cpu_s: float, wall_s: float) -> int:
    """The CDCL solver's next chunk (conflicts) after one that took ``cpu_s`` of CPU and
    ``wall_s`` of wall time (see SAT_CHUNK_S)."""
    if cpu_s < SAT_CHUNK_S / 2 and wall_s < SAT_CHUNK_S:
        return min(chunk * 2, 1 << 22)
    if wall_s > SAT_CHUNK_S * 2.5:
        return max(chunk // 2, 100)
    return chunk


@dataclass
class Limits:
    """The caller's limits and progress callback, checked between kernel chunks."""
    t_start: float
    n_cells: int
    time_limit: float = None
    step_limit: int = None
    progress: object = None
    interval: float = 0.05
    last_call: float = 0.0
    cancelled: bool = False

    def stop(self, w, message: str, extra_steps: int = 0) -> bool:
        """Whether to stop; ``extra_steps``: work done besides line solving (SAT conflicts)."""
        now = time.perf_counter()
        if self.time_limit is not None and now - self.t_start >= self.time_limit:
            return True
        if self.step_limit is not None and \
                w.stats[S_LINESOLVERS] + w.stats[S_CHECKS] + extra_steps >= self.step_limit:
            return True
        if self.progress is not None and now - self.last_call >= self.interval:
            self.last_call = now
            known = self.n_cells - int(np.count_nonzero(w.state == UNKNOWN))
            if self.progress(known / max(self.n_cells, 1), message):
                self.cancelled = True
                return True
        return False


@dataclass
class FullResult:
    verdict: str = "unknown"
    difficulty: str = None
    state: np.ndarray = None
    order: np.ndarray = None
    solutions: list = field(default_factory=list)
    nodes: int = 0
    max_depth: int = 0
    probe_fixed: int = 0
    quick_nodes: int = 0
    restarts: int = 0
    known_used: bool = False
    sat_conflicts: int = -1  # -1: the SAT solver was not used
    stopped: bool = False
    cancelled: bool = False


class _Driver:
    def __init__(self, net, ls_id, budget, use_cache, cache_slots, limits, max_edges, known=None, want=2,
                 use_sat=True):
        self.net, self.ls_id, self.budget, self.use_cache = net, ls_id, budget, use_cache
        self.want = want  # solutions to find: 2 settles uniqueness, 1 stops at the first
        self.use_sat = use_sat and HAVE_SAT
        self.n_cells = len(net.cell_start) - 1
        self.covered = np.diff(net.cell_start) > 0  # the cells a clue constrains
        self.free = np.flatnonzero(~self.covered)
        self.n_target = self.n_cells - len(self.free)
        self.w = new_work(net, cache_slots=cache_slots if use_cache else 0)
        # a known solution orders the guesses (never the verdict); one that breaks a clue is ignored
        self.known = np.zeros(0, np.int8)
        if known is not None:
            k = np.where(np.asarray(known, dtype=bool).ravel(), FILLED, EMPTY).astype(np.int8)
            if len(k) == self.n_cells and satisfies_all(net, k):
                self.known = k
        self.pr = new_probe(self.n_cells, max_edges)
        # kept probe outcomes are only reusable when propagation is confluent (the DP)
        self.keep_outcomes = ls_id == LS_DP
        self.limits = limits
        self.chunk = first_chunk(net)
        # chunks grow on cheap steps; bounded so that a run of the costliest ones stays short
        self.max_chunk = CHUNK_GROWTH * self.chunk

    def probe_fixpoint(self, message):
        """Probe the current node to its fixpoint in chunks; a P_* status or STOPPED."""
        net, w, pr = self.net, self.w, self.pr
        pr.ctl[C_IDLE] = 0
        pr.ctl[C_TIER] = 0
        pr.ctl[C_MAX_TIER] = 1 if message == "probing" else SEARCH_MAX_TIER
        while True:
            if self.limits.stop(w, message):
                return STOPPED
            t = time.perf_counter()
            steps = self.chunk
            if self.limits.step_limit is not None:
                left = self.limits.step_limit - int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS])
                steps = max(1, min(steps, left))
            st = probe_round(self.ls_id, self.budget, self.use_cache, self.n_target, steps, net, w, pr)
            if st != P_PAUSED:
                return st
            # aim at ~1/4 of the progress interval per chunk
            dt = time.perf_counter() - t
            target = self.limits.interval / 4
            if dt < target / 2:
                self.chunk = min(self.chunk * 2, self.max_chunk)
            elif dt > target * 2:
                self.chunk = max(self.chunk // 2, 1)

    def line_solve(self):
        """Line solving from the queued lines to their fixpoint, in chunks (on a large puzzle one
        call can take seconds): True, False on a contradiction, or STOPPED. Before probing no
        relations exist, so this is ``close`` at the root."""
        net, w = self.net, self.w
        chunk = self.chunk
        try:
            while True:
                w.stats[S_STEP_CAP] = w.stats[S_LINESOLVERS] + w.stats[S_CHECKS] + chunk
                t = time.perf_counter()
                if not close(self.ls_id, self.budget, self.use_cache, 0, net, w, self.pr):
                    return False
                if w.queue[1] == 0:
                    return True
                if time.perf_counter() - t < self.limits.interval / 8:
                    chunk = min(chunk * 2, self.max_chunk)
                if self.limits.stop(w, "propagating"):
                    return STOPPED
        finally:
            w.stats[S_STEP_CAP] = 0

    def new_node(self, child=False):
        reset_relations(self.pr, not (child and self.keep_outcomes))
        self.pr.ctl[C_IDLE] = 0

    def solution_ok(self):
        return check_all(LS_DP, self.budget, self.net, self.w)

    def add_solution(self, sol, trail=True) -> bool:
        """Keep a distinct solution; True once ``want`` are known. ``trail``: the state's trail
        led to it (a solution of the SAT solver has none)."""
        if not any(np.array_equal(sol, s) for s in self.found):
            self.found.append(sol)
            if len(self.found) == 1:
                self.first_order = self.w.trail[:self.w.stats[S_TLEN]].copy() if trail else None
                if len(self.free) and self.want > 1:
                    # cells no clue covers take either value: flip them for a second witness
                    other = sol.copy()
                    other[self.free] = True
                    self.found.append(other)
        return len(self.found) >= self.want

    def harvest(self) -> bool:
        """Collect the solutions probes met; True once ``want`` are known."""
        k = int(self.pr.ctl[C_NSOLS])
        self.pr.ctl[C_NSOLS] = 0
        done = False
        for i in range(k):
            done = self.add_solution(self.pr.sols[i] == FILLED) or done
        return done

    def run(self) -> FullResult:
        """The puzzle through the stages in order, each tried only when the ones before leave it
        open: line solving, the quick search (and the local search of a loose puzzle without a
        known solution), probing to a fixpoint, then the search (``_search``)."""
        w, pr = self.w, self.pr
        res = FullResult()
        self.found = []
        self.first_order = None
        queue_all(self.net, w)
        ok = self.line_solve()
        if ok == STOPPED:
            return self._stopped(res, w.state.copy())
        if not ok:
            res.verdict, res.difficulty = "none", "line"
            return self._finish(res, w.state.copy())
        if w.stats[S_TLEN] == self.n_target:
            return self._complete(res, "line")
        settled = None
        qst = Q_PAUSED
        if self.quick_budget() > 0:
            qst = self.quick()
            if qst == STOPPED:
                res.solutions = list(self.found)
                return self._stopped(res, w.state.copy())
            res.quick_nodes = int(self.qs.ctl[K_NODES])
            if qst == Q_EXHAUSTED:
                settled = int(self.qs.ctl[K_NSOL])  # 0 or 1: probing now only decides the difficulty
        if qst == Q_PAUSED and WALK_FLIPS_PER_CELL > 0 and not len(self.known) and walkable(self.net):
            qst = self.walk()
            if qst == STOPPED:
                res.solutions = list(self.found)
                return self._stopped(res, w.state.copy())
        if qst == Q_TWO:
            # two solutions (of the quick search or the walk) that differ on constrained cells,
            # so no logic could have settled it: difficulty `search`; `state` is what line
            # solving deduced (with want=1 the first solution, and `search` says it took a
            # guess to meet it)
            res.solutions = list(self.found[:self.want])
            res.verdict, res.difficulty = self._verdict(len(res.solutions)), "search"
            res.order = w.trail[:int(w.stats[S_TLEN])].copy()
            return self._finish(res, w.state.copy())
        self.new_node()
        st = self.probe_fixpoint("probing")
        res.probe_fixed = int(pr.ctl[C_CHANGED])
        if st == STOPPED:
            return self._stopped(res, w.state.copy())
        if st == P_CONTRADICTION:
            res.verdict, res.difficulty = "none", "probe"
            return self._finish(res, w.state.copy())
        if st == P_SOLVED:
            return self._complete(res, "probe")
        if settled is not None:
            # the quick search already searched the whole tree
            res.difficulty = "search"
            res.solutions = list(self.found[:self.want])  # a second one only by flipping free cells
            res.verdict = self._verdict(len(res.solutions))
            res.order = self._solution_order(int(w.stats[S_TLEN])) if len(res.solutions) == 1 else None
            return self._finish(res, w.state.copy())
        return self._search(res)

    def _search(self, res: FullResult) -> FullResult:
        """Depth-first search below the probing fixpoint: guesses with probing at each node,
        restarts that alternate the branching modes, turns of the CDCL solver once the search
        wanders; until ``want`` solutions, the tree exhausted, or a stop."""
        net, w, pr = self.net, self.w, self.pr
        root_state = w.state.copy()
        root_tlen = int(w.stats[S_TLEN])
        res.difficulty = "search"
        stack = []
        status = P_FIXPOINT
        done = self.harvest()
        # restarts alternate the branching modes with a doubling node budget (see RESTART_NODES)
        root_cnt = pr.cnt.copy()
        run_k, run_nodes, run_budget = 0, 0, RESTART_NODES
        steps0 = int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS])
        self.ss, self.ss_blocked = None, 0
        if self.use_sat and encoding_size(net, open_lines(net, root_state)) > SAT_MAX_LITERALS:
            self.use_sat = False
        # the root's relations hold in the whole tree: the first guess forgets them
        self.root_relations = relation_literals(pr) if self.use_sat and SAT_PROBE_CLAUSES else None
        first = self.want == 1
        sat_after = SAT_AFTER_STEPS * (SAT_FIRST_AFTER if first else 1)
        sat_share = SAT_FIRST_SHARE if first else SAT_SHARE
        t_dfs = time.perf_counter()
        while not done:
            if status == P_FIXPOINT and self.use_sat and \
                    int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS]) - steps0 >= sat_after:
                # the search wanders: the CDCL solver gets as much time as the search had since
                # its last turn; the first to finish settles the puzzle
                slice_s = max((time.perf_counter() - t_dfs) * sat_share, SAT_MIN_SLICE_S)
                st = self.sat_slice(root_state, res, slice_s)
                t_dfs = time.perf_counter()
                if st != P_FIXPOINT:
                    status = st
                    break
            if status == STOPPED:
                break
            if status == P_SOLVED:
                if self.solution_ok() and self.add_solution(w.state == FILLED):
                    break
                status = P_CONTRADICTION
            if status == P_CONTRADICTION:
                resumed = False
                while stack:
                    mark, p, alt = stack.pop()
                    undo_to(mark, net, w)
                    if alt:
                        stack.append((mark, p, 0))
                        status = self._guess(p, alt, False)
                        resumed = True
                        break
                if not resumed:
                    break
            else:
                # P_FIXPOINT: guess
                if RESTART_NODES > 0 and run_nodes >= run_budget and not len(self.known):
                    # restart from the root with the other branching mode; solutions found so
                    # far are kept, probe results of the abandoned subtree are not
                    undo_to(root_tlen, net, w)
                    stack.clear()
                    self.new_node()
                    pr.cnt[:] = root_cnt
                    run_k += 1
                    run_nodes = 0
                    if run_k % len(BRANCH_MODES) == 0:
                        run_budget *= 2
                    res.restarts += 1
                mode = BRANCH_MODES[run_k % len(BRANCH_MODES)] if RESTART_NODES > 0 else BRANCH_MODE
                run_nodes += 1
                p, v = choose_branch(w.state, pr.cnt, net.cell_start, mode)
                if len(self.known):
                    v = self.known[p]
                mark = int(w.stats[S_TLEN])
                stack.append((mark, int(p), int(3 - v)))
                res.max_depth = max(res.max_depth, len(stack))
                status = self._guess(int(p), int(v), True)
                res.nodes += 1
            if self.harvest():
                break
        if self.ss is not None:
            self.ss.close()
        if status == STOPPED:
            res.solutions = list(self.found)
            res.order = self.first_order
            return self._stopped(res, root_state, root_tlen)
        # search finished (exhausted, or `want` solutions found)
        undo_to(root_tlen, net, w)
        res.solutions = list(self.found[:self.want])
        res.verdict = self._verdict(len(res.solutions))
        if len(res.solutions) == 1:
            res.order = self.first_order if self.first_order is not None else self._solution_order(root_tlen)
        else:
            res.order = w.trail[:root_tlen].copy()
        res.state = root_state
        return res

    def sat_slice(self, state, res, seconds):
        """Run the CDCL solver (``sat.py``) from ``state`` (the root's, so its answer is
        complete) for about ``seconds``, the solutions found so far excluded. P_SOLVED once
        ``want`` solutions are known, P_CONTRADICTION when none is left, STOPPED for a limit,
        P_FIXPOINT when the slice is over (the solver keeps its state for the next one)."""
        if self.ss is None:
            try:
                self.ss = SatSearch(self.net, state, self.covered, self.root_relations)
            except (ImportError, OSError):  # python-sat is there but does not load: search on
                self.use_sat = False
                return P_FIXPOINT
            self.ss_fed = False
            self.ss_lines = 8
            res.sat_conflicts = 0
        ss = self.ss
        t_end = time.perf_counter() + seconds
        while True:
            if self.limits.stop(self.w, "searching", ss.conflicts):
                return STOPPED
            t = time.perf_counter()
            if t >= t_end:
                return P_FIXPOINT
            if not self.ss_fed:
                # the CNF, line by line: a large puzzle's takes seconds to build
                self.ss_fed = ss.feed(self.ss_lines)
                if time.perf_counter() - t < SAT_CHUNK_S / 2:
                    self.ss_lines *= 2
                continue
            while self.ss_blocked < len(self.found):
                ss.block(self.found[self.ss_blocked])
                self.ss_blocked += 1
            c = time.process_time()
            r = ss.step()
            res.sat_conflicts = ss.conflicts
            if r is None:
                # every call restarts the solver's own schedule (see SAT_CHUNK_S), so chunks are
                # long: they grow by CPU time, as wall time on a busy machine kept them short,
                # and shrink only when the wall time between checks grows too long
                ss.chunk = next_chunk(ss.chunk, time.process_time() - c, time.perf_counter() - t)
                continue
            if r is False:
                return P_CONTRADICTION
            if not satisfies_all(self.net, np.where(r, FILLED, EMPTY).astype(np.int8)):
                raise AssertionError("the SAT solver's solution breaks a clue")
            if self.add_solution(r, trail=False):
                return P_SOLVED

    def quick_budget(self) -> int:
        kinds = self.net.clue_kind
        unknown = self.n_target - int(self.w.stats[S_TLEN])
        guided = len(self.known) > 0
        per_cell = QUICK_STEPS_PER_CELL_KNOWN if guided else QUICK_STEPS_PER_CELL
        if per_cell <= 0 or (not guided and not np.any(kinds != KIND_BLOCKS)):
            return 0
        return per_cell * unknown + QUICK_STEPS_PER_LINE * int(np.count_nonzero(kinds))

    def quick(self):
        """The quick search (``quicksearch.py``) from the line-solving fixpoint, in chunks;
        Q_TWO, Q_EXHAUSTED, Q_PAUSED (budget spent) or STOPPED. Solutions go to ``found``; the
        state is restored to the fixpoint."""
        net, w = self.net, self.w
        self.qs = qs = new_quick(self.n_cells)
        mark = int(w.stats[S_TLEN])
        left = self.quick_budget()
        chunk = first_chunk(net)
        st = Q_PAUSED
        while left > 0:
            if self.limits.stop(w, "searching"):
                st = STOPPED
                break
            steps = min(chunk, left)
            if self.limits.step_limit is not None:
                steps = max(1, min(steps, self.limits.step_limit - int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS])))
            s0 = int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS])
            t = time.perf_counter()
            st = quick_search(self.ls_id, self.budget, self.use_cache, self.n_target, self.want, steps, net, w, qs,
                              self.known)
            left -= int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS]) - s0
            if st != Q_PAUSED:
                break
            dt = time.perf_counter() - t
            if dt < self.limits.interval / 8:
                chunk = min(chunk * 2, self.max_chunk)
            elif dt > self.limits.interval / 2:
                chunk = max(chunk // 2, 1)
        for k in range(int(qs.ctl[K_NSOL])):
            self.add_solution(qs.sols[k] == FILLED)
        self.first_order = None  # the trail of the quick search's solution is gone
        undo_to(mark, net, w)
        return st

    def walk(self):
        """Walks (``walk.py``) from random grids until ``want`` distinct solutions are known or
        the flip budget is spent: Q_TWO, Q_PAUSED (spent; solutions met stay in ``found``) or
        STOPPED. A walk's solution is checked against every clue before it counts."""
        net, w = self.net, self.w
        rng = np.array([WALK_SEED], np.int64)
        x, free = walk_start(net, w.state, rng)
        per_solution = min(WALK_FLIPS_PER_CELL * int(np.count_nonzero(free)), WALK_MAX_FLIPS)
        left = per_solution * max(self.want - len(self.found), 1)
        chunk = 20_000
        while left > 0:
            if self.limits.stop(w, "searching"):
                return STOPPED
            n = min(chunk, left)
            t = time.perf_counter()
            bad = walk(net, x, free, n, rng)
            left -= n
            if bad == 0:
                sol = x & self.covered
                if not satisfies_all(net, np.where(sol, FILLED, EMPTY).astype(np.int8)):
                    raise AssertionError("the walk's solution breaks a clue")
                if self.add_solution(sol, trail=False):
                    return Q_TWO
                x, free = walk_start(net, w.state, rng)  # the next walk from another grid
            elif time.perf_counter() - t < self.limits.interval / 8:
                chunk *= 2
        return Q_PAUSED

    def _solution_order(self, tlen):
        """The order for a solution whose own trail was not kept: what logic deduced (the trail
        up to ``tlen``), then the solution's other constrained cells."""
        logic = self.w.trail[:tlen]
        seen = np.zeros(self.n_cells, bool)
        seen[logic] = True
        rest = np.flatnonzero(~seen)
        rest = rest[np.diff(self.net.cell_start)[rest] > 0]
        return np.concatenate([logic, rest]).astype(np.int64)

    def _complete(self, res, difficulty):
        """Every constrained cell is known by logic alone."""
        if not self.solution_ok():
            res.verdict, res.difficulty = "none", difficulty
            return self._finish(res, self.w.state.copy())
        self.add_solution(self.w.state == FILLED)
        res.solutions = list(self.found[:self.want])
        res.verdict = self._verdict(len(res.solutions))
        res.difficulty = difficulty
        return self._finish(res, self.w.state.copy())

    def _guess(self, p, v, child):
        """Assume cell p = v below the current node; ``child``: the current node's probe outcomes
        stay valid (a first branch), else they came from the abandoned sibling subtree."""
        self.new_node(child)
        t0 = int(self.w.stats[S_TLEN])
        if not assume(p, np.int8(v), self.ls_id, self.budget, self.use_cache, self.net, self.w, self.pr):
            return P_CONTRADICTION
        if child and self.keep_outcomes:
            mark_affected(t0, self.w, self.pr)
        return self.probe_fixpoint("searching")

    def _verdict(self, n_found):
        """The verdict once the search is over (exhausted, or ``want`` solutions found)."""
        if self.want == 1:
            return "solved" if n_found else "none"
        return ("none", "unique", "multiple")[min(n_found, 2)]

    def _finish(self, res, state):
        res.state = state
        if res.order is None:
            res.order = self.w.trail[:self.w.stats[S_TLEN]].copy()
        return res

    def _stopped(self, res, state, tlen=None):
        res.verdict = "unknown"
        res.stopped = True
        res.cancelled = self.limits.cancelled
        res.state = state
        if res.order is None:
            t = int(self.w.stats[S_TLEN]) if tlen is None else tlen
            res.order = self.w.trail[:t].copy()
        return res


def run_full(net, ls_id, budget, limits, *, use_cache=True, cache_slots=DEFAULT_CACHE_SLOTS,
             max_edges=None, known=None, want=2, use_sat=True):
    """Run the full method; returns (FullResult, Work) — the Work carries the metrics. ``want``:
    2 searches for two solutions (the uniqueness verdict), 1 stops at the first (``solved``).

    The relation store defaults to 32 relations per cell (at most 2M): it is touched at random,
    so a store far larger than the puzzle costs page faults, not just memory."""
    if max_edges is None:
        max_edges = int(min(max(32 * (len(net.cell_start) - 1), 1 << 12), 1 << 21))
    drv = _Driver(net, ls_id, budget, use_cache, cache_slots, limits, max_edges, known, want, use_sat)
    res = drv.run()
    res.known_used = len(drv.known) > 0
    return res, drv.w
