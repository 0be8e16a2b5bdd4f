"""A local search for solutions of loose 3D puzzles: a walk over whole grids that flips one cell
at a time towards satisfying every clue (WalkSAT's scheme, with lines for clauses).

3D puzzles with many solutions (random noise, every clue a count in two or three-plus blocks)
are hard for every complete method: line solving and probing deduce almost nothing, the guided
search wanders, and CDCL needs tens of thousands of conflicts for one solution. Measured on 20^3
white noise (fill 0.35, every clue shown, no stored solution): the search gave no verdict in
60 s, CaDiCaL needed ~9 s for a first solution. Yet such puzzles are loose: grids satisfying
every clue are plentiful, and a walk from a random grid meets one after 10-150k flips (under
0.5 s). Two walks from different random grids meet two different solutions, which settles
``multiple``; a walk proves nothing else, so a spent budget hands over to the complete search.

The walk: a line's cost is how far it is from its clue (|filled - total| plus the blocks missing
or in excess: circle exactly 2, square at least 3, plain 1). Each step picks a violated line at
random and flips one of its unknown cells: with probability ``noise`` a random one, else one of
those whose flip lowers the summed cost of its lines the most (ties at random). Only 3D count
clues (plain, circle, square) are walked; cells known by logic keep their value.
"""
from __future__ import annotations

import numpy as np

from ...model.cells import FILLED, UNKNOWN
from ...jit import njit
from ...model.puzzle import KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE

# The chance of a random flip instead of a greedy one, in 1/1000. Measured on 12^3 noise (five
# seeds, first solution within 6M flips): 150 met 4, 100 three, 60 and 200 two or three, 20 and
# 50 none; at 20^3 150 met each of two seeds in fewer flips than 100.
NOISE_PERMILLE = 150


@njit(inline="always")
def _rand(rng):
    """The next number in 0..2^31-1 of a linear congruential generator whose state is rng[0]
    (the same sequence in Python and compiled; the low bits are dropped, they cycle fast)."""
    rng[0] = (rng[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return rng[0] >> 8


@njit
def _line_cost(li, x, ls, lc, kinds, cst, cd, flip):
    """How far line ``li`` of grid ``x`` is from its clue, with cell ``flip`` flipped (-1: none)."""
    cnt = 0
    blocks = 0
    prev = False
    for k in range(ls[li], ls[li + 1]):
        c = lc[k]
        v = x[c] != (c == flip)
        if v:
            cnt += 1
            if not prev:
                blocks += 1
        prev = v
    kind = kinds[li]
    cost = abs(cnt - cd[cst[li]])
    if kind == KIND_PLAIN:
        cost += max(0, blocks - 1)
    elif kind == KIND_CIRCLE:
        cost += abs(blocks - 2)
    elif kind == KIND_SQUARE:
        cost += max(0, 3 - blocks)
    return cost


@njit
def _walk(x, free, ls, lc, kinds, cst, cd, cs, cl, max_flips, noise_permille, rng):
    """Up to ``max_flips`` flips of the cells ``free`` of grid ``x`` (bool, changed in place);
    returns the number of violated lines left (0: ``x`` satisfies every clue)."""
    nl = len(kinds)
    cost = np.zeros(nl, np.int64)
    pos = np.full(nl, -1, np.int64)
    bad = np.empty(nl, np.int64)
    nbad = 0
    for li in range(nl):
        if kinds[li] != KIND_NONE:
            cost[li] = _line_cost(li, x, ls, lc, kinds, cst, cd, -1)
            if cost[li] > 0:
                pos[li] = nbad
                bad[nbad] = li
                nbad += 1
    longest = 0
    for li in range(nl):
        longest = max(longest, ls[li + 1] - ls[li])
    ties = np.empty(longest, np.int64)
    for _ in range(max_flips):
        if nbad == 0:
            break
        line = bad[_rand(rng) % nbad]
        n_free = 0
        n_ties = 0
        best = 1 << 40
        for k in range(ls[line], ls[line + 1]):
            c = lc[k]
            if not free[c]:
                continue
            n_free += 1
            d = 0
            for j in range(cs[c], cs[c + 1]):
                d += _line_cost(cl[j], x, ls, lc, kinds, cst, cd, c) - cost[cl[j]]
            if d < best:
                best = d
                n_ties = 0
            if d == best:
                ties[n_ties] = c
                n_ties += 1
        if n_free == 0:
            break  # a violated line of known cells: no grid from here satisfies it
        if _rand(rng) % 1000 < noise_permille:
            r = _rand(rng) % n_free
            c = -1
            for k in range(ls[line], ls[line + 1]):
                if free[lc[k]]:
                    if r == 0:
                        c = lc[k]
                        break
                    r -= 1
        else:
            c = ties[_rand(rng) % n_ties]
        x[c] = not x[c]
        for j in range(cs[c], cs[c + 1]):
            li = cl[j]
            new = _line_cost(li, x, ls, lc, kinds, cst, cd, -1)
            if new > 0 and cost[li] == 0:
                pos[li] = nbad
                bad[nbad] = li
                nbad += 1
            elif new == 0 and cost[li] > 0:
                q = pos[li]
                last = bad[nbad - 1]
                bad[q] = last
                pos[last] = q
                nbad -= 1
                pos[li] = -1
            cost[li] = new
    return nbad


def walkable(net) -> bool:
    """Whether the walk applies: a 3D puzzle (count clues only) with a circle or square clue."""
    kinds = net.clue_kind
    counts = (kinds == KIND_CIRCLE) | (kinds == KIND_SQUARE)
    return bool(np.any(counts)) and bool(np.all(counts | (kinds == KIND_NONE) | (kinds == KIND_PLAIN)))


def walk_start(net, state, rng):
    """A random grid to walk from: known cells as in ``state``, unknown covered cells filled with
    the mean density of their lines' clues; and the mask of the cells the walk may flip."""
    ls, _lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    n_cells = len(state)
    covered = np.diff(cs) > 0
    free = covered & (state == UNKNOWN)
    length = np.maximum(np.diff(ls), 1)
    total = cd[np.minimum(cst[:-1], max(len(cd) - 1, 0))] if len(cd) else np.zeros(len(kinds))
    density = np.where(kinds != KIND_NONE, total / length, 0.0)
    owner = np.repeat(np.arange(n_cells), np.diff(cs))  # the cell of each cell -> line entry
    per_cell = np.bincount(owner, weights=density[cl], minlength=n_cells) / np.maximum(np.diff(cs), 1)
    gen = np.random.default_rng(int(rng[0]))
    rng[0] = gen.integers(1 << 31)
    x = np.where(free, gen.random(n_cells) < per_cell, state == FILLED)
    return x, free


def walk(net, x, free, flips, rng, noise_permille=NOISE_PERMILLE) -> int:
    """Walk ``x`` for up to ``flips`` flips; the number of violated lines left (0: a solution)."""
    return int(_walk(x, free, net[0], net[1], net[2], net[3], net[4], net[5], net[6], int(flips),
                     int(noise_permille), rng))
