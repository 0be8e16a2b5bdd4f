"""The complete DP line solvers against brute-force enumeration of every fix of the line.

For a line and a state, the right answer is the OR (per cell) of the values taken over all fixes
consistent with the state, and a contradiction exactly when there is no such fix.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model.clues import blocks_of
from engine.lines.linesolve import solve_blocks, solve_count, solve_line
from engine.model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE
from linebrute import (EMPTY, FILLED, UNKNOWN, all_fixes, brute_solve, clues_for_length, reference_solve)


def clue_array(kind, clue):
    if kind == KIND_NONE:
        return np.zeros(0, np.int64)
    if kind == KIND_BLOCKS:
        return np.array(clue, dtype=np.int64)
    return np.array([clue], dtype=np.int64)


def dp(state, kind, clue):
    """(ok, out) from solve_line; out is None on a contradiction."""
    st_ = np.ascontiguousarray(state, dtype=np.int8)
    out = np.full(st_.shape, -1, np.int8)
    ok = bool(solve_line(st_, np.int64(kind), clue_array(kind, clue), out))
    return ok, (out if ok else None)


def expected_all_states(length, kind, clue):
    """Brute-force answers for every one of the 3**length states at once: (states, can_e, can_f, any)."""
    states = np.array(list(itertools.product((EMPTY, FILLED, UNKNOWN), repeat=length)), dtype=np.int8)
    fixes = all_fixes(length, kind, clue)
    allowed = np.where(fixes[None, :, :], (states[:, None, :] & FILLED) != 0, (states[:, None, :] & EMPTY) != 0)
    cons = allowed.all(axis=2).astype(np.int32)  # (states, fixes)
    can_f = (cons @ fixes.astype(np.int32)) > 0
    can_e = (cons @ (~fixes).astype(np.int32)) > 0
    return states, can_e, can_f, cons.any(axis=1)


def check(state, kind, clue, expected):
    ok, out = dp(state, kind, clue)
    where = f"kind={kind} clue={clue} state={state.tolist()}"
    if expected is None:
        assert not ok, f"DP found a fix where there is none: {where} -> {out.tolist()}"
    else:
        assert ok, f"DP reported a contradiction on a line with a fix: {where}"
        assert out.tolist() == expected.tolist(), f"{where}: DP {out.tolist()} != brute {expected.tolist()}"


@pytest.mark.parametrize("length", range(1, 7))
def test_exhaustive_states(length):
    n_checked = 0
    for kind, clue in clues_for_length(length):
        states, can_e, can_f, has_fix = expected_all_states(length, kind, clue)
        for s, state in enumerate(states):
            exp = None
            if has_fix[s]:
                exp = (np.where(can_e[s], EMPTY, 0) | np.where(can_f[s], FILLED, 0)).astype(np.int8)
            check(state, kind, clue, exp)
            n_checked += 1
    assert n_checked >= 3 ** length * 10


def random_states(rng, length, fixes, count):
    """Half from a fix with some cells hidden (usually consistent), half uniform (often not)."""
    out = []
    for t in range(count):
        if len(fixes) and t % 2 == 0:
            f = fixes[rng.integers(len(fixes))]
            s = np.where(f, FILLED, EMPTY).astype(np.int8)
            s[rng.random(length) < rng.uniform(0.3, 1.0)] = UNKNOWN
        else:
            s = rng.choice(np.array([EMPTY, FILLED, UNKNOWN, UNKNOWN, UNKNOWN], np.int8), size=length)
        out.append(s)
    return out


def partial_fix(rng, length, fill, hide):
    """A random fix (filled share drawn from ``fill``) and its state with a share drawn from
    ``hide`` of the cells unknown: (fix as bools, state)."""
    line = rng.random(length) < rng.uniform(*fill)
    state = np.where(line, FILLED, EMPTY).astype(np.int8)
    state[rng.random(length) < rng.uniform(*hide)] = UNKNOWN
    return line, state


@pytest.mark.parametrize("length", range(7, 13))
def test_random_states(length):
    rng = np.random.default_rng(1000 + length)
    per_clue = 6 if length < 11 else 3
    contradictions = fixes_seen = 0
    for kind, clue in clues_for_length(length):
        fixes = all_fixes(length, kind, clue)
        for state in random_states(rng, length, fixes, per_clue) + [np.full(length, UNKNOWN, np.int8)]:
            allowed = np.where(fixes, (state & FILLED) != 0, (state & EMPTY) != 0).all(axis=1)
            sub = fixes[allowed]
            exp = None
            if len(sub):
                exp = (np.where((~sub).any(axis=0), EMPTY, 0) | np.where(sub.any(axis=0), FILLED, 0)).astype(np.int8)
                fixes_seen += 1
            else:
                contradictions += 1
            check(state, kind, clue, exp)
    # Both outcomes must be exercised for the comparison to mean anything.
    assert contradictions > 50 and fixes_seen > 50


def test_direct_kernels_match_dispatch():
    rng = np.random.default_rng(7)
    for length in (5, 9):
        for kind, clue in clues_for_length(length):
            if kind == KIND_NONE:
                continue
            for state in random_states(rng, length, all_fixes(length, kind, clue), 4):
                out = np.empty(length, np.int8)
                if kind == KIND_BLOCKS:
                    ok = solve_blocks(state, np.array(clue, np.int64), out)
                else:
                    ok = solve_count(state, np.int64(clue), np.int64(kind), out)
                exp = brute_solve(state, kind, clue)
                assert bool(ok) == (exp is not None)
                if exp is not None:
                    assert out.tolist() == exp.tolist()


def test_contradictory_cells_in_state():
    state = np.array([UNKNOWN, 0, UNKNOWN], np.int8)
    for kind, clue in [(KIND_BLOCKS, [1]), (KIND_PLAIN, 1), (KIND_NONE, None)]:
        ok, _ = dp(state, kind, clue)
        assert not ok


def test_reference_solver_agrees_with_enumeration():
    # reference_solve is the oracle for the long lines below; it earns that here.
    rng = np.random.default_rng(3)
    for length in range(1, 10):
        for kind, clue in clues_for_length(length):
            fixes = all_fixes(length, kind, clue)
            for state in random_states(rng, length, fixes, 3):
                a, b = brute_solve(state, kind, clue), reference_solve(state, kind, clue)
                assert (a is None) == (b is None)
                if a is not None:
                    assert a.tolist() == b.tolist()


def test_square27_on_36_all_unknown():
    # 9 empty cells, at least two of them between blocks: every cell can be empty (put a gap
    # there) and every cell can be filled (move the gaps elsewhere), so nothing is deduced.
    ok, out = dp(np.full(36, UNKNOWN, np.int8), KIND_SQUARE, 27)
    assert ok and out.tolist() == [UNKNOWN] * 36
    # 34 filled cells cannot form three blocks in 36 cells (that needs 36 exactly).
    assert not dp(np.full(36, UNKNOWN, np.int8), KIND_SQUARE, 35)[0]
    # 34 in exactly three blocks on 36 cells: the two gaps are the only empties, never at the ends.
    ok, out = dp(np.full(36, UNKNOWN, np.int8), KIND_SQUARE, 34)
    assert ok and out[0] == FILLED and out[-1] == FILLED and out[1] == UNKNOWN


def test_circle40_on_64_all_unknown():
    ok, out = dp(np.full(64, UNKNOWN, np.int8), KIND_CIRCLE, 40)
    assert ok and out.tolist() == [UNKNOWN] * 64
    # Circle 63 on 64: the one gap sits strictly inside, so both ends are filled.
    ok, out = dp(np.full(64, UNKNOWN, np.int8), KIND_CIRCLE, 63)
    assert ok and out[0] == FILLED and out[63] == FILLED and out[1:63].tolist() == [UNKNOWN] * 62


@pytest.mark.parametrize("length,kind,total", [(36, KIND_SQUARE, 27), (64, KIND_CIRCLE, 40),
                                               (30, KIND_SQUARE, 12), (40, KIND_PLAIN, 17)])
def test_long_lines_partial_states(length, kind, total):
    rng = np.random.default_rng(length * 100 + total)
    hits = 0
    for t in range(12):
        # A fix built directly: `total` cells cut into blocks, gaps distributed at random.
        parts = {KIND_PLAIN: 1, KIND_CIRCLE: 2, KIND_SQUARE: int(rng.integers(3, 6))}[kind]
        cuts = np.sort(rng.choice(np.arange(1, total), size=parts - 1, replace=False)) if parts > 1 else []
        blocks = np.diff(np.concatenate(([0], cuts, [total])))
        spare = length - total - (parts - 1)
        extra = rng.multinomial(spare, np.ones(parts + 1) / (parts + 1))
        line = []
        for i, b in enumerate(blocks):
            line += [False] * (extra[i] + (1 if i else 0)) + [True] * int(b)
        line += [False] * extra[parts]
        state = np.where(line, FILLED, EMPTY).astype(np.int8)
        state[rng.random(length) < rng.uniform(0.05, 0.5)] = UNKNOWN
        if t % 3 == 2:  # flip a known cell: often a contradiction
            known = np.flatnonzero(state != UNKNOWN)
            if len(known):
                c = known[0]
                state[c] = EMPTY if state[c] == FILLED else FILLED
        exp = reference_solve(state, kind, total)
        check(state, kind, total, exp)
        hits += exp is not None and (exp != state).any()
    assert hits > 0  # some of these states must lead to deductions


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_hypothesis_medium_lines(data):
    length = data.draw(st.integers(13, 24), label="length")
    kind = data.draw(st.sampled_from([KIND_BLOCKS, KIND_PLAIN, KIND_CIRCLE, KIND_SQUARE]), label="kind")
    if kind == KIND_BLOCKS:
        clue = data.draw(st.lists(st.integers(1, 6), max_size=6), label="blocks")
    else:
        clue = data.draw(st.integers(0, length), label="total")
    cells = data.draw(st.lists(st.sampled_from([EMPTY, FILLED, UNKNOWN, UNKNOWN]), min_size=length,
                               max_size=length), label="state")
    state = np.array(cells, np.int8)
    check(state, kind, clue, reference_solve(state, kind, clue))


@pytest.mark.parametrize("length", [25, 40, 64])
def test_long_block_lists_partial_states(length):
    rng = np.random.default_rng(length)
    deduced = 0
    for t in range(10):
        line, state = partial_fix(rng, length, (0.4, 0.8), (0.3, 0.9))
        blocks = blocks_of(line)
        if t % 4 == 3 and blocks:
            blocks[0] += 1  # usually no longer fits the known cells
        exp = reference_solve(state, KIND_BLOCKS, blocks)
        check(state, KIND_BLOCKS, blocks, exp)
        deduced += exp is not None and (exp != state).any()
    assert deduced > 0


def test_bench_cli(capsys):
    from benchmarks.bench_linesolve import main
    import json
    assert main(["--json", "--repeats", "1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    cases = {r["case"] for r in rows}
    assert cases == {f"{c}/{s}" for c in ("exact25x5", "square27x36", "circle40x64") for s in ("unknown", "partial")}
    for r in rows:
        assert r["solver"] in ("dp", "seed")
        if r["solver"] == "dp":
            assert r["ok"] and r["us_per_call"] > 0
        elif r["case"].startswith("square27x36"):
            assert r["status"] == "too large" and r["us_per_call"] is None and r["expansions"] == 2 ** 26 - 27
        else:
            assert r["status"] == "ok" and r["us_per_call"] > 0
    assert main(["--repeats", "0"]) == 2
    assert main(["--no-such-option"]) == 2


def _bits_vs_dp(state, blocks):
    from engine.lines.linebits import solve_blocks_bits
    from engine.lines.linesolve import solve_blocks_dp
    b = np.array(blocks, np.int64)
    o1 = np.full(len(state), -1, np.int8)
    o2 = np.full(len(state), -1, np.int8)
    scratch = np.zeros(2 * len(blocks) + 2, np.uint64)
    a = bool(solve_blocks_dp(state, b, o1))
    c = bool(solve_blocks_bits(state, b, o2, scratch))
    assert a == c, (state.tolist(), blocks)
    if a:
        assert o1.tolist() == o2.tolist(), (state.tolist(), blocks)
    return a


@settings(max_examples=400, deadline=None, derandomize=True)
@given(data=st.data())
def test_word_solver_equals_array_dp(data):
    """The 64-bit word solver (every exact line of up to 62 cells) against the array DP, on
    lengths up to the word's limit, including blocks longer than the line."""
    length = data.draw(st.integers(1, 62), label="length")
    blocks = data.draw(st.lists(st.integers(1, 20), max_size=12), label="blocks")
    cells = data.draw(st.lists(st.sampled_from([EMPTY, FILLED, UNKNOWN, UNKNOWN, UNKNOWN]),
                               min_size=length, max_size=length), label="state")
    _bits_vs_dp(np.array(cells, np.int8), blocks)


