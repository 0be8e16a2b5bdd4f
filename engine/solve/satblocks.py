"""The CNF of exact block lists (2D clues, 3D plain clues) as flat arrays, in one kernel.

Clause for clause and variable for variable the encoding of ``sat.blocks_clauses`` (the
plain-Python reference; tests/test_sat.py checks both give the same list): building it per
literal in Python took 1.27 s of 5.2 s on icga2020's slowest tournament puzzles. Clauses come
as ``lits`` (the literals, clause after clause) and ``offs`` (clause c is
``lits[offs[c]:offs[c + 1]]``; an empty one is a line whose clue does not fit).
"""
import numpy as np

from ..jit import njit

TRUE_LITERAL = 1 << 40  # a literal that is always true (its negation always false)


@njit
def _order_lit(yb, lo, hi, j, p):
    """"Block j starts at or before p": its variable, or always false / true outside [lo, hi)."""
    if p < lo[j]:
        return -TRUE_LITERAL
    if p >= hi[j]:
        return TRUE_LITERAL
    return yb[j] + p - lo[j]


@njit
def _put(lits, offs, nc, pos, a, b, c, m):
    """Append the clause of the first ``m`` (2 or 3) of a, b, c: dropped when one is always
    true, always-false literals left out. Returns (nc, pos)."""
    if a == TRUE_LITERAL or b == TRUE_LITERAL or (m == 3 and c == TRUE_LITERAL):
        return nc, pos
    if a != -TRUE_LITERAL:
        lits[pos] = a
        pos += 1
    if b != -TRUE_LITERAL:
        lits[pos] = b
        pos += 1
    if m == 3 and c != -TRUE_LITERAL:
        lits[pos] = c
        pos += 1
    nc += 1
    offs[nc] = pos
    return nc, pos


@njit
def blocks_cnf(line_start, line_cells, clue_start, clue_data, lines, top):
    """Clauses of the block lists of ``lines`` (cell c is variable c + 1; new variables from
    top + 1 on): (lits, offs, new top)."""
    n_lits = 0
    n_cls = 0
    for li in lines:
        n = line_start[li + 1] - line_start[li]
        k = clue_start[li + 1] - clue_start[li]
        n_lits += k * (14 * n + 2) + 2 * n
        n_cls += k * (6 * n + 2) + 2 * n + 1
    lits = np.empty(n_lits, np.int64)
    offs = np.zeros(n_cls + 1, np.int64)
    nc = 0
    pos = 0
    for li in lines:
        a0 = line_start[li]
        n = line_start[li + 1] - a0
        k = 0
        for q in range(clue_start[li], clue_start[li + 1]):
            if clue_data[q] > 0:
                k += 1
        if k == 0:
            for i in range(n):
                lits[pos] = -(line_cells[a0 + i] + 1)
                pos += 1
                nc += 1
                offs[nc] = pos
            continue
        b = np.empty(k, np.int64)
        k = 0
        for q in range(clue_start[li], clue_start[li + 1]):
            if clue_data[q] > 0:
                b[k] = clue_data[q]
                k += 1
        lo = np.empty(k, np.int64)
        hi = np.empty(k, np.int64)
        s = 0
        for j in range(k):
            lo[j] = s
            s += b[j] + 1
        e = n
        for j in range(k - 1, -1, -1):
            hi[j] = e - b[j]
            e = hi[j] - 1
        if lo[0] > hi[0]:
            nc += 1  # the clue does not fit the line: the empty clause
            offs[nc] = pos
            continue
        # order variables of every block first, then the cover variables block by block
        yb = np.empty(k, np.int64)
        for j in range(k):
            yb[j] = top + 1
            top += hi[j] - lo[j]
        vb = np.empty(k, np.int64)
        for j in range(k):
            bj = b[j]
            for p in range(lo[j], hi[j] - 1):
                nc, pos = _put(lits, offs, nc, pos, -_order_lit(yb, lo, hi, j, p),
                               _order_lit(yb, lo, hi, j, p + 1), 0, 2)
            if j + 1 < k:
                for p in range(lo[j + 1], hi[j + 1] + 1):
                    nc, pos = _put(lits, offs, nc, pos, -_order_lit(yb, lo, hi, j + 1, p),
                                   _order_lit(yb, lo, hi, j, p - bj - 1), 0, 2)
            vb[j] = top + 1
            for i in range(lo[j], hi[j] + bj):
                a = _order_lit(yb, lo, hi, j, i)
                c = _order_lit(yb, lo, hi, j, i - bj)
                top += 1
                v = top
                nc, pos = _put(lits, offs, nc, pos, -v, a, 0, 2)
                nc, pos = _put(lits, offs, nc, pos, -v, -c, 0, 2)
                nc, pos = _put(lits, offs, nc, pos, v, -a, c, 3)
                lits[pos] = -v
                lits[pos + 1] = line_cells[a0 + i] + 1
                pos += 2
                nc += 1
                offs[nc] = pos
        # a filled cell is covered by some block
        for i in range(n):
            lits[pos] = -(line_cells[a0 + i] + 1)
            pos += 1
            for j in range(k):
                if lo[j] <= i < hi[j] + b[j]:
                    lits[pos] = vb[j] + i - lo[j]
                    pos += 1
            nc += 1
            offs[nc] = pos
    return lits[:pos], offs[:nc + 1], top


