"""The colour SAT fallback (engine/kinds/colour/coloursat.py): the CNF alone against brute-force
enumeration and the CP-SAT reference (benchmarks/cpsat_colour.py, its own encoding), and the colour
search's hand-over to it (``solve``, the search of every kind) with the same verdicts."""
from __future__ import annotations

import numpy as np
import pytest

from colourbrute import count_solutions
from colourgen import random_colour_puzzle
from stopwatch import Stopwatch
from engine.model.colourpuzzle import check_colour_solution, colour_puzzle_from_grid, with_hidden
from engine.kinds.colour.coloursat import HAVE_SAT, SAT_ERROR, enumerate_colour, pseudo_state
from engine.kinds.colour import colourkind
from engine.solve import search
from engine.kinds.colour.colourprobe import probe
from engine.kinds.colour.colourprop import ST_OK, build_net, full_state, propagate
from engine.solve.driver import solve

if not HAVE_SAT:
    pytest.skip(f"python-sat is not available ({SAT_ERROR})", allow_module_level=True)
cpsat = pytest.importorskip("benchmarks.cpsat_colour", reason="benchmarks/cpsat_colour.py not importable")
if not cpsat.HAVE_ORTOOLS:
    pytest.skip("ortools is not installed (pip install -r benchmarks/requirements.txt)", allow_module_level=True)


def _verdict(n):
    return {0: "none", 1: "unique"}.get(n, "multiple")


def _agrees(p, verdict, sols, ref):
    """The same verdict as CP-SAT, every solution fits the clues, a unique one is CP-SAT's."""
    assert verdict == ref.verdict
    for s in sols:
        assert not check_colour_solution(p, s)
    if verdict == "unique":
        assert np.array_equal(sols[0], ref.solutions[0])
    if verdict == "multiple":
        assert len(sols) == 2 and not np.array_equal(sols[0], sols[1])


@pytest.mark.parametrize("shape,k", [((3, 2), 2), ((3, 3), 2), ((2, 2), 3), ((2, 2, 2), 2), ((1, 2, 3), 3),
                                     ((2, 3), 3)])
def test_cnf_counts_every_solution(shape, k):
    """Every solution of the CNF (blocking each one found) is one of the grid's, and there are as
    many as enumerating every grid finds: no solution lost, none made up (2D gaps between blocks
    of one colour, none between colours; 3D runs ended by other colours)."""
    rng = np.random.default_rng(len(shape) * 100 + k)
    for _ in range(5):
        g = rng.integers(0, k + 1, shape)
        p = colour_puzzle_from_grid(g, k)
        if rng.random() < 0.5:
            p = with_hidden(p, rng.random(p.n_lines) < 0.3)
        n, _ = count_solutions(p, cap=10_000)
        net = build_net(p)
        verdict, sols = enumerate_colour(net, full_state(net), p.clues(), want=10_000)
        assert len(sols) == n
        assert len({s.tobytes() for s in sols}) == n
        for s in sols:
            assert not check_colour_solution(p, s)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_cnf_alone_and_hand_over_match_cpsat(dim, k):
    """On random puzzles (some with hidden lines, some with mixed clues and no solution): the CNF
    from the root (nothing known), the CNF under the logic's state (its cells as unit clauses),
    the solver with the search handing over at once (sat_after=0), after one line solve
    (sat_after=1: turns), and by default, all as CP-SAT."""
    rng = np.random.default_rng(7000 + 10 * dim + k)
    seen = set()
    for _ in range(16):
        p = random_colour_puzzle(rng, dim, k)
        ref = cpsat.cpsat_solve_colour(p, time_limit=20)
        net = build_net(p)
        _agrees(p, *enumerate_colour(net, full_state(net), p.clues()), ref)
        state = full_state(net)
        if propagate(net, state) == ST_OK and probe(net, state, np.zeros(2, np.int64)) == ST_OK:
            _agrees(p, *enumerate_colour(net, state, p.clues()), ref)
        for kw in ({"sat_after": 0}, {"sat_after": 1}, {}):
            r = solve(p, time_limit=20, **kw)
            _agrees(p, r.verdict, r.solutions, ref)
        seen.add(ref.verdict)
    assert seen == {"unique", "multiple", "none"}


def test_unit_clauses_of_the_logic_state():
    """Decided cells and ruled-out values go in as unit clauses: the indicators of a decided
    cell are its value (filled) and the rest (empty), an undecided cell's possible values unknown."""
    from engine.model.cells import EMPTY, FILLED, UNKNOWN
    st = np.array([0b0100, 0b0011, 0b1111], np.int64)
    assert pseudo_state(st, 3).reshape(3, 4).tolist() == [
        [EMPTY, EMPTY, FILLED, EMPTY], [UNKNOWN, UNKNOWN, EMPTY, EMPTY], [UNKNOWN] * 4]


