import bpy
from bpy.props import EnumProperty

from .. import scene
from ..scene import polls

VIEWS = [('DESIGNER', "Designer", "The solver's cells and every clue beside the grid (hidden ones greyed)"),
         ('PLAYER', "Player", "The block of cubes the player starts from, clues on the cube faces, "
                              "hidden clues blank"),
         ('REVEAL', "Reveal", "The finished model: the solution's cubes in their colours")]


class NONOGRAM_OT_set_view(polls.Polled, bpy.types.Operator):
    """Switch the active nonogram between the designer's view and the player's view"""
    bl_idname = "nonogram.set_view"
    bl_label = "Nonogram View"
    bl_options = {'REGISTER', 'UNDO'}

    view: EnumProperty(name="View", items=VIEWS, default='PLAYER')

    checks = (polls.nonogram,)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        try:
            scene.set_view(obj, self.view)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        return {'FINISHED'}
