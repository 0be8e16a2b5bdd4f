"""The engine without compiled kernels: interpreted by numba (NUMBA_DISABLE_JIT=1), and as plain
Python with numba treated as missing (NONOGRAM_NO_NUMBA=1, engine/jit.py's switch).

Both run in a subprocess, since the switches are read at import time. The script checks the DP
and seed line solvers against brute force on a few lines and builds puzzles from grids.
"""
import json

import pytest
from conftest import run_python

SCRIPT = r"""
import json, sys
import numpy as np
from engine import jit
from engine.model.cells import parse_state, format_state
from engine.model.clues import puzzle_from_grid
from engine.lines.linesolve import solve_line
from engine.lines.linesolve_seed import SEED_CONTRADICTION, SEED_OK, SEED_TOO_LARGE, seed_solve
from engine.model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE, Clue3D
from linebrute import brute_solve

LINES = [
    (KIND_BLOCKS, [3], "?????"),
    (KIND_BLOCKS, [2, 1], "??#???#?"),
    (KIND_BLOCKS, [1, 1], "?#??#?"),
    (KIND_BLOCKS, [1, 1], "#???#?#"),
    (KIND_BLOCKS, [3, 1], "???????x###x??"),
    (KIND_BLOCKS, [], "??x?"),
    (KIND_PLAIN, 4, "??#?????"),
    (KIND_PLAIN, 0, "?#??"),
    (KIND_CIRCLE, 5, "#??x?????"),
    (KIND_CIRCLE, 7, "????????"),
    (KIND_SQUARE, 5, "??#???x??"),
    (KIND_SQUARE, 6, "#?#?#??"),
    (KIND_NONE, None, "?#x?"),
]
checked = 0
failures = []
for kind, clue, line in LINES:
    state = parse_state(line)
    exact = brute_solve(state, kind, clue)
    data = (np.zeros(0, np.int64) if kind == KIND_NONE else
            np.array(clue, np.int64) if kind == KIND_BLOCKS else np.array([clue], np.int64))
    out = np.empty_like(state)
    ok = bool(solve_line(state, np.int64(kind), data, out))
    if ok != (exact is not None) or (ok and out.tolist() != exact.tolist()):
        failures.append(f"dp {kind} {clue} {line}: {ok} {format_state(out)}")
    status, expansions, sout = seed_solve(state, kind, clue)
    if exact is None:
        if status != SEED_CONTRADICTION:
            failures.append(f"seed {kind} {clue} {line}: status {status}")
    elif status != SEED_OK or ((sout & exact) != exact).any() or ((sout | state) != state).any():
        failures.append(f"seed {kind} {clue} {line}: {status} {format_state(sout)}")
    checked += 1

status, expansions, _ = seed_solve(np.full(36, 3, np.int8), KIND_SQUARE, 27)
if status != SEED_TOO_LARGE or expansions != 2 ** 26 - 27:
    failures.append(f"budget: {status} {expansions}")

grid2 = np.array([[1, 1, 0, 1], [0, 1, 1, 1], [1, 0, 0, 0]], bool)
p2 = puzzle_from_grid(grid2, name="small")
if p2.clues() != [[2, 1], [3], [1], [1, 1], [2], [1], [2]] or p2.n_cells != 12:
    failures.append(f"2D clues {p2.clues()}")
grid3 = np.zeros((2, 3, 4), bool)
grid3[0, 1, [0, 2, 3]] = True
grid3[1, :, 1] = True
p3 = puzzle_from_grid(grid3)
z_line = next(i for i in range(p3.n_lines) if sorted(p3.line(i).tolist()) == [4, 5, 6, 7])
if p3.clue(z_line) != Clue3D(3, "circle"):
    failures.append(f"3D clue {p3.clue(z_line)}")
for puzzle in (p2, p3):
    for i in range(puzzle.n_lines):
        cells = puzzle.line(i)
        state = np.full(len(cells), 3, np.int8)
        out = np.empty_like(state)
        ok = solve_line(state, np.int64(puzzle.clue_kind[i]), puzzle.clue_numbers(i), out)
        truth = np.where(puzzle.solution[cells], 2, 1).astype(np.int8)
        if not ok or ((out & truth) != truth).any():
            failures.append(f"{puzzle.name} line {i}: {format_state(out)} misses the solution")
        checked += 1

# puzzle design (maskprop kernels, the score, the final check by solve) runs without JIT too
from engine.design.hiding import design
from engine.design.session import DesignSession
g = np.zeros((3, 4, 3), bool)
g[0, :, :] = True
g[1, 1:3, 1] = True
g[2, 0, :] = True
r = design(g, seed=1)
c = DesignSession(g).check(r.hidden)
if not (r.locally_minimal and r.hidden_count > 0 and r.score is not None and c.verdict == "unique"):
    failures.append(f"design: {r.to_dict()}")
checked += 1

print(json.dumps({"have_numba": jit.HAVE_NUMBA, "numba_imported": "numba" in sys.modules,
                  "checked": checked, "failures": failures}))
"""


def run_engine_script(env_extra):
    proc = run_python(SCRIPT, env_extra=env_extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("env", [{"NUMBA_DISABLE_JIT": "1"}, {"NONOGRAM_NO_NUMBA": "1"}],
                         ids=["numba-disable-jit", "no-numba"])
def test_engine_without_jit(env):
    result = run_engine_script(env)
    assert result["failures"] == []
    assert result["checked"] > 30
    assert result["have_numba"] is False
    if "NONOGRAM_NO_NUMBA" in env:
        # Nothing in this part of the engine may import numba behind the shim's back.
        assert result["numba_imported"] is False
