"""Property groups: the Make/Solve settings (per scene) and what a nonogram object stores
(its puzzle, reports, and Hide Clues options and results).

The puzzle and reports are JSON strings (they are saved in the .blend with the object); per-cell
data lives in the point mesh's attributes, never here.
"""
from typing import Any, cast

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       FloatVectorProperty, IntProperty,
                       IntVectorProperty, PointerProperty, StringProperty)

from .colours import palette_entry_changed
from .common import DEFAULT_STYLE
from .layers import apply_clue_layer

# The add-on's package, whose name is its preferences' bl_idname (as in jobs/runtime.py).
ADDON_PACKAGE = __package__.rpartition(".")[0]

SOLVE_METHODS = [
    ('full', "Full", "Line solving, probing and search: decides uniqueness (default)"),
    ('brute', "Brute", "Seed scheduler: every line, every pass"),
    ('hierarchical', "Hierarchical", "Seed scheduler: lines whose cells changed, by priority level"),
    ('heuristic', "Heuristic", "Seed scheduler: most promising line first"),
    ('learned', "Learned", "Line priority learned from puzzles: fewest line solves of the schedulers"),
]
LINE_SOLVERS = [
    ('dp', "Complete (DP)", "Exact line solver: finds every cell a line alone decides"),
    ('seed', "Seed", "The seed study's enumerating line solver"),
]

DESIGN_LOGICS = [
    ('line', "Line", "The player solves it line by line: each line's clue against what is known"),
    ('probe', "Line + Probing", "Line solving, and trying a cell both ways when lines stall; "
                                "never guessing"),
]
DESIGN_BANDS = [
    ('ANY', "Any", "Hide as many clues as logic allows, whatever the difficulty"),
    ('easy', "Easy", ""), ('medium', "Medium", ""), ('hard', "Hard", ""), ('expert', "Expert", ""),
]
DESIGN_METHODS = [
    ('greedy', "Quick", "Informed greedy search: a few seconds"),
    ('anneal', "Thorough", "Greedy, then simulated annealing until the time limit: hides more"),
]


class NONOGRAM_PG_design(bpy.types.PropertyGroup):
    """Hide Clues options, kept with the nonogram (and so in the .blend)."""
    logic: EnumProperty(name="Logic", items=DESIGN_LOGICS, default='line',
                        description="What the player may need to solve the puzzle")
    band: EnumProperty(name="Difficulty", items=DESIGN_BANDS, default='ANY',
                       description="Difficulty band to aim for")
    method: EnumProperty(name="Method", items=DESIGN_METHODS, default='greedy')
    seed: IntProperty(name="Seed", default=0, min=0,
                      description="Same seed, same clues hidden, on any machine (unless the time "
                                  "limit cuts the search: the result then says so)")
    time_limit: FloatProperty(
        name="Time Limit", default=120.0, min=0.1, max=36000.0, unit='TIME_ABSOLUTE',
        description="A safety stop: the search's work is a fixed budget of moves; a limit that "
                    "cuts it keeps the best design so far and says it is not reproducible")
    puzzle_colours: IntProperty(
        name="Puzzle Colours", default=1, min=1, max=35, soft_max=4,
        description="Hide Clues on a black-and-white nonogram with the model's colours first "
                    "turns it into a colour puzzle of this many colours (groups of its reveal "
                    "colours); 1: it stays black-and-white. A colour puzzle of another number "
                    "of colours is regrouped into this many first; 1 or its own number: it "
                    "keeps its grouping")


# At least 3 voxels along the longest side: below that a model is one or two layers of cubes,
# no puzzle (a 1×1×1 grid has 3 clues and nothing to deduce).
RESOLUTION_RANGE = (3, 4096)

# What to do about parts too thin for the grid, and the voxelizer's options for each:
# (bridge, thin_parts).
THIN_PARTS = [
    ('NONE', "As Voxelized", "Keep the voxels as the mesh fills them: thin parts may fall apart "
                             "into loose cubes or vanish"),
    ('BRIDGE', "Bridge Pieces", "Join every loose piece to the main one through the fewest voxels "
                                "the mesh passes through"),
    ('RESTORE', "Restore Thin Parts", "Keep parts thinner than a voxel, one voxel thick, and join "
                                      "them on"),
]
THIN_PARTS_OPTIONS = {'NONE': (False, False), 'BRIDGE': (True, False), 'RESTORE': (True, True)}


def _resolution(**callbacks):
    return IntProperty(
        name="Resolution", default=12, min=RESOLUTION_RANGE[0], max=RESOLUTION_RANGE[1],
        soft_min=RESOLUTION_RANGE[0], soft_max=128,
        description=f"Voxels along the longest side of the mesh (at least {RESOLUTION_RANGE[0]}: "
                    "smaller grids make no puzzle)",
        **callbacks)


