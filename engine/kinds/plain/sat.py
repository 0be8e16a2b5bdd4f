"""CNF encoding of a puzzle and a CDCL search through python-sat, when it is installed.

The ``full`` method's search (``search.py``) closes every node under line solving and probing,
which settles most puzzles in a few guesses; but on puzzles with many solutions that it meets
late (random 25x25 tournament puzzles, loose 3D puzzles) it can wander for minutes. A CDCL
solver learns a clause from every conflict and does not wander like that: measured on the six
TAAI 2011 puzzles our search could not settle in 10 s, CaDiCaL finds a solution of each within
0.3-2 s from a plain encoding. So the search hands over to it once its own budget is spent
(``search.py``). python-sat is optional: without it the search goes on alone.

Encoding (cell c is variable c + 1; cells already known are unit clauses):
- exact block lists (2D, and 3D plain clues: one block): order variables "block j starts at
  or before p", the cells tied to them directly (``satblocks.blocks_cnf``);
- 3D circle / square clues: one automaton per line whose states count the filled cells and
  the blocks together (``_count_blocks_clauses``). It replaced a sequential counter for the
  filled count beside one for the block starts (exactly 2, at least 3), whose unit propagation
  sees neither with the other: from the root of 20^3 white noise (every clue shown), CaDiCaL
  met a first solution after 1.3k conflicts (1.4 s) instead of 17.6k (14.4 s).

Phases (``phases=True``, the plain kind's, on 2D puzzles): every cell and block start starts
at the value belief propagation between the block lists finds likelier (``satphase.py``).
"""
from __future__ import annotations

import importlib.util

import numpy as np

from ...gcpause import collector_held
from ...model.cells import FILLED, UNKNOWN
from ...model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE
from .satblocks import TRUE_LITERAL, blocks_cnf  # one always-true literal for both encoders
from .satphase import BP_ROUNDS, beliefs, blocks_phases

# python-sat is imported on first use (importing it takes ~0.4 s, and most puzzles never need
# it); a wheel that is present but does not load shows then, and the search goes on without it.
try:
    HAVE_SAT = importlib.util.find_spec("pysat") is not None
    SAT_ERROR = "" if HAVE_SAT else "python-sat is not installed"
except (ImportError, ValueError) as exc:
    HAVE_SAT = False
    SAT_ERROR = f"{type(exc).__name__}: {exc}"

# CaDiCaL 1.9.5: the fastest of python-sat's incremental solvers on the TAAI puzzles above
# (Kissat is not incremental, so it cannot look for a second solution with the first blocked).
SOLVER_NAME = "cadical195"
# CaDiCaL's options. target=2: target phases (the assignment of the longest conflict-free trail)
# in its focused mode too, not only in stable mode; made for satisfiable instances, which nearly
# all of ours are. Measured from the root (one uninterrupted call, ``SatSearch`` as the search
# builds it) on the 75 icga2020 / 71 icga2016 tournament puzzles (every 10th) that reach the
# hand-over, seeds 0-2: 188k / 226k conflicts on average against 242k / 259k by default
# (phase=0 gave 222k / 240k, both together 198k / 263k); in the search, two runs of those
# sets: 256k and 270k conflicts against 349k and 308k on icga2020, 332k and 341k against 400k
# and 408k on icga2016.
SOLVER_OPTIONS = {"target": 2}
# On top of them when the solver is given phases (``satphase.py``, 2D block lists). A phase
# given to CaDiCaL is forced: it decides every branch's value, so target and saved phases no
# longer matter (target 0 / 1 / 2 and phase 0 gave the same conflicts) and what is left to
# choose is the branching order and the restarts. stabilizeonly=1: stable mode throughout
# (VSIDS scores, restarts in reluctant doubling) instead of switching with the focused mode.
# Replayed from the hand-over (``benchmarks/sat_replay.py``, deterministic conflicts; 2026-12-04):
# on icga2020 / icga2021 / taai2015 (every 10th, 60 hand-overs), 148k conflicts and 8.9 s
# against 223k and 13.7 s (stabilize=0, focused only: 351k; rephase=0 177k, elim=0 176k,
# vivify=0 200k, probe=0 208k, chrono=0 215k, lucky=0 and walk=0 unchanged; with it, elim=0
# 120k but 9.2 s, rephase=0 141k, vivify=0 142k); checked on seven other sets (taai2011,
# icga2016-2019, tcga2016-2017; 135 hand-overs): 433k conflicts and 25.0 s against 545k and
# 29.6 s, fewer on six sets (icga2016 34k against 62k), more on tcga2017 (61k against 41k).
# Again once the block lists' CNF lost its cover variables (2026-12-05; the 980 hand-overs of
# benchmarks/results/tournament.json replayed through the search, first solution): 1.25M
# conflicts, 48.8 s in CaDiCaL against 1.56M and 56.9 s without it; with elim=0 on top 1.18M
# and 48.1 s, vivify=0 1.23M and 48.5 s, rephase=0 1.34M and 53.6 s: none better beyond the
# noise. Each moved some set's total by 0.2-1.3 s either way (tcga2017 #605 alone: 34k
# conflicts, 29k without, 8k with elim=0), so a set whose total is within ~10 % of a peer's
# is decided by a puzzle or two, not by these options.
PHASED_OPTIONS = {"stabilizeonly": 1}


