"""Colour-clue puzzles in the web player (real Chromium via Playwright, real mouse events): the
numbers drawn per colour are the puzzle file's, a designed two-colour puzzle is played to the
reveal by breaking and painting, a wrong paint is refused and counted, a reload keeps the paints;
and a frame left by redrawing only a changed cube's rectangle equals a full redraw."""
from __future__ import annotations

import numpy as np
import pytest

import webplayer
from webplayer import aimable, browser, click_cell, open_page, page, state  # noqa: F401 (fixtures)
from engine.play import webpage
from engine.files.colourfile import colour_puzzle_to_dict

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))

INTACT, MARKED, BROKEN = 0, 1, 2
COLOURS = [[0.98, 0.82, 0.05], [0.1, 0.25, 0.85]]   # a light and a dark clue colour


@pytest.fixture(scope="module")
def designed():
    """The ring model of tests/webplayer.py in two colours, designed (clues hidden)."""
    from engine.design.hiding import design
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    g = webplayer.ring_grid(8)
    x, _, z = np.indices(g.shape)
    grid = np.where(g, np.where((x + z) % 3 == 0, 2, 1), 0)
    # the random-order pass: the greedy default hides so many clues that few shown lines hold
    # both colours, which the clue drawing test wants
    p = design(colour_puzzle_from_grid(grid, 2, COLOURS, name="ring8c"), seed=3, method="random").puzzle
    p.name = "ring8c"
    p.meta["_reveal"] = {"palette": ["#e01010", "#10c020"],
                         "colours": "".join(".." if v == 0 else f"{v - 1:02x}" for v in grid.ravel())}
    return p


@pytest.fixture(scope="module")
def page_file(designed, tmp_path_factory):
    path = tmp_path_factory.mktemp("webcolour") / "ring8c.html"
    webpage.write_page(designed, str(path))
    return path


def test_the_clues_drawn_are_the_files_per_colour(page, page_file, designed):
    s = open_page(page, page_file)
    assert s["error"] is None and s["k"] == 2
    d = colour_puzzle_to_dict(designed)
    assert s["clues"] == {"x": d["x"], "y": d["y"], "z": d["z"]}
    # per line, what its tile draws: each colour present, its count and mark, in its colour;
    # a line with no filled cube one plain "0"; a hidden line nothing
    both = 0
    for t in "xyz":
        for row, drawn_row in zip(d[t], s["drawnClues"][t]):
            for clue, drawn in zip(row, drawn_row):
                if clue is None:
                    assert drawn is None
                    continue
                want = [[text, c + 1] for c, text in enumerate(clue) if text != "0"] or [["0", 0]]
                assert drawn == want
                both += len(want) == 2
    assert both > 5, "the test puzzle should have lines with both colours"
    assert any(c is None for t in "xyz" for row in d[t] for c in row), "a designed puzzle hides clues"
    assert np.allclose(s["clueColours"], COLOURS, atol=1 / 255)
    # the palette bar: one swatch per colour
    assert page.locator("#palette .swatch").count() == 2 and page.locator("#palette").is_visible()
    assert not page.problems


