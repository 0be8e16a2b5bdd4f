"""The N-panel (sidebar tab "Nonogram"): display only; every action is an operator."""
import importlib.util
import json
import sys

import bpy
from bl_ui.utils import PresetPanel

from .. import scene as scene_mod
from ..jobs import warmup
from ..jobs.kernel_cache import wheels_mismatch
from ..jobs.runtime import ADDON_PACKAGE
from ..jobs.worker import active_job
from ..scene import polls
from ..scene.properties import MakeOptions, SolveOptions
from .common import _active_nonogram, _Sidebar

VERDICT_TEXT = {"unique": "Unique solution", "multiple": "Multiple solutions",
                "none": "No solution", "unknown": "Unknown (stopped or stalled)"}
DIFFICULTY_TEXT = {"line": "Yes: line solving", "probe": "Yes: needs probing",
                   "search": "No: needs search (guessing)"}


def numba_status() -> str:
    """Why numba is unavailable ('' when fine), without importing it from a draw call."""
    jit = sys.modules.get(f"{ADDON_PACKAGE}.engine.jit")
    if jit is not None:
        error = jit.NUMBA_ERROR
    elif importlib.util.find_spec("numba") is None:
        error = "numba is not installed: the solver and voxelizer run as slow plain Python"
    else:
        error = ""
    return (wheels_mismatch() or error) if error else ""


class _OptionPresets(PresetPanel):
    """The preset button of a panel's settings: the same files as the presets of the operator
    ``nonogram.<operator>`` in Adjust Last Operation, applied to the sidebar's settings."""
    operator = ""
    preset_operator = "nonogram.preset_apply"
    preset_subdir = preset_add_operator = ""
    preset_operator_defaults: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.preset_subdir = f"operator/nonogram.{cls.operator}"
        cls.preset_add_operator = f"nonogram.{cls.operator}_preset_add"
        cls.preset_operator_defaults = {"menu_idname": cls.__name__}


class NONOGRAM_PT_make_presets(_OptionPresets, bpy.types.Panel):
    bl_label = "Make Presets"
    operator = "make"


class NONOGRAM_PT_solve_presets(_OptionPresets, bpy.types.Panel):
    bl_label = "Solve Presets"
    operator = "solve"


class NONOGRAM_PT_make(_Sidebar, bpy.types.Panel):
    bl_label = "Make Nonogram"

    def draw_header_preset(self, context):
        NONOGRAM_PT_make_presets.draw_panel_header(self.layout)

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        s = scene_mod.settings(context)
        MakeOptions.draw_options(layout, s)
        if _draw_job(layout):
            return
        row = layout.row()
        row.scale_y = 1.4
        row.operator("nonogram.make", icon='MESH_GRID')
        why = polls.why_not(context, *polls.MAKE)
        if why:
            layout.label(text=why, icon='INFO')
        else:
            n = len(scene_mod.selected_sources(context)[0])
            if n > 1:
                layout.label(text=f"The union of {n} selected meshes", icon='INFO')
        err = numba_status()
        if err:
            box = layout.box()
            box.label(text="numba unavailable (slow fallback):", icon='ERROR')
            box.label(text=err)


class NONOGRAM_PT_solve(_Sidebar, bpy.types.Panel):
    bl_label = "Solve"

    @classmethod
    def poll(cls, context):
        return _active_nonogram(context) is not None

    def draw_header_preset(self, context):
        NONOGRAM_PT_solve_presets.draw_panel_header(self.layout)

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        obj = _active_nonogram(context)
        s = scene_mod.settings(context)
        _draw_info(layout, obj, context)
        SolveOptions.draw_options(layout, s)
        prepared = warmup.status_text()
        if prepared:
            state = warmup.status()["state"]
            layout.label(text=prepared, icon='TIME' if state == "running" else
                         'ERROR' if state == "failed" else 'CHECKMARK')
        if not _draw_job(layout):
            row = layout.row()
            row.scale_y = 1.4
            row.operator("nonogram.solve", icon='PLAY')
        report = scene_mod.load_stored_report(obj)
        if report:
            box = layout.box()
            col = box.column(align=True)
            col.label(text=VERDICT_TEXT.get(report.get("verdict"), str(report.get("verdict"))),
                      icon='CHECKMARK' if report.get("verdict") == "unique" else 'QUESTION')
            diff = report.get("difficulty")
            col.label(text="Logic alone: " + DIFFICULTY_TEXT.get(diff, "not decided"))
            col.label(text=f"Method: {report.get('method')}"
                      + (" + pre-pass" if report.get("options", {}).get("prepass") else "")
                      + f", {report.get('options', {}).get('linesolver', '')}")
            col.label(text=f"Line solves: {report.get('linesolvers', 0):,}")
            col.operator("nonogram.explain", emboss=False, icon='INFO',
                         text=f"Idle line solves: {100 * report.get('bad_guess_rate', 0):.1f} %"
                         ).topic = "idle_line_solves"
            col.label(text=f"Cells known: {100 * report.get('known_fraction', 0):.1f} %")
            col.label(text=f"Time: {report.get('time_s', 0):.2f} s")
            row = layout.row(align=True)
            row.operator("nonogram.show_cells", text="Show Unknown Cells",
                         icon='VIEWZOOM').mode = 'UNDECIDED'
            row.operator("nonogram.show_cells", text="Show Result", icon='HIDE_OFF').mode = 'RESULT'
            row = layout.row(align=True)
            row.prop(s, "anim_frames")
            row.operator("nonogram.animate_solve", icon='RENDER_ANIMATION')
            row.operator("nonogram.animate_solve", text="", icon='X').clear = True
        labels = obj.nonogram.labels
        mod = labels.modifiers.get("Nonogram Clues") if labels is not None else None
        if mod is not None and mod.node_group is not None:
            col = layout.column(align=True)
            for name in ("Show Zero Clues", "Label Size"):
                try:
                    owner, prop = scene_mod.modifier_input_prop(mod, name)
                except KeyError:
                    continue
                col.prop(owner, prop, text=name)


