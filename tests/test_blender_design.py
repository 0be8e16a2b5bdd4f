"""Designing in Blender: hidden clues on the object, in files and .blends."""
import json

import numpy as np
import pytest

from blender_support import (add_primitive, addon, addon_module, bpy, data_counts, instances_of,
                             point_attribute, reset_scene, run_op, set_mode)

pytestmark = pytest.mark.blender


def _random_nonogram(shape=(5, 4, 6), seed=3, density=0.55, hidden_fraction=0.3, name="rand"):
    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < density
    puzzle = addon_module("engine.model.clues").puzzle_from_grid(grid, name=name)
    hidden = rng.random(puzzle.n_lines) < hidden_fraction
    scene = addon_module("scene")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name=name, voxel_size=0.3)
    scene.set_hidden(obj, hidden)
    return obj, puzzle, hidden


def _label_count(obj):
    return sum(1 for o, m in instances_of(obj) if o.type == 'FONT')


def test_export_writes_hidden_clues_as_null_and_import_shows_them_hidden(addon, tmp_path):
    obj, full, hidden = _random_nonogram()
    scene = addon_module("scene")
    pf = addon_module("engine.files.puzzlefile")
    designed = scene.load_stored_puzzle(obj)
    assert np.array_equal(designed.clue_kind == 0, hidden)
    path = tmp_path / "designed.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    doc = json.loads(path.read_text())
    X, Y, Z = full.shape
    tables = [v for row in doc["x"] for v in row] + [v for row in doc["y"] for v in row] \
        + [v for row in doc["z"] for v in row]
    assert [v is None for v in tables] == hidden.tolist()
    assert doc["solution"]
    scene.set_view(obj, 'PLAYER')
    labels_before = _label_count(obj)
    assert labels_before == 2 * int((~hidden).sum())

    reset_scene()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path), voxel_size=0.3) == {'FINISHED'}
    new = bpy.context.active_object
    assert np.array_equal(scene.hidden_mask(new), hidden)
    # Every clue is known again (from the solution), so hidden ones can be shown.
    assert pf.puzzle_to_dict(scene.load_full_puzzle(new))["x"] == pf.puzzle_to_dict(full)["x"]
    assert pf.puzzle_to_dict(scene.load_stored_puzzle(new)) == pf.puzzle_to_dict(pf.load_puzzle(str(path)))
    assert len(new.nonogram.labels.data.vertices) == full.n_lines
    scene.set_view(new, 'PLAYER')
    assert _label_count(new) == labels_before
    # Exported again, the same file.
    again = tmp_path / "again.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(again)) == {'FINISHED'}
    assert json.loads(again.read_text())["x"] == doc["x"]


def test_import_without_a_solution_keeps_missing_clues_missing(addon, tmp_path):
    path = tmp_path / "nosol.json"
    path.write_text(json.dumps({"format": "nonogram", "version": 1, "shape": [2, 2, 1],
                                "x": [["1"], [None]], "y": [["1"], ["1"]], "z": [["1", "0"], [None, "1"]]}))
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    scene = addon_module("scene")
    assert not scene.hidden_mask(obj).any()
    assert len(obj.nonogram.labels.data.vertices) == 6  # only the lines with a clue


def test_hidden_clues_view_and_slices_survive_save_and_reload(addon, tmp_path):
    obj, full, hidden = _random_nonogram()
    scene = addon_module("scene")
    scene.set_view(obj, 'PLAYER')
    scene.set_slice(obj, 'Y', -1)
    name = obj.name
    labels = _label_count(obj)
    path = tmp_path / "designed.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    reset_scene()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    obj = bpy.data.objects[name]
    assert np.array_equal(scene.hidden_mask(obj), hidden)
    assert scene.current_view(obj) == 'PLAYER'
    assert scene.get_modifier_input(scene.player_modifier(obj), "Slice Y") == -1
    assert _label_count(obj) == labels


def test_make_keeps_the_source_out_of_renders_and_clear_restores_it(addon):
    src = add_primitive("uv_sphere", segments=16, ring_count=8)
    assert not src.hide_render
    bpy.context.scene.nonogram_settings.resolution = 5
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    assert src.hide_render  # the cubes have gaps: the source would show through them
    assert run_op(bpy.ops.nonogram.clear) == {'FINISHED'}
    assert not src.hide_render


# ---------------------------------------------------------------------------------------------
# editing by hand and the live check


