"""The word lines' masks that ``set_cell_arrays`` / ``undo_arrays`` keep at the end of ``words``
(``propagate.sync_masks``): after any sequence of sets, undos, line applications,
propagations, probes and search nodes they equal the masks computed afresh from the state by
plain Python (bit j of a block line of 1..62 cells: its cell j may still be empty / filled;
other lines: no bits)."""
from __future__ import annotations

import numpy as np

import engine.solve.search as search
from engine.model.cells import EMPTY, FILLED, UNKNOWN
from engine.model.clues import puzzle_from_grid
from engine.model.puzzle import KIND_BLOCKS
from engine.kinds.plain import maskprop as mp
from engine.solve.driver import solve
from engine.kinds.plain.propagate import (LS_DP, S_TLEN, apply_line, build_net, mask_words, new_work, propagate,
                                          queue_all, set_cell, undo_to)

from test_solve_random import tournament_puzzles


def reference_masks(net, state):
    """Per line (ce, cf) as Python ints, from ``state`` alone."""
    out = []
    for li in range(len(net.clue_kind)):
        cells = net.line_cells[net.line_start[li]:net.line_start[li + 1]]
        ce = cf = 0
        if net.clue_kind[li] == KIND_BLOCKS and 0 < len(cells) <= 62:
            for j, c in enumerate(cells):
                ce |= (int(state[c]) & int(EMPTY) != 0) << j
                cf |= (int(state[c]) & int(FILLED) != 0) << j
        out.append((ce, cf))
    return out


def kept_masks(net, words):
    base = len(words) - mask_words(len(net.clue_kind), len(net.cell_lines))
    m = words[base:base + 2 * len(net.clue_kind)]
    return [(int(m[2 * li]), int(m[2 * li + 1])) for li in range(len(net.clue_kind))]


def check(net, w):
    assert kept_masks(net, w.words) == reference_masks(net, w.state)


def test_masks_follow_sets_undos_and_propagation():
    rng = np.random.default_rng(4040)
    steps = 0
    # lines of 62 and 63 cells (word line or not), 3D count clues mixed with block lines
    for shape in [(6, 62), (5, 63), (8, 8), (1, 30), (3, 4, 5), (12, 9)]:
        for _ in range(3):
            grid = rng.random(shape) < rng.uniform(0.3, 0.7)
            net = build_net(puzzle_from_grid(grid))
            n_cells = len(net.cell_start) - 1
            sol = np.where(grid.ravel(), FILLED, EMPTY).astype(np.int8)
            start = np.where(rng.random(n_cells) < 0.2, sol, UNKNOWN).astype(np.int8)
            w = new_work(net, start, cache_slots=64 if rng.random() < 0.5 else 0)
            check(net, w)
            marks = [0]
            for _ in range(60):
                op = rng.random()
                unknown = np.flatnonzero(w.state == UNKNOWN)
                if op < 0.45 and len(unknown):
                    marks.append(int(w.stats[S_TLEN]))
                    c = int(rng.choice(unknown))
                    # mostly the solution's value (propagation goes on), sometimes not
                    v = sol[c] if rng.random() < 0.8 else np.int8(3 - sol[c])
                    set_cell(c, np.int8(v), net, w)
                elif op < 0.65:
                    undo_to(marks.pop(int(rng.integers(len(marks)))) if len(marks) > 1 else 0, net, w)
                    marks = [m for m in marks if m <= w.stats[S_TLEN]] or [0]
                elif op < 0.85:
                    li = int(rng.integers(len(net.clue_kind)))
                    if net.clue_kind[li] != 0:
                        apply_line(li, LS_DP, None, bool(rng.random() < 0.5), net, w)
                else:
                    queue_all(net, w)
                    propagate(LS_DP, None, bool(rng.random() < 0.5), net, w)
                check(net, w)
                steps += 1
            undo_to(0, net, w)
            check(net, w)
            assert (w.state == UNKNOWN).all() or (start != UNKNOWN).any()
    assert steps > 1000


def test_masks_at_every_search_node(monkeypatch):
    """A real search (root probing, guesses closed by probing, siblings, the quick search): the
    masks equal the state's at each node's probing fixpoint and at the end."""
    puzzles = tournament_puzzles(1000)[450:1000:275]
    if not puzzles:
        rng = np.random.default_rng(41)
        puzzles = [puzzle_from_grid(rng.random((25, 25)) < 0.5) for _ in range(2)]
    seen = {"nodes": 0}
    inner = search._Driver.probe_fixpoint

    def fixpoint(self, message, max_steps=None):
        st = inner(self, message, max_steps)
        if hasattr(self.S, "w"):
            check(self.S.net, self.S.w)
            seen["nodes"] += 1
        return st

    monkeypatch.setattr(search._Driver, "probe_fixpoint", fixpoint)
    for p in puzzles:
        solve(p, want=1, sat=False, node_limit=40)
    assert seen["nodes"] >= 10, seen


def test_maskprop_reset_resyncs_masks():
    """The design's trials write the state directly in ``reset``: the masks follow."""
    rng = np.random.default_rng(42)
    net = build_net(puzzle_from_grid(rng.random((10, 12)) < 0.5))
    mw = mp.new_mask_work(net)
    for c in rng.choice(len(net.cell_start) - 1, 30, replace=False):
        if mw.state[c] == UNKNOWN:
            set_cell(int(c), np.int8(FILLED if rng.random() < 0.5 else EMPTY), net, mw)
    assert kept_masks(net, mw.words) == reference_masks(net, mw.state)
    mp.reset(net, mw)
    assert (mw.state == UNKNOWN).all()
    assert kept_masks(net, mw.words) == reference_masks(net, mw.state)
