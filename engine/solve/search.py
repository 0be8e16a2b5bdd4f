"""The ``full`` method, for every puzzle kind: propagation, then probing, then backtracking search
for up to two solutions, taking turns with a CDCL solver when it wanders.

A kind's solver (``plainkind.PlainSolver``, ``colourkind.ColourSolver``; ``kinds.py``) does the
kernels' work in chunks; this module is the Python driver between chunks, so it can report
progress, honour cancellation and the caller's time/step limits, and keep the search stack (one
frame per guess: the trail mark, the cell and the value tried). A guess takes a value of a cell;
its sibling rules that value out (for a plain cell: the other value). Every search node is closed
under the kind's node logic (plain puzzles: propagation and FP2 probing; colour puzzles:
propagation) before it branches on the cell the kind chooses. The stages, the restarts, the
CDCL solver's turns (``sat_after_steps``: one rule for every kind), the limits and the verdicts
are this module's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .. import gate
from ..kinds.plain.probe import P_CONTRADICTION, P_FIXPOINT, P_PAUSED, P_SOLVED
from ..kinds.plain.propagate import CHUNK_GROWTH
from ..kinds.plain.quicksearch import Q_EXHAUSTED, Q_PAUSED, Q_TWO
from ..kinds.plain.sat import HAVE_SAT

STOPPED = -1  # driver-only status: a limit or the progress callback ended the run


BRANCH_MODE = 0
# Restarts: the search runs with branching mode 0 (larger side first) for RESTART_NODES guesses,
# then restarts from the root with mode 1 (smaller side first) for as many, then both again with
# twice the budget, and so on (0 disables restarts: BRANCH_MODE only). Measured on TAAI 2011
# puzzles that had no verdict in 2 s (most have several solutions): mode 0 settled 2 of 24 in 4 s,
# mode 1 settled 13; but on 93 puzzles mode 0 settled in 2 s, mode 1 alone missed 6 in 10 s and
# took 2.5x the time. A complete run of either still proves uniqueness, and the doubling bounds
# the cost of the restarts.
BRANCH_MODES = (0, 1)
RESTART_NODES = 64
# First-solution mode (want=1) branches, restarts and shakes its choices otherwise, the way
# nonosolve does (hyouv/FastNonogramSolver's defaults): LalaFrogKK's score, empty first and
# filled first in turn (``choose_branch`` modes 4 and 5); runs of FIRST_RESTART_NODES times the
# Luby sequence (1 1 2 1 1 2 4 ...) of nodes; from the third run on, each cell's score times
# 1 + FIRST_BRANCH_NOISE * a hash of the cell and the node count. Measured on 263 of the
# tournament puzzles that reached the hand-over to the CDCL solver (the 25 sets' every 10th,
# every 3rd of those), the search alone with 1 s each (2026-12-03): the uniqueness search's
# rules (product score, modes 0/1, doubling runs of 64) settled 192 in 124.8 s; modes 4/5 203
# in 103.5 s; with Luby runs of 300 196 in 102.7 s; with the noise 211 in 102.8 s; with both
# 218 in 89.0 s. Uniqueness mode keeps its rules: it must exhaust the tree either way.
FIRST_BRANCH_MODES = (4, 5)
FIRST_RESTART_NODES = 300
FIRST_BRANCH_NOISE = 0.5


def luby(i: int) -> int:
    """The i-th term (from 0) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...: restart
    lengths within a logarithmic factor of the best schedule for any unknown law of run
    lengths (Luby, Sinclair and Zuckerman, 1993)."""
    k = 1
    while (1 << k) - 1 < i + 1:  # the smallest k with 2^k - 1 >= i + 1
        k += 1
    while (1 << k) - 1 != i + 1:
        # i + 1 lies in the second copy of the sequence of length 2^(k-1) - 1: fold it back
        if i + 1 >= 1 << (k - 1):
            i -= (1 << (k - 1)) - 1
        k -= 1
    return 1 << (k - 1)


# Line-solver applications the guided search spends before the CDCL solver (``sat.py``, when
# python-sat is installed) starts taking turns with it: about three nodes of a 25x25 search.
# Measured in first-solution mode on 17 TAAI 2011 puzzles that needed more: 200k, 50k and 20k
# took 16.2, 13.2 and 11.3 s in all (LalaFrogKK 19.5 s).
SAT_AFTER_STEPS = 30_000
# The CDCL solver's time per second of search since its last turn (once it has started). In
# effect it sizes only the first turn: the hand-over test counts the search's line solves from the
# search's start, so after the first turn the search takes one node (~1 ms on a 25x25 puzzle)
# between turns, and each later turn is SAT_MIN_SLICE_S, which a chunk of conflicts (up to about
# SAT_CHUNK_S, it cannot be cut) overruns: the CDCL solver holds ~99 % of the time after the
# hand-over (icga2018 #625: 19 turns, 4.21 s of 4.28 s). Kept so: on the 255 of 700 tournament
# puzzles that reach the hand-over (2026-12-03), the search alone (1 s each) settled 179, and
# the times of the two are heavy-tailed and only weakly related (rank correlation 0.38), so giving
# the search s times the CDCL solver's time was estimated (from each puzzle's two times) at 156 s
# in all for s = 1, 131 s for 1/2, 119 s for 1/4, 115 s for 1/8 and less; 115 s measured.
SAT_SHARE = 1.0
# First-solution mode (want=1) hands over after this multiple of SAT_AFTER_STEPS (at 10x 300k line
# solves, ~0.1-0.2 s of a 25x25 search), with the same even turns as uniqueness mode. Once
# probes got about twice as cheap (2026-12-03), a longer search settles most tournament
# puzzles on its own: the seven default sets, every 10th puzzle (700), in two parallel runs on
# the two cores: 1/3 of the steps and 4x the search's time to the CDCL solver (the setting
# before, tuned when probes were dearer and the search's nodes few) 133.1 s in all, median
# 63.9 ms, 503 hand-overs; 3x and even turns 119.1 s, 57.6 ms, 374; 10x 127.8 s, 29.3 ms, 262
# (115.4 / 115.0 s with 2x / 0.5x the search's time: the turns' share is within the runs'
# noise, ~10 %); 30x 127.8 s, 28.0 ms, 185. 20x (600k line solves, ~0.2-0.3 s) once the
# first-solution search restarts with Luby runs and noise (FIRST_BRANCH_MODES), which settles
# more of what it meets late: the same 700, two pairs of runs alternating (2026-12-03, the host
# ~15 % slower than an hour before), 108.1 / 109.8 s against 109.4 / 118.8 s, median 19.5 /
# 18.5 ms against 19.9 / 21.7, 132 hand-overs against 201; the 69 puzzles only 10x hands over
# took 8.0 s instead of 21.0, the 132 both hand over 92.2 s instead of 83.4 (the longer search
# before the hand-over). 4x (120k line solves, tens of ms of a 25x25 search) once the block
# lists' CNF lost its cover variables (2026-12-05; CaDiCaL ~45 % cheaper on the hand-overs):
# every 5th puzzle of the tournament sample (500 from the 1st, 3rd or 4th), two settings at a
# time on the two cores: 12x against 20x 19.9 / 17.0 s against 20.2 / 18.3 s (from the 1st /
# 3rd); 8x against 12x 17.9 s against 19.7 s; 4x against 8x 17.3 / 15.7 s against 18.2 /
# 16.5 s; 2x against 4x 17.2 s against 16.9 s; 6x against 20x 14.9 s against 18.6 s (4th);
# the median 8.3-8.8 ms from 4x to 20x, 9.4 ms at 2x.
SAT_FIRST_AFTER = 4
# First-solution mode (want=1): a search node below the root probes for at most this many
# line solves per cell (the root always probes to its fixpoint; in uniqueness mode every node
# does). A node left short of its fixpoint is still a sound node to guess from, only a weaker
# one; the probe cursor goes on from where the last node stopped, so the nodes of a dive probe
# different cells in turn. 1.6 (1,000 line solves on a 25x25 puzzle, ~115 probes, where a node
# took ~600 to its fixpoint): on the seven default tournament sets, every 10th puzzle (700), four
# pairs of runs alternating with and without (load ~1, 2026-12-03), the median fell 15-21 % in
# every pair (18.0 / 20.9 / 20.9 / 19.7 ms against 22.7 / 24.7 / 25.9 / 23.6) and the total
# stayed within the runs' noise (112.7 / 129.0 / 120.9 / 126.8 s against 118.3 / 123.2 /
# 130.1 / 127.3), with 224 hand-overs to the CDCL solver instead of 255 (the hand-over counts
# line solves, so the cheaper nodes get more of them). 0.8 (500) was slower (27.8 ms median).
FIRST_NODE_PROBE_STEPS_PER_CELL = 1.6
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
# chunk boundaries change the solver's path, a few puzzles swing either way). 0.5 rather than 0.3
# (2026-12-03, the same 700 puzzles, the two settings' runs alternating, two each): 113.2 /
# 108.8 s in all, 3 / 2 puzzles over 2 s, against 122.9 / 116.8 s, 6 / 3; on the ten slowest of
# all 25 sets' every 10th, two runs each, 28.4 / 26.4 s against 40.2 / 27.4 s (tcga2017 #605 took
# 150k conflicts and 10.2 s in one run at 0.3, 40k and 2.1 s in the other). Chunks then take
# 0.47-0.52 s CPU (90th percentile), 0.66 s at most on the five slowest, so a stop or Esc still
# comes within about a second.
SAT_CHUNK_S = 0.5

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
    shown: float = 0.0  # the largest fraction reported: progress never runs backwards

    def stop(self, s, message: str, extra_steps: int = 0) -> bool:
        """Whether to stop; ``s`` the solver (``steps()``, ``n_known()``); ``extra_steps``: work
        done besides line solving (SAT conflicts)."""
        return self.stop_at(s.steps() + extra_steps, s.n_known(), message)

    def stop_at(self, steps: int, known: int, message: str) -> bool:
        """Whether to stop after ``steps`` line-solver applications with ``known`` cells decided."""
        now = time.perf_counter()
        if self.time_limit is not None and now - self.t_start >= self.time_limit:
            return True
        if self.step_limit is not None and steps >= self.step_limit:
            return True
        if self.progress is not None and now - self.last_call >= self.interval:
            self.last_call = now
            self.shown = max(self.shown, known / max(self.n_cells, 1))
            if self.progress(self.shown, message):
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
    compile_s: float = 0.0  # loading the kernels past line solving (``later``), outside the timer
    stopped: bool = False
    cancelled: bool = False


class _Driver:
    """The full method over a kind's solver ``S`` (``plainkind.PlainSolver``,
    ``colourkind.ColourSolver``): the stages, the search's stack, restarts, the CDCL solver's
    turns, limits and verdicts; ``S`` does the kernels' work (``kinds.py``)."""

    def __init__(self, S, limits, want=2, use_sat=True, sat_after=None, node_limit=None, probing=True, later=()):
        self.S = S
        self.later = later
        self.probing = probing
        self.want = want  # solutions to find: 2 settles uniqueness, 1 stops at the first
        self.use_sat = use_sat and HAVE_SAT
        self.sat_after = sat_after
        self.node_limit = node_limit
        self.n_cells = S.n_cells
        self.free = S.free
        self.n_target = S.n_target
        self.limits = limits
        self.chunk = S.first_chunk
        # chunks grow on cheap steps; bounded so that a run of the costliest ones stays short
        self.max_chunk = CHUNK_GROWTH * self.chunk
        # the CDCL solver: made at its first turn (most solves never take one), kept to the end
        self.ss, self.ss_blocked = None, 0
        self.sat_fits = None  # (``_sat_fits``: sized at the first turn)
        self.root_relations = None
        # (a search node's probing budget in line solves: first-solution mode only)
        self.node_probe_steps = max(1, int(FIRST_NODE_PROBE_STEPS_PER_CELL * S.n_cells)) \
            if want == 1 and FIRST_NODE_PROBE_STEPS_PER_CELL > 0 else None

    def _steps_left(self, steps):
        if self.limits.step_limit is not None:
            return max(1, min(steps, self.limits.step_limit - self.S.steps()))
        return steps

    def probe_fixpoint(self, message, max_steps=None):
        """Probe the current node to its fixpoint in chunks; a P_* status or STOPPED. After
        ``max_steps`` line solves (when given) the node counts as closed: P_FIXPOINT, or P_SOLVED
        when every cell is known."""
        S = self.S
        S.probe_start(message == "probing")
        s0 = S.steps()
        while True:
            if self.limits.stop(S, message):
                return STOPPED
            steps = self._steps_left(self.chunk)
            if max_steps is not None:
                left = max_steps - (S.steps() - s0)
                if left <= 0:
                    return P_SOLVED if S.n_known() == self.n_target else P_FIXPOINT
                steps = min(steps, left)
            t = time.perf_counter()
            st = S.probe_round(steps)
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
        call can take seconds): True, False on a contradiction, or STOPPED."""
        S = self.S
        chunk = self.chunk
        while True:
            t = time.perf_counter()
            ok = S.line_solve(chunk)
            if ok is not None:
                return ok
            if time.perf_counter() - t < self.limits.interval / 8:
                chunk = min(chunk * 2, self.max_chunk)
            if self.limits.stop(S, "propagating"):
                return STOPPED

    def add_solution(self, sol, trail=True) -> bool:
        """Keep a distinct solution; True once ``want`` are known. ``trail``: the state's trail
        led to it (a solution of the SAT solver has none)."""
        if not any(np.array_equal(sol, s) for s in self.found):
            self.found.append(sol)
            if len(self.found) == 1:
                self.first_order = self.S.order(self.S.n_known()) if trail else None
                if len(self.free) and self.want > 1:
                    # cells no clue covers take any value: another one there is a second witness
                    self.found.append(self.S.flip_free(sol))
        return len(self.found) >= self.want

    def harvest(self) -> bool:
        """Collect the solutions probes met; True once ``want`` are known."""
        done = False
        for sol in self.S.harvest():
            done = self.add_solution(sol) or done
        return done

    def run(self) -> FullResult:
        """The puzzle through the stages in order, each tried only when the ones before leave it
        open: line solving, the quick search (and the local search of a loose puzzle without a
        known solution), probing to a fixpoint, then the search (``_search``)."""
        S = self.S
        res = FullResult()
        self.found = []
        self.first_order = None
        S.queue_all()
        ok = self.line_solve()
        if ok == STOPPED:
            return self._stopped(res, S.state_codes())
        if not ok:
            res.verdict, res.difficulty = "none", "line"
            return self._finish(res, S.state_codes())
        if S.n_known() == self.n_target:
            return self._complete(res, "line")
        if not self._load_later(res):
            return self._stopped(res, S.state_codes())
        settled = None
        qst = Q_PAUSED
        if S.quick_budget(self.want) > 0:
            qst = self.quick()
            res.quick_nodes = self.quick_nodes
            if qst == Q_EXHAUSTED:
                settled = self.quick_found  # 0 or 1: probing now only decides the difficulty
        if qst == Q_PAUSED and not S.known and S.walkable():
            qst = self.walk()
        if qst == Q_PAUSED and S.sat_before_probing:
            qst = self.sat_turn_before_probing(res)
            if qst == Q_EXHAUSTED:
                settled = len(self.found)  # the CDCL solver's answer is complete: probing decides the difficulty
        if qst == STOPPED:
            res.solutions = list(self.found)
            return self._stopped(res, S.state_codes())
        if qst == Q_TWO:
            # two solutions (of the quick search, the walk or the CDCL solver) that differ on
            # constrained cells, so no logic could have settled them: difficulty `search`; `state`
            # is what line solving deduced (with want=1 the first solution, and `search` says it
            # took a guess to meet it)
            res.solutions = list(self.found[:self.want])
            res.verdict, res.difficulty = self._verdict(len(res.solutions)), "search"
            res.order = S.order(S.n_known())
            return self._finish(res, S.state_codes())
        S.new_node(False)
        st = self.probe_fixpoint("probing") if self.probing else P_FIXPOINT
        res.probe_fixed = S.probe_changed() if self.probing else 0
        if st == STOPPED:
            return self._stopped(res, S.state_codes())
        if st == P_CONTRADICTION:
            res.verdict, res.difficulty = "none", "probe"
            return self._finish(res, S.state_codes())
        if st == P_SOLVED:
            return self._complete(res, "probe")
        if settled is not None:
            # the quick search already searched the whole tree
            res.difficulty = "search"
            res.solutions = list(self.found[:self.want])  # a second one only by flipping free cells
            res.verdict = self._verdict(len(res.solutions))
            res.order = self._solution_order(S.n_known()) if len(res.solutions) == 1 else None
            return self._finish(res, S.state_codes())
        return self._search(res)

    def _load_later(self, res: FullResult) -> bool:
        """Load the kernels past line solving (``gate.later_parts``) now that line solving left
        cells open; neither the time limit nor ``time_s`` counts it (``res.compile_s``). False
        when the progress callback cancels first."""
        if not self.later:
            return True
        limits = self.limits
        spent = gate.prepare(self.later, limits.progress, limits.shown)
        if spent is None:
            limits.cancelled = True
            return False
        limits.t_start += spent
        res.compile_s += spent
        return True

    def _search(self, res: FullResult) -> FullResult:
        """Depth-first search below the probing fixpoint: guesses closed under the kind's node
        logic (probing for plain puzzles), restarts that alternate the branching modes, turns of
        the CDCL solver once the search wanders; until ``want`` solutions, the tree exhausted,
        or a stop."""
        S = self.S
        root_state = S.state_copy()
        root_mark = S.mark()
        res.difficulty = "search"
        stack = []
        status = P_FIXPOINT
        done = self.harvest()
        # restarts alternate the branching modes with a doubling node budget (see RESTART_NODES),
        # in first-solution mode with Luby runs and noise (see FIRST_BRANCH_MODES)
        S.keep_root()
        first = self.want == 1
        modes = FIRST_BRANCH_MODES if first else BRANCH_MODES
        run_k, run_nodes, run_budget = 0, 0, FIRST_RESTART_NODES if first else RESTART_NODES
        steps0 = S.steps()
        # the root's relations hold in the whole tree: the first guess forgets them (a CDCL
        # solver made before probing has none, and its CNF from the weaker state is as complete)
        self.root_relations = S.relations() if self.use_sat and SAT_PROBE_CLAUSES else None
        sat_after = sat_after_steps(S, first) if self.sat_after is None else self.sat_after
        restarts = RESTART_NODES > 0 and S.restarts and not S.known
        if self.use_sat and sat_after == 0 and self._sat_fits(root_state):  # the CDCL solver alone
            status = self.sat_slice(root_state, res, None)
            done = done or status != P_FIXPOINT
        t_dfs = time.perf_counter()
        while not done:
            if status == P_FIXPOINT and self.node_limit is not None and res.nodes >= self.node_limit:
                # the search's budget is spent: the CDCL solver alone, if there is one
                status = self.sat_slice(root_state, res, None) if self._sat_fits(root_state) else STOPPED
                break
            if status == P_FIXPOINT and self.use_sat and S.steps() - steps0 >= sat_after and \
                    self._sat_fits(root_state):
                # the search wanders: the CDCL solver gets as much time as the search had since
                # its last turn (after the first turn one node: see SAT_SHARE); the first to
                # finish settles the puzzle
                slice_s = max((time.perf_counter() - t_dfs) * SAT_SHARE, SAT_MIN_SLICE_S)
                st = self.sat_slice(root_state, res, slice_s)
                t_dfs = time.perf_counter()
                if st != P_FIXPOINT:
                    status = st
                    break
            if status == P_FIXPOINT and not S.probe_nodes and self.limits.stop(S, "searching"):
                status = STOPPED  # (a probing node checks the limits as it probes; a colour node does not probe)
            if status == STOPPED:
                break
            if status == P_SOLVED:
                if S.solution_ok() and self.add_solution(S.solution()):
                    break
                status = P_CONTRADICTION
            if status == P_CONTRADICTION:
                status = self._backtrack(stack)
                if status is None:
                    break
            else:
                # P_FIXPOINT: guess
                if restarts and run_nodes >= run_budget:
                    # restart from the root with the other branching mode; solutions found so
                    # far are kept, probe results of the abandoned subtree are not
                    S.undo(root_mark)
                    stack.clear()
                    S.new_node(False)
                    S.restore_root()
                    run_k += 1
                    run_nodes = 0
                    if first:
                        run_budget = FIRST_RESTART_NODES * luby(run_k)
                    elif run_k % len(modes) == 0:
                        run_budget *= 2
                    res.restarts += 1
                mode = modes[run_k % len(modes)] if restarts else BRANCH_MODE
                noise = FIRST_BRANCH_NOISE if first and restarts and run_k >= 2 else 0.0
                run_nodes += 1
                status = self._descend(stack, mode, noise=noise, salt=res.nodes)
                res.max_depth = max(res.max_depth, len(stack))
                res.nodes += 1
            if self.harvest():
                break
        if status == STOPPED:
            res.solutions = list(self.found)
            res.order = self.first_order
            return self._stopped(res, S.codes_of(root_state), root_mark)
        # search finished (exhausted, or `want` solutions found)
        S.undo(root_mark)
        res.solutions = list(self.found[:self.want])
        res.verdict = self._verdict(len(res.solutions))
        if len(res.solutions) == 1:
            res.order = self.first_order if self.first_order is not None else self._solution_order(root_mark)
        else:
            res.order = S.order(root_mark)
        res.state = S.codes_of(root_state)
        return res

    def sat_turn_before_probing(self, res):
        """One turn of the CDCL solver from the line-solving fixpoint, for kinds whose root
        probing is dear (``S.sat_before_probing``), once the quick search is spent: the CNF fed,
        then as much time as the solve so far, at least SAT_MIN_SLICE_S (a 20 ms turn that
        counted the feed, 12-20 ms on a noisy 35 x 35 picture, often ended before the solver's
        first conflicts and left the puzzle to a probing pass). As the quick search's: Q_TWO (``want``
        solutions known), Q_EXHAUSTED (no other solution), Q_PAUSED (the turn is over, the solver
        kept for the search's turns) or STOPPED."""
        state = self.S.state_copy()
        if not self._sat_fits(state):
            return Q_PAUSED
        slice_s = max((time.perf_counter() - self.limits.t_start) * SAT_SHARE, SAT_MIN_SLICE_S)
        st = self.sat_slice(state, res, slice_s, after_feed=True)
        return {P_SOLVED: Q_TWO, P_CONTRADICTION: Q_EXHAUSTED, P_FIXPOINT: Q_PAUSED}.get(st, st)

    def _sat_fits(self, root_state) -> bool:
        """Whether the CDCL solver may take turns: python-sat is there, it was asked for, and the
        root's encoding is within SAT_MAX_LITERALS (sized once, at the first turn)."""
        if self.use_sat and self.sat_fits is None:
            self.sat_fits = self.S.sat_size(root_state) <= SAT_MAX_LITERALS
            self.use_sat = self.sat_fits
        return self.use_sat

    def sat_slice(self, state, res, seconds, after_feed=False):
        """Run the CDCL solver (the kind's encoding, ``sat.py`` / ``coloursat.py``) from
        ``state`` (the root's, so its answer is complete) for about ``seconds`` (None: to the
        end), the solutions found so far excluded. P_SOLVED once ``want`` solutions are known,
        P_CONTRADICTION when none is left, STOPPED for a limit, P_FIXPOINT when the slice is over
        (the solver keeps its state for the next one). ``after_feed``: the ``seconds`` start
        once the CNF is fed."""
        if self.ss is None:
            try:
                self.ss = self.S.sat_new(state, self.root_relations)
            except (ImportError, OSError):  # python-sat is there but does not load: search on
                self.use_sat = False
                return P_FIXPOINT if seconds is not None else STOPPED
            self.ss_fed = False
            self.ss_lines = 8
            res.sat_conflicts = 0
        ss = self.ss
        t_end = None if seconds is None else time.perf_counter() + seconds
        while True:
            if self.limits.stop(self.S, "searching", ss.conflicts):
                return STOPPED
            t = time.perf_counter()
            if t_end is not None and t >= t_end and (self.ss_fed or not after_feed):
                return P_FIXPOINT
            if not self.ss_fed:
                # the CNF, line by line: a large puzzle's takes seconds to build
                self.ss_fed = ss.feed(self.ss_lines)
                if self.ss_fed and after_feed and seconds is not None:
                    t_end = time.perf_counter() + seconds
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
            if not self.S.sat_solution_ok(r):
                raise AssertionError("the SAT solver's solution breaks a clue")
            if self.add_solution(r, trail=False):
                return P_SOLVED

    def quick(self):
        """The quick search (the kind's kernel, ``quicksearch.py``, else ``_quick_rounds``) from the
        line-solving fixpoint, in chunks; Q_TWO, Q_EXHAUSTED, Q_PAUSED (budget spent) or STOPPED.
        Solutions go to ``found``; the state is restored to the fixpoint."""
        S = self.S
        mark = S.mark()
        left = S.quick_budget(self.want)
        if hasattr(S, "quick_round"):
            S.quick_start()
            quick_round = partial(S.quick_round, self.want)
        else:
            sols, nodes = [], [0]
            quick_round = self._quick_rounds(sols, nodes).send
            quick_round(None)
        chunk = S.first_chunk
        st = Q_PAUSED
        while left > 0:
            if self.limits.stop(S, "searching"):
                st = STOPPED
                break
            steps = self._steps_left(min(chunk, left))
            s0 = S.steps()
            t = time.perf_counter()
            try:
                st = quick_round(steps)
            except StopIteration as done:  # (the end of ``_quick_rounds``)
                st = done.value
            left -= S.steps() - s0
            if st != Q_PAUSED:
                break
            dt = time.perf_counter() - t
            if dt < self.limits.interval / 8:
                chunk = min(chunk * 2, self.max_chunk)
            elif dt > self.limits.interval / 2:
                chunk = max(chunk // 2, 1)
        if hasattr(S, "quick_round"):
            sols, nodes = S.quick_solutions(), [S.quick_nodes()]
        for sol in sols:
            self.add_solution(sol)
        self.quick_nodes, self.quick_found = nodes[0], len(sols)
        self.first_order = None  # the trail of the quick search's solution is gone
        S.undo(mark)
        return st

    def _quick_rounds(self, sols, nodes):
        """The search's steps without probing, restarts or CDCL turns, for a kind without a quick
        kernel: sent a round's line solves, yields Q_PAUSED once they are spent; returns Q_TWO
        once ``want`` solutions are in ``sols`` (a free cell's flip is none), Q_EXHAUSTED."""
        S = self.S
        stack, status = [], P_FIXPOINT
        steps = yield
        while True:
            s0 = S.steps()
            while S.steps() - s0 < steps:
                if status == P_SOLVED:
                    sols.append(S.solution())
                    if len(sols) >= self.want:
                        return Q_TWO
                    status = P_CONTRADICTION
                if status == P_CONTRADICTION:
                    status = self._backtrack(stack, probe=False)
                    if status is None:
                        return Q_EXHAUSTED
                else:
                    nodes[0] += 1
                    status = self._descend(stack, BRANCH_MODE, probe=False)
            steps = yield Q_PAUSED

    def walk(self):
        """Walks (``walk.py``, plain puzzles) from random grids until ``want`` distinct
        solutions are known or the flip budget is spent: Q_TWO, Q_PAUSED (spent; solutions met
        stay in ``found``) or STOPPED. A walk's solution is checked against every clue before it
        counts."""
        S = self.S
        per_solution = S.walk_start()
        left = per_solution * max(self.want - len(self.found), 1)
        chunk = 20_000
        while left > 0:
            if self.limits.stop(S, "searching"):
                return STOPPED
            n = min(chunk, left)
            t = time.perf_counter()
            sol = S.walk(n)
            left -= n
            if sol is not None:
                if self.add_solution(sol, trail=False):
                    return Q_TWO
                S.walk_start()  # the next walk from another grid
            elif time.perf_counter() - t < self.limits.interval / 8:
                chunk *= 2
        return Q_PAUSED

    def _solution_order(self, tlen):
        """The order for a solution whose own trail was not kept: what logic deduced (the trail
        up to ``tlen``), then the solution's other constrained cells."""
        logic = self.S.order(tlen)
        seen = np.zeros(self.n_cells, bool)
        seen[logic] = True
        rest = np.flatnonzero(~seen & self.S.covered)
        return np.concatenate([logic, rest]).astype(np.int64)

    def _complete(self, res, difficulty):
        """Every constrained cell is known by logic alone."""
        S = self.S
        if not S.solution_ok():
            res.verdict, res.difficulty = "none", difficulty
            return self._finish(res, S.state_codes())
        self.add_solution(S.solution())
        res.solutions = list(self.found[:self.want])
        res.verdict = self._verdict(len(res.solutions))
        res.difficulty = difficulty
        return self._finish(res, S.state_codes())

    def _descend(self, stack, mode, probe=True, noise=0.0, salt=0):
        """Guess the cell and value the kind chooses (``choose``: the branching mode, noise and
        its salt), its frame on ``stack``: ``_guess``'s status."""
        S = self.S
        p, v = S.choose(mode, noise, salt)
        stack.append((S.mark(), p, v, True))
        return self._guess(p, v, True, True, probe)

    def _backtrack(self, stack, probe=True):
        """Take the deepest sibling left: ``_guess``'s status, None when the tree is exhausted."""
        while stack:
            mark, p, v, alt = stack.pop()
            self.S.undo(mark)
            if alt:
                stack.append((mark, p, v, False))
                return self._guess(p, v, False, False, probe)
        return None

    def _guess(self, p, v, take, child, probe=True):
        """Take (``take``) or rule out value ``v`` of cell ``p`` below the current node, then close
        the node (by propagation alone without ``probe``); ``child``: the current node's probe
        outcomes stay valid (a first branch), else they came from the abandoned sibling subtree."""
        S = self.S
        S.new_node(child)
        if not S.branch(p, v, take, child):
            return P_CONTRADICTION
        if not (probe and S.probe_nodes):
            return P_SOLVED if S.n_known() == self.n_target else P_FIXPOINT
        return self.probe_fixpoint("searching", self.node_probe_steps)

    def _verdict(self, n_found):
        """The verdict once the search is over (exhausted, or ``want`` solutions found)."""
        if self.want == 1:
            return "solved" if n_found else "none"
        return ("none", "unique", "multiple")[min(n_found, 2)]

    def _finish(self, res, state):
        res.state = state
        if res.order is None:
            res.order = self.S.order(self.S.n_known())
        return res

    def _stopped(self, res, state, mark=None):
        res.verdict = "unknown"
        res.stopped = True
        res.cancelled = self.limits.cancelled
        res.state = state
        if res.order is None:
            res.order = self.S.order(self.S.n_known() if mark is None else mark)
        return res


def sat_after_steps(S, first: bool) -> float:
    """The one hand-over rule: the search's line-solver applications before the CDCL solver
    takes turns with it, SAT_AFTER_STEPS in plain line solves, a kind's dearer line solves
    weighed by ``S.solve_weight`` (a colour line solve costs about three plain ones: 10,000 of
    them were the colour search's budget, measured with the colour search before the two were
    one), SAT_FIRST_AFTER times as many in first-solution mode."""
    return SAT_AFTER_STEPS * (SAT_FIRST_AFTER if first else 1) / S.solve_weight


def run_full(S, limits, *, want=2, use_sat=True, sat_after=None, node_limit=None, probing=True, later=()):
    """Run the full method on a kind's solver ``S``; returns the FullResult (``S`` carries the
    metrics). ``want``: 2 searches for two solutions (the uniqueness verdict), 1 stops at the
    first (``solved``). ``sat_after``: line solves of the search before the CDCL solver takes
    turns (default ``sat_after_steps``; 0: the CDCL solver alone after the logic);
    ``node_limit``: the search's guesses, then the CDCL solver alone (without it: unknown);
    ``probing`` False: no probing at the root (the search's nodes are closed as the kind closes
    them); ``later``: the ``gate`` parts to load once line solving leaves cells open."""
    drv = _Driver(S, limits, want, use_sat, sat_after, node_limit, probing, later)
    try:
        res = drv.run()
    finally:
        if drv.ss is not None:  # the CDCL solver's native memory: once, whichever way the run ended
            drv.ss.close()
    res.known_used = bool(S.known)
    return res
