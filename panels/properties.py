"""Property groups: the Make/Solve settings (per scene) and what a nonogram object stores.

The puzzle and reports are JSON strings (they are saved in the .blend with the object); per-cell
data lives in the point mesh's attributes, never here.
"""
from typing import Any, cast

import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, IntProperty, IntVectorProperty,
                       PointerProperty, StringProperty)

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


class NONOGRAM_PG_settings(bpy.types.PropertyGroup):
    resolution: IntProperty(
        name="Resolution", default=12, min=1, max=4096, soft_min=2, soft_max=128,
        description="Voxels along the longest side of the mesh")
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
        name="Hide Source", default=False, description="Hide the source mesh after making")
    method: EnumProperty(name="Method", items=SOLVE_METHODS, default='full')
    prepass: BoolProperty(
        name="Pre-pass", default=False,
        description="Solve every line once before scheduling (seed schedulers)")
    linesolver: EnumProperty(name="Line Solver", items=LINE_SOLVERS, default='dp')
    time_limit: FloatProperty(
        name="Time Limit", default=60.0, min=0.1, max=36000.0, unit='TIME_ABSOLUTE',
        description="Stop solving after this many seconds (the verdict is then 'unknown')")
    anim_frames: IntProperty(
        name="Frames", default=120, min=1, max=100000,
        description="Length of the solve animation in frames")


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
    hid_source: BoolProperty(options={'HIDDEN'})
    collection: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'})
    labels: PointerProperty(type=bpy.types.Object, options={'HIDDEN'})
    glyphs: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'})
    outlines: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'})


_classes = (NONOGRAM_PG_settings, NONOGRAM_PG_object)
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
