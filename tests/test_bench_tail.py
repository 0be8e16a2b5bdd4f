"""benchmarks/tail.py: which puzzles of a tournament run it takes, and what it measures on them.

The selection is checked exactly on a made-up run; the measurement on a real tournament puzzle
that the search hands to CaDiCaL (skipped without ../shared), against CP-SAT's own verdict.
"""
from __future__ import annotations

import json

import pytest

from benchmarks import tail
from test_solve_random import tournament_puzzles


def _entry(name, ours, nonosolve=None):
    solve = {"ours": {"rows": [{"i": i, "cpu": c} for i, c in ours.items()]}}
    if nonosolve is not None:
        solve["nonosolve"] = {"rows": [{"i": i, "cpu": c} for i, c in nonosolve.items()]}
    return {"set": name, "solve": solve}


def test_slow_puzzles_takes_every_puzzle_some_solver_was_slow_on():
    doc = {"sets": [
        _entry("a", {0: 0.1, 1: 2.5, 2: None, 3: 2.0}, {0: 3.0, 1: 0.2, 2: 2.1, 3: 1.0}),
        _entry("b", {5: 9.0, 4: 0.1}),  # a set without nonosolve's rows
    ]}
    assert tail.slow_puzzles(doc, 2.0) == [
        ("a", 0, {"ours": 0.1, "nonosolve": 3.0}),
        ("a", 1, {"ours": 2.5, "nonosolve": 0.2}),
        ("a", 2, {"ours": None, "nonosolve": 2.1}),  # ours without a time: nonosolve's decides
        ("b", 5, {"ours": 9.0, "nonosolve": None}),
    ]  # 2.0 itself is not over; set order, then index order
    assert tail.slow_puzzles(doc, 2.0, solvers=("ours",)) == [
        ("a", 1, {"ours": 2.5}), ("b", 5, {"ours": 9.0})]
    assert tail.slow_puzzles(doc, 10.0) == []


def test_measures_a_handed_over_puzzle_against_cpsat():
    """A taai2011 puzzle that reaches CaDiCaL in the stored full run: ours finds a solution and
    counts CaDiCaL's conflicts, its uniqueness verdict is CP-SAT's, CP-SAT solves it per seed,
    and the row and the table line say so."""
    puzzles = tournament_puzzles(240)  # the run's first hand-overs of taai2011: #130, #231
    if not puzzles:
        pytest.skip("../shared is absent: no tournament puzzles")
    cpsat = pytest.importorskip("benchmarks.cpsat")
    if not cpsat.HAVE_ORTOOLS:
        pytest.skip("ortools is not installed (pip install -r benchmarks/requirements.txt)")
    doc = tail.load_json(tail.RUN)
    rows = next(e for e in doc["sets"] if e["set"] == "taai2011")["solve"]["ours"]["rows"]
    i = next(r["i"] for r in rows if r["i"] < len(puzzles) and r["sat"] and r["cpu"] < 0.5)
    out = tail.measure([("taai2011", i, {"ours": 1.0})], seeds=[0, 1], limit=30, use_cpsat=True)
    assert len(out) == 1
    row = out[0]
    assert row["ours"]["verdict"] == "solved"
    assert row["ours"]["sat_conflicts"] >= 0  # it reached CaDiCaL (-1: it never did)
    assert row["unique"]["verdict"] in ("unique", "multiple")
    assert row["unique"]["verdict"] == cpsat.cpsat_solve(puzzles[i], time_limit=60).verdict
    assert [c["status"] for c in row["cpsat"]] == ["OPTIMAL", "OPTIMAL"]
    assert all(c["conflicts"] >= 0 and c["cpu"] > 0 for c in row["cpsat"])
    line = tail.row_line(row)
    assert line.startswith(f"| taai2011 #{i} | 1.00 |") and row["unique"]["verdict"] in line
    assert line.count("|") == 7  # puzzle, the run, ours, verdict, two seeds
    json.dumps(row)  # the row is written as JSON


def test_main_writes_the_rows(tmp_path, capsys, monkeypatch):
    """Over a bound no puzzle reaches: no row, and the file says which run and bound."""
    # (its thread pinning would stay in this process's environment, for later tests' children)
    monkeypatch.setattr(tail, "single_thread_env", lambda: None)
    out = tmp_path / "tail.json"
    tail.main(["--over", "1000", "--no-cpsat", "--out", str(out)])
    doc = json.loads(out.read_text())
    assert doc["rows"] == [] and doc["over"] == 1000 and doc["seeds"] == []
    assert doc["results"].endswith("tournament_all.json.gz")
    assert "0 puzzles over 1000.0 s" in capsys.readouterr().out