def _engine_check(puzzle, logic="line"):
    """What the engine says of a puzzle, independently of the add-on: verdict, whether logic
    alone solves it, and the cells logic leaves undecided."""
    solve = addon_module("engine.solve.driver")
    rep = solve.solve(puzzle, method="full")
    levels = ("line",) if logic == "line" else ("line", "probe")
    state = rep.state
    if logic == "line":
        state = solve.solve(puzzle, method="brute").state
    undecided = state == 3
    undecided[rep.differing_cells] = True
    return rep.verdict, rep.verdict == "unique" and rep.difficulty in levels, undecided


def _select_points(labels, lines):
    """Select the clue points of ``lines`` and enter Edit Mode on the clue labels."""
    for ob in bpy.context.view_layer.objects:
        ob.select_set(ob == labels)
    bpy.context.view_layer.objects.active = labels
    line = point_attribute(labels, "line")
    labels.data.vertices.foreach_set("select", np.isin(line, lines))
    set_mode('EDIT')


def test_toggling_selected_clues_rechecks_as_the_engine_says(addon):
    obj, full, _ = _random_nonogram(hidden_fraction=0.0)
    scene = addon_module("scene")
    labels = obj.nonogram.labels
    # Hide the x- and y-lines: z alone cannot pin down the shape.
    X, Y, Z = full.shape
    picked = np.arange(Y * Z + X * Z)
    # The engine's answer first: it also compiles the solver, whose first compile (cold numba
    # cache) would otherwise eat the live check's bounded search.
    hide = addon_module("engine.model.puzzle").with_hidden
    verdict, solvable, undecided = _engine_check(hide(full, picked))
    _select_points(labels, picked)
    assert run_op(bpy.ops.nonogram.toggle_clues) == {'FINISHED'}
    assert labels.mode == 'EDIT'  # the designer stays where they were
    mask = scene.hidden_mask(obj)
    assert np.array_equal(np.flatnonzero(mask), picked)
    check = scene.load_check(obj)
    assert (check["verdict"], check["solvable"]) == (verdict, solvable) == ("multiple", False)
    assert check["undecided"] == int(undecided.sum()) > 0
    assert np.array_equal(point_attribute(obj, "highlight"), undecided)
    # Toggle the same points again: every clue shown, unique and solvable by line logic.
    assert run_op(bpy.ops.nonogram.toggle_clues) == {'FINISHED'}
    assert not scene.hidden_mask(obj).any()
    check = scene.load_check(obj)
    assert (check["verdict"], check["solvable"], check["undecided"]) == ("unique", True, 0)
    assert not point_attribute(obj, "highlight").any()
    # HIDE on points already hidden changes nothing but what is selected.
    assert run_op(bpy.ops.nonogram.toggle_clues, action='HIDE') == {'FINISHED'}
    assert run_op(bpy.ops.nonogram.toggle_clues, action='HIDE') == {'FINISHED'}
    assert np.array_equal(np.flatnonzero(scene.hidden_mask(obj)), picked)


def test_toggle_needs_edit_mode_and_a_selection(addon):
    obj, full, _ = _random_nonogram(hidden_fraction=0.0)
    with pytest.raises(RuntimeError, match="Edit Mode"):
        run_op(bpy.ops.nonogram.toggle_clues)
    _select_points(obj.nonogram.labels, [])
    assert run_op(bpy.ops.nonogram.toggle_clues) == {'CANCELLED'}


def test_the_live_check_runs_in_the_background_and_drops_stale_results(addon):
    import time
    obj, full, hidden = _random_nonogram(hidden_fraction=0.5)
    scene = addon_module("scene")
    live = addon_module("scene.live_check")
    live.request(obj, wait=False)
    first = scene.hidden_mask(obj)
    assert live.running(obj)
    # A change while it runs: only the check of the newest clues may land.
    second = first.copy()
    second[np.flatnonzero(~first)[:3]] = True
    # the engine's answer first (it compiles the solver on a cold numba cache, see above)
    verdict, solvable, undecided = _engine_check(
        addon_module("engine.model.puzzle").with_hidden(full, second))
    scene.set_hidden(obj, second)
    live.request(obj, wait=False)
    t0 = time.perf_counter()
    while live.running(obj) and time.perf_counter() - t0 < 30:
        time.sleep(0.02)
        live._poll()  # what the timer does (no event loop in background mode)
    check = scene.load_check(obj)
    assert check["mask"] == scene.mask_key(second) and not live.stale(obj)
    assert (check["verdict"], check["solvable"], check["undecided"]) == (verdict, solvable,
                                                                        int(undecided.sum()))


