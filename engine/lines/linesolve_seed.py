"""The seed study's linesolver (sections 3.2-3.5, Figures 15, 18, 21, 23; Appendix C), kept faithful.

It is the reference the complete DP solver (``linesolve.py``) is compared with: it only looks at
each block's leftmost and rightmost possible positions, so it may deduce less than the DP, and
it expands circle/square clues into every composition of their total, so its cost grows as
``2**(total-1)`` for squares. Algorithm, per 2D block list:

1. early-outs (Fig. 21): no blocks -> every cell empty; ``n + sum(b) == L + 1`` (a complete
   description) -> the one packed arrangement;
2. leftmost solution: each block at its first valid position, then the unassigned-solid repair of
   Fig. 23 (take the rightmost uncovered known solid, slide the nearest block on its left over it,
   or failing that the next block further left, and push the blocks after it right); the
   rightmost solution is the leftmost one of the reversed line;
3. solids where a block's leftmost and rightmost placements overlap (Fig. 15), empties in cells
   outside every block's range (Fig. 18).

3D clues (section 3.5): a plain clue is a one-block list (0: the empty line); circle/square
clues are solved once per composition into 2 / 3+ parts; the deductions of the expansions that
have a placement are united cell by cell (a cell is known only when every valid expansion knows
it), and the line is contradictory when no expansion has a placement.

Soundness, which the seed argues only informally: every block position the placement writes is a
lower bound of that block's position in every fix of the line (a block only moves right when no
fix can have it further left), so when no known solid is left uncovered the placement is the
true leftmost fix, and a block with no valid position left proves the line has no fix. Known
cells are respected: deductions are intersected with the input state, and an early-out that
disagrees with a known cell reports a contradiction instead of overwriting it.

``seed_solve_line(state, kind, clue, out, budget) -> (status, expansions)``; unless the status is
``SEED_OK``, ``out`` is a copy of ``state``. ``expansions`` is the
seed's count of 2D clues (Table 1's closed form, 1 for a block list or plain clue); when it
exceeds ``budget`` the line is not attempted and the status is ``SEED_TOO_LARGE`` (the seed
itself ran out of memory on a square 27; see section 4). Compositions too long for the line are
counted but not solved: the seed discards them as having no placement, so the result is the same.
"""
from __future__ import annotations

import numpy as np

from .compositions import first_composition, n_compositions, next_composition, parts_range
from ..jit import njit
from ..model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE

SEED_OK = 0
SEED_CONTRADICTION = 1
SEED_TOO_LARGE = 2
SEED_STATUS_NAMES = {SEED_OK: "ok", SEED_CONTRADICTION: "contradiction", SEED_TOO_LARGE: "too large"}

# Between the largest expansion the seed study's solvers survived (square 24: 8,388,584) and the
# one that exhausted its memory (square 27: 67,108,837), so the reference fails where the seed did.
SEED_DEFAULT_BUDGET = 10_000_000

_EMPTY = np.int8(1)
_FILLED = np.int8(2)


@njit
def _valid(state, p, b):
    """A block of length b at p: inside the line, over no known empty, no known solid touching it."""
    n = state.shape[0]
    if p < 0 or p + b > n:
        return False
    for c in range(p, p + b):
        if state[c] == _EMPTY:
            return False
    if p > 0 and state[p - 1] == _FILLED:
        return False
    if p + b < n and state[p + b] == _FILLED:
        return False
    return True


@njit
def _first_valid(state, b, lo):
    for p in range(lo, state.shape[0] - b + 1):
        if _valid(state, p, b):
            return p
    return -1


@njit
def _push(state, blocks, nb, pos, k, minpos):
    """Blocks k.. keep their place if it still clears minpos, else move to the next valid one."""
    for i in range(k, nb):
        if pos[i] >= minpos:
            return True
        p = _first_valid(state, blocks[i], minpos)
        if p < 0:
            return False
        pos[i] = p
        minpos = p + blocks[i] + 1
    return True


@njit
def _rightmost_unassigned_solid(state, blocks, nb, pos):
    j = nb - 1
    for c in range(state.shape[0] - 1, -1, -1):
        while j >= 0 and pos[j] > c:
            j -= 1
        if state[c] == _FILLED and (j < 0 or pos[j] + blocks[j] <= c):
            return c
    return -1


@njit
def _leftmost(state, blocks, nb, pos):
    """The leftmost fix's block starts into pos[:nb]; False when the line has no fix."""
    # Simple block placement.
    minpos = 0
    for i in range(nb):
        p = _first_valid(state, blocks[i], minpos)
        if p < 0:
            return False
        pos[i] = p
        minpos = p + blocks[i] + 1
    # Fig. 23: resolve unassigned solids, rightmost first. Every move is strictly to the right,
    # so this ends.
    while True:
        s = _rightmost_unassigned_solid(state, blocks, nb, pos)
        if s < 0:
            return True
        j = nb - 1
        while j >= 0 and pos[j] > s:
            j -= 1
        moved = False
        for i in range(j, -1, -1):
            b = blocks[i]
            # Right edge on the solid first, then shift right while the block still covers it.
            for p in range(s - b + 1, s + 1):
                if _valid(state, p, b):
                    pos[i] = p
                    if not _push(state, blocks, nb, pos, i + 1, p + b + 1):
                        return False
                    moved = True
                    break
            if moved:
                break
        if not moved:
            return False


