"""The seed schedulers run in resumable chunks: a run split into chunks of any size gives the
same counts, grid and order as one call, and ``solve`` checks ``time_limit`` and the progress
callback between chunks."""
import time

import numpy as np
import pytest

import engine.solve.driver as solve_module
from engine.voxel.blobs import blob_puzzle
from engine.model.cells import UNKNOWN
from engine.model.clues import puzzle_from_grid
from engine.kinds.plain.propagate import (DEFAULT_SEED_BUDGET, LINESOLVERS, S_BAD, S_LINESOLVERS, S_TLEN,
                                          S_TOO_LARGE, build_net, new_work, prepass)
from engine.kinds.plain.learned import learned, load_weights, new_learned_queue
from engine.kinds.plain.oracle import greedy_oracle, new_oracle_queue
from engine.kinds.plain.schedulers import (ST_PAUSED, ST_STOPPED, brute_force, heuristic, hierarchical,
                                           new_control, new_fifo, new_heuristic_queue)
from engine.solve.driver import solve

from test_solve_random import mixed_puzzle
from stopwatch import Stopwatch

# (method, seed flag): the heuristic's seed exit keeps a counter across chunks; brute force and
# the hierarchical solver count the seed's way (the latter on its own plain FIFO)
RUNS = (("brute", False), ("brute", True), ("hierarchical", False), ("hierarchical", True),
        ("heuristic", False), ("heuristic", True), ("learned", False), ("oracle", False))
BIG = 1 << 62


def seed_kw(method, seed):
    """solve()'s option for a run's seed flag."""
    if method == "heuristic":
        return {"seed_exit": seed}
    if method in ("learned", "oracle"):
        return {}
    return {"counting": "seed" if seed else "strict"}


def checkerboard(n):
    x, y, z = np.indices((n, n, n))
    return (x + y + z) % 2 == 0


def _puzzles():
    rng = np.random.default_rng(2024)
    ps = []
    for shape, dens, hide in (((8, 7), 0.5, 0.0), ((12, 10), 0.45, 0.0), ((15, 13), 0.6, 0.25),
                              ((5, 6, 4), 0.5, 0.0), ((6, 6, 6), 0.4, 0.2), ((7, 6, 5), 0.6, 0.0)):
        g = rng.random(shape) < dens
        hidden = rng.random(puzzle_from_grid(g).n_lines) < hide
        ps.append(puzzle_from_grid(g, hidden=hidden))
    ps.append(mixed_puzzle(rng.random((9, 8)) < 0.5, rng.random((9, 8)) < 0.5, rng))   # contradictory
    ps.append(mixed_puzzle(rng.random((4, 4, 5)) < 0.5, rng.random((4, 4, 5)) < 0.5, rng))
    ps.append(blob_puzzle((10, 9, 8), seed=3))
    ps.append(puzzle_from_grid(checkerboard(4)))  # nothing deducible: brute spends its iterations
    return ps


PUZZLES = _puzzles()


def run_chunked(p, method, seed, linesolver, pre, chunk, max_iterations=20, step_limit=0):
    """Call the kernel with ``max_steps=chunk`` until it stops pausing."""
    net = build_net(p)
    w = new_work(net)
    ls = LINESOLVERS[linesolver]
    budget = np.int64(DEFAULT_SEED_BUDGET)
    n = p.n_cells
    calls = 0
    st = None
    if pre and not prepass(ls, budget, net, w):
        st = "prepass contradiction"
    ctl = new_control()
    hq = new_heuristic_queue(p.n_lines)
    fifo = new_fifo(net)
    hp, lq, score = new_learned_queue(p.n_lines)
    wts = load_weights(pre)
    oq = new_oracle_queue(p.n_lines)
    while st is None or st == ST_PAUSED:
        before = int(w.stats[S_LINESOLVERS])
        if method == "brute":
            st = brute_force(ls, budget, max_iterations, step_limit, seed, n, chunk, net, w, ctl)
        elif method == "hierarchical":
            st = hierarchical(ls, budget, step_limit, seed, n, chunk, net, w, ctl, fifo)
        elif method == "learned":
            st = learned(ls, budget, step_limit, n, chunk, net, w, ctl, hp, lq, score, wts)
        elif method == "oracle":
            st = greedy_oracle(ls, budget, step_limit, n, chunk, net, w, ctl, oq)
        else:
            st = heuristic(ls, budget, step_limit, seed, n, chunk, net, w, ctl, hq)
        calls += 1
        assert calls < 100_000, "the kernel does not get anywhere across pauses"
        done = int(w.stats[S_LINESOLVERS]) - before
        assert done <= chunk
        if st == ST_PAUSED:
            assert done == chunk  # a pause comes after exactly max_steps applications
    s = w.stats
    return dict(status=st, calls=calls, ls=int(s[S_LINESOLVERS]), bad=int(s[S_BAD]),
                too_large=int(s[S_TOO_LARGE]), state=w.state.copy(), order=w.trail[:s[S_TLEN]].copy())


