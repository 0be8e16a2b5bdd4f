"""The search's branching rule (``plainkind.choose_branch``, a numba kernel) against a plain
numpy reference written from its docstring, for every mode (the search's ``BRANCH_MODES`` and
the experimental ones): random states and probe outcome counts, cells no clue covers, cells
without outcomes, and ties."""
import numpy as np
import pytest

import engine.solve.search as search
from engine.kinds.plain.plainkind import choose_branch
from engine.model.cells import EMPTY, FILLED, UNKNOWN


def choose_reference(state, cnt, cell_start, mode):
    """The rule: among unknown cells with both probe outcomes (counts n0 for empty, n1 for
    filled), the highest score, the first such cell on a tie; its first value by the mode. No
    such cell: an unknown cell no clue covers, else the first unknown cell, filled first."""
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
    elif mode in (2, 4):
        score = np.minimum(n0, n1) + 1.85 * np.log(1.0 + np.abs(n0 - n1))
    else:
        score = n0 + n1
    c = int(np.argmax(np.where(scored, score, -np.inf)))
    if mode == 1:
        first = FILLED if n1[c] < n0[c] else EMPTY
    elif mode == 4:
        first = EMPTY
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


@pytest.mark.parametrize("mode", sorted({0, 1, 2, 3, 4, *search.BRANCH_MODES}))
def test_choose_branch_matches_reference(mode):
    rng = np.random.default_rng(100 + mode)
    kinds = {"scored": 0, "fallback": 0}
    for _ in range(400):
        state, cnt, cell_start = random_case(rng, int(rng.integers(1, 30)))
        if not (state == UNKNOWN).any():
            continue
        got = choose_branch(state, cnt, cell_start, mode)
        want = choose_reference(state, cnt, cell_start, mode)
        assert (int(got[0]), int(got[1])) == want, (state, cnt, cell_start)
        n0, n1 = cnt[0::2], cnt[1::2]
        kinds["scored" if ((state == UNKNOWN) & (n0 >= 0) & (n1 >= 0)).any() else "fallback"] += 1
    assert min(kinds.values()) >= 10, kinds


def test_modes_differ():
    """The modes are different rules: on one case each picks another cell or value."""
    state = np.full(3, UNKNOWN, np.int8)
    cnt = np.array([10, 10, 3, 40, 45, 0], np.int32)  # (n0, n1) per cell
    cell_start = np.arange(4, dtype=np.int64)
    picks = {m: tuple(int(x) for x in choose_branch(state, cnt, cell_start, m)) for m in range(5)}
    # n0*n1: 100, 120, 0; min + 1.85 log(1 + |n0 - n1|): 10, 9.73, 7.08; n0 + n1: 20, 43, 45
    assert picks == {0: (1, FILLED), 1: (1, EMPTY), 2: (0, FILLED), 3: (2, EMPTY), 4: (0, EMPTY)}
