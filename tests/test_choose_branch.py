"""The search's branching rule (``plainkind.choose_branch``, a numba kernel) against a plain
numpy reference written from its docstring, for every mode (the search's ``BRANCH_MODES``,
``FIRST_BRANCH_MODES`` and the experimental ones), with and without noise: random states and
probe outcome counts, cells no clue covers, cells without outcomes, and ties. The restarts'
Luby sequence against its recursive definition."""
import numpy as np
import pytest

import engine.solve.search as search
from engine.kinds.plain.plainkind import choose_branch, noise_unit
from engine.model.cells import EMPTY, FILLED, UNKNOWN


def noise_reference(c, salt):
    """The noise hash in Python's unbounded integers, every product reduced to 32 bits."""
    m = (1 << 32) - 1
    h = (c * 0x9E3779B1 + salt * 0x85EBCA77 + 0x165667B1) & m
    h ^= h >> 15
    h = (h * 0x2C1B3C6D) & m
    h ^= h >> 12
    h = (h * 0x297A2D39) & m
    h ^= h >> 15
    return h / 2.0 ** 32


def choose_reference(state, cnt, cell_start, mode, noise=0.0, salt=0):
    """The rule: among unknown cells with both probe outcomes (counts n0 for empty, n1 for
    filled), the highest score (times 1 + noise * the cell's noise unit), the first such cell on
    a tie; its first value by the mode. No such cell: an unknown cell no clue covers, else the
    first unknown cell, filled first."""
    n0 = cnt[0::2].astype(np.float64)
    n1 = cnt[1::2].astype(np.float64)
    unknown = state == UNKNOWN
    scored = unknown & (n0 >= 0) & (n1 >= 0)
    if not scored.any():
        uncovered = unknown & (cell_start[1:] == cell_start[:-1])
        if uncovered.any():
            return int(np.flatnonzero(uncovered)[0]), FILLED
        return int(np.flatnonzero(unknown)[0]), FILLED
    if mode in (0, 1):
        score = n0 * n1 + 1e-6 * (n0 + n1)
    elif mode in (2, 4, 5):
        score = np.minimum(n0, n1) + 1.85 * np.log(1.0 + np.abs(n0 - n1))
    else:
        score = n0 + n1
    if noise > 0:
        score = score * (1.0 + noise * np.array([noise_reference(c, salt) for c in range(len(state))]))
    c = int(np.argmax(np.where(scored, score, -np.inf)))
    if mode == 1:
        first = FILLED if n1[c] < n0[c] else EMPTY
    elif mode == 4:
        first = EMPTY
    elif mode == 5:
        first = FILLED
    else:
        first = FILLED if n1[c] >= n0[c] else EMPTY
    return c, first


def random_case(rng, n):
    state = rng.choice(np.array([EMPTY, FILLED, UNKNOWN, UNKNOWN], np.int8), n)
    cnt = rng.integers(-1, 12, 2 * n).astype(np.int32)  # small counts: many ties
    cnt[rng.random(2 * n) < 0.2] = -1
    per_cell = rng.integers(0, 3, n)  # 0: a cell no clue covers
    cell_start = np.concatenate([[0], np.cumsum(per_cell)]).astype(np.int64)
    return state, cnt, cell_start


@pytest.mark.parametrize("noise", [0.0, 0.5])
@pytest.mark.parametrize("mode", sorted({0, 1, 2, 3, 4, 5, *search.BRANCH_MODES, *search.FIRST_BRANCH_MODES}))
def test_choose_branch_matches_reference(mode, noise):
    rng = np.random.default_rng(100 + mode)
    kinds = {"scored": 0, "fallback": 0}
    for _ in range(400):
        state, cnt, cell_start = random_case(rng, int(rng.integers(1, 30)))
        if not (state == UNKNOWN).any():
            continue
        salt = int(rng.integers(0, 1 << 31))
        got = choose_branch(state, cnt, cell_start, mode, noise, salt)
        want = choose_reference(state, cnt, cell_start, mode, noise, salt)
        assert (int(got[0]), int(got[1])) == want, (state, cnt, cell_start)
        n0, n1 = cnt[0::2], cnt[1::2]
        kinds["scored" if ((state == UNKNOWN) & (n0 >= 0) & (n1 >= 0)).any() else "fallback"] += 1
    assert min(kinds.values()) >= 10, kinds


def test_modes_differ():
    """The modes are different rules: on one case each picks another cell or value."""
    state = np.full(3, UNKNOWN, np.int8)
    cnt = np.array([10, 10, 3, 40, 45, 0], np.int32)  # (n0, n1) per cell
    cell_start = np.arange(4, dtype=np.int64)
    picks = {m: tuple(int(x) for x in choose_branch(state, cnt, cell_start, m)) for m in range(6)}
    # n0*n1: 100, 120, 0; min + 1.85 log(1 + |n0 - n1|): 10, 9.73, 7.08; n0 + n1: 20, 43, 45
    assert picks == {0: (1, FILLED), 1: (1, EMPTY), 2: (0, FILLED), 3: (2, EMPTY), 4: (0, EMPTY), 5: (0, FILLED)}


def test_noise_changes_choices_and_repeats():
    """The noise units spread over [0, 1) and differ by cell and salt; with noise, close scores
    change places from one salt to the next, and the same salt gives the same choice."""
    units = np.array([[noise_unit(c, s) for c in range(200)] for s in range(50)])
    assert units.min() >= 0.0 and units.max() < 1.0
    assert 0.45 < units.mean() < 0.55 and np.histogram(units, bins=10, range=(0, 1))[0].min() > 800
    state = np.full(40, UNKNOWN, np.int8)
    cnt = np.full(80, 20, np.int32)
    cnt[1::2] = 20 + np.arange(40) % 3  # scores within a few per cent of each other
    cell_start = np.arange(41, dtype=np.int64)
    picks = {int(choose_branch(state, cnt, cell_start, 4, 0.5, salt)[0]) for salt in range(30)}
    assert len(picks) >= 10, picks
    assert {int(choose_branch(state, cnt, cell_start, 4, 0.0, salt)[0]) for salt in range(30)} == {2}
    assert choose_branch(state, cnt, cell_start, 4, 0.5, 7) == choose_branch(state, cnt, cell_start, 4, 0.5, 7)


def luby_reference(i):
    """Luby, Sinclair and Zuckerman's definition, 1-indexed: t(i) = 2^(k-1) when i = 2^k - 1,
    else t(i - 2^(k-1) + 1) for 2^(k-1) <= i < 2^k - 1."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    if i == (1 << k) - 1:
        return 1 << (k - 1)
    return luby_reference(i - (1 << (k - 1)) + 1)


def test_luby_sequence():
    assert [search.luby(i) for i in range(15)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    assert all(search.luby(i) == luby_reference(i + 1) for i in range(3000))
