"""A colour puzzle's palette edited in the scene (issues #23/#24): changing an entry re-inks the
clue glyphs and the cubes and keeps the design; merging entries of two puzzle colours changes
the clues, keeps the hidden clues, checks them again and marks the design stale; the Design
panel's Puzzle Colours and Regroup Colours regroup a puzzle that is already a colour puzzle."""
import numpy as np
import pytest

from blender_support import addon, addon_module, bpy, run_op  # noqa: F401

pytestmark = pytest.mark.blender

# the reveal palette: two yellows (puzzle colour 1) and two blues (puzzle colour 2)
PALETTE = np.array([[1.0, 0.85, 0.0], [1.0, 0.7, 0.0], [0.1, 0.3, 0.9], [0.05, 0.1, 0.4]],
                   dtype=np.float32)
GROUPS = [1, 1, 2, 2]


def _import(tmp_path, seed=2, shape=(4, 5, 3)):
    """A full-clue two-colour puzzle whose file keeps its reveal palette and grouping, imported."""
    clues = addon_module("engine.model.clues")
    cg = addon_module("engine.colour.groups")
    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < 0.7
    bw = clues.puzzle_from_grid(grid, name="pal")
    bw.palette = addon_module("engine.colour.colourspace").quantize_srgb(PALETTE)
    bw.colours = rng.integers(0, 4, bw.n_cells).astype(np.uint8)
    full = cg.colour_puzzle_from_reveal(bw, 2, GROUPS, "pal")
    path = tmp_path / "pal.json"
    addon_module("engine.files.puzzlefile").save_puzzle(full, str(path))
    assert run_op(bpy.ops.nonogram.import_puzzle, filepath=str(path)) == {'FINISHED'}
    obj = bpy.context.active_object
    # some clues hidden by hand (as Pick Clues does: checked in place), and a design said so
    scene = addon_module("scene")
    mask = rng.random(full.n_lines) < 0.3
    addon_module("operators.design").change_hidden(obj, mask)
    scene.store_design(obj, {"hidden_count": int(mask.sum()), "lines": full.n_lines,
                             "method": "greedy", "seed": 0})
    return obj, bw.colours.astype(np.int64)


def _glyph_inks(obj) -> set:
    out = set()
    for ob in obj.nonogram.glyphs.objects:
        for mat in ob.data.materials:
            out.add(tuple(round(float(v), 4) for v in mat.diffuse_color[:3]))
    return out


def _inks(clue_colours) -> list:
    return addon_module("scene.glyphs").ink_colours(clue_colours).tolist()


def _inked(inks, glyph_inks) -> bool:
    """Whether every ink is a glyph material's (to the 8 bits a stored colour keeps)."""
    return all(any(np.abs(np.subtract(i, g)).max() < 0.01 for g in glyph_inks) for i in inks)


def _cube_colours(obj):
    scene = addon_module("scene")
    mesh = scene.cells_mesh(obj)
    rgba = np.empty(len(mesh.vertices) * 4, np.float32)
    mesh.attributes["reveal_colour"].data.foreach_get("color", rgba)
    return rgba.reshape(-1, 4)[:, :3]


