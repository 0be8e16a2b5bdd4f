"""CNF encoding of colour puzzles and a CDCL search over it (python-sat, optional as in ``sat.py``).

The search (``search.py`` on ``colourkind.ColourSolver``) closes every node under the complete line solver, which
settles most puzzles in a few guesses; when it wanders, it hands over to CaDiCaL as the
black-and-white search does (``search.py``), so that a colour puzzle too has a solver that
learns from its conflicts.

Encoding. Cell i, value v (0 empty, 1..k colour) is the indicator variable i * (k + 1) + v + 1:
one "pseudo-cell" per (cell, value), so that the black-and-white encoders of ``sat.py`` /
``satblocks.py`` (cell c is variable c + 1) run unchanged over them.
- every cell takes exactly one value: one clause "at least one" over the values still possible,
  pairwise "at most one" (k is small: 2-4 in practice); values the logic has ruled out and
  decided cells are unit clauses;
- a 3D line's clue is, per colour c, a black-and-white 3D clue over c's indicators (a run of c
  ends at any cell that is not c, Round 2's rule, docs/PUZZLE_FORMAT.md): count 0 = no cell of
  c; plain = one block of ``count`` (the block-list encoder, ``satblocks.blocks_cnf``);
  circle / square = ``count`` cells in exactly two / at least three runs (the count-and-runs
  automaton, ``sat.line_clauses``). The conjunction over the colours, with "exactly one value
  per cell", is the colour clue exactly: the colours of a line constrain each other only
  through the cells they share, which the per-cell clauses carry. So each 3D line becomes k
  pseudo-lines of a black-and-white net (``pseudo_net``) that ``sat.SatSearch`` encodes;
- a 2D line is the block-list encoding (order variables, ``satblocks.blocks_cnf``) with the
  least gap after block j 1 when block j + 1 has the same colour, else 0, and its cells tied to
  the colour indicators: a cell in block j (the last block started at or before it, not yet
  ended) has colour c_j, a cell in no block is empty (value 0).

Unit propagation on this CNF is weaker than the product line solver on a 3D line (each colour's
automaton sees the others only through the cells), which is why the logic runs first and hands
its state over as unit clauses; what is left is what CDCL is for.
"""
from __future__ import annotations

import gc
import time

import numpy as np

from ...jit import njit
from ...model.cells import EMPTY, FILLED, UNKNOWN
from ...model.colourpuzzle import MARK_CIRCLE, MARK_PLAIN
from ...model.puzzle import KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE
from .colourprop import popcount
from ..plain.sat import HAVE_SAT, SAT_ERROR, SatSearch, encoding_size, open_lines
from ..plain.satblocks import blocks_cnf

__all__ = ["HAVE_SAT", "SAT_ERROR", "ColourSat", "pseudo_net", "colour_encoding_size", "enumerate_colour"]

_MARK_KIND = {MARK_PLAIN: KIND_PLAIN, MARK_CIRCLE: KIND_CIRCLE}


def pseudo_state(state, k):
    """The black-and-white state (int8 FILLED / EMPTY / UNKNOWN) of each (cell, value)
    indicator under the colour ``state`` (bitmasks, bit v = value v possible)."""
    bits = (np.asarray(state, np.int64)[:, None] >> np.arange(k + 1)[None, :]) & 1
    single = (popcount(state) == 1)[:, None]
    out = np.where(bits == 0, EMPTY, np.where(single, FILLED, UNKNOWN)).astype(np.int8)
    return out.ravel()


def pseudo_net(net):
    """The 3D lines of a ``colourprop.ColourNet`` as a black-and-white net over the indicator
    pseudo-cells (a tuple in ``sat.py``'s order: line_start, line_cells, clue_kind, clue_start,
    clue_data): per clued 3D line and colour c, the line of c's indicators with c's clue."""
    k1 = net.k + 1
    lines3 = np.flatnonzero(net.mode == 2)
    ls, lc, kinds, cd = [0], [], [], []
    for li in lines3.tolist():
        cells = net.line_cells[net.line_start[li]:net.line_start[li + 1]]
        for c in range(1, k1):
            n = int(net.cnt[li, c - 1])
            runs = int(net.rmax[li, c - 1])  # mark + 1 (1 plain, 2 circle, 3 square); 0 when n = 0
            lc.append(cells * k1 + c)
            ls.append(ls[-1] + len(cells))
            kinds.append(KIND_PLAIN if runs <= 1 else KIND_CIRCLE if runs == 2 else KIND_SQUARE)
            cd.append(n)
    lc_arr = np.concatenate(lc).astype(np.int64) if lc else np.zeros(0, np.int64)
    return (np.asarray(ls, np.int64), lc_arr, np.asarray(kinds, np.int8),
            np.arange(len(cd) + 1, dtype=np.int64), np.asarray(cd, np.int64))


