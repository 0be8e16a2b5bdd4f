"""The web player in a real browser: Debian's Chromium driven by Playwright (its own browser
download is not used). Shared by tests/test_web_player.py, scripts/bench_web_player.py and
scripts/web_screenshots.py. Everything here skips (tests) or says what is missing (scripts)."""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 # WebGL on the CPU (SwiftShader) without a GPU, without Chromium's warning about it
                 "--enable-unsafe-swiftshader"]
VIEWPORT = {"width": 900, "height": 600}


def chromium_path() -> Optional[str]:
    for cand in (os.environ.get("NONOGRAM_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and os.path.isfile(cand):
            return cand
    return None


def missing() -> Optional[str]:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt)"
    if chromium_path() is None:
        return "chromium is not installed (apt-get install -y chromium; scripts/bootstrap.sh does it as root)"
    from engine.play import webpage
    if not os.path.isfile(webpage.TEMPLATE_PATH):
        return f"the web player is not built: {webpage.BUILD_HINT}"
    return None


def launch(playwright):
    """Chromium with a temporary directory of its own, removed when the browser closes. Debian's
    chromium script turns /dev/shm off where it is small (--disable-dev-shm-usage), and Chromium
    then makes its shared memory as files in $TMPDIR, unlinked at once; a process ended between
    the two leaves an empty ``.org.chromium.Chromium.*`` behind (1-3 in /tmp per CI run, each
    made as a test module's browser started), which now goes with the directory."""
    tmp = tempfile.mkdtemp(prefix="nonogram-chromium-")
    try:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS,
                                             env={**os.environ, "TMPDIR": tmp})
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    browser.on("disconnected", lambda _: shutil.rmtree(tmp, ignore_errors=True))
    browser.nonogram_tmp = tmp
    return browser


def wait_ready(page, timeout: float = 20000):
    """Wait for the page's first frame (or its error message); returns its state."""
    page.wait_for_function("window.nonogram && (window.nonogram.state().firstFrameMs !== null"
                           " || window.nonogram.state().error)", timeout=timeout)
    return page.evaluate("window.nonogram.state()")


@pytest.fixture(scope="module")
def browser():
    """Chromium for a test module (Debian's, driven by Playwright)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and page errors (``problems``) and every
    request it makes (``requests``)."""
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    pg.problems = []
    pg.requests = []
    pg.on("console", lambda m: pg.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.problems.append(f"page error: {e}"))
    pg.on("request", lambda r: pg.requests.append(r.url))
    yield pg
    context.close()


@contextmanager
def device_page(browser, viewport=None, touch=True, mobile=False):
    """A page in a context of its own (a touch screen by default), with the page errors it
    raises collected in ``pg.errors``; closed afterwards."""
    context = browser.new_context(viewport=viewport or VIEWPORT, has_touch=touch, is_mobile=mobile)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    try:
        yield pg
    finally:
        context.close()


def designed_ring(seed: int, name: str, size: int = 8):
    """The ring model designed (clues hidden, unique, solvable by line logic), named."""
    from engine.design.hiding import design
    r = design(ring_grid(size), seed=seed)
    r.puzzle.name = name
    return r.puzzle


def state(pg) -> dict:
    """The page's game state, as its test hook reports it."""
    return pg.evaluate("window.nonogram.state()")


def open_page(pg, path):
    pg.goto(path.as_uri())
    return wait_ready(pg)


def aimable(pg, ids) -> list:
    """Those of the cubes ``ids`` a click can reach in the current view."""
    return pg.evaluate("ids => ids.filter(i => window.nonogram.aim(i) !== null)", [int(i) for i in ids])


def click_cell(pg, i) -> bool:
    """A real mouse click on cube ``i``; False when no click can reach it from this view."""
    at = pg.evaluate("i => window.nonogram.aim(i)", i)
    if at is None:
        return False
    pg.mouse.click(at["x"], at["y"])
    return True


def background_point(pg) -> dict:
    """A point of the canvas where a press reaches no cube and no control covers it."""
    return pg.evaluate("""() => {
      const c = document.getElementById('view').getBoundingClientRect();
      for (let y = c.top + 30; y < c.bottom - 10; y += 23) for (let x = c.left + 10; x < c.right - 10; x += 23) {
        if (document.elementFromPoint(x, y) === document.getElementById('view') && window.nonogram.pick(x, y) < 0
            && window.nonogram.pick(x + 90, y + 30) < 0) return { x, y };
      }
      return null;
    }""")


