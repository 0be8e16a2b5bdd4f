"""The colour designer's steering to a difficulty band (called by ``colourdesign.design_colour``):
a too hard design is bisected along its hides (``fit``); a too easy one restarts the pass in other
seeded orders and takes reveal-one / re-pass moves (``to_band``); final passes make the result
locally minimal within the band under a grade budget (``final_pass``). Grades go through one
net and the trials' line cache (``Grader``)."""
from __future__ import annotations

import time

import numpy as np

from ..solve.coloursolve import grade_net
from ..solve.difficulty import in_range, range_miss
from .colourprune import prune_by_halves
from .coloursearch import Search, Stop, greedy_pass

# Restarts of the pass from every clue, in other seeded orders, when a design is short of the
# band asked for (each a pass, a grade and, when it overshoots, a bisection of ~log2(hides)
# grades): at 24^3 a pass costs 0.1-0.6 s and a grade 0.03-0.7 s; measured, the four restarts
# of the duck and the bunny (k = 3, "expert") took 0.7-1.0 s.
STEER_RESTARTS = 4
# Then reveal-one / hide-several moves from the closest design (each a pass and a grade, about
# 0.15-0.2 s at 24^3), kept when they come no farther from the band. Measured at 24^3 ("expert",
# k = 2, 3, duck, horse, teapot, bunny): 48 moves raised the restarts' best by 0.1-1.6 points
# (at 16: ~2 points); 12 keep a band design to a few seconds there.
STEER_MOVES = 12
# The grades the final passes within the band may spend: FINAL_CELL_GRADES / cells (a grade's
# work grows with the cells), at least FINAL_GRADES_MIN: 244 for 16^3 cells, 72 for 24^3 (a grade costs
# 0.03-0.15 s there: a few seconds), thousands on small puzzles. A pass grades each shown clue
# that still solves without it, and passes repeat until one hides nothing, so a too hard design
# of a dense model can need hundreds (every hide after the bisection's prefix still solves); a
# design that runs out is not locally minimal and says so.
FINAL_CELL_GRADES = 1_000_000
FINAL_GRADES_MIN = 16


class Grader:
    """``grade_net`` of shown masks of one puzzle, each mask graded once (the trials' line
    cache shared); ``count``: the grades run."""

    def __init__(self, gnet, tech, cache):
        self.gnet, self.tech, self.cache = gnet, tech, cache
        self.memo: dict = {}
        self.count = 0

    def __call__(self, mask):
        key = np.asarray(mask).tobytes()
        if key not in self.memo:
            self.gnet.mode[:] = mask
            self.memo[key] = grade_net(self.gnet, self.tech, self.cache)
            self.count += 1
        return self.memo[key]


def fit(s: Search, grader: Grader, hides, target, check=True):
    """The design of a sequence of hides from every clue (``s.clued``), brought below the
    range's top when it scores at or above it: the longest prefix found by bisection that scores
    below ``hi`` (every prefix solves; the score grows, roughly, with the prefix). (mask, score,
    band, the shown lines whose hiding may still solve: all of them after a cut, none when the
    mask is a whole pass's, which leaves no single clue that can go)."""
    hides = np.asarray(hides, dtype=np.int64)

    def mask(j):
        m = s.clued.copy()
        m[hides[:j]] = 0
        return m
    use = len(hides)
    score, got = grader(mask(use))
    if score is not None and score >= target[1]:
        lo, hi = 0, use  # prefix lo scores below the top (presumably: 0 is every clue)
        while hi - lo > 1:
            if check:
                s.check(0.0, "bisecting to the band")
            mid = (lo + hi) // 2
            s_mid, _ = grader(mask(mid))
            if s_mid is not None and s_mid < target[1]:
                lo = mid
            else:
                hi = mid
        use = lo
        score, got = grader(mask(use))
    m = mask(use)
    return m, score, got, (m > 0) if use < len(hides) else np.zeros(len(m), dtype=bool)


