"""The player's view: a block of cubes with the clues on the cube faces at both ends of every
clued line, hidden clues blank, slicing; checked instance by instance against the engine."""
import numpy as np
import pytest

from blender_support import addon, addon_module, bpy, instances_of, point_attribute, run_op

pytestmark = pytest.mark.blender

SUFFIX = {2: "", 3: "o", 4: "s"}


def _random_nonogram(shape=(5, 4, 6), seed=3, density=0.55, hidden_fraction=0.3):
    """A nonogram with plain, circle and square clues and some of them hidden."""
    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < density
    clues = addon_module("engine.model.clues")
    puzzle = clues.puzzle_from_grid(grid, name="rand")
    kinds = set(puzzle.clue_kind.tolist())
    assert {2, 3, 4} <= kinds, kinds  # the test needs every kind of clue
    hidden = rng.random(puzzle.n_lines) < hidden_fraction
    scene = addon_module("operators.scene")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name="rand", origin=(1.0, -2.0, 0.5),
                                  voxel_size=0.3)
    scene.set_hidden(obj, hidden)
    return obj, puzzle, hidden


def _line_of(shape, axis, cell):
    X, Y, Z = shape
    x, y, z = cell
    if axis == 0:
        return y * Z + z
    if axis == 1:
        return Y * Z + x * Z + z
    return Y * Z + X * Z + x * Y + y


def _classify(obj, shape, cube_size):
    """Cubes (cell indices) and labels {(line, end): (glyph name, frame kind or None)}."""
    instances = instances_of(obj)  # updates the depsgraph, and so matrix_world
    inv = obj.matrix_world.inverted()
    cubes, glyphs, frames = [], {}, {}
    for ob, m in instances:
        local = inv @ m
        p = np.array(local.translation)
        if ob.type == 'MESH' and ob.name.startswith("rand outline"):
            target = frames
        elif ob.type == 'FONT':
            target = glyphs
        else:
            cubes.append(tuple(np.floor(p).astype(int)))
            continue
        # A label lies on a face, facing out of it, just above it (half a cube plus a lift);
        # the top face's labels lean back towards the camera (TOP_TILT), lifted a little more.
        player = addon_module("operators.scene.player")
        normal = np.array(local.to_3x3().col[2])
        normal /= np.linalg.norm(normal)
        axis = int(np.argmax(np.abs(normal)))
        end = 1 if normal[axis] > 0 else -1
        lift = player.LABEL_LIFT
        if (axis, end) == (2, 1):
            assert np.isclose(normal[2], np.cos(player.TOP_TILT), atol=1e-5)
            lift += player.TOP_LIFT
            normal = np.array([0.0, 0.0, 1.0])
        assert np.allclose(normal, np.eye(3)[axis] * end, atol=1e-5)
        centre = p - normal * (cube_size / 2 + lift)
        cell = np.floor(centre).astype(int)
        assert np.allclose(centre, cell + 0.5, atol=1e-4)
        key = (_line_of(shape, axis, cell), end)
        assert key not in target
        target[key] = (ob.name, cell)
    return cubes, glyphs, frames


def _expected(puzzle, hidden, lo, hi):
    """Labels the kept block must show: every shown clue of a line inside it, at both ends."""
    X, Y, Z = puzzle.shape
    want = {}
    idx = np.indices((X, Y, Z)).reshape(3, -1).T
    inside = np.all((idx >= lo) & (idx <= hi), axis=1)
    for i in range(puzzle.n_lines):
        cells = puzzle.line(i)
        kept = cells[inside[cells]]
        if hidden[i] or puzzle.clue_kind[i] == 0 or kept.size == 0:
            continue
        want[(i, -1)] = tuple(idx[kept[0]])
        want[(i, 1)] = tuple(idx[kept[-1]])
    return want


