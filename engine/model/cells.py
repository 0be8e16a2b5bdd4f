"""Cell states. A state is the set of values a cell may still take, as bits.

EMPTY|FILLED == UNKNOWN, and 0 means no value is left: a contradiction. Line solvers
OR together the cells of every fix they find, so "deduced" cells are the ones left with
a single bit.
"""
import numpy as np

EMPTY = np.int8(1)
FILLED = np.int8(2)
UNKNOWN = np.int8(3)
CONTRADICTION = np.int8(0)

STATE_DTYPE = np.int8


def unknown_state(n_cells: int) -> np.ndarray:
    return np.full(n_cells, UNKNOWN, dtype=STATE_DTYPE)


def state_from_bool(grid) -> np.ndarray:
    """A fully known state from a boolean array (True = filled)."""
    g = np.asarray(grid, dtype=bool).ravel()
    return np.where(g, FILLED, EMPTY).astype(STATE_DTYPE)


def parse_state(text: str) -> np.ndarray:
    """'?' / '.' / '-' unknown, '#' / '1' filled, 'x' / '0' empty; for tests and docs."""
    table = {"?": UNKNOWN, ".": UNKNOWN, "-": UNKNOWN, "#": FILLED, "1": FILLED, "x": EMPTY, "0": EMPTY}
    return np.array([table[c] for c in text], dtype=STATE_DTYPE)


def format_state(state) -> str:
    chars = {0: "!", 1: "x", 2: "#", 3: "?"}
    return "".join(chars[int(v)] for v in state)
