"""Puzzle statistics: the columns of the seed study's Table 4 ("Breakdown of line types and
their ranges in the test puzzles").

The seed counts every line once: Empty + Single + Double + Triple+ = Lines (e.g. Dino 12×7×3:
85 + 46 + 10 + 0 = 141), so a plain clue of 0 is "empty" and not "plain"; its ranges are the
clue values (Single "1-5" never starts at 0). Here Single/Double/Triple+ are named by the clue
kinds plain/circle/square, and lines without a clue are counted as ``hidden`` (the seed has no
clue removal, so its puzzles have 0).
"""
from __future__ import annotations

import numpy as np

from .puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE, Puzzle


def _summary(values: np.ndarray) -> dict:
    if values.size == 0:
        return {"count": 0, "min": None, "max": None}
    return {"count": int(values.size), "min": int(values.min()), "max": int(values.max())}


def _line_sums(puzzle: Puzzle) -> tuple:
    """(number of clue numbers, their sum) per line, from the CSR clue arrays."""
    start = puzzle.clue_start
    csum = np.concatenate(([0], np.cumsum(puzzle.clue_data, dtype=np.int64)))
    return np.diff(start), csum[start[1:]] - csum[start[:-1]]


def puzzle_stats(puzzle: Puzzle) -> dict:
    """Size, cells, lines, hidden lines, and per clue kind ``{"count", "min", "max"}``.

    3D: ``empty`` (plain 0), ``plain`` (1 block, total ≥ 1), ``circle``, ``square`` over the clue
    totals. 2D: ``empty`` (no block), ``filled`` over the totals of the other lines (filled cells
    per line) and ``blocks`` over their block counts.
    """
    kind = puzzle.clue_kind
    n_numbers, totals = _line_sums(puzzle)
    out = {
        "shape": [int(s) for s in puzzle.shape],
        "cells": int(puzzle.n_cells),
        "lines": int(puzzle.n_lines),
        "hidden": int(np.count_nonzero(kind == KIND_NONE)),
    }
    if puzzle.is_3d:
        plain = kind == KIND_PLAIN
        out["empty"] = _summary(totals[plain & (totals == 0)])
        out["plain"] = _summary(totals[plain & (totals > 0)])
        out["circle"] = _summary(totals[kind == KIND_CIRCLE])
        out["square"] = _summary(totals[kind == KIND_SQUARE])
    else:
        blocks = kind == KIND_BLOCKS
        full = blocks & (n_numbers > 0)
        out["empty"] = _summary(totals[blocks & (n_numbers == 0)])
        out["filled"] = _summary(totals[full])
        out["blocks"] = _summary(n_numbers[full])
    return out


KEYS_3D = ("shape", "cells", "lines", "hidden", "empty", "plain", "circle", "square")
KEYS_2D = ("shape", "cells", "lines", "hidden", "empty", "filled", "blocks")


def format_range(s: dict) -> str:
    """Table 4's notation: ``count (min-max)``, ``count (v)`` when min == max, ``0`` when none."""
    if not s["count"]:
        return "0"
    r = str(s["min"]) if s["min"] == s["max"] else f"{s['min']}-{s['max']}"
    return f"{s['count']} ({r})"


def _or_dash(v) -> str:
    return "-" if v is None else str(v)


def format_table(rows) -> str:
    """A plain-text table of ``[(label, stats), ...]``, one block per dimension present."""
    parts = []
    for dim, heads, keys in (
            (3, ("Puzzle", "Size", "Cells", "Lines", "Hidden", "Empty", "Plain", "Circle", "Square"),
             ("empty", "plain", "circle", "square")),
            (2, ("Puzzle", "Size", "Cells", "Lines", "Hidden", "Empty", "Filled/line", "Blocks/line"),
             ("empty", "filled", "blocks"))):
        graded = any("score" in s for _, s in rows)  # python -m engine stats --difficulty
        if graded:
            heads = heads + ("Score", "Band")
        table = [list(heads)]
        for label, s in rows:
            if len(s["shape"]) != dim:
                continue
            table.append([label, "×".join(map(str, s["shape"])), str(s["cells"]), str(s["lines"]),
                          str(s["hidden"])] + [format_range(s[k]) for k in keys]
                         + ([_or_dash(s.get("score")), _or_dash(s.get("band"))] if graded else []))
        if len(table) == 1:
            continue
        widths = [max(len(r[i]) for r in table) for i in range(len(heads))]
        lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                 for r in table]
        lines.insert(1, "  ".join("-" * w for w in widths))
        parts.append("\n".join(line.rstrip() for line in lines))
    return "\n\n".join(parts) + "\n"
