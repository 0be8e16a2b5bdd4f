"""The search's reuse of probe outcomes (``probe.mark_affected``, ``PlainSolver``'s saved outcome
stores): a node re-probes only the cells whose probes could now run differently, and the sibling
of a guess starts from its parent's outcomes. Each outcome the search keeps at a node must be an
implication of that node's state (a probe of q=v that made cell x known as w: no solution has the
node's cells, q=v and x!=w; asked of a CDCL solver on tournament puzzles), and the verdicts are
exact (against a plain DFS enumerating the solutions of small puzzles)."""
import numpy as np
import pytest

import engine.solve.search as search
from engine.model.cells import EMPTY, FILLED, UNKNOWN
from engine.model.clues import puzzle_from_grid
from engine.solve.driver import solve
from engine.kinds.plain.plainkind import PlainSolver
from engine.kinds.plain.propagate import LS_DP, build_net
from engine.kinds.plain.probe import C_EPOCH, P_FIXPOINT
from engine.kinds.plain.sat import HAVE_SAT, SatSearch
from test_solve_random import dfs_solutions, satisfies, tournament_puzzles

SHAPES = [(5, 5), (6, 6), (4, 7), (7, 5), (3, 3, 3), (2, 3, 4)]


def _puzzles(rng, count):
    for k in range(count):
        shape = SHAPES[k % len(SHAPES)]
        yield puzzle_from_grid(rng.random(shape) < (0.35, 0.5, 0.65)[k % 3])

def _cnf(p):
    """An incremental CDCL solver over ``p``'s clues, every cell open (``sat.SatSearch``)."""
    net = build_net(p)
    ss = SatSearch(net, np.full(p.n_cells, UNKNOWN, np.int8), np.ones(p.n_cells, bool))
    while not ss.feed(1000):
        pass
    return ss.solver


def _check_node(S, solver, rng, per_node):
    """Up to ``per_node`` outcomes kept at the node, each an implication of the node's state:
    the state, q=v and x!=w together have no solution. The number checked."""
    state = S.w.state
    known = np.flatnonzero(state != UNKNOWN)
    units = [int(c) + 1 if state[c] == FILLED else -(int(c) + 1) for c in known]
    if not solver.solve(assumptions=units):
        return 0  # no solution below the node (the search has yet to find out): nothing to check
    pr = S.pr
    epoch = pr.ctl[C_EPOCH]
    lits = [2 * q + v for q in np.flatnonzero((state == UNKNOWN) & S.covered)
            if pr.probed_epoch[q] == epoch and not pr.needs[q] for v in (0, 1)]
    lits = [lit for lit in lits if pr.lit_len[lit] > 0]
    checked = 0
    for lit in rng.permutation(lits)[:per_node]:
        q, v = divmod(int(lit), 2)
        codes = pr.pool[pr.lit_start[lit]:pr.lit_start[lit] + pr.lit_len[lit]]
        x, w = divmod(int(rng.choice(codes)), 2)
        if x == q:
            continue
        lq = q + 1 if v else -(q + 1)
        lx = -(x + 1) if w else x + 1
        assert not solver.solve(assumptions=units + [lq, lx]), (q, v, x, w)
        checked += 1
    return checked


@pytest.mark.skipif(not HAVE_SAT, reason="python-sat is not installed")
def test_kept_outcomes_are_implications_of_each_node(monkeypatch):
    puzzles = tournament_puzzles(1000)[450:1000:225]  # three that take the search 40-200 guesses
    if not puzzles:
        pytest.skip("../shared/puzzles2d/taai-tcga-icga not found")
    solve(puzzles[0], want=1)  # the kernels' warm-up solves go unchecked
    # nodes probed to their fixpoint, as in uniqueness mode (a first-solution node's probing
    # budget would leave fewer outcomes to check)
    monkeypatch.setattr(search, "FIRST_NODE_PROBE_STEPS_PER_CELL", 0)
    counts = {"nodes": 0, "checked": 0, "restored": 0}
    cur = {}
    rng = np.random.default_rng(40)
    inner_fix = search._Driver.probe_fixpoint
    inner_restore = PlainSolver._restore

    def fixpoint(self, message, max_steps=None):
        st = inner_fix(self, message, max_steps)
        if st == P_FIXPOINT and message == "searching" and counts["nodes"] < cur["nodes_max"]:
            counts["nodes"] += 1
            counts["checked"] += _check_node(self.S, cur["solver"], rng, 10)
        return st

    def restore(self, mark):
        ok = inner_restore(self, mark)
        counts["restored"] += ok
        return ok

    monkeypatch.setattr(search._Driver, "probe_fixpoint", fixpoint)
    monkeypatch.setattr(PlainSolver, "_restore", restore)
    for k, p in enumerate(puzzles):
        cur["solver"] = _cnf(p)
        cur["nodes_max"] = 50 * (k + 1)
        r = solve(p, want=1, sat=False, node_limit=80)
        assert r.verdict in ("solved", "unknown")
        assert all(satisfies(p, s) for s in r.solutions)
        cur["solver"].delete()
    # the search ran, kept outcomes across nodes and restored a parent's store at siblings
    assert counts["nodes"] >= 60 and counts["checked"] >= 150, counts
    assert counts["restored"] >= 10, counts


