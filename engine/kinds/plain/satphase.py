"""Phases for the CDCL solver's CNF of a 2D puzzle's block lists: where belief propagation
between the lines puts each cell and each block start (``sat.SatSearch``;
3D puzzles keep CaDiCaL's own, measured faster there).

CaDiCaL decides a variable to its phase. Left to its defaults, the first decisions on the order
variables ("block j starts at or before p") are all "true", which piles every block
at the start of its line; phases read off each line's weighted completions start it near a
solution instead. Measured from the root state (one CaDiCaL per puzzle, first solution) on the
463 tournament puzzles (every 10th of 25 sets) our search hands over: 212.9 s of CPU without
phases, 176.4 s with the cells' phases alone, 87.7 s with every variable's (conflicts 4.13M,
3.36M, 1.64M; the CNF had cover variables then, which had phases too). The marginals are
nonosolve's (``sat.h``: ``lineMarginals``, ``encodePuzzle``); so are 20 rounds with messages
damped by half.

- ``line_marginals``: forward-backward over a line's completions under the known cells, each
  weighted by the product of its cells' prior chances: each block's start distribution, each
  cell's chance of being filled.
- ``beliefs``: every cell's chance after rounds of messages between the lines (a line's message
  to a cell is its marginal there with the other lines' messages as the prior, divided out).
- ``blocks_phases``: the phases of ``satblocks.blocks_cnf``'s variables, in its numbering.
"""
import numpy as np

from ...jit import njit
from ...model.cells import EMPTY, FILLED
from .satblocks import block_spans, line_blocks, order_numbers

BP_ROUNDS = 20
_CLAMP = 1e-6  # no unknown cell's chance is quite 0 or 1, so that its log-odds stay finite


@njit
def line_marginals(w1, blocks, ps, cell_p):
    """The completions of a line of ``len(w1)`` cells with clue ``blocks``, each weighted by the
    product of ``w1[i]`` over its filled cells and ``1 - w1[i]`` over its empty ones (a known cell
    has ``w1`` 0 or 1): ``ps[j, s]`` gets the chance that block j starts at s (s up to the line's
    length), ``cell_p[i]`` the chance that cell i is filled. False when no completion has
    weight, or the weights under- or overflow."""
    n = len(w1)
    k = len(blocks)
    # blk[j, s]: block j on [s, s + b_j) and the empty cell after it (none at the line's end),
    # from sums of logs over a sliding window; known empty cells counted apart
    logs = np.zeros(n + 1)
    zeros = np.zeros(n + 1, np.int64)
    for i in range(n):
        logs[i + 1] = logs[i] + (np.log(w1[i]) if w1[i] > 0.0 else 0.0)
        zeros[i + 1] = zeros[i] + (1 if w1[i] <= 0.0 else 0)
    blk = np.zeros((k, n + 1))
    for j in range(k):
        b = blocks[j]
        for s in range(n - b + 1):
            if zeros[s + b] - zeros[s] == 0:
                after = 1.0 if s + b == n else 1.0 - w1[s + b]
                blk[j, s] = np.exp(logs[s + b] - logs[s]) * after
    # F[j, i]: the prefix [0, i) holding blocks 0..j-1, its last cell empty (or i = 0);
    # B[j, i]: the suffix from i holding blocks j..k-1; cell n is a virtual empty cell
    F = np.zeros((k + 1, n + 2))
    B = np.zeros((k + 1, n + 2))
    F[0, 0] = 1.0
    for i in range(n + 1):
        w0 = 1.0 if i == n else 1.0 - w1[i]
        for j in range(k + 1):
            v = F[j, i]
            if v == 0.0:
                continue
            F[j, i + 1] += v * w0
            if j < k and i + blocks[j] <= n:
                F[j + 1, i + blocks[j] + 1] += v * blk[j, i]
    B[k, n + 1] = 1.0
    for i in range(n, -1, -1):
        w0 = 1.0 if i == n else 1.0 - w1[i]
        for j in range(k, -1, -1):
            v = w0 * B[j, i + 1]
            if j < k and i + blocks[j] <= n:
                v += blk[j, i] * B[j + 1, i + blocks[j] + 1]
            B[j, i] = v
    total = B[0, 0]
    if not (total > 0.0) or not np.isfinite(total):
        return False
    cell_p[:n] = 0.0
    for j in range(k):
        b = blocks[j]
        inside = 0.0  # the chance that block j starts in (s - b, s]: it covers cell s
        for s in range(n + 1):
            p = 0.0
            if s + b <= n:
                p = F[j, s] * blk[j, s] * B[j + 1, s + b + 1] / total
            ps[j, s] = p
            inside += p
            if s >= b:
                inside -= ps[j, s - b]
            if s < n:
                cell_p[s] += inside
    return True