def restart(s: Search, r: int, line_level: bool, logic: str) -> list:
    """Restart ``r`` of the pass from every clue, in another seeded order: a random one (r % 3
    == 0, or when only probing solves the full puzzle), else the informed order fewest first
    (r % 3 == 1) or most first, ties broken anew. The hides, as a sequence whose every prefix
    solves."""
    run, net = s.run, s.run.net
    net.mode[:] = s.clued
    run.valid = False
    if r % 3 == 0 or not line_level:
        probe = run.probe
        run.probe = probe and not line_level
        run.solve()
        hides = s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)), "steering to the band")
        run.probe = probe
    else:
        hides = greedy_pass(s, True, r % 3 == 2)
    if logic == "probe" and line_level:
        # as the design: a last pass that probes; its hides come after the line level's
        run.solve()
        hides = hides + s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)), "probing")
    return hides


def hideable_alone(s: Search, lines) -> np.ndarray:
    """Per line of ``lines`` (shown): whether the puzzle still solves at the logic level with that
    line alone hidden (``colourprune.prune_by_halves(..., alone=True)``: a pass's cost instead of
    a propagation per line). ``net.mode`` is left as it was."""
    run = s.run
    lines = np.asarray(lines, dtype=np.int64)
    if len(lines) == 0:
        return np.zeros(0, dtype=bool)
    found = prune_by_halves(run.net, lines, run.probe, lambda done: s.check(done, "final pass within the band"),
                            None, run.propagate, run.probes_to_solution, alone=True)
    return np.isin(lines, np.asarray(found, dtype=np.int64))


def final_pass(s: Search, grader: Grader, mask, target, unsure, budget: int):
    """Hide each shown clue, in seeded orders, while the puzzle solves at the logic level and
    the score stays in the range (short of it: moves no farther away), until a pass hides
    nothing or ``budget`` grades are spent. ``unsure``: the shown clues whose hiding may
    still solve (the others are known not to). Each pass screens its clues by halves
    (``hideable_alone``), hides at once the longest prefix of their pass (``fit``'s bisection:
    every prefix solves) that keeps the score, then tries and grades the rest one by one.
    (mask, finished); ``s.final_mask`` is the last mask accepted (for a stop)."""
    run, net = s.run, s.run.net
    net.mode[:] = mask
    s.final_mask = mask.copy()
    miss = range_miss(target, grader(mask)[0])
    # hiding it does not solve: with fewer clues shown it never will (logic is monotone)
    stuck = (mask > 0) & ~unsure
    spent = [0]

    def within(m) -> bool:
        spent[0] += 1
        return range_miss(target, grader(m)[0]) <= miss

    while True:
        s.final_grades = spent[0]
        if spent[0] >= budget:
            return net.mode.copy(), False
        hid = 0
        cands = np.flatnonzero((net.mode > 0) & ~stuck)
        alone = hideable_alone(s, cands)
        stuck[cands[~alone]] = True
        order = s.rng.permutation(cands[alone])
        if len(order) > 1:
            # a batch: the pass over the candidates gives hides whose every prefix solves; the
            # longest prefix found by bisection that keeps the score goes at once
            start = net.mode.copy()
            seq = np.asarray(s.prune(order, "final pass within the band"), dtype=np.int64)
            net.mode[:] = start

            def prefix(j):
                m = start.copy()
                m[seq[:j]] = 0
                return m
            lo, hi = 0, len(seq)
            if hi and not within(prefix(hi)):
                while hi - lo > 1 and spent[0] < budget:
                    mid = (lo + hi) // 2
                    if within(prefix(mid)):
                        lo = mid
                    else:
                        hi = mid
            else:
                lo = hi
            if lo:
                net.mode[:] = prefix(lo)
                miss = range_miss(target, grader(net.mode)[0])
                s.final_mask = net.mode.copy()
                hid += lo
        for i, li in enumerate(order):
            s.check(i / max(len(order), 1), "final pass within the band")
            if net.mode[li] == 0:
                continue
            if spent[0] >= budget:
                s.final_grades = spent[0]
                return net.mode.copy(), False
            keep = net.mode[li]
            if hid == 0:
                net.mode[li] = 0  # the screen's answer holds: nothing was hidden since
            elif not run.try_hide(int(li)):
                stuck[li] = True
                continue
            if within(net.mode):
                miss = range_miss(target, grader(net.mode)[0])
                s.final_mask = net.mode.copy()
                hid += 1
            else:
                net.mode[li] = keep
        if hid == 0:
            s.final_grades = spent[0]
            return net.mode.copy(), True


