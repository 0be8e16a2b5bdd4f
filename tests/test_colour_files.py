"""Colour puzzle files: JSON and webpbn XML round trips, bad input as clear errors (exit 2 in the CLI)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
from engine.model.colourpuzzle import ColourPuzzle, colour_puzzle_from_grid, with_hidden
from engine.model.puzzle import Puzzle
from engine.files.puzzlefile import PuzzleFileError, load_puzzle, loads_json, save_puzzle


def _same(p, q):
    assert isinstance(q, ColourPuzzle)
    assert q.shape == p.shape and q.k == p.k and q.clues() == p.clues()
    assert np.allclose(q.clue_colours, p.clue_colours, atol=1 / 255)
    assert (q.colour_solution is None) == (p.colour_solution is None)
    if p.colour_solution is not None:
        assert np.array_equal(q.colour_solution, p.colour_solution)


@pytest.mark.parametrize("shape,k", [((5, 4), 2), ((3, 6), 4), ((3, 2, 4), 3), ((2, 2, 2), 2)])
def test_json_round_trip(tmp_path, shape, k):
    rng = np.random.default_rng(sum(shape) + k)
    p = colour_puzzle_from_grid(rng.integers(0, k + 1, shape), k, name="t")
    p = with_hidden(p, rng.random(p.n_lines) < 0.3)
    save_puzzle(p, tmp_path / "p.json")
    _same(p, load_puzzle(tmp_path / "p.json"))


def test_xml_round_trip_and_black_and_white(tmp_path):
    rng = np.random.default_rng(3)
    p = colour_puzzle_from_grid(rng.integers(0, 4, (6, 5)), 3, name="x")
    save_puzzle(p, tmp_path / "p.xml")
    _same(p, load_puzzle(tmp_path / "p.xml"))
    save_puzzle(p, tmp_path / "p2.json")  # XML -> JSON keeps the puzzle
    _same(p, load_puzzle(tmp_path / "p2.json"))
    bw = """<puzzleset><puzzle><clues type="columns"><line><count>2</count></line><line/></clues>
    <clues type="rows"><line><count>1</count></line><line><count>1</count></line></clues></puzzle></puzzleset>"""
    (tmp_path / "bw.xml").write_text(bw)
    q = load_puzzle(tmp_path / "bw.xml")
    assert isinstance(q, Puzzle) and q.clues() == [[1], [1], [2], []]


def test_solution_characters():
    d = {"format": "nonogram", "version": 1, "shape": [2, 1], "clue_colours": ["#000000", "#ff0000"],
         "rows": [[[1, 2], [1, 1]]], "columns": [[[1, 2]], [[1, 1]]], "solution": "21"}
    p = loads_json(json.dumps(d))
    assert list(p.colour_solution) == [2, 1]
    d["solution"] = "12"
    with pytest.raises(PuzzleFileError, match="does not satisfy"):
        loads_json(json.dumps(d))
    d["solution"] = "31"
    with pytest.raises(PuzzleFileError, match="'3'"):
        loads_json(json.dumps(d))


BASE_2D = {"format": "nonogram", "version": 1, "shape": [3, 1], "clue_colours": ["#000000", "#ff0000"],
           "rows": [[[1, 1]]], "columns": [[[1, 1]], [], []]}
BASE_3D = {"format": "nonogram", "version": 1, "shape": [1, 1, 2], "clue_colours": ["#000000", "#ff0000"],
           "x": [[["1", "0"], ["0", "0"]]], "y": [[["1", "0"], ["0", "0"]]], "z": [[["1", "0"]]]}


@pytest.mark.parametrize("base,change,message", [
    (BASE_2D, {"rows": [[[1, 3]]]}, "colour 3 is not one of"),
    (BASE_2D, {"rows": [[[4, 1]]]}, "needs 4 cells"),
    (BASE_2D, {"rows": [[[1, 1], [1, 1], [1, 1]]]}, "needs 5 cells"),
    (BASE_2D, {"rows": [[[1]]]}, "malformed block"),
    (BASE_2D, {"rows": [[["1", 1]]]}, "malformed block"),
    (BASE_2D, {"clue_colours": []}, "between 1 and 35"),
    (BASE_2D, {"clue_colours": ["#000000"] * 300}, "between 1 and 35"),
    (BASE_2D, {"clue_colours": ["red", "#ff0000"]}, "#rrggbb"),
    (BASE_2D, {"palette": ["#000000"] * 300}, "between 1 and 256"),
    (BASE_2D, {"palette": []}, "between 1 and 256"),
    (BASE_2D, {"palette": ["#000000"], "colour_groups": [3]}, "colour_groups"),
    (BASE_3D, {"z": [[["3", "0"]]]}, "more cells than"),
    (BASE_3D, {"z": [[["1", "2", "0"]]]}, "list of 2 counts"),
    (BASE_3D, {"z": [[["1x", "0"]]]}, "unknown count"),
    (BASE_3D, {"z": [[["1o", "0"]]]}, "circled count"),
])
def test_bad_json_is_a_clear_error(base, change, message):
    d = dict(base, **change)
    with pytest.raises(PuzzleFileError, match=message):
        loads_json(json.dumps(d))


XML = """<puzzleset><puzzle defaultcolor="black"><color name="white" char=".">fff</color>
<color name="black" char="X">000</color><color name="red" char="r">f00</color>
<clues type="columns"><line>{col}</line></clues><clues type="rows"><line><count color="red">1</count></line></clues>
</puzzle></puzzleset>"""


@pytest.mark.parametrize("col,message", [
    ('<count color="blue">1</count>', "undefined colour 'blue'"),
    ('<count color="red">x</count>', "malformed block"),
    ('<count color="red">5</count>', "needs 5 cells"),
])
def test_bad_xml_is_a_clear_error(tmp_path, col, message):
    f = tmp_path / "p.xml"
    f.write_text(XML.format(col=col))
    with pytest.raises(PuzzleFileError, match=message):
        load_puzzle(f)
    colours = "".join(f'<color name="c{i}">{i:06x}</color>' for i in range(300))
    f.write_text(f'<puzzleset><puzzle>{colours}<clues type="rows"><line/></clues>'
                 f'<clues type="columns"><line/></clues></puzzle></puzzleset>')
    with pytest.raises(PuzzleFileError, match="at most 35"):
        load_puzzle(f)
    f.write_text("<puzzleset><puzzle")
    with pytest.raises(PuzzleFileError, match="bad XML"):
        load_puzzle(f)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_cli_solve_stats_convert(tmp_path):
    rng = np.random.default_rng(11)
    p = colour_puzzle_from_grid(rng.integers(0, 3, (3, 3, 3)), 2, name="cube")
    save_puzzle(p, tmp_path / "c.json")
    r = _cli("solve", str(tmp_path / "c.json"), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["verdict"] in ("unique", "multiple")
    r = _cli("stats", str(tmp_path / "c.json"), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["colours"] == 2
    q = colour_puzzle_from_grid(rng.integers(0, 3, (4, 5)), 2, name="flat")
    save_puzzle(q, tmp_path / "f.json")
    r = _cli("convert", str(tmp_path / "f.json"), str(tmp_path / "f.xml"))
    assert r.returncode == 0, r.stderr
    _same(q, load_puzzle(tmp_path / "f.xml"))
    bad = dict(BASE_2D, rows=[[[1, 7]]])
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    for cmd in ("solve", "stats"):
        r = _cli(cmd, str(tmp_path / "bad.json"))
        assert r.returncode == 2 and "colour 7" in r.stderr
    r = _cli("convert", str(tmp_path / "c.json"), str(tmp_path / "c.non"))
    assert r.returncode == 2 and "colour puzzle" in r.stderr


OLSAK = """A two-colour task (Olsak .g)
#d
   0:   white
   1:*  black
   r:%  #ff0000  red
