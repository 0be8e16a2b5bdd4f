"""The CNF encoding and SAT fallback (``engine/kinds/plain/sat.py``) against enumeration and the CP-SAT
reference.

- A 3D circle / square clue's automaton, line by line: its models are the line's fillings that
  satisfy the clue (``linebrute``), and unit propagation on it deduces what the line solver does
  (every cell fixed in all fillings consistent with a partial line; a conflict when none is).
- The encoding: the models of the CNF, projected on the cells, are exactly the solutions found
  by enumerating every grid, for random small 2D and 3D puzzles (every clue kind, hidden lines,
  contradictory clue mixes; 3D shapes with lines of 5-6 cells for square clues), from an empty
  state and from partial states.
- The root implications ``benchmarks/sat_replay.py --relations full`` hands over: per unknown
  cell and value, exactly what a brute-force line fixpoint fixes, and the CNF's models with them
  still the solutions.
- ``benchmarks/sat_replay.py``'s capture and replay: each captured root is its own puzzle's (a
  solution of the CNF from it solves that puzzle), each case is replayed to an answer with the
  same conflicts every time (or stopped at its cap), and its tail counts are exact.
- The search with the fallback: ``solve``'s verdicts with the CDCL solver taking over at the
  first guess, and with the default hand-over, equal CP-SAT's on random puzzles too large to
  enumerate (uniqueness and first-solution modes).
Skipped when python-sat is not installed (the engine then searches without it).
"""
import numpy as np
import pytest

import engine.solve.search as search
from engine.model.cells import EMPTY, FILLED, UNKNOWN
from engine.kinds.plain.probe import C_MAX_TIER, P_CONTRADICTION, close, new_probe, probe_round, relation_literals, reset_relations
from engine.kinds.plain.propagate import LS_DP, build_net, known_line_ok, new_work, queue_all
from engine.model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE
from engine.kinds.plain.sat import HAVE_SAT, SAT_ERROR, SatSearch, _count_blocks_clauses, implication_clauses
from engine.solve.driver import solve
from linebrute import all_fixes, brute_solve
from test_solve_random import SMALL_2D, SMALL_3D, enumerate_solutions, random_puzzles, satisfies, tournament_puzzles

if not HAVE_SAT:
    pytest.skip(f"python-sat is not installed ({SAT_ERROR})", allow_module_level=True)


def sat_solutions(p, state, implications=None):
    """Every solution of the CNF under ``state`` (blocking each one found)."""
    constrained = np.diff(build_net(p).cell_start) > 0
    ss = SatSearch(build_net(p), state, constrained, implications)
    assert ss.feed(1 << 30)
    ss.chunk = 1 << 20
    out = []
    try:
        while True:
            r = ss.step()
            assert r is not None
            if r is False:
                return out
            out.append(r)
            ss.block(r)
    finally:
        ss.close()


def keys(sols):
    return sorted(np.packbits(s).tobytes() for s in sols)


def test_count_clue_automaton_is_exact_and_propagates_like_the_line_solver():
    from pysat.solvers import Solver
    rng = np.random.default_rng(5)
    n_checked = n_conflicts = 0
    for n in range(1, 10):
        cells = list(range(1, n + 1))
        for kind in (KIND_CIRCLE, KIND_SQUARE):
            for total in range(n + 1):
                top = [n]

                def new():
                    top[0] += 1
                    return top[0]
                out = []
                _count_blocks_clauses(cells, kind, total, np.full(n, UNKNOWN, np.int8), new, out)
                want = {tuple(f) for f in all_fixes(n, kind, total).tolist()}
                solver = Solver(name="cadical195", bootstrap_with=out)
                try:
                    got = set()
                    while solver.solve():
                        m = solver.get_model()
                        bits = tuple(m[i] > 0 for i in range(n))
                        got.add(bits)
                        solver.add_clause([-(i + 1) if b else i + 1 for i, b in enumerate(bits)])
                    assert got == want, (n, kind, total)
                finally:
                    solver.delete()
                # every clause guarded by a selector assumed first: pysat's propagate() leaves
                # out what the clauses imply on their own (decision level 0)
                sel = top[0] + 1
                solver = Solver(name="cadical195", bootstrap_with=[c + [-sel] for c in out])
                try:
                    for _ in range(6):
                        pick = rng.random(n) < 0.4
                        vals = rng.random(n) < total / n
                        state = np.where(pick, np.where(vals, FILLED, EMPTY), UNKNOWN).astype(np.int8)
                        ok, implied = solver.propagate(
                            assumptions=[sel] + [i + 1 if state[i] == FILLED else -(i + 1) for i in np.flatnonzero(pick).tolist()])
                        truth = brute_solve(state, kind, total)
                        assert ok == (truth is not None), (n, kind, total, state)
                        n_checked += 1
                        if truth is None:
                            n_conflicts += 1
                            continue
                        deduced = np.full(n, UNKNOWN, np.int8)
                        for lit in implied:
                            if abs(lit) <= n:
                                deduced[abs(lit) - 1] = FILLED if lit > 0 else EMPTY
                        assert np.array_equal(deduced, truth), (n, kind, total, state, deduced, truth)
                finally:
                    solver.delete()
    assert n_checked > 500 and 50 < n_conflicts < n_checked - 200, (n_checked, n_conflicts)


