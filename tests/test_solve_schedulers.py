"""The seed's schedulers: its published figures where they are exact, exit clauses, pre-pass,
limits, and the report's fields."""
from collections import deque

import numpy as np
import pytest

from engine.voxel.blobs import blob_grid, blob_puzzle
from engine.model.cells import UNKNOWN
from engine.model.clues import puzzle_from_grid
from engine.kinds.plain.propagate import LS_DP, S_TLEN, apply_line, build_net, new_work
from engine.model.puzzle import Clue3D, make_2d, make_puzzle
from engine.solve.driver import compare, solve

from test_solve_random import check_metrics, pattern_fixpoint, satisfies

SEED_METHODS = ("brute", "hierarchical", "heuristic")


def checkerboard(n):
    x, y, z = np.indices((n, n, n))
    return (x + y + z) % 2 == 0


@pytest.mark.parametrize("counting", ["strict", "seed"])
@pytest.mark.parametrize("linesolver", ["dp", "seed"])
def test_checkerboard_matches_seed_table5(linesolver, counting):
    """Table 5's Check rows: nothing is deducible, brute force spends 100 x lines, the others
    apply every line once, all bad guesses (nothing is ever solved, so both rules agree)."""
    p = puzzle_from_grid(checkerboard(6))
    rows = {r["config"]: r for r in compare(p, linesolver=linesolver, counting=counting)}
    assert rows["Brute"]["linesolvers"] == 100 * p.n_lines
    for label in ("Hier", "Hier+Pre", "Heur", "Heur+Pre"):
        assert rows[label]["linesolvers"] == p.n_lines
    for r in rows.values():
        assert r["bad_guess_rate"] == 1.0 and r["known_fraction"] == 0.0 and r["verdict"] == "unknown"


# Worked by hand below: lines are the rows top to bottom, then the columns left to right.
ONE_SWEEP = ([[5], [], [2, 1]], [[1, 1], [1, 1], [1], [1], [1, 1]])   # #####/...../##..#
TWICE_QUEUED = ([[3], [1], []], [[2], [1], [1], []])                  # ###./#.../....


@pytest.mark.parametrize("linesolver", ["dp", "seed"])
def test_seed_count_brute_force_by_hand(linesolver):
    """One sweep solves ONE_SWEEP: row 0 [5] fills itself, row 1 [] empties itself, row 2 [2,1]
    finds its 2nd cell (filled in all three arrangements). Column 0 [1,1] then finds row 2's
    first cell; column 1 is now fully known: the strict rule skips it, the seed's applies it
    (a bad guess). Columns 2, 3 and 4 each find row 2's last unknowns; column 4 completes the
    grid. Strict: 7 linesolvers, no bad guess; the seed's: all 8 lines, 1 bad guess."""
    p = make_2d(*ONE_SWEEP)
    strict = solve(p, method="brute", linesolver=linesolver)
    seed = solve(p, method="brute", linesolver=linesolver, counting="seed")
    assert (strict.linesolvers, strict.bad_guesses) == (7, 0)
    assert (seed.linesolvers, seed.bad_guesses) == (8, 1) == (p.n_lines, 1)
    for r in (strict, seed):
        assert r.verdict == "unique" and r.solution.tolist() == [True] * 5 + [False] * 5 + [
            True, True, False, False, True]
    assert np.array_equal(strict.order, seed.order)
    assert seed.options["counting"] == "seed" and strict.options["counting"] == "strict"


def test_seed_count_hierarchical_by_hand():
    """TWICE_QUEUED: row 0 [3] fills its middle cells; columns 1 and 2 [1] then empty rows 1 and
    2 below them, each queueing rows 1 and 2. The strict queue holds them once (row 1, row 2),
    the seed's twice (row 1, row 2, row 1, row 2). Row 1 [1] deduces nothing (bad guess);
    row 2 [] empties itself and queues columns 0 and 3. The seed's queue now pops row 1 again:
    nothing new in it, a second bad guess; row 2 is solved and skipped. Column 0 [2] fills rows
    0 and 1, column 3 [] empties the rest: done. Strict 7 linesolvers (1 bad), seed's 8 (2)."""
    p = make_2d(*TWICE_QUEUED)
    strict = solve(p, method="hierarchical")
    seed = solve(p, method="hierarchical", counting="seed")
    assert (strict.linesolvers, strict.bad_guesses) == (7, 1)
    assert (seed.linesolvers, seed.bad_guesses) == (8, 2)
    assert strict.verdict == seed.verdict == "unique"
    assert np.array_equal(strict.state, seed.state)


