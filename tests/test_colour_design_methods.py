"""Colour design methods (greedy / anneal / random, issue #24): each keeps the guarantees of the
black-and-white designer on small random colour puzzles, 2D and 3D: unique (CP-SAT), solvable at
the logic level asked, locally minimal (no single further clue can go at that level), in the
band asked for, the same design for the same seed; the pass by halves gives the designs of
from-scratch trials in order; Suggest and Repair for colour puzzles against brute force."""
from __future__ import annotations

import numpy as np
import pytest

from engine.design.colourdesign import METHODS, design_colour
from engine.design.coloursession import ColourSession, repair_colour
from engine.design.colourtrials import TrialRun
from engine.model.colourpuzzle import CKIND_NONE, colour_puzzle_from_grid, with_hidden
from engine.solve.coloursolve import ST_OK, build_net, decided, full_state, propagate, solve_colour

cpsat = pytest.importorskip("benchmarks.cpsat_colour", reason="benchmarks/cpsat_colour.py not importable")


def _grid(shape, k, seed, fill=0.65):
    rng = np.random.default_rng(seed)
    return np.where(rng.random(shape) < fill, rng.integers(1, k + 1, shape), 0)


def _levels(logic):
    return ("line",) if logic == "line" else ("line", "probe")


def _solvable(p, mask, logic):
    r = solve_colour(with_hidden(p, mask), probing=logic == "probe", use_known=False)
    return r.verdict == "unique" and r.difficulty in _levels(logic)


