import bpy
from bpy.props import EnumProperty

from .. import scene
from ..scene import polls


class NONOGRAM_OT_show_cells(polls.Polled, bpy.types.Operator):
    """Choose which cells of the active nonogram are drawn"""
    bl_idname = "nonogram.show_cells"
    bl_label = "Show Cells"
    bl_options = {'REGISTER', 'UNDO'}

    mode: EnumProperty(
        name="Show",
        items=[('UNDECIDED', "Unknown Cells",
                "Only the cells logic could not decide, or where two solutions differ"),
               ('RESULT', "Solver Result", "Every cell not known to be empty")],
        default='UNDECIDED')

    @classmethod
    def description(cls, context, properties):
        if properties.mode == 'UNDECIDED':
            return "Highlight the cells the solver could not decide, or where two solutions differ"
        return "Show every cell that is not known to be empty"

    checks = (polls.object_mode, polls.solved)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        n = scene.show_cells(obj, self.mode)
        if self.mode == 'UNDECIDED':
            if n == 0:
                self.report({'INFO'}, "Every cell is decided: nothing to highlight, the view is "
                                      "unchanged")
            else:
                self.report({'INFO'}, f"{n} undecided cells highlighted")
        return {'FINISHED'}


class NONOGRAM_OT_show_added(polls.Polled, bpy.types.Operator):
    """Show the answer with the cells Make's piece options (Thin Parts) added highlighted"""
    bl_idname = "nonogram.show_added"
    bl_label = "Show Added Cells"
    bl_options = {'REGISTER', 'UNDO'}

    checks = (polls.object_mode, polls.piece_changes)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        n = scene.show_cells(obj, 'CHANGES')
        self.report({'INFO'}, f"{n} cells added by the piece options highlighted")
        return {'FINISHED'}
