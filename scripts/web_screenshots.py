"""Screenshots of the web player for the docs: the start, mid-game with a slice, and the reveal.

    .venv/bin/python scripts/web_screenshots.py PUZZLE.json [--out docs/img] [--name Duck]

The puzzle (it must have its solution) is exported to a page, opened in headless Chromium and
played with real mouse clicks: the layers from the top down, each sliced away once done, as the
browser tests do. Writes web_start.png, web_midgame.png and web_reveal.png.
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


def break_layer(page, sol, Z, layer) -> None:
    todo = [i for i in range(sol.size) if not sol[i] and i % Z == layer]
    cells = page.evaluate("window.nonogram.state().cells")
    todo = [i for i in todo if cells[i] != 2]
    points = page.evaluate("ids => ids.map(i => window.nonogram.aim(i))", todo)
    for i, at in zip(todo, points):
        if at is None:
            raise SystemExit(f"cube {i} cannot be aimed at")
        page.mouse.click(at["x"], at["y"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("puzzle")
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    ap.add_argument("--name", default=None)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--height", type=int, default=680)
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
        page.screenshot(path=str(out / "web_start.png"))
        page.locator("#view").focus()
        half = Z // 2
        for layer in range(Z - 1, half - 1, -1):
            break_layer(page, sol, Z, layer)
            page.keyboard.press("z")
        for _ in range(2):
            page.keyboard.press("Shift+Z")       # show two finished layers again, with their gaps
        for _ in range(X // 3):
            page.keyboard.press("x")             # and cut into the block along x
        page.keyboard.press("+")                 # closer, to read the numbers inside
        page.keyboard.press("+")
        page.mouse.move(5, 5)
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / "web_midgame.png"))
        page.keyboard.press("r")
        for _ in range(X // 3):
            page.keyboard.press("Shift+X")
        for _ in range(2):
            page.keyboard.press("z")
        for layer in range(half - 1, -1, -1):
            break_layer(page, sol, Z, layer)
            if layer:
                page.keyboard.press("z")
        s = page.evaluate("window.nonogram.state()")
        if not s["solved"]:
            raise SystemExit(f"not solved: {s['left']} cubes left")
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / "web_reveal.png"))
        browser.close()
    for name in ("web_start", "web_midgame", "web_reveal"):
        print(out / f"{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