def assert_same(a, b):
    for k in ("status", "ls", "bad", "too_large"):
        assert a[k] == b[k], k
    assert np.array_equal(a["state"], b["state"])
    assert np.array_equal(a["order"], b["order"])


@pytest.mark.parametrize("linesolver", ["dp", "seed"])
@pytest.mark.parametrize("pre", [False, True])
@pytest.mark.parametrize("method,seed", RUNS)
def test_chunked_equals_unchunked(method, seed, pre, linesolver):
    paused = 0
    for i, p in enumerate(PUZZLES):
        whole = run_chunked(p, method, seed, linesolver, pre, BIG)
        assert whole["calls"] == (0 if whole["status"] == "prepass contradiction" else 1)
        # solve() (no limits: one call) agrees with the kernel run
        r = solve(p, method=method, prepass=pre, linesolver=linesolver, max_iterations=20,
                  **seed_kw(method, seed))
        assert (r.linesolvers, r.bad_guesses) == (whole["ls"], whole["bad"]), i
        assert np.array_equal(r.state, whole["state"]) and np.array_equal(r.order, whole["order"])
        for chunk in (1, 3, 7):
            part = run_chunked(p, method, seed, linesolver, pre, chunk)
            assert_same(part, whole)
            paused += part["calls"] > 1
            if chunk == 1:
                assert part["calls"] >= whole["ls"]
    assert paused >= len(PUZZLES) * 2  # the runs really were split


@pytest.mark.parametrize("method,seed", RUNS)
def test_chunks_and_step_limit(method, seed):
    """The kernel's exact step limit still holds across pauses (on a puzzle every scheduler
    needs far more than 37 applications for; the learned one solves the 5³ checkerboard in
    fewer)."""
    p = blob_puzzle((10, 9, 8), seed=3)
    whole = run_chunked(p, method, seed, "dp", False, BIG, step_limit=37)
    assert whole["status"] == ST_STOPPED and whole["ls"] == 37
    for chunk in (1, 3, 7, 36, 37, 38):
        assert_same(run_chunked(p, method, seed, "dp", False, chunk, step_limit=37), whole)


@pytest.mark.parametrize("method,seed", RUNS)
def test_solve_in_chunks_matches_one_call(monkeypatch, method, seed):
    """solve() with a progress callback runs in chunks (from 1 application on) and reports the
    same as without one."""
    monkeypatch.setattr(solve_module, "SEED_CHUNK", 1)
    calls = []

    def progress(f, m):
        calls.append((f, m))
        return False
    for p, pre in zip(PUZZLES[-4:] * 2, [False] * 4 + [True] * 4):
        for linesolver in ("dp", "seed"):
            kw = dict(method=method, prepass=pre, linesolver=linesolver, max_iterations=30,
                      **seed_kw(method, seed))
            a = solve(p, **kw)
            b = solve(p, progress=progress, time_limit=60.0, **kw)
            assert (a.verdict, a.linesolvers, a.bad_guesses) == (b.verdict, b.linesolvers, b.bad_guesses)
            assert np.array_equal(a.state, b.state) and np.array_equal(a.order, b.order)
            assert not b.stats["stopped"] and not b.stats["cancelled"]
            assert calls[-1][1] == "done"


