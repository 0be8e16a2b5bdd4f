"""Random small puzzles: the solver's verdicts against independent methods.

- up to ~20 cells: every grid is enumerated (vectorised over all 2**n grids);
- larger: an independent depth-first search over cells that prunes with each line's list of
  valid patterns (no line solver involved);
- the line-solving fixpoint of every scheduler against a fixpoint computed from those pattern
  lists.
Puzzles come from random grids (several densities, some clues hidden) and from mixing the clues
of two grids (mostly contradictory).
"""
import numpy as np
import pytest

from engine.model.cells import EMPTY, FILLED, UNKNOWN
from engine.model.clues import blocks_of, clue3d_of, puzzle_from_grid
from engine.model.puzzle import KIND_NONE, make_puzzle
from engine.solve.driver import solve


# ---------------------------------------------------------------------------------------------
# independent helpers (used by the other test_solve_* files too)


def clue_matches(puzzle, li, bits) -> bool:
    """Whether a boolean line satisfies line li's clue (None = no clue = anything)."""
    clue = puzzle.clue(li)
    if clue is None:
        return True
    if puzzle.clue_kind[li] == 1:
        return blocks_of(bits) == list(clue)
    return clue3d_of(bits) == clue


def satisfies(puzzle, sol) -> bool:
    sol = np.asarray(sol, dtype=bool)
    return all(clue_matches(puzzle, i, sol[puzzle.line(i)]) for i in range(puzzle.n_lines))


def valid_patterns(puzzle, li) -> np.ndarray:
    """All valid fillings of line li as ints (bit j = cell j of the line)."""
    L = len(puzzle.line(li))
    pats = np.arange(1 << L)
    bits = ((pats[:, None] >> np.arange(L)) & 1).astype(bool)
    ok = [clue_matches(puzzle, li, b) for b in bits]
    return pats[np.array(ok, dtype=bool)]


def enumerate_solutions(puzzle, limit=2):
    """Solutions by testing every grid (n_cells <= ~20); returns up to ``limit`` bool arrays."""
    n = puzzle.n_cells
    grids = np.arange(1 << n, dtype=np.int64)
    alive = np.ones(grids.size, dtype=bool)
    for li in range(puzzle.n_lines):
        if puzzle.clue_kind[li] == KIND_NONE:
            continue
        cells = puzzle.line(li)
        pat = np.zeros(grids.size, dtype=np.int64)
        for j, c in enumerate(cells):
            pat |= ((grids >> int(c)) & 1) << j
        table = np.zeros(1 << len(cells), dtype=bool)
        table[valid_patterns(puzzle, li)] = True
        alive &= table[pat]
    hits = grids[alive][:limit]
    return [((h >> np.arange(n)) & 1).astype(bool) for h in hits]


def dfs_solutions(puzzle, limit=2):
    """Solutions by a plain cell-by-cell DFS; each line keeps its valid patterns and a partial
    assignment (known mask, known bits) must agree with at least one of them."""
    n = puzzle.n_cells
    lines = [i for i in range(puzzle.n_lines) if puzzle.clue_kind[i] != KIND_NONE]
    pats = {i: valid_patterns(puzzle, i) for i in lines}
    where = [[] for _ in range(n)]  # cell -> (line, bit position)
    for i in lines:
        for j, c in enumerate(puzzle.line(i)):
            where[int(c)].append((i, j))
    mask = {i: 0 for i in lines}
    val = {i: 0 for i in lines}
    sols, grid = [], np.zeros(n, dtype=bool)

    def ok(c):
        return all(np.any((pats[i] & mask[i]) == val[i]) for i, _ in where[c])

    def rec(c):
        if len(sols) >= limit:
            return
        if c == n:
            sols.append(grid.copy())
            return
        for v in (0, 1):
            for i, j in where[c]:
                mask[i] |= 1 << j
                val[i] = (val[i] & ~(1 << j)) | (v << j)
            grid[c] = bool(v)
            if ok(c):
                rec(c + 1)
            for i, j in where[c]:
                mask[i] &= ~(1 << j)
                val[i] &= ~(1 << j)
    rec(0)
    return sols


