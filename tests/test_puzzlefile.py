"""The JSON puzzle format (engine/files/puzzlefile.py): exact round trips and rejection of bad files."""
import gzip
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from engine.model.clues import puzzle_from_grid
from engine.model.puzzle import make_2d
from engine.files.puzzlefile import (PuzzleFileError, dumps_json, load_puzzle, load_puzzles, loads_json,
                               puzzle_from_dict, puzzle_to_dict, save_puzzle, save_puzzles, split_selector)


def same_puzzle(a, b):
    assert a.shape == b.shape
    assert a.clues() == b.clues()
    assert (a.solution is None) == (b.solution is None)
    if a.solution is not None:
        assert np.array_equal(a.solution, b.solution)
    assert a.name == b.name and a.meta == b.meta


def hidden_mask(draw_bits, n):
    return np.array([(draw_bits >> i) & 1 for i in range(n)], dtype=bool)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays(bool, st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))),
       st.integers(0, 2 ** 48), st.booleans())
def test_json_round_trip_3d(tmp_path, g, bits, keep_solution):
    p = puzzle_from_grid(g, name="blob \"3d\" ✓", hidden=hidden_mask(bits, sum(
        a * b for a, b in ((g.shape[1], g.shape[2]), (g.shape[0], g.shape[2]), (g.shape[0], g.shape[1])))))
    if not keep_solution:
        p.solution = None
    p.meta = {"source": "test", "resolution": [1, 2, 3]}
    path = tmp_path / "p.json"
    save_puzzle(p, path)
    text = path.read_text(encoding="utf-8")
    q = load_puzzle(path)
    same_puzzle(p, q)
    save_puzzle(q, path)
    assert path.read_text(encoding="utf-8") == text
    assert json.loads(text) == puzzle_to_dict(p)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays(bool, st.tuples(st.integers(1, 6), st.integers(1, 6))), st.integers(0, 2 ** 12))
def test_json_round_trip_2d(tmp_path, g, bits):
    H, W = g.shape
    p = puzzle_from_grid(g, name="two-d", hidden=hidden_mask(bits, H + W))
    path = tmp_path / "p.json"
    save_puzzle(p, path)
    text = path.read_text(encoding="utf-8")
    q = load_puzzle(path)
    same_puzzle(p, q)
    assert dumps_json(q) == text


def test_json_layout_is_documented_one():
    p = make_2d([[1], None], [[1], []], solution=[1, 0, 0, 0], name="tiny")
    d = json.loads(dumps_json(p))
    assert list(d) == ["format", "version", "name", "shape", "rows", "columns", "solution"]
    assert d == {"format": "nonogram", "version": 1, "name": "tiny", "shape": [2, 2],
                 "rows": [[1], None], "columns": [[1], []], "solution": "1000"}


def test_json_3d_cell_order_is_x_major():
    g = np.zeros((2, 3, 4), dtype=bool)
    g[1, 2, 3] = True
    d = puzzle_to_dict(puzzle_from_grid(g))
    assert d["solution"].index("1") == (1 * 3 + 2) * 4 + 3
    assert d["x"][2][3] == "1" and d["y"][1][3] == "1" and d["z"][1][2] == "1"


def test_zero_as_empty_block_list_is_accepted():
    p = puzzle_from_dict({"format": "nonogram", "version": 1, "shape": [1, 1], "rows": [[0]], "columns": [[]]})
    assert p.clues() == [[], []]


def test_gzip_json(tmp_path):
    p = puzzle_from_grid(np.eye(3, dtype=bool))
    save_puzzle(p, tmp_path / "p.json.gz")
    with gzip.open(tmp_path / "p.json.gz", "rt") as f:
        assert json.load(f)["shape"] == [3, 3]
    same_puzzle(p, load_puzzle(tmp_path / "p.json.gz"))


# ---------------------------------------------------------------------------------------------
# malformed input: (file text, substrings that must all be in the message besides the file name)

BASE2 = {"format": "nonogram", "version": 1, "shape": [3, 2], "rows": [[1], [2]], "columns": [[1], [1], [1]]}
BASE3 = {"format": "nonogram", "version": 1, "shape": [3, 1, 2],
         "x": [["1", "2o"]], "y": [["1", "1"], ["0", "0"], ["0", "1"]], "z": [["2"], ["0"], ["1"]]}


def with_(base, **kw):
    d = json.loads(json.dumps(base))
    d.update(kw)
    return json.dumps(d)


