"""The CDCL solver's phases (``engine/kinds/plain/satphase.py``) against enumeration.

- ``line_marginals``: each block's start distribution and each cell's chance of being filled
  equal the weighted sums over every fix of the line (``linebrute.block_starts``), for random
  clues, weights and known cells; no weight left (the known cells allow no fix): False.
- ``blocks_phases``: it numbers the variables as ``satblocks.blocks_cnf`` does (the same new
  top), and when the beliefs are a solution, its phases with the solution's cells satisfy every
  clause ``blocks_cnf`` makes (a phase given to the wrong variable breaks one); a line whose
  beliefs allow none of its fixes gets no phases but keeps its variables' numbers.
- ``beliefs``: with one line sending messages, every cell's belief is that line's marginal.
- ``SatSearch``: the phases reach the solver after the whole CNF is in (CaDiCaL ignores the
  phase of a variable it has not met): a puzzle of 12! solutions whose beliefs are one of them
  yields that one, without a conflict.
"""
import numpy as np
import pytest

from engine.kinds.plain.propagate import build_net
from engine.kinds.plain.satblocks import blocks_cnf
from engine.kinds.plain.satphase import beliefs, blocks_phases, line_marginals
from engine.model.cells import EMPTY, FILLED, UNKNOWN
from engine.model.clues import blocks_of, puzzle_from_grid
from engine.model.puzzle import KIND_BLOCKS, KIND_PLAIN, make_2d
from linebrute import block_starts


def _random_line(rng):
    """(n, blocks, weights) of a random line with a fix, some cells known (weight 0 / 1)."""
    n = int(rng.integers(1, 11))
    fill = rng.random(n) < rng.uniform(0.2, 0.8)
    runs = blocks_of(fill)
    w1 = rng.uniform(0.05, 0.95, n)
    known = rng.random(n) < 0.3
    # known cells from the generating fill, or (sometimes) at random: no fix may be left
    truth = fill if rng.random() < 0.8 else rng.random(n) < 0.5
    w1[known] = truth[known].astype(float)
    return n, np.array(runs, np.int64), w1


def _weighted_reference(n, blocks, w1):
    """(start chances (k, n + 1), cell chances (n,)) by enumerating every fix, or None."""
    fixes, starts = block_starts(n, blocks)
    w = np.prod(np.where(fixes, w1[None, :], 1.0 - w1[None, :]), axis=1) if len(fixes) else np.zeros(0)
    if len(fixes) == 0 or w.sum() <= 0:
        return None
    w = w / w.sum()
    ps = np.zeros((len(blocks), n + 1))
    for j in range(len(blocks)):
        np.add.at(ps[j], starts[:, j], w)
    return ps, w @ fixes.astype(float)


@pytest.mark.parametrize("seed", range(4))
def test_line_marginals_equal_the_weighted_fixes(seed):
    rng = np.random.default_rng(seed)
    none_seen = some_seen = 0
    for _ in range(150):
        n, blocks, w1 = _random_line(rng)
        ps = np.full((max(len(blocks), 1), n + 1), -1.0)
        cell_p = np.full(n, -1.0)
        ok = line_marginals(w1, blocks, ps, cell_p)
        ref = _weighted_reference(n, blocks, w1)
        assert ok == (ref is not None), (n, blocks, w1)
        if ref is None:
            none_seen += 1
            continue
        some_seen += 1
        np.testing.assert_allclose(ps[:len(blocks)], ref[0], atol=1e-9)
        np.testing.assert_allclose(cell_p, ref[1], atol=1e-9)
    assert none_seen and some_seen


def _clauses(lits, offs):
    return [lits[a:b] for a, b in zip(offs[:-1], offs[1:])]


@pytest.mark.parametrize("seed,shape", [(1, (7, 9)), (2, (10, 6)), (3, (4, 5, 6))])
def test_phases_of_a_solution_satisfy_the_block_lists_cnf(seed, shape):
    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < 0.5
    p = puzzle_from_grid(grid)
    net = build_net(p)
    lines = np.flatnonzero(np.isin(net[2], (KIND_BLOCKS, KIND_PLAIN))).astype(np.int64)
    assert len(lines) > 0
    top0 = grid.size
    belief = grid.ravel().astype(float)  # beliefs of exactly 0 / 1: one fix per line
    top, phases = blocks_phases(net[0], net[1], net[3], net[4], lines, top0, belief)
    lits, offs, cnf_top = blocks_cnf(net[0], net[1], net[3], net[4], lines, top0)
    assert top == cnf_top
    value = np.zeros(top + 1, np.int8)
    value[1:top0 + 1] = np.where(grid.ravel(), 1, -1)
    assert np.all(np.abs(phases) > top0) and len(np.unique(np.abs(phases))) == len(phases)
    value[np.abs(phases)] = np.sign(phases)
    assert np.all(value[1:] != 0)  # every variable has its phase
    for clause in _clauses(lits, offs):
        assert np.any(value[np.abs(clause)] == np.sign(clause)), clause


