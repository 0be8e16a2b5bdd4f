"""engine/play/webpage.py and ``python -m engine export-html`` (no browser: tests/test_web_player.py
plays the pages): what the page carries decodes to the puzzle, the exporter refuses what the
player cannot play with a clear message, and nothing in a puzzle can break out of the page."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.play import webpage
from engine.__main__ import main as engine_main
from engine.model.clues import puzzle_from_grid
from engine.model.puzzle import make_2d
from engine.files.puzzlefile import puzzle_to_dict, save_puzzle

ROOT = Path(__file__).resolve().parent.parent
# the slots and limit of the built template, without needing the build (web/src/template.html)
FAKE_TEMPLATE = ('<html><head><meta name="nonogram-player-limit" content="12"><title>__TITLE__</title></head>'
                 '<body><script id="nonogram-puzzle" type="application/json">__NONOGRAM_PUZZLE__</script>'
                 '<script>var s = "__NONOGRAM_PUZZLE__";</script></body></html>')


def grid(seed=0, shape=(5, 4, 3)):
    return np.random.default_rng(seed).random(shape) < 0.55


def data_of(text: str) -> dict:
    m = re.search(r'<script id="nonogram-puzzle" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def decode(data: dict) -> tuple:
    n = int(np.prod(data["shape"]))
    packed = np.frombuffer(base64.b64decode(data["solution"]), np.uint8)
    ks = webpage.keystream(data["key"], packed.size + n)
    sol = np.unpackbits(packed ^ ks[:packed.size], bitorder="little")[:n].astype(bool)
    colours = None
    if "colours" in data:
        colours = np.frombuffer(base64.b64decode(data["colours"]), np.uint8) ^ ks[packed.size:]
    return sol, colours


def test_the_page_carries_the_puzzle_and_its_solution_not_readable_at_a_glance():
    p = puzzle_from_grid(grid(1), name="box")
    text = webpage.render_page(p, info={"band": "easy"}, template=FAKE_TEMPLATE)
    d = data_of(text)
    ref = puzzle_to_dict(p)
    assert d["shape"] == [5, 4, 3] and d["name"] == "box" and d["info"] == {"band": "easy"}
    assert (d["x"], d["y"], d["z"]) == (ref["x"], ref["y"], ref["z"])
    sol, colours = decode(d)
    assert np.array_equal(sol, p.solution) and colours is None
    # the solution's 0/1 text and its plain bit packing are nowhere in the page
    assert ref["solution"] not in text
    plain = base64.b64encode(np.packbits(p.solution.astype(np.uint8), bitorder="little").tobytes()).decode()
    assert plain not in text
    # only the data slot was filled (the script's own text stays), the title is the puzzle's
    assert 'var s = "__NONOGRAM_PUZZLE__"' in text and "<title>box · Nonogram 3D</title>" in text
    # the same puzzle gives the same page (the browser keeps progress per page content), also
    # when its meta differs (a design's timing differs from run to run)
    assert webpage.render_page(p, info={"band": "easy"}, template=FAKE_TEMPLATE) == text
    p.meta["design"] = {"time_s": 0.0006}
    assert webpage.render_page(p, info={"band": "easy"}, template=FAKE_TEMPLATE) == text


def test_keystream_is_the_players(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the web player's keystream runs in JavaScript)")
    js = ("import { keystream } from './web/src/data.js';"
          "console.log(JSON.stringify([1, 0xdeadbeef, 4294967295].map(k => Array.from(keystream(k, 40)))));")
    out = subprocess.run([node, "--input-type=module", "-e", js], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    want = [webpage.keystream(k, 40).tolist() for k in (1, 0xDEADBEEF, 4294967295)]
    assert json.loads(out) == want


def test_colours_travel_with_the_reveal():
    p = puzzle_from_grid(grid(2), name="painted")
    rng = np.random.default_rng(5)
    p.palette = np.array([[1, 0, 0], [0, 0.5, 1], [0.2, 0.8, 0.2]], np.float32)
    p.colours = rng.integers(0, 3, p.n_cells).astype(np.uint8)
    d = data_of(webpage.render_page(p, template=FAKE_TEMPLATE))
    assert d["palette"] == ["#ff0000", "#0080ff", "#33cc33"]
    sol, colours = decode(d)
    assert np.array_equal(colours[sol], p.colours[p.solution]) and not colours[~sol].any()


def test_a_name_cannot_break_out_of_the_page():
    evil = '</script><script>alert(1)</script><!--'
    p = puzzle_from_grid(grid(3), name=evil)
    text = webpage.render_page(p, template=FAKE_TEMPLATE)
    assert evil not in text and "alert(1)</script>" not in text
    assert data_of(text)["name"] == evil
    assert "<title>&lt;/script&gt;" in text


def test_refusals_say_why():
    g = grid(4)
    no_solution = puzzle_from_grid(g)
    no_solution.solution = None
    with pytest.raises(webpage.WebPageError, match="no solution stored"):
        webpage.render_page(no_solution, template=FAKE_TEMPLATE)
    big = puzzle_from_grid(np.ones((13, 2, 2), bool), name="long")
    with pytest.raises(webpage.WebPageError, match=r"13×2×2, over the web player's limit of 12"):
        webpage.render_page(big, template=FAKE_TEMPLATE)
    flat = make_2d([[1]], [[1]], solution=np.array([True]))
    with pytest.raises(webpage.WebPageError, match="2D puzzle"):
        webpage.render_page(flat, template=FAKE_TEMPLATE)
    with pytest.raises(webpage.WebPageError, match="not the web player's template"):
        webpage.render_page(puzzle_from_grid(g), template="<html></html>")


def test_an_unbuilt_player_says_how_to_build_it(tmp_path, monkeypatch):
    monkeypatch.setattr(webpage, "TEMPLATE_PATH", str(tmp_path / "nonogram-player.html"))
    with pytest.raises(webpage.WebPageError, match=r"not been built.*npm ci && npm run build"):
        webpage.render_page(puzzle_from_grid(grid(5)))


def test_the_built_template_holds_the_players_limit():
    try:
        text = webpage.template_text()
    except webpage.WebPageError as e:
        pytest.skip(str(e))
    assert webpage.player_limit(text) == 64
    assert len(text.encode()) < 1_000_000  # the player and three.js, before the puzzle's data


def test_cli_writes_a_page_and_refuses_with_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(webpage, "template_text", lambda path=None: FAKE_TEMPLATE)
    src = tmp_path / "box.json"
    save_puzzle(puzzle_from_grid(grid(6), name="box"), str(src))
    out = tmp_path / "box.html"
    assert engine_main(["export-html", str(src), "-o", str(out)]) == 0
    assert data_of(out.read_text(encoding="utf-8"))["name"] == "box"
    assert "wrote" in capsys.readouterr().out
    # the default output name, beside the working folder
    monkeypatch.chdir(tmp_path)
    assert engine_main(["export-html", str(src)]) == 0 and (tmp_path / "box.html").is_file()
    no_sol = tmp_path / "nosol.json"
    d = json.loads(src.read_text())
    del d["solution"]
    no_sol.write_text(json.dumps(d))
    assert engine_main(["export-html", str(no_sol), "-o", str(tmp_path / "x.html")]) == 2
    assert "no solution stored" in capsys.readouterr().err and not (tmp_path / "x.html").exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert engine_main(["export-html", str(bad)]) == 2
    assert "bad JSON" in capsys.readouterr().err
    assert engine_main(["export-html"]) == 2
    assert "usage" in capsys.readouterr().err


def test_catalogue_lists_and_escapes_its_entries_and_gives_no_reveal_away():
    from engine.play.catalogue import catalogue_html
    text = catalogue_html([
        {"page": "a-8.html", "name": "a @ 8", "size": "8x6x5", "hidden": 30, "lines": 120, "band": "easy",
         "thumbnail": "a-8.png", "key": "nonogram3d:1f"},
        {"page": "b&c.html", "name": "<b>", "size": "4x4x4", "hidden": 0, "lines": 48, "band": "",
         "reveal": "b-solved.png", "shape": [4, 3, 2], "key": "nonogram3d:2e", "colours": ["#102030", "#405060"]},
        {"name": "broken @ 8", "error": "RuntimeError: no mesh <here>"},
    ])
    assert text.count('<a class="card"') == 2 and "2 puzzles (1 model failed, listed last)" in text
    assert 'href="a-8.html"' in text and 'src="a-8.png"' in text and 'data-key="nonogram3d:1f"' in text
    assert "8x6x5 · 30 of 120 clues hidden (25 %)" in text and '<span class="band">easy</span>' in text
    assert 'href="b&amp;c.html"' in text and "&lt;b&gt;" in text and "<b>" not in text
    # the reveal is not a picture the browser loads: a data attribute the script reads once solved;
    # the card shows a neutral drawing of the block instead
    assert 'data-reveal="b-solved.png"' in text and 'src="b-solved.png"' not in text
    assert 'aria-label="a block of 4×3×2 cubes"' in text
    assert "2 colours" in text and "background:#405060" in text
    assert "failed: RuntimeError: no mesh &lt;here&gt;" in text and text.index("broken @ 8") > text.index("&lt;b&gt;")


def test_the_catalogue_reads_a_pages_storage_key_and_colours(tmp_path):
    from engine.play.catalogue import entry_for_page, storage_key
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    p = colour_puzzle_from_grid(colour_grid(3, k=2), 2, [[1, 0.9, 0.2], [0.95, 0.93, 0.9]], name="two")
    (tmp_path / "two.html").write_text(webpage.render_page(p, template=FAKE_TEMPLATE), encoding="utf-8")
    e = entry_for_page(str(tmp_path), "two.html", name="two @ 5")
    text = (tmp_path / "two.html").read_text(encoding="utf-8")
    data = re.search(r'type="application/json">(.*?)</script>', text).group(1)
    assert e["key"] == storage_key(data) and e["shape"] == [5, 4, 3]
    assert e["colours"] == data_of(text)["inks"] and e["colours"] != data_of(text)["clue_colours"]
    # FNV-1a of the UTF-16 code units, as the page's hashText: known values
    assert storage_key("") == "nonogram3d:811c9dc5" and storage_key("a") == "nonogram3d:e40c292c"
    assert storage_key("é") != storage_key("e")


def test_the_extension_build_needs_the_built_player(tmp_path, monkeypatch):
    import sys
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_extension
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    (tmp_path / "web").mkdir()
    monkeypatch.setattr(build_extension.shutil, "which", lambda name: None)
    with pytest.raises(build_extension.BuildError, match=r"nonogram-player.html is missing and npm is not installed"):
        build_extension.ensure_player(tmp_path)
    built = tmp_path / build_extension.PLAYER_TEMPLATE
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>")
    build_extension.ensure_player(tmp_path)  # built: nothing to do, npm not needed
    assert build_extension.PLAYER_TEMPLATE == "engine/play/player/nonogram-player.html"
    assert Path(webpage.TEMPLATE_PATH).relative_to(ROOT).as_posix() == build_extension.PLAYER_TEMPLATE


@pytest.mark.skipif(not os.environ.get("CI"), reason="only CI must have everything the browser tests need")
def test_ci_has_everything_the_browser_tests_need():
    # In CI a browser test that skips would hide a set-up step that failed (npm ci, the build, apt).
    from webplayer import missing
    assert missing() is None


# ---- colour puzzles (Picross 3D Round 2 style, docs/PUZZLE_FORMAT.md "Colour puzzles")

def colour_grid(seed=0, shape=(5, 4, 3), k=2):
    rng = np.random.default_rng(seed)
    return np.where(rng.random(shape) < 0.6, rng.integers(1, k + 1, shape), 0)


def test_a_colour_puzzle_carries_its_clues_per_colour_and_its_paint():
    from engine.files.colourfile import colour_puzzle_to_dict
    from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
    g = colour_grid(6, k=3)
    p = colour_puzzle_from_grid(g, 3, [[1, 0.8, 0], [0.1, 0.2, 0.9], [0, 0, 0]], name="three")
    p = with_hidden(p, np.arange(0, p.n_lines, 4))
    p.meta["_reveal"] = {"palette": ["#102030", "#405060"],
                         "colours": "".join(".." if v == 0 else f"{v % 2:02x}" for v in g.ravel())}
    d = data_of(webpage.render_page(p, template=FAKE_TEMPLATE))
    ref = colour_puzzle_to_dict(p)
    assert d["clue_colours"] == ref["clue_colours"] and len(d["clue_colours"]) == 3
    assert (d["x"], d["y"], d["z"]) == (ref["x"], ref["y"], ref["z"])
    assert d["x"][0][0] is None and isinstance(d["x"][0][1], list) and len(d["x"][0][1]) == 3
    sol, colours = decode(d)
    assert np.array_equal(sol, g.ravel() > 0)
    assert np.array_equal(colours[sol], (g.ravel() % 2)[sol]) and d["palette"] == ["#102030", "#405060"]
    n = g.size
    ks = webpage.keystream(d["key"], len(base64.b64decode(d["solution"])) + 2 * n)
    paint = np.frombuffer(base64.b64decode(d["paint"]), np.uint8) ^ ks[-n:]
    assert np.array_equal(paint, g.ravel())
    assert colour_puzzle_to_dict(p)["solution"] not in json.dumps(d)


def test_a_one_colour_puzzle_is_written_as_black_and_white():
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    g = colour_grid(7, k=1)
    d = data_of(webpage.render_page(colour_puzzle_from_grid(g, 1), template=FAKE_TEMPLATE))
    ref = puzzle_to_dict(puzzle_from_grid(g > 0))
    assert (d["x"], d["y"], d["z"]) == (ref["x"], ref["y"], ref["z"])
    assert "clue_colours" not in d and "paint" not in d
    assert np.array_equal(decode(d)[0], g.ravel() > 0)


def test_colour_puzzles_the_player_cannot_play_are_refused():
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    many = colour_puzzle_from_grid(np.arange(1, 11).reshape(10, 1, 1), 10, name="ten")
    with pytest.raises(webpage.WebPageError, match="10 puzzle colours; the web player plays up to 9"):
        webpage.render_page(many, template=FAKE_TEMPLATE)
    flat = colour_puzzle_from_grid(np.array([[1, 2], [0, 1]]), 2)
    with pytest.raises(webpage.WebPageError, match="2D puzzle"):
        webpage.render_page(flat, template=FAKE_TEMPLATE)
    unsolved = colour_puzzle_from_grid(colour_grid(8), 2)
    unsolved.colour_solution = None
    with pytest.raises(webpage.WebPageError, match="no solution stored"):
        webpage.render_page(unsolved, template=FAKE_TEMPLATE)


def test_the_players_colour_line_check_is_the_engines_rule():
    # web/src/data.js colourLineFits against engine.model.colourpuzzle.clue_of_line on random lines,
    # each with its own clue (fits) and with a changed one (fits only if the clue is the same)
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the web player's check runs in JavaScript)")
    from engine.model.colourpuzzle import MARK_SUFFIX, clue_of_line
    rng = np.random.default_rng(11)
    cases = []
    for _ in range(400):
        k = int(rng.integers(2, 4))
        values = [int(rng.integers(1, k + 1)) if rng.random() < 0.65 else 0 for _ in range(int(rng.integers(1, 9)))]
        other = [int(v) for v in rng.permutation(values)] if rng.random() < 0.5 else \
            [int(rng.integers(0, k + 1)) for _ in values]
        clue = [f"{n}{MARK_SUFFIX[m] if n else ''}" for n, m in clue_of_line(other, k, True)]
        cases.append((values, clue, clue_of_line(values, k, True) == clue_of_line(other, k, True)))
    js = ("import { parseColourClue, colourLineFits } from './web/src/data.js';"
          "const cases = JSON.parse(process.argv[1]);"
          "console.log(JSON.stringify(cases.map(([v, c]) => colourLineFits(parseColourClue(c, 'c', v.length, c.length), v))));")
    out = subprocess.run([node, "--input-type=module", "-e", js, json.dumps(cases)], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    got = json.loads(out)
    assert got == [want for _, _, want in cases]
    assert 50 < sum(got) < 350, "both fitting and failing lines should occur"
