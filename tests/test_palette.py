"""Palette reduction (OKLab k-means), its determinism and the editing helpers."""
import numpy as np
import pytest

from engine.colour.colourspace import (ciede2000, from_hex, linear_to_lab, linear_to_oklab,
                                linear_to_srgb, oklab_to_linear, srgb_to_linear, to_hex)
from engine.colour.palette import (PaletteError, check_k, grid_palette, merge_entries, reduce_palette,
                            set_entry)


def test_colour_space_round_trips():
    rng = np.random.default_rng(0)
    c = rng.random((100, 3))
    np.testing.assert_allclose(srgb_to_linear(linear_to_srgb(c)), c, atol=1e-12)
    np.testing.assert_allclose(oklab_to_linear(linear_to_oklab(c)), c, atol=1e-9)
    # OKLab of white is L=1, a=b=0 (Ottosson's reference values)
    np.testing.assert_allclose(linear_to_oklab([1.0, 1.0, 1.0]), [1, 0, 0], atol=1e-4)
    assert to_hex([[1, 0.5, 0]]) == ["#ff8000"]
    np.testing.assert_allclose(from_hex(["#ff8000"]), [[1, 128 / 255, 0]], atol=1e-7)
    with pytest.raises(ValueError, match="entry 1"):
        from_hex(["#000000", "#12345"])


def test_ciede2000_reference_pairs():
    # Sharma, Wu and Dalal's test data, pairs 1, 7 and 17
    lab1 = np.array([[50, 2.6772, -79.7751], [50, 0, 0], [50, 2.5, 0]])
    lab2 = np.array([[50, 0, -82.7485], [50, -1, 2], [73, 25, -18]])
    np.testing.assert_allclose(ciede2000(lab1, lab2), [2.0425, 2.3669, 27.1492], atol=1e-4)
    assert ciede2000(linear_to_lab([0.2, 0.3, 0.4]), linear_to_lab([0.2, 0.3, 0.4])) == 0


def test_exact_when_fewer_colours_than_k():
    cols = srgb_to_linear(np.array([[1, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0]], float))
    pal, idx = reduce_palette(cols, 8)
    # ordered by use: red (3 voxels) first
    np.testing.assert_array_equal(pal, [[1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(idx, [0, 1, 0, 0])


def test_clusters_and_determinism():
    rng = np.random.default_rng(1)
    centres = np.array([[0.8, 0.1, 0.1], [0.1, 0.7, 0.1], [0.1, 0.1, 0.8], [0.9, 0.9, 0.9]])
    labels = rng.integers(0, 4, 3000)
    cols = np.clip(centres[labels] + rng.normal(scale=0.01, size=(3000, 3)), 0, 1)
    pal, idx = reduce_palette(cols, 4)
    assert pal.shape == (4, 3) and pal.dtype == np.float32
    # every cluster lands in one entry, and the entries are the clusters
    for c in range(4):
        assert len(set(idx[labels == c].tolist())) == 1
    assert len(set(idx.tolist())) == 4
    pal2, idx2 = reduce_palette(cols, 4)
    np.testing.assert_array_equal(pal, pal2)
    np.testing.assert_array_equal(idx, idx2)
    # k=1 is the plain puzzle: one entry, every voxel 0
    p1, i1 = reduce_palette(cols, 1)
    assert p1.shape == (1, 3) and not i1.any()


def test_bad_k():
    for k in (0, 257, -1, 2.5, True, "3"):
        with pytest.raises(PaletteError):
            check_k(k)
    with pytest.raises(PaletteError, match="1 to 256"):
        reduce_palette(np.zeros((3, 3)), 0)
    assert check_k(256) == 256


def test_grid_palette_uses_cell_order_and_zero_on_empty():
    g = np.zeros((2, 2, 2), bool)
    g[0, 0, 1] = g[1, 1, 1] = True
    cols = np.zeros((2, 2, 2, 3))
    cols[0, 0, 1] = [1, 0, 0]
    cols[1, 1, 1] = [0, 1, 0]
    cols[1, 1, 0] = [0, 0, 1]  # empty: ignored
    pal, cells = grid_palette(g, cols, 4)
    assert len(pal) == 2
    assert cells.shape == (8,)
    assert cells[1] != cells[7] and cells[[0, 2, 3, 4, 5, 6]].sum() == 0


def test_editing():
    pal = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    idx = np.array([0, 1, 2, 2, 1], np.uint8)
    p2 = set_entry(pal, 1, (0.5, 0.5, 0.5))
    assert np.allclose(p2[1], 128 / 255) and np.array_equal(p2[[0, 2]], pal[[0, 2]])
    p3, i3 = merge_entries(pal, idx, keep=2, drop=0)
    np.testing.assert_array_equal(p3, pal[[1, 2]])
    np.testing.assert_array_equal(p3[i3], pal[[2, 1, 2, 2, 1]])
    p4, i4 = merge_entries(pal, idx, keep=0, drop=2)
    np.testing.assert_array_equal(p4[i4], pal[[0, 1, 0, 0, 1]])
    with pytest.raises(PaletteError):
        merge_entries(pal, idx, 1, 1)
    with pytest.raises(PaletteError):
        set_entry(pal, 3, (0, 0, 0))
    with pytest.raises(PaletteError):
        merge_entries(np.zeros((0, 3)), idx, 0, 1)
