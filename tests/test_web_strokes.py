"""Strokes in the web player (real Chromium, real mouse and touch events): a press on a cube and
a drag along its line breaks (marks, paints) every cube the stroke passes, as one undo step; it
stops at a cube it may not change, and a model cube in its way is one mistake; the background,
Alt and two fingers still turn the view."""
from __future__ import annotations

import numpy as np
import pytest

import webplayer
from webplayer import browser, open_page, page, state, stroke  # noqa: F401 (fixtures)
from engine.model.clues import puzzle_from_grid
from engine.play import webpage

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))

INTACT, MARKED, BROKEN = 0, 1, 2
N = 6


def idx(x, y, z):
    return (x * N + y) * N + z


@pytest.fixture(scope="module")
def grid():
    # a column of the model at x = 4 through every layer, and a post at (1, 1); the top layer's
    # x-line at y = 3 is four cubes to break, the model cube, one more to break
    g = np.zeros((N, N, N), bool)
    g[4, :, :] = True
    g[1, 1, :] = True
    return g


@pytest.fixture(scope="module")
def page_file(grid, tmp_path_factory):
    path = tmp_path_factory.mktemp("strokes") / "strokes.html"
    webpage.write_page(puzzle_from_grid(grid, name="strokes"), str(path))
    return path


def test_a_stroke_breaks_a_run_and_undoes_in_one_step(page, page_file):
    s = open_page(page, page_file)
    top = N - 1
    run = [idx(x, 3, top) for x in range(4)]
    stroke(page, run[0], run[-1])
    s = state(page)
    assert [s["cells"][i] for i in run] == [BROKEN] * 4
    assert s["undoDepth"] == 1 and s["mistakes"] == 0 and s["strokes"] == 1
    assert sum(c == BROKEN for c in s["cells"]) == 4      # nothing else
    # the frame left by redrawing only the stroke's cubes is a full redraw's (all four uploaded)
    page.mouse.move(2, 2)
    page.wait_for_timeout(50)
    assert page.evaluate("window.nonogram.frameHash()") == page.evaluate("window.nonogram.frameHash(true)")
    page.keyboard.press("u")
    s = state(page)
    assert all(c == INTACT for c in s["cells"]) and s["undoDepth"] == 0
    # the other way along the line, from its far end
    stroke(page, run[-1], run[1])
    s = state(page)
    assert [s["cells"][i] for i in run] == [INTACT, BROKEN, BROKEN, BROKEN]
    assert not page.problems


def test_a_stroke_into_a_model_cube_counts_one_mistake_and_stops(page, page_file):
    open_page(page, page_file)
    top = N - 1
    line = [idx(x, 3, top) for x in range(N)]    # x = 4 is the model's
    stroke(page, line[0], line[-1], steps=20)
    s = state(page)
    assert [s["cells"][i] for i in line] == [BROKEN] * 4 + [INTACT, INTACT]
    assert s["mistakes"] == 1 and s["undoDepth"] == 1
    # a stroke stops at a marked cube, without a mistake
    page.locator("#view").focus()
    page.keyboard.press("u")
    target = page.evaluate("i => window.nonogram.aim(i)", line[2])
    page.mouse.click(target["x"], target["y"], button="right")
    assert state(page)["cells"][line[2]] == MARKED
    stroke(page, line[0], line[3])
    s = state(page)
    assert [s["cells"][i] for i in line[:4]] == [BROKEN, BROKEN, MARKED, INTACT] and s["mistakes"] == 1
    assert not page.problems


def test_a_right_button_stroke_marks_a_run_and_a_slice_ends_a_stroke(page, page_file):
    open_page(page, page_file)
    top = N - 1
    line = [idx(1, y, top) for y in range(N)]   # along y: the post at y = 1 is the model's
    stroke(page, line[0], line[-1], button="right")
    s = state(page)
    assert [s["cells"][i] for i in line] == [MARKED] * N and s["mistakes"] == 0 and s["undoDepth"] == 1
    # pressing on a marked cube with the right button unmarks along the stroke
    stroke(page, line[-1], line[3], button="right")
    s = state(page)
    assert [s["cells"][i] for i in line] == [MARKED] * 3 + [INTACT] * 3
    # two layers sliced off the high y end: a stroke along y stops at the slice
    page.locator("#view").focus()
    page.keyboard.press("y")
    page.keyboard.press("y")
    line0 = [idx(0, y, top) for y in range(N)]
    stroke(page, line0[0], line0[-1], steps=20)
    s = state(page)
    assert [s["cells"][i] for i in line0] == [BROKEN] * 4 + [INTACT] * 2
    assert not page.problems


def test_the_background_and_alt_turn_the_view(page, page_file):
    open_page(page, page_file)
    v0 = state(page)["view"]
    start = webplayer.background_point(page)
    assert start is not None
    webplayer.mouse_drag(page, start, {"x": start["x"] + 60, "y": start["y"]})
    s = state(page)
    assert s["view"]["theta"] != v0["theta"] and not any(s["cells"])
    # Alt + a drag from a cube turns the view too
    at = page.evaluate("i => window.nonogram.aim(i)", idx(0, 3, N - 1))
    v1 = s["view"]
    page.keyboard.down("Alt")
    webplayer.mouse_drag(page, at, {"x": at["x"] + 60, "y": at["y"] + 10})
    page.keyboard.up("Alt")
    s = state(page)
    assert s["view"]["theta"] != v1["theta"] and not any(s["cells"])
    assert not page.problems


def _touch(cdp, kind, points):
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
        {"x": x, "y": y, "id": j} for j, (x, y) in enumerate(points)]})


def test_touch_strokes_and_two_fingers_turn(browser, page_file):
    with webplayer.device_page(browser) as pg:
        open_page(pg, page_file)
        cdp = pg.context.new_cdp_session(pg)
        top = N - 1
        run = [idx(x, 3, top) for x in range(4)]
        a = pg.evaluate("i => window.nonogram.aim(i)", run[0])
        b = pg.evaluate("i => window.nonogram.screenOf(i)", run[-1])
        _touch(cdp, "touchStart", [(a["x"], a["y"])])
        for t in np.linspace(0, 1, 10)[1:]:
            _touch(cdp, "touchMove", [(a["x"] + t * (b[0] - a["x"]), a["y"] + t * (b[1] - a["y"]))])
        _touch(cdp, "touchEnd", [])
        s = state(pg)
        assert [s["cells"][i] for i in run] == [BROKEN] * 4 and s["undoDepth"] == 1
        # two fingers, even when both start on cubes, turn and zoom the view and change no cube
        v0 = s["view"]
        p, q = pg.evaluate("ids => ids.map(i => window.nonogram.aim(i))", [idx(0, 0, top), idx(2, 5, top)])
        _touch(cdp, "touchStart", [(p["x"], p["y"])])
        _touch(cdp, "touchStart", [(p["x"], p["y"]), (q["x"], q["y"])])
        for t in range(1, 8):
            _touch(cdp, "touchMove", [(p["x"] + 8 * t, p["y"] - 3 * t), (q["x"] + 8 * t + 4 * t, q["y"] - 3 * t)])
        _touch(cdp, "touchEnd", [])
        s2 = state(pg)
        assert s2["view"] != v0 and s2["cells"] == s["cells"]
        assert not pg.errors
