import bpy
from bpy.props import EnumProperty, IntProperty

from . import scene

VIEWS = [('DESIGNER', "Designer", "The solver's cells and every clue beside the grid (hidden ones greyed)"),
         ('PLAYER', "Player", "The block of cubes the player starts from, clues on the cube faces, "
                              "hidden clues blank")]


class NONOGRAM_OT_set_view(bpy.types.Operator):
    """Switch the active nonogram between the designer's view and the player's view"""
    bl_idname = "nonogram.set_view"
    bl_label = "Nonogram View"
    bl_options = {'REGISTER', 'UNDO'}

    view: EnumProperty(name="View", items=VIEWS, default='PLAYER')

    @classmethod
    def poll(cls, context: bpy.types.Context):
        if scene.nonogram_of(context.active_object) is None:
            cls.poll_message_set("Select a nonogram")
            return False
        return True

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        try:
            scene.set_view(obj, self.view)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        return {'FINISHED'}


class NONOGRAM_OT_slice(bpy.types.Operator):
    """Peel layers off the player's view along one axis (positive: from the + side, negative:
    from the - side; 0 shows the whole block)"""
    bl_idname = "nonogram.slice"
    bl_label = "Slice"
    bl_options = {'REGISTER', 'UNDO'}

    axis: EnumProperty(name="Axis", items=[(a, a, f"Peel layers along {a}") for a in "XYZ"])
    layers: IntProperty(name="Layers", default=0)

    @classmethod
    def poll(cls, context: bpy.types.Context):
        if scene.nonogram_of(context.active_object) is None:
            cls.poll_message_set("Select a nonogram")
            return False
        return True

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        try:
            scene.set_slice(obj, self.axis, self.layers)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        return {'FINISHED'}