BAD_JSON = [
    ("bad-json", '{"format": "nonogram",\n "version": ', ["line 2", "bad JSON"]),
    ("not-object", "[1, 2]", ["top level", "object"]),
    ("format", with_(BASE2, format="picross"), ["'format'"]),
    ("version", with_(BASE2, version=2), ["'version'", "must be 1"]),
    ("shape-zero", with_(BASE2, shape=[0, 2]), ["'shape'", "at least 1"]),
    ("shape-4d", with_(BASE2, shape=[1, 1, 1, 1]), ["'shape'", "2 or 3"]),
    ("shape-huge", with_(BASE3, shape=[4096, 4096, 4096]), ["'shape'", "cells"]),
    ("unknown-key", with_(BASE2, colour="red"), ["unknown key", "'colour'"]),
    ("rows-count", with_(BASE2, rows=[[1]]), ["'rows' has 1 entries, expected 2"]),
    ("columns-missing", json.dumps({k: v for k, v in BASE2.items() if k != "columns"}), ["'columns'", "missing"]),
    ("negative-block", with_(BASE2, rows=[[1], [-2]]), ["rows[1]", "negative"]),
    ("zero-block", with_(BASE2, rows=[[1], [2, 0]]), ["rows[1]", "length 0"]),
    ("bool-block", with_(BASE2, rows=[[True], [2]]), ["rows[0]", "integers"]),
    ("string-block", with_(BASE2, columns=[["1"], [1], [1]]), ["columns[0]", "integers"]),
    ("too-long-2d", with_(BASE2, rows=[[1], [1, 2]]), ["row 2", "needs 4 cells", "has 3"]),
    ("too-long-col", with_(BASE2, columns=[[1], [3], [1]]), ["column 2", "needs 3 cells"]),
    ("x-table-rows", with_(BASE3, x=[["1", "2o"], ["1", "1"]]), ["'x' has 2 entries, expected 1"]),
    ("x-table-cols", with_(BASE3, x=[["1"]]), ["x[0]", "2 clues"]),
    ("unknown-clue", with_(BASE3, x=[["1", "2q"]]), ["x[0][1]", "unknown clue '2q'"]),
    ("negative-3d", with_(BASE3, y=[["1", "-1"], ["0", "0"], ["0", "1"]]), ["y[0][1]", "negative"]),
    ("empty-clue-3d", with_(BASE3, y=[["1", ""], ["0", "0"], ["0", "1"]]), ["y[0][1]", "unknown clue ''"]),
    ("int-3d", with_(BASE3, z=[[1], ["0"], ["1"]]), ["z[0][0]", "must be a string"]),
    ("too-long-3d", with_(BASE3, x=[["4", "2o"]]), ["x[0][0]", "needs 4 cells", "has 3"]),
    ("circle-too-long", with_(BASE3, x=[["1", "3o"]]), ["x[0][1]", "needs 4 cells"]),
    ("circle-total-1", with_(BASE3, x=[["1", "1o"]]), ["x[0][1]", "circle", "at least 2"]),
    ("square-total-2", with_(BASE3, x=[["1", "2s"]]), ["x[0][1]", "square", "at least 3"]),
    ("solution-length", with_(BASE2, solution="10101"), ["'solution' has 5 characters", "6 cells"]),
    ("solution-char", with_(BASE2, solution="100x11"), ["'solution'", "'x'", "index 3"]),
    ("solution-type", with_(BASE2, solution=[1, 0]), ["'solution'", "string"]),
    ("solution-mismatch", with_(BASE2, solution="110011"), ["solution", "does not satisfy", "row 1"]),
    ("solution-mismatch-3d", with_(BASE3, solution="111001"), ["does not satisfy", "x[0][0]"]),
    ("name-type", with_(BASE2, name=7), ["'name'", "string"]),
    ("meta-type", with_(BASE2, meta=[1]), ["'meta'", "object"]),
]


@pytest.mark.parametrize("name,text,parts", BAD_JSON, ids=[c[0] for c in BAD_JSON])
def test_malformed_json_is_rejected_with_file_and_field(tmp_path, name, text, parts):
    path = tmp_path / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PuzzleFileError) as e:
        load_puzzle(path)
    msg = str(e.value)
    assert str(path) in msg
    for part in parts:
        assert part in msg


def test_valid_bases_load(tmp_path):
    # The malformed cases above are one edit away from these, so they fail for the stated reason.
    assert loads_json(json.dumps(BASE2), "b2").clues() == [[1], [2], [1], [1], [1]]
    p = loads_json(with_(BASE3, solution="110001"), "b3")
    assert [str(c) for c in p.clues()] == ["1", "2o", "1", "1", "0", "0", "0", "1", "2", "0", "1"]
    assert loads_json(with_(BASE2, solution="100011"), "b2").solution.sum() == 3


