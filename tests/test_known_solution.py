"""``full`` with a known solution (``puzzle.solution``, the grid a puzzle was made from): it orders
the guesses, never the verdict. Checked against enumeration, against runs without it, with a
wrong known solution (ignored), and on a puzzle only it settles within a step budget."""
import numpy as np
import pytest

from benchmarks.bench_solve import stress_puzzles
from engine.model.clues import puzzle_from_grid
from engine.model.puzzle import make_puzzle
from engine.solve.driver import solve

from test_solve_random import check_report, enumerate_solutions, random_puzzles, satisfies

SHAPES_2D = [(3, 3), (3, 4), (4, 4), (4, 5)]
SHAPES_3D = [(2, 2, 2), (2, 2, 3), (2, 3, 3), (1, 4, 4)]


def with_solution(p, sol):
    return make_puzzle(p.shape, p.n_cells, [p.line(i) for i in range(p.n_lines)], p.line_axis,
                       p.clues(), solution=sol)


@pytest.mark.parametrize("shapes,seed", [(SHAPES_2D, 31), (SHAPES_3D, 32)])
def test_known_solution_matches_enumeration_and_plain_runs(shapes, seed):
    rng = np.random.default_rng(seed)
    used = verdicts = 0
    seen = set()
    for p in random_puzzles(rng, 160, shapes, mixed_share=0.0, hide_max=0.5):
        sols = enumerate_solutions(p)
        plain = solve(p, use_known=False)
        # every solution of the puzzle as the known one, the generator's grid included
        for known in [p.solution] + sols:
            q = with_solution(p, known)
            r = solve(q)
            assert r.stats["known_solution"] == satisfies(p, known)
            used += r.stats["known_solution"]
            check_report(q, r, sols)
            assert (r.verdict, r.difficulty) == (plain.verdict, plain.difficulty), p.clues()
            if r.verdict == "unique":
                assert np.array_equal(r.solutions[0], plain.solutions[0])
            verdicts += 1
            seen.add(r.verdict)
    assert used >= 100 and seen == {"unique", "multiple"}, (used, seen)


def test_a_known_solution_that_breaks_a_clue_is_ignored():
    rng = np.random.default_rng(33)
    checked = 0
    for p in random_puzzles(rng, 60, SHAPES_3D + SHAPES_2D, mixed_share=0.0, hide_max=0.0):
        wrong = p.solution.copy()
        wrong[rng.integers(len(wrong))] ^= True
        if satisfies(p, wrong):
            continue  # flipping a cell no clue sees, or a square clue that still holds
        r = solve(with_solution(p, wrong))
        assert not r.stats["known_solution"]
        check_report(p, r, enumerate_solutions(p) if p.n_cells <= 20 else r.solutions)
        checked += 1
    assert checked >= 40


def test_known_solution_settles_a_noise_puzzle_that_search_alone_does_not(monkeypatch):
    """12^3 white noise (35% filled), every clue shown: many solutions, yet without a known one
    neither the quick nor the probing search meets even one within the step budget. (The local
    search, ``walk.py``, and the CDCL fallback, which can, are turned off for the blind solve:
    tests/test_walk.py and tests/test_sat.py cover them.)"""
    name, p = next((n, q) for n, q in stress_puzzles([12]) if n == "12^3 noise hide 0.0")
    budget = 400_000  # line-solver applications
    r = solve(p, step_limit=budget)
    assert r.stats["known_solution"] and r.verdict == "multiple" and r.difficulty == "search"
    a, b = r.solutions
    assert satisfies(p, a) and satisfies(p, b) and len(r.differing_cells) > 0
    assert r.linesolvers + r.stats["checks"] < budget
    import engine.kinds.plain.plainkind as plainkind
    monkeypatch.setattr(plainkind, "WALK_FLIPS_PER_CELL", 0)
    blind = solve(p, step_limit=budget, use_known=False, sat=False)
    assert not blind.stats["known_solution"] and blind.verdict == "unknown"


def test_known_solution_with_the_seed_linesolver():
    rng = np.random.default_rng(34)
    for p in random_puzzles(rng, 40, SHAPES_3D, mixed_share=0.0, hide_max=0.4):
        r = solve(p, linesolver="seed")
        check_report(p, r, enumerate_solutions(p))
