"""A colour puzzle (issue #24) in the scene: Import Puzzle builds it with its colour clues stored,
and the player's block shows each clue as its numbers side by side, each in its puzzle colour
with its mark; checked instance by instance against the engine's clues."""
import numpy as np
import pytest

from blender_support import (addon, addon_module, bpy, data_counts, instances_of, point_attribute,  # noqa: F401
                             run_op, view3d_override)
from test_blender_player import _expected, _line_of

pytestmark = pytest.mark.blender

COLOURS = np.array([[1.0, 0.84, 0.0], [0.1, 0.3, 0.85]], dtype=np.float32)  # yellow, blue


def _colour_puzzle(tmp_path, shape=(4, 5, 3), seed=5, hidden_fraction=0.3):
    """A random two-colour puzzle with some clues hidden, written to a file."""
    cp = addon_module("engine.model.colourpuzzle")
    rng = np.random.default_rng(seed)
    grid = np.where(rng.random(shape) < 0.6, rng.integers(1, 3, shape), 0)
    full = cp.colour_puzzle_from_grid(grid, 2, COLOURS, "col")
    hidden = rng.random(full.n_lines) < hidden_fraction
    designed = cp.with_hidden(full, hidden)
    path = tmp_path / "col.json"
    addon_module("engine.files.puzzlefile").save_puzzle(designed, str(path))
    return path, full, hidden


def _text(clue) -> str:
    """The glyph's name for a colour clue: ``<count><mark>c<colour>`` per colour in the line."""
    parts = [f"{n}{('', 'o', 's')[m]}c{c}" for c, (n, m) in enumerate(clue, start=1) if n]
    return " ".join(parts) or "0c0"


def _labels(obj, shape, cube_size):
    """{(line, end): (glyph object, cell)} of the player's face labels."""
    player = addon_module("scene.player")
    inv = obj.matrix_world.inverted()
    out = {}
    for ob, m in instances_of(obj):
        if " glyph " not in ob.name:
            assert " outline " not in ob.name  # a colour clue's glyph draws its own marks
            continue
        local = inv @ m
        normal = np.array(local.to_3x3().col[2])
        normal /= np.linalg.norm(normal)
        axis = int(np.argmax(np.abs(normal)))
        end = 1 if normal[axis] > 0 else -1
        lift = player.LABEL_LIFT + (player.TOP_LIFT if (axis, end) == (2, 1) else 0.0)
        cell = np.floor(np.array(local.translation) - np.eye(3)[axis] * end * (cube_size / 2 + lift))
        key = (_line_of(shape, axis, cell.astype(int)), end)
        assert key not in out
        out[key] = (ob, tuple(cell.astype(int)))
    return out


