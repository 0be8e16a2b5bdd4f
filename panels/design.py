"""The Design and View panels (sidebar tab "Nonogram"): display only; every action is an
operator."""
import bpy

from .. import scene as scene_mod
from ..jobs.worker import active_job
from ..scene import live_check
# sidebar.py imports this module after defining these (its panel order lists ours).
from .common import _active_nonogram, _NonogramPanel

BAND_TEXT = {None: "no score (logic alone does not solve it)"}
# What a size allows, before the run: (band, longest side below which it is often out of reach,
# the note, whether line logic alone misses it on some models there). From
# benchmarks/bench_bands.py on the seven shared models (docs/SOLVER.md, "Difficulty bands by
# size"): expert on 5 of 7 at 12 and at 16 (one of them each only with probing), all 7 at 24;
# hard on 6 of 7 at 12, all 7 at 16, by line logic.
BAND_OUTLOOK = (
    ('expert', 24, "Expert: reached on 5 of 7 test models below 24 voxels, all at 24", True),
    ('hard', 16, "Hard: reached on 6 of 7 test models at 12 voxels, all at 16", False),
)
BAND_PROBE_NOTE = "Line logic: some models reach this band only with probing"
VERDICT_SHORT = {"unique": "unique", "multiple": "several solutions", "none": "no solution",
                 "unknown": "undecided (time limit)"}


class NONOGRAM_PT_design(_NonogramPanel, bpy.types.Panel):
    bl_label = "Design"

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        obj = _active_nonogram(context)
        opts = scene_mod.props(obj).design_options
        col = layout.column(align=True)
        col.prop(opts, "logic")
        col.prop(opts, "band")
        for line in band_outlook(opts.band, max(scene_mod.props(obj).shape), opts.logic):
            col.label(text=line, icon='INFO')
        col.prop(opts, "method")
        row = col.row(align=True)
        row.prop(opts, "seed")
        row.prop(opts, "time_limit", text="Limit")
        col.prop(opts, "puzzle_colours")
        job = active_job()
        row = layout.row(align=True)
        row.scale_y = 1.4
        if job is not None:
            row.label(text=f"{job.label.capitalize()}: {job.fraction:.0%} (Esc cancels)", icon='TIME')
        else:
            row.operator("nonogram.hide_clues", icon='HIDE_ON')
            row.operator("nonogram.show_all_clues", icon='HIDE_OFF', text="Show All")
        _draw_design(layout, obj)

        layout.label(text="Edit by hand:")
        row = layout.row(align=True)
        row.operator("nonogram.pick_clues", icon='RESTRICT_SELECT_OFF')
        row.operator("nonogram.suggest_clue", icon='LIGHT')
        row.operator("nonogram.repair", icon='TOOL_SETTINGS')
        labels = scene_mod.props(obj).labels
        if labels is not None and labels.mode == 'EDIT':
            layout.operator("nonogram.toggle_clues", icon='ARROW_LEFTRIGHT')
        _draw_check(layout, obj)
        row = layout.row()
        row.scale_y = 1.2
        row.operator("nonogram.play_in_browser", icon='URL')


def band_outlook(band: str, longest: int, logic: str) -> list:
    """Notes on whether ``band`` is within reach at this grid size (before a run)."""
    for name, below, note, probe_helps in BAND_OUTLOOK:
        if band == name and longest < below:
            return [note] + ([BAND_PROBE_NOTE] if probe_helps and logic == 'line' else [])
    return []