class MakeOptions:
    """Make Nonogram's options: the operator's properties (Adjust Last Operation, presets) and
    the panel's settings (``NONOGRAM_PG_settings``) are both declared here, so one more option
    is one more line. The operator takes the panel's value for every option its caller did not
    set (see ``operators/options.py``)."""
    resolution: _resolution()
    samples: IntProperty(
        name="Anti-aliasing", default=1, min=1, max=8,
        description="Samples per voxel axis; a voxel is filled when the covered fraction "
                    "reaches the threshold")
    threshold: FloatProperty(
        name="Threshold", default=0.5, min=0.0, max=1.0, subtype='FACTOR',
        description="Fraction of a voxel's samples inside the mesh that fills it")
    robust: BoolProperty(
        name="Robust (open meshes)", default=True,
        description="Vote between the x, y and z parity fills, so holes in the mesh leak less")
    hide_source: BoolProperty(
        name="Hide Source", default=False, description="Hide the source meshes after making")
    # Restore is the default: the only option that kept every shared model in one piece with
    # no part lost at 16, 24 and 36 (docs/VOXELIZER.md, "Which option by default").
    thin_parts: EnumProperty(name="Thin Parts", items=THIN_PARTS, default='RESTORE')
    min_piece: IntProperty(
        name="Drop Pieces Under", default=0, min=0, soft_max=64,
        description="Remove pieces of fewer voxels than this (0: keep every piece)")
    keep_largest: BoolProperty(
        name="Largest Piece Only", default=False,
        description="Keep only the largest connected piece of voxels")
    # No hard limits on these two: Blender would clamp 0, 300 or -5 to the limit without a word;
    # Make refuses a value out of range with a message (jobs/make.py check_colour_options), and
    # dragging stays within the soft limits.
    colours: IntProperty(
        name="Colours", default=6, soft_min=1, soft_max=32,
        description="Keep the model's colours for the reveal, reduced to this many (1: plain "
                    "cubes, no colours; at most 256)")
    puzzle_colours: IntProperty(
        name="Puzzle Colours", default=1, soft_min=1, soft_max=4,
        description="Make a colour puzzle of this many colours (clues per colour), each a group "
                    "of the reveal's colours (Colours must be at least as many); 1: "
                    "black-and-white clues")

    @staticmethod
    def draw_options(layout, data):
        """The options of ``data`` (the panel's settings or the operator) in ``layout``."""
        col = layout.column(align=True)
        col.prop(data, "resolution")
        col.prop(data, "samples")
        sub = col.column(align=True)
        sub.active = data.samples > 1
        sub.prop(data, "threshold")
        layout.prop(data, "robust")
        col = layout.column(align=True)
        col.prop(data, "thin_parts")
        col.prop(data, "min_piece")
        col.prop(data, "keep_largest")
        layout.prop(data, "colours")
        row = layout.row()
        row.active = data.colours > 1
        row.prop(data, "puzzle_colours")
        layout.prop(data, "hide_source")


class SolveOptions:
    """Solve's options, shared by the operator and the panel as ``MakeOptions`` are."""
    method: EnumProperty(name="Method", items=SOLVE_METHODS, default='full')
    prepass: BoolProperty(
        name="Pre-pass", default=False,
        description="Solve every line once before scheduling (seed schedulers)")
    linesolver: EnumProperty(name="Line Solver", items=LINE_SOLVERS, default='dp')
    time_limit: FloatProperty(
        name="Time Limit", default=60.0, min=0.1, max=36000.0, unit='TIME_ABSOLUTE',
        description="Stop solving after this many seconds (the verdict is then 'unknown')")

    @staticmethod
    def draw_options(layout, data):
        layout.prop(data, "method")
        col = layout.column()
        col.active = data.method != 'full'
        col.prop(data, "prepass")
        layout.prop(data, "linesolver")
        layout.prop(data, "time_limit")


class AnimateOptions:
    anim_frames: IntProperty(
        name="Frames", default=120, min=1, max=100000,
        description="Length of the solve animation in frames")


def option_names(*groups) -> tuple:
    """The property names an options class (or several) declares."""
    return tuple(name for g in groups for name in g.__annotations__)


def _panel_resolution(self):
    # Until the user sets it in this scene, the resolution is the add-on preferences' default
    # (files saved before had it stored under the same name).
    value = self.get("resolution")
    if value is not None:
        return value
    prefs = addon_preferences(bpy.context)
    return prefs.resolution if prefs is not None else 12


def _set_panel_resolution(self, value):
    self["resolution"] = max(RESOLUTION_RANGE[0], min(RESOLUTION_RANGE[1], int(value)))


def addon_preferences(context):
    """The add-on's preferences (None where the add-on is registered without being enabled in
    Blender's preferences, e.g. in tests)."""
    addon = context.preferences.addons.get(ADDON_PACKAGE) if context.preferences else None
    return addon.preferences if addon is not None else None


def style(context):
    """The colours and label size new nonograms get (None: the built-in defaults)."""
    prefs = addon_preferences(context)
    if prefs is None:
        return None
    out: dict = {k: tuple(getattr(prefs, k)) for k in DEFAULT_STYLE if k != "label_size"}
    out["label_size"] = float(prefs.label_size)
    return out