# 3D shapes with lines of 5-6 cells, where square clues (three blocks or more) occur
LONG_3D = [(5, 2, 2), (1, 5, 3), (6, 2, 1), (2, 1, 6)]


@pytest.mark.parametrize("shapes,seed,hide", [(SMALL_2D, 11, 0.4), (SMALL_3D, 12, 0.4), (LONG_3D, 13, 0.8)])
def test_models_are_the_solutions(shapes, seed, hide):
    rng = np.random.default_rng(seed)
    n_sols = []
    kinds = set()
    for p in random_puzzles(rng, 80, shapes, hide_max=hide):
        kinds.update(p.clue_kind.tolist())
        truth = enumerate_solutions(p, limit=1 << 20)
        # cells no clue covers are left empty by the SAT search: compare on the covered ones
        covered = np.diff(build_net(p).cell_start) > 0
        truth = {np.packbits(s & covered).tobytes() for s in truth}
        empty = np.full(p.n_cells, UNKNOWN, np.int8)
        got = sat_solutions(p, empty)
        assert sorted(truth) == keys(got), p.clues()
        n_sols.append(len(truth))
        # a partial state: some cells fixed (to a solution's values, or at random)
        if truth:
            base = np.unpackbits(np.frombuffer(sorted(truth)[0], np.uint8))[:p.n_cells].astype(bool)
        else:
            base = rng.random(p.n_cells) < 0.5
        pick = rng.random(p.n_cells) < 0.3
        if rng.random() < 0.3:
            base = base ^ (rng.random(p.n_cells) < 0.2)
        state = np.where(pick, np.where(base, FILLED, EMPTY), UNKNOWN).astype(np.int8)
        net = build_net(p)
        if not all(known_line_ok(li, net, state) for li in range(p.n_lines)
                   if p.clue_kind[li] != KIND_NONE and not np.any(state[p.line(li)] == UNKNOWN)):
            continue  # the CNF leaves out known lines: its callers' states satisfy them
        want = sorted(k for k in truth if np.array_equal(
            np.unpackbits(np.frombuffer(k, np.uint8))[:p.n_cells].astype(bool)[pick], base[pick]))
        assert want == keys(sat_solutions(p, state)), (p.clues(), state)
    assert sum(1 for k in n_sols if k == 0) >= 3 and sum(1 for k in n_sols if k >= 2) >= 3, n_sols
    if shapes is LONG_3D:
        assert {KIND_CIRCLE, KIND_SQUARE} <= kinds, kinds


def probed_root(p):
    """Line solving and probing to their fixpoint, as the search's root: (state, relations as
    literal pairs), or None on a contradiction."""
    net = build_net(p)
    w = new_work(net)
    pr = new_probe(p.n_cells, 1 << 14)
    queue_all(net, w)
    if not close(LS_DP, None, True, 0, net, w, pr):
        return None
    reset_relations(pr, True)
    pr.ctl[C_MAX_TIER] = 1
    n_target = int(np.count_nonzero(np.diff(net.cell_start) > 0))
    if probe_round(LS_DP, None, True, n_target, 1 << 40, net, w, pr) == P_CONTRADICTION:
        return None
    return w.state.copy(), relation_literals(pr)


