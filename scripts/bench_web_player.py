"""The web player's targets (issues #25 and #39), measured in headless Chromium (Debian's, via Playwright):

    .venv/bin/python scripts/bench_web_player.py [--sizes 8 24 36] [--loads 5] [--clicks 30] [--strokes 12]
        [--hints 8]

- page size: the template (player + three.js) and each page (template + the puzzle's data);
- load to first frame: from navigation start to the first animation frame after the first
  render (the page's own ``performance.now()``), fresh browser context each time (no cache);
- click to break: a real mouse click on a cube that is not part of the model, to the end of the
  render that shows it broken (the page measures from the click event's timestamp until a pixel
  of the new frame can be read back), at the block's full size. The pointer moves onto the cube
  120 ms before the click, as a player's does, so the hover highlight's frame is not counted.
- a stroke over 24 cubes: a real mouse press on a cube of the block's top layer (empty: the
  ball does not reach it), a first move of a few pixels along its x-line (the stroke starts,
  its first cube or two break), then ONE move to the place of the cube 24 further: the figure is
  that move's, from its event to the frame showing those 24 cubes broken, read back (the stroke's save to
  localStorage, once when it ends, is given apart); and a drag over 24 cubes in 24 moves;
- a hint: the Hint key on the page as it opens (every line's deduction still to work out; the
  page has compiled its solvers in its first idle moment, by a throwaway scan: `warm_ms`),
  after a stroke (only its lines again), and on random mid-game states (each page opened
  anew); plain and three-colour (the ball in three bands of colour) at the largest size.
Puzzles: a ball with a hollow core and a tunnel, every second clue hidden at random (clue
count and kind do not change the page's cost; size does). Chromium renders with SwiftShader
(WebGL on the CPU, --disable-gpu): a real GPU only makes the figures smaller.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
VIEWPORT = {"width": 1280, "height": 800}   # a laptop browser window
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import webplayer  # noqa: E402
from engine.play import webpage  # noqa: E402
from engine.model.clues import puzzle_from_grid  # noqa: E402
from engine.model.puzzle import with_hidden  # noqa: E402
from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden as with_hidden_colour  # noqa: E402


def ball(n: int) -> np.ndarray:
    x, y, z = np.indices((n, n, n))
    c = (n - 1) / 2
    r = np.sqrt((x - c) ** 2 + (y - c) ** 2 + (z - c) ** 2)
    g = (r <= n * 0.48) & (r >= n * 0.2)
    g &= ~((np.abs(x - c) < n * 0.12) & (np.abs(z - c) < n * 0.12))   # a tunnel along y
    return g


def make_page(n: int, folder: str) -> tuple:
    p = puzzle_from_grid(ball(n), name=f"ball{n}")
    hidden = np.random.default_rng(n).random(p.n_lines) < 0.5
    p = with_hidden(p, hidden)
    p.name = f"ball{n}"
    path = os.path.join(folder, f"ball{n}.html")
    t = time.perf_counter()
    webpage.write_page(p, path)
    return path, p, time.perf_counter() - t


def colour_page(n: int, folder: str) -> str:
    """The ball in three bands of colour along z, every second clue hidden."""
    g = ball(n)
    z = np.indices(g.shape)[2]
    grid = np.where(g, 1 + (3 * z) // n, 0)
    p = colour_puzzle_from_grid(grid, 3, [[0.85, 0.3, 0.1], [0.2, 0.5, 0.9], [0.3, 0.7, 0.2]], name=f"ball{n}c")
    p = with_hidden_colour(p, np.random.default_rng(n).random(p.n_lines) < 0.5)
    path = os.path.join(folder, f"ball{n}c.html")
    webpage.write_page(p, path)
    return path


def _med(v):
    return statistics.median(v) if v else float("nan")


def bench_strokes(browser, path: str, n: int, count: int) -> dict:
    """Strokes along x-lines of the (empty) top layer: one move over 24 cubes, and 24 moves."""
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(Path(path).as_uri())
    webplayer.wait_ready(page, timeout=60000)
    idx = lambda x, y, z: (x * n + y) * n + z   # noqa: E731
    jump, jump_update, jump_render, steps, saves = [], [], [], [], []
    for k in range(count):
        y = 2 + k % (n - 4)
        first = idx(0, y, n - 1)
        at = page.evaluate("i => window.nonogram.aim(i)", first)
        a = page.evaluate("i => window.nonogram.screenOf(i)", first)
        b = page.evaluate("i => window.nonogram.screenOf(i)", idx(1, y, n - 1))
        ux, uy = b[0] - a[0], b[1] - a[1]
        norm = (ux * ux + uy * uy) ** 0.5
        page.mouse.move(at["x"], at["y"])
        page.mouse.down()
        # the first few pixels along the row choose it and break its first cube (or two)
        page.mouse.move(at["x"] + 8 * ux / norm, at["y"] + 8 * uy / norm)
        reached = page.evaluate("window.nonogram.state().stroke.reached")
        last = reached + 24
        if k % 2 == 0:
            # then ONE move 24 cubes further
            e = page.evaluate("i => window.nonogram.screenOf(i)", idx(last, y, n - 1))
            page.mouse.move(e[0], e[1])
            st = page.evaluate("window.nonogram.state()")
            jump.append(st["lastActionMs"])
            jump_update.append(st["timing"]["update"])
            jump_render.append(st["timing"]["render"])
            assert st["timing"]["cubes"] == 24 and st["stroke"]["reached"] == last, (st["timing"], st["stroke"])
        else:
            for j in range(reached + 1, last + 1):   # a cube a move
                e = page.evaluate("i => window.nonogram.screenOf(i)", idx(j, y, n - 1))
                page.mouse.move(e[0], e[1])
                steps.append(page.evaluate("window.nonogram.state().lastActionMs"))
        page.mouse.up()
        st = page.evaluate("window.nonogram.state()")
        assert all(st["cells"][idx(x, y, n - 1)] == 2 for x in range(last + 1)), f"stroke {k} did not break its cubes"
        saves.append(st["saveMs"])
        page.keyboard.press("u")
    ctx.close()
    return {"n": n, "jump_ms": jump, "jump_update_ms": jump_update, "jump_render_ms": jump_render,
            "step_ms": steps, "save_ms": saves}


def bench_hints(browser, path: str, puzzle_solution, rounds: int) -> dict:
    """Hint times: on the page as it opens, after a stroke, and on random mid-game states."""
    rng = np.random.default_rng(39)
    out = {"open_ms": [], "after_stroke_ms": [], "midgame_ms": [], "found": 0, "asked": 0}
    sol = np.asarray(puzzle_solution, bool).ravel()
    n = round(sol.size ** (1 / 3))
    for r in range(rounds):
        ctx = browser.new_context(viewport=VIEWPORT)
        page = ctx.new_page()
        page.goto(Path(path).as_uri())
        s = webplayer.wait_ready(page, timeout=60000)
        page.locator("#view").focus()
        if r == 0:
            # the page compiles the solvers in its first idle moment (a throwaway scan, nothing kept)
            page.wait_for_function("window.nonogram.state().warmMs !== null", timeout=60000)
            out["warm_ms"] = page.evaluate("window.nonogram.state().warmMs")
            page.keyboard.press("h")
            out["open_ms"].append(page.evaluate("window.nonogram.state().hintMs"))
            webplayer.stroke(page, (0 * n + 3) * n + n - 1, (20 * n + 3) * n + n - 1)
            page.keyboard.press("h")
            out["after_stroke_ms"].append(page.evaluate("window.nonogram.state().hintMs"))
        cells = np.where(~sol & (rng.random(sol.size) < rng.uniform(0.1, 0.8)), 2, 0)
        record = {"cells": "".join(chr(48 + int(v)) for v in cells), "mistakes": 0, "hints": 0, "elapsed": 0,
                  "solved": False}
        page.evaluate("""([k, r]) => { const put = () => localStorage.setItem(k, JSON.stringify(r));
          addEventListener('pagehide', put); document.addEventListener('visibilitychange', put); }""",
                      [s["storageKey"], record])
        page.reload()
        webplayer.wait_ready(page, timeout=60000)
        page.wait_for_function("window.nonogram.state().warmMs !== null", timeout=60000)
        page.locator("#view").focus()
        page.keyboard.press("h")
        st = page.evaluate("window.nonogram.state()")
        out["midgame_ms"].append(st["hintMs"])
        out["asked"] += 1
        out["found"] += st["hint"] is not None
        ctx.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 24, 36])
    ap.add_argument("--loads", type=int, default=5, help="page loads per size (default 5)")
    ap.add_argument("--clicks", type=int, default=30, help="clicks at the largest size (default 30)")
    ap.add_argument("--strokes", type=int, default=12, help="strokes at the largest size (default 12)")
    ap.add_argument("--hints", type=int, default=8, help="mid-game hint states per puzzle (default 8)")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "web_player.json"),
                    help="where the figures go for benchmarks/report.py (default: benchmarks/results/"
                         "web_player.json; '' for none)")
    args = ap.parse_args(argv)
    why = webplayer.missing()
    if why:
        print(f"bench_web_player: cannot run: {why}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright
    template = len(webpage.template_text().encode("utf-8"))
    print(f"template (player + three.js): {template / 1024:.0f} KiB ({template:,} bytes)")
    print(f"viewport {VIEWPORT['width']}x{VIEWPORT['height']}, chromium headless, "
          f"SwiftShader\n")
    print(f"{'size':>6} {'page KiB':>9} {'data KiB':>9} {'export s':>9} {'faces':>6} "
          f"{'first frame ms (median, max)':>30}")
    rows = []
    results: dict = {"template_bytes": template, "viewport": VIEWPORT, "sizes": [],
                     "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                     "load_average": list(os.getloadavg()), "cpus": os.cpu_count(), "machine": platform.machine()}
    path_of: dict = {}
    with tempfile.TemporaryDirectory(prefix="nonogram-web-bench-") as tmp, sync_playwright() as pw:
        browser = webplayer.launch(pw)
        try:
            version = browser.version
            for n in args.sizes:
                path, puzzle, export_s = make_page(n, tmp)
                path_of[n] = path
                size = os.path.getsize(path)
                loads, drawn = [], 0
                for _ in range(args.loads):
                    ctx = browser.new_context(viewport=VIEWPORT)
                    page = ctx.new_page()
                    page.goto(Path(path).as_uri())
                    s = webplayer.wait_ready(page, timeout=60000)
                    if s.get("error"):
                        raise SystemExit(f"the page failed: {s['error']}")
                    loads.append(s["firstFrameMs"])
                    drawn = s["faces"]
                    last = (ctx, page, s)
                    if _ < args.loads - 1:
                        ctx.close()
                results["sizes"].append({"n": n, "page_bytes": size, "data_bytes": size - template,
                                         "export_s": round(export_s, 3), "faces": drawn,
                                         "first_frame_ms": [round(v, 1) for v in loads]})
                print(f"{n:>3}³ {size / 1024:>9.0f} {(size - template) / 1024:>9.0f} {export_s:>9.2f} {drawn:>6} "
                      f"{statistics.median(loads):>22.0f}, {max(loads):.0f}")
                rows.append((n, last))
                if n != max(args.sizes):
                    last[0].close()
            n, (ctx, page, s) = rows[-1]
            sol = np.asarray(puzzle_from_grid(ball(n)).solution, bool)
            ids = [i for i in s["drawn"] if not sol[i]]
            points = page.evaluate("ids => ids.map(i => [i, window.nonogram.aim(i)]).filter(p => p[1])", ids)
            times, parts = [], []
            for i, at in points[:args.clicks]:
                # as a player does: the pointer comes to the cube (its hover highlight is drawn),
                # then the click; the figure is the click's
                page.mouse.move(at["x"], at["y"])
                page.wait_for_timeout(120)
                page.mouse.click(at["x"], at["y"])
                st = page.evaluate("window.nonogram.state()")
                assert st["cells"][i] == 2, "the click did not break its cube"
                times.append(st["lastActionMs"])
                parts.append((st["timing"]["update"], st["timing"]["render"]))
            ctx.close()
            extra = {"load_average_strokes": list(os.getloadavg())}
            strokes = bench_strokes(browser, path_of[n], n, args.strokes)
            r1 = lambda v: [round(x, 1) for x in v]   # noqa: E731
            extra["strokes"] = {k: (r1(v) if isinstance(v, list) else v) for k, v in strokes.items()}
            print(f"\nstroke over 24 cubes at {n}³ (one move; {len(strokes['jump_ms'])} strokes): median "
                  f"{_med(strokes['jump_ms']):.1f} ms, max {max(strokes['jump_ms']):.1f} ms (update "
                  f"{_med(strokes['jump_update_ms']):.1f}, render {_med(strokes['jump_render_ms']):.1f}); "
                  f"a cube a move: median {_med(strokes['step_ms']):.1f} ms; save at the end: median "
                  f"{_med(strokes['save_ms']):.1f} ms")
            extra["load_average_hints"] = list(os.getloadavg())
            plain = bench_hints(browser, path_of[n], puzzle_from_grid(ball(n)).solution, args.hints)
            colour = bench_hints(browser, colour_page(n, tmp), ball(n), args.hints)
            extra["hints"] = {"n": n, "plain": plain, "colour": colour}
            for name, h in (("plain", plain), ("3-colour", colour)):
                print(f"hint at {n}³ {name}: as it opens {h['open_ms'][0]:.0f} ms, after a stroke "
                      f"{h['after_stroke_ms'][0]:.0f} ms, mid-game median {_med(h['midgame_ms']):.0f} ms, max "
                      f"{max(h['midgame_ms']):.0f} ms ({h['found']} of {h['asked']} found a line)")
        finally:
            browser.close()
    times.sort()
    print(f"\nclick to break at {n}³ ({len(times)} clicks): median {statistics.median(times):.1f} ms, "
          f"p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms, max {times[-1]:.1f} ms")
    print(f"  of which: update (grid, buffers, save) median {statistics.median(p[0] for p in parts):.1f} ms, "
          f"render + gl.finish median {statistics.median(p[1] for p in parts):.1f} ms")
    print(f"chromium {version}")
    results.update(chromium=version, click_n=n, click_ms=[round(v, 1) for v in times],
                   click_update_ms=[round(p[0], 1) for p in parts], click_render_ms=[round(p[1], 1) for p in parts])
    results.update(extra)
    results["load_average_end"] = list(os.getloadavg())
    if args.json:
        old = json.loads(Path(args.json).read_text(encoding="utf-8")) if Path(args.json).is_file() else {}
        if old.get("click_runs"):   # the before/after runs of #25, recorded by hand: kept
            results["click_runs"] = old["click_runs"]
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(f"figures: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