def test_changing_a_palette_entry_reinks_the_clues_and_keeps_the_design(addon, tmp_path):
    obj, _ = _import(tmp_path)
    scene = addon_module("scene")
    cs = addon_module("engine.colour.colourspace")
    before = scene.load_full_puzzle(obj)
    mask, design = scene.hidden_mask(obj), scene.load_design(obj)
    assert mask.any() and design
    pg = obj.nonogram
    # the panel lists the reveal's entries, each with its puzzle colour
    assert len(pg.palette) == 4 and [e.group for e in pg.palette] == GROUPS
    assert _inked(_inks(before.clue_colours), _glyph_inks(obj))
    pg.palette[2].colour = (0.9, 0.1, 0.1)  # a blue made red: the update callback
    after = scene.load_full_puzzle(obj)
    assert after.clues() == before.clues() and after.colour_groups == GROUPS
    assert np.array_equal(after.colour_solution, before.colour_solution)
    assert np.allclose(after.clue_colours[0], before.clue_colours[0])
    assert after.clue_colours[1][0] > before.clue_colours[1][0] + 0.2  # redder
    assert _inked(_inks(after.clue_colours), _glyph_inks(obj))  # the clue numbers re-inked
    assert not _inked(_inks(before.clue_colours[1:]), _glyph_inks(obj))
    sol = after.colour_solution.astype(np.int64)
    want = cs.srgb_to_linear(np.asarray(after.clue_colours, np.float64))[np.maximum(sol - 1, 0)]
    assert np.allclose(_cube_colours(obj)[sol > 0], want[sol > 0], atol=1e-4)  # the cubes too
    assert np.array_equal(scene.hidden_mask(obj), mask)
    kept = scene.load_design(obj)
    assert not kept.get("stale") and kept["hidden_count"] == design["hidden_count"]
    assert "design" in scene.load_stored_puzzle(obj).meta  # still what the design made


def _orphan_inks() -> list:
    tag = addon_module("scene.common").TAG
    return [m.name for m in bpy.data.materials if m.get(tag) is not None and m.users == 0]


def test_a_palette_drag_reinks_the_glyphs_in_place(addon, tmp_path):
    """Every step of a colour picker's drag re-inks the clue glyphs the puzzle has (the same
    objects: building the library again took 0.5-1 s at 24^3) and leaves no unused ink behind;
    a library without the glyphs' indices (an older file's) is built anew, and inked the same."""
    obj, _ = _import(tmp_path)
    scene = addon_module("scene")
    glyph_index = addon_module("scene.glyphs").GLYPH_INDEX
    objects = {o.name: o.as_pointer() for o in obj.nonogram.glyphs.objects}
    unused = set(_orphan_inks())  # the default ink, made for zero clues, when no clue is zero
    assert all(isinstance(o.get(glyph_index), int) for o in obj.nonogram.glyphs.objects)
    for step in range(4):
        obj.nonogram.palette[2].colour = (0.9, 0.1 + 0.1 * step, 0.1)
        assert {o.name: o.as_pointer() for o in obj.nonogram.glyphs.objects} == objects
        assert _inked(_inks(scene.load_full_puzzle(obj).clue_colours), _glyph_inks(obj))
        assert set(_orphan_inks()) <= unused
    # an older library: no indices on its glyphs, so it is built again
    for o in obj.nonogram.glyphs.objects:
        del o[glyph_index]
    obj.nonogram.palette[0].colour = (0.2, 0.8, 0.2)
    full = scene.load_full_puzzle(obj)
    assert {o.name for o in obj.nonogram.glyphs.objects} != set(objects)
    assert all(isinstance(o.get(glyph_index), int) for o in obj.nonogram.glyphs.objects)
    assert _inked(_inks(full.clue_colours), _glyph_inks(obj))
    assert not _inked(_inks(full.clue_colours[:1]), _inks([(1.0, 0.85, 0.0)]))  # it is another ink