def test_a_wrong_paint_is_refused_and_counted_and_a_reload_keeps_paints(page, page_file, designed):
    s = open_page(page, page_file)
    paint = designed.colour_solution.astype(int)
    page.locator("#view").focus()
    ones = aimable(page, [i for i in s["drawn"] if paint[i] == 1])
    twos = aimable(page, [i for i in s["drawn"] if paint[i] == 2])
    empty = aimable(page, [i for i in s["drawn"] if paint[i] == 0])
    page.keyboard.press("2")                       # key 2: paint with colour 2
    assert state(page)["tool"] == "paint" and state(page)["paintColour"] == 2
    assert click_cell(page, ones[0])               # a colour-1 cube painted 2: refused
    s = state(page)
    assert s["mistakes"] == 1 and s["paints"][ones[0]] == 0
    assert page.locator("#toast").is_visible()
    assert click_cell(page, empty[0])              # a cube not in the model: refused
    s = state(page)
    assert s["mistakes"] == 2 and s["paints"][empty[0]] == 0 and s["cells"][empty[0]] == INTACT
    assert click_cell(page, twos[0])               # right: painted
    page.locator("#paint-1").click()               # the palette bar's swatch
    assert click_cell(page, ones[1])
    s = state(page)
    assert s["paints"][twos[0]] == 2 and s["paints"][ones[1]] == 1 and s["mistakes"] == 2
    assert s["toPaint"] == int((paint > 0).sum()) - 2
    # a painted cube is protected: a break does nothing and is no mistake
    page.locator("#tool-break").click()
    assert click_cell(page, twos[0])
    s = state(page)
    assert s["cells"][twos[0]] == INTACT and s["paints"][twos[0]] == 2 and s["mistakes"] == 2
    assert click_cell(page, empty[1])
    before = state(page)
    assert before["cells"][empty[1]] == BROKEN
    page.reload()
    after = webplayer.wait_ready(page)
    assert after["paints"] == before["paints"] and after["cells"] == before["cells"]
    assert after["mistakes"] == 2 and after["toPaint"] == before["toPaint"]
    # undo takes a paint back
    page.locator("#view").focus()
    page.locator("#tool-break").click()
    assert click_cell(page, empty[2])
    page.keyboard.press("u")
    page.keyboard.press("1")
    assert click_cell(page, ones[2])
    page.keyboard.press("u")
    assert state(page)["paints"][ones[2]] == 0
    assert not page.problems


def test_a_mouse_plays_a_designed_colour_puzzle_to_the_reveal(page, page_file, designed):
    open_page(page, page_file)
    page.locator("#view").focus()
    paint = designed.colour_solution.astype(int)
    X, Y, Z = designed.shape
    for layer in range(Z - 1, -1, -1):
        s = state(page)
        assert not s["solved"]
        for c in (0, 1, 2):
            todo = [i for i in range(paint.size) if paint[i] == c and i % Z == layer]
            if not todo:
                continue
            page.keyboard.press("b" if c == 0 else str(c))
            points = page.evaluate("ids => ids.map(i => window.nonogram.aim(i))", todo)
            for i, at in zip(todo, points):
                assert at is not None, f"cube {i} cannot be aimed at"
                page.mouse.click(at["x"], at["y"])
        s = state(page)
        assert all(s["cells"][i] == BROKEN for i in range(paint.size) if paint[i] == 0 and i % Z == layer)
        assert all(s["paints"][i] == paint[i] for i in range(paint.size) if i % Z == layer)
        if layer:
            page.keyboard.press("z")
    s = state(page)
    assert s["solved"] and s["revealed"] and s["mistakes"] == 0 and s["toPaint"] == 0 and s["left"] == 0
    assert s["visible"] == {"lo": [0, 0, 0], "hi": [X - 1, Y - 1, Z - 1]}
    assert set(s["drawn"]) == webplayer.drawn_reference((paint > 0).reshape(designed.shape))
    # the reveal is in the reveal palette (red and green), not the clue colours
    from io import BytesIO
    from PIL import Image
    rgb = np.asarray(Image.open(BytesIO(page.locator("#view").screenshot())).convert("RGB")).astype(int)
    red = (rgb[..., 0] > 120) & (rgb[..., 0] > 2 * rgb[..., 1]) & (rgb[..., 0] > 2 * rgb[..., 2])
    green = (rgb[..., 1] > 100) & (rgb[..., 1] > 2 * rgb[..., 0]) & (rgb[..., 1] > 2 * rgb[..., 2])
    assert red.sum() > 500 and green.sum() > 200
    assert not page.problems


def face_count(present: np.ndarray) -> int:
    p = np.pad(present, 1)
    inner = p[1:-1, 1:-1, 1:-1]
    return int(sum((inner & ~q).sum() for q in (p[2:, 1:-1, 1:-1], p[:-2, 1:-1, 1:-1], p[1:-1, 2:, 1:-1],
                                                 p[1:-1, :-2, 1:-1], p[1:-1, 1:-1, 2:], p[1:-1, 1:-1, :-2])))


