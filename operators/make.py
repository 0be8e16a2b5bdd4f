import json

import bpy

from . import scene


class NONOGRAM_OT_make(bpy.types.Operator):
    """Turn the active mesh into a 3D nonogram: voxels, clue labels and the stored puzzle
    (settings in the Nonogram tab of the sidebar)"""
    bl_idname = "nonogram.make"
    bl_label = "Make Nonogram"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        # Bad selections are explained by execute() rather than greyed out silently.
        return context.scene is not None and context.mode == 'OBJECT'

    def execute(self, context):
        s = context.scene.nonogram_settings
        src = context.active_object
        if src is not None and scene.nonogram_of(src) is not None:
            self.report({'ERROR'}, f"'{src.name}' is already a nonogram: select a mesh object")
            return {'CANCELLED'}
        try:
            obj, result = scene.make_nonogram(
                context, src, resolution=s.resolution, samples=s.samples,
                threshold=s.threshold, robust=s.robust, hide_source=s.hide_source)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        for w in result.warnings:
            self.report({'WARNING'}, w)
        info = json.loads(obj.nonogram.make_info)
        X, Y, Z = info["shape"]
        self.report({'INFO'}, f"Nonogram {X}×{Y}×{Z}: {info['filled']} filled cells, "
                    f"{len(obj.nonogram.labels.data.vertices)} clues "
                    f"({info['time_s']['total']:.2f} s)")
        return {'FINISHED'}
