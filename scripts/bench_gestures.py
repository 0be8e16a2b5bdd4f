"""Gestures to play a puzzle to its reveal, by strokes against by clicks (issue #39's target: by
strokes at most a fifth of the gestures of clicking).

    .venv/bin/python scripts/bench_gestures.py [MODEL ...] [--resolution 24] [--puzzle-colours K]
        [--play] [--json out.json]

A scripted player that knows the solution plays the way the browser tests do: the block from the
top layer down, each finished layer sliced away (a key press), a tool chosen per colour (a key
press). By clicks it breaks each cube that is not in the model with a click (and paints each
cube of the model of a colour puzzle with a click). By strokes, in each layer it picks greedily
the stroke that settles the most cubes still to do: along x or y in the layer, or down a column
from the layer (through the cubes below, to the first it may not pass); a stroke passes cubes
already broken and never reaches a cube it would be refused (no mistake); a stroke of one cube is
a click. Every gesture counts one: strokes, clicks, slice and tool keys. ``--play`` plays the
stroke plan in headless Chromium with real mouse events and checks it reaches the reveal with no
mistake (and counts what it did). Models: files (.glb .obj .ply ...) voxelized as Make does, or
puzzle files; default: the shared test models (../shared/models).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
SHARED = ROOT.parent / "shared" / "models"


def load_grid(path: str, resolution: int, puzzle_colours: int):
    """(puzzle, colour grid (X, Y, Z): 0 empty, 1..k) of a model or puzzle file."""
    from engine.cli.design import _load
    p = _load(path, resolution, colours=6 if puzzle_colours > 1 else None)
    if puzzle_colours > 1 and getattr(p, "palette", None) is not None and len(p.palette) > 1:
        from engine.colour.groups import colour_puzzle_from_reveal
        p = colour_puzzle_from_reveal(p, puzzle_colours, fewer=True)
        return p, np.asarray(p.colour_solution, np.int64).reshape(p.shape)
    return p, np.asarray(p.solution, bool).reshape(p.shape).astype(np.int64)


def _runs(cells, ok):
    """Maximal runs of consecutive positions where ``ok`` holds, as (start, end) inclusive."""
    out, start = [], None
    for j, v in enumerate(list(ok) + [False]):
        if v and start is None:
            start = j
        elif not v and start is not None:
            out.append((start, j - 1))
            start = None
    return out


def clicks_of(grid: np.ndarray) -> int:
    """The click player's gestures: a click per cube to break (and per cube to paint), a slice
    key per layer after the first, a tool key per colour (and break) a layer needs."""
    k = int(grid.max()) if grid.max() > 1 else 0
    Z = grid.shape[2]
    total = Z - 1
    for layer in range(Z):
        for colour in [0] + list(range(1, k + 1)):
            n = int((grid[:, :, layer] == colour).sum())
            total += n + 1 if n else 0
    return total


def plan(grid: np.ndarray):
    """The gestures of the stroke player, for a colour grid (0 empty; 1 for the model of a
    black-and-white puzzle, which is not painted)."""
    X, Y, Z = grid.shape
    k = int(grid.max()) if grid.max() > 1 else 0
    broken = np.zeros(grid.shape, bool)
    painted = np.zeros(grid.shape, bool)
    gestures = []
    for layer in range(Z - 1, -1, -1):
        if layer < Z - 1:
            gestures.append(("slice",))
        for colour in ([0] + list(range(1, k + 1))):
            todo = (grid[:, :, layer] == colour) & ~(broken if colour == 0 else painted)[:, :, layer]
            if not todo.any():
                continue
            gestures.append(("tool", colour))
            done = broken if colour == 0 else painted
            # a cube a stroke may pass: one to settle with this tool, or one broken already
            passable = ((grid == colour) | broken) if colour else (grid == 0)
            while True:
                left = (grid == colour) & ~done
                if not left[:, :, layer].any():
                    break
                best, best_gain = None, 0
                for x, y in zip(*np.nonzero(left[:, :, layer])):
                    for axis in (0, 1, 2):
                        line = [slice(None)] * 3
                        fixed = {0: (None, y, layer), 1: (x, None, layer), 2: (x, y, None)}[axis]
                        for a in range(3):
                            if a != axis:
                                line[a] = fixed[a]
                        ok = passable[tuple(line)]
                        need = left[tuple(line)]
                        pos = (x, y, layer)[axis]
                        if axis == 2:           # down the column from the layer (the slice above)
                            ok = ok.copy()
                            ok[layer + 1:] = False
                        for a, b in _runs(range(len(ok)), ok):
                            if not a <= pos <= b:
                                continue
                            gain = int(need[a:b + 1].sum())
                            ends = np.flatnonzero(need[a:b + 1]) + a
                            if gain > best_gain:
                                best_gain, best = gain, (axis, tuple(line), int(ends[0]), int(ends[-1]))
                axis, line, a, b = best
                idx = np.arange(a, b + 1)
                sel = list(line)
                sel[axis] = idx
                cells = tuple(np.broadcast_arrays(*[np.asarray(v) if not isinstance(v, slice) else idx
                                                    for v in sel]))
                done[cells] |= grid[cells] == colour
                first = tuple(int(c[0]) for c in cells)
                last = tuple(int(c[-1]) for c in cells)
                if axis == 2:   # a column is pressed on its top cube, in the layer
                    first, last = last, first
                gestures.append(("stroke", first, last, axis))
    return gestures


def count(gestures) -> dict:
    strokes = [g for g in gestures if g[0] == "stroke"]
    return {"gestures": len(gestures), "strokes": sum(1 for g in strokes if g[1] != g[2]),
            "single_clicks": sum(1 for g in strokes if g[1] == g[2]),
            "keys": sum(1 for g in gestures if g[0] != "stroke")}


def play(page_path: Path, gestures, shape) -> dict:
    """Play the stroke plan in headless Chromium (real mouse events); the final state."""
    import webplayer
    from playwright.sync_api import sync_playwright
    X, Y, Z = shape
    idx = lambda c: (c[0] * Y + c[1]) * Z + c[2]   # noqa: E731
    with sync_playwright() as pw:
        browser = webplayer.launch(pw)
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 900})
            pg.goto(page_path.as_uri())
            webplayer.wait_ready(pg, timeout=60000)
            pg.locator("#view").focus()
            done = 0
            for g in gestures:
                if g[0] == "slice":
                    pg.keyboard.press("z")
                elif g[0] == "tool":
                    pg.keyboard.press("b" if g[1] == 0 else str(g[1]))
                else:
                    first, last, axis = idx(g[1]), idx(g[2]), g[3]
                    at = pg.evaluate("i => window.nonogram.aim(i)", first)
                    if at is None:
                        raise SystemExit(f"gesture {done}: cube {g[1]} cannot be pressed")
                    if first == last:
                        pg.mouse.click(at["x"], at["y"])
                    else:
                        step = list(g[1])
                        step[axis] += 1 if g[2][axis] > g[1][axis] else -1
                        a, b, e = pg.evaluate("ids => ids.map(i => window.nonogram.screenOf(i))",
                                              [first, idx(step), last])
                        ux, uy = b[0] - a[0], b[1] - a[1]
                        norm = max(1e-9, (ux * ux + uy * uy) ** 0.5)
                        pg.mouse.move(at["x"], at["y"])
                        pg.mouse.down()
                        # the first few pixels along the line (they choose it), then to its last cube
                        pg.mouse.move(at["x"] + 8 * ux / norm, at["y"] + 8 * uy / norm)
                        pg.mouse.move(e[0], e[1], steps=4)
                        pg.mouse.up()
                done += 1
            return pg.evaluate("window.nonogram.state()")
        finally:
            browser.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--resolution", type=int, default=24)
    ap.add_argument("--puzzle-colours", type=int, default=1)
    ap.add_argument("--play", action="store_true", help="play each stroke plan in Chromium to the reveal")
    ap.add_argument("--json", default="", help="write the figures here")
    args = ap.parse_args(argv)
    models = args.models or sorted(str(p) for p in SHARED.glob("*") if p.suffix in (".glb", ".obj", ".ply"))
    if not models:
        print(f"bench_gestures: no models given and none in {SHARED}", file=sys.stderr)
        return 2
    from engine.play import webpage
    rows = []
    print(f"{'model':<16} {'size':>9} {'kind':>7} {'clicks':>7} {'strokes':>8} {'ratio':>6}  "
          f"(of the stroke plan: strokes, one-cube clicks, keys){'  played' if args.play else ''}")
    for path in models:
        p, grid = load_grid(path, args.resolution, args.puzzle_colours)
        t = time.perf_counter()
        gestures, clicks = plan(grid), clicks_of(grid)
        c = count(gestures)
        row = {"model": os.path.basename(path), "shape": list(grid.shape), "colours": int(grid.max()),
               "clicks": clicks, **c, "ratio": round(c["gestures"] / clicks, 4), "plan_s": round(time.perf_counter() - t, 2)}
        played = ""
        if args.play:
            with tempfile.TemporaryDirectory() as tmp:
                page = Path(tmp) / "page.html"
                p.name = row["model"]
                webpage.write_page(p, str(page))
                st = play(page, gestures, grid.shape)
            row.update(played_solved=st["solved"], played_mistakes=st["mistakes"])
            played = f"  {'solved' if st['solved'] else 'NOT SOLVED'}, {st['mistakes']} mistakes"
        rows.append(row)
        kind = f"{row['colours']} col" if row["colours"] > 1 else "plain"
        print(f"{row['model']:<16} {'x'.join(map(str, row['shape'])):>9} {kind:>7} {clicks:>7} {c['gestures']:>8} "
              f"{row['ratio']:>6.3f}  ({c['strokes']}, {c['single_clicks']}, {c['keys']}){played}")
    if args.json:
        Path(args.json).write_text(json.dumps({"resolution": args.resolution, "rows": rows,
                                               "load_average": list(os.getloadavg())}, indent=1) + "\n")
    return 0 if not args.play or all(r["played_solved"] and not r["played_mistakes"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
