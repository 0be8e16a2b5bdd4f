"""Brute-force line enumeration: the ground truth the line solvers are tested against.

Shared by tests (import with ``from linebrute import ...``; tests/ is on sys.path under pytest).

- ``all_fixes(length, kind, clue) -> bool array (n_fixes, length)``: every filling of a line of
  ``length`` cells that satisfies the clue (``kind`` from engine.model.puzzle; ``clue`` a list of block
  lengths for KIND_BLOCKS, a total (int or [total]) for plain/circle/square, ignored for KIND_NONE).
  Enumerates all 2**length fillings, so keep length <= ~16.
- ``block_starts(length, blocks) -> (fixes, starts)``: also the start of every block of each fix.
- ``brute_solve(state, kind, clue) -> new state (int8) or None``: OR of the cell values over the
  fixes consistent with ``state``; None when there is none (a contradiction).
- ``reference_solve(state, kind, clue) -> new state or None``: the same answer for long lines by a
  plain-Python reachability sweep over (cell, filled count, blocks so far, last cell filled); no
  code in common with the engine, and checked against ``brute_solve`` in the tests.
- ``clues_for_length(length)``: every (kind, clue) pair that has a fix on the line, plus some that
  do not.
- ``count_solutions(puzzle, cap=2) -> (count, solutions)``: every grid of a whole puzzle of at
  most 16 cells enumerated against every clued line (the first ``cap`` solutions as bool arrays).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from engine.model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE

EMPTY, FILLED, UNKNOWN = 1, 2, 3


@lru_cache(maxsize=None)
def _patterns(length: int):
    """All fillings of the line as bools, with each one's block list and block count."""
    idx = np.arange(2 ** length, dtype=np.int64)
    pats = ((idx[:, None] >> np.arange(length)[None, :]) & 1).astype(bool)
    blocks = []
    for row in pats:
        runs, run = [], 0
        for v in row:
            if v:
                run += 1
            elif run:
                runs.append(run)
                run = 0
        if run:
            runs.append(run)
        blocks.append(tuple(runs))
    return pats, blocks


def _total_of(clue) -> int:
    if isinstance(clue, (list, tuple, np.ndarray)):
        return int(clue[0]) if len(clue) else 0
    return int(clue)


def _matches(kind: int, clue, runs: tuple) -> bool:
    if kind == KIND_NONE:
        return True
    if kind == KIND_BLOCKS:
        return runs == tuple(int(b) for b in clue if int(b) > 0)
    total = _total_of(clue)
    if sum(runs) != total:
        return False
    if kind == KIND_PLAIN:
        return len(runs) <= 1
    if kind == KIND_CIRCLE:
        return len(runs) == 2
    if kind == KIND_SQUARE:
        return len(runs) >= 3
    raise ValueError(f"unknown clue kind {kind}")


def satisfies_clue(kind: int, clue, bits) -> bool:
    """Does a 0/1 line satisfy a clue? Straight from the clue definitions, not the engine's solvers."""
    runs, run = [], 0
    for b in bits:
        if b:
            run += 1
        elif run:
            runs.append(run)
            run = 0
    if run:
        runs.append(run)
    return _matches(kind, clue, tuple(runs))


def _clue_key(kind: int, clue):
    if kind == KIND_NONE:
        return None
    if kind == KIND_BLOCKS:
        return tuple(int(b) for b in clue if int(b) > 0)
    return _total_of(clue)


def all_fixes(length: int, kind: int, clue) -> np.ndarray:
    """Read-only (cached): copy before modifying."""
    return _all_fixes(length, kind, _clue_key(kind, clue))


@lru_cache(maxsize=4096)
def _all_fixes(length: int, kind: int, key) -> np.ndarray:
    pats, blocks = _patterns(length)
    keep = [i for i, runs in enumerate(blocks) if _matches(kind, key, runs)]
    out = pats[keep]
    out.flags.writeable = False
    return out


@lru_cache(maxsize=4096)
def _block_starts(length: int, blocks: tuple) -> np.ndarray:
    fixes = _all_fixes(length, KIND_BLOCKS, blocks)
    starts = np.zeros((len(fixes), len(blocks)), np.int64)
    for r, f in enumerate(fixes):
        edges = np.flatnonzero(np.diff(np.concatenate(([0], f.astype(np.int8)))) == 1)
        starts[r, :len(edges)] = edges
    starts.flags.writeable = False
    return starts


def block_starts(length: int, blocks) -> tuple:
    """(fixes, starts): every fix of a block list and the start cell of each of its blocks."""
    key = tuple(int(b) for b in blocks if int(b) > 0)
    return _all_fixes(length, KIND_BLOCKS, key), _block_starts(length, key)


def consistent(fixes: np.ndarray, state) -> np.ndarray:
    """Mask of the fixes that agree with every known cell of state."""
    st = np.asarray(state, dtype=np.int8)
    allowed = np.where(fixes, (st & FILLED) != 0, (st & EMPTY) != 0)
    return allowed.all(axis=1)


