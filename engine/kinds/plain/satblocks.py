"""The CNF of exact block lists (2D clues, 3D plain clues) as flat arrays, in one kernel.

Building it per literal in Python took 1.27 s of 5.2 s on icga2020's slowest tournament
puzzles. Clauses come
as ``lits`` (the literals, clause after clause) and ``offs`` (clause c is
``lits[offs[c]:offs[c + 1]]``; an empty one is a line whose clue does not fit).
"""
import numpy as np

from ...jit import njit

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
def _put(lits, offs, nc, pos, a, b, c, d):
    """Append the clause of the non-zero ones of a, b, c, d: dropped when one is always true,
    always-false literals left out. Returns (nc, pos)."""
    if a == TRUE_LITERAL or b == TRUE_LITERAL or c == TRUE_LITERAL or d == TRUE_LITERAL:
        return nc, pos
    if a != 0 and a != -TRUE_LITERAL:
        lits[pos] = a
        pos += 1
    if b != 0 and b != -TRUE_LITERAL:
        lits[pos] = b
        pos += 1
    if c != 0 and c != -TRUE_LITERAL:
        lits[pos] = c
        pos += 1
    if d != 0 and d != -TRUE_LITERAL:
        lits[pos] = d
        pos += 1
    nc += 1
    offs[nc] = pos
    return nc, pos


@njit
def _order_clauses(lits, offs, nc, pos, yb, lo, hi, b, gap, j, k):
    """Block j's order variables: "at or before p" implies "at or before p + 1", and block j + 1
    at or before p puts block j at or before p - b_j - gap_j. Returns (nc, pos)."""
    for p in range(lo[j], hi[j] - 1):
        nc, pos = _put(lits, offs, nc, pos, -_order_lit(yb, lo, hi, j, p), _order_lit(yb, lo, hi, j, p + 1), 0, 0)
    if j + 1 < k:
        for p in range(lo[j + 1], hi[j + 1] + 1):
            nc, pos = _put(lits, offs, nc, pos, -_order_lit(yb, lo, hi, j + 1, p),
                           _order_lit(yb, lo, hi, j, p - b[j] - gap[j]), 0, 0)
    return nc, pos


@njit
def _value_lit(x, v, k1, state):
    """"Cell x has value v" (0 empty): without colours (``k1`` 0) the cell's variable or its
    negation; with them its indicator x * k1 + v + 1, or a constant where ``state`` decides it."""
    if k1 == 0:
        return x + 1 if v else -(x + 1)
    if state is not None:
        if (state[x] >> v) & 1 == 0:
            return -TRUE_LITERAL
        if state[x] == 1 << v:
            return TRUE_LITERAL
    return x * k1 + v + 1


@njit
def _cells_by_order(lits, offs, nc, pos, yb, lo, hi, b, k, cells, colours, k1, state):
    """A block list's cells tied to its order variables alone: a cell lies in the last block
    started at or before it, if that block has not ended (then it takes the block's colour: when
    block j has started and not ended, colour c_j), else it is empty (no block has started: not
    y(0, i); block j has and block j + 1 has not, and block j has ended: y(j, i - b_j)).
    Returns (nc, pos). Each clause only where none of its order literals is constant true (block
    j could not have started yet, j + 1 surely has, or j surely has ended)."""
    for i in range(len(cells)):
        x = cells[i]
        empty = _value_lit(x, 0, k1, state)
        if i < hi[0]:
            nc, pos = _put(lits, offs, nc, pos, empty, _order_lit(yb, lo, hi, 0, i), 0, 0)
        for j in range(k):
            if i < lo[j]:
                break  # no later block has started either
            a = _order_lit(yb, lo, hi, j, i)
            c = _order_lit(yb, lo, hi, j, i - b[j])
            if i >= lo[j] + b[j] and (j + 1 == k or i < hi[j + 1]):
                nxt = _order_lit(yb, lo, hi, j + 1, i) if j + 1 < k else -TRUE_LITERAL
                nc, pos = _put(lits, offs, nc, pos, empty, -a, nxt, -c)
            if i < hi[j] + b[j]:
                cj = 1 if colours is None else colours[j]
                nc, pos = _put(lits, offs, nc, pos, _value_lit(x, cj, k1, state), -a, c, 0)
    return nc, pos


@njit
def line_blocks(clue_start, clue_data, li, out):
    """Line ``li``'s blocks (its positive clue numbers) into ``out``; their count."""
    k = 0
    for q in range(clue_start[li], clue_start[li + 1]):
        if clue_data[q] > 0:
            out[k] = clue_data[q]
            k += 1
    return k


@njit
def block_spans(n, b, gap, k, lo, hi):
    """Each of the ``k`` blocks' first and last start (``lo[j]``, ``hi[j]``) in a line of ``n``
    cells from the clue alone: blocks ``b``, at least ``gap[j]`` cells after block j. Whether the
    clue fits the line. With ``order_numbers``, the one rule for ``blocks_cnf``'s variables and
    ``satphase``'s phases of them (which must number them alike)."""
    s = 0
    for j in range(k):
        lo[j] = s
        s += b[j] + gap[j]
    e = n
    for j in range(k - 1, -1, -1):
        hi[j] = e - b[j]
        e = hi[j] - (gap[j - 1] if j else 0)
    return lo[0] <= hi[0]