@pytest.mark.parametrize("length", [31, 32, 33, 61, 62, 63, 64, 70])
def test_word_solver_at_the_word_boundary(length):
    """Lines from fixes (mostly consistent) at and around the word limit; past it solve_blocks
    uses the array DP, which the brute-force oracle checks too."""
    rng = np.random.default_rng(length)
    consistent = 0
    for t in range(60):
        line, state = partial_fix(rng, length, (0.3, 0.8), (0.2, 1.0))
        blocks = blocks_of(line)
        if length <= 62:
            consistent += _bits_vs_dp(state, blocks)
        if t % 6 == 0:
            check(state, KIND_BLOCKS, blocks, reference_solve(state, KIND_BLOCKS, blocks))
    assert length > 62 or consistent == 60  # a fix's own line is always consistent


@settings(max_examples=400, deadline=None, derandomize=True)
@given(data=st.data())
def test_count_word_solver_equals_array_dp(data):
    """The word solver of 3D clues (lines of up to 64 cells) against the array DP, totals from
    consistent fixes and arbitrary ones (often contradictions)."""
    from engine.lines.linebits import solve_count_bits
    from engine.lines.linesolve import solve_count_dp
    length = data.draw(st.integers(1, 64), label="length")
    kind = data.draw(st.sampled_from([KIND_PLAIN, KIND_CIRCLE, KIND_SQUARE]), label="kind")
    cells = data.draw(st.lists(st.sampled_from([EMPTY, FILLED, UNKNOWN, UNKNOWN, UNKNOWN]),
                               min_size=length, max_size=length), label="state")
    total = data.draw(st.integers(0, min(length, 62)), label="total")
    state = np.array(cells, np.int8)
    o1 = np.full(length, -1, np.int8)
    o2 = np.full(length, -1, np.int8)
    a = bool(solve_count_dp(state, np.int64(total), np.int64(kind), o1))
    b = bool(solve_count_bits(state, np.int64(total), np.int64(kind), o2, np.zeros(8 * (length + 1), np.uint64)))
    assert a == b
    if a:
        assert o1.tolist() == o2.tolist()