def test_search_verdicts_with_and_without_outcome_reuse(monkeypatch):
    """The same verdicts with the saved stores turned off (every sibling re-probes all)."""
    monkeypatch.setattr(search, "SAT_AFTER_STEPS", 10 ** 9)
    rng = np.random.default_rng(41)
    puzzles = list(_puzzles(rng, 40))
    on = [solve(p, sat=False).verdict for p in puzzles]
    inner_init = PlainSolver.__init__

    def init(self, *a, **k):
        inner_init(self, *a, **k)
        self.save_outcomes = False

    monkeypatch.setattr(PlainSolver, "__init__", init)
    off = [solve(p, sat=False).verdict for p in puzzles]
    assert on == off
    assert on == [("none", "unique", "multiple")[min(len(dfs_solutions(p, limit=2)), 2)] for p in puzzles]


def _affected_reference(S, t0):
    """Which cells ``mark_affected`` must flag after the state gained trail[t0:], by its definition
    in plain Python: a probed cell whose probes touched a line through a new cell (its own lines,
    or those of a cell its outcomes hold), and one of whose outcomes lacks a new cell (with its
    value) or was dropped."""
    net, pr, state = S.net, S.pr, S.w.state
    new = {int(c): int(state[c]) for c in S.w.trail[t0:S.mark()]}
    hot = set()
    for c in new:
        for k in range(net.cell_start[c], net.cell_start[c + 1]):
            li = net.cell_lines[k]
            hot.update(int(x) for x in net.line_cells[net.line_start[li]:net.line_start[li + 1]])
    runs = {lit: None if pr.lit_len[lit] < 0 else
            {(int(code) >> 1, FILLED if code & 1 else EMPTY)
             for code in pr.pool[pr.lit_start[lit]:pr.lit_start[lit] + pr.lit_len[lit]]}
            for lit in range(2 * len(state))}
    flagged = set()
    for q in range(len(state)):
        if state[q] != UNKNOWN or pr.needs[q] or pr.probed_epoch[q] != pr.ctl[C_EPOCH]:
            continue
        outs = [runs[2 * q], runs[2 * q + 1]]
        touched = q in hot or any(o is None or any(x in hot for x, _ in o) for o in outs)
        if touched and any(o is None or not set(new.items()) <= o for o in outs):
            flagged.add(q)
    return flagged


def test_mark_affected_flags_what_its_definition_says():
    from engine.kinds.plain.probe import assume, mark_affected
    rng = np.random.default_rng(7)
    puzzles = tournament_puzzles(6) + [puzzle_from_grid(rng.random((12, 12)) < 0.5) for _ in range(6)]
    compared = flagged = 0
    for p in puzzles:
        S = PlainSolver(build_net(p), LS_DP, None, True, 1 << 10)
        S.queue_all()
        if S.line_solve(10 ** 9) is not True:
            continue
        S.probe_start(True)
        if S.probe_round(10 ** 9) != P_FIXPOINT:
            continue
        for c in rng.permutation(np.flatnonzero(S.w.state == UNKNOWN))[:5]:
            mark = S.mark()
            before = S.pr.needs.copy()
            if assume(int(c), np.int8(FILLED if rng.random() < 0.5 else EMPTY), S.ls_id, S.budget, S.use_cache,
                      S.net, S.w, S.pr):
                want = _affected_reference(S, mark)
                mark_affected(mark, S.net, S.w, S.pr)
                got = set(np.flatnonzero(S.pr.needs & ~before.astype(bool)).tolist())
                assert got == want, (p.name, int(c), sorted(got ^ want))
                compared += 1
                flagged += len(got)
            S.undo(mark)
            S.pr.needs[:] = before
    assert compared >= 10 and flagged > 0, (compared, flagged)
