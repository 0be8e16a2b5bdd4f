"""The quick search of ``full`` (depth-first, propagation only) against enumeration, chunked
runs against one-shot runs, and the ``full`` reports with and without it."""
import numpy as np
import pytest

from engine.kinds.plain import plainkind
from engine.model.cells import FILLED
from engine.kinds.plain.propagate import LS_DP, build_net, new_work, propagate, queue_all
from engine.kinds.plain.quicksearch import K_NODES, K_NSOL, Q_EXHAUSTED, Q_PAUSED, Q_TWO, new_quick, quick_search
from engine.solve.driver import solve

from test_solve_random import enumerate_solutions, random_puzzles, satisfies, check_report

SMALL_3D = [(2, 2, 2), (2, 2, 3), (2, 3, 3), (3, 3, 2), (1, 4, 4)]
SMALL_2D = [(3, 3), (4, 4), (4, 5)]


def run_quick(p, max_steps, want=2):
    net = build_net(p)
    w = new_work(net)
    queue_all(net, w)
    if not propagate(LS_DP, 0, False, net, w):
        return "none", [], 0
    n_target = p.n_cells - int(np.count_nonzero(np.diff(net.cell_start) == 0))
    qs = new_quick(p.n_cells)
    calls = 0
    while True:
        st = quick_search(LS_DP, 0, False, n_target, want, max_steps, net, w, qs, np.zeros(0, np.int8))
        calls += 1
        assert calls < 100000
        if st != Q_PAUSED:
            break
    sols = [qs.sols[k] == FILLED for k in range(int(qs.ctl[K_NSOL]))]
    return st, sols, int(qs.ctl[K_NODES])


@pytest.mark.parametrize("shapes,seed", [(SMALL_3D, 11), (SMALL_2D, 12)])
def test_quick_search_matches_enumeration(shapes, seed):
    rng = np.random.default_rng(seed)
    seen = {Q_TWO: 0, "exhausted0": 0, "exhausted1": 0, "none": 0}
    for p in random_puzzles(rng, 300, shapes, hide_max=0.5):
        # solutions as the search sees them: on the cells some clue covers
        constrained = np.diff(build_net(p).cell_start) > 0
        ref = []
        for s in enumerate_solutions(p, limit=1 << 20):
            if not any(np.array_equal(s & constrained, r) for r in ref):
                ref.append(s & constrained)
        st, sols, nodes = run_quick(p, 1 << 30)
        for s in sols:
            assert satisfies(p, s)
        if st == "none":
            assert ref == [] or len(ref) == 0
            seen["none"] += 1
            continue
        if len(ref) >= 2:
            assert st == Q_TWO and len(sols) == 2 and not np.array_equal(sols[0], sols[1])
            seen[Q_TWO] += 1
        else:
            assert st == Q_EXHAUSTED and len(sols) == len(ref)
            if ref:
                assert np.array_equal(sols[0], ref[0])
            seen[f"exhausted{len(ref)}"] += 1
        if st == Q_TWO:
            assert any(np.array_equal(sols[0], r) for r in ref) and any(np.array_equal(sols[1], r) for r in ref)
        # chunks of one line-solver application give the same search
        st2, sols2, nodes2 = run_quick(p, 1)
        assert st2 == st and nodes2 == nodes
        assert all(np.array_equal(a, b) for a, b in zip(sols, sols2))
    assert seen[Q_TWO] >= 5 and seen["exhausted1"] >= 5 and seen["exhausted0"] + seen["none"] >= 5, seen


def test_quick_search_want_one_stops_at_the_first_solution():
    rng = np.random.default_rng(5)
    for p in random_puzzles(rng, 40, SMALL_3D, mixed_share=0.0, hide_max=0.0):
        st, sols, _ = run_quick(p, 1 << 30, want=1)
        if st != "none":
            assert st == Q_TWO and len(sols) == 1 and satisfies(p, sols[0])


@pytest.mark.parametrize("shapes,seed", [([(2, 3, 3), (1, 4, 4), (4, 4, 4), (5, 5, 4), (5, 5, 5)], 21),
                                         ([(3, 3, 4), (4, 4, 3), (6, 5, 4)], 22)])
def test_full_with_and_without_quick_search_agree(shapes, seed, monkeypatch):
    """Verdict and difficulty do not depend on the quick search or its budget, and each of its
    routes is exercised: settled without probing, tree exhausted (probing then only for the
    difficulty), budget spent (probing and guided search go on)."""
    rng = np.random.default_rng(seed)
    puzzles = list(random_puzzles(rng, 100, shapes, mixed_share=0.2, hide_max=0.5))
    monkeypatch.setattr(plainkind, "QUICK_STEPS_PER_CELL", 0)
    # the walk would settle most puzzles whose quick budget is spent (tests/test_walk.py)
    monkeypatch.setattr(plainkind, "WALK_FLIPS_PER_CELL", 0)
    # use_known=False: a known solution would run the quick search with a budget of its own
    without = [solve(p, use_known=False) for p in puzzles]
    routes = set()
    for per_cell, per_line in ((4, 2), (1, 0)):  # the default budget, and a tiny one
        monkeypatch.setattr(plainkind, "QUICK_STEPS_PER_CELL", per_cell)
        monkeypatch.setattr(plainkind, "QUICK_STEPS_PER_LINE", per_line)
        for p, b in zip(puzzles, without):
            a = solve(p, use_known=False)
            assert b.stats["quick_nodes"] == 0
            assert (a.verdict, a.difficulty) == (b.verdict, b.difficulty), p.clues()
            if p.n_cells <= 20:
                check_report(p, a, enumerate_solutions(p))
            for s in a.solutions:
                assert satisfies(p, s)
            if a.stats["quick_nodes"] > 0:
                routes.add("no probing" if a.stats["probes"] == 0 else
                           "exhausted" if a.stats["nodes"] == 0 else "budget spent")
            if a.verdict == "unique":
                assert np.array_equal(a.solutions[0], b.solutions[0])
                # the order covers the solution's constrained cells once each
                assert len(np.unique(a.order)) == len(a.order)
                constrained = np.diff(build_net(p).cell_start) > 0
                assert np.array_equal(np.sort(a.order), np.flatnonzero(constrained))
    assert routes == {"no probing", "exhausted", "budget spent"}, routes


def test_quick_search_settles_a_loose_3d_puzzle_without_probing():
    """A 3D blob with hidden clues has many solutions; the quick search finds two before any
    probing (before it, root probing cost seconds at 36^3)."""
    from engine.voxel.blobs import blob_puzzle
    p = blob_puzzle((16, 16, 16), seed=3, scale=2, hidden_fraction=0.3)
    r = solve(p, use_known=False)
    assert r.verdict == "multiple" and r.difficulty == "search"
    assert r.stats["probes"] == 0 and r.stats["quick_nodes"] > 0
    a, b = r.solutions
    assert satisfies(p, a) and satisfies(p, b) and len(r.differing_cells) > 0