def fifo_reference(p, seed_count, linesolver_id=LS_DP):
    """Fig. 29 in plain Python on a deque: (linesolvers, bad guesses, state)."""
    net = build_net(p)
    w = new_work(net)
    budget = np.int64(1 << 20)
    kinds, unk = net.clue_kind, w.line_unknown
    queue, waiting = deque(), set()
    n_ls = n_bad = 0

    def push(li):
        if seed_count or li not in waiting:
            waiting.add(li)
            queue.append(li)
    for l0 in range(p.n_lines):
        if kinds[l0] == 0 or unk[l0] == 0:
            continue
        push(l0)
        while queue:
            li = queue.popleft()
            if li not in queue:
                waiting.discard(li)
            if unk[li] == 0:
                continue
            t0 = int(w.stats[S_TLEN])
            r = apply_line(li, linesolver_id, budget, False, net, w)
            n_ls += 1
            n_bad += r <= 0
            if r < 0:
                return n_ls, n_bad, None
            for c in w.trail[t0:int(w.stats[S_TLEN])]:
                for l2 in net.cell_lines[net.cell_start[c]:net.cell_start[c + 1]]:
                    if l2 != li and unk[l2] > 0:
                        push(int(l2))
        if not np.any(w.state == UNKNOWN):
            break
    return n_ls, n_bad, w.state.copy()


def test_seed_count_hierarchical_is_a_plain_fifo():
    """Both rules against a deque written from Fig. 29: same counts; the same fixpoint."""
    rng = np.random.default_rng(17)
    differ = 0
    for k in range(80):
        shape = [(6, 5), (7, 7), (4, 4, 3), (5, 4, 4)][k % 4]
        p = puzzle_from_grid(rng.random(shape) < 0.5)
        states = []
        for counting in ("strict", "seed"):
            r = solve(p, method="hierarchical", counting=counting)
            n_ls, n_bad, state = fifo_reference(p, counting == "seed")
            assert (r.linesolvers, r.bad_guesses) == (n_ls, n_bad), (k, counting)
            if state is not None:
                assert np.array_equal(r.state, state)
            states.append(r.state)
        assert np.array_equal(*states) or r.verdict == "none"
        differ += solve(p, method="hierarchical").linesolvers != r.linesolvers
    assert differ >= 5  # the rules really differ


def greedy_reference(p):
    """The greedy oracle written plainly: at every step try every unsolved line on a copy of the
    state, apply the first of largest gain. (linesolvers, state) or None on a contradiction."""
    net = build_net(p)
    w = new_work(net)
    budget = np.int64(1 << 20)
    n_ls = 0
    while np.any(w.state == UNKNOWN):
        best, best_gain = -1, 0
        for li in range(p.n_lines):
            if net.clue_kind[li] == 0 or w.line_unknown[li] == 0:
                continue
            trial = new_work(net, w.state)
            g = apply_line(li, LS_DP, budget, False, net, trial)
            if g < 0:
                return None
            if g > best_gain:
                best, best_gain = li, g
        if best < 0:
            break
        apply_line(best, LS_DP, budget, False, net, w)
        n_ls += 1
    return n_ls, w.state.copy()


def test_oracle_is_greedy_and_never_guesses_badly():
    rng = np.random.default_rng(23)
    for k in range(60):
        shape = [(6, 5), (7, 6), (4, 4, 3), (5, 4, 4)][k % 4]
        p = puzzle_from_grid(rng.random(shape) < 0.5)
        r = solve(p, method="oracle")
        ref = greedy_reference(p)
        if ref is None:
            assert r.verdict == "none"
            continue
        assert (r.linesolvers, r.bad_guesses) == (ref[0], 0), k
        assert np.array_equal(r.state, ref[1])
        assert r.stats["prepass_lines"] == 0
    # on a real model the look-ahead pays: fewer linesolvers than any other scheduler
    p = blob_puzzle((12, 12, 12), seed=3)
    best = solve(p, method="oracle").linesolvers
    for method in SEED_METHODS + ("learned",):
        assert best < solve(p, method=method).linesolvers, method


def test_learned_weights_file_is_checked(tmp_path):
    from engine.kinds.plain.learned import N_FEATURES, N_GROUPS, load_weights
    for prepass in (False, True):
        w = load_weights(prepass)
        assert w.shape == (N_GROUPS * N_FEATURES,) and np.all(np.isfinite(w)) and np.any(w != 0)
    bad = tmp_path / "w.json"
    bad.write_text('{"features": ["a"], "no_prepass": {"weights": [1]}, "prepass": {"weights": [1]}}')
    with pytest.raises(ValueError, match="features"):
        load_weights(False, str(bad))


def test_seed_exit_stops_early_on_knot(shared):
    """The seed's exit clause gives up on Knot (section 4.3); the default exit does not."""
    from engine.files.puzzlefile import load_puzzle
    p = load_puzzle(shared("puzzles2d", "webpbn-survey", "webpbn-00016.nin"))
    early = solve(p, method="heuristic", linesolver="seed", seed_exit=True)
    sound = solve(p, method="heuristic", linesolver="seed")
    assert early.verdict == "unknown" and early.known_fraction < 0.5
    assert sound.verdict == "unique" and satisfies(p, sound.solution)
    for prepass in (False, True):
        assert solve(p, method="heuristic", prepass=prepass).verdict == "unique"