def test_a_line_without_weight_keeps_its_numbers_and_gets_no_phases():
    """Two lines of their own cells: the first's beliefs allow none of its fixes (every cell
    surely empty), so its variables get no phase, but they keep their numbers, as in
    ``blocks_cnf``: the second line's phases are those it gets alone, numbered after them."""
    n = 9
    a, b = np.array([2, 3], np.int64), np.array([1, 2, 1], np.int64)
    line_start = np.array([0, n, 2 * n], np.int64)
    cells = np.arange(2 * n, dtype=np.int64)
    clue_start = np.array([0, len(a), len(a) + len(b)], np.int64)
    clue_data = np.concatenate([a, b])
    lines = np.array([0, 1], np.int64)
    rng = np.random.default_rng(3)
    belief = np.concatenate([np.zeros(n), rng.uniform(0.2, 0.8, n)])
    top0 = 2 * n
    top, phases = blocks_phases(line_start, cells, clue_start, clue_data, lines, top0, belief)
    _, _, cnf_top = blocks_cnf(line_start, cells, clue_start, clue_data, lines, top0)
    first_top, none = blocks_phases(line_start, cells, clue_start, clue_data, lines[:1], top0, belief)
    assert len(none) == 0 and top0 < first_top < top == cnf_top
    alone_top, alone = blocks_phases(line_start, cells, clue_start, clue_data, lines[1:], first_top, belief)
    assert alone_top == top and np.array_equal(phases, alone)
    assert np.array_equal(np.sort(np.abs(phases)), np.arange(first_top + 1, top + 1))


def test_beliefs_of_one_line_are_its_marginals():
    p = make_2d([[2, 1], [1], [3], [1, 1], [2], [1, 2]], [[3], [1, 1], [2], [1], [1, 1, 1], [2], [1], [3]])
    net = build_net(p)
    state = np.full(p.n_cells, UNKNOWN, np.int8)
    li = 0  # the first row: cells 0..7, all unknown but one
    cells = net[1][net[0][li]:net[0][li + 1]]
    state[cells[3]] = EMPTY
    use = np.zeros(len(net[0]) - 1, bool)
    use[li] = True
    got = beliefs(net[0], net[1], net[3], net[4], use, state, 60)
    w1 = np.full(len(cells), 0.5)
    w1[3] = 0.0
    _, ref = _weighted_reference(len(cells), np.array([2, 1], np.int64), w1)
    np.testing.assert_allclose(got[cells], ref, atol=1e-6)
    others = np.setdiff1d(np.arange(p.n_cells), cells)
    assert np.all(got[others] == 0.5)  # no line tells them anything
    state[others[0]] = FILLED
    assert beliefs(net[0], net[1], net[3], net[4], use, state, 5)[others[0]] == 1.0


def test_beliefs_of_a_row_and_a_column_are_their_joint_marginals():
    """Two crossing lines make a tree, where belief propagation is exact: each cell's belief is
    its chance over the pairs of fixes that agree on the shared cell (with the prior counted
    once: a line's message with its own earlier message in the prior would count it twice)."""
    rows = [[3], [2], [1, 1, 1], [4], [1], [2, 2]]
    cols = [[2, 1], [1, 1], [3], [1], [1, 2], [2], [1, 1]]
    p = make_2d(rows, cols)
    net = build_net(p)
    r, c = 0, len(rows)  # the first row and the first column (line numbers after the rows)
    use = np.zeros(len(net[0]) - 1, bool)
    use[[r, c]] = True
    row_cells = net[1][net[0][r]:net[0][r + 1]]
    col_cells = net[1][net[0][c]:net[0][c + 1]]
    shared = np.intersect1d(row_cells, col_cells)
    assert len(shared) == 1
    got = beliefs(net[0], net[1], net[3], net[4], use, np.full(p.n_cells, UNKNOWN, np.int8), 80)
    row_fixes, _ = block_starts(len(row_cells), rows[0])
    col_fixes, _ = block_starts(len(col_cells), cols[0])
    i, j = int(np.flatnonzero(row_cells == shared[0])[0]), int(np.flatnonzero(col_cells == shared[0])[0])
    pairs = row_fixes[:, i][:, None] == col_fixes[:, j][None, :]  # fixes agreeing on the shared cell
    n_pairs = pairs.sum()
    np.testing.assert_allclose(got[row_cells], (pairs.sum(axis=1) @ row_fixes) / n_pairs, atol=1e-6)
    np.testing.assert_allclose(got[col_cells], (pairs.sum(axis=0) @ col_fixes) / n_pairs, atol=1e-6)


