"""Screenshots of the web player for the docs: the start, mid-game with a slice, and the reveal.

    .venv/bin/python scripts/web_screenshots.py PUZZLE.json [--out docs/img] [--name Duck]

The puzzle (it must have its solution) is exported to a page, opened in headless Chromium and
played with real mouse clicks: the layers from the top down, each sliced away once done, as the
browser tests do; a colour puzzle's cubes of the model are painted their colours on the way
(keys 1..k). Writes web_start.png, web_midgame.png and web_reveal.png (``--prefix`` changes
"web", e.g. ``--prefix web_colour``).
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
    for name in ("start", "midgame", "reveal"):
        print(out / f"{args.prefix}_{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