def test_sound_exit_reaches_fixpoint_where_seed_exit_may_not():
    rng = np.random.default_rng(11)
    for k in range(40):
        g = rng.random((7, 6)) < 0.55
        p = puzzle_from_grid(g)
        fix = pattern_fixpoint(p)
        sound = solve(p, method="heuristic")
        assert np.array_equal(sound.state, fix)
        seed = solve(p, method="heuristic", seed_exit=True)
        known = seed.state != UNKNOWN
        assert np.array_equal(seed.state[known], fix[known])  # sound, possibly incomplete


def test_prepass_on_empty_and_complete_lines():
    g = blob_grid((10, 9, 8), seed=4, fill=0.4)
    p = puzzle_from_grid(g)
    for method in SEED_METHODS:
        a = solve(p, method=method)
        b = solve(p, method=method, prepass=True)
        assert a.verdict == b.verdict == "unique"
        assert b.stats["prepass_lines"] > 0 and a.stats["prepass_lines"] == 0
        assert np.array_equal(a.state, b.state)
    # pre-pass alone: a 2D puzzle of full and empty rows is solved before any linesolver runs
    rows = [[5], [], [5], []]
    cols = [[1, 1]] * 5
    r = solve(make_2d(rows, cols), method="hierarchical", prepass=True)
    assert r.verdict == "unique" and r.linesolvers == 0


def test_hidden_lines_never_count():
    g = blob_grid((6, 6, 6), seed=2, fill=0.4)
    full = puzzle_from_grid(g)
    hidden = np.zeros(full.n_lines, dtype=bool)
    hidden[::3] = True
    p = puzzle_from_grid(g, hidden=hidden)
    for method in SEED_METHODS:
        r = solve(p, method=method)
        # each application is to a clued line, so an all-lines brute sweep is bounded by them
        if method != "brute":
            assert r.linesolvers <= 10 * int((~hidden).sum())
        check_metrics(r)
    # a puzzle whose every clue is hidden: nothing to apply, nothing counted
    none = puzzle_from_grid(g, hidden=np.ones(full.n_lines, dtype=bool))
    for method in SEED_METHODS:
        r = solve(none, method=method)
        assert r.linesolvers == 0 and r.verdict == "unknown"
    r = solve(none)
    assert r.verdict == "multiple" and len(r.differing_cells) == none.n_cells


def test_contradictions_and_checks():
    # rows say 2 filled cells, columns say 0: every method must say none
    p = make_2d([[2], []], [[], []])
    for method in SEED_METHODS + ("full",):
        assert solve(p, method=method).verdict == "none", method
    # clues on lines no scheduler ever applies still have to hold: the pre-pass fills both rows
    # (complete descriptions), no linesolver runs, and column 1's clue [1] is broken
    p = make_2d([[2], [2]], [[2], [1]])
    for method in SEED_METHODS:
        r = solve(p, method=method, prepass=True)
        assert r.verdict == "none" and r.linesolvers == 0, method


def test_step_limit_and_cancel():
    p = puzzle_from_grid(checkerboard(6))
    for method in SEED_METHODS:
        r = solve(p, method=method, step_limit=50)
        assert r.verdict == "unknown" and r.linesolvers == 50 and r.stats["stopped"]
        r = solve(p, method=method, progress=lambda f, m: True)
        assert r.verdict == "unknown" and r.linesolvers == 0
    r = solve(p, progress=lambda f, m: True)
    assert r.verdict == "unknown" and r.stats["cancelled"]


def test_full_report_fields():
    p = blob_puzzle((8, 8, 8), seed=5)
    r = solve(p)
    assert r.verdict == "unique" and r.difficulty == "line"
    assert np.array_equal(r.solution, p.solution)
    assert sorted(r.order.tolist()) == list(range(p.n_cells))
    assert r.known_fraction == 1.0
    d = r.to_dict()
    assert d["solution"] == "".join("1" if v else "0" for v in p.solution)
    assert d["differing_cells"] == []


def test_generic_non_grid_puzzle():
    """Lines are just cell lists: a triangle of three 2-cell lines plus a 3-cell line."""
    lines = [np.array([0, 1]), np.array([1, 2]), np.array([2, 0]), np.array([0, 1, 2])]
    clues = [[1], [1], [1], [2]]  # impossible: three pairs each with exactly one filled cell
    p = make_puzzle((3,), 3, lines, [0, 1, 2, 3], clues)
    assert solve(p).verdict == "none"
    clues = [[2], [1], [1], [2]]
    p = make_puzzle((3,), 3, lines, [0, 1, 2, 3], clues)
    r = solve(p)
    assert r.verdict == "unique" and r.solution.tolist() == [True, True, False]
    for method in SEED_METHODS:
        assert solve(p, method=method).verdict == "unique"


def test_3d_clue_kinds_in_line():
    # one x-line of 5 cells with a square clue 3 (1+1+1): fully determined
    p = make_puzzle((5, 1, 1), 5, [np.arange(5)], [0], [Clue3D(3, "square")])
    r = solve(p)
    assert r.verdict == "unique" and r.solution.tolist() == [True, False, True, False, True]
    assert solve(p, method="hierarchical", prepass=True).linesolvers == 0
