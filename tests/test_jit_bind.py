"""``jit.bind``: a kernel's compiled code for given argument types, called without numba's
dispatch; and the search on bound kernels taking exactly the path it takes through dispatch."""
import numpy as np
import pytest
from conftest import run_python

from engine import jit
from engine.kinds.plain.plainkind import PlainSolver
from engine.solve.driver import solve
from engine.model.clues import puzzle_from_grid
from test_solve_random import SMALL_2D, random_puzzles, satisfies, tournament_puzzles

SMALL_PUZZLE = puzzle_from_grid(np.eye(5, dtype=bool))


@jit.njit(cache=False)
def _total(a, k):
    s = a[0] * 0
    for x in a:
        s += x
    return s + k


@pytest.mark.skipif(not jit.HAVE_NUMBA, reason="numba is not installed (or disabled): bind returns the kernel")
def test_bound_code_is_the_overload_of_the_given_types_and_skips_dispatch(monkeypatch):
    ints = np.arange(5, dtype=np.int64)
    floats = np.linspace(0.0, 1.0, 5)
    as_int = jit.bind(_total, ints, 1)
    as_float = jit.bind(_total, floats, 1)
    assert as_int is not _total and as_float is not _total
    # dispatch would type every argument: it must not be reached any more
    monkeypatch.setattr(_total, "typeof_pyval", lambda v: pytest.fail("a bound call went through dispatch"))
    assert as_int(ints, 2) == 12 and type(as_int(ints, 2)) is int
    assert as_float(floats, 2) == pytest.approx(4.5) and type(as_float(floats, 2)) is float
    # the dispatcher kept both overloads: a bind loads or compiles them like a first call would
    assert len(_total.overloads) == 2


@pytest.mark.skipif(not jit.HAVE_NUMBA, reason="numba is not installed (or disabled): bind returns the kernel")
def test_a_second_bind_of_the_same_types_neither_types_nor_compiles(monkeypatch):
    ints = np.arange(3, dtype=np.int64)
    first = jit.bind(_total, ints, 1)
    monkeypatch.setattr(_total, "typeof_pyval", lambda v: pytest.fail("typed again"))
    monkeypatch.setattr(_total, "compile", lambda sig: pytest.fail("compiled again"))
    assert jit.bind(_total, np.zeros(7, np.int64), 5) is first
    with pytest.raises(BaseException):  # another dtype is another key: it must type (and fails here)
        jit.bind(_total, np.zeros(7, np.float32), 5)


def test_a_solve_without_search_binds_nothing(monkeypatch):
    from engine.kinds.plain import plainkind
    solve(tournament_puzzles(1)[0] if tournament_puzzles(1) else SMALL_PUZZLE)  # the warm-up's own solves first
    calls = []
    monkeypatch.setattr(plainkind, "bind", lambda k, *a: calls.append(k) or k)
    line_only = np.zeros((6, 6), bool)
    line_only[1:5, 2] = True
    r = solve(puzzle_from_grid(line_only))
    assert r.verdict == "unique" and r.stats.get("nodes", 0) == 0 and calls == []
    searched = [p for p in tournament_puzzles(20) if solve(p, want=1, sat=False).stats.get("nodes")]
    if searched:
        calls.clear()
        solve(searched[0], want=1, sat=False)
        assert len(calls) == 6, calls


def test_without_numba_bind_is_the_kernel_itself():
    script = ("from engine import jit\n"
              "def f(x):\n    return x + 1\n"
              "k = jit.njit(f)\n"
              "assert jit.bind(k, 1) is k and k(1) == 2\n"
              "print('ok', jit.HAVE_NUMBA)\n")
    for env in ({"NONOGRAM_NO_NUMBA": "1"}, {"NUMBA_DISABLE_JIT": "1"}):
        out = run_python(script, env_extra=env)
        assert out.returncode == 0 and out.stdout.strip() == "ok False", (env, out.stdout, out.stderr)


class _Dispatched(PlainSolver):
    """The plain solver with its search node's kernels called through numba's dispatch."""

    def _bind_kernels(self):
        from engine.kinds.plain import plainkind, probe, propagate
        self._probe_round, self._assume = probe.probe_round, probe.assume
        self._mark_affected, self._reset_relations = probe.mark_affected, probe.reset_relations
        self._undo_to, self._choose_branch = propagate.undo_to, plainkind.choose_branch


def _trace(p, want, monkeypatch, solver):
    monkeypatch.setattr("engine.solve.driver.PlainSolver", solver)
    r = solve(p, want=want, sat=False)
    return r.verdict, [s.tobytes() for s in map(np.asarray, r.solutions)], r.linesolvers, r.stats.get("nodes"), \
        r.stats.get("probes"), r.stats.get("relations")


@pytest.mark.parametrize("want", [1, 2])
def test_search_on_bound_kernels_takes_the_dispatched_path(want, monkeypatch):
    rng = np.random.default_rng(40 + want)
    puzzles = list(random_puzzles(rng, 25, SMALL_2D)) + tournament_puzzles(4)
    searched = 0
    for p in puzzles:
        bound = _trace(p, want, monkeypatch, PlainSolver)
        assert bound == _trace(p, want, monkeypatch, _Dispatched), p.clues()
        for s in solve(p, want=want, sat=False).solutions:
            assert satisfies(p, s)
        searched += bool(bound[3])
    assert searched >= 3, "too few puzzles needed a search to compare the two paths"