def test_pick_finds_the_clue_under_the_mouse_in_both_views(addon):
    from bpy_extras.view3d_utils import location_3d_to_region_2d
    from blender_support import view3d_override
    obj, full, hidden = _random_nonogram()
    scene = addon_module("scene")
    design = addon_module("operators.design")
    ov = view3d_override()
    region, rv3d = ov["region"], ov["area"].spaces.active.region_3d
    scene.set_clue_layer(obj, 'ALL', 0)  # every floating label (test_blender_views: one layer's)
    for view in ('DESIGNER', 'PLAYER'):
        scene.set_view(obj, view)
        bpy.context.view_layer.update()
        pos, normals, lines = scene.label_anchors(obj)
        n_expected = len(lines) if view == 'DESIGNER' else 2 * len(scene.clue_lines(obj))
        assert len(lines) == n_expected
        tried = 0
        for i in range(0, len(lines), 7):
            xy = location_3d_to_region_2d(region, rv3d, pos[i])
            if xy is None:
                continue
            got = design.pick_at(obj, region, rv3d, (xy.x, xy.y))
            if normals is not None:
                facing = np.dot(normals[i], pos[i] - np.array(rv3d.view_matrix.inverted().translation)) < 0
                if not facing:
                    assert got != lines[i] or np.sum(lines == lines[i]) > 1
                    continue
            assert got is not None
            # The label under the mouse, or one drawn at the same spot nearer the viewer.
            j = np.flatnonzero(lines == got)
            assert got == lines[i] or min(np.hypot(*(np.array(location_3d_to_region_2d(
                region, rv3d, pos[k])) - np.array(xy))) for k in j) <= 2.0
            tried += 1
        assert tried > 5
    # Clicking a blank (hidden) face in the player's view shows that clue again.
    line = int(np.flatnonzero(hidden)[0])
    assert design.toggle_line(obj, line) is False
    assert not scene.hidden_mask(obj)[line]
    assert design.pick_at(obj, region, rv3d, (-500.0, -500.0)) is None


def test_suggest_clue_shows_the_hidden_clue_that_settles_most_cells(addon):
    obj, full, _ = _random_nonogram(hidden_fraction=0.0)
    scene = addon_module("scene")
    rng = np.random.default_rng(5)
    mask = rng.random(full.n_lines) < 0.6
    scene.set_hidden(obj, mask)
    _, _, undecided = _engine_check(scene.load_stored_puzzle(obj))
    assert undecided.any()
    # Brute force over every hidden clue (not only those through undecided cells).
    hide = addon_module("engine.model.puzzle").with_hidden
    settled = {}
    for line in np.flatnonzero(mask):
        trial = mask.copy()
        trial[line] = False
        settled[int(line)] = int(undecided.sum()) - int(_engine_check(hide(full, trial))[2].sum())
    best = max(settled.values())
    assert best > 0
    assert run_op(bpy.ops.nonogram.suggest_clue, reveal=False) == {'FINISHED'}
    assert np.array_equal(scene.hidden_mask(obj), mask)  # only proposed
    labels = obj.nonogram.labels
    sel = np.zeros(len(labels.data.vertices), dtype=bool)
    labels.data.vertices.foreach_get("select", sel)
    proposed = point_attribute(labels, "line")[sel]
    assert len(proposed) == 1 and settled[int(proposed[0])] == best
    assert run_op(bpy.ops.nonogram.suggest_clue) == {'FINISHED'}
    now = scene.hidden_mask(obj)
    shown = np.flatnonzero(mask & ~now)
    assert len(shown) == 1 and settled[int(shown[0])] == best
    assert scene.load_check(obj)["undecided"] == int(undecided.sum()) - best


def test_design_and_view_panels_draw(addon):
    from test_blender_addon import _draw_all
    obj, full, hidden = _random_nonogram()
    log = _draw_all(addon)
    for op in ("nonogram.hide_clues", "nonogram.show_all_clues", "nonogram.pick_clues",
               "nonogram.suggest_clue", "nonogram.set_view"):
        assert ("operator", op) in log, op
    assert ("label", "Not checked yet: change a clue, or Hide Clues") in log
    addon_module("scene.live_check").request(obj)
    addon_module("scene").set_view(obj, 'PLAYER')
    log = _draw_all(addon)
    labels = [t for k, t in log if k == "label"]
    assert any(t.startswith("Undecided cells:") for t in labels)
    assert any(t.startswith("Unique:") for t in labels)
    inputs = [p for k, p in log if k == "prop_path" and p.startswith('modifiers["Nonogram Player"]')]
    assert len(inputs) == 6 and all("Socket_" in p for p in inputs), inputs  # slicers, sizes, highlight


