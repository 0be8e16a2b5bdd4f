"""The colour solver's per-solve set-up (#40): the 2D automata built in one kernel, the clue ids
the line cache shares results by, and the report's values, each against the per-line Python
construction it replaced."""
import numpy as np
import pytest

from engine.lines.colourline import dfa_2d, dfa_2d_tables
from engine.model.colourpuzzle import CKIND_BLOCKS, CKIND_COUNTS, CKIND_NONE, colour_puzzle_from_grid, with_hidden
from engine.kinds.colour.colourprop import build_net, with_clue_ids
from tests.colourgen import random_colour_puzzle


def ref_dfa_2d(blocks, k):
    """The automaton of one 2D clue built in plain Python, symbol by symbol: the reference the
    kernel (``dfa_2d_tables``, and ``dfa_2d`` through it) is held to."""
    pat, block_end, gap = [], [], []
    prev = 0
    for n, c in blocks:
        if prev == c:
            pat.append(0)
            block_end.append(False)
            gap.append(True)
        for j in range(n):
            pat.append(c)
            block_end.append(j == n - 1)
            gap.append(False)
        prev = c
    m = len(pat)
    tab = np.full((m + 1, k + 1), -1, dtype=np.int64)
    for q in range(m + 1):
        if q < m:
            tab[q, pat[q]] = q + 1
        if q == 0 or q == m or (block_end[q - 1] and pat[q] != 0) or gap[q - 1]:
            tab[q, 0] = q
    return tab


def ref_tables(p):
    """The tables as ``build_net`` built them before: the Python automaton per 2D line, concatenated."""
    k, n = p.k, p.n_lines
    tabs, tab_start, rows = [], np.zeros(n + 1, dtype=np.int64), 0
    for i in np.flatnonzero(p.clue_kind == CKIND_BLOCKS):
        t = ref_dfa_2d(p.clue(i), k)
        tabs.append(t)
        tab_start[i] = rows
        rows += t.shape[0]
        tab_start[i + 1] = rows
    return (np.concatenate(tabs) if tabs else np.zeros((1, k + 1), dtype=np.int64)), tab_start


def ref_lines(p):
    """mode, counts, run caps and the cell -> lines index as numpy built them before."""
    k, n = p.k, p.n_lines
    mode = np.zeros(n, dtype=np.int64)
    cnt = np.zeros((n, k), dtype=np.int64)
    rmax = np.zeros((n, k), dtype=np.int64)
    counts = p.clue_kind == CKIND_COUNTS
    if counts.any():
        data = p.clue_data[p.clue_start[:-1][counts][:, None] + np.arange(2 * k)[None, :]]
        mode[counts] = 2
        cnt[counts] = data[:, 0::2]
        rmax[counts] = np.where(data[:, 0::2] > 0, data[:, 1::2] + 1, 0)
    mode[p.clue_kind == CKIND_BLOCKS] = 1
    line_of = np.repeat(np.arange(n), np.diff(p.line_start))
    o = np.argsort(p.line_cells, kind="stable")
    cell_start = np.concatenate([[0], np.cumsum(np.bincount(p.line_cells, minlength=p.n_cells))])
    return mode, cnt, rmax, cell_start, line_of[o]


def ref_ids(p, net):
    """The 2D lines' clue ids as a dict of (length, table bytes) numbered them before."""
    lens = np.diff(p.line_start)
    ids = {}
    first = int(net.clue_id[net.mode == 2].max()) + 1 if (net.mode == 2).any() else 0
    out = {}
    for li in np.flatnonzero(net.mode == 1):
        key = (int(lens[li]), net.tab_all[net.tab_start[li]:net.tab_start[li + 1]].tobytes())
        out[int(li)] = first + ids.setdefault(key, len(ids))
    return out


def _puzzles():
    rng = np.random.default_rng(40)
    out = [random_colour_puzzle(rng, 2, int(rng.integers(1, 5))) for _ in range(60)]
    out += [random_colour_puzzle(rng, 3, int(rng.integers(2, 4))) for _ in range(10)]
    for seed in range(6):  # larger 2D pictures with repeated lines (shared ids)
        r = np.random.default_rng(seed)
        g = np.where(r.random((12, 9)) < 0.6, r.integers(1, 4, (12, 9)), 0)
        g[::3] = g[0]
        g[:, 1::4] = g[:, :1]
        p = colour_puzzle_from_grid(g, 3)
        out += [p, with_hidden(p, r.random(p.n_lines) < 0.3)]
    return [p for p in out if hasattr(p, "k")]


@pytest.mark.parametrize("p", _puzzles())
def test_tables_and_ids_match_the_per_line_construction(p):
    net = build_net(p)
    mode, cnt, rmax, cell_start, cell_lines = ref_lines(p)
    for name, want in (("mode", mode), ("cnt", cnt), ("rmax", rmax), ("cell_start", cell_start),
                       ("cell_lines", cell_lines), ("shown", (mode > 0).astype(np.uint8)),
                       ("line_start", p.line_start), ("line_cells", p.line_cells)):
        got = getattr(net, name)
        assert got.dtype == want.dtype or name.startswith("line_") and got.dtype == np.int64, name
        assert np.array_equal(got, want), name
    tab_all, tab_start = ref_tables(p)
    assert np.array_equal(net.tab_all, tab_all)
    assert np.array_equal(net.tab_start, tab_start)
    assert net.tab_all.dtype == np.int64 and net.tab_all.flags.c_contiguous
    want = ref_ids(p, net)
    assert {li: int(net.clue_id[li]) for li in want} == want
    # built later (the solver's line cache) they are the same
    late = with_clue_ids(p, build_net(p, ids=False))
    assert np.array_equal(late.clue_id, net.clue_id)