# (method, checkerboard side, max_iterations, prepass): each takes several seconds without a
# limit (brute force: 1000 sweeps of 12288 lines, ~5 s; the others: ~4 ms per seed line solve on
# the 28^3 checkerboard, ~9 s for the lines, ~9 s more for the pre-pass): one line-solver
# application can be expensive too.
LONG_RUNS = (("brute", 64, 1000, False), ("hierarchical", 28, 100, False),
             ("heuristic", 28, 100, False), ("heuristic", 28, 100, True), ("learned", 28, 100, False),
             ("learned", 28, 100, True))


@pytest.mark.parametrize("method,side,max_iterations,pre", LONG_RUNS)
def test_time_limit_stops_promptly(method, side, max_iterations, pre):
    p = puzzle_from_grid(checkerboard(side))
    calls = []

    def progress(f, m):
        calls.append((time.perf_counter(), f, m))
        return False
    with Stopwatch() as sw:
        r = solve(p, method=method, linesolver="seed", max_iterations=max_iterations, time_limit=0.2,
                  progress=progress, prepass=pre)
    assert sw.working < 1.0, sw
    assert r.time_s >= 0.2
    assert r.verdict == "unknown" and r.stats["stopped"] and not r.stats["cancelled"]
    unlimited = max_iterations * p.n_lines if method == "brute" else p.n_lines
    if pre:
        assert r.linesolvers == 0 and 0 < r.stats["prepass_lines"] < p.n_lines
    else:
        assert 0 < r.linesolvers < unlimited
    # progress is reported while working, not only at the start and the end
    during = [c for c in calls if c[2] == "line solving"]
    assert len(during) >= 3, calls
    # (gaps in wall time, scaled by the share of a core the solve got, as its stop is)
    assert np.diff([c[0] for c in calls]).max() * sw.share < 0.15, (sw, calls)
    # without the callback too
    with Stopwatch() as sw:
        r = solve(p, method=method, linesolver="seed", max_iterations=max_iterations, time_limit=0.2,
                  prepass=pre)
    assert sw.working < 1.0, sw
    assert r.verdict == "unknown" and r.stats["stopped"] and not r.stats["cancelled"]


@pytest.mark.parametrize("linesolver", ["dp", "seed"])
@pytest.mark.parametrize("method", ["brute", "hierarchical", "heuristic", "learned"])
def test_progress_cancels(method, linesolver):
    """A callback that answers True on its 3rd call stops the run there. It takes 0.06 s per call
    (longer than the 0.05 s interval), so every chunk boundary calls it: the test does not
    depend on how fast the machine is."""
    p = blob_puzzle((24, 24, 24), seed=2)
    full_run = solve(p, method=method, linesolver=linesolver)
    assert full_run.verdict == "unique" and full_run.linesolvers > 1000
    calls = []

    def progress(f, m):
        calls.append((f, m))
        time.sleep(0.06)
        return len(calls) >= 3
    r = solve(p, method=method, linesolver=linesolver, progress=progress)
    assert len(calls) == 3, calls  # no call after the cancel
    assert [m for _, m in calls] == ["line solving"] * 3
    assert calls[0][0] == 0.0 and all(0.0 <= f < 1.0 for f, _ in calls)
    assert r.verdict == "unknown" and r.stats["cancelled"] and r.stats["stopped"]
    assert r.solutions == [] and r.difficulty is None
    assert 0 < r.linesolvers < full_run.linesolvers
    assert 0.0 < r.known_fraction < 1.0
    # the partial state is what was deduced, and its order lists exactly those cells
    known = np.flatnonzero(r.state != UNKNOWN)
    assert np.array_equal(np.sort(r.order), known)
    assert np.array_equal(r.state[known], full_run.state[known])
    # a cancel before the start
    r = solve(p, method=method, linesolver=linesolver, progress=lambda f, m: True)
    assert r.verdict == "unknown" and r.linesolvers == 0
    assert r.stats["cancelled"] and r.stats["stopped"]