def probed_roots(shapes, seed):
    """(puzzle, probed root state, its relations) of 60 random puzzles whose root probing meets
    no contradiction."""
    rng = np.random.default_rng(seed)
    for p in random_puzzles(rng, 60, shapes, hide_max=0.5):
        root = probed_root(p)
        if root is not None:
            yield p, *root


def solutions_under(p, state):
    """``keys`` of the puzzle's solutions (by enumeration) that extend ``state``, on the cells a
    clue covers (the CNF's models leave the others empty)."""
    covered = np.diff(build_net(p).cell_start) > 0
    known = state != UNKNOWN
    return sorted({np.packbits(s & covered).tobytes() for s in enumerate_solutions(p, limit=1 << 20)
                   if np.array_equal(np.where(s, FILLED, EMPTY)[known], state[known])})


@pytest.mark.parametrize("shapes,seed", [(SMALL_2D, 21), (SMALL_3D, 22)])
def test_probe_implications_keep_the_solutions(shapes, seed):
    """Probing's relations at the root, added as binary clauses, leave the CNF's models exactly
    the puzzle's solutions that extend the root state (a clause of the wrong sign or from the
    wrong state would cut some off)."""
    n_rel = 0
    for p, state, rel in probed_roots(shapes, seed):
        n_rel += len(implication_clauses(state, *rel))
        assert solutions_under(p, state) == keys(sat_solutions(p, state, rel)), p.clues()
    assert n_rel >= 50, n_rel


cpsat = pytest.importorskip("benchmarks.cpsat", reason="benchmarks/cpsat.py not importable")


@pytest.mark.skipif(not cpsat.HAVE_ORTOOLS, reason="ortools is not installed")
@pytest.mark.parametrize("after", [0, None])
def test_verdicts_equal_cpsat(monkeypatch, after):
    """Random 2D and 3D puzzles beyond enumeration (random grids are mostly settled by probing,
    so tournament puzzles are added to reach the search): every verdict equals CP-SAT's."""
    if after is not None:
        monkeypatch.setattr(search, "SAT_AFTER_STEPS", after)
    rng = np.random.default_rng(13 if after is None else 14)
    seen = {}
    used = 0
    extra = tournament_puzzles(8)
    for p in list(random_puzzles(rng, 30, [(14, 14), (15, 12), (5, 5, 5), (6, 5, 4)], mixed_share=0.3,
                                 hide_max=0.6)) + extra:
        ref = cpsat.cpsat_solve(p, time_limit=60)
        assert ref.verdict in ("unique", "multiple", "none")
        r = solve(p)
        assert r.verdict == ref.verdict, (r.verdict, ref.verdict, p.clues())
        if r.verdict == "unique":
            assert np.array_equal(r.solutions[0], ref.solutions[0])
        for s in r.solutions:
            assert satisfies(p, s)
        first = solve(p, want=1)
        assert first.verdict == ("none" if ref.verdict == "none" else "solved")
        if first.solutions:
            assert satisfies(p, first.solutions[0])
        used += r.stats["sat_conflicts"] >= 0
        seen[r.verdict] = seen.get(r.verdict, 0) + 1
    assert len(seen) == 3, seen
    if after == 0 and extra:
        assert used >= 4, used


def test_sat_chunks_grow_by_cpu_time_and_shrink_by_wall_time():
    """A chunk that took little CPU and little wall time doubles; one that took little CPU but a
    long wall time (a busy machine) stays, and one whose wall time ran far over halves, within
    the bounds, so a stop is looked at within about a second."""
    from engine.solve.search import SAT_CHUNK_S, next_chunk
    quick, slow = SAT_CHUNK_S / 4, SAT_CHUNK_S * 3
    assert next_chunk(1000, quick, quick) == 2000
    assert next_chunk(1 << 22, quick, quick) == 1 << 22
    assert next_chunk(1000, quick, SAT_CHUNK_S * 1.5) == 1000
    assert next_chunk(1000, SAT_CHUNK_S, SAT_CHUNK_S) == 1000
    assert next_chunk(1000, slow, slow) == 500
    assert next_chunk(150, slow, slow) == 100


