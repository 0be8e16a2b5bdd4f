import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper

from . import polls, scene
from .runtime import engine


class NONOGRAM_OT_export_puzzle(polls.Polled, bpy.types.Operator, ExportHelper):
    """Save the active nonogram's puzzle as a puzzle file (the engine's JSON format)"""
    bl_idname = "nonogram.export_puzzle"
    bl_label = "Export Puzzle"
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={'HIDDEN'})

    checks = (polls.nonogram,)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event):
        if not self.filepath:
            obj = scene.nonogram_of(context.active_object)
            self.filepath = bpy.path.clean_name(obj.name) + self.filename_ext
        return ExportHelper.invoke(self, context, event)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        pf = engine("puzzlefile")
        try:
            pf.save_puzzle(scene.load_stored_puzzle(obj), self.filepath)
        except (scene.NonogramError, pf.PuzzleFileError) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Saved {self.filepath}")
        return {'FINISHED'}