def test_import_shows_colour_clues_in_their_colours(addon, tmp_path):
    path, full, hidden = _colour_puzzle(tmp_path)
    before = data_counts()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    scene = addon_module("scene")
    obj = bpy.context.active_object
    stored = scene.load_full_puzzle(obj)
    cp = addon_module("engine.model.colourpuzzle")
    assert isinstance(stored, cp.ColourPuzzle) and stored.k == 2
    assert stored.clues() == full.clues()  # the full clues, the hidden ones held back
    assert scene.hidden_mask(obj).tolist() == (hidden & (full.clue_kind != 0)).tolist()
    player_puzzle = scene.load_stored_puzzle(obj)
    assert [c is None for c in player_puzzle.clues()] == hidden.tolist()

    assert run_op(bpy.ops.nonogram.set_view, view='PLAYER') == {'FINISHED'}
    cube = scene.get_modifier_input(scene.player_modifier(obj), "Cube Size")
    labels = _labels(obj, full.shape, cube)
    want = _expected(full, hidden, np.zeros(3, int), np.array(full.shape) - 1)
    assert set(labels) == set(want) and labels
    glyphs = addon_module("scene.glyphs")
    inks = glyphs.ink_colours(stored.clue_colours)  # as written: 8 bits a channel
    # the inks are the engine's legible inks, the web page's: the player's view and the page agree
    ink_mod = addon_module("engine.colour.inks")
    srgb = ink_mod.choose_inks(stored.clue_colours)
    cs = addon_module("engine.colour.colourspace")
    assert np.allclose(inks, cs.srgb_to_linear(srgb), atol=1e-9) and ink_mod.legible(srgb)
    page = addon_module("engine.play.webpage").page_data(stored)
    assert page["inks"] == cs.to_hex(srgb)
    # over the designer's dark background the other way: lightened towards white, hue kept
    dark = np.array([[0.0, 0.0, 0.0], [0.02, 0.0, 0.3], [1.0, 0.6, 0.0]])
    light = glyphs.floating_colours(dark)
    lum = light @ np.array([0.2126, 0.7152, 0.0722])
    assert (lum >= glyphs.FLOATING_MIN_LUMINANCE - 1e-9).all() and np.array_equal(light[2], dark[2])
    assert light[1, 2] > light[1, 0] and light[0, 0] == light[0, 1] == light[0, 2]
    two = 0
    for (line, end), (ob, cell) in labels.items():
        assert cell == want[(line, end)]
        clue = full.clue(line)
        assert ob.name.endswith(" " + _text(clue)), (ob.name, clue)
        used = [c for c, (n, _) in enumerate(clue, start=1) if n]
        slots = [m.diffuse_color[:3] for m in ob.data.materials]
        assert len(slots) == max(len(used), 1)
        for c, ink in zip(used, slots):
            assert np.allclose(ink, inks[c - 1], atol=1e-4)  # each number in its colour
        mat_index = np.empty(len(ob.data.polygons), dtype=np.int32)
        ob.data.polygons.foreach_get("material_index", mat_index)
        assert set(mat_index.tolist()) == set(range(len(slots)))
        co = np.empty(len(ob.data.vertices) * 3)
        ob.data.vertices.foreach_get("co", co)
        width = np.ptp(co.reshape(-1, 3)[:, 0])
        assert width <= glyphs.COLOUR_CLUE_WIDTH + 1e-6  # side by side, within one face
        two += len(used) == 2
    assert two > 0  # the test needs two-colour clues

    assert run_op(bpy.ops.nonogram.clear) == {'FINISHED'}
    assert data_counts() == before  # no temporary text object or mesh left behind


@pytest.mark.parametrize("hidden_fraction, verdict", [(0.0, "unique"), (0.6, "multiple")])
def test_solve_gives_the_solvers_verdict_on_a_colour_puzzle(addon, tmp_path, hidden_fraction, verdict):
    """Solve on a colour puzzle: the engine's one solver's verdict stored and reported with its
    idle line solves (the Solve panel's third figure), the cells it decided shown as known (a cell
    whose colour is still open but not empty counts as filled)."""
    path, full, hidden = _colour_puzzle(tmp_path, seed=2, hidden_fraction=hidden_fraction)
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    scene = addon_module("scene")
    player_puzzle = scene.load_stored_puzzle(obj)
    want = addon_module("engine.solve.driver").solve(player_puzzle, time_limit=60.0)
    report = scene.load_stored_report(obj)
    assert report["verdict"] == want.verdict and report["kind"] == "colour" and report["colours"] == full.k
    assert want.verdict == verdict  # the test covers both: every cell known, and some not
    assert report["linesolvers"] == want.linesolvers
    assert report["bad_guess_rate"] == want.bad_guess_rate > 0  # the panel's idle share, no longer 0
    state = point_attribute(obj, "state")
    common = addon_module("scene.common")
    if want.verdict == "unique":
        sol = np.asarray(want.solutions[0])
        assert (state == np.where(sol > 0, common.FILLED, common.EMPTY)).all()
    else:
        assert (state == np.asarray(want.state)).all()
        assert (state == common.UNKNOWN).any()


