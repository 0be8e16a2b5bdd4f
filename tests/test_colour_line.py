"""The colour line solvers against brute-force enumeration of every filling of short lines.

2D ordered coloured blocks and 3D per-colour counts with marks, k = 2..4, random cell states
(some values ruled out, some cells fixed), clues of a random filling or of another one (so some
lines have no solution). ``relax_3d`` must never remove a value some solution uses.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from colourbrute import brute_line
from engine.lines.colourline import relax_3d, rmax_of, solve_line
from engine.model.colourpuzzle import clue_of_line


@st.composite
def line_case(draw, is_3d):
    k = draw(st.integers(2, 4))
    max_len = {2: 8, 3: 7, 4: 6}[k]
    L = draw(st.integers(1, max_len))
    values = draw(st.lists(st.integers(0, k), min_size=L, max_size=L))
    if draw(st.booleans()):
        other = draw(st.lists(st.integers(0, k), min_size=L, max_size=L))
        clue = clue_of_line(other, k, is_3d)
    else:
        clue = clue_of_line(values, k, is_3d)
    full = (1 << (k + 1)) - 1
    masks = []
    for v in values:
        kind = draw(st.integers(0, 5))
        if kind == 0:
            masks.append(1 << v)                          # known (to the real value)
        elif kind == 1:
            masks.append(full & ~(1 << draw(st.integers(0, k))))  # one value ruled out
        else:
            masks.append(full)
    return k, clue, np.array(masks, dtype=np.int64)


@settings(max_examples=300, deadline=None)
@given(line_case(False))
def test_2d_colour_line_matches_enumeration(case):
    k, clue, masks = case
    assert np.array_equal(solve_line(masks, clue, k, False), brute_line(masks, clue, k, False))


@settings(max_examples=300, deadline=None)
@given(line_case(True))
def test_3d_colour_line_matches_enumeration(case):
    k, clue, masks = case
    assert np.array_equal(solve_line(masks, clue, k, True), brute_line(masks, clue, k, True))


@settings(max_examples=200, deadline=None)
@given(line_case(True))
def test_relax_keeps_every_solution_value(case):
    k, clue, masks = case
    exact = brute_line(masks, clue, k, True)
    cnt, rmax = rmax_of(clue)
    relaxed = relax_3d(masks, k, cnt, rmax)
    if exact.any():
        assert np.array_equal(relaxed & exact, exact)
        assert np.array_equal(relaxed & ~masks, np.zeros_like(masks))


def test_other_colours_separate_runs():
    # colour 1 circled: two runs of 1 split by a colour-2 cell is allowed (Round 2's rule)
    k = 2
    clue = [(2, 1), (1, 0)]  # two cells of colour 1 in two runs; one cell of colour 2
    masks = np.full(3, 0b111, dtype=np.int64)
    out = solve_line(masks, clue, k, True)
    assert list(out) == [0b010, 0b100, 0b010]  # 1 2 1 is the only filling


def test_2d_same_colour_needs_gap_other_colour_touches():
    full = np.full(3, 0b111, dtype=np.int64)
    assert list(solve_line(full, [(1, 1), (1, 1)], 2, False)) == [0b010, 0b001, 0b010]
    assert list(solve_line(full[:2], [(1, 1), (1, 2)], 2, False)) == [0b010, 0b100]
    assert not solve_line(full[:2], [(1, 1), (1, 1)], 2, False).any()


@settings(max_examples=200, deadline=None)
@given(line_case(False))
def test_2d_dense_and_sparse_automata_agree(case):
    from engine.lines.colourline import dfa_2d, solve_automaton, solve_dfa_dense
    k, clue, masks = case
    tab = dfa_2d(clue, k)
    none = np.zeros(1, dtype=np.int64)
    assert np.array_equal(solve_dfa_dense(masks, tab), solve_automaton(masks, 1, tab, k, none, none))


def test_3d_dense_and_sparse_product_solvers_agree(monkeypatch):
    """The product solver over dense marks (``_solve_3d_dense``, every product space up to
    ``DENSE_STATES``) and over sorted sparse states (larger spaces) give the same answers and
    spend the same budget steps, on random 3D lines of 2-4 colours up to 24 cells (beyond
    enumeration's reach), with random knowledge."""
    import engine.lines.colourline as cl
    rng = np.random.default_rng(8)
    no_tab = np.zeros((1, 1), dtype=np.int64)
    sparse = getattr(cl.solve_automaton_limited, "py_func", cl.solve_automaton_limited)
    monkeypatch.setattr(cl, "DENSE_STATES", 0)  # the plain-Python function: the sparse states
    for trial in range(60):
        k = 2 + trial % 3
        n = int(rng.integers(4, 25))
        line = np.where(rng.random(n) < 0.7, rng.integers(1, k + 1, n), 0)
        cnt, rmax = rmax_of(clue_of_line(line if trial % 4 else rng.permutation(line), k, True))
        full = (1 << (k + 1)) - 1
        masks = np.where(rng.random(n) < 0.3, np.int64(1) << line, full).astype(np.int64)
        masks[rng.random(n) < 0.2] &= ~np.int64(2)
        masks[masks == 0] = 1
        w_dense, w_sparse = np.array([-1, 0], np.int64), np.array([-1, 0], np.int64)
        dense = cl.solve_automaton_limited(masks, 2, no_tab, k, cnt, rmax, w_dense)
        assert np.array_equal(dense, sparse(masks, 2, no_tab, k, cnt, rmax, w_sparse)), trial
        assert w_dense[0] == w_sparse[0] == -1
        budget = int(rng.integers(1, 400))
        w_dense, w_sparse = np.array([budget, 0], np.int64), np.array([budget, 0], np.int64)
        a = cl.solve_automaton_limited(masks, 2, no_tab, k, cnt, rmax, w_dense)
        b = sparse(masks, 2, no_tab, k, cnt, rmax, w_sparse)
        assert np.array_equal(a, b) and list(w_dense) == list(w_sparse), trial


def _relax_to_fixpoint(masks, k, cnt, rmax):
    """The plain reference: ``relax_3d`` passes until one changes nothing."""
    cur = np.asarray(masks, dtype=np.int64)
    while True:
        nxt = relax_3d(cur, k, cnt, rmax)
        if nxt[0] == 0 or np.array_equal(nxt, cur):
            return nxt
        cur = nxt


def test_relax_fixpoint_matches_repeated_passes():
    """``relax_3d_fixpoint`` (the colours in turn, stopping after k - 1 or k quiet ones) gives
    what whole ``relax_3d`` passes repeated to their fixpoint give, contradictions included, on
    random 3D lines of 1-4 colours up to 40 cells with random knowledge (fails if it stops early)."""
    from engine.lines.colourline import relax_3d_fixpoint
    rng = np.random.default_rng(11)
    moved = 0
    for trial in range(400):
        k = 1 + trial % 4
        n = int(rng.integers(1, 41))
        line = np.where(rng.random(n) < 0.6, rng.integers(1, k + 1, n), 0)
        src = line if trial % 3 else rng.permutation(line)
        cnt, rmax = rmax_of(clue_of_line(src, k, True))
        full = (1 << (k + 1)) - 1
        masks = np.where(rng.random(n) < 0.25, np.int64(1) << line, full).astype(np.int64)
        masks[rng.random(n) < 0.25] &= ~np.int64(1 << int(rng.integers(0, k + 1)))
        masks[masks == 0] = 1
        want = _relax_to_fixpoint(masks, k, cnt, rmax)
        got = relax_3d_fixpoint(masks, k, cnt, rmax)
        assert np.array_equal(got, want), (trial, masks, cnt, rmax)
        one = relax_3d(masks, k, cnt, rmax)
        moved += int(one[0] != 0 and not np.array_equal(one, want))
    assert moved > 0  # cases where one pass is not the fixpoint


def test_one_block_matches_the_count_solver():
    """``one_block`` (a plain 3D count in O(L)) gives ``solve_count``'s answer for KIND_PLAIN,
    contradictions included, on random black-and-white lines up to 40 cells with random
    knowledge (fails on any cell differing)."""
    from engine.lines.colourline import one_block
    from engine.lines.linesolve import solve_count
    from engine.model.cells import EMPTY, FILLED
    from engine.model.puzzle import KIND_PLAIN
    rng = np.random.default_rng(5)
    sat = 0
    for trial in range(2000):
        n = int(rng.integers(1, 41))
        total = int(rng.integers(1, n + 2))
        view = np.full(n, EMPTY | FILLED, np.int8)
        view[rng.random(n) < rng.random() * 0.5] = EMPTY
        view[rng.random(n) < rng.random() * 0.5] = FILLED
        a, b = np.zeros(n, np.int8), np.zeros(n, np.int8)
        ok_a = one_block(view, total, a)
        ok_b = solve_count(view, total, KIND_PLAIN, b)
        assert ok_a == ok_b, (trial, view, total)
        if ok_b:
            sat += 1
            assert np.array_equal(a, b), (trial, view, total)
    assert sat > 200


def test_table_steps_match_step3():
    """The product solvers' table steps (``_decode`` + ``_tstep`` through ``_digit_tables``) give
    ``_step3``'s next state (with its dead-run cut) and ``_need3``'s cells to place, for every
    state and value of random 3D clues of 1-3 colours (fails on any one differing)."""
    import engine.lines.colourline as cl
    rng = np.random.default_rng(3)
    for trial in range(30):
        k = 1 + trial % 3
        cnt = rng.integers(0, 5, k).astype(np.int64)
        rmax = np.where(cnt > 0, rng.integers(1, 4, k), 0).astype(np.int64)
        base = (cnt + 1) * (rmax + 1)
        mult = np.ones(k, np.int64)
        for c in range(1, k):
            mult[c] = mult[c - 1] * base[c - 1]
        cont, start, dead = cl._digit_tables(k, cnt, base)
        step = (k + 1) * mult
        dg = np.zeros(k, np.int64)
        cut = 0
        for q in range(int(mult[-1] * base[-1]) * (k + 1)):
            need = cl._decode(q, k, cnt, base, mult, dg)
            assert need == cl._need3(q, k, cnt, base, mult)
            last = q % (k + 1)
            closing = bool(last > 0 and dead[last - 1, dg[last - 1]])
            for s in range(k + 1):
                want = cl._step3(q, s, k, cnt, base, mult)
                assert cl._tstep(q, s, last, closing, dg, cont, start, step) == want, (trial, q, s)
                cut += int(want < 0 and s != last and closing)
        assert trial < 5 or cut > 0 or cnt.sum() == 0
