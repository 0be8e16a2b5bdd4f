"""Grouping reveal colours into puzzle colours, and the colour puzzle that keeps both."""
from __future__ import annotations

import numpy as np

from engine.model.clues import puzzle_from_grid
from engine.colour.groups import (D_VISIBLE, choose_grouping, colour_puzzle_from_reveal, group_palette,
                                      groups_apart, regroup)
from engine.solve.driver import solve
from engine.files.puzzlefile import load_puzzle, save_puzzle


def test_similar_colours_group_together():
    pal = np.array([[0.9, 0.1, 0.1], [0.8, 0.15, 0.1], [0.1, 0.2, 0.9], [0.15, 0.25, 0.8], [0.95, 0.05, 0.15]])
    g = group_palette(pal, [10, 5, 8, 3, 1], 2)
    assert g[0] == g[1] == g[4] and g[2] == g[3] and g[0] != g[2]
    assert g[0] == 1  # the reds are used most
    assert np.array_equal(group_palette(pal, [10, 5, 8, 3, 1], 2), g)  # deterministic
    assert list(group_palette(pal, [1] * 5, 5)) == [1, 2, 3, 4, 5]


def test_colour_puzzle_from_reveal_round_trip(tmp_path):
    rng = np.random.default_rng(4)
    grid = rng.random((4, 5, 3)) < 0.6
    p = puzzle_from_grid(grid)
    p.palette = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 0, 1]], dtype=np.float32)
    p.colours = rng.integers(0, 3, p.n_cells).astype(np.uint8)
    q = colour_puzzle_from_reveal(p, 2)
    assert q.k == 2 and q.colour_groups[0] == q.colour_groups[1] != q.colour_groups[2]
    assert np.array_equal(q.colour_solution > 0, grid.ravel())
    save_puzzle(q, tmp_path / "q.json")
    r = load_puzzle(tmp_path / "q.json")
    assert r.colour_groups == q.colour_groups and r.clues() == q.clues()
    assert solve(r).verdict in ("unique", "multiple")


# --- the grouping's criterion (docs/ADDON.md, "Puzzle colours"): groups visibly apart, each with
# a meaningful share of the cells, each of one kind of colour; on synthetic palettes


def _hex(texts):
    return np.array([[int(t[i:i + 2], 16) / 255 for i in (1, 3, 5)] for t in texts])


def _apart_and_shares(pal, counts, g, k):
    from engine.colour.groups import _oklab100
    x, w = _oklab100(pal), np.asarray(counts, float)
    centres = [np.average(x[g == j], axis=0, weights=w[g == j]) for j in range(1, k + 1)]
    apart = min(np.linalg.norm(centres[a] - centres[b]) for a in range(k) for b in range(a + 1, k))
    return apart, [w[g == j].sum() / w.sum() for j in range(1, k + 1)]


def test_a_few_stray_cells_do_not_make_a_puzzle_colour():
    """Yellow body, an orange part of 8 % and 5 black cells: k-means from the farthest colour
    split the blacks out (0.5 %); two puzzle colours are yellow and orange."""
    pal = _hex(["#ffd800", "#ff9a00", "#000000", "#202020"])
    counts = [900, 80, 3, 2]
    g = group_palette(pal, counts, 2)
    assert g[0] != g[1]
    apart, shares = _apart_and_shares(pal, counts, g, 2)
    assert min(shares) >= 0.05 and apart >= 12
    assert group_palette(pal, counts, 3).tolist() == [1, 2, 3, 3]  # three: the blacks are one


def test_near_shades_stay_together_when_a_distinct_colour_has_a_share():
    """Two greys (a T-rex's body in two shades) and a red of 10 %: not the two greys apart."""
    pal = _hex(["#454b42", "#4f5549", "#8c3a40"])
    g = group_palette(pal, [500, 400, 100], 2)
    assert g.tolist() == [1, 1, 2]


