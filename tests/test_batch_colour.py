"""batch.py --puzzle-colours K: colour puzzles from the reveal palette, headless, with the real bpy
module (each run a subprocess, as in test_batch.py)."""
from __future__ import annotations

import json

import pytest

from conftest import shared_path
from test_batch import read_summary, run
from test_batch_web import _page_data

pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")
pytestmark = pytest.mark.blender


def test_two_colour_puzzle_designed(tmp_path):
    """--colours 8 --puzzle-colours 2 --design: the colour puzzle file (two clue colours, the
    palette and its grouping kept), its verdict, and the designed colour puzzle, named in the
    summary and the report."""
    from engine.files.puzzlefile import load_puzzle
    from engine.model.colourpuzzle import CKIND_NONE, ColourPuzzle, colour_puzzle_from_grid
    out = tmp_path / "out"
    proc = run(["batch.py", "--", "--input", str(shared_path("models", "trex.glb")), "--resolution", "10",
                "--out", str(out), "--colours", "8", "--puzzle-colours", "2", "--design", "--render", "player",
                "--render-size", "48", "--render-samples", "1", "--blend", "--export-html"])
    assert proc.returncode == 0
    _, rows = read_summary(out)
    row = rows[0]
    assert row["status"] == "ok", row
    assert row["puzzle_colours"] == "2" and row["colour_verdict"] == "unique"
    cp = load_puzzle(str(out / row["colour_puzzle_file"]))
    assert isinstance(cp, ColourPuzzle) and cp.k == 2 and cp.clue_colours.shape == (2, 3)
    bw = load_puzzle(str(out / row["puzzle_file"]))
    # the same cells filled as the black-and-white puzzle, both colours used, full clues
    assert (cp.colour_solution > 0).tolist() == bw.solution.ravel().tolist()
    assert set(cp.colour_solution.tolist()) == {0, 1, 2}
    assert not (cp.clue_kind == CKIND_NONE).any()
    raw = json.loads((out / row["colour_puzzle_file"]).read_text())
    assert len(raw["palette"]) == len(row["palette"].split()) and set(raw["colour_groups"]) == {1, 2}
    designed = load_puzzle(str(out / row["design_file"]))
    assert isinstance(designed, ColourPuzzle)
    hidden = int((designed.clue_kind == CKIND_NONE).sum())
    assert hidden == int(row["design_hidden"]) > 0
    # the designed clues are those of the solution wherever shown
    full = colour_puzzle_from_grid(cp.colour_solution.reshape(cp.grid_shape()), 2)
    shown = designed.clue_kind != CKIND_NONE
    assert [designed.clue(i) for i in range(designed.n_lines) if shown[i]] == \
        [full.clue(i) for i in range(full.n_lines) if shown[i]]
    report = json.loads((out / row["report_file"]).read_text())
    assert report["options"]["puzzle_colours"] == 2
    # the render and the .blend show the designed colour puzzle, built as Import Puzzle builds it
    assert (out / row["png_file"]).stat().st_size > 0
    check = ("import bpy, importlib.util, json, sys; bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); "
             "spec = importlib.util.spec_from_file_location('b', 'batch.py'); "
             "b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b); b.addon_package(); "
             "o = [o for o in bpy.data.objects if o.nonogram.is_nonogram]; "
             "print(json.dumps([len(o), o[0].nonogram.puzzle, o[0].nonogram.hidden, o[0].nonogram.report]))")
    found = run(["-c", check, str(out / row["blend_file"])])
    count, stored, hidden, solved = json.loads(found.stdout.strip().splitlines()[-1])
    assert count == 1 and json.loads(stored)["clue_colours"] == raw["clue_colours"] and hidden
    # solved as Solve does (the one solver's full method, on a colour puzzle), so the designer's view
    # shows its cells
    rep = json.loads(solved)
    assert (rep["verdict"], rep["method"], rep["kind"], rep["colours"]) == ("unique", "full", "colour", 2)
    assert report["colour_puzzle"]["file"] == row["colour_puzzle_file"]
    assert report["colour_puzzle"]["clue_colours"] == raw["clue_colours"]
    # --export-html: the page plays the designed colour puzzle, its clues per colour
    page = _page_data(out / row["html_file"])
    designed_raw = json.loads((out / row["design_file"]).read_text())
    assert page["clue_colours"] == raw["clue_colours"]
    assert (page["x"], page["y"], page["z"]) == (designed_raw["x"], designed_raw["y"], designed_raw["z"])


def test_bad_puzzle_colours(tmp_path):
    """0, more than --colours, without --colours: exit 2 with the reason; a reveal of one
    colour: a black-and-white puzzle, with the reason in the summary's warnings."""
    for extra, words in ((["--colours", "4", "--puzzle-colours", "0"], "--puzzle-colours must be 1"),
                         (["--puzzle-colours", "2"], "needs --colours"),
                         (["--colours", "2", "--puzzle-colours", "3"], "more than the reveal's --colours")):
        bad = run(["batch.py", "--", "--input", "suzanne", "--out", str(tmp_path / "bad"), *extra])
        assert bad.returncode == 2 and words in bad.stderr, extra
    out = tmp_path / "out"
    proc = run(["batch.py", "--", "--input", "suzanne", "--resolution", "8", "--out", str(out),
                "--colours", "2", "--puzzle-colours", "2"])
    # a model of one colour beside coloured ones in a catalogue: black-and-white, and said so
    assert proc.returncode == 0, proc.stderr[-2000:]
    _, rows = read_summary(out)
    assert rows[0]["status"] == "ok" and rows[0]["puzzle_colours"] == "1" and not rows[0]["colour_puzzle_file"]
    assert "reveal has 1 colour" in rows[0]["warnings"] and "black-and-white" in rows[0]["warnings"]