def _order_spans(n, blocks):
    """(lo, hi): block j's order variables "starts at or before p" are p in [lo[j], hi[j]), the
    starts the clue alone allows (``blocks_cnf``'s numbering, block by block)."""
    lo = np.concatenate([[0], np.cumsum(blocks + 1)[:-1]]).astype(int)
    hi = (n - np.cumsum((blocks + 1)[::-1])[::-1] + 1).astype(int)
    return lo, hi


@pytest.mark.parametrize("seed", range(3))
def test_phases_are_the_weighted_fixes_majority(seed):
    """Each order variable ("block j starts at or before p"), the only variables ``blocks_cnf``
    adds for a block list, gets the value its weighted fixes give it with chance at least 1/2."""
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(60):
        n, blocks, w1 = _random_line(rng)
        ref = _weighted_reference(n, blocks, w1)
        if ref is None or len(blocks) == 0:
            continue
        ps = ref[0]
        want = []
        lo, hi = _order_spans(n, blocks)
        for j in range(len(blocks)):
            want += [np.sum(ps[j, :p + 1]) for p in range(lo[j], hi[j])]
        want = np.array(want)
        top, phases = blocks_phases(np.array([0, n], np.int64), np.arange(n, dtype=np.int64),
                                    np.array([0, len(blocks)], np.int64), blocks, np.zeros(1, np.int64), n, w1)
        assert top - n == len(want) == len(phases)
        sure = np.abs(want - 0.5) > 1e-9
        assert np.array_equal((phases > 0)[sure], (want >= 0.5)[sure])
        checked += int(sure.sum())
    assert checked > 100


def test_the_solver_follows_the_phases(monkeypatch):
    """With beliefs that are one of the puzzle's 12! solutions, the solver finds that one without
    a conflict; without phases, another."""
    pytest.importorskip("pysat")
    import engine.kinds.plain.sat as sat
    n = 12
    p = make_2d([[1]] * n, [[1]] * n)  # every permutation matrix
    rng = np.random.default_rng(5)
    grid = np.zeros((n, n), bool)
    grid[np.arange(n), rng.permutation(n)] = True
    net = build_net(p)
    state = np.full(p.n_cells, UNKNOWN, np.int8)
    monkeypatch.setattr(sat, "beliefs", lambda *a: grid.ravel().astype(float))
    found = {}
    for phases in (True, False):
        ss = sat.SatSearch(net, state, np.ones(p.n_cells, bool), phases=phases)
        assert ss.feed(1 << 30)
        ss.chunk = 1 << 16
        found[phases] = (ss.step(), ss.conflicts)
        ss.close()
    sol, conflicts = found[True]
    assert np.array_equal(sol, grid.ravel()) and conflicts == 0
    assert not np.array_equal(found[False][0], grid.ravel())  # (the solver's own choice)


def test_every_phase_is_set_once_the_cnf_is_in(monkeypatch):
    """The phases go to the solver in one call after the last line is fed (CaDiCaL ignores the
    phase of a variable it has not met yet): every open cell's from its belief, and one for each
    variable the block lists made."""
    pysat = pytest.importorskip("pysat.solvers")
    import engine.kinds.plain.sat as sat
    calls = []
    original = pysat.Solver.set_phases

    def spy(self, literals=()):
        calls.append((list(literals), self.nof_vars()))
        return original(self, literals)
    monkeypatch.setattr(pysat.Solver, "set_phases", spy)
    rng = np.random.default_rng(8)
    grid = rng.random((9, 11)) < 0.5
    p = puzzle_from_grid(grid)
    net = build_net(p)
    state = np.full(p.n_cells, UNKNOWN, np.int8)
    known = rng.random(p.n_cells) < 0.3
    state[known] = np.where(grid.ravel(), FILLED, EMPTY)[known]
    belief = beliefs(net[0], net[1], net[3], net[4], np.ones(len(net[0]) - 1, bool), state, sat.BP_ROUNDS)
    ss = sat.SatSearch(net, state, np.ones(p.n_cells, bool), phases=True)
    while not ss.feed(3):
        assert not calls
    assert len(calls) == 1
    literals, n_vars = calls[0]
    assert n_vars == ss.top and sorted(abs(x) for x in literals) == sorted(
        set(np.flatnonzero(state == UNKNOWN) + 1) | set(range(p.n_cells + 1, ss.top + 1)))
    cells = [x for x in literals if abs(x) <= p.n_cells]
    assert all((x > 0) == (belief[abs(x) - 1] >= 0.5) for x in cells)
    ss.close()