# Conflicts of the first step for a CNF of up to FIRST_CHUNK_LITERALS literals (``encoding_size``;
# a 25x25 tournament puzzle's is ~0.22M), fewer for larger ones (at least 100). Measured in
# first-solution mode on the 206 ICGA 2018-2020 tournament puzzles (every 10th) that reached
# the hand-over, on a shared machine: starting at 300 conflicts, 1.26M conflicts in all
# (84.0 s CPU); at 2000, 1.12M (76.7 s); one uninterrupted call from the root needed 0.84M.
FIRST_CHUNK = 2000
FIRST_CHUNK_LITERALS = 300_000



def _count_step(q, v, kind, total):
    """The state after reading cell value ``v`` (0/1) in state ``q`` = (filled so far, blocks so
    far capped at 3, last cell filled) of a circle / square clue's automaton; None past the
    total or at a circle's third block."""
    f, b, p = q
    if not v:
        return (f, b, 0)
    if f == total or (kind == KIND_CIRCLE and b == 2 and not p):
        return None
    return (f + 1, min(b + (not p), 3), 1)


def _count_blocks_states(n, kind, total, state):
    """The layered automaton of a 3D circle / square clue over a line of ``n`` cells whose
    values under ``state`` (FILLED / EMPTY / UNKNOWN per cell) are respected: layer i holds the
    states (``_count_step``) after i cells reachable from the start and co-reachable to an
    accepting state (``total`` filled in exactly 2 / at least 3 blocks). A list of n + 1 sorted
    layers; all empty when the clue has no solution."""
    values = [(0, 1) if v == UNKNOWN else ((1,) if v == FILLED else (0,)) for v in state[:n]]
    layers = [{(0, 0, 0)}]
    for i in range(n):
        nxt = set()
        for q in layers[-1]:
            for v in values[i]:
                r = _count_step(q, v, kind, total)
                if r is not None and r[0] + (n - 1 - i) >= total:  # room for the rest
                    nxt.add(r)
        layers.append(nxt)
    want = 2 if kind == KIND_CIRCLE else 3
    layers[n] = {q for q in layers[n] if q[0] == total and q[1] == want}
    for i in range(n - 1, -1, -1):
        layers[i] = {q for q in layers[i] if any(_count_step(q, v, kind, total) in layers[i + 1] for v in values[i])}
    return [sorted(layer) for layer in layers]


