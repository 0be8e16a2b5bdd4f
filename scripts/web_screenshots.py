"""Screenshots of the web player for the docs: the start, mid-game with a slice, and the reveal.

    .venv/bin/python scripts/web_screenshots.py PUZZLE.json [--out docs/img] [--name Duck]

The puzzle (it must have its solution) is exported to a page, opened in headless Chromium and
played with real mouse clicks: the layers from the top down, each sliced away once done, as the
browser tests do; a colour puzzle's cubes of the model are painted their colours on the way
(keys 1..k). Writes web_start.png, web_midgame.png and web_reveal.png (``--prefix`` changes
"web", e.g. ``--prefix web_colour``). ``--more`` adds PREFIX_strokes.png (three strokes along
the top layer's rows, the third under way), PREFIX_hint.png (a hint mid-game) and
PREFIX_phone.png (a 390 x 844 phone, with a hint). ``--catalogue A.json B.json`` writes
web_catalogue.png: the catalogue of those puzzles' pages with the first played to its reveal,
the second started, and a model that failed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import webplayer  # noqa: E402
from engine.play import webpage  # noqa: E402
from engine.files.puzzlefile import load_puzzle  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("puzzle")
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    ap.add_argument("--name", default=None)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--height", type=int, default=680)
    ap.add_argument("--prefix", default="web", help="file names: PREFIX_start.png, ... (default web)")
    ap.add_argument("--more", action="store_true", help="also PREFIX_strokes.png, PREFIX_hint.png, PREFIX_phone.png")
    ap.add_argument("--catalogue", nargs="+", metavar="PUZZLE", help="write web_catalogue.png of these puzzles")
    args = ap.parse_args(argv)
    why = webplayer.missing()
    if why:
        print(f"web_screenshots: cannot run: {why}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright
    puzzle = load_puzzle(args.puzzle)
    if args.name:
        puzzle.name = args.name
    sol = np.asarray(puzzle.solution, bool)
    k = getattr(puzzle, "k", 1)
    k = k if k > 1 else 0
    paint = np.asarray(puzzle.colour_solution, int) if k else sol.astype(int)
    X, Y, Z = puzzle.shape
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        path = Path(tmp) / "page.html"
        webpage.write_page(puzzle, str(path))
        browser = webplayer.launch(pw)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.goto(path.as_uri())
        webplayer.wait_ready(page)
        page.screenshot(path=str(out / f"{args.prefix}_start.png"))
        if args.more:
            strokes_shot(page, puzzle, out / f"{args.prefix}_strokes.png")
            page.keyboard.press("u")
            page.keyboard.press("u")
            phone_shot(browser, path, out / f"{args.prefix}_phone.png")
        page.locator("#view").focus()
        half = Z // 2
        for layer in range(Z - 1, half - 1, -1):
            webplayer.play_layer(page, paint, Z, layer, k)
            page.keyboard.press("z")
        for _ in range(2):
            page.keyboard.press("Shift+Z")       # show two finished layers again, with their gaps
        for _ in range(X // 3):
            page.keyboard.press("x")             # and cut into the block along x
        page.keyboard.press("+")                 # closer, to read the numbers inside
        page.keyboard.press("+")
        page.mouse.move(5, 5)
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / f"{args.prefix}_midgame.png"))
        page.keyboard.press("r")
        if args.more:
            page.keyboard.press("h")
            page.wait_for_timeout(200)
            page.screenshot(path=str(out / f"{args.prefix}_hint.png"))
            page.locator("#hint-close").click()
        for _ in range(X // 3):
            page.keyboard.press("Shift+X")
        for _ in range(2):
            page.keyboard.press("z")
        for layer in range(half - 1, -1, -1):
            webplayer.play_layer(page, paint, Z, layer, k)
            if layer:
                page.keyboard.press("z")
        s = page.evaluate("window.nonogram.state()")
        if not s["solved"]:
            raise SystemExit(f"not solved: {s['left']} cubes left")
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / f"{args.prefix}_reveal.png"))
        browser.close()
    for name in ("start", "midgame", "reveal") + (("strokes", "hint", "phone") if args.more else ()):
        print(out / f"{args.prefix}_{name}.png")
    if args.catalogue:
        catalogue_shot(args.catalogue, out / "web_catalogue.png", args)
        print(out / "web_catalogue.png")
    return 0


def _runs_on_top(puzzle):
    """Rows of the top layer (x-lines) with their longest run of cubes not in the model."""
    X, Y, Z = puzzle.shape
    sol = np.asarray(puzzle.solution, bool).reshape(X, Y, Z)
    out = []
    for y in range(Y):
        best, start = (0, 0, -1), None
        for x in range(X + 1):
            free = x < X and not sol[x, y, Z - 1]
            if free and start is None:
                start = x
            if not free and start is not None:
                best = max(best, (x - start, start, x - 1))
                start = None
        if best[0] >= 3:
            out.append((y, best[1], best[2]))
    return out


def strokes_shot(page, puzzle, path):
    """Three strokes along rows across the middle of the top layer; the picture is taken with
    the third still under way (the mouse held down)."""
    X, Y, Z = puzzle.shape
    idx = lambda x, y, z: (x * Y + y) * Z + z   # noqa: E731
    rows = _runs_on_top(puzzle)
    rows = rows[len(rows) // 2 - 1:len(rows) // 2 + 2]   # three rows across the middle of the top
    for j, (y, a, b) in enumerate(rows):
        at = page.evaluate("i => window.nonogram.aim(i)", idx(a, y, Z - 1))
        e = page.evaluate("i => window.nonogram.screenOf(i)", idx(b, y, Z - 1))
        page.mouse.move(at["x"], at["y"])
        page.mouse.down()
        page.mouse.move(e[0], e[1], steps=8)
        if j < len(rows) - 1:
            page.mouse.up()
    page.wait_for_timeout(150)
    page.screenshot(path=str(path))
    page.mouse.up()


def phone_shot(browser, page_path, path):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
                              device_scale_factor=2)
    pg = ctx.new_page()
    pg.goto(page_path.as_uri())
    webplayer.wait_ready(pg)
    pg.locator("#hint-button").tap()
    pg.wait_for_timeout(200)
    pg.screenshot(path=str(path))
    ctx.close()


def catalogue_shot(puzzles, path, args):
    """The catalogue of these puzzles' pages: the first played to its reveal (the card shows the
    picture the page saved, its time and mistakes), the second started, and a failed model."""
    from playwright.sync_api import sync_playwright
    from engine.play.catalogue import catalogue_html, entry_for_page
    loaded = [load_puzzle(p) for p in puzzles]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        entries = []
        for j, p in enumerate(loaded):
            name = f"{Path(puzzles[j]).stem}.html"
            webpage.write_page(p, str(Path(tmp) / name))
            info = webpage.info_of(p)
            entries.append(entry_for_page(tmp, name, name=p.name or Path(puzzles[j]).stem,
                                          size="x".join(map(str, p.shape)), hidden=info["hidden"],
                                          lines=info["lines"], band=info.get("band", "")))
        entries.append({"name": "ogre @ 24", "error": "BatchError: ogre.blend has no mesh object to make a puzzle of"})
        (Path(tmp) / "index.html").write_text(catalogue_html(entries), encoding="utf-8")
        browser = webplayer.launch(pw)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.goto((Path(tmp) / entries[0]["page"]).as_uri())
        webplayer.wait_ready(page)
        wrong = webplayer.aimable(page, [i for i in page.evaluate("window.nonogram.state()")["drawn"]
                                         if loaded[0].solution[i]])[0]
        webplayer.click_cell(page, wrong)                 # a mistake on the way
        page.wait_for_selector("#toast", state="hidden")  # (its message covers cubes a while)
        if not webplayer.play_to_reveal(page, loaded[0])["solved"]:
            raise SystemExit("the first puzzle was not solved")
        page.wait_for_timeout(300)
        if len(loaded) > 1:
            page.goto((Path(tmp) / entries[1]["page"]).as_uri())
            webplayer.wait_ready(page)
            free = webplayer.aimable(page, [i for i in page.evaluate("window.nonogram.state()")["drawn"]
                                            if not loaded[1].solution[i]])
            for i in free[:5]:
                webplayer.click_cell(page, i)
        page.set_viewport_size({"width": 1000, "height": 430})
        page.goto((Path(tmp) / "index.html").as_uri())
        page.wait_for_timeout(300)
        page.screenshot(path=str(path), full_page=True)
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
