"""A cache of colour line solver results by (clue, solver, the line's input states), for the
colour kind (``colourkind.py``): a design's trials and grades run much of the same propagation
again (99 % of the per-colour filter's calls in a design at 24^3 had been made before with the
same input), and many lines share a clue (``colourprop.ColourNet.clue_id``).

Four arrays, ``new_cache``: per slot the clue id (-1: free), the solver kind, the input states and
the result. A key is compared in full, so a hit is the solver's own answer, never a guess from a
hash. The results of a line's solver depend only on its clue and input, so a cache may serve any
line of the same clue, and any puzzle whose shown lines have the same clues (the designer's masks
of one puzzle).
"""
from __future__ import annotations

import numpy as np

from ...jit import njit

K_FILTER = 1    # the per-colour filter (``relax_3d``)
K_COMPLETE = 2  # a complete line solve (the product solver, or the 2D automaton)
K_FIXPOINT = 3  # the per-colour filter to its fixpoint (``relax_3d_fixpoint``)

# At most this memory (inputs and results); 2^16 slots hold a 24^3 design's ~25,000 distinct
# calls with room (24 MB at 24^3).
CACHE_BYTES = 32 << 20
CACHE_SLOTS = 1 << 16


def cache_size(n_lines: int, longest: int) -> int:
    """Slots: a power of two, about 32 per line, within CACHE_BYTES."""
    want = min(CACHE_SLOTS, 32 * max(n_lines, 1), CACHE_BYTES // (16 * max(longest, 1)))
    return 1 << max(int(want).bit_length() - 1, 4)


def new_cache(net) -> tuple:
    """An empty cache for the lines of ``net`` (a ``colourprop.ColourNet``)."""
    longest = int(np.diff(net.line_start).max()) if len(net.mode) else 1
    size = cache_size(len(net.mode), longest)
    return (np.full(size, -1, dtype=np.int64), np.zeros(size, dtype=np.int64),
            np.zeros((size, longest), dtype=np.int64), np.zeros((size, longest), dtype=np.int64))


@njit(cache=True)
def cache_slot(li, kind, masks, c_line, c_kind, c_in):
    """Where (clue id ``li``, filter ``kind``, input ``masks``) is or goes in the line cache: (slot,
    found). The key is checked in full (the input masks), so a hit is exact, never a hash guess."""
    n = masks.shape[0]
    h = np.uint64(1469598103934665603) ^ np.uint64(li * 4 + kind)
    for j in range(n):
        h = (h ^ np.uint64(masks[j])) * np.uint64(1099511628211)
    size = c_line.shape[0]
    home = np.int64(h >> np.uint64(24)) & (size - 1)
    for p in range(4):
        s = (home + p) & (size - 1)
        if c_line[s] < 0:
            return s, False
        if c_line[s] == li and c_kind[s] == kind:
            same = True
            for j in range(n):
                if c_in[s, j] != masks[j]:
                    same = False
                    break
            if same:
                return s, True
    return home, False  # all four taken: the newest result replaces the home slot's


@njit(cache=True)
def cache_store(s, li, kind, masks, res, c_line, c_kind, c_in, c_out):
    """Put (clue id ``li``, ``kind``, ``masks``) -> ``res`` in slot ``s`` (from ``cache_slot``)."""
    c_line[s] = li
    c_kind[s] = kind
    for j in range(masks.shape[0]):
        c_in[s, j] = masks[j]
        c_out[s, j] = res[j]
