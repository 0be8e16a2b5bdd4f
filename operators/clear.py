import bpy

from .. import scene
from ..scene import polls


class NONOGRAM_OT_clear(polls.Polled, bpy.types.Operator):
    """Delete the active nonogram and everything Make/Import created for it"""
    bl_idname = "nonogram.clear"
    bl_label = "Clear Nonogram"
    bl_options = {'REGISTER', 'UNDO'}

    checks = (polls.object_mode, polls.no_job, polls.nonogram)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event):
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        name = obj.name
        scene.clear_nonogram(obj)
        self.report({'INFO'}, f"Removed '{name}'")
        return {'FINISHED'}