def _draw_job(layout) -> bool:
    """The running job's progress in place of a button; False when nothing runs."""
    job = active_job()
    if job is None:
        return False
    row = layout.row()
    row.scale_y = 1.4
    row.label(text=f"{job.label.capitalize()}: {job.fraction:.0%} (Esc cancels)", icon='TIME')
    return True


def _draw_info(layout, obj, context):
    """Grid size and clue count; the voxelizer's warnings for a made (not imported) puzzle."""
    pg = scene_mod.props(obj)
    X, Y, Z = pg.shape
    n_clues = len(pg.labels.data.vertices) if pg.labels is not None else 0
    layout.label(text=f"{X}×{Y}×{Z} cells, {n_clues} clues", icon='MESH_GRID')
    if pg.make_info:
        info = json.loads(pg.make_info)
        stats = info.get("diagnostics", {}).get("pieces")
        col = layout.column(align=True)
        if len(info.get("sources", [])) > 1:
            col.label(text=f"From {len(info['sources'])} meshes: " + ", ".join(info["sources"]))
        if stats:
            col.label(text=_pieces_text(stats), icon='CHECKMARK' if stats["pieces"] == 1 else 'ERROR')
        for phrase in info.get("changes", []):
            col.label(text=phrase, icon='BLANK1')
        if not polls.piece_changes(context):
            layout.operator("nonogram.show_added", icon='VIEWZOOM')
        note = info.get("diagnostics", {}).get("size_note")
        for w in info.get("warnings", []) + ([note] if note else []):
            box = layout.box()
            for i, line in enumerate(_wrap(w, 40)):
                box.label(text=line, icon='ERROR' if i == 0 else 'BLANK1')


def _pieces_text(stats):
    n, singles = stats["pieces"], stats["single_cubes"]
    text = f"{n} piece{'s' if n != 1 else ''}"
    if singles:
        text += f", {singles} single cube{'s' if singles != 1 else ''}"
    if stats.get("pieces_26", n) != n:
        text += f" ({stats['pieces_26']} counting edges/corners)"
    return text


def _wrap(text, width):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        lines.append(cur)
    return lines


class NONOGRAM_PT_compare(_Sidebar, bpy.types.Panel):
    bl_label = "Compare Solvers"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return _active_nonogram(context) is not None

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        obj = _active_nonogram(context)
        layout.operator("nonogram.compare", icon='SORTTIME')
        if not obj.nonogram.compare:
            return
        rows = json.loads(obj.nonogram.compare)
        grid = layout.grid_flow(row_major=True, columns=3, even_columns=True, align=True)
        for head in ("Solver", "Line solves"):
            grid.label(text=head)
        grid.operator("nonogram.explain", text="Idle %", emboss=False).topic = "idle_line_solves"
        for r in rows:
            grid.label(text=str(r.get("config")))
            grid.label(text=f"{r.get('linesolvers', 0):,}")
            grid.label(text=f"{100 * r.get('bad_guess_rate', 0):.1f}"
                       + ("" if r.get("verdict") == "unique" else f" ({r.get('verdict')})"))


class NONOGRAM_PT_file(_Sidebar, bpy.types.Panel):
    bl_label = "Puzzle File"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context: bpy.types.Context):
        layout = self.layout
        row = layout.row(align=True)
        row.operator("nonogram.export_puzzle", icon='EXPORT')
        row.operator("nonogram.import_puzzle", icon='IMPORT')
        layout.operator("nonogram.clear", icon='TRASH')


# The panels above the Design, View and Colours panels (panels/design.py, panels/colours.py) and
# below them, in the sidebar's order (panels/__init__.py registers them).
classes_top = (NONOGRAM_PT_make_presets, NONOGRAM_PT_solve_presets, NONOGRAM_PT_make,
               NONOGRAM_PT_solve)
classes_bottom = (NONOGRAM_PT_compare, NONOGRAM_PT_file)