def test_per_cube_updates_and_redraws_leave_what_a_full_redraw_draws(page, page_file, designed):
    # a break (or undo, mark, paint) rewrites only its cube's faces and its neighbours' and
    # redraws only its screen rectangle: the faces and the frame must be a full rebuild's
    s = open_page(page, page_file)
    paint = designed.colour_solution.astype(int)
    partial = s["partialFrames"]
    present = np.ones(designed.shape, bool)
    for step in range(6):
        s = state(page)
        empty = aimable(page, [i for i in s["drawn"] if paint[i] == 0 and s["cells"][i] == INTACT])
        i = empty[(7 * step) % len(empty)]
        at = page.evaluate("i => window.nonogram.aim(i)", i)
        page.mouse.move(at["x"], at["y"])          # the hover highlight: a partial redraw
        page.mouse.click(at["x"], at["y"])         # the break: another
        present.ravel()[i] = False
        if step == 3:                              # an undo mends a cube
            page.keyboard.press("u")
            present.ravel()[i] = True
        s = state(page)
        rect = s["lastRect"]
        assert rect is not None and rect["w"] * rect["h"] < 0.05 * 900 * 600
        assert set(s["drawn"]) == webplayer.drawn_reference(present) and s["faces"] == face_count(present)
        page.mouse.move(5, 5)
        page.wait_for_timeout(50)
        kept = page.evaluate("window.nonogram.frameHash()")
        assert kept == page.evaluate("window.nonogram.frameHash(true)"), f"step {step}"
        assert state(page)["faces"] == face_count(present)
    assert state(page)["partialFrames"] >= partial + 12
    assert not page.problems


def test_touch_picks_a_colour_and_paints(browser, page_file, designed):
    with webplayer.device_page(browser) as pg:
        s = open_page(pg, page_file)
        paint = designed.colour_solution.astype(int)
        twos = aimable(pg, [i for i in s["drawn"] if paint[i] == 2])
        box = pg.locator("#paint-2").bounding_box()
        assert box["width"] >= 40 and box["height"] >= 36, "a swatch should be big enough for a finger"
        pg.locator("#paint-2").tap()
        at = pg.evaluate("i => window.nonogram.aim(i)", twos[0])
        pg.touchscreen.tap(at["x"], at["y"])
        s = state(pg)
        assert s["tool"] == "paint" and s["paints"][twos[0]] == 2 and s["mistakes"] == 0
        assert not pg.errors


def test_a_colour_page_with_edited_paint_or_clues_shows_a_message(page, page_file, tmp_path):
    import base64
    import json
    import re
    html = page_file.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="nonogram-puzzle" type="application/json">(.*?)</script>', html).group(1))
    raw = bytearray(base64.b64decode(data["paint"]))
    ks = webpage.keystream(data["key"], len(base64.b64decode(data["solution"])) + 2 * len(raw))[-len(raw):]
    paint = np.frombuffer(bytes(raw), np.uint8) ^ ks
    i = int(np.flatnonzero(paint == 1)[0])
    raw[i] ^= 1 ^ 2                                   # a colour-1 cube made colour 2: breaks its lines' clues
    swapped = dict(data, paint=base64.b64encode(bytes(raw)).decode())
    j = int(np.flatnonzero(paint == 0)[0])
    raw = bytearray(base64.b64decode(data["paint"]))
    raw[j] ^= 1                                       # an empty cube given a colour
    painted_empty = dict(data, paint=base64.b64encode(bytes(raw)).decode())
    short_clue = json.loads(json.dumps(data))
    row = next(r for r in short_clue["x"] if any(c is not None for c in r))
    k = next(n for n, c in enumerate(row) if c is not None)
    row[k] = row[k][:1]                               # one count for a two-colour puzzle
    for name, d, expect in (("swapped", swapped, "does not fit clue"),
                            ("empty", painted_empty, "paint does not match"),
                            ("clue", short_clue, "should list 2 counts")):
        bad = html.replace(json.dumps(data, separators=(",", ":")).replace("<", "\\u003c"),
                           json.dumps(d, separators=(",", ":")), 1)
        assert bad != html
        path = tmp_path / f"{name}.html"
        path.write_text(bad, encoding="utf-8")
        s = open_page(page, path)
        assert s["ready"] is False and expect in s["error"], (name, s["error"])
        assert page.locator("#error").is_visible()
    assert not page.problems
