"""The web player in real Chromium (Playwright): a designed 8³ puzzle's page opens from file://
with no console error and no network request, draws the puzzle's clues, is played to the end
with real mouse events, refuses and counts a wrong break, slices the right layers, keeps progress
over a reload, and shows a message (not a blank canvas) for a damaged page."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import webplayer
from webplayer import aimable, browser, click_cell, open_page, page, state  # noqa: F401 (fixtures)
from engine.play import webpage
from engine.files.puzzlefile import puzzle_to_dict

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))

INTACT, MARKED, BROKEN = 0, 1, 2


@pytest.fixture(scope="module")
def designed():
    return webplayer.designed_ring(3, "ring8")


@pytest.fixture(scope="module")
def page_file(designed, tmp_path_factory):
    path = tmp_path_factory.mktemp("web") / "ring8.html"
    webpage.write_page(designed, str(path), info={"band": "test"})
    return path


def cell_xyz(i, shape):
    X, Y, Z = shape
    return i // (Y * Z), (i // Z) % Y, i % Z


def test_page_opens_offline_and_draws_the_puzzles_clues(page, page_file, designed):
    s = open_page(page, page_file)
    assert s["error"] is None and s["ready"]
    assert s["shape"] == [8, 8, 8]
    d = puzzle_to_dict(designed)
    assert s["clues"] == {"x": d["x"], "y": d["y"], "z": d["z"]}
    kinds = {c[-1] for t in "xyz" for row in d[t] for c in row if c}
    assert {"o", "s"} <= kinds, "the test puzzle should have circle and square clues"
    assert any(c is None for t in "xyz" for row in d[t] for c in row), "a designed puzzle hides clues"
    # the full block: only its surface is drawn
    assert set(s["drawn"]) == webplayer.drawn_reference(np.ones((8, 8, 8), bool))
    assert s["faces"] >= len(s["drawn"]) and s["firstFrameMs"] > 0
    assert not page.problems
    assert page.requests == [page_file.as_uri()]  # the page itself and nothing else
    # the canvas shows the block: many different pixel values, not a blank clear colour
    png = page.locator("#view").screenshot()
    from io import BytesIO
    from PIL import Image
    img = np.asarray(Image.open(BytesIO(png)).convert("L"))
    assert len(np.unique(img)) > 40


def test_a_wrong_break_is_refused_and_counted_and_marks_protect(page, page_file, designed):
    open_page(page, page_file)
    sol = np.asarray(designed.solution, bool)
    s = state(page)
    target = aimable(page, [i for i in s["drawn"] if sol[i]])[0]
    assert click_cell(page, target)
    s = state(page)
    assert s["mistakes"] == 1 and s["cells"][target] == INTACT
    assert page.locator("#toast").is_visible()
    assert "1 mistake" in page.locator("#mistakes").inner_text()
    # a right click marks; a marked cube does not break, and that is no mistake
    free = aimable(page, [i for i in s["drawn"] if not sol[i]])[0]
    at = page.evaluate("i => window.nonogram.aim(i)", free)
    page.mouse.click(at["x"], at["y"], button="right")
    assert state(page)["cells"][free] == MARKED
    page.mouse.click(at["x"], at["y"])
    s = state(page)
    assert s["cells"][free] == MARKED and s["mistakes"] == 1
    # unmark (Shift+click), break, undo (U)
    page.keyboard.down("Shift")
    page.mouse.click(at["x"], at["y"])
    page.keyboard.up("Shift")
    page.mouse.click(at["x"], at["y"])
    assert state(page)["cells"][free] == BROKEN
    page.keyboard.press("u")
    assert state(page)["cells"][free] == INTACT
    assert not page.problems


def test_slicing_hides_the_right_layers(page, page_file):
    open_page(page, page_file)
    page.locator("#view").focus()
    for _ in range(3):
        page.keyboard.press("x")          # three layers off the high x end
    page.keyboard.press("Shift+Y")
    page.keyboard.press("Shift+Y")        # two layers off the low y end
    s = state(page)
    assert s["slices"] == [3, -2, 0]
    assert s["visible"] == {"lo": [0, 2, 0], "hi": [4, 7, 7]}
    present = np.zeros((8, 8, 8), bool)
    present[:5, 2:, :] = True
    assert set(s["drawn"]) == webplayer.drawn_reference(present)
    # the slider shows it, and moving the slider slices too
    assert page.locator("#slice-x").input_value() == "3"
    page.locator("#slice-z").fill("5")
    s = state(page)
    assert s["visible"]["hi"][2] == 2
    assert all(cell_xyz(i, (8, 8, 8))[2] <= 2 for i in s["drawn"])
    assert not page.problems


def test_a_mouse_plays_the_puzzle_to_the_reveal(page, page_file, designed, tmp_path):
    open_page(page, page_file)
    page.locator("#view").focus()
    sol = np.asarray(designed.solution, bool)
    X, Y, Z = designed.shape
    # top layer first; then slice it away so the next layer's top faces are in view
    for layer in range(Z - 1, -1, -1):
        todo = [i for i in range(sol.size) if not sol[i] and i % Z == layer]
        points = page.evaluate("ids => ids.map(i => window.nonogram.aim(i))", todo)
        for i, at in zip(todo, points):
            assert at is not None, f"cube {cell_xyz(i, designed.shape)} cannot be aimed at"
            page.mouse.click(at["x"], at["y"])
        cells = state(page)["cells"]
        assert all(cells[i] == BROKEN for i in todo)
        if layer:
            page.keyboard.press("z")
    s = state(page)
    assert s["solved"] and s["revealed"] and s["mistakes"] == 0 and s["left"] == 0
    assert page.locator("#solved").is_visible()
    assert "0 mistakes" in page.locator("#solved-text").inner_text()
    # the reveal shows the whole model again, slices undone
    assert s["visible"] == {"lo": [0, 0, 0], "hi": [X - 1, Y - 1, Z - 1]}
    assert set(s["drawn"]) == webplayer.drawn_reference(sol.reshape(designed.shape))
    assert not page.problems


def test_a_reload_keeps_progress(page, page_file, designed):
    open_page(page, page_file)
    sol = np.asarray(designed.solution, bool)
    s = state(page)
    free = aimable(page, [i for i in s["drawn"] if not sol[i]])[:3]
    for i in free:
        assert click_cell(page, i)
    wrong = aimable(page, [i for i in state(page)["drawn"] if sol[i]])[0]
    assert click_cell(page, wrong)
    before = state(page)
    assert before["mistakes"] == 1 and sum(c == BROKEN for c in before["cells"]) == 3
    page.reload()
    after = webplayer.wait_ready(page)
    assert after["cells"] == before["cells"] and after["mistakes"] == 1
    assert after["elapsedMs"] >= before["elapsedMs"] * 0.5
    assert not page.problems


def _edited(text: str, tmp_path, name: str):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_a_damaged_page_shows_a_message_not_a_blank_canvas(page, page_file, tmp_path):
    html = page_file.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="nonogram-puzzle" type="application/json">(.*?)</script>', html).group(1))
    cases = []
    short = dict(data, solution=data["solution"][:-4])
    cases.append(("short", short, "solution has"))
    flipped = bytearray(__import__("base64").b64decode(data["solution"]))
    flipped[10] ^= 0x01
    cases.append(("flipped", dict(data, solution=__import__("base64").b64encode(bytes(flipped)).decode()),
                  "does not fit clue"))
    cases.append(("shape", dict(data, shape=[8, 8, 9]), "clue table"))
    for name, d, expect in cases:
        bad = html.replace(json.dumps(data, separators=(",", ":")).replace("<", "\\u003c"),
                           json.dumps(d, separators=(",", ":")), 1)
        assert bad != html
        open_page(page, _edited(bad, tmp_path, f"{name}.html"))
        s = state(page)
        assert s["ready"] is False and expect in s["error"], (name, s["error"])
        assert page.locator("#error").is_visible()
        assert expect in page.locator("#error").inner_text()
    # not JSON at all, and the template without a puzzle
    open_page(page, _edited(html.replace('"shape"', '"shape', 1), tmp_path, "json.html"))
    assert "not valid JSON" in state(page)["error"]
    open_page(page, _edited(webpage.template_text(), tmp_path, "template.html"))
    assert "without a puzzle" in page.locator("#error").inner_text()
    assert not page.problems


def test_the_reveal_shows_the_models_colours(page, tmp_path):
    # a 3×3×3 puzzle whose model is a red column and a blue one (palette/colours, the reveal contract)
    g = np.zeros((3, 3, 3), bool)
    g[0, 1, :] = True
    g[2, 1, :] = True
    from engine.model.clues import puzzle_from_grid
    p = puzzle_from_grid(g, name="two columns")
    p.palette = np.array([[0.9, 0.1, 0.1], [0.1, 0.2, 0.95]], np.float32)
    x = np.indices(g.shape)[0].ravel()
    p.colours = np.where(x == 0, 0, 1).astype(np.uint8)
    path = tmp_path / "colours.html"
    webpage.write_page(p, str(path))
    s = open_page(page, path)
    assert s["hasColours"]
    sol = g.ravel()
    for layer in (2, 1, 0):
        for i in [i for i in range(27) if not sol[i] and i % 3 == layer]:
            assert click_cell(page, i)
        if layer:
            page.keyboard.press("z")
    assert state(page)["solved"]
    from io import BytesIO
    from PIL import Image
    rgb = np.asarray(Image.open(BytesIO(page.locator("#view").screenshot())).convert("RGB")).astype(int)
    red = (rgb[..., 0] > 120) & (rgb[..., 0] > 2 * rgb[..., 1]) & (rgb[..., 0] > 2 * rgb[..., 2])
    blue = (rgb[..., 2] > 120) & (rgb[..., 2] > 2 * rgb[..., 0]) & (rgb[..., 2] > 1.5 * rgb[..., 1])
    assert red.sum() > 500 and blue.sum() > 500
    assert not page.problems


def test_touch_and_keys_rotate_zoom_break_and_mark(browser, page_file, designed):
    with webplayer.device_page(browser) as pg:
        open_page(pg, page_file)
        sol = np.asarray(designed.solution, bool)
        free = aimable(pg, [i for i in state(pg)["drawn"] if not sol[i]])
        at = pg.evaluate("i => window.nonogram.aim(i)", free[0])
        pg.touchscreen.tap(at["x"], at["y"])              # a tap breaks
        assert state(pg)["cells"][free[0]] == BROKEN
        pg.locator("#tool-mark").tap()                    # the Mark tool: a tap marks
        at = pg.evaluate("i => window.nonogram.aim(i)", free[1])
        pg.touchscreen.tap(at["x"], at["y"])
        assert state(pg)["cells"][free[1]] == MARKED and state(pg)["tool"] == "mark"
        # keys rotate and zoom; the wheel zooms; a mouse drag from the background rotates without breaking anything
        pg.locator("#view").focus()
        v0 = state(pg)["view"]
        pg.keyboard.press("ArrowLeft")
        pg.keyboard.press("ArrowUp")
        pg.keyboard.press("+")
        v1 = state(pg)["view"]
        assert v1["theta"] < v0["theta"] and v1["phi"] < v0["phi"] and v1["dist"] < v0["dist"]
        pg.mouse.move(450, 300)
        pg.mouse.wheel(0, 400)
        pg.wait_for_function(f"window.nonogram.state().view.dist > {v1['dist']}")
        cells = state(pg)["cells"]
        start = webplayer.background_point(pg)
        webplayer.mouse_drag(pg, start, {"x": start["x"] + 80, "y": start["y"] + 20}, steps=5)
        s = state(pg)
        assert s["view"]["theta"] != v1["theta"] and s["cells"] == cells
        pg.keyboard.press("r")
        assert abs(state(pg)["view"]["theta"] - v0["theta"]) < 1e-9
        assert not pg.errors