@njit
def _solve_blocks_seed(state, blocks, nb, out, lpos, rpos, rstate, rblocks):
    """Fig. 21 for one block list (blocks[:nb], all > 0). Work arrays are the caller's.

    Writes the deductions intersected with state into out; False = contradiction.
    """
    n = state.shape[0]
    total = 0
    for i in range(nb):
        total += blocks[i]
    if nb == 0 or total + nb == n + 1:
        # Early-outs: the whole line is known without any placement.
        for c in range(n):
            out[c] = _EMPTY
        c = 0
        for i in range(nb):
            for _ in range(blocks[i]):
                out[c] = _FILLED
                c += 1
            c += 1
        for c in range(n):
            out[c] &= state[c]
            if out[c] == 0:
                return False
        return True
    if total + nb > n + 1:
        return False
    if not _leftmost(state, blocks, nb, lpos):
        return False
    for c in range(n):
        rstate[c] = state[n - 1 - c]
    for i in range(nb):
        rblocks[i] = blocks[nb - 1 - i]
    if not _leftmost(rstate, rblocks, nb, rpos):
        return False
    for c in range(n):
        out[c] = state[c]
    # Fig. 15: solids where a block's two extreme placements overlap.
    for i in range(nb):
        b = blocks[i]
        lo = lpos[i]
        ro = n - rpos[nb - 1 - i] - b  # start of block i in the rightmost solution
        for c in range(ro, lo + b):
            out[c] &= _FILLED
    # Fig. 18: empties outside every block's range. Ranges are ordered, so one sweep suffices.
    i = 0
    for c in range(n):
        while i < nb and n - rpos[nb - 1 - i] - 1 < c:  # c is past block i's range
            i += 1
        if i >= nb or c < lpos[i]:
            out[c] &= _EMPTY
    for c in range(n):
        if out[c] == 0:
            return False
    return True


@njit(shared=True, _nrt=True)
def seed_solve_line(state, kind, clue, out, budget):
    """The seed linesolver on one line. Returns (status, expansions); see the module docstring."""
    n = state.shape[0]
    for c in range(n):
        out[c] = state[c]
        if state[c] == 0:
            return SEED_CONTRADICTION, np.int64(0)
    if kind == KIND_NONE:
        return SEED_OK, np.int64(0)
    m = max(clue.shape[0], n + 1)
    lpos = np.empty(m, np.int64)
    rpos = np.empty(m, np.int64)
    rstate = np.empty(n, np.int8)
    rblocks = np.empty(m, np.int64)
    blocks = np.empty(m, np.int64)
    if kind == KIND_BLOCKS:
        nb = 0
        for v in clue:
            if v > 0:  # a written "0" means no blocks
                blocks[nb] = v
                nb += 1
        if _solve_blocks_seed(state, blocks, nb, out, lpos, rpos, rstate, rblocks):
            return SEED_OK, np.int64(1)
        for c in range(n):
            out[c] = state[c]
        return SEED_CONTRADICTION, np.int64(1)
    total = clue[0]
    if kind == KIND_PLAIN:
        nb = 0
        if total > 0:
            blocks[0] = total
            nb = 1
        if _solve_blocks_seed(state, blocks, nb, out, lpos, rpos, rstate, rblocks):
            return SEED_OK, np.int64(1)
        for c in range(n):
            out[c] = state[c]
        return SEED_CONTRADICTION, np.int64(1)
    if kind != KIND_CIRCLE and kind != KIND_SQUARE:
        return SEED_CONTRADICTION, np.int64(0)
    count = n_compositions(total, kind)
    if count > budget:
        return SEED_TOO_LARGE, count
    lo, hi = parts_range(total, kind)
    hi = min(hi, n - total + 1)  # more parts than this cannot fit: no placement, discarded
    tmp = np.empty(n, np.int8)
    for c in range(n):
        out[c] = 0
    found = False
    for parts in range(lo, hi + 1):
        if not first_composition(total, parts, blocks):
            continue
        while True:
            if _solve_blocks_seed(state, blocks, parts, tmp, lpos, rpos, rstate, rblocks):
                found = True
                for c in range(n):
                    out[c] |= tmp[c]
            if not next_composition(blocks, parts):
                break
    if not found:
        for c in range(n):
            out[c] = state[c]
        return SEED_CONTRADICTION, count
    return SEED_OK, count


def seed_solve(state, kind, clue, budget=SEED_DEFAULT_BUDGET):
    """Python convenience: (status, expansions, new state) for a clue given as a list or total."""
    st = np.ascontiguousarray(state, dtype=np.int8)
    data = np.atleast_1d(np.asarray(clue, dtype=np.int64)) if clue is not None else np.zeros(0, np.int64)
    if kind != KIND_BLOCKS and kind != KIND_NONE and data.size == 0:
        data = np.zeros(1, np.int64)
    out = np.empty_like(st)
    status, expansions = seed_solve_line(st, np.int64(kind), data, out, np.int64(budget))
    return int(status), int(expansions), out


def seed_extremes(state, blocks):
    """(leftmost starts, rightmost starts) of the blocks as the seed builds them (section 3.4),
    or None when the line has no fix. For tests and for explaining a deduction."""
    st = np.ascontiguousarray(state, dtype=np.int8)
    b = np.array([v for v in blocks if v > 0], dtype=np.int64)
    n, nb = st.shape[0], b.shape[0]
    if nb == 0:
        return None if (st == _FILLED).any() else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    if int(b.sum()) + nb > n + 1:
        return None
    lpos = np.empty(nb, np.int64)
    rpos = np.empty(nb, np.int64)
    if not _leftmost(st, b, nb, lpos) or not _leftmost(st[::-1].copy(), b[::-1].copy(), nb, rpos):
        return None
    return lpos, (n - rpos[::-1] - b)