def test_merging_two_puzzle_colours_changes_the_clues_keeps_the_hidden_and_checks(addon, tmp_path):
    obj, reveal = _import(tmp_path)
    scene = addon_module("scene")
    cp = addon_module("engine.model.colourpuzzle")
    solve = addon_module("engine.solve.driver").solve
    before = scene.load_full_puzzle(obj)
    mask = scene.hidden_mask(obj)
    # the blue (puzzle colour 2) merged into the yellow: its cells turn puzzle colour 1
    obj.nonogram.check = ""  # what the merge's check leaves is new
    assert run_op(bpy.ops.nonogram.merge_colours, keep=1, drop=3) == {'FINISHED'}
    after = scene.load_full_puzzle(obj)
    filled = before.colour_solution > 0
    want = np.where(filled, np.where(reveal == 3, 2, 1), 0)  # only the navy stays colour 2
    assert after.k == 2 and after.colour_groups == [1, 1, 2]
    assert np.array_equal(after.colour_solution, want)
    assert after.clues() == cp.colour_puzzle_from_grid(want.reshape(after.grid_shape()), 2).clues()
    assert after.clues() != before.clues()
    assert [e.group for e in obj.nonogram.palette] == [1, 1, 2]
    assert np.array_equal(scene.hidden_mask(obj), mask)  # the hidden clues kept
    design = scene.load_design(obj)
    assert "merged into colour 1" in design["stale"] and "lines changed" in design["stale"]
    assert "design" not in scene.load_stored_puzzle(obj).meta  # no longer claimed
    check = scene.load_check(obj)  # checked again, on the new clues
    rep = solve(cp.with_hidden(after, mask), time_limit=120.0, grade=True)
    assert check["verdict"] == rep.verdict and check["mask"] == scene.mask_key(mask)
    # two entries of one puzzle colour: the clues stay
    assert run_op(bpy.ops.nonogram.merge_colours, keep=1, drop=2) == {'FINISHED'}
    same = scene.load_full_puzzle(obj)
    assert same.clues() == after.clues() and same.colour_groups == [1, 2]
    # the last two puzzle colours are not merged into one, with the reason
    with pytest.raises(RuntimeError, match="leave one puzzle colour"):
        run_op(bpy.ops.nonogram.merge_colours, keep=1, drop=2)
    assert scene.load_full_puzzle(obj).clues() == same.clues()


def test_puzzle_colours_regroup_a_colour_puzzle(addon, tmp_path):
    """Hide Clues with the Design panel's Puzzle Colours 3 on a two-colour puzzle regroups its
    palette into 3 (the engine's grouping) and designs that; Regroup Colours As Picked applies
    the Colours panel's grouping, keeps the hidden clues and marks the design stale."""
    obj, _ = _import(tmp_path)
    scene = addon_module("scene")
    cg = addon_module("engine.colour.groups")
    design_of = addon_module("engine.design.hiding").design
    two = scene.load_full_puzzle(obj)
    opts = obj.nonogram.design_options
    opts.puzzle_colours, opts.seed, opts.time_limit = 3, 1, 600.0
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    three = scene.load_full_puzzle(obj)
    want = cg.regroup(two, 3)
    assert three.k == 3 and three.clues() == want.clues() and three.colour_groups == want.colour_groups
    design = design_of(want, logic="line", seed=1)
    assert scene.hidden_mask(obj).tolist() == (design.puzzle.clue_kind == 0).tolist()
    assert scene.load_check(obj)["verdict"] == "unique" and not scene.load_design(obj).get("stale")
    assert [e.group for e in obj.nonogram.palette] == three.colour_groups
    assert len({o.name.split(" ", 3)[-1] for o in obj.nonogram.glyphs.objects if "c3" in o.name})
    # the same number again keeps the grouping
    assert run_op(bpy.ops.nonogram.hide_clues) == {'FINISHED'}
    assert scene.load_full_puzzle(obj).colour_groups == three.colour_groups
    # the designer picks: yellow, amber | blue | navy
    mask = scene.hidden_mask(obj)
    for entry, g in zip(obj.nonogram.palette, (1, 1, 2, 3)):
        entry.group = g
    assert run_op(bpy.ops.nonogram.regroup_colours, mode='PICKED') == {'FINISHED'}
    picked = scene.load_full_puzzle(obj)
    assert picked.colour_groups == [1, 1, 2, 3] and picked.clues() == cg.regroup(two, 3, [1, 1, 2, 3]).clues()
    assert np.array_equal(scene.hidden_mask(obj), mask)
    assert "regrouped into 3" in scene.load_design(obj)["stale"]
    # a picked grouping with an unused puzzle colour is refused, nothing changed
    for entry, g in zip(obj.nonogram.palette, (1, 1, 3, 3)):
        entry.group = g
    with pytest.raises(RuntimeError, match="each used"):
        run_op(bpy.ops.nonogram.regroup_colours, mode='PICKED')
    assert scene.load_full_puzzle(obj).colour_groups == [1, 1, 2, 3]
