"""The Colours panel (sidebar tab "Nonogram"): the reveal's palette of the active nonogram, each
entry editable (the cubes follow), and merging two entries. Display only: merging is an operator."""
import bpy

from .. import scene as scene_mod
from .common import _active_nonogram, _NonogramPanel


class NONOGRAM_PT_colours(_NonogramPanel, bpy.types.Panel):
    bl_label = "Colours"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        obj = _active_nonogram(context)
        pg = scene_mod.props(obj)
        if not len(pg.palette):
            layout.label(text="Plain: no colours (Make with Colours > 1 keeps them)")
            return
        k = max(e.group for e in pg.palette)
        n = len(pg.palette)
        layout.label(text=f"Palette: {n} colour{'s' if n != 1 else ''}"
                          + (f" in {k} puzzle colour{'s' if k != 1 else ''}" if k else ""))
        if k:
            # a colour puzzle: each entry with the puzzle colour it belongs to (pick, then
            # Regroup Colours As Picked); an edited entry re-inks the clues
            col = layout.column(align=True)
            for i, entry in enumerate(pg.palette):
                row = col.row(align=True)
                row.prop(entry, "colour", text=str(i + 1))
                row.prop(entry, "group", text="")
        else:
            grid = layout.grid_flow(columns=4, align=True)
            for i, entry in enumerate(pg.palette):
                grid.prop(entry, "colour", text=str(i + 1))
        if len(pg.palette) > 1:
            op = layout.operator("nonogram.merge_colours", icon='AUTOMERGE_ON')
            op.keep, op.drop = 1, 2
            row = layout.row(align=True)
            op = row.operator("nonogram.regroup_colours", text="Group Automatically", icon='COLOR')
            op.mode, op.puzzle_colours = 'AUTO', max(k, 2)
            if k:
                row.operator("nonogram.regroup_colours", text="As Picked").mode = 'PICKED'


classes = (NONOGRAM_PT_colours,)