def test_tables_with_zero_blocks_and_hidden_lines():
    """Clue data the generators never write (blocks of length 0, same colours in a row, hidden
    lines between) still give the Python automata, one kernel call for all or ``dfa_2d`` for one."""
    k = 3
    clues = [[(2, 1), (1, 1), (3, 2)], None, None, [(0, 2), (2, 1)], [], [(1, 3), (0, 3), (1, 3)], None,
             [(4, 2)]]
    kind = np.array([CKIND_NONE if c is None else CKIND_BLOCKS for c in clues], np.int8)
    data = [v for c in clues if c for b in c for v in b]
    start = np.cumsum([0] + [2 * len(c or []) for c in clues])
    tab_all, tab_start = dfa_2d_tables(kind, start, np.array(data, np.int64), k, CKIND_BLOCKS)
    for i, c in enumerate(clues):
        if c is not None:
            assert np.array_equal(tab_all[tab_start[i]:tab_start[i + 1]], ref_dfa_2d(c, k)), i
            assert np.array_equal(dfa_2d(c, k), ref_dfa_2d(c, k)), i
    none = dfa_2d_tables(np.zeros(3, np.int8), np.zeros(4, np.int64), np.zeros(0, np.int64), k, CKIND_BLOCKS)
    assert np.array_equal(none[0], np.zeros((1, k + 1))) and not none[1].any()


def _states(rng, n, k):
    """Random colour masks of k colours: decided cells, open ones, and a few contradictions (0)."""
    full = (1 << (k + 1)) - 1
    s = rng.integers(0, full + 1, n).astype(np.int64)
    one = rng.random(n) < 0.4
    s[one] = np.int64(1) << rng.integers(0, k + 1, int(one.sum()))
    s[rng.random(n) < 0.05] = 0
    return s


@pytest.mark.parametrize("k", [1, 2, 3, 4, 9, 35])
def test_state_kernels_match_numpy(k):
    from engine.model.cells import EMPTY, FILLED, UNKNOWN
    from engine.kinds.colour.colourprop import cell_codes, decided, fewest_values, popcount, values_of
    rng = np.random.default_rng(k)
    for n in (1, 2, 7, 300):
        s = _states(rng, n, k)
        assert popcount(s).tolist() == [bin(int(v)).count("1") for v in s]
        assert popcount(s.reshape(1, -1)).shape == (1, n)
        ref = np.full(n, -1, np.int64)
        d = decided(s) & (s > 0)
        ref[d] = np.log2(s[d]).round().astype(np.int64)
        assert np.array_equal(values_of(s), ref)
        codes = np.full(n, UNKNOWN, np.int8)
        codes[s == 1] = EMPTY
        codes[(s & 1) == 0] = FILLED
        got = cell_codes(s, EMPTY, FILLED, UNKNOWN)
        assert got.dtype == np.int8 and np.array_equal(got, codes)
        und = np.flatnonzero(~decided(s))
        want = int(und[np.argmin([bin(int(v)).count("1") for v in s[und]])]) if len(und) else -1
        assert fewest_values(s) == want


def test_dense_2d_solver_matches_the_sparse_automaton_on_long_lines():
    """``solve_dfa_dense`` (its backward pass walks each layer's band alone) against
    ``solve_automaton``'s sorted state sets, on lines of up to 50 cells, k = 1..4, with random
    knowledge: some from the line itself (a solution exists), some from anywhere (often none)."""
    from engine.lines.colourline import solve_automaton, solve_dfa_dense
    rng = np.random.default_rng(7)
    none = np.zeros(1, dtype=np.int64)
    seen_none = seen_some = 0
    for trial in range(400):
        k = 1 + trial % 4
        n = int(rng.integers(1, 51))
        line = np.where(rng.random(n) < rng.uniform(0.2, 0.9), rng.integers(1, k + 1, n), 0)
        blocks, j = [], 0
        while j < n:
            if line[j]:
                e = j
                while e < n and line[e] == line[j]:
                    e += 1
                blocks.append((e - j, int(line[j])))
                j = e
            else:
                j += 1
        full = (1 << (k + 1)) - 1
        src = line if trial % 3 else rng.integers(0, k + 1, n)
        masks = np.where(rng.random(n) < rng.uniform(0, 0.6), np.int64(1) << src, full).astype(np.int64)
        masks[rng.random(n) < 0.1] &= ~np.int64(1)
        masks[masks == 0] = 1
        tab = dfa_2d(blocks, k)
        got = solve_dfa_dense(masks, tab)
        assert np.array_equal(got, solve_automaton(masks, 1, tab, k, none, none)), trial
        seen_none += not got.any()
        seen_some += bool(got.any())
    assert seen_none > 20 and seen_some > 200


def test_cover_of_counts_the_enabled_lines_through_each_cell():
    # the kernel against numpy's repeat-and-bincount, on 2D and 3D nets with random line masks
    from engine.kinds.plain.maskprop import cover_of
    rng = np.random.default_rng(5)
    for trial in range(120):
        shape = tuple(int(s) for s in rng.integers(1, 6, 2 + trial % 2))
        k = 1 + trial % 3
        net = build_net(colour_puzzle_from_grid(rng.integers(0, k + 1, shape), k))
        enabled = rng.random(len(net.mode)) < rng.uniform(0.1, 1.0)
        want = np.bincount(net.line_cells[np.repeat(enabled, np.diff(net.line_start))],
                           minlength=len(net.cell_start) - 1)
        got = cover_of(net, enabled)
        assert got.dtype == np.int64 and np.array_equal(got, want), trial