def _draw_design(layout, obj):
    info = scene_mod.load_design(obj)
    if not info:
        return
    box = layout.box()
    col = box.column(align=True)
    if info.get("mask") != scene_mod.mask_key(scene_mod.hidden_mask(obj)):
        # hand edits (or undo) changed the clues since: the result is history, the check current
        col.label(text=f"Edited by hand since Hide Clues ({info.get('hidden_count', 0):,} hidden then)",
                  icon='INFO')
        col.label(text="The check below is about the clues as they are now")
        return
    if info.get("stale"):
        # a palette merge or regroup changed the clues under the design (scene/colours_puzzle.py)
        col.label(text=f"Out of date: {info['stale']}", icon='ERROR')
        col.label(text="The check below is about the clues as they are now; if it is not "
                       "unique, Repair or Hide Clues")
        return
    col.label(text=f"Hidden: {info.get('hidden_count', 0):,} of {info.get('lines', 0):,} clues "
                   f"({100 * info.get('hidden_fraction', 0):.1f} %)", icon='HIDE_ON')
    score = info.get("score")
    col.label(text=f"Score {score} ({info.get('band')})" if score is not None else BAND_TEXT[None])
    minimal = info.get("locally_minimal")
    col.label(text="Locally minimal: " + ("yes" if minimal else
                                          "no (stopped early)" if info.get("stopped_early") else
                                          "no (short of the band)" if info.get("in_target") is False
                                          else "no"))
    col.label(text=f"{info.get('method')}, seed {info.get('seed')}, {info.get('time_s', 0):.1f} s"
                   + ("" if info.get("reproducible", True) else " (cut: seed alone won't repeat it)"))
    if info.get("message"):
        col.label(text=info["message"], icon='ERROR')


def _draw_check(layout, obj):
    check = scene_mod.load_check(obj)
    box = layout.box()
    col = box.column(align=True)
    if live_check.running(obj):
        col.label(text="Checking…", icon='TIME')
    if check is None:
        col.label(text="Not checked yet: change a clue, or Hide Clues", icon='INFO')
        return
    stale = live_check.stale(obj) and not live_check.running(obj)
    ok = check.get("solvable")
    col.label(text=("Unique: yes" if check.get("verdict") == "unique"
                    else f"Unique: no ({VERDICT_SHORT.get(check.get('verdict'), '?')})"),
              icon='CHECKMARK' if ok else 'ERROR')
    logic = {"line": "line logic", "probe": "line logic + probing"}[check.get("logic", "line")]
    col.label(text=f"Solvable by {logic}: {'yes' if ok else 'no'}")
    if check.get("score") is not None:
        col.label(text=f"Score {check['score']} ({check.get('band')})")
    n = check.get("undecided", 0)
    col.label(text=f"Undecided cells: {n:,}" + (" (highlighted)" if n else ""))
    col.label(text=f"Hidden {check.get('hidden_count', 0):,} of {check.get('lines', 0):,} clues, "
                   f"checked in {1000 * check.get('time_s', 0):.0f} ms")
    if stale:
        col.label(text="Out of date: the clues changed", icon='ERROR')


class NONOGRAM_PT_view(_NonogramPanel, bpy.types.Panel):
    bl_label = "View"

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        obj = _active_nonogram(context)
        view = scene_mod.current_view(obj)
        row = layout.row(align=True)
        for ident, text in (('DESIGNER', "Designer"), ('PLAYER', "Player"), ('REVEAL', "Reveal")):
            row.operator("nonogram.set_view", text=text, depress=view == ident).view = ident
        mod = scene_mod.find_player_modifier(obj)
        if view != 'PLAYER':
            pg = scene_mod.props(obj)
            col = layout.column(align=True)
            col.row(align=True).prop(pg, "clue_layer_axis", expand=True)
            sub = col.row(align=True)
            sub.active = pg.clue_layer_axis != 'ALL'
            sub.prop(pg, "clue_layer")
            return
        if mod is None:
            return
        col = layout.column(align=True)
        for name in ("Slice X", "Slice Y", "Slice Z"):
            col.prop(*scene_mod.modifier_input_prop(mod, name), text=name)
        col = layout.column(align=True)
        for name in ("Cube Size", "Label Size", "Highlight Undecided"):
            col.prop(*scene_mod.modifier_input_prop(mod, name), text=name)


classes = (NONOGRAM_PT_design, NONOGRAM_PT_view)
