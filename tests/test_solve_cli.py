"""``python -m engine solve``: JSON fields, encodings, exit codes, --compare."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.__main__ import main
from engine.voxel.blobs import blob_puzzle
from engine.model.clues import puzzle_from_grid
from engine.files.puzzlefile import save_puzzle


def run(capsys, *args):
    rc = main(["solve", *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_3d_unique(tmp_path, capsys):
    p = blob_puzzle((5, 4, 3), seed=3, fill=0.5)
    f = tmp_path / "blob.json"
    save_puzzle(p, f)
    rc, out, err = run(capsys, f, "--json")
    assert rc == 0, err
    d = json.loads(out)
    for key in ("verdict", "difficulty", "linesolvers", "bad_guesses", "bad_guess_rate",
                "known_fraction", "time_s", "solution", "solutions", "differing_cells"):
        assert key in d
    assert d["verdict"] == "unique"
    # x-major (x*Y+y)*Z+z, the same encoding as the puzzle file
    assert d["solution"] == "".join("1" if v else "0" for v in p.solution.reshape(5, 4, 3).ravel())


def test_json_2d_multiple(tmp_path, capsys):
    g = np.array([[1, 0], [0, 1]], dtype=bool)  # the classic two-solution 2x2
    f = tmp_path / "two.nin"
    save_puzzle(puzzle_from_grid(g), f)
    rc, out, _ = run(capsys, f, "--json")
    d = json.loads(out)
    assert rc == 0 and d["verdict"] == "multiple" and d["solution"] is None
    assert sorted(d["solutions"]) == ["0110", "1001"]
    assert d["differing_cells"] == [0, 1, 2, 3]


@pytest.mark.parametrize("solver", ["brute", "hierarchical", "heuristic", "learned", "oracle", "full"])
def test_each_solver_plain_output(tmp_path, capsys, solver):
    g = np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]], dtype=bool)
    f = tmp_path / "p.non"
    save_puzzle(puzzle_from_grid(g), f)
    rc, out, _ = run(capsys, f, "--solver", solver, "--prepass", "--linesolver", "seed")
    assert rc == 0
    assert "verdict: unique" in out and "linesolvers:" in out
    assert "##." in out  # the grid is drawn


def test_compare(capsys, shared):
    f = shared("puzzles2d", "webpbn-survey", "webpbn-00023.nin")  # Edge: nothing deducible
    rc, out, _ = run(capsys, f, "--compare", "--linesolver", "seed")
    assert rc == 0
    for label in ("Brute", "Hier", "Hier+Pre", "Heur", "Heur+Pre", "Learned", "Learned+Pre"):
        assert label in out
    # the seed's Table 8 row for Edge: 2100 (100%) then 21 (100%) four times; the learned
    # scheduler also tries each line once
    assert "2100 (100%)" in out and out.count(" 21 (100%)") == 6
    rc, out, _ = run(capsys, f, "--compare", "--counting", "seed")
    assert rc == 0 and "2100 (100%)" in out and out.count(" 21 (100%)") == 6


def test_bad_input(tmp_path, capsys):
    rc, _, err = run(capsys, tmp_path / "missing.nin")
    assert rc == 2 and "missing.nin" in err
    bad = tmp_path / "bad.nin"
    bad.write_text("3 3\n1\n")
    rc, _, err = run(capsys, bad)
    assert rc == 2 and "bad.nin" in err


def test_real_command_line(tmp_path):
    p = blob_puzzle((4, 4, 4), seed=1)
    f = tmp_path / "b.json"
    save_puzzle(p, f)
    root = Path(__file__).resolve().parent.parent
    res = subprocess.run([sys.executable, "-m", "engine", "solve", str(f), "--time-limit", "30", "--json"],
                         capture_output=True, text=True, cwd=str(root))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["verdict"] == "unique"


def test_bad_file_reported_before_the_kernels_load(tmp_path):
    """A missing or malformed file is answered without importing numba (the CLI's error path
    took ~0.45 s of kernel loading before it read the file)."""
    bad = tmp_path / "bad.nin"
    bad.write_text("3 3\n1\n")
    code = ("import sys; from engine.__main__ import main; "
            f"codes = [main(['solve', {str(tmp_path / 'missing.nin')!r}]), main(['solve', {str(bad)!r}])]; "
            "print(codes, 'numba' in sys.modules)")
    root = Path(__file__).resolve().parent.parent
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(root))
    assert res.stdout.strip() == "[2, 2] False", res.stdout + res.stderr
    assert "missing.nin" in res.stderr and "bad.nin" in res.stderr


def test_no_known_flag(tmp_path, capsys):
    """A puzzle file's solution orders the search unless --no-known; the verdict is the same."""
    g = np.random.default_rng(4).random((5, 5, 5)) < 0.4
    p = puzzle_from_grid(g)
    f = tmp_path / "noise.json"
    save_puzzle(p, f)
    found = {}
    for flags in ((), ("--no-known",)):
        rc, out, err = run(capsys, f, "--json", *flags)
        assert rc == 0, err
        d = json.loads(out)
        found[flags] = d
        assert d["options"]["use_known"] == (not flags)
        assert d["stats"]["known_solution"] == (not flags)
    assert found[()]["verdict"] == found[("--no-known",)]["verdict"] != "unknown"
