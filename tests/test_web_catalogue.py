"""The catalogue (index.html) in real Chromium: before a puzzle is solved its card shows a
neutral picture and the browser loads no reveal picture at all; after the puzzle is played to
its reveal in its own page, the card shows the reveal (the render given, else the picture the
page saved), the time and the mistakes; a failed model is listed with its reason; a colour
puzzle shows its inks."""
from __future__ import annotations

import numpy as np
import pytest

import webplayer
from webplayer import browser, open_page, page, state  # noqa: F401 (fixtures)
from engine.model.clues import puzzle_from_grid
from engine.model.colourpuzzle import colour_puzzle_from_grid
from engine.play import webpage
from engine.play.catalogue import catalogue_html, entry_for_page

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))


@pytest.fixture(scope="module")
def puzzles():
    g = np.zeros((3, 3, 3), int)
    g[1, 1, :] = 1
    g[0, 1, 0] = 1
    c = g.copy()
    c[1, 1, 2] = 2
    return (puzzle_from_grid(g > 0, name="post"),
            colour_puzzle_from_grid(c, 2, [[0.9, 0.8, 0.2], [0.92, 0.82, 0.25]], name="twotone"))


@pytest.fixture
def folder(puzzles, tmp_path):
    from PIL import Image
    plain, colour = puzzles
    webpage.write_page(plain, str(tmp_path / "post-3.html"))
    webpage.write_page(colour, str(tmp_path / "twotone-3.html"))
    Image.new("RGB", (64, 64), (200, 30, 30)).save(tmp_path / "post-3.png")   # "the solved render"
    entries = [
        entry_for_page(str(tmp_path), "post-3.html", name="post @ 3", size="3x3x3", hidden=0, lines=27,
                       reveal="post-3.png"),
        entry_for_page(str(tmp_path), "twotone-3.html", name="twotone @ 3", size="3x3x3", hidden=0, lines=27),
        {"name": "ogre @ 24", "error": "BatchError: the file has no mesh"},
    ]
    (tmp_path / "index.html").write_text(catalogue_html(entries), encoding="utf-8")
    return tmp_path


def _cards(pg) -> dict:
    return pg.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.card')].map(c => [
      c.querySelector('.name').textContent,
      { key: c.dataset.key || null, reveal: [...c.querySelectorAll('img.reveal')].map(i => i.getAttribute('src')),
        images: [...c.querySelectorAll('img')].length, svg: !!c.querySelector('svg'),
        progress: (c.querySelector('.progress') || {}).textContent || '', text: c.textContent,
        inks: [...c.querySelectorAll('.ink')].map(i => i.style.background) }]))""")


def test_the_catalogue_shows_no_reveal_before_solving_and_the_reveal_after(page, folder, puzzles):
    index = (folder / "index.html").as_uri()
    page.goto(index)
    cards = _cards(page)
    assert set(cards) == {"post @ 3", "twotone @ 3", "ogre @ 24"}
    for name in ("post @ 3", "twotone @ 3"):
        assert cards[name]["reveal"] == [] and cards[name]["images"] == 0 and cards[name]["svg"]
        assert cards[name]["progress"] == ""
    assert not any(u.endswith(".png") for u in page.requests), "the reveal must not even be loaded"
    assert "failed: BatchError: the file has no mesh" in cards["ogre @ 24"]["text"]
    assert len(cards["twotone @ 3"]["inks"]) == 2 and "2 colours" in cards["twotone @ 3"]["text"]
    # the card's key is the one the page keeps its progress under
    open_page(page, folder / "post-3.html")
    assert state(page)["storageKey"] == cards["post @ 3"]["key"]
    # play the plain puzzle to its reveal (one mistake on the way), and start the colour one
    sol = np.asarray(puzzles[0].solution, bool)
    wrong = webplayer.aimable(page, [i for i in state(page)["drawn"] if sol[i]])[0]
    assert webplayer.click_cell(page, wrong)
    s = webplayer.play_to_reveal(page, puzzles[0])
    assert s["solved"] and s["mistakes"] == 1
    open_page(page, folder / "twotone-3.html")
    free = webplayer.aimable(page, [i for i in state(page)["drawn"] if not puzzles[1].colour_solution[i]])[0]
    assert webplayer.click_cell(page, free)
    page.goto(index)
    page.wait_for_function("document.querySelector('img.reveal') && document.querySelector('img.reveal').complete")
    cards = _cards(page)
    assert cards["post @ 3"]["reveal"] == ["post-3.png"]
    assert "solved in 0:" in cards["post @ 3"]["progress"] and "1 mistake" in cards["post @ 3"]["progress"]
    assert cards["twotone @ 3"]["reveal"] == [] and "in progress" in cards["twotone @ 3"]["progress"]
    # the colour puzzle solved: no render was given, so the card shows the page's own picture
    open_page(page, folder / "twotone-3.html")
    assert webplayer.play_to_reveal(page, puzzles[1])["solved"]
    page.goto(index)
    cards = _cards(page)
    assert len(cards["twotone @ 3"]["reveal"]) == 1 and cards["twotone @ 3"]["reveal"][0].startswith("data:image/")
    assert not page.problems
