"""The colour solver's time limit holds from the very first propagation.

A puzzle of random colours with half its clues hidden (20^3, three colours) took 7-24 s to line
logic's root fixpoint, in one numba call, and 27-40 s for a solve asked to stop after 0.3 s:
the deadline was first looked at after it. Propagation and probing now run in slices of line
solves with the clock read between them.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
from colourgen import line_clue_3d
from engine.kinds.colour import colourprop
from engine.kinds.colour.colourprobe import probe
from engine.kinds.colour.colourprop import ST_OK, ST_TIMEOUT, build_net, full_state, propagate
from engine.solve.driver import solve
from stopwatch import Stopwatch


def _slow_puzzle(seed=1, n=20):
    rng = np.random.default_rng(seed)
    p = colour_puzzle_from_grid(rng.integers(0, 4, size=(n, n, n)), k=3)
    return with_hidden(p, np.flatnonzero(rng.random(p.n_lines) < 0.5))


def _warm():
    # compile (or load) the kernels on a small puzzle first: compiling is not solving
    solve(_slow_puzzle(n=4), time_limit=5)


def test_a_sliced_propagation_is_the_same_propagation():
    """Slices of any size do the line solves one uninterrupted call does, in the same order: the
    same state and the same line-solve counts (reported, so they must not depend on the clock).
    Probing with a far deadline (sliced) and without one agree the same way."""
    _warm()
    p = _slow_puzzle(seed=3, n=6)
    net = build_net(p)
    whole = full_state(net)
    whole_counts = np.zeros(2, dtype=np.int64)
    assert propagate(net, whole, counters=whole_counts) == ST_OK
    n_lines = len(net.mode)
    for size in (1, 3, 50):
        state = full_state(net)
        queued = np.full(n_lines, 3, dtype=np.int64)
        counters = np.zeros(2, dtype=np.int64)
        budget = np.zeros(1, dtype=np.int64)
        queues = (np.empty(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64), np.zeros(colourprop.QS_LEN, dtype=np.int64))
        none = np.zeros(0, dtype=np.int64)
        no_rows = np.zeros((0, 0), dtype=np.int64)
        calls = 0
        give = size
        while True:
            budget[0] = give
            calls += 1
            st = colourprop.propagate_queues(state, net.k, net.line_start, net.line_cells, net.mode,
                                             net.shown, net.clue_id, net.tab_all, net.tab_start, net.cnt, net.rmax, net.cell_start,
                                             net.cell_lines, queued, counters, budget, *queues, none, none,
                                             none, none, no_rows, no_rows, False, none, none)
            if st != colourprop.ST_BUDGET:
                break
            assert budget[0] == 0
            # a line cut inside (its product solve needs more steps): more next time, as
            # ``propagate`` gives
            give = give * 4 if queues[2][5] else size
        assert st == ST_OK and np.array_equal(state, whole), size
        assert np.array_equal(counters, whole_counts), (size, counters, whole_counts)
        assert calls > 1 or size == 50
    sliced = np.zeros(2, dtype=np.int64)
    again = full_state(net)
    assert propagate(net, again, counters=sliced, deadline=time.perf_counter() + 600) == ST_OK
    assert np.array_equal(again, whole) and np.array_equal(sliced, whole_counts)
    a, b = whole.copy(), whole.copy()
    ca, cb = np.zeros(2, np.int64), np.zeros(2, np.int64)
    assert probe(net, a, ca) == ST_OK
    assert probe(net, b, cb, deadline=time.perf_counter() + 600) == ST_OK
    assert np.array_equal(a, b) and np.array_equal(ca, cb)


def test_root_propagation_stops_at_the_deadline():
    _warm()
    p = _slow_puzzle()
    net = build_net(p)
    state = full_state(net)
    with Stopwatch() as sw:
        st = propagate(net, state, deadline=time.perf_counter() + 0.2)
    if st == ST_OK:
        pytest.skip(f"this machine reached the fixpoint in {sw.wall:.2f} s: nothing to interrupt")
    assert st == ST_TIMEOUT
    assert sw.working < 1.2, sw
    # what it deduced so far is sound: the puzzle's own solution still fits every cell
    sol = p.colour_solution
    assert np.all((state >> sol) & 1)


def test_a_solve_returns_within_its_time_limit():
    _warm()
    p = _slow_puzzle(seed=2)
    with Stopwatch() as sw:
        rep = solve(p, time_limit=0.3)
    assert sw.working < 1.5, sw
    if rep.verdict != "unknown":  # a fast machine may settle it: then it must be right
        assert rep.verdict in ("unique", "multiple")


def _long_line(k=4, n=36, seed=1):
    """One random line of ``k`` colours, its clue, and ``n``: whose exact solve from nothing
    known takes seconds (36 long, four colours: 2-10 s on the development machine)."""
    rng = np.random.default_rng(seed)
    line = np.where(rng.random(n) < 0.85, rng.integers(1, k + 1, n), 0)
    return line


def test_the_product_solver_gives_up_when_its_steps_run_out():
    from engine.lines.colourline import STATE_CAP, rmax_of, solve_automaton, solve_automaton_limited
    k = 3
    line = _long_line(k=k, n=12, seed=4)
    clue = line_clue_3d(line, k)
    cnt, rmax = rmax_of(clue)
    masks = np.full(len(line), (1 << (k + 1)) - 1, dtype=np.int64)
    no_tab = np.zeros((1, 1), dtype=np.int64)
    full = solve_automaton(masks, 2, no_tab, k, cnt, rmax)
    work = np.array([-1, 0], dtype=np.int64)
    assert np.array_equal(solve_automaton_limited(masks, 2, no_tab, k, cnt, rmax, work), full) and work[1] == 0
    assert not np.array_equal(full, masks)  # the full solve deduces something here
    work = np.array([50, 0], dtype=np.int64)
    assert np.array_equal(solve_automaton_limited(masks, 2, no_tab, k, cnt, rmax, work), masks) and work[1] == 1
    # past the state cap (the plain-Python function, with a tiny cap): left as given
    py = getattr(solve_automaton_limited, "py_func", solve_automaton_limited)
    import engine.lines.colourline as cl
    dense, dense_states, spent = cl._solve_3d_dense, cl.DENSE_STATES, cl._spent
    try:
        cl.STATE_CAP = 40
        # (the compiled budget check froze the cap it was compiled with: its Python function reads it)
        cl._solve_3d_dense, cl._spent = getattr(dense, "py_func", dense), getattr(spent, "py_func", spent)
        for cl.DENSE_STATES in (0, dense_states):  # the sparse states, and the dense marks
            work = np.array([-1, 0], dtype=np.int64)
            assert np.array_equal(py(masks, 2, no_tab, k, cnt, rmax, work), masks) and work[1] == 2
    finally:
        cl.STATE_CAP, cl._solve_3d_dense, cl.DENSE_STATES, cl._spent = STATE_CAP, dense, dense_states, spent


def test_the_time_limit_holds_inside_one_long_line():
    """A 36-long line of four colours alone (its crossing lines hidden): one exact solve of it
    takes seconds; a solve limited to 0.3 s stops inside it."""
    _warm()
    line = _long_line()
    p = colour_puzzle_from_grid(line.reshape(36, 1, 1), k=4)
    lengths = np.diff(p.line_start)
    p = with_hidden(p, np.flatnonzero(lengths != 36))
    with Stopwatch() as sw:
        r = solve(p, time_limit=0.3)
    assert r.verdict == "unknown" and sw.working < 1.5, (r.verdict, sw)


def test_a_colour_solve_reports_progress_and_cancels():
    """The one solve pipeline gives colour puzzles what plain ones had (issue #38): progress
    (fractions of cells known, never backwards) and cancelling from the callback within about a
    second (verdict ``unknown``, ``stats["cancelled"]``), and the idle share of its line solves."""
    _warm()
    p = _slow_puzzle()  # seconds to line logic's fixpoint
    seen = []

    def progress(frac, message):
        seen.append(frac)
        return sw.elapsed() > 0.3

    with Stopwatch() as sw:
        r = solve(p, progress=progress, time_limit=60)
    assert sw.working < 1.5 and seen, sw
    assert r.verdict == "unknown" and r.stats["cancelled"]
    assert all(b >= a for a, b in zip(seen, seen[1:])) and 0.0 <= seen[-1] <= 1.0
    rng = np.random.default_rng(5)
    g = np.where(rng.random((9, 9, 9)) < 0.6, rng.integers(1, 4, (9, 9, 9)), 0)
    full = solve(colour_puzzle_from_grid(g, 3), time_limit=60)
    assert full.verdict == "unique" and full.linesolvers > 0 and 0.0 < full.bad_guess_rate < 1.0
    assert full.bad_guesses == round(full.bad_guess_rate * full.linesolvers)


def test_a_line_or_a_probe_dearer_than_any_chunk_still_ends():
    """The driver hands the solver small chunks (``line_solve(chunk)``, ``probe_round(steps)``); a
    line whose product solve needs more, or a cell whose probing assumptions do, starts again on
    the next call: it must get more each time, or it never ends (jeep at 36, three colours, 40 %
    hidden, ran a Solve to its limit). With the smallest chunks both end, with the state an
    unchunked run reaches."""
    from engine.kinds.colour.colourkind import ColourSolver
    from engine.kinds.plain.probe import P_PAUSED
    _warm()
    line = _long_line(k=3, n=18, seed=2)
    p = colour_puzzle_from_grid(line.reshape(18, 1, 1), k=3)
    p = with_hidden(p, np.flatnonzero(np.diff(p.line_start) != 18))
    whole = ColourSolver(p)
    whole.queue_all()
    assert whole.line_solve(1 << 40) is True
    S = ColourSolver(p)
    S.queue_all()
    for calls in range(1, 64):
        got = S.line_solve(1)
        if got is not None:
            break
    assert got is True and calls > 1 and np.array_equal(S.K.state, whole.K.state)
    p = _slow_puzzle(seed=3, n=6)
    states = []
    for steps in (1 << 40, 1):
        S = ColourSolver(p)
        S.queue_all()
        assert S.line_solve(1 << 40) is True
        S.new_node(False)
        S.probe_start(True)
        for rounds in range(1, 100_000):
            st = S.probe_round(steps)
            if st != P_PAUSED:
                break
        assert st != P_PAUSED
        states.append(S.K.state.copy())
    assert np.array_equal(states[0], states[1])
