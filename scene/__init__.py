"""The scene layer: a nonogram's datablocks, written and read; what the operators, the panels
and the headless batch call. Below it only ``jobs`` (the engine through ``jobs.engine_access``).

Layout of a generated nonogram, all in one collection "<name> Nonogram":
- the *nonogram object*: a point mesh with one point per grid cell (local coordinates in voxel
  units, cell (x, y, z) at (x+.5, y+.5, z+.5); the object's location is the grid's world origin
  and its uniform scale the voxel size), per-point attributes ``solution``, ``state``, ``visible``,
  ``highlight``, ``known_at``, ``face_x/y/z``, and a Geometry Nodes modifier that instances a
  cube on the points; a second one, on instead of it in the player's view, draws the block of
  cubes the player starts from with the clues on its faces (``player``);
- the *clue object*, child of the nonogram object: one point per clued line, placed in front of
  the face the line ends on, with a Geometry Nodes modifier that instances the glyph for that
  clue (and a circle/square outline for 2-block/3+-block clues), turned to face the active camera.
The glyph library (one FONT object per distinct clue) and the two outlines live in collections
that are not linked to the scene: they are only instanced.

One module per job: ``source`` (the mesh in), ``materials`` and ``nodes`` (shared datablocks),
``attributes`` (point data), ``glyphs`` (clue labels), ``build`` (a nonogram from a puzzle or a
mesh), ``store`` (data kept on the object), ``hidden`` (clues the player does not see),
``player`` (the player's view and slicing), ``check`` (design and live-check results on the
object), ``picking`` (the clue under the mouse), ``cells`` (solver results and animation),
``clear``, ``live_check`` (the live check's object side: request, apply, undo); beside them
``properties`` (the stored property groups and the add-on's preferences as data, registered by
the add-on's ``register()`` first) and ``polls`` (why an operator cannot run now, for operators
and panels alike).
The names below are the package's public API.
"""
from .attributes import get_point_attribute, set_point_attribute
from .build import (Made, SourceMesh, build_from_puzzle, build_made, make_nonogram, read_source,
                    show_as_colour_puzzle, voxelize_source)
from .cells import animate_solve, apply_solve_result, clear_animation, show_cells
from .clear import clear_nonogram
from . import colours_puzzle  # noqa: F401 (re-inks a colour puzzle's clues on palette edits)
from .common import DEFAULT_STYLE, EMPTY, FILLED, MAX_CELLS, UNKNOWN, NonogramError, object_kind
from .glyphs import KIND_CODES, clue_points
from .nodes import (get_modifier_input, input_id, label_group, modifier_input_prop, set_modifier_input,
                    voxel_group)
from .source import check_resolution, grid_estimate, selected_sources, source_triangles, sources_triangles
from .check import apply_check, load_check, load_design, store_design
from .hidden import (clue_lines, designed_puzzle, hidden_mask, line_name, load_stored_puzzle,
                     mask_key, select_clue, set_hidden, split_designed)
from .layers import (LAYER_AXES, apply_clue_layer, clue_layer, default_layer, kept_by_layer,
                     layer_label_positions, set_clue_layer)
from .picking import label_anchors, pick_label
from .view_side import follow_view, set_view_side, side_from, side_of
from .player import (current_view, find_player_modifier, kept_block, player_modifier, set_slice,
                     set_view)
from .store import (cells_mesh, jsonable, load_full_puzzle, load_stored_report, n_lines, nonogram_of,
                    props, settings, store_puzzle, store_report)

__all__ = [
    "DEFAULT_STYLE", "EMPTY", "FILLED", "KIND_CODES", "MAX_CELLS", "UNKNOWN", "Made",
    "NonogramError", "SourceMesh",
    "animate_solve", "apply_solve_result", "build_from_puzzle", "build_made", "cells_mesh",
    "check_resolution", "selected_sources",
    "clear_animation", "clear_nonogram", "clue_points", "get_modifier_input", "get_point_attribute",
    "grid_estimate", "input_id", "jsonable", "label_group", "load_stored_puzzle", "load_stored_report",
    "make_nonogram", "modifier_input_prop", "nonogram_of", "object_kind", "props", "read_source", "set_modifier_input",
    "set_point_attribute", "settings", "show_cells", "source_triangles", "sources_triangles",
    "store_puzzle",
    "store_report", "voxel_group", "voxelize_source",
    "current_view", "designed_puzzle", "hidden_mask", "kept_block", "load_full_puzzle",
    "player_modifier", "set_hidden", "set_slice", "set_view", "show_as_colour_puzzle", "split_designed",
    "apply_check", "clue_lines", "label_anchors", "line_name", "load_check", "load_design",
    "n_lines", "pick_label", "select_clue", "store_design", "find_player_modifier", "mask_key",
    "LAYER_AXES", "apply_clue_layer", "clue_layer", "default_layer", "kept_by_layer",
    "layer_label_positions", "set_clue_layer", "follow_view", "set_view_side", "side_from", "side_of",
]