def _lines_2d(net, state):
    """The clued 2D lines with an undecided cell (at a propagation fixpoint the others hold)."""
    out = []
    und = popcount(state) > 1
    for li in np.flatnonzero(net.mode == 1).tolist():
        if und[net.line_cells[net.line_start[li]:net.line_start[li + 1]]].any():
            out.append(li)
    return out


@njit(cache=True)
def _starts_from_left(masks, sizes, colours):
    """ok[j, s]: blocks 0..j fit the cells ``masks[:s + sizes[j]]`` (bit 0 empty, bit c colour c)
    with block j starting at s, every cell between blocks empty."""
    n, k = masks.shape[0], sizes.shape[0]
    ok = np.zeros((k, n + 1), np.bool_)
    # reach[q]: blocks 0..j-1 placed in cells [0, q), the cells after the last one empty
    reach = np.zeros(n + 1, np.bool_)
    reach[0] = True
    for q in range(1, n + 1):
        reach[q] = reach[q - 1] and (masks[q - 1] & 1) != 0
    run = np.zeros(n + 1, np.int64)  # cells that can take block j's colour, ending at each cell
    for j in range(k):
        c, b = colours[j], sizes[j]
        for q in range(n):
            run[q + 1] = run[q] + 1 if (masks[q] >> c) & 1 else 0
        same = j > 0 and colours[j - 1] == c
        for s in range(n - b + 1):
            if run[s + b] < b:
                continue
            if same:
                ok[j, s] = s >= 1 and reach[s - 1] and (masks[s - 1] & 1) != 0
            else:
                ok[j, s] = reach[s]
        nxt = np.zeros(n + 1, np.bool_)
        for q in range(1, n + 1):
            nxt[q] = (q >= b and ok[j, q - b]) or (nxt[q - 1] and (masks[q - 1] & 1) != 0)
        reach = nxt
    return ok


@njit(cache=True)
def block_bounds(masks, sizes, colours):
    """(2, blocks): each block's first and last start over the placements of the whole 2D
    block list (sizes, colours) that fit the cells ``masks``; a block that fits nowhere gets
    first n, last -1. Exact (a start fits from the left and from the right, and the two halves
    join at the block), and sound for the CNF: every solution under ``masks`` starts its blocks
    there (``satblocks.blocks_cnf``'s ``bounds``)."""
    n, k = masks.shape[0], sizes.shape[0]
    left = _starts_from_left(masks, sizes, colours)
    right = _starts_from_left(masks[::-1].copy(), sizes[::-1].copy(), colours[::-1].copy())
    out = np.empty((2, k), np.int64)
    for j in range(k):
        lo, hi = n, -1
        r = k - 1 - j
        for s in range(n - sizes[j] + 1):
            if left[j, s] and right[r, n - s - sizes[j]]:
                if s < lo:
                    lo = s
                hi = s
        out[0, j] = lo
        out[1, j] = hi
    return out


def colour_encoding_size(net, state, clues_2d) -> int:
    """A rough count of the CNF's literals (``sat.encoding_size`` for the 3D pseudo-lines, the
    same estimate per block for 2D lines, the per-cell clauses)."""
    pn = pseudo_net(net)
    size = encoding_size(pn, open_lines(pn, pseudo_state(state, net.k))) if len(pn[2]) else 0
    for li in _lines_2d(net, state):
        n = int(net.line_start[li + 1] - net.line_start[li])
        size += 6 * n * (len(clues_2d[li]) + 1) * 4
    k1 = net.k + 1
    return size + int(np.count_nonzero(popcount(state) > 1)) * k1 * k1


