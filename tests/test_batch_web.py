"""``batch.py --export-html``: a playable page per puzzle (the designed one with --design) and an
index.html catalogue with thumbnail, size, clues hidden and band, linking to them."""
from __future__ import annotations

import csv
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")

from engine.play import webpage  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.blender


def _page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'type="application/json">(.*?)</script>', text, re.S).group(1))


def _batch(tmp_path, render):
    try:
        webpage.template_text()
    except webpage.WebPageError as e:
        pytest.skip(str(e))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "batch.py", "--", "--input", "suzanne", "cube", "--resolution", "5",
                           "--out", str(out), "--design", "--export-html", "--render", render,
                           "--render-size", "48", "--render-samples", "1"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out / "summary.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows)
    assert "catalogue:" in proc.stdout + proc.stderr
    return out, rows, (out / "index.html").read_text(encoding="utf-8")


def _card(index, row):
    card = re.search(r'<a class="card" href="%s"([^>]*)>(.*?)</a>' % re.escape(html.escape(row["html_file"])), index)
    assert card, row["html_file"]
    return card.group(1), card.group(2)


def test_batch_writes_pages_and_a_catalogue(tmp_path):
    out, rows, index = _batch(tmp_path, "player")
    for r in rows:
        page = out / r["html_file"]
        d = _page_data(page)
        designed = json.loads((out / r["design_file"]).read_text())
        # the page plays the designed puzzle: its hidden clues, and says so
        assert (d["x"], d["y"], d["z"]) == (designed["x"], designed["y"], designed["z"])
        assert d["info"]["hidden"] == int(r["design_hidden"])
        assert d["info"].get("band", "") == r["design_band"]
        # the catalogue links the page and the player's view render (it gives nothing away) and
        # gives size, hidden clues and band
        attrs, card = _card(index, r)
        assert f'src="{html.escape(r["png_file"])}"' in card and (out / r["png_file"]).is_file()
        assert "data-reveal" not in attrs
        assert f'{r["size"]} · {r["design_hidden"]} of {r["lines"]} clues hidden' in card
        if r["design_band"]:
            assert f'<span class="band">{r["design_band"]}</span>' in card


def test_a_solved_render_is_no_spoiler_in_the_catalogue(tmp_path):
    # the main job renders the reveal (--render solved): the catalogue must not show it before
    # the puzzle is solved in the browser, and shows it after
    import webplayer
    if webplayer.missing():
        pytest.skip(webplayer.missing())
    out, rows, index = _batch(tmp_path, "solved")
    for r in rows:
        attrs, card = _card(index, r)
        assert f'data-reveal="{html.escape(r["png_file"])}"' in attrs and "<img" not in card
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = webplayer.launch(p)
        try:
            pg = browser.new_page()
            requests = []
            pg.on("request", lambda q: requests.append(q.url))
            pg.goto((out / "index.html").as_uri())
            assert pg.locator("img").count() == 0 and pg.locator(".card svg").count() == 2
            assert not any(u.endswith(".png") for u in requests)
            # a (simulated) solve: the page's own progress record says solved
            pg.goto((out / rows[0]["html_file"]).as_uri())
            key = webplayer.wait_ready(pg)["storageKey"]
            pg.goto((out / "index.html").as_uri())     # (the page saves its own progress as it goes)
            pg.evaluate("k => localStorage.setItem(k, JSON.stringify({cells: '', solved: true, elapsed: 83000,"
                        " mistakes: 2, hints: 1}))", key)
            pg.reload()
            shown = pg.locator("img.reveal")
            assert shown.count() == 1 and shown.get_attribute("src") == rows[0]["png_file"]
            pg.wait_for_function("document.querySelector('img.reveal').naturalWidth > 0")
            assert "solved in 1:23 · 2 mistakes · 1 hint" in pg.locator(".card.solved").inner_text()
        finally:
            browser.close()
