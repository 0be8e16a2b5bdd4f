"""The O(n) count-clue solver (engine/lines/linecount.py) against brute force and the array DP.

Its intervals of filled counts are exact only because the sets they stand for have no holes;
these tests are what backs that claim: every state of every short line, and random long lines.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model.clues import blocks_of
from engine.lines.linecount import count_intervals
from engine.lines.linesolve import solve_count, solve_count_dp
from engine.model.puzzle import KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE
from linebrute import EMPTY, FILLED, UNKNOWN, brute_solve, reference_solve

KINDS = (KIND_PLAIN, KIND_CIRCLE, KIND_SQUARE)


def intervals(state, total, kind):
    out = np.full(len(state), -1, np.int8)
    ok = bool(count_intervals(np.ascontiguousarray(state, np.int8), np.int64(total), np.int64(kind), out))
    return out if ok else None


def array_dp(state, total, kind):
    out = np.full(len(state), -1, np.int8)
    ok = bool(solve_count_dp(np.ascontiguousarray(state, np.int8), np.int64(total), np.int64(kind), out))
    return out if ok else None


def same(a, b):
    return (a is None and b is None) or (a is not None and b is not None and a.tolist() == b.tolist())


@pytest.mark.parametrize("length", range(1, 7))
def test_every_state_against_brute_force(length):
    checked = 0
    for cells in itertools.product((EMPTY, FILLED, UNKNOWN), repeat=length):
        state = np.array(cells, np.int8)
        for kind in KINDS:
            for total in range(0, length + 1):
                exp = brute_solve(state, kind, total)
                got = intervals(state, total, kind)
                assert same(got, exp), f"{cells} kind={kind} total={total}: {got} != {exp}"
                checked += 1
    assert checked == 3 ** length * 3 * (length + 1)


@pytest.mark.parametrize("length", [7, 8])
def test_every_state_against_the_dp(length):
    """Lines too long to brute-force every state of quickly: the DP (itself tested against brute
    force) is the reference. Totals out of range must be contradictions."""
    for cells in itertools.product((EMPTY, FILLED, UNKNOWN), repeat=length):
        state = np.array(cells, np.int8)
        for kind in KINDS:
            for total in range(-1, length + 2):
                assert same(intervals(state, total, kind), array_dp(state, total, kind)), (cells, kind, total)


def partial_fix(rng, length, fill, hide):
    """A random filling of the line and a state showing part of it (always consistent)."""
    line = rng.random(length) < rng.uniform(*fill)
    state = np.where(line, FILLED, EMPTY).astype(np.int8)
    state[rng.random(length) < rng.uniform(*hide)] = UNKNOWN
    return line, state


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_lines_against_the_dp_and_reference(data):
    length = data.draw(st.integers(1, 120), label="length")
    kind = data.draw(st.sampled_from(KINDS), label="kind")
    cells = data.draw(st.lists(st.sampled_from([EMPTY, FILLED, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]),
                               min_size=length, max_size=length), label="state")
    total = data.draw(st.integers(0, length), label="total")
    state = np.array(cells, np.int8)
    got = intervals(state, total, kind)
    assert same(got, array_dp(state, total, kind))
    if length <= 40:
        assert same(got, reference_solve(state, kind, total))


def test_consistent_long_lines_against_the_dp():
    """Lines cut from fixes (so there is always a solution) of up to 3000 cells, where the
    interval solver, the dispatcher and the DP must agree; each deduces something."""
    rng = np.random.default_rng(4)
    deduced = 0
    for t in range(60):
        length = int(rng.integers(65, 3000 if t < 6 else 400))
        # a few unknown cells (the total then decides some) or many (the block counts may)
        line, state = partial_fix(rng, length, (0.1, 0.9), (0.001, 0.02) if t % 2 else (0.3, 0.95))
        nb = len(blocks_of(line))
        kind = KIND_PLAIN if nb <= 1 else KIND_CIRCLE if nb == 2 else KIND_SQUARE
        total = int(line.sum())
        got = intervals(state, total, kind)
        assert got is not None and same(got, array_dp(state, total, kind))
        out = np.zeros(length, np.int8)
        assert solve_count(state, np.int64(total), np.int64(kind), out) and out.tolist() == got.tolist()
        assert ((got & np.where(line, FILLED, EMPTY)) != 0).all(), "the line's own fix must survive"
        deduced += int(np.count_nonzero((got != UNKNOWN) & (state == UNKNOWN)))
    assert deduced > 0


def test_two_block_lines_with_few_unknowns():
    """Circles with both blocks nearly known: the cells around them are decided exactly."""
    state = np.array([EMPTY] * 3 + [UNKNOWN] + [FILLED] * 4 + [UNKNOWN] * 2 + [FILLED] * 3 + [UNKNOWN] * 3, np.int8)
    got = intervals(state, 8, KIND_CIRCLE)
    assert same(got, array_dp(state, 8, KIND_CIRCLE))
    assert same(intervals(state, 8, KIND_SQUARE), array_dp(state, 8, KIND_SQUARE))
    assert intervals(state, 6, KIND_CIRCLE) is None  # 4 + 3 filled cells are known already


def test_a_line_of_twenty_thousand_cells():
    """Memory and time stay linear: the array DP would need 2 x 1.6 GB here."""
    n = 20000
    line = np.zeros(n, bool)
    line[100:5100] = True
    line[9000:14000] = True
    state = np.where(line, FILLED, EMPTY).astype(np.int8)
    state[50:200] = UNKNOWN  # the first block's start is open
    state[5050:5150] = UNKNOWN  # and its end
    got = intervals(state, 10000, KIND_CIRCLE)
    assert got is not None
    # two blocks of 10000 cells: the first is 5000 long, starting anywhere in 50..150
    assert got[:50].tolist() == [EMPTY] * 50
    assert got[50:150].tolist() == [UNKNOWN] * 100 and got[150:5050].tolist() == [FILLED] * 4900
    assert got[5050:5150].tolist() == [UNKNOWN] * 100 and got[5150:9000].tolist() == [EMPTY] * 3850
    # as a square, the open cells may also split the first block: nothing new is decided
    got = intervals(state, 10000, KIND_SQUARE)
    assert got is not None and got.tolist() == state.tolist()
