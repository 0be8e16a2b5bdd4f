"""The web player's line solvers (web/src/lines.js, run in node) against the engine's on random
lines: the black-and-white count solver against ``engine.lines.linesolve.solve_count``, the
colour solver against ``engine.lines.colourline.solve_line``. Same cells, same values, same
contradictions: the page's hints are the engine's line logic."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.lines import colourline, linesolve
from engine.model.clues import clue3d_of
from engine.model.colourpuzzle import clue_of_line
from engine.model.puzzle import KIND_PLAIN

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"plain": 0, "circle": 1, "square": 2}
EMPTY, FILLED, UNKNOWN = 1, 2, 3

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="node is not installed (the web player's solvers run in JavaScript)")


def run_node(script: str, cases) -> list:
    """``script`` (an ES module body that sees ``cases`` and prints JSON) with the cases on stdin."""
    js = ("import * as L from './web/src/lines.js';"
          "let text = ''; process.stdin.on('data', d => text += d);"
          "process.stdin.on('end', () => { const cases = JSON.parse(text);" + script + "});")
    out = subprocess.run(["node", "--input-type=module", "-e", js], cwd=ROOT, input=json.dumps(cases),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def bw_cases(rng, count):
    cases = []
    for _ in range(count):
        n = int(rng.choice([int(rng.integers(1, 12)), int(rng.integers(12, 70))]))
        n = min(n, 64)
        line = rng.random(n) < rng.uniform(0.1, 0.9)
        clue = clue3d_of(line)
        if rng.random() < 0.2:   # a clue of another line: contradictions happen
            clue = clue3d_of(rng.random(n) < 0.5)
        known = rng.random(n) < rng.uniform(0, 0.8)
        state = np.where(known, np.where(line, FILLED, EMPTY), UNKNOWN).astype(np.int8)
        cases.append((state.tolist(), int(clue.total), KINDS[clue.kind]))
    return cases


def test_the_black_and_white_solver_is_the_engines():
    rng = np.random.default_rng(39)
    cases = bw_cases(rng, 1500)
    got = run_node("console.log(JSON.stringify(cases.map(([s, t, k]) => {"
                   " const out = new Int8Array(s.length);"
                   " return L.solveCount(Int8Array.from(s), t, k, out) ? Array.from(out) : null; })));", cases)
    decided = contradictions = 0
    for (state, total, kind), mine in zip(cases, got):
        out = np.zeros(len(state), np.int8)
        ok = linesolve.solve_count(np.asarray(state, np.int8), total, KIND_PLAIN + kind, out)
        want = out.tolist() if ok else None
        assert mine == want, (state, total, kind)
        contradictions += want is None
        decided += want is not None and want != state
    assert contradictions > 50 and decided > 400, "random lines should decide and contradict"


def colour_cases(rng, count, lengths, ks=(2, 3, 4)):
    cases = []
    for _ in range(count):
        k = int(rng.choice(ks))
        n = int(rng.integers(*lengths))
        values = np.where(rng.random(n) < rng.uniform(0.2, 0.9), rng.integers(1, k + 1, n), 0)
        clue = clue_of_line(values, k, True)
        if rng.random() < 0.2:
            clue = clue_of_line(rng.permutation(values) if rng.random() < 0.5 else
                                np.where(rng.random(n) < 0.5, rng.integers(1, k + 1, n), 0), k, True)
        full = (1 << (k + 1)) - 1
        masks = []
        for v in values:
            r = rng.random()
            if r < 0.35:
                masks.append(1 << int(v))                  # known
            elif r < 0.5:
                masks.append(full & ~1 if v else 1)        # filled, colour unknown / empty
            elif r < 0.6:
                masks.append(int(rng.integers(1, full + 1)) | (1 << int(v)))
            else:
                masks.append(full)
        cases.append((masks, [[int(t), int(m)] for t, m in clue], k))
    return cases


def _colour_engine(masks, clue, k):
    out = colourline.solve_line(np.asarray(masks, np.int64), [tuple(c) for c in clue], k, True)
    return None if (out == 0).any() else out.tolist()


@pytest.mark.parametrize("lengths,count", [((1, 12), 800), ((12, 37), 150)])
def test_the_colour_solver_is_the_engines(lengths, count):
    rng = np.random.default_rng(lengths[0] * 100 + 39)
    cases = colour_cases(rng, count, lengths)
    got = run_node("console.log(JSON.stringify(cases.map(([m, clue]) => {"
                   " const r = L.solveColourLine(Int32Array.from(m), clue.map(([t, k]) => ({ total: t, kind: k })));"
                   " return r.gaveUp ? 'gave up' : r.masks && Array.from(r.masks); })));", cases)
    decided = contradictions = 0
    for (masks, clue, k), mine in zip(cases, got):
        want = _colour_engine(masks, clue, k)
        assert mine == want, (masks, clue, k)
        contradictions += want is None
        decided += want is not None and want != masks
    assert contradictions > count // 40 and decided > count // 3


def test_the_per_colour_pass_alone_is_sound_and_the_exact_one_finds_more():
    # relaxColour never drops a value the engine keeps; on some lines the exact pass drops more
    rng = np.random.default_rng(7)
    cases = colour_cases(rng, 600, (2, 14))
    got = run_node("console.log(JSON.stringify(cases.map(([m, clue]) => {"
                   " const r = L.relaxColour(Int32Array.from(m), clue.map(([t, k]) => ({ total: t, kind: k })));"
                   " return r && Array.from(r); })));", cases)
    stronger = 0
    for (masks, clue, k), relaxed in zip(cases, got):
        want = _colour_engine(masks, clue, k)
        if relaxed is None:
            assert want is None
            continue
        if want is not None:
            assert all((w & ~r) == 0 for w, r in zip(want, relaxed)), (masks, clue)
            stronger += want != relaxed
    assert stronger > 10


def test_a_colour_line_past_its_budget_is_left_as_it_was():
    k, n = 4, 40
    masks = [(1 << (k + 1)) - 1] * n
    clue = [{"total": 8, "kind": 2}] * k
    got = run_node("const [m, clue] = cases;"
                   " const r = L.solveColour(Int32Array.from(m), clue, 1000);"
                   " console.log(JSON.stringify([r.gaveUp, Array.from(r.masks)]));", [masks, clue])
    assert got == [True, masks]


def _news(masks, out, k):
    def act(v):
        v = int(v)
        if v == 1:
            return 1
        if v & 1:
            return 0
        return 2 + v.bit_length() - 1 if v & (v - 1) == 0 else 2
    return sorted((t, act(v)) for t, (m, v) in enumerate(zip(masks, out)) if act(v) and act(v) != act(m))


def test_a_hint_shows_its_lines_whole_deduction():
    # web/src/hint.js finds lines with the per-colour pass, then shows the exact pass's news:
    # lines where the exact pass decides more than the per-colour one
    rng = np.random.default_rng(3)
    cases = []
    for masks, clue, k in colour_cases(rng, 4000, (3, 12)):
        exact = _colour_engine(masks, clue, k)
        if exact is None:
            continue
        cnt, rmax = colourline.rmax_of([tuple(c) for c in clue])
        relaxed = colourline.relax_3d(np.asarray(masks, np.int64), k, cnt, rmax)
        cheap, full = _news(masks, relaxed, k), _news(masks, exact, k)
        if cheap and full != cheap:
            cases.append((masks, clue, k, full))
        if len(cases) == 20:
            break
    assert len(cases) >= 5, "random lines should show the exact pass deciding more"
    got = run_node("import('./web/src/hint.js').then((H) => console.log(JSON.stringify(cases.map(([m, clue, k]) => {"
                   " const counts = clue.map(([t, kind]) => ({ total: t, kind }));"
                   " const P = { k, n: m.length, shape: [m.length, 1, 1],"
                   "   clues: { x: [[{ counts }]], y: Array.from(m, () => [null]), z: Array.from(m, () => [null]) } };"
                   " const r = H.makeHinter(P).find(Int32Array.from(m));"
                   " return r.news.map(([i, a]) => [i, a]).sort((a, b) => a[0] - b[0]); }))));", cases)
    assert got == [[list(t) for t in full] for *_, full in cases]