class ColourSat:
    """A CDCL solver over a colour puzzle's CNF under ``state`` (a propagation fixpoint of
    ``colourprop``, or the full state), built and run in chunks like ``sat.SatSearch`` (which it
    uses for the 3D lines and the solver itself): ``feed``, then ``step``; ``block`` excludes a
    found solution. ``clues_2d``: the puzzle's clues by line (only 2D ones are read)."""

    def __init__(self, net, state, clues_2d):
        self.net, self.k1 = net, net.k + 1
        self.state = np.asarray(state, np.int64)
        self.n = len(self.state)
        pst = pseudo_state(self.state, net.k)
        # the 2D lines' clauses take the state's decided indicators as constants (``blocks_cnf``'s
        # ``state``), so they need no unit clauses: most cells are decided at a hand-over (a
        # 38x49 4-colour picture: 288 of 1,862 open), and their units took a third of it. The
        # 3D lines' encoders name every indicator: theirs stay.
        self.units = bool((net.mode == 2).any())
        self.decided = popcount(self.state) == 1
        self.allowed = ((self.state[:, None] >> np.arange(self.k1)[None, :]) & 1).astype(bool)
        self.ss = SatSearch(pseudo_net(net), pst if self.units else np.full(len(pst), UNKNOWN, np.int8),
                            np.ones(len(pst), bool))
        self.lines_2d = _lines_2d(net, self.state)
        self.clues_2d = clues_2d
        self.cells_done = False

    @property
    def conflicts(self) -> int:
        return self.ss.conflicts

    @property
    def chunk(self) -> int:
        return self.ss.chunk

    @chunk.setter
    def chunk(self, value):
        self.ss.chunk = value

    def _cell_clauses(self):
        """Exactly one value per undecided cell (decided ones are units already)."""
        k1, out = self.k1, []
        for i in np.flatnonzero(popcount(self.state) > 1).tolist():
            m = int(self.state[i])
            xs = [i * k1 + v + 1 for v in range(k1) if (m >> v) & 1]
            out.append(xs)
            for a in range(len(xs)):
                for b in range(a + 1, len(xs)):
                    out.append([-xs[a], -xs[b]])
        return out

    def _line_2d_clauses(self, li):
        """A 2D line's block list over its cells' colour indicators (``satblocks.blocks_cnf``)."""
        net, clue = self.net, self.clues_2d[li]
        cells = net.line_cells[net.line_start[li]:net.line_start[li + 1]]
        sizes = np.array([n for n, _ in clue], np.int64)
        colours = np.array([c for _, c in clue], np.int64)
        # the blocks' starts under the state the CNF starts from: most of a searched line's
        # cells are decided there, and the clauses of the clue's whole slack were most of the
        # hand-over's time
        bounds = block_bounds(self.state[cells], sizes, colours)
        lits, offs, self.ss.top = blocks_cnf(np.array([0, len(cells)], np.int64), cells,
                                             np.array([0, len(clue)], np.int64), sizes,
                                             np.zeros(1, np.int64), self.ss.top, colours, self.k1, bounds,
                                             self.state)
        self.ss._add_flat(lits, offs)

    def feed(self, max_lines: int) -> bool:
        """Encode up to ``max_lines`` more lines (the per-cell clauses first); True once the
        whole CNF is in the solver."""
        if not self.cells_done:
            self.ss.add_clauses(self._cell_clauses())
            self.cells_done = True
        if self.lines_2d:
            batch = self.lines_2d[:max_lines]
            del self.lines_2d[:max_lines]
            was = gc.isenabled()
            gc.disable()  # many small lists (see SatSearch.feed)
            try:
                for li in batch:
                    self._line_2d_clauses(li)
            finally:
                if was:
                    gc.enable()
            return False
        return self.ss.feed(max_lines)

    def step(self):
        """One chunk of conflicts: a solution (value per cell, int64), False (no more
        solutions) or None (go on)."""
        r = self.ss.step()
        if r is None or r is False:
            return r
        # (an indicator no clause names, a decided cell's or a ruled-out value's, is the model's
        # to pick: the state's values count)
        vals = (r.reshape(self.n, self.k1) & self.allowed).argmax(axis=1)
        return np.where(self.decided, self.allowed.argmax(axis=1), vals).astype(np.int64)

    def block(self, values):
        """Exclude the solution ``values``: the next one differs from it in some undecided cell
        (one that breaks the state is no solution of the CNF anyway)."""
        v = np.asarray(values, np.int64)
        if not self.allowed[np.arange(self.n), v].all():
            return
        cells = np.flatnonzero(~self.decided)
        self.ss.solver.add_clause((-(cells * self.k1 + v[cells] + 1)).tolist())

    def close(self):
        self.ss.close()


def enumerate_colour(net, state, clues, want: int = 2, time_limit=None):
    """The CNF alone: (verdict, solutions) by CDCL from ``state`` (``colourprop.full_state``
    for nothing known, else a propagation fixpoint), enumerating up to ``want`` solutions and
    blocking each. Verdict ``unique`` / ``multiple`` / ``none``, ``unknown`` past ``time_limit``
    (checked between chunks of conflicts). For tests and the benchmark; the search's hand-over
    is the search's (``search.py``)."""
    t_end = None if time_limit is None else time.perf_counter() + time_limit
    cs = ColourSat(net, state, clues)
    try:
        while not cs.feed(1 << 30):
            pass
        sols = []
        while len(sols) < want:
            if t_end is not None and time.perf_counter() > t_end:
                return "unknown", sols
            r = cs.step()
            if r is None:
                continue
            if r is False:
                break
            sols.append(r)
            cs.block(r)
    finally:
        cs.close()
    return {0: "none", 1: "unique"}.get(len(sols), "multiple"), sols
