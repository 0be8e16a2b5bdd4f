"""The web player's targets (issue #25), measured in headless Chromium (Debian's, via Playwright):

    .venv/bin/python scripts/bench_web_player.py [--sizes 8 24 36] [--loads 5] [--clicks 30]

- page size: the template (player + three.js) and each page (template + the puzzle's data);
- load to first frame: from navigation start to the first animation frame after the first
  render (the page's own ``performance.now()``), fresh browser context each time (no cache);
- click to break: a real mouse click on a cube that is not part of the model, to the end of the
  render that shows it broken (the page measures from the click event's timestamp until a pixel
  of the new frame can be read back), at the block's full size. The pointer moves onto the cube
  120 ms before the click, as a player's does, so the hover highlight's frame is not counted.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 24, 36])
    ap.add_argument("--loads", type=int, default=5, help="page loads per size (default 5)")
    ap.add_argument("--clicks", type=int, default=30, help="clicks at the largest size (default 30)")
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
    with tempfile.TemporaryDirectory(prefix="nonogram-web-bench-") as tmp, sync_playwright() as pw:
        browser = webplayer.launch(pw)
        try:
            version = browser.version
            for n in args.sizes:
                path, puzzle, export_s = make_page(n, tmp)
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
        finally:
            browser.close()
    times.sort()
    print(f"\nclick to break at {n}³ ({len(times)} clicks): median {statistics.median(times):.1f} ms, "
          f"p90 {times[int(0.9 * (len(times) - 1))]:.1f} ms, max {times[-1]:.1f} ms")
    print(f"  of which: update (grid, buffers, save) median {statistics.median(p[0] for p in parts):.1f} ms, "
          f"render + gl.finish median {statistics.median(p[1] for p in parts):.1f} ms")
    print(f"chromium {version}")
    results.update(chromium=version, click_n=n, click_ms=[round(v, 1) for v in times],
                   click_update_ms=[round(p[0], 1) for p in parts], click_render_ms=[round(p[1], 1) for p in parts],
                   load_average_end=list(os.getloadavg()))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(f"figures: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
