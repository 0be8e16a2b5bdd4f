"""Hints in the web player (real Chromium): on random states of designed plain and colour
puzzles, the line a hint shows and the cubes it decides are exactly what the engine's line
solver deduces on that line from what the player knows, and never contradict the solution; when
the page says no single line decides anything, no line does; the probe of a puzzle designed for
probing is a real contradiction. The engine side uses only the public line solvers
(``linesolve.solve_count``, ``colourline.solve_line``)."""
from __future__ import annotations

import numpy as np
import pytest

import webplayer
from webplayer import browser, open_page, page, state  # noqa: F401 (fixtures)
from engine.lines import colourline, linesolve
from engine.play import webpage

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))

INTACT, MARKED, BROKEN = 0, 1, 2
EMPTY, FILLED, UNKNOWN = 1, 2, 3
BREAK, MODEL = 1, 2            # web/src/hint.js actions; paint colour c is 2 + c


# ---- the engine's view of a player's state

def knowledge(p, cells, paints):
    """What the player knows, as the page defines it: broken cubes empty, painted ones their
    colour, right marks part of the model (a wrong mark is no knowledge)."""
    sol = np.asarray(p.solution, bool).ravel()
    k = getattr(p, "k", 0) if getattr(p, "clue_colours", None) is not None else 0
    cells, paints = np.asarray(cells), np.asarray(paints)
    if not k:
        return np.where(cells == BROKEN, EMPTY, np.where((cells == MARKED) & sol, FILLED, UNKNOWN)).astype(np.int8), 0
    full = (1 << (k + 1)) - 1
    know = np.full(sol.size, full, np.int64)
    know[(cells == MARKED) & sol] = full & ~1
    know[paints > 0] = 1 << paints[paints > 0]
    know[cells == BROKEN] = 1
    return know, k


def action(v, k):
    if not k:
        return BREAK if v == EMPTY else MODEL if v == FILLED else 0
    v = int(v)
    if v == 1:
        return BREAK
    if v & 1:
        return 0
    return 2 + v.bit_length() - 1 if v & (v - 1) == 0 else MODEL


def solve_line(p, line, know, k):
    """The engine's line solver on one line: the new values, or None on a contradiction."""
    cells = p.line(line)
    if k:
        clue = p.clue(line)
        if clue is None:
            return know[cells].copy()
        out = colourline.solve_line(know[cells], clue, k, True)
        return None if (out == 0).any() else out
    kind = int(p.clue_kind[line])
    if kind == 0:
        return know[cells].copy()
    out = np.zeros(len(cells), np.int8)
    total = int(p.clue_data[p.clue_start[line]])
    return out if linesolve.solve_count(know[cells].copy(), total, kind, out) else None


def engine_news(p, line, know, k) -> set:
    out = solve_line(p, line, know, k)
    assert out is not None, "the player's knowledge contradicts a clue"
    cells = p.line(line)
    return {(int(i), action(v, k)) for i, v in zip(cells, out)
            if action(v, k) and action(v, k) != action(know[i], k)}


def clued(p, line, k) -> bool:
    return p.clue(line) is not None if k else int(p.clue_kind[line]) != 0


def propagate(p, know, k) -> bool:
    """All lines to their fixpoint (the engine's line solvers), in place; False: contradiction."""
    todo = [line for line in range(p.n_lines) if clued(p, line, k)]
    while todo:
        changed = False
        for line in todo:
            out = solve_line(p, line, know, k)
            if out is None:
                return False
            cells = p.line(line)
            if not np.array_equal(out, know[cells]):
                know[cells] = out
                changed = True
        if not changed:
            return True
    return True


def right(p, i, a, k) -> bool:
    sol = np.asarray(p.solution, bool).ravel()
    if a == BREAK:
        return not sol[i]
    if a == MODEL:
        return bool(sol[i])
    return int(p.colour_solution[i]) == a - 2


# ---- the page's side

def set_progress(pg, cells, paints=None):
    """Make the page's saved progress these cube states and reload it (the page saves its own
    progress when it is left or hidden, so ours is written after it each time)."""
    key = state(pg)["storageKey"]
    record = {"cells": "".join(chr(48 + int(v)) for v in cells), "mistakes": 0, "hints": 0, "elapsed": 0,
              "solved": False}
    if paints is not None:
        record["paint"] = "".join(chr(48 + int(v)) for v in paints)
    pg.evaluate("""([k, r]) => {
      const put = () => localStorage.setItem(k, JSON.stringify(r));
      addEventListener('pagehide', put);
      document.addEventListener('visibilitychange', put);
    }""", [key, record])
    pg.reload()
    return webplayer.wait_ready(pg)


def random_state(p, rng, k):
    sol = np.asarray(p.solution, bool).ravel()
    n = sol.size
    cells = np.zeros(n, np.int64)
    paints = np.zeros(n, np.int64)
    cells[~sol & (rng.random(n) < rng.uniform(0.05, 0.7))] = BROKEN
    cells[sol & (rng.random(n) < rng.uniform(0, 0.4))] = MARKED
    cells[~sol & (cells == INTACT) & (rng.random(n) < 0.03)] = MARKED       # a few wrong marks
    if k:
        paint = sol & (cells != MARKED) & (rng.random(n) < rng.uniform(0, 0.5))
        paints[paint] = np.asarray(p.colour_solution)[paint]
    return cells, paints