def _count_blocks_clauses(cells, kind, total, state, new, out):
    """Clauses of a 3D circle / square clue: ``total`` filled cells in 2 / at least 3 blocks,
    as one automaton over the line (REGULAR, after Bacchus 2007): a variable per state of
    ``_count_blocks_states`` (layers 1..n; the start is fixed), the transitions as clauses, and
    support clauses both ways (a state needs a predecessor and a successor, a cell value a state
    that reads it). The state's last bit is the cell it just read, so a state of layer i + 1
    names its transition and needs no transition variable. Unit propagation on it is as strong
    as the line solver's on this clue, where a counter for the filled cells beside one for the
    block starts sees neither with the other."""
    n = len(cells)
    layers = _count_blocks_states(n, kind, total, state)
    if not layers[0]:
        out.append([])
        return
    var = [{layers[0][0]: TRUE_LITERAL}]
    for i in range(1, n + 1):
        var.append({q: new() for q in layers[i]})
    for i in range(n):
        x = cells[i]
        here, there = var[i], var[i + 1]
        preds = {q: [] for q in there}
        for q, a in here.items():
            succ = []
            for v in (0, 1):
                r = _count_step(q, v, kind, total)
                lit = x if v else -x
                b = there.get(r)  # None: no solution goes on from q with v
                if b is None:
                    cl = [-lit] if a == TRUE_LITERAL else [-a, -lit]
                else:
                    cl = [-lit, b] if a == TRUE_LITERAL else [-a, -lit, b]
                    succ.append(b)
                    preds[r].append(a)
                out.append(cl)
            out.append(succ if a == TRUE_LITERAL else [-a] + succ)
        lit_support = ([x], [-x])  # value v -> some state of layer i + 1 that read v
        for r, b in there.items():
            ps = preds[r]
            out.append([-b, x if r[2] else -x])
            if TRUE_LITERAL not in ps:
                out.append([-b] + ps)
            lit_support[r[2]].append(b)
        out.append(lit_support[0])
        out.append(lit_support[1])


# Clauses of count clues by (length, kind, total, the line's known cells): a line's CNF is its
# template's with the variables renumbered. Most lines of a 3D puzzle share a template (at the
# root of 20^3 noise ~40 templates serve 1200 lines), and building one in Python costs ~2 ms.
_TEMPLATES: dict = {}
_MAX_TEMPLATES = 4096


def _count_blocks_template(n, kind, total, line_state):
    """(literals, clause ends, auxiliary variables) of ``_count_blocks_clauses`` over cells
    1..n and auxiliaries from n + 1."""
    key = (n, kind, total, np.asarray(line_state, np.int8).tobytes())
    t = _TEMPLATES.get(key)
    if t is None:
        out = []
        box = [n]

        def new():
            box[0] += 1
            return box[0]
        _count_blocks_clauses(list(range(1, n + 1)), kind, total, line_state, new, out)
        t = (np.array([x for c in out for x in c], np.int64), np.cumsum([len(c) for c in out], dtype=np.int64),
             box[0] - n)
        if len(_TEMPLATES) >= _MAX_TEMPLATES:
            _TEMPLATES.clear()
        _TEMPLATES[key] = t
    return t


def open_lines(net, state):
    """The clued lines with an unknown cell: the ones the CNF needs (the caller's state
    satisfies the others)."""
    ls, lc, kinds = net[0], net[1], net[2]
    unknown = np.add.reduceat((state == UNKNOWN)[lc].astype(np.int64), ls[:-1]) if len(lc) else \
        np.zeros(len(kinds), np.int64)
    unknown[np.diff(ls) == 0] = 0
    return np.flatnonzero((kinds != KIND_NONE) & (unknown > 0))


def encoding_size(net, lines):
    """A rough count of the literals the CNF of ``lines`` takes: block lists grow with the
    blocks' free positions, count clues with the automaton's states (the line's length times
    the filled counts it may reach: ~20-50 literals per length and count value, measured)."""
    ls, kinds, cs, cd = net[0], net[2], net[3], net[4]
    n = (ls[lines + 1] - ls[lines]).astype(np.int64)
    k = (cs[lines + 1] - cs[lines]).astype(np.int64)
    counts = (kinds[lines] != KIND_BLOCKS) & (kinds[lines] != KIND_PLAIN)
    total = np.where(counts, cd[np.minimum(cs[lines], max(len(cd) - 1, 0))], 0) if len(cd) else 0
    return int(np.sum(np.where(counts, 30 * n * (np.minimum(total, n - total) + 1), 6 * n * (k + 1) * 4)))


def line_clauses(net, state, li, top, out):
    """Append the clauses of count line ``li`` (circle / square; block lists are ``blocks_cnf``'s)
    under ``state``; returns the new top variable."""
    ls, lc, kinds, cs, cd = net[0], net[1], net[2], net[3], net[4]
    idx = lc[ls[li]:ls[li + 1]]
    cells = (idx + 1).tolist()
    nums = cd[cs[li]:cs[li + 1]]
    lits, ends, n_aux = _count_blocks_template(len(cells), int(kinds[li]), int(nums[0]), state[idx])
    # the template's variables: 1..n the line's cells, then its own auxiliaries from top + 1
    vmap = np.concatenate([[0], idx + 1, np.arange(top + 1, top + 1 + n_aux)])
    mapped = np.where(lits > 0, vmap[np.abs(lits)], -vmap[np.abs(lits)]).tolist()
    s = 0
    for e in ends.tolist():
        out.append(mapped[s:e])
        s = e
    return top + n_aux


