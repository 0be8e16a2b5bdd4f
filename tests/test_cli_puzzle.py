"""``python -m engine stats`` / ``convert`` (engine/cli/puzzle.py), run as a user would: a
subprocess with this interpreter, from the repository root."""
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, shared_path
from engine.model.clues import puzzle_from_grid
from engine.files.puzzlefile import load_puzzle, save_puzzle
from test_clues import hand_grid_3d


def run(*args):
    r = subprocess.run([sys.executable, "-m", "engine", *map(str, args)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr, r.stderr
    return r


@pytest.fixture
def blob(tmp_path):
    p = puzzle_from_grid(hand_grid_3d(), name="blob")
    path = tmp_path / "blob.json"
    save_puzzle(p, path)
    return path


def test_stats_text(blob):
    r = run("stats", blob)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["Puzzle", "Size", "Cells", "Lines"]
    assert lines[2].split() == ["blob", "5×2×2", "20", "24", "0", "4", "(0)", "18", "(1-3)", "1", "(4)", "1", "(3)"]


def test_stats_json_keys_exactly(blob):
    r = run("stats", blob, "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert list(s) == ["shape", "cells", "lines", "hidden", "empty", "plain", "circle", "square"]
    for k in ("empty", "plain", "circle", "square"):
        assert list(s[k]) == ["count", "min", "max"]
    assert s["square"] == {"count": 1, "min": 3, "max": 3}
    assert s["shape"] == [5, 2, 2] and s["lines"] == 24


def test_stats_json_2d_and_several(tmp_path, blob):
    flat = tmp_path / "flat.nin"
    save_puzzle(puzzle_from_grid(np.eye(3, dtype=bool)), flat)
    s = json.loads(run("stats", flat, "--json").stdout)
    assert list(s) == ["shape", "cells", "lines", "hidden", "empty", "filled", "blocks"]
    both = json.loads(run("stats", flat, blob, "--json").stdout)
    assert [x["shape"] for x in both] == [[3, 3], [5, 2, 2]]


def test_convert_non_json_nin_round_trip(tmp_path):
    src = shared_path("puzzles2d", "mikix-nonogram-db", "db", "webpbn", "1.non")
    j, n = tmp_path / "dancer.json", tmp_path / "dancer.nin"
    r = run("convert", src, j)
    assert r.returncode == 0, r.stderr
    d = json.loads(j.read_text(encoding="utf-8"))
    assert d["name"] == "Dancer" and d["shape"] == [5, 10] and d["rows"][1] == [2, 1]
    assert d["solution"] == "01100011010010101110101001010000110010100101111000"
    assert run("convert", j, n).returncode == 0
    assert n.read_text().splitlines()[:3] == ["5 10", "2", "2 1"]
    a, b = load_puzzle(src), load_puzzle(n)
    assert a.shape == b.shape and a.clues() == b.clues()
    # ... and back to .non keeps the clues and the goal, through JSON.
    assert run("convert", j, tmp_path / "again.non").returncode == 0
    c = load_puzzle(tmp_path / "again.non")
    assert c.clues() == a.clues() and np.array_equal(c.solution, a.solution) and c.name == "Dancer"


def test_convert_picks_from_a_batch(tmp_path):
    src = shared_path("puzzles2d", "taai-tcga-icga", "question", "taai2011.txt.gz")
    out = tmp_path / "p7.json"
    r = run("convert", f"{src}#7", out)
    assert r.returncode == 0, r.stderr
    assert load_puzzle(out).name == "taai2011#7"
    r = run("convert", src, tmp_path / "all.json")
    assert r.returncode == 2 and "#N" in r.stderr and not (tmp_path / "all.json").exists()


@pytest.mark.parametrize("case", ["3d-to-non", "missing", "bad-json", "bad-ext", "no-args", "bad-option"])
def test_bad_input_exit_2_with_message(tmp_path, blob, case):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nonogram", "version": 1, "shape": [2, 2], "rows": [[1], [3]], "columns": [[1], [1]]}')
    args, expect = {
        "3d-to-non": (("convert", blob, tmp_path / "out.non"), "2D puzzles only"),
        "missing": (("stats", tmp_path / "nope.json"), "no such file"),
        "bad-json": (("stats", bad), "row 2: clue [3] needs 3 cells"),
        "bad-ext": (("convert", blob, tmp_path / "out.xls"), "cannot write extension"),
        "no-args": (("convert", blob), "required"),
        "bad-option": (("stats", blob, "--frobnicate"), "unrecognized arguments"),
    }[case]
    r = run(*args)
    assert r.returncode == 2
    assert expect in r.stderr
    assert r.stdout == ""
    if case == "bad-json":
        assert str(bad) in r.stderr


def test_main_returns_codes_in_process(blob, capsys):
    from engine.cli import puzzle as cli_puzzle
    assert cli_puzzle.main(["stats", str(blob), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == 20
    assert cli_puzzle.main(["stats", str(blob) + ".missing"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert cli_puzzle.main(["stats", "--help"]) == 0