def test_the_choice_is_the_best_partition_by_brute_force():
    """On random palettes the chosen grouping scores best over every partition (itertools)."""
    import itertools
    from engine.colour.groups import _oklab100, partition_scores
    rng = np.random.default_rng(11)
    for trial in range(12):
        n, k = int(rng.integers(3, 8)), int(rng.integers(2, 4))
        if k >= n:
            continue
        pal = rng.random((n, 3))
        counts = rng.integers(1, 400, n).astype(float)
        g = group_palette(pal, counts, k)
        assert sorted(set(g.tolist())) == list(range(1, k + 1))
        use = [counts[g == j].sum() for j in range(1, k + 1)]
        assert use == sorted(use, reverse=True)  # colour 1 is the commonest
        rows = np.array([r for r in itertools.product(range(k), repeat=n)
                         if len(set(r)) == k], dtype=np.int64)
        x, w = _oklab100(pal), counts + 1e-9
        score, *_ = partition_scores(rows, x, w, k)
        mine, *_ = partition_scores((g - 1)[None], x, w, k)
        assert mine[0] >= score.max() - 1e-9, trial
        assert np.array_equal(group_palette(pal, counts, k), g)  # deterministic


def test_large_palettes_are_grouped_after_merging_the_closest_entries():
    """256 entries (more than the partitions tried at once): still k groups, deterministic,
    the two hues of the palette apart."""
    rng = np.random.default_rng(3)
    red = np.clip(np.array([0.85, 0.15, 0.1]) + rng.normal(0, 0.04, (128, 3)), 0, 1)
    blue = np.clip(np.array([0.1, 0.25, 0.85]) + rng.normal(0, 0.04, (128, 3)), 0, 1)
    pal = np.concatenate([red, blue])
    counts = rng.integers(1, 50, 256)
    g = group_palette(pal, counts, 2)
    assert len(set(g[:128].tolist())) == 1 and len(set(g[128:].tolist())) == 1 and g[0] != g[128]
    assert np.array_equal(group_palette(pal, counts, 2), g)
    g3 = group_palette(pal, counts, 3)
    assert sorted(set(g3.tolist())) == [1, 2, 3]


# --- a colour puzzle's reveal palette edited or regrouped: the clues follow


def _two_colour(seed=1):
    rng = np.random.default_rng(seed)
    grid = rng.random((4, 4, 3)) < 0.7
    p = puzzle_from_grid(grid)
    p.palette = np.array([[1, 0.85, 0], [1, 0.7, 0], [0.1, 0.3, 0.9], [0.05, 0.1, 0.4]], np.float32)
    p.colours = rng.integers(0, 4, p.n_cells).astype(np.uint8)
    return colour_puzzle_from_reveal(p, 2, [1, 1, 2, 2]), p.colours.astype(np.int64)


def test_recolour_keeps_the_clues_and_moves_the_puzzle_colour():
    from engine.colour.groups import recolour, reveal_parts
    q, _ = _two_colour()
    pal, cols, groups = reveal_parts(q)
    pal[2] = (0.9, 0.1, 0.1)
    r = recolour(q, pal)
    assert r.clues() == q.clues() and r.colour_groups == [1, 1, 2, 2]
    assert np.array_equal(r.colour_solution, q.colour_solution)
    assert np.allclose(r.clue_colours[0], q.clue_colours[0]) and r.clue_colours[1][0] > 0.3
    assert np.allclose(reveal_parts(r)[0], pal, atol=1 / 255)


def test_merge_across_puzzle_colours_changes_exactly_those_cells():
    from engine.colour.groups import merge_reveal
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    q, reveal = _two_colour()
    same, changed = merge_reveal(q, 0, 1)  # both yellow: one puzzle colour
    assert not changed and same.clues() == q.clues() and same.colour_groups == [1, 2, 2]
    r, changed = merge_reveal(q, 0, 2)  # a blue into the yellow
    filled = q.colour_solution > 0
    want = np.where(filled, np.where(reveal == 3, 2, 1), 0)
    assert changed and np.array_equal(r.colour_solution, want) and r.colour_groups == [1, 1, 2]
    assert r.clues() == colour_puzzle_from_grid(want.reshape(r.grid_shape()), 2).clues()
    # the only entry of puzzle colour 1 into colour 2: colour 2 becomes colour 1, k stays 2
    r2, _ = merge_reveal(r, 2, 0)
    assert r2.k == 2 and sorted(set(r2.colour_groups)) == [1, 2]
    import pytest
    with pytest.raises(ValueError, match="leave one puzzle colour"):
        merge_reveal(merge_reveal(r2, 0, 1)[0], 0, 1)