def test_hide_clues_runs_the_colour_design(addon, tmp_path):
    """Hide Clues on a colour puzzle: the colour designer's mask for the same seed and logic, its
    proof stored as the check, and the player's puzzle still unique by logic; a colour puzzle
    that logic cannot solve with every clue is refused with the designer's message."""
    path, full, _ = _colour_puzzle(tmp_path, seed=2, hidden_fraction=0.0)
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    scene = addon_module("scene")
    opts = obj.nonogram.design_options
    opts.logic, opts.method, opts.seed = 'line', 'greedy', 4
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    want = addon_module("engine.design.hiding").design(scene.load_full_puzzle(obj), logic="line", seed=4)
    got = scene.hidden_mask(obj)
    assert got.tolist() == (want.puzzle.clue_kind == 0).tolist() and want.hidden_count > 0
    info = scene.load_design(obj)
    # the keys the Design panel reads ("Hidden: N of M clues"), the same for every kind
    assert (info["hidden_count"], info["lines"], info["score"], info["band"]) == \
        (want.hidden_count, want.n_lines, want.score, want.band)
    assert info["kind"] == "colour"
    check = scene.load_check(obj)
    assert (check["verdict"], check["solvable"], check["undecided"]) == ("unique", True, 0)
    played = scene.load_stored_puzzle(obj)
    report = addon_module("engine.solve.driver").solve(played)
    assert (report.verdict, report.difficulty) == ("unique", "line")
    # the labels follow: the player's faces show exactly the shown clues
    assert run_op(bpy.ops.nonogram.set_view, view='PLAYER') == {'FINISHED'}
    cube = scene.get_modifier_input(scene.player_modifier(obj), "Cube Size")
    labels = _labels(obj, full.shape, cube)
    assert set(labels) == set(_expected(full, got, np.zeros(3, int), np.array(full.shape) - 1))

    cp = addon_module("engine.model.colourpuzzle")
    # every line holds one cell, as in the other parity's cells: two solutions
    parity = (np.indices((2, 2, 2)).sum(axis=0) % 2 == 0).astype(int)
    two_ways = cp.colour_puzzle_from_grid(parity, 1, COLOURS[:1], "two")
    path = tmp_path / "two.json"
    addon_module("engine.files.puzzlefile").save_puzzle(two_ways, str(path))
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    with pytest.raises(RuntimeError, match="not solvable by line logic"):
        run_op(bpy.ops.nonogram.hide_clues)
    assert not scene.hidden_mask(bpy.context.active_object).any()


def test_make_with_puzzle_colours(addon):
    """Make's Puzzle Colours (an operator property, so in Adjust Last Operation and presets):
    the nonogram holds the colour puzzle grouping the reveal's colours, as the engine groups
    them; fewer Colours than Puzzle Colours is refused with the reason."""
    import json
    from test_blender_colours import six_colour_cube
    cube = six_colour_cube()
    with pytest.raises(RuntimeError, match="set Colours to 3 or more"):
        run_op(bpy.ops.nonogram.make, resolution=5, colours=2, puzzle_colours=3)
    assert run_op(bpy.ops.nonogram.make, resolution=5, colours=8, puzzle_colours=3) == {'FINISHED'}
    # an operator property (its redo panel draws MakeOptions.draw_options) and a panel setting
    assert bpy.ops.nonogram.make.get_rna_type().properties["puzzle_colours"].default == 1
    assert bpy.context.scene.nonogram_settings.puzzle_colours == 1  # the panel's left as it was
    scene = addon_module("scene")
    obj = scene.nonogram_of(bpy.context.active_object)
    stored = scene.load_full_puzzle(obj)
    cp = addon_module("engine.model.colourpuzzle")
    assert isinstance(stored, cp.ColourPuzzle) and stored.k == 3
    # the same cube made black-and-white with its reveal colours, grouped by the engine
    plain = scene.make_nonogram(bpy.context, cube, resolution=5, colours=8)[0]
    want = addon_module("engine.colour.groups").colour_puzzle_from_reveal(scene.load_full_puzzle(plain), 3)
    assert stored.colour_solution.tolist() == want.colour_solution.tolist()
    assert stored.clues() == want.clues() and set(stored.colour_solution.tolist()) == {1, 2, 3}  # a solid cube
    info = json.loads(obj.nonogram.make_info)
    assert info["puzzle_colours"] == 3 and len(info["clue_colours"]) == 3 and len(info["palette"]) == 6