# ---------------------------------------------------------------------------------------------
# Hide Clues


def test_hide_clues_equals_the_engines_design_for_the_same_seed(addon):
    obj, full, _ = _random_nonogram(shape=(6, 5, 7), seed=11, hidden_fraction=0.0)
    scene = addon_module("scene")
    opts = obj.nonogram.design_options
    opts.logic, opts.method, opts.seed = 'line', 'greedy', 7
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    want = addon_module("engine.design.hiding").design(scene.load_full_puzzle(obj), logic="line",
                                                method="greedy", seed=7, time_limit=20.0)
    got = scene.hidden_mask(obj)
    assert np.array_equal(got, want.hidden) and want.hidden_count > 0
    info = scene.load_design(obj)
    assert (info["hidden_count"], info["score"], info["band"], info["locally_minimal"]) == \
        (want.hidden_count, want.score, want.band, want.locally_minimal)
    assert info["options"] == {"logic": "line", "band": None, "method": "greedy", "seed": 7,
                               "time_limit": 120.0}
    # The live check agrees: unique, solvable by line logic, nothing undecided.
    check = scene.load_check(obj)
    assert (check["verdict"], check["solvable"], check["undecided"]) == ("unique", True, 0)
    verdict, solvable, _ = _engine_check(scene.load_stored_puzzle(obj))
    assert (verdict, solvable) == ("unique", True)
    # Another seed, another design; Show All Clues brings every clue back.
    opts.seed = 8
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    other = addon_module("engine.design.hiding").design(scene.load_full_puzzle(obj), logic="line",
                                                 method="greedy", seed=8, time_limit=20.0)
    assert np.array_equal(scene.hidden_mask(obj), other.hidden)
    assert run_op(bpy.ops.nonogram.show_all_clues) == {'FINISHED'}
    assert not scene.hidden_mask(obj).any() and scene.load_design(obj) is None


def test_hide_clues_reports_what_the_engine_refuses(addon, tmp_path):
    # A puzzle without its solution cannot be designed: a clear message, nothing changed.
    path = tmp_path / "nosol.json"
    path.write_text(json.dumps({"format": "nonogram", "version": 1, "shape": [2, 2, 1],
                                "x": [["1"], ["1"]], "y": [["1"], ["1"]], "z": [["1", "0"], ["0", "1"]]}))
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    with pytest.raises(RuntimeError, match="solution"):
        run_op(bpy.ops.nonogram.hide_clues)
    assert not addon_module("scene").hidden_mask(obj).any()


def test_hide_clues_reports_a_puzzle_logic_cannot_solve(addon, tmp_path):
    # Every line of a 2x2x2 cube holds one voxel in both halves of a checkerboard: with every
    # clue shown the puzzle has two solutions, so the engine's design refuses it in the job
    # (DesignError), and the operator reports its message as an error, changing nothing.
    grid = np.indices((2, 2, 2)).sum(axis=0) % 2 == 0
    puzzle = addon_module("engine.model.clues").puzzle_from_grid(grid, name="checker")
    path = tmp_path / "checker.json"
    path.write_text(json.dumps(addon_module("engine.files.puzzlefile").puzzle_to_dict(puzzle)))
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    # the engine's own words, not "Nonogram design failed: DesignError: ..."
    with pytest.raises(RuntimeError, match=r"^Error: even with every clue shown this puzzle is not solvable by line"):
        run_op(bpy.ops.nonogram.hide_clues)
    assert not addon_module("scene").hidden_mask(obj).any()