def test_count_word_solver_on_fixes_of_long_lines():
    """Partly known lines cut from fixes (always consistent) up to the word limit; beyond it
    (65 cells, or a total over 62) solve_count falls back to the array DP."""
    from engine.lines.linebits import solve_count_bits
    from engine.lines.linesolve import solve_count_dp
    rng = np.random.default_rng(9)
    deduced = 0
    for t in range(300):
        length = int(rng.integers(30, 66))
        line, state = partial_fix(rng, length, (0.3, 0.9), (0.05, 0.5))
        nb = len(blocks_of(line))
        kind = KIND_PLAIN if nb <= 1 else KIND_CIRCLE if nb == 2 else KIND_SQUARE
        total = int(line.sum())
        o1 = np.zeros(length, np.int8)
        assert solve_count_dp(state, np.int64(total), np.int64(kind), o1)
        ok, o2 = dp(state, kind, total)  # the dispatcher: words when they fit
        assert ok and o1.tolist() == o2.tolist()
        if length <= 64 and total <= 62:
            o3 = np.zeros(length, np.int8)
            assert solve_count_bits(state, np.int64(total), np.int64(kind), o3, np.zeros(8 * (length + 1), np.uint64))
            assert o3.tolist() == o1.tolist()
        deduced += (o1 != state).any()
    assert deduced > 15  # count clues are loose: about one line in ten deduces a cell here