def _check_view(obj, puzzle, hidden, slices=(0, 0, 0)):
    scene = addon_module("operators.scene")
    mod = scene.player_modifier(obj)
    cube_size = scene.get_modifier_input(mod, "Cube Size")
    lo, hi = scene.kept_block(puzzle.shape, slices)
    cubes, glyphs, frames = _classify(obj, puzzle.shape, cube_size)
    # Cubes: exactly the surface of the kept block (as the player starts: empty cells too).
    idx = np.indices(puzzle.shape).reshape(3, -1).T
    inside = np.all((idx >= lo) & (idx <= hi), axis=1)
    surface = inside & np.any((idx == lo) | (idx == hi), axis=1)
    assert sorted(cubes) == sorted(map(tuple, idx[surface]))
    want = _expected(puzzle, hidden, np.array(lo), np.array(hi))
    assert set(glyphs) == set(want)
    for (line, end), (name, cell) in glyphs.items():
        assert tuple(cell) == want[(line, end)]
        clue = puzzle.clue(line)
        assert name.endswith(f" {clue.total}{SUFFIX[int(puzzle.clue_kind[line])]}"), (name, clue)
    framed = {k for k in want if puzzle.clue_kind[k[0]] >= 3}
    assert set(frames) == framed
    for (line, end), (name, cell) in frames.items():
        assert name.endswith("circle" if puzzle.clue_kind[line] == 3 else "square")
    return len(cubes), len(glyphs), len(frames)


def test_player_view_shows_the_shown_clues_on_both_end_faces(addon):
    obj, puzzle, hidden = _random_nonogram()
    scene = addon_module("operators.scene")
    assert scene.current_view(obj) == 'DESIGNER'
    designer = len(instances_of(obj))
    assert run_op(bpy.ops.nonogram.set_view, view='PLAYER') == {'FINISHED'}
    assert scene.current_view(obj) == 'PLAYER'
    n_cubes, n_glyphs, n_frames = _check_view(obj, puzzle, hidden)
    shown = (puzzle.clue_kind != 0) & ~hidden
    assert n_glyphs == 2 * int(shown.sum())
    assert n_frames == 2 * int((shown & (puzzle.clue_kind >= 3)).sum())
    # The designer's clue labels are off in the player's view, and back in the designer's.
    assert instances_of(obj.nonogram.labels) == []
    assert run_op(bpy.ops.nonogram.set_view, view='DESIGNER') == {'FINISHED'}
    assert len(instances_of(obj)) == designer
    assert len(instances_of(obj.nonogram.labels)) > 0


@pytest.mark.parametrize("slices", [(2, 0, 0), (0, -1, 0), (0, 0, 3), (-1, 2, -2), (5, 0, 0)])
def test_slicing_peels_layers_and_moves_the_labels(addon, slices):
    obj, puzzle, hidden = _random_nonogram()
    scene = addon_module("operators.scene")
    scene.set_view(obj, 'PLAYER')
    for axis, k in zip("XYZ", slices):
        scene.set_slice(obj, axis, k)
    n_cubes, n_glyphs, _ = _check_view(obj, puzzle, hidden, slices)
    assert n_cubes < puzzle.n_cells


def test_hiding_and_showing_clues_updates_the_faces(addon):
    obj, puzzle, hidden = _random_nonogram()
    scene = addon_module("operators.scene")
    scene.set_view(obj, 'PLAYER')
    more = hidden.copy()
    more[: puzzle.n_lines // 2] = True
    scene.set_hidden(obj, more)
    assert np.array_equal(scene.hidden_mask(obj), more)
    _check_view(obj, puzzle, more)
    scene.set_hidden(obj, np.zeros_like(more))
    _check_view(obj, puzzle, np.zeros_like(more))
    # The per-cell codes the nodes read: -1 exactly where the line's clue is not shown.
    face_x = point_attribute(obj, "face_x")
    assert (face_x >= 0).all()


def test_designer_view_greys_hidden_clues_and_can_leave_them_out(addon):
    obj, puzzle, hidden = _random_nonogram()
    scene = addon_module("operators.scene")
    scene.set_clue_layer(obj, 'ALL', 0)  # every clue (new nonograms show one layer's)
    labels = obj.nonogram.labels
    line = point_attribute(labels, "line")
    assert np.array_equal(point_attribute(labels, "hidden"), hidden[line])
    nonzero = puzzle.clue_data[puzzle.clue_start[:-1][line]] > 0
    glyph_instances = [o for o, m in instances_of(labels) if o.type == 'FONT']
    assert len(glyph_instances) == int(nonzero.sum())  # hidden ones drawn (greyed)
    mod = labels.modifiers["Nonogram Clues"]
    scene.set_modifier_input(mod, "Show Hidden Clues", False)
    glyph_instances = [o for o, m in instances_of(labels) if o.type == 'FONT']
    assert len(glyph_instances) == int((nonzero & ~hidden[line]).sum())