def steer_moves(s: Search, grader: Grader, best, target, n_moves: int):
    """Up to ``n_moves`` reveal-one / hide-several moves from the best design: show a hidden
    clue (seeded), run the pass over the other shown clues in a seeded order, grade; a move is
    kept when it is no farther from the range and hides no fewer clues at the same distance,
    else undone (a hill climb: too few graded moves to anneal). The best (mask, score, band).
    ``anneal``'s move (hide only the lines a run did not use) hid nothing more from these
    locally minimal designs and left the score where it was (measured at 16 on the duck and
    T-rex, k = 3); the pass after the reveal moved them 28.0 -> 30.2 and 27.9 -> 29.2."""
    run, net = s.run, s.run.net
    cur = best
    net.mode[:] = cur[0]
    run.solve()
    for m in range(n_moves):
        s.check(m / max(n_moves, 1), "steering to the band")
        hidden = np.flatnonzero((cur[0] == 0) & (s.clued > 0))
        if len(hidden) == 0 or range_miss(target, cur[1]) == 0:
            break
        r = int(hidden[s.rng.integers(len(hidden))])
        net.mode[:] = cur[0]
        net.mode[r] = s.clued[r]
        if not run.solve():
            continue
        # with r shown, the other shown clues in a seeded order: each hidden when the rest solves
        others = np.flatnonzero(net.mode > 0)
        s.prune(others[others != r][s.rng.permutation(len(others) - 1)], "steering to the band")
        score, got = grader(net.mode)
        unsure = np.zeros(len(net.mode), dtype=bool)
        unsure[r] = True  # the pass left every other shown clue needed; r was not tried
        cand = (net.mode.copy(), score, got, unsure)
        if (range_miss(target, score), -np.count_nonzero(cand[0] == 0)) <= \
                (range_miss(target, cur[1]), -np.count_nonzero(cur[0] == 0)):
            cur = cand
    net.mode[:] = cur[0]
    return cur


def to_band(s: Search, grader: Grader, hides, target, line_level: bool, logic: str):
    """Steer the design (its hides, a sequence) into the score range ``target``: too hard, the
    bisection (``fit``); too easy, up to STEER_RESTARTS restarts in other seeded orders, the
    design closest to the range kept (distance, then more hides); then the final passes.
    (mask, score, band, locally minimal within the range, stats)."""
    info: dict = {"steer_restarts": 0, "final_grades": 0}

    def key(c):
        return range_miss(target, c[1]), int(np.count_nonzero(c[0] == 0))
    best = None
    final = False
    t = time.perf_counter()
    try:
        s.span = (0.0, 0.1)
        best = fit(s, grader, hides, target)
        if range_miss(target, best[1]) > 0 and best[1] is not None and best[1] < target[0]:
            # too easy (a too hard one the bisection could not bring into the range too)
            for r in range(STEER_RESTARTS):
                s.span = (0.1 + 0.5 * r / STEER_RESTARTS, 0.1 + 0.5 * (r + 1) / STEER_RESTARTS)
                info["steer_restarts"] = r + 1
                cand = fit(s, grader, restart(s, r, line_level, logic), target)
                if key(cand) < key(best):
                    best = cand
                if key(best)[0] == 0:
                    break
            if key(best)[0] > 0 and STEER_MOVES:
                s.span = (0.6, 0.7)
                best = steer_moves(s, grader, best, target, STEER_MOVES)
        info["steer_s"] = round(time.perf_counter() - t, 3)  # wall time: for benchmarks only
        t = time.perf_counter()
        s.span = (0.7, 1.0)
        s.final_grades = 0
        final = True
        budget = max(FINAL_GRADES_MIN, FINAL_CELL_GRADES // max(s.run.net.n_cells, 1))
        mask, finished = final_pass(s, grader, best[0], target, best[3], budget)
        info["final_grades"] = s.final_grades
        info["final_s"] = round(time.perf_counter() - t, 3)
        if not finished:
            info["budget"] = budget
        score, got = grader(mask)
        return mask, score, got, finished and in_range(target, score), info
    except Stop as why:
        info["stopped"] = str(why)
        info["final_grades"] = getattr(s, "final_grades", 0)
        if best is None:
            mask = s.clued.copy()
            mask[np.asarray(hides, dtype=np.int64)] = 0
        else:
            # the best design so far, or the final pass's mask (a solved one between trials)
            mask = s.final_mask if final else best[0]
        score, got = grader(mask)
        return mask, score, got, False, info
