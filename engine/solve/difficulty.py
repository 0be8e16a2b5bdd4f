"""A graded difficulty score for puzzles that logic alone solves, and the named bands it maps to.

The score is read from a synchronous logical solve (``maskprop.rounds``): round 1 is everything
single lines deduce from the clues alone; round k is everything lines (re)deduce from what rounds
1..k-1 found, each line looking at the same snapshot; when no line deduces anything, a probing
round (logic level ``probe``) assumes each unknown cell both ways against the snapshot. Nothing
depends on the order lines are stored or processed in. From that solve:

- ``rounds`` R: the length of the longest chain of deductions a player has to follow;
- ``search`` B: bits of looking per cell. A cell found in round k, when d_k of the u_k cells
  still unknown are deducible, costs log2(u_k / d_k): with many cells deducible at once a player
  finds one at a glance, with one cell in a thousand they have to hunt. B is the mean over cells;
- ``technique`` T: the mean over cells of the cheapest way each was deduced in its round: 0 for
  an empty or full line (the clue alone), 1 a plain clue or a 2D block list, 2 a circle (two
  blocks of unknown lengths), 3 a square (three or more), 4 probing.

``score = 10 * (B + T / 2 + log2(R) / 2)``, rounded to one decimal. Chain length enters as a log:
going from 2 to 4 rounds changes a puzzle more than going from 20 to 22. A puzzle that logic does
not solve has no score (``None``): it needs search (or has no unique solution).

Bands (``BANDS``, thresholds in ``BAND_EDGES``) are calibrated on the shared models at
resolutions 12, 16 and 24 (benchmarks/bench_bands.py, the table in docs/SOLVER.md): with every clue
shown the models score 7-17 (``easy``; the torus knot, a tube wound through itself, 30-32), and
band steering towards ``expert`` reaches 26-38 at 12, 28-42 at 16 and 35-41 at 24 (the torus knot
43-53). So every band is reachable on every model at 24 (``expert`` on the t-rex only with
probing); at 16 ``hard`` on all and ``expert`` on five of seven; at 12 ``hard`` on six and
``expert`` on five. (Before: edges 20/30/40, where ``expert`` was reached at 16 on two models.)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import maskprop as mp
from ..jit import njit
from ..model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE, Puzzle

BANDS = ("easy", "medium", "hard", "expert")
# score thresholds between consecutive bands: easy < 20 <= medium < 28 <= hard < 35 <= expert.
# Recalibrated (issue #22) from the highest scores band steering reaches on the shared models
# (benchmarks/bench_bands.py; the table in docs/SOLVER.md): they are 26-38 at 12, 28-42 at 16 and
# 35-41 at 24, so an edge at 40 left expert to the torus knot alone
BAND_EDGES = (20.0, 28.0, 35.0)

COST_TRIVIAL = 0
COST_PLAIN = 1
COST_CIRCLE = 2
COST_SQUARE = 3
COST_PROBE = 4
TECHNIQUES = ("trivial", "plain", "circle", "square", "probe")

LOGICS = ("line", "probe")


@dataclass
class Difficulty:
    """What the logical solve of a puzzle found; ``score``/``band`` are None when it stalled."""
    score: Optional[float]
    band: Optional[str]
    level: Optional[str]          # "line" or "probe" when logic solves it, else None
    solved: bool
    rounds: int = 0
    probe_rounds: int = 0
    search: float = 0.0           # B, bits of looking per cell
    technique: float = 0.0        # T, mean technique cost per cell
    late_fraction: float = 0.0    # cells found in the second half of the rounds
    techniques: dict = field(default_factory=dict)  # share of cells per technique
    known_fraction: float = 0.0   # cells the logic determined

    def to_dict(self) -> dict:
        return {"score": self.score, "band": self.band, "level": self.level, "solved": self.solved,
                "rounds": self.rounds, "probe_rounds": self.probe_rounds,
                "search": round(self.search, 4), "technique": round(self.technique, 4),
                "late_fraction": round(self.late_fraction, 4),
                "techniques": {k: round(v, 4) for k, v in self.techniques.items()},
                "known_fraction": round(self.known_fraction, 4)}


def band_of(score: Optional[float]) -> Optional[str]:
    """The named band of a score (None for None)."""
    if score is None:
        return None
    for name, edge in zip(BANDS, BAND_EDGES):
        if score < edge:
            return name
    return BANDS[-1]


def band_range(band: str) -> tuple:
    """(lo, hi) of a band's scores: lo <= score < hi."""
    if band not in BANDS:
        raise ValueError(f"unknown difficulty band {band!r} (choose from {', '.join(BANDS)})")
    i = BANDS.index(band)
    lo = 0.0 if i == 0 else BAND_EDGES[i - 1]
    hi = math.inf if i == len(BANDS) - 1 else BAND_EDGES[i]
    return lo, hi


