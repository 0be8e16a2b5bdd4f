"""Colour design: unique, solvable at the logic level asked, locally minimal, deterministic by seed."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
from engine.design.hiding import DesignError, design
from engine.model.colourpuzzle import CKIND_NONE, colour_puzzle_from_grid, with_hidden
from engine.solve.driver import solve
from engine.files.puzzlefile import load_puzzle, save_puzzle


def _blob(shape, k, seed):
    rng = np.random.default_rng(seed)
    idx = np.indices(shape).reshape(len(shape), -1).T
    centre = (np.array(shape) - 1) / 2
    inside = (((idx - centre) / (np.array(shape) / 2)) ** 2).sum(1) < 0.9
    lab = 1 + (idx[:, 0] * k // shape[0] + rng.integers(0, 2, len(idx))) % k
    return np.where(inside, lab, 0).reshape(shape)


@pytest.mark.parametrize("shape,k,logic", [((6, 6, 6), 2, "line"), ((5, 6, 5), 3, "line"),
                                           ((10, 8), 3, "line"), ((5, 5, 5), 3, "probe")])
def test_design_is_unique_logic_solvable_and_locally_minimal(shape, k, logic):
    p = colour_puzzle_from_grid(_blob(shape, k, 1), k)
    d = design(p, logic=logic, seed=3)
    q = d.puzzle
    assert d.hidden_count > 0 and d.locally_minimal
    r = solve(q, use_known=False)
    assert r.verdict == "unique" and np.array_equal(r.solution, p.colour_solution)
    assert r.difficulty == "line" if logic == "line" else r.difficulty in ("line", "probe")
    # locally minimal: hiding any one more clue loses logic solvability (checked on a sample)
    shown = np.flatnonzero(q.clue_kind != CKIND_NONE)
    for li in np.random.default_rng(0).choice(shown, size=min(8, len(shown)), replace=False):
        r2 = solve(with_hidden(q, [li]), use_known=False, probing=(logic == "probe"))
        assert r2.difficulty not in ("line", "probe")
    # deterministic by seed
    assert design(p, logic=logic, seed=3).puzzle.clues() == q.clues()


def test_design_needs_a_solution_and_a_solvable_start():
    p = colour_puzzle_from_grid(_blob((4, 4, 4), 2, 0), 2)
    p.colour_solution = None  # unique: the designer solves it first
    assert design(p).puzzle.colour_solution is not None
    q = colour_puzzle_from_grid(np.array([[1, 0], [0, 1]]), 1)
    q.colour_solution = None  # two solutions and no solution given
    with pytest.raises(DesignError, match="verdict is multiple"):
        design(q)
    # two 2x2 checkerboards of one colour: not solvable by line logic with all clues
    g = np.array([[1, 0], [0, 1]])
    with pytest.raises(DesignError, match="not solvable by line logic"):
        design(colour_puzzle_from_grid(g, 1))


def test_design_cli(tmp_path):
    p = colour_puzzle_from_grid(_blob((6, 5, 6), 2, 2), 2, name="blob")
    save_puzzle(p, tmp_path / "in.json")
    out = tmp_path / "out.json"
    r = subprocess.run([sys.executable, "-m", "engine", "design", str(tmp_path / "in.json"), "-o", str(out),
                        "--seed", "5", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    q = load_puzzle(out)
    assert d["hidden_count"] == int(np.count_nonzero(q.clue_kind == CKIND_NONE)) > 0
    assert solve(q, use_known=False).difficulty == "line"
