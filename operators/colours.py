"""Editing the reveal's palette: merging two entries (changing one is the panel's colour field),
and grouping the entries into puzzle colours (a colour puzzle, clues per colour). On a colour
puzzle both re-ink its clues and cubes (``scene/colours_puzzle.py`` says what happens to the
clues and the design)."""
import bpy
from bpy.props import EnumProperty, IntProperty

from .. import scene
from ..scene import polls
from ..jobs import engine_access
from ..scene.colours import set_palette
from ..scene.store import holds_colour_puzzle
from ..scene.colours_puzzle import merge_colour_entries, regroup_nonogram


def _has_palette(context) -> str:
    obj = scene.nonogram_of(context.active_object)
    if len(scene.props(obj).palette) < 2:
        return f"'{obj.name}' has no colours to group (Make it with Colours 2 or more)"
    return ""


class NONOGRAM_OT_merge_colours(polls.Polled, bpy.types.Operator):
    """Merge two palette entries: the cubes of the second take the first's colour, and the
    second entry goes. On a colour puzzle, entries of two puzzle colours change its clues (the
    hidden clues are kept and checked again)"""
    bl_idname = "nonogram.merge_colours"
    bl_label = "Merge Colours"
    bl_options = {'REGISTER', 'UNDO'}

    keep: IntProperty(name="Keep", default=1, min=1, max=256, description="Entry that stays")
    drop: IntProperty(name="Merge Into It", default=2, min=1, max=256,
                      description="Entry whose cubes take the kept entry's colour")

    checks = (polls.nonogram, polls.no_job)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        pal = engine_access.palette
        try:
            n = len(scene.props(obj).palette)
            for name, v in (("Keep", self.keep), ("Merge Into It", self.drop)):
                if 0 < n < v:  # the engine counts entries from 0; say it as the panel numbers them
                    raise scene.NonogramError(f"{name}: no colour {v} (the palette has {n})")
            if holds_colour_puzzle(obj):
                return self._merge_colour_puzzle(context, obj)
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

    def _merge_colour_puzzle(self, context, obj):
        lines, new = merge_colour_entries(context, obj, self.keep - 1, self.drop - 1)
        k = f"{new.k} puzzle colour{'s' if new.k != 1 else ''}"
        if not lines:
            self.report({'INFO'}, f"Merged colour {self.drop} into {self.keep} (one puzzle colour: "
                                  f"the clues and the design stay); {k}")
            return {'FINISHED'}
        self.report({'WARNING'}, f"Merged colour {self.drop} into {self.keep}, of another puzzle "
                                 f"colour: the clues of {lines} line{'s' if lines != 1 else ''} changed "
                                 f"({k}). The hidden clues are kept and checked again: if "
                                 f"the Design panel says it is no longer unique, Repair or Hide "
                                 f"Clues")
        return {'FINISHED'}


class NONOGRAM_OT_regroup_colours(polls.Polled, bpy.types.Operator):
    """Group the palette's colours into puzzle colours (a colour puzzle: clues per colour),
    automatically or as picked in the Colours panel; the hidden clues are kept and checked
    again, and Hide Clues designs it anew"""
    bl_idname = "nonogram.regroup_colours"
    bl_label = "Regroup Colours"
    bl_options = {'REGISTER', 'UNDO'}

    puzzle_colours: IntProperty(name="Puzzle Colours", default=2, min=2, max=35, soft_max=4,
                                description="How many puzzle colours (automatic grouping)")
    mode: EnumProperty(name="Grouping", default='AUTO', items=[
        ('AUTO', "Automatic", "Let the add-on group the palette into Puzzle Colours groups: "
                              "visibly distinct, each with a meaningful share of the cubes"),
        ('PICKED', "As Picked", "Each palette entry's Puzzle Colour as set in the Colours panel")])

    checks = (polls.nonogram, polls.no_job, _has_palette)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        groups = None
        k = int(self.puzzle_colours)
        if self.mode == 'PICKED':
            groups = [int(e.group) for e in scene.props(obj).palette]
            k = max(groups)
            if min(groups) < 1 or k < 2 or len(set(groups)) != k:
                self.report({'ERROR'}, f"Pick puzzle colours 1 to k for every palette entry, each "
                                       f"used, k at least 2 (picked: {groups})")
                return {'CANCELLED'}
        try:
            lines, new = regroup_nonogram(context, obj, k, groups)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"{new.k} puzzle colours ({' '.join(engine_access.colourspace.to_hex(new.clue_colours))}): "
                              f"the clues of {lines} lines changed; the hidden clues are kept and "
                              f"checked again: Hide Clues designs it anew")
        return {'FINISHED'}