def mouse_drag(pg, start: dict, end: dict, steps: int = 12, button: str = "left") -> None:
    """A real mouse drag from ``start`` to ``end`` (client points) in ``steps`` moves."""
    pg.mouse.move(start["x"], start["y"])
    pg.mouse.down(button=button)
    pg.mouse.move(end["x"], end["y"], steps=steps)
    pg.mouse.up(button=button)


def stroke(pg, first: int, last: int, steps: int = 12, button: str = "left") -> None:
    """A stroke: press on cube ``first`` (where a click reaches it) and drag to where the centre
    of cube ``last`` (on the same line) is on the screen."""
    at = pg.evaluate("i => window.nonogram.aim(i)", first)
    assert at is not None, f"cube {first} cannot be pressed from this view"
    x, y = pg.evaluate("i => window.nonogram.screenOf(i)", last)
    mouse_drag(pg, at, {"x": x, "y": y}, steps, button)


def play_layer(pg, paint, Z: int, layer: int, k: int) -> None:
    """Real clicks that break the layer's cubes that are not in the model and paint the others
    (colour puzzles: ``paint`` the colour per cube, ``k`` the colours; 0 for black and white)."""
    s = pg.evaluate("window.nonogram.state()")
    for c in range(0, k + 1 if k else 1):
        todo = [i for i in range(paint.size) if paint[i] == c and i % Z == layer]
        todo = [i for i in todo if (s["cells"][i] != 2 if c == 0 else s["paints"][i] != c)]
        if not todo:
            continue
        pg.keyboard.press("b" if c == 0 else str(c))
        points = pg.evaluate("ids => ids.map(i => window.nonogram.aim(i))", todo)
        for i, at in zip(todo, points):
            if at is None:
                raise AssertionError(f"cube {i} cannot be aimed at")
            pg.mouse.click(at["x"], at["y"])


def play_to_reveal(pg, puzzle) -> dict:
    """Play a puzzle's page to its reveal with real clicks, layer by layer from the top, each
    finished layer sliced away; returns the final state."""
    k = getattr(puzzle, "k", 1) if getattr(puzzle, "clue_colours", None) is not None else 0
    k = k if k > 1 else 0
    paint = np.asarray(puzzle.colour_solution, int) if k else np.asarray(puzzle.solution, bool).astype(int)
    Z = puzzle.shape[2]
    pg.locator("#view").focus()
    for layer in range(Z - 1, -1, -1):
        play_layer(pg, paint, Z, layer, k)
        if layer:
            pg.keyboard.press("z")
    return state(pg)


def ring_grid(size: int = 8) -> np.ndarray:
    """A small model with holes, so its clues have circles and squares: two rings on a base,
    with two posts joined at the top."""
    g = np.zeros((size, size, size), bool)
    x, y, z = np.indices(g.shape)
    c = (size - 1) / 2
    r = np.hypot(x - c, y - c)
    g |= (r <= c + 0.2) & (r >= c - 1.6) & (z >= 2) & (z <= 3)           # a ring
    g |= (r <= c + 0.2) & (r >= c - 1.6) & (z == size - 3)               # a thinner ring above
    g |= (r <= c - 0.3) & (z == 0)                                       # a base
    g |= ((x == 1) | (x == size - 2)) & (y == size // 2) & (z <= size - 2)  # two posts
    g |= (x >= 2) & (x <= size - 3) & (y == size // 2) & (z == size - 2)   # joined at the top
    return g


def drawn_reference(present: np.ndarray) -> set:
    """The cells a page should draw: present ones with at least one face in view."""
    p = np.pad(present, 1)
    inner = p[1:-1, 1:-1, 1:-1]
    covered = (p[2:, 1:-1, 1:-1] & p[:-2, 1:-1, 1:-1] & p[1:-1, 2:, 1:-1] & p[1:-1, :-2, 1:-1]
               & p[1:-1, 1:-1, 2:] & p[1:-1, 1:-1, :-2])
    return set(np.flatnonzero((inner & ~covered).ravel()).tolist())
