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

# the columns of a round's statistics, as the kinds' synchronous round solves write them
R_UNKNOWN = 0   # unknown cells at the start of the round
R_DEDUCED = 1   # cells deduced in the round
R_PROBE = 2     # 1: a probing round (line propagation had stalled)
N_RSTATS = 3


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


def from_rounds(solved, nr, stats, cell_round, cell_cost, n) -> Difficulty:
    """The score of a synchronous solve of any puzzle kind: ``solved`` whether it solved the puzzle, ``nr``
    rounds, per round ``stats`` (``R_*``: undecided cells at its start, cells it decided,
    whether it probed), per cell the round it was decided in (-1 never) and the cheapest
    technique that decided it; ``n`` cells."""
    known = cell_round >= 0
    n_known = int(np.count_nonzero(known))
    solved = bool(solved)
    probe_rounds = int(stats[:, R_PROBE].sum()) if nr else 0
    if n_known:
        u = stats[:, R_UNKNOWN].astype(np.float64)
        d = stats[:, R_DEDUCED].astype(np.float64)
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