@njit
def beliefs(line_start, line_cells, clue_start, clue_data, use, state, rounds):
    """Each cell's chance of being filled after ``rounds`` rounds of messages between the lines
    ``use`` marks (block lists): a line's message to a cell is the log-odds of its marginal
    there, with the other lines' messages as the prior, less the prior's; each new message is
    averaged with the old. Known cells are 0 / 1."""
    n_lines = len(line_start) - 1
    n_cells = len(state)
    msg = np.zeros(len(line_cells))  # per line-cell slot: the line's message, log-odds
    total = np.zeros(n_cells)        # per cell: the sum of its lines' messages
    longest = 1
    most = 1
    for li in range(n_lines):
        longest = max(longest, line_start[li + 1] - line_start[li])
        most = max(most, clue_start[li + 1] - clue_start[li])
    ps = np.zeros((most, longest + 1))
    cell_p = np.zeros(longest)
    w1 = np.zeros(longest)
    blocks = np.zeros(most, np.int64)
    for _ in range(rounds):
        for li in range(n_lines):
            if not use[li]:
                continue
            a = line_start[li]
            n = line_start[li + 1] - a
            k = line_blocks(clue_start, clue_data, li, blocks)
            open_cells = False
            for i in range(n):
                x = line_cells[a + i]
                if state[x] == FILLED:
                    w1[i] = 1.0
                elif state[x] == EMPTY:
                    w1[i] = 0.0
                else:
                    open_cells = True
                    prior = total[x] - msg[a + i]
                    w1[i] = min(max(1.0 / (1.0 + np.exp(-prior)), _CLAMP), 1.0 - _CLAMP)
            if not open_cells or not line_marginals(w1[:n], blocks[:k], ps, cell_p):
                continue
            for i in range(n):
                x = line_cells[a + i]
                if state[x] == FILLED or state[x] == EMPTY:
                    continue
                post = min(max(cell_p[i], _CLAMP), 1.0 - _CLAMP)
                extrinsic = np.log(post / (1.0 - post)) - np.log(w1[i] / (1.0 - w1[i]))
                new = 0.5 * msg[a + i] + 0.5 * extrinsic
                total[x] += new - msg[a + i]
                msg[a + i] = new
    out = np.empty(n_cells)
    for x in range(n_cells):
        if state[x] == FILLED:
            out[x] = 1.0
        elif state[x] == EMPTY:
            out[x] = 0.0
        else:
            out[x] = 1.0 / (1.0 + np.exp(-total[x]))
    return out


@njit
def blocks_phases(line_start, line_cells, clue_start, clue_data, lines, top, belief):
    """The phases of the variables ``satblocks.blocks_cnf`` makes for the block lists ``lines``
    from ``top`` + 1 on (its numbering without ``colours``, ``bounds`` or ``state``: the order
    variables only), each line's completions weighted by ``belief``: "block j starts at or before
    p" true when the chance of that is at least 1/2.
    Returns (the new top, as ``blocks_cnf``'s; the phases as literals: +v true, -v false; none
    for a line whose completions have no weight)."""
    longest = 1
    most = 1
    bound = 0
    for li in lines:
        n = line_start[li + 1] - line_start[li]
        k = clue_start[li + 1] - clue_start[li]
        longest = max(longest, n)
        most = max(most, k)
        bound += k * (n + 1)
    phase = np.empty(bound, np.int64)
    n_phase = 0
    ps = np.zeros((most, longest + 1))
    cell_p = np.zeros(longest)
    w1 = np.zeros(longest)
    b = np.zeros(most, np.int64)
    lo = np.zeros(most, np.int64)
    hi = np.zeros(most, np.int64)
    yb = np.zeros(most, np.int64)
    gap = np.ones(most + 1, np.int64)  # block lists: one empty cell between blocks
    for li in lines:
        a0 = line_start[li]
        n = line_start[li + 1] - a0
        k = line_blocks(clue_start, clue_data, li, b)
        if k == 0:
            continue
        if not block_spans(n, b, gap, k, lo, hi):
            continue  # the clue does not fit: blocks_cnf's empty clause, no variables
        top = order_numbers(k, lo, hi, top, yb)
        for i in range(n):
            w1[i] = belief[line_cells[a0 + i]]
        if not line_marginals(w1[:n], b[:k], ps, cell_p):
            continue  # no phases for this line's variables, which keep their numbers
        for j in range(k):  # the order variables, p in [lo, hi)
            cum = 0.0
            for p in range(lo[j], hi[j]):
                cum += ps[j, p]
                v = yb[j] + p - lo[j]
                phase[n_phase] = v if cum >= 0.5 else -v
                n_phase += 1
    return top, phase[:n_phase]
