import bpy
from bpy.props import BoolProperty

from ..scene.properties import AnimateOptions, option_names
from .. import scene
from ..scene import polls
from .options import fill_from_panel


class NONOGRAM_OT_animate_solve(polls.Polled, AnimateOptions, bpy.types.Operator):
    """Animate the last solve: on playback, cells become known in the order the solver found them"""
    bl_idname = "nonogram.animate_solve"
    bl_label = "Animate Solve"
    bl_options = {'REGISTER', 'UNDO'}

    clear: BoolProperty(name="Remove Animation", default=False, options={'SKIP_SAVE'})

    checks = (polls.object_mode, polls.solved)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        if self.clear:
            scene.clear_animation(obj)
            return {'FINISHED'}
        frames = fill_from_panel(self, context, option_names(AnimateOptions))["anim_frames"]
        try:
            n = scene.animate_solve(context.scene, obj, start=context.scene.frame_start,
                                    duration=frames)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if n == 0:
            self.report({'WARNING'}, "The solver decided no cell: nothing to animate")
        else:
            self.report({'INFO'}, f"{n} cells animated over {frames} frames: press Play")
        return {'FINISHED'}
