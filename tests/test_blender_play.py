"""Export Puzzle's "Playable page (.html)" and the Design panel's Play in Browser (with the
browser opener patched out): the page written carries the puzzle as the player gets it."""
import json
import re
import webbrowser
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest

from blender_support import add_primitive, addon, addon_module, bpy, run_op  # noqa: F401 (fixture)

pytestmark = pytest.mark.blender


def _designed(res=6):
    add_primitive("monkey")
    bpy.context.scene.nonogram_settings.resolution = res
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    obj = bpy.context.active_object
    scene = addon_module("scene")
    n = scene.load_full_puzzle(obj).n_lines
    hidden = np.zeros(n, bool)
    hidden[::3] = True
    scene.set_hidden(obj, hidden)
    return obj, scene


def _page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'type="application/json">(.*?)</script>', text, re.S).group(1))


def _check_page(path: Path, obj, scene):
    pf = addon_module("engine.files.puzzlefile")
    want = pf.puzzle_to_dict(scene.load_stored_puzzle(obj))
    d = _page_data(path)
    assert d["shape"] == want["shape"]
    assert (d["x"], d["y"], d["z"]) == (want["x"], want["y"], want["z"])
    assert any(c is None for row in d["x"] for c in row)  # the hidden clues stay hidden
    assert d["info"]["hidden"] == sum(c is None for t in "xyz" for row in d[t] for c in row)
    assert want["solution"] not in path.read_text(encoding="utf-8")


def _player_built():
    web = addon_module("engine.play.webpage")
    try:
        web.template_text()
    except web.WebPageError as e:
        pytest.skip(str(e))


def test_export_puzzle_writes_a_playable_page(addon, tmp_path):
    _player_built()
    obj, scene = _designed()
    path = tmp_path / "monkey.html"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path), file_format='HTML') == {'FINISHED'}
    _check_page(path, obj, scene)
    # the JSON export is unchanged
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(tmp_path / "m.json")) == {'FINISHED'}
    assert json.loads((tmp_path / "m.json").read_text())["format"] == "nonogram"


def test_play_in_browser_writes_the_page_and_opens_it(addon, monkeypatch):
    _player_built()
    obj, scene = _designed()
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    assert run_op(bpy.ops.nonogram.play_in_browser) == {'FINISHED'}
    assert len(opened) == 1 and opened[0].startswith("file://")
    path = Path(unquote(urlparse(opened[0]).path))
    assert path == Path(addon_module("operators.play").page_path(obj))
    _check_page(path, obj, scene)


def test_an_unbuilt_player_is_reported_not_a_crash(addon, tmp_path, monkeypatch):
    web = addon_module("engine.play.webpage")
    monkeypatch.setattr(web, "TEMPLATE_PATH", str(tmp_path / "absent.html"))
    _designed(res=4)
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    with pytest.raises(RuntimeError, match="npm ci && npm run build"):
        run_op(bpy.ops.nonogram.play_in_browser)
    with pytest.raises(RuntimeError, match="not been built"):
        run_op(bpy.ops.nonogram.export_puzzle, filepath=str(tmp_path / "x.html"), file_format='HTML')
    assert not opened and not (tmp_path / "x.html").exists()


def test_a_colour_puzzle_exports_and_plays_with_its_colour_clues(addon, tmp_path, monkeypatch):
    """A colour puzzle (imported from its file) through Export Puzzle .html and Play in Browser:
    the page carries its clues per colour, its clue colours and its hidden lines."""
    _player_built()
    cp = addon_module("engine.model.colourpuzzle")
    pf = addon_module("engine.files.puzzlefile")
    rng = np.random.default_rng(4)
    grid = np.where(rng.random((4, 5, 3)) < 0.6, rng.integers(1, 3, (4, 5, 3)), 0)
    full = cp.colour_puzzle_from_grid(grid, 2, np.array([[0.8, 0.1, 0.1], [0.1, 0.2, 0.8]]), "col")
    hidden = rng.random(full.n_lines) < 0.3
    src = tmp_path / "col.json"
    pf.save_puzzle(cp.with_hidden(full, hidden), str(src))
    want = json.loads(src.read_text())
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(src)) == {'FINISHED'}
    path = tmp_path / "col.html"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path), file_format='HTML') == {'FINISHED'}
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    assert run_op(bpy.ops.nonogram.play_in_browser) == {'FINISHED'}
    played = Path(unquote(urlparse(opened[0]).path))
    for page in (path, played):
        d = _page_data(page)
        assert d["clue_colours"] == want["clue_colours"] and d["shape"] == want["shape"]
        assert (d["x"], d["y"], d["z"]) == (want["x"], want["y"], want["z"])
        assert d["info"]["hidden"] == int(hidden.sum())