: rows
1 1r
2r
: columns
1
2r
1r
: end
"""


def test_olsak_g(tmp_path):
    f = tmp_path / "p.g"
    f.write_text(OLSAK)
    p = load_puzzle(f)
    assert isinstance(p, ColourPuzzle) and p.k == 2 and p.shape == (3, 2)
    assert p.clues() == [[(1, 1), (1, 2)], [(2, 2)], [(1, 1)], [(2, 2)], [(1, 2)]]
    assert p.meta["colour_names"] == ["black", "#ff0000"]
    from engine.solve.driver import solve
    r = solve(p)
    assert r.verdict == "unique" and list(r.solution) == [1, 2, 0, 0, 2, 2]
    f.write_text(OLSAK.replace("1 1r\n", "1 1q\n"))
    with pytest.raises(PuzzleFileError, match="undefined colour 'q'"):
        load_puzzle(f)
    f.write_text(OLSAK.replace("1 1r\n", "1 x\n"))
    with pytest.raises(PuzzleFileError, match="malformed block"):
        load_puzzle(f)
    f.write_text(": rows\n1\n: columns\n1\n")
    assert isinstance(load_puzzle(f), Puzzle)


def test_a_damaged_reveal_string_is_refused_by_every_path(tmp_path):
    """One reader and validator for every kind (issue #38): a colour puzzle whose reveal ``colours``
    string is damaged (``zz`` at the end) is the plain files' error, naming the key and the cell,
    from the reader and from every command that reads puzzles (exit 2, one line on stderr, no
    traceback), where the colour reader checked only its length."""
    g = np.array([[[1, 0], [2, 1]], [[0, 2], [1, 1]]])
    p = colour_puzzle_from_grid(g, 2, name="damaged")
    text = "".join(".." if v == 0 else f"{v - 1:02x}" for v in g.ravel())
    p.meta["_reveal"] = {"palette": ["#102030", "#405060"], "colours": text}
    save_puzzle(p, tmp_path / "good.json")
    assert load_puzzle(tmp_path / "good.json").meta["_reveal"]["colours"] == text
    d = json.loads((tmp_path / "good.json").read_text())
    d["colours"] = d["colours"][:-2] + "zz"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    last = g.size - 1
    with pytest.raises(PuzzleFileError, match=rf"'colours' cell {last} is 'zz'"):
        load_puzzle(bad)
    for cmd in (["solve", str(bad)], ["stats", str(bad)], ["convert", str(bad), str(tmp_path / "o.json")],
                ["export-html", str(bad), "-o", str(tmp_path / "o.html")]):
        r = subprocess.run([sys.executable, "-m", "engine", *cmd], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 2, (cmd, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"'colours' cell {last}" in lines[0] and "Traceback" not in r.stderr, cmd