@njit
def colour_line_cnf(cells, blocks, cols, k1, top):
    """The CNF of one 2D colour line (``coloursat.ColourSat``): the block list's order and cover
    variables (``sat.blocks_clauses`` with gaps only between blocks of one colour, covers not
    tied to cells), then per cell each cover implies its block's colour and each colour implies
    a cover of that colour. ``cells``: the line's cell indices (cell x's value v is variable
    x * k1 + v + 1); new variables from top + 1 on. Clause for clause and variable for variable
    the Python encoding it replaced (tests/test_colour_setup.py keeps it as the reference):
    (lits, offs, new top)."""
    n = cells.shape[0]
    k = blocks.shape[0]
    lits = np.empty(k * (15 * n + 6) + n * (3 * k + k1) + 1, np.int64)
    offs = np.zeros(k * (5 * n + 2) + n * (k + k1) + 2, np.int64)
    nc = 0
    pos = 0
    gap = np.zeros(k, np.int64)
    for j in range(k - 1):
        gap[j] = 1 if cols[j] == cols[j + 1] else 0
    lo = np.empty(k, np.int64)
    hi = np.empty(k, np.int64)
    vb = np.empty(k, np.int64)
    if k > 0:
        s = 0
        for j in range(k):
            lo[j] = s
            s += blocks[j] + gap[j]
        e = n
        for j in range(k - 1, -1, -1):
            hi[j] = e - blocks[j]
            e = hi[j] - (gap[j - 1] if j else 0)
        if lo[0] > hi[0]:
            nc += 1  # the clue does not fit the line: the empty clause
            offs[nc] = pos
            return lits[:pos], offs[:nc + 1], top
        yb = np.empty(k, np.int64)
        for j in range(k):
            yb[j] = top + 1
            top += hi[j] - lo[j]
        for j in range(k):
            bj = blocks[j]
            for p in range(lo[j], hi[j] - 1):
                nc, pos = _put(lits, offs, nc, pos, -_order_lit(yb, lo, hi, j, p),
                               _order_lit(yb, lo, hi, j, p + 1), 0, 2)
            if j + 1 < k:
                for p in range(lo[j + 1], hi[j + 1] + 1):
                    nc, pos = _put(lits, offs, nc, pos, -_order_lit(yb, lo, hi, j + 1, p),
                                   _order_lit(yb, lo, hi, j, p - bj - gap[j]), 0, 2)
            vb[j] = top + 1
            for i in range(lo[j], hi[j] + bj):
                a = _order_lit(yb, lo, hi, j, i)
                c = _order_lit(yb, lo, hi, j, i - bj)
                top += 1
                v = top
                nc, pos = _put(lits, offs, nc, pos, -v, a, 0, 2)
                nc, pos = _put(lits, offs, nc, pos, -v, -c, 0, 2)
                nc, pos = _put(lits, offs, nc, pos, v, -a, c, 3)
    for i in range(n):
        x = cells[i]
        for j in range(k):
            if lo[j] <= i < hi[j] + blocks[j]:
                lits[pos] = -(vb[j] + i - lo[j])
                lits[pos + 1] = x * k1 + cols[j] + 1
                pos += 2
                nc += 1
                offs[nc] = pos
        for c in range(1, k1):
            lits[pos] = -(x * k1 + c + 1)
            pos += 1
            for j in range(k):
                if cols[j] == c and lo[j] <= i < hi[j] + blocks[j]:
                    lits[pos] = vb[j] + i - lo[j]
                    pos += 1
            nc += 1
            offs[nc] = pos
    return lits[:pos], offs[:nc + 1], top