def test_regroup_picked_and_automatic():
    from engine.colour.groups import regroup
    q, reveal = _two_colour()
    r = regroup(q, 3, [1, 1, 2, 3])
    filled = q.colour_solution > 0
    assert r.k == 3 and r.colour_groups == [1, 1, 2, 3]
    assert np.array_equal(r.colour_solution, np.where(filled, np.array([1, 1, 2, 3])[reveal], 0))
    auto = regroup(q, 3)
    assert auto.k == 3 and np.array_equal(auto.colour_solution > 0, filled)
    import pytest
    with pytest.raises(ValueError, match="needs at least one"):
        regroup(q, 3, [1, 1, 3, 3])


# ---- near-identical puzzle colours (issue #39): the grouping says so, and takes fewer colours

def _reveal_puzzle(palette, counts):
    """A black-and-white puzzle whose cells use the palette entries in these numbers."""
    n = int(sum(counts))
    g = np.zeros((n, 2, 2), bool)
    g[:, 0, 0] = True
    p = puzzle_from_grid(g, name="near")
    p.palette = np.asarray(palette, np.float32)
    colours = np.zeros(g.size, np.uint8)
    colours[np.flatnonzero(g.ravel())] = np.repeat(np.arange(len(counts)), counts)
    p.colours = colours
    return p


def test_a_grouping_into_nearly_identical_colours_says_so():
    # two browns 7 apart (the stegosaurus of #39): no grouping sets them apart
    browns = [[0x50 / 255, 0x44 / 255, 0x33 / 255], [0x62 / 255, 0x58 / 255, 0x47 / 255]]
    q = colour_puzzle_from_reveal(_reveal_puzzle(browns, [30, 20]), 2)
    note = q.meta["grouping"]
    assert note["apart"] < D_VISIBLE and "nearly the same" in note["note"] and note["asked"] == 2
    # colours well apart: nothing to say
    q = colour_puzzle_from_reveal(_reveal_puzzle([[0.9, 0.1, 0.1], [0.1, 0.2, 0.9]], [30, 20]), 2)
    assert "grouping" not in q.meta


def test_fewer_colours_where_more_would_look_the_same():
    # red, blue, and a second red 3 apart from the first: three puzzle colours would put two
    # reds side by side; with fewer=True the grouping takes two colours, red and blue
    pal = [[0.85, 0.1, 0.1], [0.1, 0.2, 0.9], [0.83, 0.11, 0.12]]
    counts = [30, 25, 20]
    g, note = choose_grouping(pal, counts, 3)
    assert int(g.max()) == 2 and g[0] == g[2] != g[1]
    assert "made 2 colours instead" in note
    q = colour_puzzle_from_reveal(_reveal_puzzle(pal, counts), 3, fewer=True)
    assert q.k == 2 and q.meta["grouping"]["asked"] == 3 and q.meta["grouping"]["apart"] >= D_VISIBLE
    # without fewer the three colours stay, and the note says two are nearly the same
    q3 = colour_puzzle_from_reveal(_reveal_puzzle(pal, counts), 3)
    assert q3.k == 3 and q3.meta["grouping"]["apart"] < D_VISIBLE
    # nothing apart at any count: the furthest apart grouping, and a note saying so
    browns = [[0.31, 0.27, 0.2], [0.33, 0.28, 0.21], [0.38, 0.35, 0.28]]
    g, note = choose_grouping(browns, [10, 10, 10], 3)
    assert "nearly the same" in note and groups_apart(browns, [10, 10, 10], g) == max(
        groups_apart(browns, [10, 10, 10], group_palette(browns, [10, 10, 10], kk)) for kk in (2, 3))
    # a regrouped puzzle carries its own note, not its source's
    again = regroup(q3, 2, [1, 2, 1])
    assert "grouping" not in again.meta
