"""One design and solve pipeline for every puzzle kind (issue #38).

- A plain puzzle and the same puzzle as a 1-colour puzzle (same cells, same clues, ``clue_colours``
  of one entry) get the same answers: the solver's verdict, logic level, score, band, line solves
  and idle (bad-guess) rate, and the designer's hidden set, score and band, for every method and
  seed, on random and on designed puzzles, 2D and 3D.
- The pass by halves (``search.pass_by_halves``) hides exactly the lines trials in order, each a
  run from nothing known, would hide, for the plain and the colour kind, with line logic and with
  probing; a stop leaves the hides so far with every other line shown (a solving mask); the
  ``alone`` screen finds exactly the lines hideable by themselves.
- The kinds' trails take a propagation back exactly (``mark`` / ``undo``).
- The informed start shows only lines that were needed when shown, and solves.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.design.hiding import METHODS, design
from engine.design.search import Search, pass_by_halves
from engine.design.session import DesignSession
from engine.model.clues import puzzle_from_grid
from engine.model.colourpuzzle import as_plain, colour_puzzle_from_grid, with_hidden as colour_hidden
from engine.model.puzzle import with_hidden
from engine.kinds.colour.colourkind import ColourKind
from engine.solve.driver import solve
from engine.solve.kinds import kind_for
from engine.kinds.plain.maskprop import RUN_SOLVED
from engine.kinds.plain.plainkind import PlainKind


def _grid(shape, seed, fill=0.6):
    return np.random.default_rng(seed).random(shape) < fill


def _pair(shape, seed, hide=0.0):
    """A plain puzzle and the same as a 1-colour puzzle (some clues hidden in both)."""
    g = _grid(shape, seed)
    plain = puzzle_from_grid(g)
    one = colour_puzzle_from_grid(g.astype(int), 1)
    if hide:
        h = np.random.default_rng(seed + 1).random(plain.n_lines) < hide
        plain, one = with_hidden(plain, h), colour_hidden(one, h)
    return plain, one


def test_a_one_colour_puzzle_is_its_plain_puzzle():
    for seed, shape in enumerate([(4, 5, 3), (6, 7), (3, 3, 3)]):
        plain, one = _pair(shape, seed, 0.3)
        back = as_plain(one)
        for name in ("shape", "n_cells"):
            assert getattr(back, name) == getattr(plain, name)
        for name in ("line_start", "line_cells", "clue_kind", "clue_start", "clue_data", "solution"):
            assert np.array_equal(getattr(back, name), getattr(plain, name)), name
        assert isinstance(kind_for(one), PlainKind)


@pytest.mark.parametrize("shape,hide", [((4, 5, 3), 0.0), ((4, 5, 3), 0.5), ((7, 6), 0.0), ((8, 7), 0.45),
                                        ((5, 5, 5), 0.6)])
def test_solve_answers_a_one_colour_puzzle_as_the_plain_one(shape, hide):
    for seed in range(6):
        plain, one = _pair(shape, 10 * seed + len(shape), hide)
        for kw in ({}, {"use_known": False}, {"want": 1}):
            a = solve(plain, grade=True, **kw)
            b = solve(one, grade=True, **kw)
            assert (a.verdict, a.difficulty, a.score, a.band) == (b.verdict, b.difficulty, b.score, b.band)
            assert (a.linesolvers, a.bad_guesses, a.bad_guess_rate) == (b.linesolvers, b.bad_guesses, b.bad_guess_rate)
            assert np.array_equal(a.state, b.state) and a.known_fraction == b.known_fraction
            assert [s.astype(int).tolist() for s in a.solutions] == [s.astype(int).tolist() for s in b.solutions]
            assert b.kind == "colour" and b.is_colour and a.kind == "plain"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("logic", ["line", "probe"])
def test_design_answers_a_one_colour_puzzle_as_the_plain_one(method, logic):
    """Same hidden set, score, band and flags for each method and seed, on random grids and on
    designed puzzles (start="current": a designed puzzle designed further)."""
    kw = {"anneal_moves": 40} if method == "anneal" else {}
    for seed, shape in enumerate([(4, 5, 4), (7, 8), (5, 4, 5)]):
        plain, one = _pair(shape, 100 + seed)
        if solve(plain).difficulty not in (("line",) if logic == "line" else ("line", "probe")):
            continue
        a = design(plain, logic=logic, method=method, seed=seed, **kw)
        b = design(one, logic=logic, method=method, seed=seed, **kw)
        assert np.array_equal(a.hidden, b.hidden), (shape, seed)
        for name in ("score", "band", "hidden_count", "locally_minimal", "in_target", "message"):
            assert getattr(a, name) == getattr(b, name), name
        assert b.is_colour and b.kind == "colour" and b.colours == 1 and not a.is_colour
        assert b.to_dict().keys() == a.to_dict().keys()
        # the designed puzzles, solved: the same answers
        ra, rb = solve(a.puzzle, grade=True), solve(b.puzzle, grade=True)
        assert (ra.verdict, ra.score, ra.linesolvers, ra.bad_guess_rate) == \
            (rb.verdict, rb.score, rb.linesolvers, rb.bad_guess_rate)
        # a designed puzzle designed again from its current clues (another seed)
        a2 = design(a.puzzle, logic=logic, method=method, seed=seed + 7, start="current", **kw)
        b2 = design(b.puzzle, logic=logic, method=method, seed=seed + 7, start="current", **kw)
        assert np.array_equal(a2.hidden, b2.hidden) and a2.score == b2.score


def test_the_live_check_answers_a_one_colour_puzzle_as_the_plain_one():
    plain, one = _pair((5, 4, 5), 3)
    sa, sb = DesignSession(plain), DesignSession(one)
    rng = np.random.default_rng(0)
    for _ in range(6):
        h = rng.random(plain.n_lines) < 0.5
        for logic in ("line", "probe"):
            ca, cb = sa.check(h, logic), sb.check(h, logic)
            assert ca.to_dict() | {"time_s": 0} == cb.to_dict() | {"time_s": 0}
            assert sa.suggest(h, logic) == sb.suggest(h, logic)
            ra, rb = sa.repair(h, logic), sb.repair(h, logic)
            assert ra.lines == rb.lines and np.array_equal(ra.hidden, rb.hidden)


def _kinds(seed):
    """(name, full puzzle, kind object) of small line-solvable puzzles of each kind."""
    g = _grid((5, 4, 4) if seed % 2 else (7, 8), 300 + seed, 0.65)
    rng = np.random.default_rng(seed)
    k = 2 + seed % 2
    colours = np.where(g, rng.integers(1, k + 1, g.shape), 0)
    for name, p in (("plain", puzzle_from_grid(g)), ("colour", colour_puzzle_from_grid(colours, k))):
        K = kind_for(p)
        if K.run() == RUN_SOLVED:
            yield name, p, K


def _trials_in_order(K, order, probe):
    """What one pass of trials in order, each a run from nothing known, hides."""
    hidden = []
    for li in order:
        K.shown[li] = 0
        if K.run(probe=probe) == RUN_SOLVED:
            hidden.append(int(li))
        else:
            K.shown[li] = 1
    return hidden


@pytest.mark.parametrize("logic", ["line", "probe"])
def test_the_pass_by_halves_decides_as_trials_in_order(logic):
    checked = set()
    for seed in range(10):
        for name, p, K in _kinds(seed):
            order = np.random.default_rng(seed).permutation(np.flatnonzero(K.clued))
            K.shown[:] = K.clued
            want = _trials_in_order(K, order, logic == "probe")
            want_mask = K.shown.copy()
            K.shown[:] = K.clued
            got, unsure = pass_by_halves(K, order, logic == "probe", lambda done: None, {})
            assert got == want and unsure == 0 and np.array_equal(K.shown, want_mask), (name, seed)
            checked.add(name)
            # stopped halfway: the hides so far, every other line shown, a solving mask
            K.shown[:] = K.clued
            calls = []

            def stop(done):
                calls.append(done)
                if done >= 0.5:
                    raise KeyboardInterrupt
            with pytest.raises(KeyboardInterrupt):
                pass_by_halves(K, order, logic == "probe", stop, {})
            assert set(np.flatnonzero(K.shown == 0).tolist()) <= set(want) and calls == sorted(calls)
            assert K.run(probe=logic == "probe") == RUN_SOLVED
            # alone: the lines whose hiding by itself still solves
            K.shown[:] = K.clued
            alone = []
            for li in order:
                K.shown[li] = 0
                if K.run(probe=logic == "probe") == RUN_SOLVED:
                    alone.append(int(li))
                K.shown[li] = 1
            got, _ = pass_by_halves(K, order, logic == "probe", lambda done: None, {}, alone=True)
            assert got == alone and np.array_equal(K.shown, K.clued.astype(np.uint8))
    assert checked == {"plain", "colour"}


def test_the_trail_takes_a_propagation_back():
    for seed in range(6):
        for name, p, K in _kinds(seed):
            rng = np.random.default_rng(seed)
            K.shown[:] = K.clued & (rng.random(K.n_lines) < 0.5)
            K.reset()
            lines = np.flatnonzero(K.shown)
            K.propagate(lines[: len(lines) // 2])
            mark, und = K.mark(), K.undecided()
            before = K.undecided_cells().copy()
            K.propagate(lines[len(lines) // 2:])
            K.undo(mark)
            assert K.undecided() == und and np.array_equal(K.undecided_cells(), before), name


def test_the_informed_start_shows_lines_that_were_needed():
    for seed in range(6):
        for name, p, K in _kinds(seed):
            s = Search(K, "line", seed, None, None)
            start = s.informed_start()
            assert start is not None and s.solves(start)
            # every line shown deduced something in the start, so none is free in a run of it
            assert start.sum() < K.n_lines


@pytest.mark.parametrize("kind", [PlainKind, ColourKind])
def test_a_kind_reports_the_same_grade_as_the_solver(kind):
    for seed in range(8):
        g = _grid((5, 4, 5), 600 + seed)
        p = puzzle_from_grid(g) if kind is PlainKind else \
            colour_puzzle_from_grid(np.where(g, 1 + (np.indices(g.shape)[0] % 2), 0), 2)
        r = solve(p, grade=True)
        d = kind(p).grade(r.difficulty == "probe")
        assert (d.score, d.band) == (r.score, r.band)