def check_hints(pg, p, rng, rounds):
    k = p.k if getattr(p, "clue_colours", None) is not None else 0
    shown = 0
    for _ in range(rounds):
        cells, paints = random_state(p, rng, k)
        set_progress(pg, cells, paints if k else None)
        pg.locator("#view").focus()
        pg.keyboard.press("h")
        s = state(pg)
        assert s["cells"] == cells.tolist()
        know, _ = knowledge(p, cells, paints)
        if s["hint"] is None:
            # the page says no single line decides anything: no line does
            assert s["hintShown"] and "No single line" in s["hintText"]
            assert not any(engine_news(p, line, know, k) for line in range(p.n_lines) if clued(p, line, k))
            continue
        shown += 1
        line = s["hint"]["line"]["id"]
        assert clued(p, line, k)
        news = {(i, a) for i, a in s["hint"]["news"]}
        assert news and news == engine_news(p, line, know, k)
        assert all(right(p, i, a, k) for i, a in news), "a hint contradicts the solution"
        assert s["hints"] == 1 and "1 hint" in pg.locator("#hints").inner_text()
    return shown


@pytest.fixture(scope="module")
def plain_puzzle():
    return webplayer.designed_ring(5, "hint8")


@pytest.fixture(scope="module")
def colour_puzzle():
    from engine.design.hiding import design
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    g = webplayer.ring_grid(8)
    x, y, z = np.indices(g.shape)
    grid = np.where(g, 1 + (x + 2 * z) % 3, 0)
    p = colour_puzzle_from_grid(grid, 3, [[0.9, 0.2, 0.1], [0.1, 0.3, 0.9], [0.2, 0.6, 0.2]], name="hint8c")
    return design(p, seed=2).puzzle


def _page(puzzle, folder, info=None):
    path = folder / f"{puzzle.name}.html"
    webpage.write_page(puzzle, str(path), info=info)
    return path


def test_hints_on_random_states_of_a_designed_plain_puzzle_are_the_engines_deductions(page, plain_puzzle, tmp_path):
    open_page(page, _page(plain_puzzle, tmp_path))
    assert check_hints(page, plain_puzzle, np.random.default_rng(1), 10) >= 8
    assert not page.problems


def test_hints_on_random_states_of_a_designed_colour_puzzle_are_the_engines_deductions(page, colour_puzzle, tmp_path):
    open_page(page, _page(colour_puzzle, tmp_path))
    assert check_hints(page, colour_puzzle, np.random.default_rng(2), 10) >= 8
    assert not page.problems


def test_a_hint_is_lit_until_the_player_acts_and_counted(page, plain_puzzle, tmp_path):
    s = open_page(page, _page(plain_puzzle, tmp_path))
    page.locator("#hint-button").click()
    s = state(page)
    assert s["hint"] and s["hints"] == 1 and page.locator("#hint").is_visible()
    # the line and its decided cubes are drawn lit: the partial redraw is a full redraw's
    assert page.evaluate("window.nonogram.frameHash()") == page.evaluate("window.nonogram.frameHash(true)")
    # break one of the cubes it says to break: the hint goes, the count stays
    target = next((i for i, a in s["hint"]["news"] if a == BREAK and page.evaluate(
        "i => window.nonogram.aim(i)", i)), None)
    if target is None:
        pytest.skip("this hint decides no visible cube to break")
    assert webplayer.click_cell(page, target)
    s = state(page)
    assert s["hint"] is None and not page.locator("#hint").is_visible() and s["hints"] == 1
    page.reload()
    assert webplayer.wait_ready(page)["hints"] == 1       # kept with the progress
    assert not page.problems


def _probe_finds(p, know) -> bool:
    """Whether assuming some unknown cube one way contradicts the lines (the engine's solvers)."""
    for i in np.flatnonzero(know == UNKNOWN):
        for v in (EMPTY, FILLED):
            trial = know.copy()
            trial[i] = v
            if not propagate(p, trial, 0):
                return True
    return False


def _stalled(p, rng):
    """p with clues hidden until line logic from nothing stops short of the solution where
    probing goes on, and that fixpoint."""
    from engine.model.puzzle import with_hidden
    for _ in range(200):
        q = with_hidden(p, rng.random(p.n_lines) < 0.5)
        know = np.full(p.n_cells, UNKNOWN, np.int8)
        assert propagate(q, know, 0)
        if (know == UNKNOWN).sum() > 8 and _probe_finds(q, know):
            return q, know
    raise AssertionError("no puzzle found that line logic leaves to probing")


def test_no_single_line_then_probing_on_a_puzzle_designed_for_probing(page, tmp_path):
    from engine.model.clues import puzzle_from_grid
    rng = np.random.default_rng(4)
    full = puzzle_from_grid(webplayer.ring_grid(8), name="probe8")
    p, know = _stalled(full, rng)
    p.name = "probe8"
    sol = np.asarray(p.solution, bool).ravel()
    open_page(page, _page(p, tmp_path, info={"logic": "probe"}))
    cells = np.where(know == EMPTY, BROKEN, np.where(know == FILLED, MARKED, INTACT))
    set_progress(page, cells)
    page.locator("#view").focus()
    page.keyboard.press("h")
    s = state(page)
    assert s["hint"] is None and "No single line decides" in s["hintText"] and "probing" in s["hintText"]
    assert page.locator("#hint-deeper").is_visible() and page.locator("#hint-deeper").inner_text() == "Probe"
    page.locator("#hint-deeper").click()
    s = state(page)
    hint = s["hint"]
    assert hint is not None and hint["probe"] is not None, s["hintText"]
    (i, a), = hint["news"]
    assert right(p, i, a, 0)
    # the value it rules out really contradicts the lines (the engine's solvers)
    trial = know.copy()
    trial[i] = hint["probe"]["ruledOut"]
    assert not propagate(p, trial, 0)
    assert not sol[i] if a == BREAK else sol[i]
    assert not page.problems
