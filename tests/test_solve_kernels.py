"""propagate.py's own line shortcuts against the DP line solver, and the line cache."""
import numpy as np
from hypothesis import given, settings, strategies as st

from engine.voxel.blobs import blob_puzzle
from engine.lines.linesolve import solve_line
from engine.kinds.plain.propagate import _count_shortcut, _solve_plain, build_net
from engine.model.puzzle import KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE
from engine.solve.driver import solve

from test_solve_random import random_puzzles

states = st.lists(st.sampled_from([1, 2, 3, 3, 3]), min_size=1, max_size=14)


@settings(max_examples=600, deadline=None)
@given(states, st.integers(0, 14))
def test_plain_matches_dp(cells, total):
    s = np.array(cells, dtype=np.int8)
    n = len(s)
    total = min(total, n)
    a, b = np.zeros(n, np.int8), np.zeros(n, np.int8)
    ok_dp = solve_line(s, KIND_PLAIN, np.array([total]), a)
    ok = _solve_plain(s, n, total, b)
    assert ok == ok_dp
    if ok:
        assert np.array_equal(a, b)


@settings(max_examples=600, deadline=None)
@given(states, st.integers(2, 14), st.sampled_from([KIND_CIRCLE, KIND_SQUARE]))
def test_count_shortcut_agrees_with_dp(cells, total, kind):
    s = np.array(cells, dtype=np.int8)
    n = len(s)
    if total + (1 if kind == KIND_CIRCLE else 2) > n or (kind == KIND_SQUARE and total < 3):
        return
    a, b = np.zeros(n, np.int8), np.zeros(n, np.int8)
    ok_dp = solve_line(s, kind, np.array([total]), a)
    r = _count_shortcut(s, n, total, kind, b)
    if r == 1:
        assert ok_dp and np.array_equal(a, b)
    elif r == -1:
        assert not ok_dp


def test_cache_changes_nothing_but_speed():
    rng = np.random.default_rng(21)
    shapes = [(7, 8), (9, 9), (4, 4, 5), (5, 5, 5)]
    for p in random_puzzles(rng, 40, shapes, mixed_share=0.2):
        a = solve(p, cache=True)
        b = solve(p, cache=False)
        assert a.verdict == b.verdict and a.difficulty == b.difficulty
        assert np.array_equal(a.state, b.state)
        assert a.linesolvers == b.linesolvers
        assert b.stats["cache_lookups"] == 0
    # a 2D puzzle that needs probing revisits line states: the cache must be hit
    p = next(random_puzzles(np.random.default_rng(3), 1, [(12, 12)], mixed_share=0.0))
    r = solve(p)
    if r.stats["probes"]:
        assert r.stats["cache_hits"] > 0


def test_cell_index():
    p = blob_puzzle((4, 3, 2), seed=1, hidden_fraction=0.3)
    net = build_net(p)
    for c in range(p.n_cells):
        lines = net.cell_lines[net.cell_start[c]:net.cell_start[c + 1]]
        expect = [i for i in range(p.n_lines) if p.clue_kind[i] != 0 and c in p.line(i)]
        assert sorted(lines.tolist()) == expect
        for k in range(net.cell_start[c], net.cell_start[c + 1]):
            assert net.line_cells[net.cell_pos[k]] == c
