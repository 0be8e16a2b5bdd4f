"""Steering a design into a difficulty band or score range (``steer``), for every puzzle kind:
show clues again when it is too hard (a bisection along the hidden clues), anneal it when it is too
easy (the distance to the range as the objective), then final passes that hide what stays
solvable and no farther from the range.

The final passes grade each clue they could hide; grades are counted (``FINAL_CELL_GRADES``), so
a seed fixes the result. Each pass first screens its clues by halves (``Search.hideable_alone``:
which clues the puzzle still solves without, one at a time, at a pass's cost; one that does not
never will, since the mask only shrinks), hides at once the longest prefix of the candidates' pass
that keeps the score (a bisection: every prefix of a pass solves), then grades the rest one by
one.
"""
from __future__ import annotations

import numpy as np

from ..model.difficulty import Difficulty, in_range, range_miss
from .search import ANNEAL_MAX_MOVES, ANNEAL_MOVES_PER_LINE, Search

# Annealing moves per line when steering a too easy design towards a harder band.
STEER_MOVES_PER_LINE = 2
# Annealing runs at most, when one ends short of the band (each from the best so far,
# reheated): each of STEER_MOVES_PER_LINE moves per line (at most ANNEAL_MAX_MOVES)
STEER_ROUNDS = 6
# The grades the final passes within the band may spend: FINAL_CELL_GRADES / cells (a grade's
# work grows with the cells), at least FINAL_GRADES_MIN: 244 for 16^3 cells, 72 for 24^3,
# thousands on small puzzles. A design that runs out is not locally minimal and says so.
FINAL_CELL_GRADES = 1_000_000
FINAL_GRADES_MIN = 16


def band_value(target, n_lines):
    """Objective for annealing towards a score range: the distance to the range dominates,
    then (inside it) the hidden count."""
    def value(enabled, diff: Difficulty):
        hidden = n_lines - int(enabled.sum())
        if diff.score is None:
            return -1e9
        return -100.0 * range_miss(target, diff.score) + hidden / max(n_lines, 1)
    return value


def bisect_hides(s: Search, enabled, hidden, below):
    """The longest prefix of ``hidden`` (a sequence of hides from ``enabled``, each prefix
    solving) whose mask ``below(mask)`` accepts, by bisection (prefix 0 is taken to be)."""
    def mask(k):
        m = enabled.copy()
        m[hidden[:k]] = 0
        return m
    a, b = 0, len(hidden)
    if b == 0 or below(mask(b)):
        return mask(b)
    while b - a > 1:
        s.check()
        mid = (a + b) // 2
        if below(mask(mid)):
            a = mid
        else:
            b = mid
    return mask(a)


def steer(s: Search, enabled, target, minimal, anneal=False, anneal_moves=None):
    """Bring a solving mask into the score range ``target``; returns (mask, locally minimal:
    in range and no shown clue can go while it stays solvable and in range).
    ``anneal``: also anneal a mask already in range (hiding more while it stays in range)."""
    lo, hi = target
    diff = s.grade(enabled)
    if in_range(target, diff.score) and not anneal:
        return enabled, minimal
    if diff.score is not None and diff.score >= hi:
        # too hard: show clues again. Every subset of a solving hidden set solves (monotone), so
        # hide only a prefix of the hidden clues in a seeded order; the score grows (almost
        # monotonically) with the prefix, so bisect for the longest prefix still below ``hi``
        hidden = np.flatnonzero(enabled == 0)
        hidden = hidden[s.rng.permutation(len(hidden))]
        full = np.ones(s.n_lines, np.uint8)
        enabled = bisect_hides(s, full, hidden, lambda m: _below(s.grade(m).score, hi))
        s.current = enabled
    if anneal or not in_range(target, s.grade(enabled).score):
        # too easy (the score grows as the deduction chains do), or annealing asked for: anneal
        # with the distance to the range first, then the hidden count, as the objective. A run
        # that ends outside the range anneals again from its best (reheated), up to
        # STEER_ROUNDS runs: the budget is counted in moves, so the seed alone fixes the result
        per_line = ANNEAL_MOVES_PER_LINE if anneal else STEER_MOVES_PER_LINE
        moves = anneal_moves if anneal_moves is not None else min(per_line * s.n_lines, ANNEAL_MAX_MOVES)
        # the final passes grade every trial: keep them a quarter of the time
        s.reserve = max(s.reserve, 0.25 * s.time_limit) if s.time_limit is not None else s.reserve
        lo_frac, hi_frac = s.span
        objective = band_value(target, s.n_lines)
        r = 0
        for r in range(STEER_ROUNDS):
            s.span = (lo_frac + (hi_frac - lo_frac) * 0.8 * r / STEER_ROUNDS,
                      lo_frac + (hi_frac - lo_frac) * 0.8 * (r + 1) / STEER_ROUNDS)
            enabled = s.anneal(enabled, moves, objective)
            if s.cut or in_range(target, s.grade(enabled).score):
                break
        s.stats["steer_rounds"] = r + 1
        if not s.cut and not in_range(target, s.grade(enabled).score):
            enabled = restarts_and_moves(s, enabled, target)
        s.span = (lo_frac + (hi_frac - lo_frac) * 0.8, hi_frac)
    enabled, finished = final_passes(s, enabled, target)
    return enabled, finished and range_miss(target, s.grade(enabled).score) == 0.0


