"""Steering a black-and-white design into a difficulty band or score range (``steer``): show
clues again when it is too hard (a bisection along the hidden clues), anneal it when it is too easy
(the distance to the range as the objective), then hide what stays solvable and no farther from the
range. The colour designer's counterpart is ``colourband.py``.
"""
from __future__ import annotations

import numpy as np

from ..solve.difficulty import Difficulty, in_range, range_miss
from .masksearch import ANNEAL_MAX_MOVES, ANNEAL_MOVES_PER_LINE, Search

# Annealing moves per line when steering a too easy design towards a harder band.
STEER_MOVES_PER_LINE = 2
# Annealing runs at most, when one ends short of the band (each from the best so far,
# reheated): each of STEER_MOVES_PER_LINE moves per line (at most ANNEAL_MAX_MOVES)
STEER_ROUNDS = 6


def band_value(target, n_lines):
    """Objective for annealing towards a score range: the distance to the range dominates,
    then (inside it) the hidden count."""
    def value(enabled, diff: Difficulty):
        hidden = n_lines - int(enabled.sum())
        if diff.score is None:
            return -1e9
        return -100.0 * range_miss(target, diff.score) + hidden / max(n_lines, 1)
    return value


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

        def mask(k):
            m = np.ones(s.n_lines, np.uint8)
            m[hidden[:k]] = 0
            return m
        a, b = 0, len(hidden)  # prefix a is below hi (k=0: the full clue set may be too hard too)
        while b - a > 1:
            s.check()
            mid = (a + b) // 2
            sc = s.grade(mask(mid)).score
            if sc is not None and sc < hi:
                a = mid
            else:
                b = mid
        enabled = mask(a)
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
        for r in range(STEER_ROUNDS):
            s.span = (lo_frac + (hi_frac - lo_frac) * 0.8 * r / STEER_ROUNDS,
                      lo_frac + (hi_frac - lo_frac) * 0.8 * (r + 1) / STEER_ROUNDS)
            enabled = s.anneal(enabled, moves, objective)
            if s.cut or in_range(target, s.grade(enabled).score):
                break
        s.stats["steer_rounds"] = r + 1
        s.span = (lo_frac + (hi_frac - lo_frac) * 0.8, hi_frac)
    # final passes: hide what stays solvable and no farther from the range (in range: stays in
    # it; short of it: the score does not move away). The score is not monotone, so a hide can
    # let a clue rejected earlier in the pass go after all: repeat until a pass hides nothing,
    # then every kept clue was tried against the final mask
    miss = [range_miss(target, s.grade(enabled).score)]

    def closer(m):
        d = range_miss(target, s.grade(m).score)
        if d <= miss[0]:
            miss[0] = d
            return True
        return False
    while True:
        before = int(enabled.sum())
        finished = s.prune(enabled, s.rng.permutation(s.n_lines), s.probe, accept=closer)
        if int(enabled.sum()) == before:
            return enabled, finished and miss[0] == 0.0
