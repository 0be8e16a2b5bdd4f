"""First-solution mode (``solve(..., want=1)``, CLI ``--first``): verdict ``solved`` with a
solution that satisfies every clue, or ``none`` when the clues contradict; against brute-force
enumeration (small puzzles) and an independent DFS (medium), with and without the SAT fallback."""
import json

import numpy as np
import pytest

import engine.solve.search as search
from engine.__main__ import main
from engine.model.clues import puzzle_from_grid
from engine.files.puzzlefile import save_puzzle
from engine.kinds.plain.sat import HAVE_SAT
from engine.solve.driver import solve
from test_solve_random import (SMALL_2D, SMALL_3D, dfs_solutions, enumerate_solutions, random_puzzles, satisfies,
                               tournament_puzzles)


def check_first(p, r, n_solutions):
    if n_solutions == 0:
        assert r.verdict == "none", (r.verdict, p.clues())
        assert r.solutions == []
    else:
        assert r.verdict == "solved", (r.verdict, p.clues())
        assert len(r.solutions) == 1 and satisfies(p, r.solutions[0])
    assert r.difficulty in ("line", "probe", "search")
    assert r.options["want"] == 1
    assert r.bad_guesses <= r.linesolvers


@pytest.mark.parametrize("shapes,seed", [(SMALL_2D, 5), (SMALL_3D, 6)])
def test_first_matches_enumeration(shapes, seed):
    rng = np.random.default_rng(seed)
    seen = {"solved": 0, "none": 0}
    for p in random_puzzles(rng, 120, shapes):
        r = solve(p, want=1)
        check_first(p, r, len(enumerate_solutions(p, limit=1)))
        seen[r.verdict] += 1
    assert min(seen.values()) >= 10, seen


@pytest.mark.parametrize("sat", [False, True])
def test_first_matches_dfs_with_and_without_sat(monkeypatch, sat):
    """Medium puzzles, the SAT fallback (when installed) taking over at the first guess."""
    if sat and not HAVE_SAT:
        pytest.skip("python-sat is not installed")
    monkeypatch.setattr(search, "SAT_AFTER_STEPS", 0)
    rng = np.random.default_rng(7)
    for p in random_puzzles(rng, 30, [(9, 9), (10, 8), (4, 4, 4), (5, 4, 3)], mixed_share=0.3,
                            hide_max=0.6):
        r = solve(p, want=1, sat=sat)
        check_first(p, r, len(dfs_solutions(p, limit=1)))
        assert sat or r.stats["sat_conflicts"] == -1


@pytest.mark.parametrize("sat", [False, True])
def test_first_on_tournament_puzzles(monkeypatch, sat):
    """Random 25x25 tournament puzzles need the search (probing leaves most of them open): a
    valid solution with the search alone and with the SAT solver taking over at once."""
    if sat and not HAVE_SAT:
        pytest.skip("python-sat is not installed")
    monkeypatch.setattr(search, "SAT_AFTER_STEPS", 0)
    puzzles = tournament_puzzles(10)
    if not puzzles:
        pytest.skip("../shared/puzzles2d/taai-tcga-icga not found")
    used = 0
    for p in puzzles:
        r = solve(p, want=1, sat=sat)
        check_first(p, r, 1)
        used += r.stats["sat_conflicts"] >= 0
    assert (used >= 4) if sat else used == 0, used


def test_first_on_a_puzzle_with_many_solutions():
    # every 2x2 sub-square of a checkerboard can flip: many solutions, any one will do
    g = (np.add.outer(np.arange(8), np.arange(8)) % 2).astype(bool)
    p = puzzle_from_grid(g)
    r = solve(p, want=1)
    assert r.verdict == "solved" and satisfies(p, r.solutions[0])
    assert solve(p).verdict == "multiple"


def test_want_is_checked():
    with pytest.raises(ValueError):
        solve(puzzle_from_grid(np.eye(2, dtype=bool)), want=3)


