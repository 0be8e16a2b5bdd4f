"""Compositions of a 3D clue's total: the 2D block lists a circle or square clue expands into.

The seed study (section 3.5, Table 1, Appendix C) solves a circle clue of ``n`` by trying every
composition of ``n`` into two parts (``n - 1`` of them) and a square clue by every composition
into three or more parts (``2**(n-1) - n``). A square 27 already has 67,108,837 of them, so the
kernels here step from one composition to the next in place instead of building the list.

- ``count_compositions(total, kind)``: the closed-form count (Python int, exact).
- ``n_compositions(total, kind)``: the same in a kernel, saturating at ``COUNT_CAP``.
- ``parts_range(total, kind)``: the (min, max) number of parts for the kind.
- ``first_composition(total, parts, comp)`` / ``next_composition(comp, parts)``: iterate the
  compositions with a fixed number of parts in lexicographic order.
- ``compositions(total, kind)``: Python list of tuples, for tests and small totals.
- ``seed_find_compositions(total, triple_or_more)``: Appendix C's Figure A6 as written, in the
  seed's order, so Table 1 can be checked against the original procedure too.
"""
from __future__ import annotations

import numpy as np

from ..jit import njit
from ..model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE

# Counts beyond this cannot be budgeted anyway; saturating keeps the kernel in int64.
COUNT_CAP = np.int64(1) << np.int64(62)


def count_compositions(total: int, kind: int) -> int:
    """How many 2D block lists a 3D clue expands into (Table 1), before any line-length limit."""
    total = int(total)
    if kind in (KIND_PLAIN, KIND_BLOCKS):
        return 1
    if kind == KIND_CIRCLE:
        return max(total - 1, 0)
    if kind == KIND_SQUARE:
        return max(2 ** (total - 1) - total, 0) if total >= 1 else 0
    raise ValueError(f"no compositions for clue kind {kind}")


@njit
def n_compositions(total, kind):
    if kind == KIND_CIRCLE:
        return np.int64(max(total - 1, 0))
    if kind == KIND_SQUARE:
        if total < 3:
            return np.int64(0)
        if total - 1 >= 62:
            return COUNT_CAP
        return (np.int64(1) << np.int64(total - 1)) - np.int64(total)
    return np.int64(1)


@njit
def parts_range(total, kind):
    """(lo, hi) parts; lo > hi when the kind admits no composition of this total."""
    if kind == KIND_CIRCLE:
        return np.int64(2), np.int64(min(2, total))
    if kind == KIND_SQUARE:
        return np.int64(3), np.int64(total)
    if total == 0:
        return np.int64(0), np.int64(0)
    return np.int64(1), np.int64(1)


@njit
def first_composition(total, parts, comp):
    """Lexicographically first composition (1, ..., 1, total-parts+1) into comp[:parts]."""
    if parts < 1 or parts > total:
        return False
    for i in range(parts - 1):
        comp[i] = 1
    comp[parts - 1] = total - (parts - 1)
    return True


@njit
def next_composition(comp, parts):
    """Advance comp[:parts] to the next composition of the same total, in place; False at the end."""
    suffix = comp[parts - 1]
    for i in range(parts - 2, -1, -1):
        # Positions i+1..parts-1 need at least one cell each; any surplus can move to position i.
        if suffix > parts - 1 - i:
            comp[i] += 1
            for j in range(i + 1, parts - 1):
                comp[j] = 1
            comp[parts - 1] = suffix - 1 - (parts - 2 - i)
            return True
        suffix += comp[i]
    return False


def compositions(total: int, kind: int) -> list:
    """Every block list the clue expands into, as tuples, fewest parts first."""
    lo, hi = parts_range(int(total), int(kind))
    out = []
    if lo == 0:
        return [()]
    comp = np.zeros(max(int(total), 1), dtype=np.int64)
    for parts in range(int(lo), int(hi) + 1):
        if not first_composition(int(total), parts, comp):
            continue
        out.append(tuple(int(v) for v in comp[:parts]))
        while next_composition(comp, parts):
            out.append(tuple(int(v) for v in comp[:parts]))
    return out


def seed_find_compositions(total: int, triple_or_more: bool) -> list:
    """Figure A6 of the seed study, kept literal (including its recursion) as a cross-check."""
    all_comps: list = []
    if triple_or_more:
        if total < 3:  # Table 1 has '-' here; the pseudocode would emit the all-1s list anyway
            return all_comps
        comp = [1] * total
        all_comps.append(tuple(comp))
        _seed_find_sets(all_comps, comp, 0)
    else:
        left, right = total - 1, 1
        while left > 0:
            all_comps.append((left, right))
            left -= 1
            right += 1
    return all_comps


def _seed_find_sets(all_sets: list, comp: list, start_index: int) -> None:
    if comp[-1] != 1 or len(comp) <= 3:
        return
    comp = comp[:-1]
    for i in range(start_index, len(comp)):
        comp[i] += 1
        all_sets.append(tuple(comp))
        _seed_find_sets(all_sets, comp, i)
        comp[i] -= 1