@pytest.mark.parametrize("filename,content,parts", [
    ("p.xyz", "whatever", ["unknown puzzle file extension '.xyz'"]),
    ("missing.json", None, ["no such file"]),
    ("latin1.json", b'{"name": "\xe9"}', ["not UTF-8"]),
    ("bad.json.gz", b"not gzip at all", ["cannot read"]),
])
def test_unreadable_files(tmp_path, filename, content, parts):
    path = tmp_path / filename
    if isinstance(content, str):
        path.write_text(content)
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(PuzzleFileError) as e:
        load_puzzle(path)
    assert str(path) in str(e.value)
    for part in parts:
        assert part in str(e.value)


def test_directory_is_rejected(tmp_path):
    d = tmp_path / "dir.json"
    d.mkdir()
    with pytest.raises(PuzzleFileError, match="directory"):
        load_puzzle(d)


# ---------------------------------------------------------------------------------------------
# multi-puzzle files and the FILE#N selector

DEJOUE = "GRID one\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 ]\n\nGRID two\nROWS\n[ ]\n[ 1 ]\nCOLUMNS\n[ 1 ]\n"


def test_selector_picks_one_based(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text(DEJOUE)
    assert [p.name for p in load_puzzles(path)] == ["one", "two"]
    assert load_puzzle(f"{path}#2").name == "two"
    assert [p.name for p in load_puzzles(f"{path}#1")] == ["one"]
    with pytest.raises(PuzzleFileError, match=r"holds 2 puzzles; pick one with .*#N"):
        load_puzzle(path)
    for bad in ("#0", "#3"):
        with pytest.raises(PuzzleFileError, match=r"no puzzle #\d+; the file holds 2 puzzles"):
            load_puzzle(f"{path}{bad}")


def test_selector_leaves_real_names_alone(tmp_path):
    path = tmp_path / "odd#2"
    path.write_text("{}")
    assert split_selector(path) == (str(path), None)
    assert split_selector(tmp_path / "nothing#2") == (str(tmp_path / "nothing#2"), None)
    assert split_selector(f"{tmp_path / 'odd#2'}#5") == (str(path), 5)


def test_save_many_needs_a_multi_format(tmp_path):
    ps = load_puzzles(_write(tmp_path / "two.txt", DEJOUE))
    with pytest.raises(PuzzleFileError, match="holds one puzzle, got 2"):
        save_puzzles(ps, tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()
    save_puzzles(ps, tmp_path / "out.nonpack")
    for a, b in zip(ps, load_puzzles(tmp_path / "out.nonpack")):
        assert a.clues() == b.clues() and a.name == b.name


def test_save_unknown_extension(tmp_path):
    with pytest.raises(PuzzleFileError, match="cannot write extension '.png'"):
        save_puzzle(puzzle_from_grid(np.eye(2, dtype=bool)), tmp_path / "p.png")


def _write(path, text):
    path.write_text(text)
    return path


def test_meta_is_copied_not_shared():
    p = puzzle_from_grid(np.eye(2, dtype=bool))
    p.meta = {"tags": ["a"]}
    d = puzzle_to_dict(p)
    d["meta"]["tags"].append("b")
    assert p.meta == {"tags": ["a"]}
    q = puzzle_from_dict(d)
    d["meta"]["tags"].append("c")
    assert q.meta == {"tags": ["a", "b"]}


def test_saving_a_solution_of_the_wrong_size_is_refused(tmp_path):
    p = puzzle_from_grid(np.eye(3, dtype=bool), name="eye")
    p.solution = np.ones(4, dtype=bool)
    with pytest.raises(PuzzleFileError, match="'eye': its solution has 4 cells, the puzzle 9"):
        save_puzzle(p, tmp_path / "eye.json")
    assert not (tmp_path / "eye.json").exists()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5) | st.sampled_from(["0", "1", "2o", "3s", "x", "", "nonogram"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(list(BASE3)), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([BASE2, BASE3]), st.sampled_from(sorted(set(BASE2) | set(BASE3) | {"solution", "name"})),
       JSON_VALUES)
def test_random_json_fields_load_or_raise_puzzle_file_error(base, key, value):
    d = json.loads(json.dumps(base))
    d[key] = value
    try:
        p = puzzle_from_dict(d, "fuzz.json")
    except PuzzleFileError as e:
        assert str(e).startswith("fuzz.json: ")
    else:
        assert loads_json(dumps_json(p)).clues() == p.clues()
