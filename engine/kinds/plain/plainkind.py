"""The plain (black-and-white) puzzle kind: what the design and solve pipelines ask of a puzzle,
on the bit kernels of ``maskprop.py`` (design, score) and ``propagate.py`` / ``probe.py`` (solve).

``PlainKind(puzzle)`` holds one puzzle's net (every clue it has, usually the full clue set of its
solution) and its work arrays; the pipelines flip ``shown`` (uint8 per line: 1 = the clue takes
part) and call the methods below. The interface every kind offers is described in
``kinds.py``; the colour kind is ``colourkind.ColourKind``.
"""
from __future__ import annotations

import numpy as np

from ...jit import bind, njit
from ...model.cells import EMPTY, FILLED, UNKNOWN
from ...model.puzzle import KIND_BLOCKS, KIND_NONE, Puzzle
from . import maskprop as mp
from .grade import grade, line_costs
from .probe import (C_CHANGED, C_EPOCH, C_IDLE, C_MAX_TIER, C_NSOLS, C_PGEN, C_POOL, C_TIER, assume, close,
                    mark_affected, new_probe, probe_round, relation_literals, reset_relations)
from .propagate import (LS_DP, S_BAD, S_CACHE_HITS, S_CACHE_LOOKUPS, S_CHECKS, S_EDGES, S_LINESOLVERS, S_PREPASS,
                        S_PROBES, S_STEP_CAP, S_TLEN, S_TOO_LARGE, build_net, check_all, first_chunk, new_work,
                        queue_all, satisfies_all, undo_to)
from .quicksearch import (K_NODES, K_NSOL, QUICK_STEPS_PER_CELL, QUICK_STEPS_PER_CELL_KNOWN, QUICK_STEPS_PER_LINE,
                          new_quick, quick_search)
from .sat import SatSearch, encoding_size, open_lines
from .walk import walk, walk_start, walkable

# Line-solver applications a probing trial may spend before it counts as failed (not proven).
PROBE_TRIAL_APPS_PER_CELL = 2000


