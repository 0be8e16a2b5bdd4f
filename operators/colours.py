"""Editing the reveal's palette: merging two entries (changing one is the panel's colour field)."""
import bpy
from bpy.props import IntProperty

from .. import scene
from ..scene import polls
from ..jobs import engine_access
from ..scene.colours import set_palette


class NONOGRAM_OT_merge_colours(polls.Polled, bpy.types.Operator):
    """Merge two palette entries: the cubes of the second take the first's colour, and the
    second entry goes"""
    bl_idname = "nonogram.merge_colours"
    bl_label = "Merge Colours"
    bl_options = {'REGISTER', 'UNDO'}

    keep: IntProperty(name="Keep", default=1, min=1, max=256, description="Entry that stays")
    drop: IntProperty(name="Merge Into It", default=2, min=1, max=256,
                      description="Entry whose cubes take the kept entry's colour")

    checks = (polls.nonogram, polls.black_and_white)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        pal = engine_access.palette
        try:
            full = scene.load_full_puzzle(obj)
            if full.palette is None:
                raise pal.PaletteError("this nonogram has no colours")
            palette, colours = pal.merge_entries(full.palette, full.colours, self.keep - 1,
                                                 self.drop - 1)
            set_palette(obj, palette, colours)
        except (pal.PaletteError, scene.NonogramError) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Merged colour {self.drop} into {self.keep}: "
                              f"{pal.describe(palette)}")
        return {'FINISHED'}