def range_miss(target, score) -> float:
    """How far ``score`` is from the range ``target`` (0 inside; inf without a score). The range
    is lo <= s < hi, and scores have one decimal: s == hi is 0.1 out."""
    if score is None:
        return math.inf
    lo, hi = target
    return max(0.0, lo - score) + (score - hi + 0.1 if score >= hi else 0.0)


def in_range(target, score) -> bool:
    """``score`` within ``target`` (lo <= s < hi); True for no target."""
    return target is None or (score is not None and target[0] <= score < target[1])


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


def cover_of(net, enabled) -> np.ndarray:
    """Number of enabled lines through each cell (int64), for any kind's net."""
    return _cover(np.asarray(net.line_start, np.int64), np.asarray(net.line_cells, np.int64),
                  np.asarray(enabled, np.uint8), len(net.cell_start) - 1)


@njit(cache=True)
def _cover(line_start, line_cells, enabled, n_cells):
    # a kernel: numpy's repeat and bincount cost a tenth of a small colour puzzle's solve (#40)
    out = np.zeros(n_cells, np.int64)
    for li in range(enabled.shape[0]):
        if enabled[li]:
            for j in range(line_start[li], line_start[li + 1]):
                out[line_cells[j]] += 1
    return out


def grade(net, enabled, costs, mw, probe: bool, cover=None) -> Difficulty:
    """The difficulty of the clue set ``enabled`` (uint8 per line) on a net of the full clues."""
    n = len(net.cell_start) - 1
    if cover is None:
        cover = cover_of(net, enabled)
    cell_round = np.zeros(n, np.int32)
    cell_cost = np.zeros(n, np.int8)
    stats = np.zeros((n + 1, mp.N_RSTATS), np.int64)
    st, nr = mp.rounds(net, np.asarray(enabled, np.uint8), cover, mw, bool(probe), costs,
                       np.int8(COST_PROBE), cell_round, cell_cost, stats)
    return from_rounds(st, nr, stats[:nr], cell_round, cell_cost, n)


def from_rounds(st, nr, stats, cell_round, cell_cost, n) -> Difficulty:
    """The score of a synchronous solve of any puzzle kind: ``st`` its RUN_* status, ``nr``
    rounds, per round ``stats`` (``maskprop.R_*``: undecided cells at its start, cells it decided,
    whether it probed), per cell the round it was decided in (-1 never) and the cheapest
    technique that decided it; ``n`` cells."""
    known = cell_round >= 0
    n_known = int(np.count_nonzero(known))
    solved = st == mp.RUN_SOLVED
    probe_rounds = int(stats[:, mp.R_PROBE].sum()) if nr else 0
    if n_known:
        u = stats[:, mp.R_UNKNOWN].astype(np.float64)
        d = stats[:, mp.R_DEDUCED].astype(np.float64)
        some = d > 0  # (a colour round may narrow cells without deciding one)
        search = float((d[some] * np.log2(u[some] / d[some])).sum() / n_known)
        costs = cell_cost[known].astype(np.float64)
        technique = float(costs.mean())
        shares = np.bincount(cell_cost[known].astype(np.int64), minlength=len(TECHNIQUES)) / n_known
        late = float(np.count_nonzero(cell_round[known] >= (nr + 1) // 2) / n_known) if nr > 1 else 0.0
    else:
        search = technique = late = 0.0
        shares = np.zeros(len(TECHNIQUES))
    score = None
    level = None
    if solved:
        level = "probe" if probe_rounds else "line"
        score = round(10.0 * (search + technique / 2 + math.log2(max(nr, 1)) / 2), 1)
    return Difficulty(score, band_of(score), level, solved, int(nr), probe_rounds, search, technique, late,
                      {k: float(v) for k, v in zip(TECHNIQUES, shares)}, n_known / max(n, 1))


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