def test_hide_clues_with_puzzle_colours_turns_a_nonogram_into_a_colour_puzzle(addon):
    """The Design panel's Puzzle Colours: Hide Clues on a black-and-white nonogram with reveal
    colours makes it the colour puzzle of that many groups (the engine's grouping), its labels
    the colour glyphs, then designs it; without reveal colours it is refused with the reason."""
    from test_blender_colours import six_colour_cube
    cube = six_colour_cube()
    scene = addon_module("scene")
    plain = scene.make_nonogram(bpy.context, cube, resolution=4, colours=1)[0]
    plain.nonogram.design_options.puzzle_colours = 2
    with pytest.raises(RuntimeError, match="Make it with Colours 2 or more"):
        run_op(bpy.ops.nonogram.hide_clues)
    assert "clue_colours" not in plain.nonogram.puzzle
    before = data_counts()
    obj = scene.make_nonogram(bpy.context, cube, resolution=4, colours=8)[0]
    bw = scene.load_full_puzzle(obj)
    opts = obj.nonogram.design_options
    opts.puzzle_colours, opts.seed = 2, 3
    bpy.context.view_layer.objects.active = obj
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    stored = scene.load_full_puzzle(obj)
    want = addon_module("engine.colour.groups").colour_puzzle_from_reveal(bw, 2)
    assert stored.k == 2 and stored.clues() == want.clues()
    design = addon_module("engine.design.hiding").design(want, logic="line", seed=3)
    assert scene.hidden_mask(obj).tolist() == (design.puzzle.clue_kind == 0).tolist()
    assert scene.load_check(obj)["verdict"] == "unique"
    names = [o.name for o in obj.nonogram.glyphs.objects]
    assert names and all(o.type == 'MESH' for o in obj.nonogram.glyphs.objects)
    assert any("c2" in n for n in names) and any("c1" in n for n in names)
    # the player's faces show the colour glyphs of exactly the shown clues
    assert run_op(bpy.ops.nonogram.set_view, view='PLAYER') == {'FINISHED'}
    cube_size = scene.get_modifier_input(scene.player_modifier(obj), "Cube Size")
    labels = _labels(obj, stored.shape, cube_size)
    hidden = scene.hidden_mask(obj)
    assert set(labels) == set(_expected(stored, hidden, np.zeros(3, int), np.array(stored.shape) - 1))
    for (line, _end), (ob, _cell) in labels.items():
        assert ob.name.endswith(" " + _text(stored.clue(line)))
    # the old black-and-white glyphs (text curves) are gone with their collections
    after = data_counts()
    assert after["curves"] == before["curves"]
    assert after["collections"] == before["collections"] + 3  # the nonogram's, its two libraries


def test_black_and_white_tools_say_why_they_are_off(addon, tmp_path):
    """Compare is for black-and-white puzzles: on a colour puzzle its button is greyed with the
    reason (its poll), not an error later. (Merge Colours works on both:
    tests/test_blender_colour_palette.py; Suggest Clue and Repair too: the test below.)"""
    path, _, _ = _colour_puzzle(tmp_path, hidden_fraction=0.0)
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    polls = addon_module("scene.polls")
    assert "is a colour puzzle" in polls.black_and_white(bpy.context)
    for name in ("compare",):
        cls = getattr(bpy.types, f"NONOGRAM_OT_{name}")
        assert polls.black_and_white in cls.checks, name
        with bpy.context.temp_override(**view3d_override()):
            assert not getattr(bpy.ops.nonogram, name).poll(), name
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}  # Solve and Hide Clues stay on


def test_suggest_clue_and_repair_work_on_colour_puzzles(addon, tmp_path):
    """Suggest Clue and Repair on a hand-broken colour design: their polls let them run, Suggest
    shows the hidden clue that settles the most undecided cells (brute force over every hidden
    clue with the colour solver), Repair shows the engine's fewest clues at once, each one
    change of the hidden clues (one undo step) with the live check after."""
    path, full, _ = _colour_puzzle(tmp_path, shape=(5, 4, 4), seed=7, hidden_fraction=0.0)
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    scene = addon_module("scene")
    design_ops = addon_module("operators.design")
    cp = addon_module("engine.model.colourpuzzle")
    solve = addon_module("engine.solve.driver").solve
    for name in ("suggest_clue", "repair"):
        cls = getattr(bpy.types, f"NONOGRAM_OT_{name}")
        assert cls.bl_options >= {'REGISTER', 'UNDO'}
        with bpy.context.temp_override(**view3d_override()):
            assert getattr(bpy.ops.nonogram, name).poll(), name
    obj.nonogram.design_options.logic = 'line'

    def undecided(mask):
        return int((solve(cp.with_hidden(full, mask), probing=False).values < 0).sum())
    rng = np.random.default_rng(1)
    broken = rng.random(full.n_lines) < 0.7
    assert undecided(broken) > 0
    design_ops.change_hidden(obj, broken)
    assert not scene.load_check(obj)["solvable"]
    settled = {}
    for line in np.flatnonzero(broken):
        trial = broken.copy()
        trial[line] = False
        settled[int(line)] = undecided(broken) - undecided(trial)
    best = max(settled.values())
    assert best > 0
    assert run_op(bpy.ops.nonogram.suggest_clue) == {'FINISHED'}
    shown = np.flatnonzero(broken & ~scene.hidden_mask(obj))
    assert len(shown) == 1 and settled[int(shown[0])] == best
    assert scene.load_check(obj)["undecided"] == undecided(broken) - best  # the live check followed
    design_ops.change_hidden(obj, broken)
    want = addon_module("engine.design.session").DesignSession(full).repair(broken, "line")
    assert want.lines
    assert run_op(bpy.ops.nonogram.repair) == {'FINISHED'}
    now = scene.hidden_mask(obj)
    assert np.array_equal(np.flatnonzero(broken & ~now), sorted(want.lines))
    check = scene.load_check(obj)
    assert (check["verdict"], check["solvable"], check["undecided"]) == ("unique", True, 0)
    assert run_op(bpy.ops.nonogram.repair) == {'CANCELLED'}  # nothing left to repair
    assert np.array_equal(scene.hidden_mask(obj), now)


