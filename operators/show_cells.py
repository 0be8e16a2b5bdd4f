import bpy
from bpy.props import EnumProperty

from . import polls, scene


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
                self.report({'INFO'}, "Every cell is decided: nothing to highlight")
            else:
                self.report({'INFO'}, f"{n} undecided cells highlighted")
        return {'FINISHED'}