class PlainKind:
    """One plain puzzle's kernels for the pipelines (see ``kinds.py`` for the interface)."""
    name = "plain"
    colours = 1

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.net = net = build_net(puzzle)
        self.mw = mw = mp.new_mask_work(net)
        self.n_lines = puzzle.n_lines
        self.n_cells = puzzle.n_cells
        self.line_start, self.line_cells = net.line_start, net.line_cells
        self.clued = puzzle.clue_kind != KIND_NONE
        self.shown = self.clued.astype(np.uint8)
        self.costs = line_costs(puzzle)
        self.probe_budget = PROBE_TRIAL_APPS_PER_CELL * max(self.n_cells, 1)
        # the kernels' plain arrays, in their argument order (see maskprop.prop_step)
        self._net = (net.line_start, net.line_cells, net.clue_kind, net.clue_start, net.clue_data, net.cell_start,
                     net.cell_lines)
        self._work = (mw.state, mw.trail, mw.line_unknown, mw.queue, mw.inq, mw.buf_in, mw.buf_out, mw.words, mw.contrib,
                      mw.stats)
        self._none = np.zeros(0, np.int64)

    # state ----------------------------------------------------------------------------------
    def reset(self) -> None:
        """Every cell unknown, nothing queued."""
        mp.reset(self.net, self.mw)

    def mark(self) -> int:
        return int(self.mw.stats[mp.M_TLEN])

    def undo(self, mark: int) -> None:
        mp.prop_step(self._none, mark, self.shown, *self._net, *self._work)

    def undecided(self) -> int:
        return self.n_cells - int(self.mw.stats[mp.M_TLEN])

    def undecided_cells(self) -> np.ndarray:
        return self.mw.state == UNKNOWN

    @property
    def contrib(self) -> np.ndarray:
        """Cells each line deduced in the last ``run``."""
        return self.mw.contrib

    def line_solves(self) -> int:
        return int(self.mw.stats[mp.M_APPS])

    def probes(self) -> int:
        return int(self.mw.stats[mp.M_PROBES])

    def cover(self) -> np.ndarray:
        """Shown lines through each cell."""
        return mp.cover_of(self.net, self.shown)

    # logic ----------------------------------------------------------------------------------
    def run(self, key=None, probe: bool = False) -> int:
        """From every cell unknown, the shown lines to line logic's fixpoint (the line of highest
        ``key`` first when given), then probing when it stalls and ``probe``: a ``maskprop.RUN_*``
        status; ``contrib`` holds each line's deductions."""
        if key is None:
            st = mp.run_lines(self.net, self.shown, self.mw)
        else:
            st = mp.run_prio(self.net, self.shown, np.asarray(key, np.float64), self.mw)
        if st == mp.RUN_STALLED and probe:
            st = mp.probe_closure(self.net, self.shown, self.cover(), self.mw, self.probe_budget)
        return st

    def propagate(self, lines=None, undo_to: int = -1) -> bool:
        """Undo back to ``undo_to`` (a ``mark``) when given, then propagate from the state with
        ``lines`` (default: every shown line) queued; False on a contradiction."""
        if lines is None:
            lines = np.flatnonzero(self.shown)
        return mp.prop_step(np.asarray(lines, np.int64), undo_to, self.shown, *self._net, *self._work) >= 0

    def probe(self) -> int:
        """Probing from the current state (a propagation fixpoint) to its closure: a RUN_* status
        (RUN_BUDGET when it spent ``probe_budget`` line solves: no proof either way)."""
        if self.undecided() == 0:
            return mp.RUN_SOLVED
        return mp.probe_closure(self.net, self.shown, self.cover(), self.mw, self.probe_budget)

    def probe_solves(self) -> int:
        """Whether probing from the current state decides every cell (a RUN_* status); the state
        is left as it was."""
        mark = self.mark()
        st = self.probe()
        self.undo(mark)
        return st

    # the informed start and Suggest Clue ---------------------------------------------------
    def new_gains(self) -> tuple:
        """The informed start's gain bookkeeping (``maskprop.new_gains``: counts and a heap)."""
        return mp.new_gains(self.n_lines)

    def best_gain(self, key, gains) -> int:
        """The hidden line whose one application now deduces the most cells (ties by ``key``),
        or -1; ``gains`` (``new_gains``) keeps the counts between steps."""
        mw = self.mw
        return int(mp.best_gain(key, *gains, self.shown, *self._net[:5], mw.state, mw.line_unknown, mw.buf_in, mw.buf_out,
                                mw.words, mw.stats))

    def show(self, li: int, gains) -> bool:
        """Show line ``li`` and propagate; the gains of the lines through changed cells reset."""
        return bool(mp.show_line(li, *gains[:3], self.shown, *self._net, *self._work))

    def grade(self, probe: bool):
        """The difficulty (``model.difficulty.Difficulty``) of the shown clues."""
        return grade(self.net, self.shown, self.costs, self.mw, probe)


# ---------------------------------------------------------------------------------------------
# the solve face: what the full method's driver (``search.py``) asks of a plain puzzle


@njit
def noise_unit(c, salt):
    """A number in [0, 1) from cell ``c`` and ``salt`` (a 32-bit integer hash): the branching
    noise, the same on every run and machine."""
    h = (c * 0x9E3779B1 + salt * 0x85EBCA77 + 0x165667B1) & 0xFFFFFFFF
    h ^= h >> 15
    h = (h * 0x2C1B3C6D) & 0xFFFFFFFF
    h ^= h >> 12
    h = (h * 0x297A2D39) & 0xFFFFFFFF
    h ^= h >> 15
    return h / 4294967296.0


