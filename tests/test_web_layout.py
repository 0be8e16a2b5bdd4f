"""The page on a phone-size screen (390 × 844 upright, 844 × 390 on its side, touch) and a
laptop window, in real Chromium: no control covers another or leaves the screen, every button
can be pressed where it shows (with a hint showing too), and the block sits in the part of the
screen the controls leave free and fills it."""
from __future__ import annotations

import numpy as np
import pytest

import webplayer
from webplayer import browser  # noqa: F401 (fixture)
from engine.model.colourpuzzle import colour_puzzle_from_grid
from engine.play import webpage

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))

SIZES = [(390, 844), (844, 390), (900, 600)]
PANELS = ["hud", "tools", "palette", "slices", "help", "hint"]


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    g = webplayer.ring_grid(12)
    x, _, z = np.indices(g.shape)
    p = colour_puzzle_from_grid(np.where(g, 1 + (x + z) % 3, 0), 3,
                                [[0.9, 0.2, 0.1], [0.1, 0.3, 0.9], [0.2, 0.6, 0.2]], name="ring12c")
    path = tmp_path_factory.mktemp("layout") / "ring12c.html"
    webpage.write_page(p, str(path))
    return path


def _boxes(pg) -> dict:
    return pg.evaluate("""ids => Object.fromEntries(ids.map(id => [id, document.getElementById(id)])
      .filter(([, el]) => getComputedStyle(el).display !== 'none')
      .map(([id, el]) => { const r = el.getBoundingClientRect(); return [id, [r.left, r.top, r.right, r.bottom]]; }))""",
                       PANELS)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width,height", SIZES)
def test_no_control_covers_another_and_the_block_fills_the_free_space(browser, page_file, width, height):
    phone = width < 700 or height < 500
    with webplayer.device_page(browser, {"width": width, "height": height}, touch=phone, mobile=phone) as pg:
        webplayer.open_page(pg, page_file)
        layout = pg.evaluate("window.nonogram.layout()")
        free, block = layout["free"], layout["block"]
        before = _boxes(pg)
        # the help: beside the block on a laptop; on a phone a tip until the first touch
        assert "help" in before and pg.locator("#help").is_visible()
        if phone:
            assert "Alt+drag or two" in pg.locator("#help").inner_text()
            for name, box in before.items():
                assert name == "help" or not _overlap(box, before["help"]), f"the tip covers {name}"
            del before["help"]
        pg.locator("#hint-button").click()               # a hint shows a panel too
        assert pg.locator("#help").is_visible() != phone     # (the tip went at the first touch)
        assert pg.locator("#hint").is_visible()
        boxes = _boxes(pg)
        assert {"hud", "tools", "palette", "slices", "hint"} <= set(boxes)
        for name, box in boxes.items():
            assert box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height, (name, box)
        names = sorted(boxes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                assert not _overlap(boxes[a], boxes[b]), f"{a} {boxes[a]} covers {b} {boxes[b]}"
        # every button can be pressed where it shows: nothing lies over its middle
        covered = pg.evaluate("""() => [...document.querySelectorAll('button')].filter(b => b.offsetParent)
          .filter(b => { const r = b.getBoundingClientRect();
                         return document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2) !== b; })
          .map(b => b.id || b.textContent)""")
        assert covered == []
        for name in ("hud", "tools", "palette", "slices"):   # (the hud's text grows: "1 hint")
            assert boxes[name][:2] == before[name][:2], f"{name} moved when the hint showed"
        # the block in the free part of the screen, filling it (one side to within a tenth)
        fb = [free["x"], free["y"], free["x"] + free["w"], free["y"] + free["h"]]
        for name in ("hud", "tools", "palette", "slices") + (("help",) if "help" in before else ()):
            assert not _overlap(fb, before[name]), f"the free area {fb} is under {name}"
        assert free["w"] * free["h"] > 0.35 * width * height
        assert block["x"] >= free["x"] - 1 and block["y"] >= free["y"] - 1
        assert block["x"] + block["w"] <= free["x"] + free["w"] + 1
        assert block["y"] + block["h"] <= free["y"] + free["h"] + 1
        assert max(block["w"] / free["w"], block["h"] / free["h"]) > 0.9
        # a cube at the front is big enough to read its number on a phone (12 cubes a side, the
        # block as wide as the screen allows: 14 pixels a cube, numbers about 10 pixels high)
        a, b = pg.evaluate("[0, 144].map(i => window.nonogram.screenOf(i))")   # x = 0 and x = 1
        assert np.hypot(a[0] - b[0], a[1] - b[1]) > 14
        assert not pg.errors


def test_turning_a_phone_refits_the_block(browser, page_file):
    with webplayer.device_page(browser, {"width": 390, "height": 844}, mobile=True) as pg:
        webplayer.open_page(pg, page_file)
        pg.set_viewport_size({"width": 844, "height": 390})
        pg.wait_for_function("(() => { const l = window.nonogram.layout(); return l.free.w > l.free.h; })()")
        layout = pg.evaluate("window.nonogram.layout()")
        free, block = layout["free"], layout["block"]
        assert block["y"] >= free["y"] - 1 and block["y"] + block["h"] <= free["y"] + free["h"] + 1
        assert max(block["w"] / free["w"], block["h"] / free["h"]) > 0.85

