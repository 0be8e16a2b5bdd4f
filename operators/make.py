import json

import bpy
from bpy.props import BoolProperty, FloatProperty, IntProperty

from . import scene

# Scripts may pass these; from the UI they come from the panel (Scene.nonogram_settings).
_SETTINGS = ("resolution", "samples", "threshold", "robust", "hide_source")
_HIDDEN = {'HIDDEN', 'SKIP_SAVE'}


class NONOGRAM_OT_make(bpy.types.Operator):
    """Turn the active mesh into a 3D nonogram: voxels, clue labels and the stored puzzle
    (settings in the Nonogram tab of the sidebar)"""
    bl_idname = "nonogram.make"
    bl_label = "Make Nonogram"
    bl_options = {'REGISTER', 'UNDO'}

    resolution: IntProperty(name="Resolution", default=12, min=1, options=_HIDDEN)
    samples: IntProperty(name="Anti-aliasing", default=1, min=1, options=_HIDDEN)
    threshold: FloatProperty(name="Threshold", default=0.5, min=0.0, max=1.0, options=_HIDDEN)
    robust: BoolProperty(name="Robust", default=True, options=_HIDDEN)
    hide_source: BoolProperty(name="Hide Source", default=False, options=_HIDDEN)

    @classmethod
    def poll(cls, context: bpy.types.Context):
        # Bad selections are explained by execute() rather than greyed out silently.
        return context.scene is not None and context.mode == 'OBJECT'

    def execute(self, context: bpy.types.Context):
        panel = scene.settings(context)
        opts = {k: getattr(self if self.properties.is_property_set(k) else panel, k)
                for k in _SETTINGS}
        src = context.active_object
        if src is not None and scene.nonogram_of(src) is not None:
            self.report({'ERROR'}, f"'{src.name}' is already a nonogram: select a mesh object")
            return {'CANCELLED'}
        wm = context.window_manager

        def progress(fraction: float) -> bool:
            # large grids take seconds: show it on the cursor/status bar
            wm.progress_update(fraction)
            return False

        wm.progress_begin(0.0, 1.0)
        try:
            obj, result = scene.make_nonogram(context, src, progress=progress, **opts)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        finally:
            wm.progress_end()
        for w in result.warnings:
            self.report({'WARNING'}, w)
        info = json.loads(scene.props(obj).make_info)
        X, Y, Z = info["shape"]
        self.report({'INFO'}, f"Nonogram {X}×{Y}×{Z}: {info['filled']} filled cells, "
                    f"{len(scene.props(obj).labels.data.vertices)} clues "
                    f"({info['time_s']['total']:.2f} s)")
        return {'FINISHED'}