@njit
def choose_branch(state, cnt, cell_start, mode, noise=0.0, salt=0):
    """(cell, first value) for the next guess, from the probe outcome sizes n0, n1 of each
    unknown cell. mode 0: max n0*n1, larger side first; 1: the same, smaller side first;
    2: max min(n0,n1) + 1.85 log(1+|n0-n1|) (LalaFrogKK's score), larger side first; 3: max
    n0+n1; 4: LalaFrogKK's score, empty first (its order); 5: LalaFrogKK's score, filled first.
    ``noise`` > 0 multiplies each cell's score by 1 + noise * ``noise_unit(cell, salt)``, so
    that restarts do not walk the same tree again. Modes 0 and 1 are the uniqueness search's,
    4 and 5 the first-solution search's (``search.py``: with Luby restarts and noise); 2 and 3
    are for experiments. (Mode 4 alone, without restarts, took 29.7 s in first-solution mode on
    17 TAAI 2011 puzzles against 26.8 s for modes 0 and 1 alternating, though LalaFrogKK itself
    needs fewer nodes.)"""
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
        elif mode == 2 or mode == 4 or mode == 5:
            sc = min(n0, n1) + 1.85 * np.log(1.0 + abs(n0 - n1))
        else:
            sc = float(n0 + n1)
        if noise > 0.0:
            sc *= 1.0 + noise * noise_unit(c, salt)
        if sc > best_s:
            best, best_s = c, sc
            if mode == 1:
                first = FILLED if n1 < n0 else np.int8(1)
            elif mode == 4:
                first = np.int8(1)
            elif mode == 5:
                first = FILLED
            else:
                first = FILLED if n1 >= n0 else np.int8(1)
    if best < 0:
        for c in range(len(state)):
            if state[c] == UNKNOWN:
                return c, FILLED
    return best, first



# The branching of the search below the root: only cells next to a known one are probed there
# (the root always probes every cell, which is what defines difficulty ``probe``).
SEARCH_MAX_TIER = 0
# Flips the walk (``walk.py``) may spend on each solution it looks for, when the quick search did
# not settle a 3D puzzle of circle / square clues without a known solution: per unknown cell, at
# most WALK_MAX_FLIPS. Measured on white noise (fill 0.35, every clue shown; CPU time on a shared
# machine): a solution took 5-13 flips per cell at 20^3, 6-25 at 16^3, 90-600 at 12^3 (one seed
# of five needed over 3500); 1M flips take ~1-3 s. A spent budget (a unique puzzle, or none)
# hands over to probing and search unchanged.
WALK_FLIPS_PER_CELL = 600
WALK_MAX_FLIPS = 2_000_000
WALK_SEED = 20261123
# The search saves the outcome store (``probe.py``) of each open guess's node, so that its sibling
# re-probes only what its own guess touched: five arrays of cells (~60 bytes a cell) per level of
# the search, so only up to this many cells.
SAVE_MAX_CELLS = 1 << 15