def test_a_3d_puzzle_keeps_the_solvers_own_phases(monkeypatch):
    """3D puzzles get no phases (measured slower with them): no call at all."""
    pysat = pytest.importorskip("pysat.solvers")
    import engine.kinds.plain.sat as sat
    calls = []
    monkeypatch.setattr(pysat.Solver, "set_phases", lambda self, literals=(): calls.append(literals))
    for shape in ((9, 11), (5, 6, 7)):
        grid = np.random.default_rng(3).random(shape) < 0.4
        p = puzzle_from_grid(grid)
        ss = sat.SatSearch(build_net(p), np.full(p.n_cells, UNKNOWN, np.int8), np.ones(p.n_cells, bool), phases=True)
        assert ss.feed(1 << 30)
        assert len(calls) == 1, shape  # the 2D puzzle's one call, none for the 3D one
        ss.close()


def test_stable_mode_only_where_the_phases_are_set(monkeypatch):
    """A phased CNF (2D) runs CaDiCaL in stable mode only (``sat.PHASED_OPTIONS``); a 3D one, and a
    2D one built without phases, keep ``SOLVER_OPTIONS`` alone."""
    pytest.importorskip("pysat.solvers")
    import engine.kinds.plain.sat as sat
    assert sat.PHASED_OPTIONS.get("stabilizeonly") == 1
    calls = []
    real = sat._set_option
    monkeypatch.setattr(sat, "_set_option", lambda solver, name, value: (calls.append((name, value)),
                                                                          real(solver, name, value)))
    for shape, phases, want in (((9, 11), True, True), ((9, 11), False, False), ((5, 6, 7), True, False)):
        calls.clear()
        p = puzzle_from_grid(np.random.default_rng(3).random(shape) < 0.4)
        ss = sat.SatSearch(build_net(p), np.full(p.n_cells, UNKNOWN, np.int8), np.ones(p.n_cells, bool), phases=phases)
        assert set(sat.SOLVER_OPTIONS.items()) <= set(calls), shape
        assert (("stabilizeonly", 1) in calls) == want, (shape, phases)
        assert ss.feed(1 << 30)
        r = ss.step()
        assert r is not None and r is not False  # a solution: the options do not break it
        ss.close()


@pytest.mark.parametrize("seed", range(3))
def test_block_list_models_are_the_fixes_with_their_order_variables(seed):
    """``blocks_cnf`` of one block list (every model enumerated by CaDiCaL, each blocked on every
    variable): its cells take exactly the line's fixes (``linebrute.block_starts``), each fix
    once, its order variables "block j starts at or before p" true exactly when the fix's block
    j does; a clue that does not fit has no model. Cells may be known (unit clauses)."""
    Solver = pytest.importorskip("pysat.solvers").Solver

    rng = np.random.default_rng(seed)
    n_models = n_empty = 0
    for _ in range(80):
        n = int(rng.integers(1, 10))
        blocks = np.array(blocks_of(rng.random(n) < rng.uniform(0.2, 0.8)), np.int64)
        if rng.random() < 0.15:  # sometimes a clue longer than the line
            blocks = np.append(blocks, n)
        known = {int(i): bool(rng.random() < 0.5) for i in np.flatnonzero(rng.random(n) < 0.2)}
        lits, offs, top = blocks_cnf(np.array([0, n], np.int64), np.arange(n, dtype=np.int64),
                                     np.array([0, len(blocks)], np.int64), blocks, np.zeros(1, np.int64), n)
        fixes, starts = block_starts(n, blocks)
        keep = np.array([all(f[i] == v for i, v in known.items()) for f in fixes], bool)
        want = {(tuple(f), tuple(st)) for f, st in zip(fixes[keep].tolist(), starts[keep].tolist())}
        lo, hi = _order_spans(n, blocks)
        got = set()
        with Solver(name="cadical195") as solver:
            for a, b in zip(offs[:-1].tolist(), offs[1:].tolist()):
                solver.add_clause(lits[a:b].tolist())
            for i, v in known.items():
                solver.add_clause([i + 1 if v else -(i + 1)])
            while solver.solve():
                model = solver.get_model() + [0] * top
                value = {abs(x): x > 0 for x in model if x}
                cells = tuple(value.get(i + 1, False) for i in range(n))
                var, st = n, []
                for j in range(len(blocks)):
                    before = [value.get(var + 1 + q, False) for q in range(hi[j] - lo[j])]
                    var += hi[j] - lo[j]
                    # monotone, and its first true position (or the last start) is block j's start
                    assert before == sorted(before), before
                    st.append(lo[j] + before.index(True) if True in before else hi[j])
                assert (cells, tuple(st)) not in got
                got.add((cells, tuple(st)))
                solver.add_clause([-x for x in model[:top] if x])
        assert got == want, (n, blocks.tolist(), known)
        n_models += len(got)
        n_empty += not got
    assert n_models > 100 and n_empty > 5, (n_models, n_empty)