def test_cli_first(tmp_path, capsys):
    g = np.array([[1, 0], [0, 1]], dtype=bool)  # two solutions
    f = tmp_path / "two.nin"
    save_puzzle(puzzle_from_grid(g), f)
    assert main(["solve", str(f), "--first", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] == "solved" and d["solution"] in ("1001", "0110")
    assert d["options"]["want"] == 1


def _node_probe_steps(monkeypatch, per_cell, puzzles):
    """Line solves of every search node's probing (not the root's) in first-solution mode."""
    monkeypatch.setattr(search, "FIRST_NODE_PROBE_STEPS_PER_CELL", per_cell)
    spent = []

    def counted(self, message, max_steps=None):
        s0 = self.S.steps()
        st = real(self, message, max_steps)
        if message == "searching":
            spent.append(self.S.steps() - s0)
        return st

    real = search._Driver.probe_fixpoint
    monkeypatch.setattr(search._Driver, "probe_fixpoint", counted)
    try:
        for p in puzzles:
            check_first(p, solve(p, want=1, sat=False), 1)
    finally:
        monkeypatch.setattr(search._Driver, "probe_fixpoint", real)
    return np.array(spent)


def test_first_solution_nodes_probe_within_their_budget(monkeypatch):
    """Below the root a first-solution node stops probing after its budget (the probe under way
    finishes), with a valid solution still; with the budget off it probes to the fixpoint, which
    on these tournament puzzles takes thousands of line solves a node."""
    from conftest import SHARED
    from engine.files.puzzlefile import load_puzzles
    path = SHARED / "puzzles2d" / "taai-tcga-icga" / "question" / "icga2017.txt.gz"
    if not path.exists():
        pytest.skip("../shared/puzzles2d/taai-tcga-icga not found")
    every = load_puzzles(path)
    puzzles = [every[i] for i in (395, 685, 935)]
    per_cell = search.FIRST_NODE_PROBE_STEPS_PER_CELL
    cap = int(per_cell * 625)
    capped = _node_probe_steps(monkeypatch, per_cell, puzzles)
    free = _node_probe_steps(monkeypatch, 0, puzzles)
    assert len(capped) >= 30 and len(free) >= 30, (len(capped), len(free))
    # one probe of a 25x25 grid (both values, each closed under line solving) is a few hundred
    # line solves at most
    assert capped.max() <= cap + 500, (capped.max(), cap)
    assert free.max() > 4 * cap, (free.max(), cap)
    assert np.mean(capped) < np.mean(free) / 2, (np.mean(capped), np.mean(free))


def _runs(monkeypatch, p, want):
    """The search's guesses (``_descend``) as runs between restarts: [(mode, noise, guesses)]
    (only ``p``'s: the kernels' warm-up may solve small puzzles first)."""
    calls = {}
    real = search._Driver._descend

    def recorded(self, stack, mode, probe=True, noise=0.0, salt=0):
        key = self.__dict__.setdefault("_test_run", len(calls))  # one list per driver
        calls.setdefault(key, []).append((self.S.n_cells, mode, noise))
        return real(self, stack, mode, probe, noise, salt)

    monkeypatch.setattr(search._Driver, "_descend", recorded)
    r = solve(p, want=want, sat=False)
    monkeypatch.setattr(search._Driver, "_descend", real)
    ours = [c for c in calls.values() if c[0][0] == r.state.size]
    assert len(ours) == 1, [c[0] for c in calls.values()]
    runs = []
    for _, mode, noise in ours[0]:
        if runs and runs[-1][0] == mode:
            runs[-1][2] += 1
        else:
            runs.append([mode, noise, 1])
    return r, runs


def test_first_solution_restarts_follow_luby_runs_with_noise(monkeypatch):
    """First-solution mode: the runs alternate modes 4 and 5, last FIRST_RESTART_NODES times the
    Luby sequence in guesses (the last run may end sooner, with the solution), and shake the
    choices with noise from the third run on; the same puzzle twice gives the same search.
    Uniqueness mode keeps modes 0 / 1, doubling runs and no noise."""
    from conftest import SHARED
    from engine.files.puzzlefile import load_puzzles
    path = SHARED / "puzzles2d" / "taai-tcga-icga" / "question" / "icga2017.txt.gz"
    if not path.exists():
        pytest.skip("../shared/puzzles2d/taai-tcga-icga not found")
    p = load_puzzles(path)[395]
    monkeypatch.setattr(search, "FIRST_RESTART_NODES", 3)
    r, runs = _runs(monkeypatch, p, 1)
    check_first(p, r, 1)
    assert len(runs) >= 6, runs
    for k, (mode, noise, guesses) in enumerate(runs):
        assert mode == search.FIRST_BRANCH_MODES[k % 2], runs
        assert noise == (search.FIRST_BRANCH_NOISE if k >= 2 else 0.0), runs
        full = 3 * search.luby(k)
        assert guesses == full if k < len(runs) - 1 else 1 <= guesses <= full, runs
    assert r.stats["restarts"] == len(runs) - 1
    again, runs_again = _runs(monkeypatch, p, 1)
    assert runs_again == runs and np.array_equal(again.solutions[0], r.solutions[0])
    monkeypatch.setattr(search, "RESTART_NODES", 3)
    _, runs = _runs(monkeypatch, p, 2)
    assert len(runs) >= 4, runs
    for k, (mode, noise, guesses) in enumerate(runs[:-1]):
        assert (mode, noise, guesses) == (search.BRANCH_MODES[k % 2], 0.0, 3 << (k // 2)), runs