@njit
def order_numbers(k, lo, hi, top, yb):
    """Number the order variables of a line's ``k`` blocks from ``top`` + 1 on: "block j starts
    at or before p", p in [lo[j], hi[j]), is variable yb[j] + p - lo[j]. Returns the new top."""
    for j in range(k):
        yb[j] = top + 1
        top += hi[j] - lo[j]
    return top


@njit
def blocks_cnf(line_start, line_cells, clue_start, clue_data, lines, top, colours=None, k1=0, bounds=None,
               state=None):
    """Clauses of the block lists of ``lines`` (cell c is variable c + 1; new variables from
    top + 1 on): (lits, offs, new top). Order variables ``y(j, p)`` = "block j starts at or
    before p" (monotone in p; block j+1 at or before p puts block j at or before p - b_j - gap),
    the only variables a block list adds, and the cells tied to them (``_cells_by_order``): a
    filled cell lies in the last block started at or before it, an empty one in none. Measured on
    17 TAAI puzzles solved from scratch by CaDiCaL: order variables took 135k conflicts against
    220k with one variable per block start; on the 463 tournament hand-overs (2026-12-05, first
    solution, from the search's hand-over) the cells tied to the order variables alone took 871k
    conflicts and 31.9 s in CaDiCaL, against 1.17M and 58.2 s with a cover variable per block
    and cell it may cover (``y(j, i) and not y(j, i - b_j)``; a filled cell covered by some
    block). The colour lines' too (below): on the 86 puzzles of the colour benchmark and 40 small
    noise grids (uniqueness, 2026-12-05), 2.66 s against 3.01 s, the conflicts 41k against 29k.

    ``colours`` (``coloursat.py``'s 2D lines): each block's colour; the least gap after a block
    is 1 before one of its colour, else 0, and the cells' colour indicators (cell x, value v:
    variable x * k1 + v + 1) in place of the cells: a cell in block j has colour c_j, a cell in
    no block value 0 (empty).

    ``bounds`` (2, blocks): each block's first and last start (indexed as ``clue_data``), when
    the caller knows them narrower than the clue alone puts them (``coloursat.block_bounds``:
    under the state the CNF starts from, which every solution keeps): the variables and clauses
    outside them are never made (a block whose first start is past its last: the empty clause).
    ``state`` (with ``colours``; per cell its values' bitmask, bit v value v): the colour
    indicators that state decides are put in as constants (a clause they make true left out, a
    literal they make false dropped), so that no clause names a decided indicator and the
    caller needs no unit clauses for them."""
    n_lits = 0
    n_cls = 0
    for li in lines:
        n = line_start[li + 1] - line_start[li]
        k = clue_start[li + 1] - clue_start[li]
        n_lits += k * (14 * n + 2) + 2 * n + n * k1
        n_cls += k * (6 * n + 2) + 2 * n + 1 + n * k1
    lits = np.empty(n_lits, np.int64)
    offs = np.zeros(n_cls + 1, np.int64)
    nc = 0
    pos = 0
    for li in lines:
        a0 = line_start[li]
        n = line_start[li + 1] - a0
        b = np.empty(clue_start[li + 1] - clue_start[li], np.int64)
        k = line_blocks(clue_start, clue_data, li, b)
        gap = np.ones(k + 1, np.int64)
        if colours is not None:
            for j in range(k - 1):
                gap[j] = 1 if colours[j] == colours[j + 1] else 0
        if k == 0:
            for i in range(n):
                if colours is None:
                    lits[pos] = -(line_cells[a0 + i] + 1)
                    pos += 1
                    nc += 1
                    offs[nc] = pos
                else:
                    x = line_cells[a0 + i]
                    for c in range(1, k1):
                        if state is not None and (state[x] >> c) & 1 == 0:
                            continue  # never c: the clause holds
                        if state is None or state[x] != 1 << c:
                            lits[pos] = -(x * k1 + c + 1)
                            pos += 1
                        nc += 1  # (a cell known to be c: the empty clause)
                        offs[nc] = pos
            continue
        lo = np.empty(k, np.int64)
        hi = np.empty(k, np.int64)
        fits = block_spans(n, b, gap, k, lo, hi)
        if bounds is not None:
            q = clue_start[li]
            for j in range(k):
                while clue_data[q] <= 0:
                    q += 1
                lo[j] = max(lo[j], bounds[0, q])
                hi[j] = min(hi[j], bounds[1, q])
                fits = fits and lo[j] <= hi[j]
                q += 1
        if not fits:
            nc += 1  # the clue does not fit the line: the empty clause
            offs[nc] = pos
            continue
        # the order variables, block by block
        yb = np.empty(k, np.int64)
        top = order_numbers(k, lo, hi, top, yb)
        for j in range(k):
            nc, pos = _order_clauses(lits, offs, nc, pos, yb, lo, hi, b, gap, j, k)
        nc, pos = _cells_by_order(lits, offs, nc, pos, yb, lo, hi, b, k, line_cells[a0:a0 + n], colours, k1, state)
    return lits[:pos], offs[:nc + 1], top