def pattern_fixpoint(puzzle) -> np.ndarray:
    """The complete line-solving fixpoint from valid-pattern lists (None on a contradiction)."""
    state = np.full(puzzle.n_cells, UNKNOWN, dtype=np.int8)
    lines = [i for i in range(puzzle.n_lines) if puzzle.clue_kind[i] != KIND_NONE]
    pats = {i: valid_patterns(puzzle, i) for i in lines}
    changed = True
    while changed:
        changed = False
        for i in lines:
            cells = puzzle.line(i)
            L = len(cells)
            st = state[cells]
            bits = ((pats[i][:, None] >> np.arange(L)) & 1).astype(bool)
            fits = np.all((~bits | ((st & FILLED) > 0)) & (bits | ((st & EMPTY) > 0)), axis=1)
            if not fits.any():
                return None
            b = bits[fits]
            new = np.where(b.all(0), FILLED, np.where((~b).all(0), EMPTY, UNKNOWN)).astype(np.int8) & st
            if (new != st).any():
                state[cells] = new
                changed = True
    return state


def mixed_puzzle(a, b, rng, hide=0.0):
    """Clues of grid a on some lines and of grid b on the others (usually contradictory)."""
    pa, pb = puzzle_from_grid(a), puzzle_from_grid(b)
    take_b = rng.random(pa.n_lines) < 0.5
    hidden = rng.random(pa.n_lines) < hide
    clues = [None if hidden[i] else (pb.clue(i) if take_b[i] else pa.clue(i)) for i in range(pa.n_lines)]
    return make_puzzle(pa.shape, pa.n_cells, [pa.line(i) for i in range(pa.n_lines)], pa.line_axis, clues)


def random_puzzles(rng, count, shapes, mixed_share=0.25, hide_max=0.3):
    for k in range(count):
        shape = shapes[k % len(shapes)]
        dens = (0.25, 0.5, 0.7)[k % 3]
        hide = hide_max * rng.random() if k % 2 else 0.0
        a = rng.random(shape) < dens
        if rng.random() < mixed_share:
            yield mixed_puzzle(a, rng.random(shape) < dens, rng, hide)
        else:
            hidden = rng.random(puzzle_from_grid(a).n_lines) < hide
            yield puzzle_from_grid(a, hidden=hidden)


def tournament_puzzles(count):
    """The first ``count`` TAAI 2011 puzzles (random 25x25; probing leaves most of them to the
    search), or none when ../shared is absent."""
    from conftest import SHARED
    path = SHARED / "puzzles2d" / "taai-tcga-icga" / "question" / "taai2011.txt.gz"
    if not path.exists():
        return []
    from engine.files.puzzlefile import load_puzzles
    return load_puzzles(path)[:count]


def check_report(p, r, sols):
    """The report against the reference solutions (a list of up to 2)."""
    expect = {0: "none", 1: "unique", 2: "multiple"}[len(sols)]
    assert r.verdict == expect, (r.verdict, expect, p.clues())
    for s in r.solutions:
        assert satisfies(p, s)
    if expect == "unique":
        assert np.array_equal(r.solutions[0], sols[0])
        assert np.array_equal(r.state[r.state != UNKNOWN] == FILLED, sols[0][r.state != UNKNOWN])
    if expect == "multiple":
        a, b = r.solutions
        assert not np.array_equal(a, b)
        assert np.array_equal(r.differing_cells, np.flatnonzero(a != b))
        # logic may only fix cells on which the two witnesses agree
        known = r.state != UNKNOWN
        assert not np.any(known[r.differing_cells])
    assert r.bad_guesses <= r.linesolvers
    assert r.difficulty in ("line", "probe", "search")


# ---------------------------------------------------------------------------------------------


SMALL_2D = [(3, 3), (3, 4), (4, 4), (4, 5), (2, 6), (5, 3)]
SMALL_3D = [(2, 2, 2), (2, 2, 3), (2, 3, 3), (3, 3, 2), (1, 4, 4)]


