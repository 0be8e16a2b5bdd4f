"""The plain kind's grading: the technique cost of each clue and the synchronous round solve
(``maskprop.rounds``) that the one score (``model.difficulty.from_rounds``) reads."""
from __future__ import annotations

import numpy as np

from . import maskprop as mp
from ...model.difficulty import (COST_CIRCLE, COST_PLAIN, COST_PROBE, COST_SQUARE, COST_TRIVIAL, LOGICS,
                                 N_RSTATS, Difficulty, from_rounds)
from ...model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE, Puzzle


def line_costs(puzzle: Puzzle) -> np.ndarray:
    """Technique cost (int8) of each line's clue as if shown: see the module docstring."""
    kind = puzzle.clue_kind.astype(np.int64)
    lens = np.diff(puzzle.line_start)
    n_nums = np.diff(puzzle.clue_start)
    first = np.zeros(len(kind), np.int64)
    has = n_nums > 0
    first[has] = puzzle.clue_data[puzzle.clue_start[:-1][has]]
    csum = np.concatenate(([0], np.cumsum(puzzle.clue_data)))
    total = csum[puzzle.clue_start[1:]] - csum[puzzle.clue_start[:-1]]
    cost = np.full(len(kind), COST_PLAIN, np.int8)
    cost[kind == KIND_CIRCLE] = COST_CIRCLE
    cost[kind == KIND_SQUARE] = COST_SQUARE
    plain_trivial = (kind == KIND_PLAIN) & ((first == 0) | (first == lens))
    # a block list is trivial when it fills its line exactly (blocks plus one gap between each)
    blocks_trivial = (kind == KIND_BLOCKS) & ((n_nums == 0) | (total + n_nums - 1 == lens))
    cost[plain_trivial | blocks_trivial] = COST_TRIVIAL
    cost[kind == KIND_NONE] = COST_TRIVIAL
    return cost


def grade(net, enabled, costs, mw, probe: bool, cover=None) -> Difficulty:
    """The difficulty of the clue set ``enabled`` (uint8 per line) on a net of the full clues."""
    n = len(net.cell_start) - 1
    if cover is None:
        cover = mp.cover_of(net, enabled)
    cell_round = np.zeros(n, np.int32)
    cell_cost = np.zeros(n, np.int8)
    stats = np.zeros((n + 1, N_RSTATS), np.int64)
    st, nr = mp.rounds(net, np.asarray(enabled, np.uint8), cover, mw, bool(probe), costs,
                       np.int8(COST_PROBE), cell_round, cell_cost, stats)
    return from_rounds(st == mp.RUN_SOLVED, nr, stats[:nr], cell_round, cell_cost, n)


def difficulty(puzzle: Puzzle, logic: str = "probe") -> Difficulty:
    """The difficulty of a puzzle as it is (its shown clues), solved with ``logic`` ("line":
    line propagation only; "probe": probing when it stalls). Cells no clue covers stay unknown,
    so such a puzzle is not solved (score None)."""
    from .propagate import build_net
    if logic not in LOGICS:
        raise ValueError(f"unknown logic level {logic!r} (choose from {', '.join(LOGICS)})")
    net = build_net(puzzle)
    enabled = (puzzle.clue_kind != KIND_NONE).astype(np.uint8)
    return grade(net, enabled, line_costs(puzzle), mp.new_mask_work(net), logic == "probe")