class PlainSolver:
    """The full method's kernels on one plain puzzle (its work arrays ``w``, its probe store
    ``pr``): the operations ``search._Driver`` calls (``kinds.py``)."""
    solve_weight = 1.0  # (``search.sat_after_steps``: a plain line solve is the unit)
    probe_nodes = True  # search nodes are closed under probing
    restarts = True     # the branching modes a restart alternates apply
    sat_before_probing = False  # root probing settles most tournament puzzles; 3D CNFs are large

    def __init__(self, net, ls_id, budget, use_cache, cache_slots, max_edges=None, known=None):
        self.net, self.ls_id, self.budget, self.use_cache = net, ls_id, budget, use_cache
        self.n_cells = len(net.cell_start) - 1
        self.covered = np.diff(net.cell_start) > 0  # the cells a clue constrains
        self.free = np.flatnonzero(~self.covered)
        self.n_target = self.n_cells - len(self.free)
        self.w = new_work(net, cache_slots=cache_slots if use_cache else 0)
        # a known solution orders the guesses (never the verdict); one that breaks a clue is ignored
        self.known_state = np.zeros(0, np.int8)
        if known is not None:
            k = np.where(np.asarray(known, dtype=bool).ravel(), FILLED, EMPTY).astype(np.int8)
            if len(k) == self.n_cells and satisfies_all(net, k):
                self.known_state = k
        self.known = len(self.known_state) > 0
        # the relation store: 32 relations per cell (at most 2M) by default; it is touched at
        # random, so a store far larger than the puzzle costs page faults, not just memory
        if max_edges is None:
            max_edges = int(min(max(32 * self.n_cells, 1 << 12), 1 << 21))
        self.pr = new_probe(self.n_cells, max_edges)
        # kept probe outcomes are only reusable when propagation is confluent (the DP)
        self.keep_outcomes = ls_id == LS_DP
        self.first_chunk = first_chunk(net)
        # the outcome stores of the open guesses (see ``branch``): (mark, arrays, ctl values)
        self.saved = []
        self.spare = []
        self.save_outcomes = self.keep_outcomes and self.n_cells <= SAVE_MAX_CELLS
        # the node kernels through numba's dispatch until the search takes its first node (most
        # puzzles never do: a bind costs more than a few dispatched calls)
        self._probe_round, self._assume, self._mark_affected = probe_round, assume, mark_affected
        self._reset_relations, self._undo_to, self._choose_branch = reset_relations, undo_to, choose_branch
        self._bound = False

    def _bind_kernels(self) -> None:
        """The kernels a search node calls, bound to their argument types (``jit.bind``): numba's
        dispatch would type the solver's ~40 arrays on each of a node's ~9 calls. The calls below
        pass these same arrays and their scalars as the same Python types (ints, bools, a float,
        ``np.int8`` for a cell value)."""
        self._bound = True
        net, w, pr = self.net, self.w, self.pr
        ls_id, budget, use_cache = self.ls_id, self.budget, self.use_cache
        self._probe_round = bind(probe_round, ls_id, budget, use_cache, self.n_target, 0, net, w, pr)
        self._assume = bind(assume, 0, np.int8(FILLED), ls_id, budget, use_cache, net, w, pr)
        self._mark_affected = bind(mark_affected, 0, net, w, pr)
        self._reset_relations = bind(reset_relations, pr, True)
        self._undo_to = bind(undo_to, 0, net, w)
        self._choose_branch = bind(choose_branch, w.state, pr.cnt, net.cell_start, 0, 0.0, 0)

    # counters and state ---------------------------------------------------------------------
    def steps(self) -> int:
        return int(self.w.stats[S_LINESOLVERS] + self.w.stats[S_CHECKS])

    def n_known(self) -> int:
        return int(self.w.stats[S_TLEN])

    def mark(self) -> int:
        return int(self.w.stats[S_TLEN])

    def undo(self, mark: int) -> None:
        self._undo_to(int(mark), self.net, self.w)

    def state_copy(self):
        return self.w.state.copy()

    def state_codes(self):
        """The cells as the engine's codes (EMPTY / FILLED / UNKNOWN), a copy."""
        return self.w.state.copy()

    def codes_of(self, state):
        return state

    def order(self, n: int):
        """The first ``n`` cells in the order they became known."""
        return self.w.trail[:n].copy()

    def counts(self) -> tuple:
        """(line solves, of them idle: deduced nothing)."""
        return int(self.w.stats[S_LINESOLVERS]), int(self.w.stats[S_BAD])

    def stats(self) -> dict:
        s = self.w.stats
        return {"checks": int(s[S_CHECKS]), "prepass_lines": int(s[S_PREPASS]), "too_large": int(s[S_TOO_LARGE]),
                "probes": int(s[S_PROBES]), "relations": int(s[S_EDGES]),
                "cache_hits": int(s[S_CACHE_HITS]), "cache_lookups": int(s[S_CACHE_LOOKUPS])}

    # logic ------------------------------------------------------------------------------------
    def queue_all(self) -> None:
        queue_all(self.net, self.w)

    def line_solve(self, chunk):
        """Line solving from the queued lines, for about ``chunk`` steps: True at the fixpoint,
        False on a contradiction, None when paused (lines still queued). Before probing no
        relations exist, so this is ``close`` at the root."""
        w = self.w
        w.stats[S_STEP_CAP] = w.stats[S_LINESOLVERS] + w.stats[S_CHECKS] + chunk
        try:
            if not close(self.ls_id, self.budget, self.use_cache, 0, self.net, w, self.pr):
                return False
            return True if w.queue[1] == 0 else None
        finally:
            w.stats[S_STEP_CAP] = 0

    def new_node(self, child: bool) -> None:
        if not self._bound:
            self._bind_kernels()
        self._reset_relations(self.pr, not (child and self.keep_outcomes))
        self.pr.ctl[C_IDLE] = 0

    def probe_start(self, root: bool) -> None:
        pr = self.pr
        pr.ctl[C_IDLE] = 0
        pr.ctl[C_TIER] = 0
        pr.ctl[C_MAX_TIER] = 1 if root else SEARCH_MAX_TIER

    def probe_round(self, steps: int) -> int:
        return self._probe_round(self.ls_id, self.budget, self.use_cache, self.n_target, int(steps), self.net, self.w,
                                 self.pr)

    def probe_changed(self) -> int:
        return int(self.pr.ctl[C_CHANGED])

    def harvest(self) -> list:
        """The solutions probes met since the last call."""
        k = int(self.pr.ctl[C_NSOLS])
        self.pr.ctl[C_NSOLS] = 0
        return [self.pr.sols[i] == FILLED for i in range(k)]

    def solution_ok(self) -> bool:
        return bool(check_all(LS_DP, self.budget, self.net, self.w))

    def solution(self):
        return self.w.state == FILLED

    def flip_free(self, sol):
        other = sol.copy()
        other[self.free] = True
        return other

    # the search -------------------------------------------------------------------------------
    def keep_root(self) -> None:
        self.root_cnt = self.pr.cnt.copy()

    def restore_root(self) -> None:
        self.pr.cnt[:] = self.root_cnt
        self._drop_saved(-1)

    def _drop_saved(self, mark: int) -> None:
        """Forget the saved outcome stores of guesses made at trail positions above ``mark``."""
        while self.saved and self.saved[-1][0] > mark:
            self.spare.append(self.saved.pop()[1])

    def _save(self, mark: int) -> None:
        pr = self.pr
        self._drop_saved(mark - 1)
        arrs = self.spare.pop() if self.spare else tuple(a.copy() for a in (pr.probed_epoch, pr.needs, pr.cnt,
                                                                              pr.lit_start, pr.lit_len))
        for dst, src in zip(arrs, (pr.probed_epoch, pr.needs, pr.cnt, pr.lit_start, pr.lit_len)):
            np.copyto(dst, src)
        self.saved.append((mark, arrs, int(pr.ctl[C_EPOCH]), int(pr.ctl[C_POOL]), int(pr.ctl[C_PGEN])))

    def _restore(self, mark: int) -> bool:
        """The outcome store as it was before the first guess at ``mark`` (the sibling's parent
        node, at its probing fixpoint), if it was saved and the pool still holds it."""
        pr = self.pr
        self._drop_saved(mark)
        if not self.saved or self.saved[-1][0] != mark:
            return False
        _, arrs, epoch, pool, pgen = self.saved.pop()
        self.spare.append(arrs)
        if pgen != pr.ctl[C_PGEN]:
            return False
        for dst, src in zip((pr.probed_epoch, pr.needs, pr.cnt, pr.lit_start, pr.lit_len), arrs):
            np.copyto(dst, src)
        pr.ctl[C_EPOCH] = epoch
        pr.ctl[C_POOL] = pool
        return True

    def choose(self, mode: int, noise: float = 0.0, salt: int = 0) -> tuple:
        """(cell, value) of the next guess (the known solution's value first); ``choose_branch``."""
        p, v = self._choose_branch(self.w.state, self.pr.cnt, self.net.cell_start, int(mode), float(noise), int(salt))
        if self.known:
            v = self.known_state[p]
        return int(p), int(v)

    def branch(self, p: int, v: int, take: bool, child: bool) -> bool:
        """Cell ``p`` := ``v`` (``take``) or its other value, closed under propagation and the
        stored relations; False on a contradiction."""
        t0 = int(self.w.stats[S_TLEN])
        keep = child and self.keep_outcomes
        if self.save_outcomes:
            if child and take:
                self._save(t0)
            elif not take:
                # the sibling of a guess: its parent's outcomes hold below it too
                keep = self._restore(t0)
        if not self._assume(int(p), np.int8(v if take else 3 - v), self.ls_id, self.budget, self.use_cache, self.net,
                            self.w, self.pr):
            return False
        if keep:
            self._mark_affected(t0, self.net, self.w, self.pr)
        return True

    # the quick search and the walk --------------------------------------------------------------
    def quick_budget(self, want: int) -> int:
        kinds = self.net.clue_kind
        unknown = self.n_target - self.n_known()
        per_cell = QUICK_STEPS_PER_CELL_KNOWN if self.known else QUICK_STEPS_PER_CELL
        if per_cell <= 0 or (not self.known and not np.any(kinds != KIND_BLOCKS)):
            return 0
        return per_cell * unknown + QUICK_STEPS_PER_LINE * int(np.count_nonzero(kinds))

    def quick_start(self) -> None:
        self.qs = new_quick(self.n_cells)

    def quick_round(self, want: int, steps: int) -> int:
        return quick_search(self.ls_id, self.budget, self.use_cache, self.n_target, want, steps, self.net, self.w,
                            self.qs, self.known_state)

    def quick_solutions(self) -> list:
        return [self.qs.sols[k] == FILLED for k in range(int(self.qs.ctl[K_NSOL]))]

    def quick_nodes(self) -> int:
        return int(self.qs.ctl[K_NODES])

    def walkable(self) -> bool:
        """Whether the walk applies (a 3D puzzle of count clues with a circle or square)."""
        return WALK_FLIPS_PER_CELL > 0 and walkable(self.net)

    def walk_start(self) -> int:
        """A random grid to walk from (the first call seeds the generator); the flips one
        solution may cost."""
        if not hasattr(self, "rng"):
            self.rng = np.array([WALK_SEED], np.int64)
        self.x, self.walk_free = walk_start(self.net, self.w.state, self.rng)
        return min(WALK_FLIPS_PER_CELL * int(np.count_nonzero(self.walk_free)), WALK_MAX_FLIPS)

    def walk(self, flips: int):
        """``flips`` more flips of the walk: its solution (checked against every clue), or None."""
        if walk(self.net, self.x, self.walk_free, flips, self.rng) != 0:
            return None
        sol = self.x & self.covered
        if not satisfies_all(self.net, np.where(sol, FILLED, EMPTY).astype(np.int8)):
            raise AssertionError("the walk's solution breaks a clue")
        return sol

    # the CDCL solver --------------------------------------------------------------------------
    def sat_size(self, state) -> int:
        return encoding_size(self.net, open_lines(self.net, state))

    def relations(self):
        return relation_literals(self.pr)

    def sat_new(self, state, relations):
        # phases from the lines' weighted completions (``satphase.py``; on 2D puzzles)
        return SatSearch(self.net, state, self.covered, relations, phases=True)

    def sat_solution_ok(self, sol) -> bool:
        return bool(satisfies_all(self.net, np.where(sol, FILLED, EMPTY).astype(np.int8)))
