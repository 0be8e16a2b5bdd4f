"""The reveal colours in the puzzle file: ``palette`` and ``colours`` beside ``solution``."""
import json

import numpy as np
import pytest

from engine.model.clues import puzzle_from_grid
from engine.model.puzzle import with_hidden
from engine.files.puzzlefile import PuzzleFileError, dumps_json, loads_json, puzzle_to_dict


def coloured_puzzle(shape=(3, 2, 4), seed=0):
    rng = np.random.default_rng(seed)
    g = rng.random(shape) < 0.5
    g.flat[0] = True
    p = puzzle_from_grid(g, name="c")
    p.palette = np.array([[1, 0, 0], [0, 0.5, 1], [1, 1, 1]], np.float32)
    p.colours = np.where(g.ravel(), rng.integers(0, 3, g.size), 0).astype(np.uint8)
    return p


def test_round_trip_3d_and_2d():
    for shape in ((3, 2, 4), (5, 3)):
        p = coloured_puzzle(shape)
        text = dumps_json(p)
        d = json.loads(text)
        assert list(d)[-2:] == ["palette", "colours"] or list(d)[-3:-1] == ["palette", "colours"]
        assert d["palette"] == ["#ff0000", "#0080ff", "#ffffff"]
        assert len(d["colours"]) == 2 * p.n_cells
        sol = d["solution"]
        assert all((pair == "..") == (s == "0")
                   for pair, s in zip([d["colours"][i:i + 2] for i in range(0, len(d["colours"]), 2)], sol))
        q = loads_json(text)
        np.testing.assert_array_equal(q.colours[q.solution], p.colours[p.solution])
        np.testing.assert_allclose(q.palette, np.round(p.palette * 255) / 255, atol=1e-7)
        assert dumps_json(q) == text


def test_plain_files_stay_plain():
    p = coloured_puzzle()
    p.palette = p.colours = None
    d = puzzle_to_dict(p)
    assert "palette" not in d and "colours" not in d
    q = loads_json(json.dumps(d))
    assert q.palette is None and q.colours is None


def test_hidden_clues_keep_colours():
    p = coloured_puzzle()
    q = with_hidden(p, [0, 1])
    assert q.palette is p.palette and q.colours is p.colours


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.update(colours=d["colours"][:-2]), "'colours' has .* characters"),
    (lambda d: d.update(colours="zz" + d["colours"][2:]), "'colours' cell 0 is 'zz'"),
    (lambda d: d.update(colours="FF" + d["colours"][2:]), "lowercase"),
    (lambda d: d.update(colours=".0" + d["colours"][2:]), "cell 0 is '.0'"),
    (lambda d: d.update(colours="05" + d["colours"][2:]), "palette entry 5"),
    (lambda d: d.update(colours=".." + d["colours"][2:]), "has no colour but is filled"),
    (lambda d: d.update(palette=["#ff0000", "red"]), "'palette': entry 1 is 'red'"),
    (lambda d: d.update(palette=[]), "'palette' must be a list of 1 to 256"),
    (lambda d: d.update(palette=["#000000"] * 257), "'palette' must be a list of 1 to 256"),
    (lambda d: d.pop("palette"), "'colours' needs 'palette'"),
    (lambda d: d.pop("solution"), "'colours' needs 'solution'"),
    (lambda d: d.update(colours=5), "'colours' must be a string"),
])
def test_bad_colour_fields(edit, match):
    d = puzzle_to_dict(coloured_puzzle())
    edit(d)
    with pytest.raises(PuzzleFileError, match=match):
        loads_json(json.dumps(d), "f.json")


def test_colour_on_an_empty_cell():
    p = coloured_puzzle()
    d = puzzle_to_dict(p)
    i = int(np.flatnonzero(~p.solution)[0])
    d["colours"] = d["colours"][:2 * i] + "00" + d["colours"][2 * i + 2:]
    with pytest.raises(PuzzleFileError, match=f"cell {i} has a colour but is empty"):
        loads_json(json.dumps(d))


def test_writing_checks_the_model():
    p = coloured_puzzle()
    p.colours = p.colours.copy()
    p.colours[0] = 7
    with pytest.raises(PuzzleFileError, match="palette entry 7"):
        dumps_json(p)


def test_design_keeps_the_colours():
    from engine.design.hiding import design
    p = coloured_puzzle((3, 3, 3), seed=4)
    r = design(p, seed=0, time_limit=5)
    assert r.puzzle.palette is not None
    np.testing.assert_array_equal(r.puzzle.colours, p.colours)
    q = loads_json(dumps_json(r.puzzle))
    np.testing.assert_array_equal(q.colours[q.solution], p.colours[p.solution])


def test_other_formats_warn_that_colours_are_left_out(tmp_path):
    from engine.files.puzzlefile import PuzzleFileWarning, save_puzzle
    p = coloured_puzzle((4, 3))
    with pytest.warns(PuzzleFileWarning, match="no colours"):
        save_puzzle(p, tmp_path / "x.non")