class NONOGRAM_PG_settings(MakeOptions, SolveOptions, AnimateOptions, bpy.types.PropertyGroup):
    """The scene's Make/Solve settings shown in the sidebar."""
    resolution: _resolution(get=_panel_resolution, set=_set_panel_resolution)


class NONOGRAM_PG_source(bpy.types.PropertyGroup):
    object: PointerProperty(type=bpy.types.Object, name="Source")
    hid_render: BoolProperty(options={'HIDDEN'})  # Make switched its render visibility off


def _palette_changed(self, context):
    # the cubes follow an edited palette entry
    palette_entry_changed(self.id_data)


class NONOGRAM_PG_colour(bpy.types.PropertyGroup):
    colour: FloatVectorProperty(name="Colour", subtype='COLOR_GAMMA', size=3, min=0.0, max=1.0,
                                default=(1.0, 1.0, 1.0), update=_palette_changed,
                                description="A palette entry (sRGB): the cubes of this colour follow")
    # A colour puzzle's grouping: the puzzle colour (1..k) this entry belongs to (0: the nonogram
    # is black-and-white); Regroup Colours with "As Picked" applies an edited one.
    group: IntProperty(name="Puzzle Colour", default=0, min=0, max=35,
                       description="The puzzle colour this palette entry belongs to (Regroup "
                                   "Colours, As Picked, applies a changed one)")


CLUE_LAYER_AXES = [
    ('ALL', "All", "Every clue, floating before the +X, -Y and +Z faces (a cloud at large sizes)"),
    ('X', "X", "The clues of one layer across X; the layers in front of it are cut away"),
    ('Y', "Y", "The clues of one layer across Y; the layers in front of it are cut away"),
    ('Z', "Z", "The clues of one layer across Z; the layers above it are cut away"),
]


def _clue_layer_changed(pg, context):
    obj = pg.id_data
    if pg.is_nonogram and obj is not None:
        apply_clue_layer(obj)


class NONOGRAM_PG_object(bpy.types.PropertyGroup):
    is_nonogram: BoolProperty(options={'HIDDEN'})
    is_clue_object: BoolProperty(options={'HIDDEN'})
    puzzle: StringProperty(name="Puzzle", description="The puzzle as the engine's JSON",
                           options={'HIDDEN'})
    report: StringProperty(name="Solver Report", options={'HIDDEN'})
    compare: StringProperty(name="Solver Comparison", options={'HIDDEN'})
    make_info: StringProperty(name="Make Info", options={'HIDDEN'})
    shape: IntVectorProperty(name="Grid", size=3, options={'HIDDEN'})
    source: PointerProperty(type=bpy.types.Object, name="Source")
    sources: CollectionProperty(type=NONOGRAM_PG_source, options={'HIDDEN'})
    hid_source: BoolProperty(options={'HIDDEN'})
    collection: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'})
    labels: PointerProperty(type=bpy.types.Object, options={'HIDDEN'})
    glyphs: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'})
    outlines: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'})
    hidden: StringProperty(name="Hidden Clues", options={'HIDDEN'},
                           description="One bit per line, packed, base64: clue hidden from the player")
    design_options: PointerProperty(type=NONOGRAM_PG_design)
    design: StringProperty(name="Design", description="The last Hide Clues result (JSON)",
                           options={'HIDDEN'})
    check: StringProperty(name="Check", description="The live check of the puzzle as the "
                                                    "player gets it (JSON)", options={'HIDDEN'})
    palette: CollectionProperty(type=NONOGRAM_PG_colour, options={'HIDDEN'})
    reveal: BoolProperty(name="Reveal", default=False, options={'HIDDEN'},
                         description="Show the finished model in its colours")
    # The designer's view shows the clues of one layer at a time (scene/layers.py).
    clue_layer_axis: EnumProperty(name="Clue Layer", items=CLUE_LAYER_AXES, default='Z',
                                  update=_clue_layer_changed,
                                  description="Which clues the designer's view shows")
    clue_layer: IntProperty(name="Layer", default=0, min=0, max=4095, update=_clue_layer_changed,
                            description="The layer whose clues the designer's view shows")


_classes = (NONOGRAM_PG_design, NONOGRAM_PG_settings, NONOGRAM_PG_source, NONOGRAM_PG_colour,
            NONOGRAM_PG_object)
# cast: the stubs declare register_classes_factory as returning None.
_register_classes, _unregister_classes = cast(Any, bpy.utils.register_classes_factory(_classes))


def register():
    _register_classes()
    # setattr: the stubs do not know the add-on's properties.
    setattr(bpy.types.Scene, "nonogram_settings", PointerProperty(type=NONOGRAM_PG_settings))
    setattr(bpy.types.Object, "nonogram", PointerProperty(type=NONOGRAM_PG_object))


def unregister():
    delattr(bpy.types.Object, "nonogram")
    delattr(bpy.types.Scene, "nonogram_settings")
    _unregister_classes()