def fold(fixes: np.ndarray):
    """OR of the cell values over fixes, as a state; None when there are no fixes."""
    if len(fixes) == 0:
        return None
    can_fill = fixes.any(axis=0)
    can_empty = (~fixes).any(axis=0)
    return (np.where(can_fill, FILLED, 0) | np.where(can_empty, EMPTY, 0)).astype(np.int8)


def brute_solve(state, kind: int, clue):
    st = np.asarray(state, dtype=np.int8)
    fixes = all_fixes(len(st), kind, clue)
    return fold(fixes[consistent(fixes, st)])


def clues_for_length(length: int) -> list:
    """Every block list and 3D clue that fits the line, and a few that do not (to test contradictions)."""
    _, blocks = _patterns(length)
    out = [(KIND_NONE, None)]
    for runs in sorted(set(blocks)):
        out.append((KIND_BLOCKS, list(runs)))
    # One block list too long for the line.
    out.append((KIND_BLOCKS, [length, 1]))
    for total in range(0, length + 2):
        out.append((KIND_PLAIN, total))
        out.append((KIND_CIRCLE, total))
        out.append((KIND_SQUARE, total))
    return out


def reference_solve(state, kind: int, clue):
    """Cell values over all consistent fixes, by forward/backward reachability (long lines)."""
    st = [int(v) for v in state]
    n = len(st)
    if kind == KIND_NONE:
        return None if any(v == 0 for v in st) else np.array(st, dtype=np.int8)
    if kind == KIND_BLOCKS:
        blocks = tuple(int(b) for b in clue if int(b) > 0)
        total, need_blocks, exact = sum(blocks), len(blocks), True
    else:
        total = _total_of(clue)
        blocks = None
        need_blocks, exact = {KIND_PLAIN: (1, True), KIND_CIRCLE: (2, True), KIND_SQUARE: (3, False)}[kind]
        if kind == KIND_PLAIN and total == 0:
            need_blocks = 0
    cap = need_blocks  # for a square (not exact) k saturates here: "3" stands for 3 or more

    # Node: (filled so far, blocks so far (capped at cap for squares), run length of current block
    # for block lists / whether the last cell was filled otherwise).
    def step(node, value):
        f, k, run = node
        if value == FILLED:
            f += 1
            if f > total:
                return None
            if run == 0:
                k += 1
                if k > cap:
                    if exact:
                        return None
                    k = cap
                run = 1
            else:
                run += 1
            if blocks is not None and run > blocks[k - 1]:
                return None
            if blocks is None:
                run = 1
            return (f, k, run)
        if blocks is not None and run and run != blocks[k - 1]:
            return None
        return (f, k, 0)

    def final_ok(node):
        f, k, run = node
        if f != total or k != cap:
            return False
        return not (blocks is not None and run and run != blocks[k - 1])

    start = (0, 0, 0)
    fwd = [set() for _ in range(n + 1)]
    fwd[0].add(start)
    for i in range(n):
        for node in fwd[i]:
            for v in (EMPTY, FILLED):
                if st[i] & v:
                    nxt = step(node, v)
                    if nxt is not None:
                        fwd[i + 1].add(nxt)
    good = [set() for _ in range(n + 1)]
    good[n] = {node for node in fwd[n] if final_ok(node)}
    result = [0] * n
    for i in range(n - 1, -1, -1):
        for node in fwd[i]:
            for v in (EMPTY, FILLED):
                if st[i] & v:
                    nxt = step(node, v)
                    if nxt is not None and nxt in good[i + 1]:
                        good[i].add(node)
                        result[i] |= v
    if not good[0]:
        return None
    return np.array(result, dtype=np.int8)


def count_solutions(puzzle, cap=2):
    """Number of grids satisfying every clue of ``puzzle`` (enumerating all 2**n_cells grids, so
    at most 16 cells), and the first ``cap`` of them as bool arrays."""
    n = puzzle.n_cells
    assert n <= 16
    codes = np.arange(2 ** n, dtype=np.int64)
    ok = np.ones(2 ** n, dtype=bool)
    for li in range(puzzle.n_lines):
        kind = int(puzzle.clue_kind[li])
        if kind == KIND_NONE:
            continue
        cells = puzzle.line(li)
        L = len(cells)
        nums = [int(v) for v in puzzle.clue_numbers(li)]
        table = np.array([satisfies_clue(kind, nums, [(p >> k) & 1 for k in range(L)])
                          for p in range(2 ** L)], dtype=bool)
        line_code = np.zeros(2 ** n, dtype=np.int64)
        for k, c in enumerate(cells):
            line_code |= ((codes >> int(c)) & 1) << k
        ok &= table[line_code]
    sols = np.flatnonzero(ok)
    return len(sols), [np.array([(s >> i) & 1 for i in range(n)], dtype=bool) for s in sols[:cap]]