def test_hide_clues_runs_in_the_background_and_esc_leaves_the_scene_as_it_was(addon):
    import time
    from blender_support import Event, Recorder, drive_modal, operator_stand_in
    design_ops = addon_module("operators.design")
    assert 'UNDO' in design_ops.NONOGRAM_OT_hide_clues.bl_options  # one undo step when it lands
    scene = addon_module("scene")
    grid = addon_module("engine.voxel.blobs").blob_grid((14, 14, 14), seed=2, fill=0.4)
    puzzle = addon_module("engine.model.clues").puzzle_from_grid(grid, name="blob")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name="blob")
    before = scene.hidden_mask(obj).copy()
    opts = obj.nonogram.design_options
    opts.method, opts.time_limit = 'anneal', 30.0  # long enough to be cancelled
    # Compile first (what design() does before its timer on a cold numba cache): Esc is checked
    # between kernel calls, and a first compile is one long call.
    addon_module("engine.design.hiding").prepare()
    op = operator_stand_in(design_ops.NONOGRAM_OT_hide_clues)
    ctx = Recorder()
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    time.sleep(0.3)
    assert op.modal(ctx, Event('TIMER')) == {'PASS_THROUGH'}
    assert any(s and "design" in s and "Esc" in s for s in ctx.status)  # status-bar progress
    assert np.array_equal(scene.hidden_mask(obj), before)  # nothing changes while it runs
    t0 = time.perf_counter()
    assert drive_modal(op, ctx, [Event('ESC', value='PRESS')]) == {'CANCELLED'}
    assert time.perf_counter() - t0 < 2.0
    assert np.array_equal(scene.hidden_mask(obj), before)
    assert scene.load_design(obj) is None and scene.load_check(obj) is None
    assert any("cancelled" in msg for _, msg in op.reports)
    # Run to the end: the result lands in one go, in finish.
    opts.method = 'greedy'
    op = operator_stand_in(design_ops.NONOGRAM_OT_hide_clues)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    assert drive_modal(op, ctx, []) == {'FINISHED'}
    assert scene.hidden_mask(obj).sum() == scene.load_design(obj)["hidden_count"] > 0


def test_a_designed_puzzle_file_keeps_its_design_through_export_and_import(addon, tmp_path):
    obj, full, _ = _random_nonogram(shape=(6, 5, 7), seed=11, hidden_fraction=0.0)
    scene = addon_module("scene")
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    info = scene.load_design(obj)
    path = tmp_path / "designed.json"
    assert run_op(bpy.ops.nonogram.export_puzzle, filepath=str(path)) == {'FINISHED'}
    meta = json.loads(path.read_text())["meta"]["design"]
    assert (meta["hidden_count"], meta["score"], meta["band"]) == \
        (info["hidden_count"], info["score"], info["band"])
    mask = scene.hidden_mask(obj)
    reset_scene()
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    new = bpy.context.active_object
    assert np.array_equal(scene.hidden_mask(new), mask)
    assert scene.load_design(new)["score"] == info["score"]
    # A hand edit makes the design history: the next export does not claim it.
    line = int(np.flatnonzero(mask)[0])
    addon_module("operators.design").toggle_line(new, line)
    assert "design" not in scene.load_stored_puzzle(new).meta


def test_undo_brings_back_clues_and_the_check_follows(addon):
    """Headless Blender cannot undo, so restore the hidden clues the way undo does (the object's
    stored bits change behind our operators' back) and run the handler undo_post runs."""
    obj, full, hidden = _random_nonogram(hidden_fraction=0.0)
    scene = addon_module("scene")
    live = addon_module("scene.live_check")
    bpy.context.view_layer.objects.active = obj
    assert run_op(bpy.ops.nonogram.show_all_clues) == {'FINISHED'}
    assert scene.load_check(obj)["verdict"] == "unique"
    before = obj.nonogram.hidden
    mask = np.zeros(full.n_lines, dtype=bool)
    mask[: full.n_lines // 2] = True
    addon_module("operators.design").change_hidden(obj, mask)
    assert scene.load_check(obj)["verdict"] != "unique"
    obj.nonogram.hidden = before  # what undo restores
    assert live.stale(obj)
    live.recheck_after_undo(bpy.context.scene)
    assert not live.stale(obj) and scene.load_check(obj)["verdict"] == "unique"
    assert live.recheck_after_undo in bpy.app.handlers.undo_post


def test_suggest_and_repair_with_no_clue_hidden_say_so_and_change_nothing(addon):
    """With no clue hidden there is nothing to suggest or repair: the operators stop with a
    message and the clues stay as they are; with one hidden, the job gets the hidden clues."""
    obj, full, _ = _random_nonogram(hidden_fraction=0.0)
    scene = addon_module("scene")
    design_ops = addon_module("operators.design")
    reports = []

    class Op:
        def report(self, kind, msg):
            reports.append((set(kind), msg))
    assert design_ops._hidden_clue_session(Op(), obj, "suggest") is None
    assert reports == [({'INFO'}, "No clue is hidden: nothing to suggest")]
    for op in (bpy.ops.nonogram.suggest_clue, bpy.ops.nonogram.repair):
        assert run_op(op) == {'CANCELLED'}
        assert not scene.hidden_mask(obj).any()
    mask = np.zeros(full.n_lines, bool)
    mask[3] = True
    scene.set_hidden(obj, mask)
    hidden, sess, lock, logic = design_ops._hidden_clue_session(Op(), obj, "repair")
    assert np.array_equal(hidden, mask) and logic == obj.nonogram.design_options.logic
    assert len(reports) == 1
