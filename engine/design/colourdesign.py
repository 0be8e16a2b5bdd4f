"""Design for colour puzzles: hide clues so the puzzle stays unique and solvable at a logic level.

Greedy, as the black-and-white designer's default: the clued lines in a random order drawn from
``seed``; each is hidden when the puzzle without it is still solved by logic alone (line
propagation, or with probing for ``logic="probe"``), else kept. Logic is sound, so "solved by
logic" implies a unique solution, the puzzle's own. Hiding a clue only removes deductions, so a
line kept once would be kept again later: one pass leaves a locally minimal puzzle (no single
further clue can be hidden). Deterministic by seed.

With a band (or a score range) the hides are a sequence; every prefix of it is itself solvable
(it keeps more clues than the whole), so the designer bisects the prefix length on the score
(``coloursolve.grade_colour``), which grows, roughly, with the clues hidden.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..model.colourpuzzle import CKIND_NONE, ColourPuzzle, colour_puzzle_from_grid, with_hidden
from ..solve.coloursolve import ST_OK, build_net, decided, full_state, grade_colour, probe, propagate
from ..solve.difficulty import BAND_EDGES, BANDS, LOGICS


class ColourDesignError(ValueError):
    pass


@dataclass
class ColourDesign:
    puzzle: ColourPuzzle
    logic: str
    seed: int
    hidden_count: int
    n_lines: int
    score: Optional[float]
    band: Optional[str]
    locally_minimal: bool
    trials: int
    time_s: float
    message: str = ""
    stats: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"logic": self.logic, "seed": self.seed, "hidden": self.hidden_count, "lines": self.n_lines,
                "hidden_fraction": self.hidden_count / max(self.n_lines, 1), "score": self.score,
                "band": self.band, "locally_minimal": self.locally_minimal, "trials": self.trials,
                "time_s": self.time_s, "message": self.message}


def _solved_by_logic(net, logic: str) -> bool:
    state = full_state(net)
    if propagate(net, state) != ST_OK:
        return False
    if decided(state).all():
        return True
    if logic != "probe":
        return False
    return probe(net, state, np.zeros(2, dtype=np.int64)) == ST_OK and bool(decided(state).all())


def _band_range(band, score_range):
    if score_range is not None:
        return float(score_range[0]), float(score_range[1])
    if band is None:
        return None
    i = BANDS.index(band)
    lo = 0.0 if i == 0 else BAND_EDGES[i - 1]
    hi = BAND_EDGES[i] if i < len(BAND_EDGES) else float("inf")
    return lo, hi


def design_colour(p: ColourPuzzle, *, logic: str = "line", seed: int = 0, band: Optional[str] = None,
                  score_range=None, start: str = "full", time_limit: Optional[float] = None,
                  progress=None) -> ColourDesign:
    """A designed copy of ``p`` (which must carry its solution); see the module docstring."""
    t0 = time.perf_counter()
    if logic not in LOGICS:
        raise ColourDesignError(f"unknown logic {logic!r} (choose from {', '.join(LOGICS)})")
    if band is not None and band not in BANDS:
        raise ColourDesignError(f"unknown band {band!r} (choose from {', '.join(BANDS)})")
    if p.colour_solution is None:
        # a file without its solution (e.g. webpbn XML or Olšák .g clues): its own unique one
        from ..solve.coloursolve import solve_colour
        r = solve_colour(p, time_limit=time_limit)
        if r.verdict != "unique":
            raise ColourDesignError(f"designing needs the puzzle's solution: the file has none and the "
                                    f"puzzle's verdict is {r.verdict}")
        p = with_hidden(p, np.zeros(p.n_lines, dtype=bool))  # a copy
        p.colour_solution = r.solution.astype(np.uint8)
    full = colour_puzzle_from_grid(p.colour_solution.reshape(p.grid_shape()), p.k, p.clue_colours, p.name)
    base = full if start == "full" else with_hidden(full, p.clue_kind == CKIND_NONE)
    net = build_net(base)
    if not _solved_by_logic(net, logic):
        raise ColourDesignError(f"the puzzle with {'all its' if start == 'full' else 'its current'} clues is "
                                f"not solved by {logic} logic" + ("; try --logic probe" if logic == "line" else ""))
    rng = np.random.default_rng(seed)
    order = rng.permutation(np.flatnonzero(net.mode > 0))
    hides, trials, stopped = [], 0, False
    for n_done, li in enumerate(order):
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            stopped = True
            break
        if progress is not None and progress(n_done / max(len(order), 1), "hiding clues"):
            stopped = True
            break
        keep = net.mode[li]
        net.mode[li] = 0
        trials += 1
        if _solved_by_logic(net, logic):
            hides.append(int(li))
        else:
            net.mode[li] = keep
    target = _band_range(band, score_range)
    use = len(hides)
    message = ""

    def scored(j):
        q = with_hidden(base, np.asarray(hides[:j], dtype=np.int64)) if j else base
        return q, grade_colour(q)

    q, (score, got) = scored(use)
    if target is not None:
        lo_s, hi_s = target
        if score is not None and score > hi_s:
            lo, hi = 0, use  # score(lo) <= hi_s presumably; bisect the last prefix at most hi_s
            while hi - lo > 1:
                mid = (lo + hi) // 2
                _, (s_mid, _) = scored(mid)
                if s_mid is not None and s_mid <= hi_s:
                    lo = mid
                else:
                    hi = mid
            use = lo
            q, (score, got) = scored(use)
        if score is None or not lo_s <= score <= hi_s:
            message = (f"could not reach the score range {lo_s:g}..{hi_s:g} (got {score}); "
                       f"the closest design is written")
    q.meta = dict(p.meta)
    q.colour_groups = p.colour_groups
    q.meta["design"] = {"logic": logic, "seed": int(seed), "method": "greedy", "hidden": len(hides[:use]),
                        "score": score, "band": got}
    return ColourDesign(q, logic, int(seed), int(np.count_nonzero(q.clue_kind == CKIND_NONE)), q.n_lines, score, got,
                        not stopped and use == len(hides), trials, time.perf_counter() - t0, message)