CASES = [((4, 5, 3), 2, "line", 3), ((7, 6), 3, "line", 4), ((4, 4, 4), 3, "probe", 8), ((6, 7), 2, "probe", 2)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape,k,logic,seed", CASES)
def test_each_method_keeps_the_guarantees(method, shape, k, logic, seed):
    p = colour_puzzle_from_grid(_grid(shape, k, seed), k)
    if not _solvable(p, np.zeros(p.n_lines, bool), logic):
        pytest.skip("this random grid needs search with every clue shown")
    kw = {"anneal_moves": 60} if method == "anneal" else {}
    d = design_colour(p, logic=logic, seed=seed, method=method, **kw)
    mask = d.puzzle.clue_kind == CKIND_NONE
    assert d.hidden_count == int(mask.sum()) > 0 and d.method == method and d.reproducible
    # unique, by the CP-SAT reference (its own search, not told the solution)
    q = with_hidden(p, mask)
    q.colour_solution = None
    assert cpsat.cpsat_solve_colour(q, time_limit=30).verdict == "unique"
    assert _solvable(p, mask, logic)
    # locally minimal: no shown clue can go at this logic level
    assert d.locally_minimal
    for li in np.flatnonzero(~mask):
        more = mask.copy()
        more[li] = True
        assert not _solvable(p, more, logic), li
    # the same seed, the same design; from-scratch trials, the same design too
    again = design_colour(p, logic=logic, seed=seed, method=method, resume=False, **kw)
    assert np.array_equal(again.puzzle.clue_kind, d.puzzle.clue_kind)


def test_greedy_and_anneal_hide_at_least_what_random_hides_on_average():
    got = {m: 0 for m in METHODS}
    for seed in range(6):
        p = colour_puzzle_from_grid(_grid((5, 5, 4), 2, 100 + seed, 0.7), 2)
        for m in METHODS:
            got[m] += design_colour(p, seed=seed, method=m, anneal_moves=80).hidden_count
    assert got["greedy"] > got["random"] and got["anneal"] >= got["greedy"], got


def test_a_score_range_caps_the_score():
    """A design that scores above the range asked for shows clues again (the bisection along
    its hides) until it scores within it."""
    from engine.solve.coloursolve import grade_colour
    p = colour_puzzle_from_grid(_grid((6, 6, 5), 3, 21, 0.7), 3)
    free = design_colour(p, seed=1, method="greedy")
    low = grade_colour(p)[0]
    assert free.score is not None and free.score > low + 2.0
    hi = (free.score + low) / 2
    d = design_colour(p, seed=1, method="greedy", score_range=(0.0, hi))
    mask = d.puzzle.clue_kind == CKIND_NONE
    assert d.score is not None and d.score <= hi and 0 < d.hidden_count < free.hidden_count
    assert _solvable(p, mask, "line") and d.message == ""


def test_propagation_reaches_the_same_fixpoint_in_any_order():
    """The queues' fixpoint is the lines' common fixpoint, whatever order they are taken in
    (what the pass by halves relies on)."""
    for seed in range(20):
        k = 2 + seed % 3
        shape = (4, 5, 4) if seed % 2 else (8, 7)
        p = colour_puzzle_from_grid(_grid(shape, k, 500 + seed), k)
        rng = np.random.default_rng(seed)
        q = with_hidden(p, rng.random(p.n_lines) < 0.5)
        net = build_net(q)
        want = full_state(net)
        assert propagate(net, want) == ST_OK
        run = TrialRun(net, p.colour_solution.ravel(), "line")
        solved = run.solve(rng.permutation(len(net.mode)))
        # the designer's runs stop once every cell is decided: the same state then
        assert np.array_equal(run.state, want) and solved == bool(decided(want).all()), seed


def _undecided(p, mask, logic="line"):
    return int((~decided(solve_colour(with_hidden(p, mask), probing=logic == "probe").state)).sum())


@pytest.mark.parametrize("shape,k,seed", [((5, 4, 4), 2, 1), ((8, 7), 3, 2)])
def test_suggest_and_repair_on_colour_puzzles(shape, k, seed):
    p = colour_puzzle_from_grid(_grid(shape, k, 40 + seed), k)
    rng = np.random.default_rng(seed)
    broken = rng.random(p.n_lines) < 0.75
    if _undecided(p, broken) == 0 or _undecided(p, np.zeros(p.n_lines, bool)) > 0:
        pytest.skip("not a broken design of a line-solvable puzzle")
    sess = ColourSession(p)
    # Suggest: brute force over every hidden clue
    settled = {}
    for li in np.flatnonzero(broken):
        trial = broken.copy()
        trial[li] = False
        settled[int(li)] = _undecided(p, broken) - _undecided(p, trial)
    top = sess.suggest(broken, "line", k=3)
    assert top and top[0].settles == max(settled.values()) > 0
    assert all(settled[s.line] == s.settles for s in top)
    assert [s.settles for s in top] == sorted((s.settles for s in top), reverse=True)
    # Repair: solvable after, no clue of the answer can be left out, and one clue when one does it
    r = repair_colour(p, broken, "line")
    assert r.lines and np.array_equal(np.flatnonzero(broken & ~r.hidden), sorted(r.lines))
    assert _solvable(p, r.hidden, "line")
    for li in r.lines:
        back = r.hidden.copy()
        back[li] = True
        assert not _solvable(p, back, "line")
    if len(r.lines) > 1:
        assert not any(settled[li] == _undecided(p, broken) for li in settled)
    assert repair_colour(p, r.hidden, "line").lines == []
    assert sess.suggest(r.hidden, "line") == []


@pytest.mark.parametrize("method", METHODS)
def test_design_cli_takes_each_method_for_colour_puzzles(tmp_path, capsys, method):
    """``python -m engine design --method M`` on a colour puzzle file (in process): the method's
    design, where the CLI refused every method but greedy."""
    import json
    from engine.cli.design import main
    from engine.files.puzzlefile import load_puzzle, save_puzzle
    p = colour_puzzle_from_grid(_grid((4, 5, 3), 2, 3), 2)
    save_puzzle(p, str(tmp_path / "in.json"))
    out = tmp_path / "out.json"
    assert main(["design", str(tmp_path / "in.json"), "-o", str(out), "--seed", "3", "--method", method,
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    want = design_colour(p, seed=3, method=method)
    assert d["method"] == method and d["hidden"] == want.hidden_count
    assert np.array_equal(load_puzzle(str(out)).clue_kind, want.puzzle.clue_kind)


def _line_solvable_puzzles(n, base):
    """(seed, puzzle, net, a seeded order of its lines) for small random colour puzzles, 2D and 3D,
    that line logic solves with every clue shown."""
    for seed in range(n):
        k = 2 + seed % 3
        shape = (5, 4, 4) if seed % 2 else (7, 8)
        p = colour_puzzle_from_grid(_grid(shape, k, base + seed), k)
        net = build_net(p)
        st = full_state(net)
        if propagate(net, st) != ST_OK or not decided(st).all():
            continue
        yield seed, p, net, np.random.default_rng(seed).permutation(np.flatnonzero(net.mode > 0))


@pytest.mark.parametrize("logic", ["line", "probe"])
def test_the_pass_by_halves_decides_as_trials_in_order(logic):
    """``colourprune.prune_by_halves`` hides exactly the lines that trials in order, each a
    propagation from scratch (and probing for logic "probe"), would hide; a stop mid-pass leaves
    the hides so far with every other line shown, a solved mask."""
    from engine.design.colourprune import prune_by_halves
    from engine.solve.coloursolve import probe
    checked = 0
    for seed, p, net, order in _line_solvable_puzzles(10, 700):
        want, ref = [], build_net(p)
        for li in order:
            ref.mode[li] = 0
            st = full_state(ref)
            ok = propagate(ref, st) == ST_OK and bool(decided(st).all())
            if not ok and logic == "probe":
                ok = probe(ref, st, np.zeros(2, dtype=np.int64)) == ST_OK and bool(decided(st).all())
            if ok:
                want.append(int(li))
            else:
                ref.mode[li] = net.mode[li]
        got = prune_by_halves(net, order, logic == "probe")
        assert got == want and np.array_equal(net.mode, ref.mode), seed
        # with the trials' propagation (line cache, stops once every cell is decided)
        net = build_net(p)
        run = TrialRun(net, p.colour_solution.ravel(), logic)
        assert prune_by_halves(net, order, logic == "probe", propagate_fn=run.propagate) == want
        checked += 1
        # stopped halfway: the hides so far, the rest shown
        net = build_net(p)
        calls = []

        def stop(done):
            calls.append(done)
            if done >= 0.5:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            prune_by_halves(net, order, logic == "probe", stop)
        hidden = set(np.flatnonzero(net.mode == 0).tolist())
        assert hidden <= set(want) and calls == sorted(calls)
        st = full_state(net)
        assert propagate(net, st) == ST_OK
        if logic == "line":
            assert decided(st).all()
    assert checked >= 4


def test_the_line_cache_changes_no_run(monkeypatch):
    """Trials with a line cache of 16 slots (collisions, replacements) answer, and count, as
    with the full cache: same hides, same per-line counts of the last run."""
    import engine.solve.linecache as ct
    for seed in range(6):
        k = 2 + seed % 3
        p = colour_puzzle_from_grid(_grid((5, 5, 4), k, 900 + seed), k)
        runs = []
        for slots in (ct.CACHE_SLOTS, 16):
            monkeypatch.setattr(ct, "CACHE_SLOTS", slots)
            net = build_net(p)
            run = TrialRun(net, p.colour_solution.ravel(), "line")
            assert len(run.cache[0]) <= max(slots, 16)
            if not run.solve():
                break
            got = [run.try_hide(int(li)) for li in np.random.default_rng(seed).permutation(np.flatnonzero(net.mode))]
            runs.append((got, run.changes.copy(), net.mode.copy()))
        if len(runs) == 2:
            assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1])
            assert np.array_equal(runs[0][2], runs[1][2])


def test_a_design_time_limit_holds_inside_a_propagation():
    """The designer's propagations take its deadline (as the solver's do): a design stopped by a
    tiny time limit says so and keeps a solved mask; a limit passed before the first run is an
    error that says so."""
    from engine.design.colourdesign import ColourDesignError
    from engine.design.colourtrials import RunTimeout
    p = colour_puzzle_from_grid(_grid((6, 6, 5), 3, 33, 0.7), 3)
    net = build_net(p)
    run = TrialRun(net, p.colour_solution.ravel(), "line")
    run.deadline = 0.0  # long past
    with pytest.raises(RunTimeout):
        run.solve()
    with pytest.raises(ColourDesignError, match="time limit"):
        design_colour(p, seed=0, time_limit=0.0)
    free = design_colour(p, seed=0)
    if free.hidden_count:
        mask = free.puzzle.clue_kind == CKIND_NONE
        assert _solvable(p, mask, "line")


def test_the_pass_by_halves_alone_finds_each_line_hideable_by_itself():
    """``alone=True``: the lines whose hiding alone (every other line shown) still solves, as one
    from-scratch propagation per line finds them; the mask is left as it was."""
    from engine.design.colourprune import prune_by_halves
    checked = 0
    for seed, p, net, order in _line_solvable_puzzles(8, 1700):
        want = []
        for li in order:
            ref = build_net(p)
            ref.mode[li] = 0
            st = full_state(ref)
            if propagate(ref, st) == ST_OK and decided(st).all():
                want.append(int(li))
        before = net.mode.copy()
        assert prune_by_halves(net, order, alone=True) == want and np.array_equal(net.mode, before), seed
        checked += 1
    assert checked >= 3