def _loose_3d():
    """5x5x5, 3 colours, about half the clues hidden: probing leaves it open, many solutions."""
    rng = np.random.default_rng(1)
    g = np.where(rng.random((5, 5, 5)) < 0.6, rng.integers(1, 4, (5, 5, 5)), 0)
    p = with_hidden(colour_puzzle_from_grid(g, 3), rng.random(75) < 0.5)
    p.colour_solution = None
    return p


def _noise_2d():
    rng = np.random.default_rng(100)
    g = np.where(rng.random((12, 12)) < 0.5, rng.integers(1, 3, (12, 12)), 0)
    p = colour_puzzle_from_grid(g, 2)
    p.colour_solution = None
    return p


@pytest.fixture
def search_only(monkeypatch):
    """The search's own guesses only: the quick search before root probing settles these puzzles."""
    monkeypatch.setattr(colourkind, "QUICK_COLOUR_STEPS_PER_CELL", 0)


@pytest.mark.parametrize("make", [_loose_3d, _noise_2d])
def test_sat_settles_what_the_search_does_not_within_its_budget(make, search_only):
    p = make()
    ref = cpsat.cpsat_solve_colour(p, time_limit=20)
    # a node budget the search alone cannot settle the puzzle within
    limit = next(n for n in (2, 1, 0) if solve(p, sat=False, node_limit=n, time_limit=20).verdict == "unknown")
    alone = solve(p, sat=False, node_limit=limit, time_limit=20)
    assert alone.verdict == "unknown" and alone.stats["nodes"] == limit and alone.stats["sat_conflicts"] == -1
    r = solve(p, node_limit=limit, time_limit=20)
    assert r.stats["sat_conflicts"] >= 0 and r.difficulty == "search"
    _agrees(p, r.verdict, r.solutions, ref)


def test_without_python_sat_the_search_goes_on_alone(monkeypatch, search_only):
    p = _loose_3d()
    monkeypatch.setattr(search, "HAVE_SAT", False)
    r = solve(p, sat_after=0, time_limit=20)
    assert r.stats["sat_conflicts"] == -1 and r.stats["nodes"] > 0
    assert r.verdict == cpsat.cpsat_solve_colour(p, time_limit=20).verdict


def test_time_limit_holds_in_the_sat_solver():
    """A 9^3 puzzle with most clues hidden, the CDCL solver alone from the root: the stop comes
    within the limit plus a chunk of conflicts (warm: python-sat's import and the kernels' first
    load are one-off costs)."""
    solve(_loose_3d(), sat_after=0)
    rng = np.random.default_rng(5)
    g = np.where(rng.random((9, 9, 9)) < 0.6, rng.integers(1, 4, (9, 9, 9)), 0)
    p = with_hidden(colour_puzzle_from_grid(g, 3), rng.random(243) < 0.3)
    p.colour_solution = None
    with Stopwatch() as sw:
        r = solve(p, time_limit=0.3, sat_after=0, probing=False)
    assert sw.working < 1.5, sw
    assert r.verdict in ("unknown", "multiple")
    for s in r.solutions:
        assert not check_colour_solution(p, s)


def test_a_cnf_over_the_size_limit_leaves_the_search_alone(monkeypatch, search_only):
    """Past SAT_MAX_LITERALS the CDCL solver is not built: the forced path searches instead (same
    verdict), and a spent node budget gives ``unknown``, never a verdict from no solver at all."""
    p = _loose_3d()
    monkeypatch.setattr(search, "SAT_MAX_LITERALS", 0)
    r = solve(p, sat_after=0, time_limit=20)
    assert r.verdict == cpsat.cpsat_solve_colour(p, time_limit=20).verdict and r.stats["nodes"] > 0
    assert solve(p, node_limit=2, time_limit=20).verdict == "unknown"


def _placements(n, sizes, colours):
    """Every placement of a 2D colour block list on n cells (brute force): the starts."""
    out = []

    def rec(j, s, starts):
        if j == len(sizes):
            out.append(list(starts))
            return
        for t in range(s, n - sizes[j] + 1):
            gap = 1 if j + 1 < len(sizes) and colours[j + 1] == colours[j] else 0
            rec(j + 1, t + sizes[j] + gap, starts + [t])
    rec(0, 0, [])
    return out


