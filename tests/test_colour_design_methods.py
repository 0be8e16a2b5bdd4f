"""Colour design methods (greedy / anneal / random, issue #24): each keeps the guarantees of the
black-and-white designer on small random colour puzzles, 2D and 3D: unique (CP-SAT), solvable at
the logic level asked, locally minimal (no single further clue can go at that level), in the
band asked for, the same design for the same seed; the colour kind's propagation reaches the
same fixpoint in any order and keeps its deadline; Suggest and Repair for colour puzzles against
brute force. (The pass by halves against trials in order, for every kind: test_design_kinds.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from engine.design.hiding import METHODS, DesignError, design
from engine.design.session import DesignSession
from engine.model.colourpuzzle import CKIND_NONE, colour_puzzle_from_grid, with_hidden
from engine.kinds.colour.colourkind import ColourKind
from engine.kinds.colour.colourprop import ST_OK, build_net, decided, full_state, propagate
from engine.solve.driver import solve
from engine.kinds.plain.maskprop import RUN_SOLVED

cpsat = pytest.importorskip("benchmarks.cpsat_colour", reason="benchmarks/cpsat_colour.py not importable")


def _grid(shape, k, seed, fill=0.65):
    rng = np.random.default_rng(seed)
    return np.where(rng.random(shape) < fill, rng.integers(1, k + 1, shape), 0)


def _levels(logic):
    return ("line",) if logic == "line" else ("line", "probe")


def _solvable(p, mask, logic):
    r = solve(with_hidden(p, mask), probing=logic == "probe", use_known=False)
    return r.verdict == "unique" and r.difficulty in _levels(logic)


CASES = [((4, 5, 3), 2, "line", 3), ((7, 6), 3, "line", 4), ((4, 4, 4), 3, "probe", 8), ((6, 7), 2, "probe", 2)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape,k,logic,seed", CASES)
def test_each_method_keeps_the_guarantees(method, shape, k, logic, seed):
    p = colour_puzzle_from_grid(_grid(shape, k, seed), k)
    if not _solvable(p, np.zeros(p.n_lines, bool), logic):
        pytest.skip("this random grid needs search with every clue shown")
    kw = {"anneal_moves": 60} if method == "anneal" else {}
    d = design(p, logic=logic, seed=seed, method=method, **kw)
    mask = d.puzzle.clue_kind == CKIND_NONE
    assert d.hidden_count == int(mask.sum()) > 0 and d.method == method and d.reproducible
    # unique, by the CP-SAT reference (its own search, not told the solution)
    q = with_hidden(p, mask)
    q.colour_solution = None
    assert cpsat.cpsat_solve_colour(q, time_limit=30).verdict == "unique"
    assert _solvable(p, mask, logic)
    # locally minimal: no shown clue can go at this logic level
    assert d.locally_minimal
    for li in np.flatnonzero(~mask):
        more = mask.copy()
        more[li] = True
        assert not _solvable(p, more, logic), li
    # the same seed, the same design
    again = design(p, logic=logic, seed=seed, method=method, **kw)
    assert np.array_equal(again.puzzle.clue_kind, d.puzzle.clue_kind)


def test_greedy_and_anneal_hide_at_least_what_random_hides_on_average():
    got = {m: 0 for m in METHODS}
    for seed in range(6):
        p = colour_puzzle_from_grid(_grid((5, 5, 4), 2, 100 + seed, 0.7), 2)
        for m in METHODS:
            got[m] += design(p, seed=seed, method=m, anneal_moves=80).hidden_count
    assert got["greedy"] > got["random"] and got["anneal"] >= got["greedy"], got


def test_a_score_range_caps_the_score():
    """A design that scores above the range asked for shows clues again (the bisection along
    its hides) until it scores within it."""
    p = colour_puzzle_from_grid(_grid((6, 6, 5), 3, 21, 0.7), 3)
    free = design(p, seed=1, method="greedy")
    low = ColourKind(p).grade(False).score
    assert free.score is not None and free.score > low + 2.0
    hi = (free.score + low) / 2
    d = design(p, seed=1, method="greedy", score_range=(0.0, hi))
    mask = d.puzzle.clue_kind == CKIND_NONE
    assert d.score is not None and d.score <= hi and 0 < d.hidden_count < free.hidden_count
    assert _solvable(p, mask, "line") and d.message == ""


def test_propagation_reaches_the_same_fixpoint_in_any_order():
    """The queues' fixpoint is the lines' common fixpoint, whatever order they are taken in
    (what the pass by halves relies on): the colour kind's runs, queued in a random order, stop
    once every cell is decided, at the same state as the solver's propagation."""
    for seed in range(20):
        k = 2 + seed % 3
        shape = (4, 5, 4) if seed % 2 else (8, 7)
        p = colour_puzzle_from_grid(_grid(shape, k, 500 + seed), k)
        rng = np.random.default_rng(seed)
        hidden = rng.random(p.n_lines) < 0.5
        net = build_net(with_hidden(p, hidden))
        want = full_state(net)
        assert propagate(net, want) == ST_OK
        K = ColourKind(p)
        K.shown[:] = ~hidden & K.clued
        st = K.run(rng.random(p.n_lines))
        # the designer's runs stop once every cell is decided: the same state then
        assert (st == RUN_SOLVED) == bool(decided(want).all()), seed
        if st != RUN_SOLVED:
            assert np.array_equal(K.state, want), seed
        # and its trail takes the run back to nothing known
        K.undo(0)
        assert (K.state == K.full).all() and K.undecided() == p.n_cells


