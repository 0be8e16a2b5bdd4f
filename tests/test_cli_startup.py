"""The CLI's start-up (engine/cli/startup.py): the interpreter's teardown skipped with the
output kept, and a solve loading the kernels of its puzzle's kind only, and of a plain puzzle
line solving settles those of line solving only (the collector held off meanwhile:
test_gcpause.py)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import startup

ROOT = Path(__file__).resolve().parent.parent
COLOUR = ROOT / "docs" / "examples" / "toadstool-colour.json"


def test_exit_now_keeps_the_output_and_the_code(tmp_path):
    code = ("import sys\nfrom engine.cli import startup\nsys.stdout.write('partial line, no newline')\n"
            "sys.stderr.write('to stderr')\nstartup.exit_now(3)\nprint('never')\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 3 and r.stdout == "partial line, no newline" and r.stderr == "to stderr"


def test_python_m_engine_returns_the_commands_status_and_output(tmp_path):
    puzzle = tmp_path / "plus.non"
    puzzle.write_text("width 3\nheight 3\nrows\n1\n3\n1\ncolumns\n1\n3\n1\n")
    r = subprocess.run([sys.executable, "-m", "engine", "solve", str(puzzle), "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and json.loads(r.stdout)["solution"] == "010111010"
    r = subprocess.run([sys.executable, "-m", "engine", "solve", str(tmp_path / "missing.non")], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "error" in r.stderr


def test_a_colour_solve_loads_the_colour_kernels_only():
    code = ("import json, sys\nfrom engine.__main__ import main\nfrom engine import gate\n"
            f"rc = main(['solve', {str(COLOUR)!r}, '--json'])\n"
            "sys.stderr.write(json.dumps(gate.done_parts()))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["verdict"] == "unique"
    assert json.loads(r.stderr.strip().splitlines()[-1]) == ["colour"]


LOADED_PARTS = ("import json, sys\nfrom engine.__main__ import main\nfrom engine import gate\n"
                "rc = main(['solve', sys.argv[1], '--json'])\n"
                "sys.stderr.write(json.dumps(gate.done_parts()))\n")


@pytest.mark.parametrize("rows, cols, difficulty, parts", [
    # the plus sign: line solving settles it, so probing's and the search's kernels stay unloaded
    ("1\n3\n1", "1\n3\n1", "line", ["grade", "lines"]),
    # two solutions on the diagonals: line solving settles nothing, the rest loads on the way
    ("1\n1", "1\n1", "search", ["grade", "lines", "solve"]),
])
def test_a_plain_solve_loads_the_search_kernels_only_when_line_solving_stalls(tmp_path, rows, cols, difficulty,
                                                                              parts):
    puzzle = tmp_path / "p.non"
    n = rows.count("\n") + 1
    puzzle.write_text(f"width {n}\nheight {n}\nrows\n{rows}\ncolumns\n{cols}\n")
    r = subprocess.run([sys.executable, "-c", LOADED_PARTS, str(puzzle)], cwd=ROOT, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["difficulty"] == difficulty
    assert json.loads(r.stderr.strip().splitlines()[-1]) == parts