@pytest.mark.parametrize("shapes,seed", [(SMALL_2D, 1), (SMALL_3D, 2)])
def test_full_matches_enumeration(shapes, seed):
    rng = np.random.default_rng(seed)
    seen = {"unique": 0, "multiple": 0, "none": 0}
    for p in random_puzzles(rng, 150, shapes):
        sols = enumerate_solutions(p)
        r = solve(p)
        check_report(p, r, sols)
        seen[r.verdict] += 1
    # the generator must exercise every verdict, or the test proves little
    assert min(seen.values()) >= 5, seen


@pytest.mark.parametrize("shapes,seed", [([(6, 6), (7, 5), (8, 6)], 3),
                                         ([(3, 3, 4), (4, 4, 3), (3, 4, 4)], 4)])
def test_full_matches_dfs(shapes, seed):
    rng = np.random.default_rng(seed)
    seen = {"unique": 0, "multiple": 0, "none": 0}
    for p in random_puzzles(rng, 45, shapes, mixed_share=0.2):
        sols = dfs_solutions(p)
        r = solve(p)
        check_report(p, r, sols)
        seen[r.verdict] += 1
    assert seen["unique"] >= 3 and seen["multiple"] >= 3, seen


def test_seed_linesolver_in_full_agrees():
    """The full method with the seed linesolver (weaker propagation) reaches the same verdicts."""
    rng = np.random.default_rng(5)
    for p in random_puzzles(rng, 60, SMALL_2D + SMALL_3D):
        sols = enumerate_solutions(p)
        check_report(p, solve(p, linesolver="seed"), sols)


@pytest.mark.parametrize("shapes,seed", [(SMALL_2D + [(6, 7)], 6), (SMALL_3D + [(4, 4, 4)], 7)])
def test_schedulers_reach_the_line_solving_fixpoint(shapes, seed):
    rng = np.random.default_rng(seed)
    for p in random_puzzles(rng, 60, shapes):
        fix = pattern_fixpoint(p)
        reports = [solve(p, method="brute", max_iterations=1000),
                   solve(p, method="hierarchical"), solve(p, method="hierarchical", prepass=True),
                   solve(p, method="heuristic"), solve(p, method="heuristic", prepass=True),
                   solve(p, method="learned"), solve(p, method="learned", prepass=True),
                   solve(p, method="oracle"), solve(p, method="oracle", prepass=True),
                   solve(p, method="brute", max_iterations=1000, counting="seed"),
                   solve(p, method="hierarchical", counting="seed")]
        for r in reports:
            if fix is None:
                assert r.verdict == "none"
                continue
            assert np.array_equal(r.state, fix), (r.method, r.options)
            complete = not np.any(fix == UNKNOWN)
            if complete:
                # the grid is known; it may still break a line no solver ever looked at
                assert r.verdict == ("unique" if satisfies(p, fix == FILLED) else "none")
            else:
                assert r.verdict == "unknown" and r.difficulty is None
            check_metrics(r)


def check_metrics(r):
    assert 0 <= r.bad_guesses <= r.linesolvers
    assert r.bad_guess_rate == pytest.approx(r.bad_guesses / r.linesolvers if r.linesolvers else 0.0)
    known = np.flatnonzero(r.state != UNKNOWN)
    assert r.known_fraction == pytest.approx(len(known) / len(r.state))
    # order: every known cell exactly once
    assert sorted(r.order.tolist()) == known.tolist()
    assert r.time_s >= 0


def test_seed_linesolver_schedulers_are_sound():
    """The seed linesolver is weaker: its fixpoint is part of the DP's, never beyond it."""
    rng = np.random.default_rng(8)
    for p in random_puzzles(rng, 60, SMALL_2D + SMALL_3D, mixed_share=0.0):
        fix = pattern_fixpoint(p)
        for method in ("brute", "hierarchical", "heuristic", "learned", "oracle"):
            r = solve(p, method=method, linesolver="seed")
            known = r.state != UNKNOWN
            assert np.array_equal(r.state[known], fix[known])
            check_metrics(r)