def restarts_and_moves(s: Search, enabled, target):
    """When annealing ends short of the range: STEER_RESTARTS passes from every clue in other
    seeded orders (each brought below the range's top by the bisection when it overshoots), then
    up to STEER_MOVES reveal-one / re-pass moves from the closest design (show one hidden clue,
    run the pass over the other shown clues in a seeded order), each kept when it comes no
    farther from the range (more hides at the same distance). The annealing moves hide only lines
    a run did not use, which leaves a locally minimal design's structure as it was; a pass after
    a reveal rebuilds it (measured at 16 on colour puzzles of the duck and the T-rex: 28.0 ->
    30.2 and 27.9 -> 29.2, where annealing left them)."""
    hi = target[1]

    def key(m):
        return range_miss(target, s.grade(m).score), -int((m == 0).sum())
    best = enabled
    full = np.ones(s.n_lines, np.uint8)
    for r in range(STEER_RESTARTS):
        if key(best)[0] == 0:
            return best
        m = full.copy()
        s.prune(m, s.rng.permutation(s.n_lines), s.probe)
        if not _below(s.grade(m).score, hi):
            m = bisect_hides(s, full, np.asarray(s.last_hides, np.int64), lambda x: _below(s.grade(x).score, hi))
        if key(m) < key(best):
            best = s.current = m
    s.stats["steer_restarts"] = STEER_RESTARTS
    for _ in range(STEER_MOVES):
        hidden = np.flatnonzero(best == 0)
        if key(best)[0] == 0 or len(hidden) == 0:
            break
        m = best.copy()
        reveal = int(hidden[s.rng.integers(len(hidden))])
        m[reveal] = 1
        others = np.flatnonzero(m)
        others = others[others != reveal]
        s.prune(m, others[s.rng.permutation(len(others))], s.probe)
        if key(m) <= key(best):
            best = s.current = m
    return best


# When annealing ends short of the band: passes from every clue in other seeded orders, then
# reveal-one / re-pass moves (``restarts_and_moves``); each a pass and a grade (0.1-0.7 s at 24^3).
STEER_RESTARTS = 4
STEER_MOVES = 12


def _below(score, hi) -> bool:
    return score is not None and score < hi


def final_passes(s: Search, enabled, target):
    """Hide each shown clue, in seeded orders, while the puzzle solves at the logic level and the
    score comes no farther from the range (in it: stays in it), until a pass hides nothing (then
    every kept clue was tried against the final mask: True) or the grade budget is spent
    (False). The score is not monotone in the hides, so passes repeat."""
    budget = max(FINAL_GRADES_MIN, FINAL_CELL_GRADES // max(s.n_cells, 1))
    s.phase = "final pass within the band"  # (its span: the rest of the steering stage's)
    spent = [0]
    miss = [range_miss(target, s.grade(enabled).score)]
    stuck = np.zeros(s.n_lines, bool)  # hiding it alone does not solve: it never will again
    s.current = enabled = enabled.copy()

    def closer(m) -> bool:
        spent[0] += 1
        d = range_miss(target, s.grade(m).score)
        return d <= miss[0]

    def accept(m):
        nonlocal enabled
        enabled = m.copy()
        s.current = enabled
        miss[0] = range_miss(target, s.grade(enabled).score)

    while True:
        if spent[0] >= budget:
            return _out_of_budget(s, enabled, budget)
        hid = 0
        cands = np.flatnonzero((enabled > 0) & ~stuck)
        alone = s.hideable_alone(enabled, cands)
        stuck[cands[~alone]] = True
        order = s.rng.permutation(cands[alone])
        if len(order) > 1:
            # a batch: the pass over the candidates gives hides whose every prefix solves; the
            # longest prefix that keeps the score goes at once
            trial = enabled.copy()
            s.prune(trial, order, s.probe)
            seq = order[trial[order] == 0]
            if len(seq):
                best = bisect_hides(s, enabled, seq, lambda m: spent[0] < budget and closer(m))
                got = int(enabled.sum() - best.sum())
                if got:
                    accept(best)
                    hid += got
        for i, li in enumerate(order):
            s.check(i / max(len(order), 1))
            if not enabled[li]:
                continue
            if spent[0] >= budget:
                return _out_of_budget(s, enabled, budget)
            m = enabled.copy()
            m[li] = 0
            if hid and not s.solves(m):  # the screen's answer holds only while nothing was hidden
                stuck[li] = True
                continue
            if closer(m):
                accept(m)
                hid += 1
        s.stats["final_grades"] = spent[0]
        if hid == 0:
            return enabled, True


def _out_of_budget(s: Search, enabled, budget):
    s.stats["final_grades"] = budget
    s.stats["budget_note"] = (f"the final pass within the band ran out of its {budget} grades: not locally "
                              f"minimal within the band")
    return enabled, False