def test_hand_edits_of_a_colour_puzzle_are_checked_again(addon, tmp_path):
    """Toggling clues of a colour puzzle (``change_hidden``, as Toggle and Pick Clues do) runs
    the live check: the stored verdict, solvability and undecided cells are the solver's on the
    puzzle as the player gets it (its logic's state, probing or not), for each logic level."""
    path, full, _ = _colour_puzzle(tmp_path, seed=3, hidden_fraction=0.0)
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    scene = addon_module("scene")
    design = addon_module("operators.design")
    cp = addon_module("engine.model.colourpuzzle")
    solve = addon_module("engine.solve.driver").solve
    rng = np.random.default_rng(0)
    seen = set()
    for fraction in (0.2, 0.5, 0.8):
        for logic in ('line', 'probe'):
            mask = rng.random(full.n_lines) < fraction
            obj.nonogram.design_options.logic = logic
            assert design.change_hidden(obj, mask) == int(mask.sum())
            check = scene.load_check(obj)
            rep = solve(cp.with_hidden(full, mask), time_limit=1.0, probing=logic == 'probe')
            undecided = int((rep.values < 0).sum())
            solvable = rep.difficulty in (('line',) if logic == 'line' else ('line', 'probe'))
            assert (check["verdict"], check["solvable"], check["undecided"]) == (rep.verdict, solvable,
                                                                                  undecided)
            assert check["hidden_count"] == int(mask.sum()) and check["mask"] == scene.mask_key(mask)
            assert not scene.live_check.stale(obj)
            seen.add((check["verdict"], check["solvable"]))
    assert len(seen) > 1  # the masks gave more than one kind of answer


def test_a_colour_puzzles_hidden_clues_reach_its_jobs_and_none_hidden_stops_them(addon, tmp_path):
    """Suggest Clue and Repair on a colour puzzle start from its full puzzle and hidden clues;
    with none hidden they stop with a message."""
    path, full, hidden = _colour_puzzle(tmp_path, shape=(4, 4, 3), seed=3, hidden_fraction=0.3)
    assert hidden.any()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    design_ops = addon_module("operators.design")
    reports = []

    class Op:
        def report(self, kind, msg):
            reports.append((set(kind), msg))
    got_hidden, sess, _lock, logic = design_ops._hidden_clue_session(Op(), obj, "repair")
    assert np.array_equal(got_hidden, hidden) and sess.full.k == full.k and sess.kind == "colour"
    assert np.array_equal(sess.full.solution, full.solution) and reports == []
    design_ops.change_hidden(obj, np.zeros(full.n_lines, bool))
    assert design_ops._hidden_clue_session(Op(), obj, "repair") is None
    assert reports == [({'INFO'}, "No clue is hidden: nothing to repair")]


def test_import_puzzle_refuses_a_damaged_reveal_with_a_message(addon, tmp_path):
    """A colour puzzle file whose reveal ``colours`` string is damaged: Import Puzzle reports the
    reader's message (the key and the cell), no traceback, and builds nothing."""
    import json
    path, full, _ = _colour_puzzle(tmp_path, seed=2, hidden_fraction=0.0)
    d = json.loads(path.read_text())
    d["palette"] = ["#102030", "#405060"]
    d["colours"] = "".join(".." if v == 0 else f"{(v - 1) % 2:02x}" for v in full.colour_solution)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(d))
    d["colours"] = d["colours"][:-2] + "zz"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"'colours' cell \d+ is 'zz'") as err:
        run_op(bpy.ops.nonogram.import_puzzle, filepath=str(bad))
    assert "Traceback" not in str(err.value) and len(bpy.data.objects) == before
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(good)) == {'FINISHED'}