def implication_clauses(state, src, dst):
    """Binary clauses (not src or dst) of implications between literals in probing's coding
    (``probe.relation_literals``: 2 * cell + 1 for filled), those between two cells unknown in
    ``state``. Probing derives them across lines, where the CNF's unit propagation (exact only
    line by line) cannot: measured on the slowest ICGA 2018/2020 tournament puzzles, see
    ``search.SAT_PROBE_CLAUSES``."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    a, b = src >> 1, dst >> 1
    keep = (state[a] == UNKNOWN) & (state[b] == UNKNOWN)
    sa = np.where(src & 1, a + 1, -(a + 1))[keep]
    sb = np.where(dst & 1, b + 1, -(b + 1))[keep]
    return np.stack([-sa, sb], axis=1).reshape(-1, 2)


def _binding(solver):
    """(module, handle): python-sat's C binding and the solver's handle in it, for the calls
    pysat's wrapper does not offer; (None, None) when this pysat's internals differ."""
    try:
        import pysolvers  # type: ignore[import-not-found]
        family = SOLVER_NAME.rstrip("0123456789")  # the wrapper's handle: "cadical", "kissat"
        return pysolvers, getattr(solver.solver, family)
    except (ImportError, AttributeError):
        return None, None


def _clause_adder(solver):
    """(add, handle): the binding's C function that adds one clause to CaDiCaL, called directly
    (pysat's ``append_formula`` wraps every clause in two Python calls and a type check), or
    (None, None) when this pysat's internals differ (then ``append_formula``)."""
    mod, handle = _binding(solver)
    add = getattr(mod, SOLVER_NAME + "_add_cl", None)
    return (add, handle) if add is not None and handle is not None else (None, None)


def _set_option(solver, name, value):
    """Set a CaDiCaL option through the binding (pysat's wrapper has no call for it); an
    unknown binding or option is left at the solver's default."""
    mod, handle = _binding(solver)
    setter = getattr(mod, SOLVER_NAME + "_set", None)
    if setter is not None and handle is not None:
        setter(handle, name, value)


class SatSearch:
    """A CDCL solver over the puzzle's CNF, built and run in chunks (``feed``, then ``step``)
    so that the caller can honour time limits and cancellation between them. ``constrained``:
    the cells a clue covers (solutions differ only there; the others are returned empty).
    ``implications``: (src, dst) literal arrays that hold under ``state`` (probing's relations,
    ``implication_clauses``), added as binary clauses. ``phases``: on a 2D puzzle (block lists
    only), the solver's first choice for every cell and every block list's variable
    (``satphase.py``: belief propagation over the block lists), with CaDiCaL in stable mode only
    (``PHASED_OPTIONS``); a 3D puzzle keeps the solver's own (slower with them, see ``__init__``),
    and the colour kind passes False (not measured)."""

    def __init__(self, net, state, constrained, implications=None, phases=False):
        self.net, self.state = net, np.asarray(state, np.int8)
        self.n_cells = len(state)
        self.constrained = np.asarray(constrained, bool)
        self.lines = open_lines(net, self.state).tolist()
        self.top = self.n_cells
        known = np.flatnonzero(self.state != UNKNOWN)
        units = [[int(c) + 1] if self.state[c] == FILLED else [-(int(c) + 1)] for c in known]
        from pysat.solvers import Solver  # type: ignore[import-untyped]  # ImportError/OSError: a broken wheel
        self.solver = Solver(name=SOLVER_NAME)
        self._adder = _clause_adder(self.solver)
        # the units through the binding's own call (``bootstrap_with`` wraps each in two Python
        # calls: a 38x49 4-colour puzzle's 9,310 indicator units took 13 ms that way)
        self._add_lists(units)
        # whether the solver gets phases (2D puzzles only: see below); then its stable mode too
        phased = phases and not np.isin(net[2], (KIND_PLAIN, KIND_CIRCLE, KIND_SQUARE)).any()
        for name, value in {**SOLVER_OPTIONS, **(PHASED_OPTIONS if phased else {})}.items():
            _set_option(self.solver, name, value)
        if implications is not None:
            self._add_lists(implication_clauses(self.state, *implications).tolist())
        # the phases (``satphase.py``), set once every variable is in the solver (CaDiCaL
        # ignores the phase of a variable it has not met yet); 2D puzzles only: on 3D ones (12^3
        # white noise, first solution, six seeds) the plain lines' phases, the count lines'
        # automata left to CaDiCaL, took 7-75x the conflicts
        self.belief, self.phases = None, []
        if phased:
            self.belief = beliefs(net[0], net[1], net[3], net[4], net[2] == KIND_BLOCKS, self.state, BP_ROUNDS)
            free = np.flatnonzero(self.state == UNKNOWN)
            self.phases = [np.where(self.belief[free] >= 0.5, free + 1, -(free + 1))]
        # conflicts per step (the caller sizes it to its time slices): the first ones long, as
        # every call restarts the solver's own schedule, but shorter on large puzzles, where a
        # conflict costs more (about in proportion to the CNF)
        size = encoding_size(net, np.asarray(self.lines, np.int64))
        self.chunk = int(np.clip(FIRST_CHUNK * FIRST_CHUNK_LITERALS / max(size, 1), 100, FIRST_CHUNK))
        self.conflicts = 0

    def feed(self, max_lines: int) -> bool:
        """Encode up to ``max_lines`` more lines; True once every line is in the solver."""
        batch = self.lines[:max_lines]
        del self.lines[:max_lines]
        net = self.net
        # the clause lists are many small containers: a collection of the whole process's
        # objects every few hundred of them took most of the time (``solve`` holds the collector
        # off throughout; this is for callers of their own, such as benchmarks/sat_replay.py)
        with collector_held():
            i = 0
            while i < len(batch):
                j = i
                while j < len(batch) and net[2][batch[j]] in (KIND_BLOCKS, KIND_PLAIN):
                    j += 1
                if j > i:
                    lines = np.asarray(batch[i:j], np.int64)
                    if self.belief is not None:
                        _, lits = blocks_phases(net[0], net[1], net[3], net[4], lines, self.top, self.belief)
                        self.phases.append(lits)
                    lits, offs, self.top = blocks_cnf(net[0], net[1], net[3], net[4], lines, self.top)
                    self._add_flat(lits, offs)
                    i = j
                else:
                    out = []
                    self.top = line_clauses(net, self.state, batch[i], self.top, out)
                    self._add_lists(out)
                    i += 1
        if not self.lines and self.phases:
            self.solver.set_phases(np.concatenate(self.phases).tolist())
            self.phases = []
        return not self.lines

    def add_clauses(self, clauses):
        """Add clauses (lists of literals) of the caller's own beside the lines' (the colour
        CNF's per-cell and 2D clauses, ``coloursat.py``)."""
        self._add_lists(clauses)

    def _add_lists(self, clauses):
        add, ptr = self._adder
        if ptr is None:
            self.solver.append_formula(clauses)
        else:
            for c in clauses:
                add(ptr, c)

    def _add_flat(self, lits, offs):
        flat, o = lits.tolist(), offs.tolist()
        self._add_lists([flat[a:b] for a, b in zip(o[:-1], o[1:])])

    def step(self):
        """Run one chunk: a solution (bool array), False (no more solutions) or None (go on)."""
        self.solver.conf_budget(self.chunk)
        r = self.solver.solve_limited()
        self.conflicts = int(self.solver.accum_stats().get("conflicts", 0))
        if r is None:
            return None
        if not r:
            return False
        # variables in no clause (cells no clue covers, at the end) may be missing from the model
        model = np.zeros(self.n_cells, np.int64)
        m = self.solver.get_model()[:self.n_cells]
        model[:len(m)] = m
        return (model > 0) & self.constrained

    def block(self, sol):
        """Exclude ``sol``: the next solution differs from it on some constrained cell."""
        cells = np.flatnonzero(self.constrained)
        self.solver.add_clause(np.where(sol[cells], -(cells + 1), cells + 1).tolist())

    def close(self):
        self.solver.delete()