def _undecided(p, mask, logic="line"):
    return int((solve(with_hidden(p, mask), probing=logic == "probe").values < 0).sum())


@pytest.mark.parametrize("shape,k,seed", [((5, 4, 4), 2, 1), ((8, 7), 3, 2)])
def test_suggest_and_repair_on_colour_puzzles(shape, k, seed):
    p = colour_puzzle_from_grid(_grid(shape, k, 40 + seed), k)
    rng = np.random.default_rng(seed)
    broken = rng.random(p.n_lines) < 0.75
    if _undecided(p, broken) == 0 or _undecided(p, np.zeros(p.n_lines, bool)) > 0:
        pytest.skip("not a broken design of a line-solvable puzzle")
    sess = DesignSession(p)
    # Suggest: brute force over every hidden clue
    settled = {}
    for li in np.flatnonzero(broken):
        trial = broken.copy()
        trial[li] = False
        settled[int(li)] = _undecided(p, broken) - _undecided(p, trial)
    top = sess.suggest(broken, "line", k=3)
    assert top and top[0].settles == max(settled.values()) > 0
    assert all(settled[s.line] == s.settles for s in top)
    assert [s.settles for s in top] == sorted((s.settles for s in top), reverse=True)
    # Repair: solvable after, no clue of the answer can be left out, and one clue when one does it
    r = sess.repair(broken, "line")
    assert r.lines and np.array_equal(np.flatnonzero(broken & ~r.hidden), sorted(r.lines))
    assert _solvable(p, r.hidden, "line")
    for li in r.lines:
        back = r.hidden.copy()
        back[li] = True
        assert not _solvable(p, back, "line")
    if len(r.lines) > 1:
        assert not any(settled[li] == _undecided(p, broken) for li in settled)
    assert sess.repair(r.hidden, "line").lines == []
    assert sess.suggest(r.hidden, "line") == []


@pytest.mark.parametrize("method", METHODS)
def test_design_cli_takes_each_method_for_colour_puzzles(tmp_path, capsys, method):
    """``python -m engine design --method M`` on a colour puzzle file (in process): the method's
    design, where the CLI refused every method but greedy."""
    import json
    from engine.cli.design import main
    from engine.files.puzzlefile import load_puzzle, save_puzzle
    p = colour_puzzle_from_grid(_grid((4, 5, 3), 2, 3), 2)
    save_puzzle(p, str(tmp_path / "in.json"))
    out = tmp_path / "out.json"
    assert main(["design", str(tmp_path / "in.json"), "-o", str(out), "--seed", "3", "--method", method,
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    want = design(p, seed=3, method=method)
    assert d["method"] == method and d["hidden_count"] == want.hidden_count and d["kind"] == "colour"
    assert np.array_equal(load_puzzle(str(out)).clue_kind, want.puzzle.clue_kind)


def test_a_design_time_limit_holds_inside_a_propagation():
    """The colour kind's propagations take the design's deadline (as the solver's do): a design
    stopped by a tiny time limit says so and keeps a solved mask; a limit passed before the first
    run is an error that says so."""
    from engine.kinds.colour.colourprop import Deadline
    p = colour_puzzle_from_grid(_grid((6, 6, 5), 3, 33, 0.7), 3)
    K = ColourKind(p)
    K.deadline = 0.0  # long past
    with pytest.raises(Deadline):
        K.run()
    with pytest.raises(DesignError, match="time limit"):
        design(p, seed=0, time_limit=1e-9)
    free = design(p, seed=0)
    if free.hidden_count:
        mask = free.puzzle.clue_kind == CKIND_NONE
        assert _solvable(p, mask, "line")