def brute_fixpoint(p, state):
    """Line propagation to its fixpoint by each line's list of fillings (``linebrute``): the
    state, or None when a line has no filling left."""
    state = state.copy()
    changed = True
    while changed:
        changed = False
        for li in range(p.n_lines):
            if p.clue_kind[li] == KIND_NONE:
                continue
            cells = p.line(li)
            fills = all_fixes(len(cells), int(p.clue_kind[li]), p.clue_numbers(li))
            line = state[cells]
            ok = np.all((line == UNKNOWN) | (fills == (line == FILLED)), axis=1)
            if not ok.any():
                return None
            fills = fills[ok]
            sure = np.all(fills == fills[:1], axis=0)
            new = sure & (line == UNKNOWN)
            if new.any():
                state[cells[new]] = np.where(fills[0][new], FILLED, EMPTY)
                changed = True
    return state


@pytest.mark.parametrize("shapes,seed", [(SMALL_2D, 23), (SMALL_3D, 24)])
def test_root_implications_are_line_propagation_from_each_literal(shapes, seed):
    """``benchmarks/sat_replay.py --relations full``: the implications of each unknown cell's two
    values at the probed root are exactly the cells a line-by-line fixpoint (by brute-force
    fillings) fixes from there, and as binary clauses they keep the CNF's models the solutions."""
    from benchmarks.sat_replay import root_implications
    n_imp = 0
    for p, state, _rel in probed_roots(shapes, seed):
        net = build_net(p)
        src, dst = root_implications(net, state)
        n_imp += len(src)
        got = {}
        for s, d in zip(src.tolist(), dst.tolist()):
            got.setdefault(s, set()).add(d)
        for c in np.flatnonzero(state == UNKNOWN).tolist():
            for v in (EMPTY, FILLED):
                probe = state.copy()
                probe[c] = v
                fixed = brute_fixpoint(p, probe)
                want = set() if fixed is None else {
                    2 * q + (fixed[q] == FILLED) for q in np.flatnonzero((fixed != UNKNOWN) & (probe == UNKNOWN)).tolist()}
                assert got.get(2 * c + (v == FILLED), set()) == want, (p.clues(), c, v)
        assert solutions_under(p, state) == keys(sat_solutions(p, state, (src, dst))), p.clues()
    assert n_imp >= 30, n_imp


def test_replay_captures_each_puzzles_root_and_replays_each_case(monkeypatch):
    """``benchmarks/sat_replay.py`` with the hand-over at the search's start: each tournament
    puzzle the search leaves open is captured at its own probed root (a solution of the CNF built
    from it, with the root's cells as units, solves that puzzle), replayed to an answer with the
    same conflicts every time, or stopped when its cap is one conflict; ``tail`` counts the cases
    over each bound and ranks the largest."""
    from benchmarks.sat_replay import captured_hand_overs, replay, tail
    counts, largest = tail([{"set": "a", "i": 1, "conflicts": 5}, {"set": "b", "i": 7, "conflicts": 50},
                            {"set": "a", "i": 2, "conflicts": 20}], over=(10, 30), top=2)
    assert counts == {10: 2, 30: 1} and largest == [(50, "b #7"), (20, "a #2")]
    puzzles = tournament_puzzles(306)
    if not puzzles:
        pytest.skip("../shared is absent: no tournament puzzles")
    monkeypatch.setattr(search, "SAT_AFTER_STEPS", 0)
    picked = [130, 290, 305]  # CaDiCaL needs ~0.4k-1.6k conflicts from their roots
    cases = captured_hand_overs(puzzles, picked)
    assert [c[0] for c in cases] == picked
    for i, net, state, covered, rel in cases:
        ss = SatSearch(net, state, covered, rel, phases=True)
        assert ss.feed(1 << 30)
        ss.chunk = 1 << 20
        sol = ss.step()
        ss.close()
        assert sol is not None and satisfies(puzzles[i], sol), i
        known = state != UNKNOWN
        assert np.array_equal(np.where(sol, FILLED, EMPTY)[known], state[known])
    rows = replay(cases, 4000, 1 << 20)
    assert [r["i"] for r in rows] == [c[0] for c in cases]
    assert not any(r["capped"] for r in rows)
    again = replay(cases, 4000, 1 << 20)
    assert [r["conflicts"] for r in again] == [r["conflicts"] for r in rows]
    assert all(r["conflicts"] > 100 for r in rows), rows
    short = replay(cases, 0, 1)
    assert all(s["capped"] and s["conflicts"] <= 2 for s in short), short
