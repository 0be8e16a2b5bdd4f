import bpy
from bpy.props import EnumProperty

from . import scene


class NONOGRAM_OT_show_cells(bpy.types.Operator):
    """Choose which cells of the active nonogram are drawn"""
    bl_idname = "nonogram.show_cells"
    bl_label = "Show Cells"
    bl_options = {'REGISTER', 'UNDO'}

    mode: EnumProperty(
        name="Show",
        items=[('UNDECIDED', "Unknown Cells",
                "Only the cells logic could not decide, or where two solutions differ"),
               ('RESULT', "Solver Result", "Every cell not known to be empty"),
               ('CHANGES', "Piece Changes",
                "The answer, with the cells Make's piece options added highlighted")],
        default='UNDECIDED')

    @classmethod
    def description(cls, context, properties):
        if properties.mode == 'UNDECIDED':
            return "Highlight the cells the solver could not decide, or where two solutions differ"
        if properties.mode == 'CHANGES':
            return "Show the answer with the cells Make's piece options added highlighted"
        return "Show every cell that is not known to be empty"

    @classmethod
    def poll(cls, context: bpy.types.Context):
        # Piece changes are known from Make; the other modes need a solve.
        obj = scene.nonogram_of(context.active_object)
        return obj is not None and (bool(obj.nonogram.report) or bool(obj.nonogram.make_info))

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        if self.mode != 'CHANGES' and not obj.nonogram.report:
            self.report({'ERROR'}, "Solve the nonogram first")
            return {'CANCELLED'}
        n = scene.show_cells(obj, self.mode)
        if self.mode == 'UNDECIDED':
            if n == 0:
                self.report({'INFO'}, "Every cell is decided: nothing to highlight, the view is "
                                      "unchanged")
            else:
                self.report({'INFO'}, f"{n} undecided cells highlighted")
        elif self.mode == 'CHANGES':
            if n == 0:
                self.report({'INFO'}, "Make's piece options added no cell")
            else:
                self.report({'INFO'}, f"{n} cells added by the piece options highlighted")
        return {'FINISHED'}
