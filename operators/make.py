import json

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from . import scene

# Scripts may pass these; from the UI they come from the panel (Scene.nonogram_settings).
_SETTINGS = ("resolution", "samples", "threshold", "robust", "hide_source", "thin_parts",
             "min_piece", "keep_largest")
_HIDDEN = {'HIDDEN', 'SKIP_SAVE'}

# What to do about parts too thin for the grid (also the panel's setting), and the voxelizer's
# options for each: (bridge, thin_parts).
THIN_PARTS = [
    ('NONE', "As Voxelized", "Keep the voxels as the mesh fills them: thin parts may fall apart "
                             "into loose cubes or vanish"),
    ('BRIDGE', "Bridge Pieces", "Join every loose piece to the main one through the fewest voxels "
                                "the mesh passes through"),
    ('RESTORE', "Restore Thin Parts", "Keep parts thinner than a voxel, one voxel thick, and join "
                                      "them on"),
]
THIN_PARTS_OPTIONS = {'NONE': (False, False), 'BRIDGE': (True, False), 'RESTORE': (True, True)}


def selected_sources(context):
    """(the mesh objects to voxelize: the active object first, then the other selected meshes;
    the objects left out, with why)."""
    active = context.active_object
    selected = list(getattr(context, "selected_objects", None) or [])
    picked = ([active] if active is not None else []) + [o for o in selected if o is not active]
    meshes, left_out = [], []
    for o in picked:
        if scene.nonogram_of(o) is not None:
            left_out.append((o, "a nonogram"))
        elif o.type != 'MESH':
            left_out.append((o, f"a {o.type.lower()}, not a mesh"))
        else:
            meshes.append(o)
    return meshes, left_out


class NONOGRAM_OT_make(bpy.types.Operator):
    """Turn the selected meshes (their union) into a 3D nonogram: voxels, clue labels and the
    stored puzzle (settings in the Nonogram tab of the sidebar)"""
    bl_idname = "nonogram.make"
    bl_label = "Make Nonogram"
    bl_options = {'REGISTER', 'UNDO'}

    resolution: IntProperty(name="Resolution", default=12, min=1, options=_HIDDEN)
    samples: IntProperty(name="Anti-aliasing", default=1, min=1, options=_HIDDEN)
    threshold: FloatProperty(name="Threshold", default=0.5, min=0.0, max=1.0, options=_HIDDEN)
    robust: BoolProperty(name="Robust", default=True, options=_HIDDEN)
    hide_source: BoolProperty(name="Hide Source", default=False, options=_HIDDEN)
    thin_parts: EnumProperty(name="Thin Parts", items=THIN_PARTS, default='NONE', options=_HIDDEN)
    min_piece: IntProperty(name="Drop Pieces Under", default=0, min=0, options=_HIDDEN)
    keep_largest: BoolProperty(name="Largest Piece Only", default=False, options=_HIDDEN)

    @classmethod
    def poll(cls, context: bpy.types.Context):
        # Bad selections are explained by execute() rather than greyed out silently.
        return context.scene is not None and context.mode == 'OBJECT'

    def execute(self, context: bpy.types.Context):
        panel = scene.settings(context)
        opts = {k: getattr(self if self.properties.is_property_set(k) else panel, k)
                for k in _SETTINGS}
        opts["bridge"], opts["thin_parts"] = THIN_PARTS_OPTIONS[opts["thin_parts"]]
        sources, left_out = selected_sources(context)
        if not sources:
            src = context.active_object
            if src is not None and scene.nonogram_of(src) is not None:
                self.report({'ERROR'}, f"'{src.name}' is already a nonogram: select a mesh object")
            elif left_out:
                self.report({'ERROR'}, "No mesh selected: " + "; ".join(
                    f"'{o.name}' is {why}" for o, why in left_out))
            else:
                self.report({'ERROR'}, "No mesh selected: select one or more mesh objects first")
            return {'CANCELLED'}
        wm = context.window_manager

        def progress(fraction: float) -> bool:
            # large grids take seconds: show it on the cursor/status bar
            wm.progress_update(fraction)
            return False

        wm.progress_begin(0.0, 1.0)
        try:
            obj, result = scene.make_nonogram(context, sources, progress=progress, **opts)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        finally:
            wm.progress_end()
        for w in result.warnings:
            self.report({'WARNING'}, w)
        info = json.loads(scene.props(obj).make_info)
        X, Y, Z = info["shape"]
        stats = info["diagnostics"].get("pieces")
        n_pieces = stats["pieces"] if stats else None
        text = (f"Nonogram {X}×{Y}×{Z}: {info['filled']} filled cells"
                + (f" in {n_pieces} piece{'s' if n_pieces != 1 else ''}" if n_pieces else "")
                + f", {len(scene.props(obj).labels.data.vertices)} clues "
                f"({info['time_s']['total']:.2f} s)")
        if len(sources) > 1:
            text += f"; the union of {len(sources)} meshes: " + ", ".join(s.name for s in sources)
        if info["changes"]:
            text += "; " + ", ".join(info["changes"])
        if left_out:
            text += "; left out: " + ", ".join(f"'{o.name}' ({why})" for o, why in left_out)
        self.report({'INFO'}, text)
        return {'FINISHED'}