def test_block_bounds_are_the_first_and_last_start_of_the_fitting_placements():
    """block_bounds against every placement of random block lists that fits random cell masks:
    each block's first and last start among them (none fits: first n, last -1)."""
    from engine.kinds.colour.coloursat import block_bounds
    rng = np.random.default_rng(11)
    for _ in range(400):
        n, k = int(rng.integers(1, 11)), int(rng.integers(2, 5))
        nb = int(rng.integers(0, 5))
        sizes = rng.integers(1, 4, nb).astype(np.int64)
        colours = rng.integers(1, k + 1, nb).astype(np.int64)
        masks = rng.integers(1, 1 << (k + 1), n).astype(np.int64)
        if rng.random() < 0.5:  # a fitting line, partly known
            masks = np.full(n, (1 << (k + 1)) - 1, np.int64)
            pl = _placements(n, sizes.tolist(), colours.tolist())
            if pl:
                vals = np.zeros(n, np.int64)
                for s, b, c in zip(pl[int(rng.integers(len(pl)))], sizes, colours):
                    vals[s:s + b] = c
                known = rng.random(n) < 0.5
                masks[known] = 1 << vals[known]
        fit = []
        for starts in _placements(n, sizes.tolist(), colours.tolist()):
            vals = np.zeros(n, np.int64)
            for s, b, c in zip(starts, sizes, colours):
                vals[s:s + b] = c
            if all((masks >> vals) & 1):
                fit.append(starts)
        got = block_bounds(masks, sizes, colours)
        for j in range(nb):
            if fit:
                assert (got[0, j], got[1, j]) == (min(f[j] for f in fit), max(f[j] for f in fit))
            else:
                assert got[0, j] > got[1, j]


@pytest.mark.parametrize("k", [2, 3])
def test_cnf_under_a_partial_state_counts_its_solutions(k, monkeypatch):
    """The CNF from a state that rules out random values of random cells (the blocks' starts
    narrowed to it, ``block_bounds``) has exactly the solutions that the state allows of the
    CNF without the narrowing (the blocks anywhere the clue lets them be: the encoding
    ``test_cnf_counts_every_solution`` checks against every grid)."""
    from engine.kinds.colour import coloursat
    narrowed = coloursat.block_bounds

    def anywhere(masks, sizes, colours):
        return np.array([[0] * len(sizes), [len(masks)] * len(sizes)], np.int64).reshape(2, len(sizes))
    rng = np.random.default_rng(500 + k)
    for _ in range(12):
        g = np.where(rng.random((4, 5)) < 0.5, rng.integers(1, k + 1, (4, 5)), 0)
        p = colour_puzzle_from_grid(g, k)
        net = build_net(p)
        state = full_state(net)
        for c in np.flatnonzero(rng.random(len(state)) < 0.3):
            state[c] &= ~(1 << int(rng.integers(0, k + 1)))
            if rng.random() < 0.3:
                state[c] = 1 << int(g.ravel()[c])
        state[state == 0] = 1
        monkeypatch.setattr(coloursat, "block_bounds", anywhere)
        _, every = enumerate_colour(net, full_state(net), p.clues(), want=10_000)
        allowed = [s for s in every if all((state >> s) & 1)]
        monkeypatch.setattr(coloursat, "block_bounds", narrowed)
        _, sols = enumerate_colour(net, state, p.clues(), want=10_000)
        assert sorted(s.tobytes() for s in sols) == sorted(s.tobytes() for s in allowed)


def test_breaks_2d_clue_is_check_colour_solution():
    """The kernel that checks each CDCL solution of a 2D puzzle against its clues says what
    ``check_colour_solution`` says, on random grids (some lines hidden) and values with a cell
    or two changed."""
    from engine.kinds.colour.colourkind import breaks_2d_clue
    rng = np.random.default_rng(3)
    broken = 0
    for _ in range(1500):
        h, w, k = int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(2, 5))
        g = rng.integers(0, k + 1, (h, w))
        p = colour_puzzle_from_grid(g, k)
        if rng.random() < 0.3:
            p = with_hidden(p, rng.random(p.n_lines) < 0.3)
        s = g.ravel().astype(np.int64)
        if rng.random() < 0.7:
            s[rng.integers(0, len(s), int(rng.integers(1, 3)))] = rng.integers(0, k + 1)
        want = bool(check_colour_solution(p, s))
        broken += want
        assert breaks_2d_clue(s, p.line_start, p.line_cells, p.clue_kind, p.clue_start, p.clue_data) == want
    assert broken > 300
