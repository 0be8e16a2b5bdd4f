"""The add-on's preferences: how new nonograms look and start, numba's state, the keymap."""
import os
from typing import Any, cast

import bpy
from bpy.props import FloatProperty, FloatVectorProperty, IntProperty

from ..jobs.kernel_cache import numba_status
from ..scene.common import CELL_COLOURS, CLUE_COLOURS, DEFAULT_STYLE
from ..scene.properties import ADDON_PACKAGE, RESOLUTION_RANGE
from . import menus


def _colour(name, default, description):
    return FloatVectorProperty(name=name, subtype='COLOR', size=4, min=0.0, max=1.0,
                               default=default, description=description)


class NonogramPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_PACKAGE

    resolution: IntProperty(
        name="Resolution", default=12, min=RESOLUTION_RANGE[0], max=RESOLUTION_RANGE[1],
        soft_min=RESOLUTION_RANGE[0], soft_max=128,
        description="Make's resolution in a scene that has not set its own")
    label_size: FloatProperty(
        name="Label Size", default=DEFAULT_STYLE["label_size"], min=0.05, max=10.0,
        description="Size of the clue labels of new nonograms (each nonogram's panel changes "
                    "its own)")
    # Named as DEFAULT_STYLE's keys: style() reads them by those names.
    unknown: _colour("Unknown", CELL_COLOURS["unknown"], "Cubes the solver has not decided")
    filled: _colour("Filled", CELL_COLOURS["filled"], "Cubes known to be filled")
    empty: _colour("Empty", CELL_COLOURS["empty"],
                   "Cubes known to be empty (drawn when Show Unknown Cells shows them)")
    highlight: _colour("Highlight", CELL_COLOURS["highlight"],
                       "Cubes Show Unknown Cells highlights")
    plain: _colour("Plain", CLUE_COLOURS["plain"], "Clues of one block")
    circle: _colour("Circle", CLUE_COLOURS["circle"], "Clues of two blocks")
    square: _colour("Square", CLUE_COLOURS["square"], "Clues of three or more blocks")

    def draw(self, context):
        layout = self.layout
        split = layout.split(factor=0.5)
        col = split.column()
        col.label(text="New Nonograms", icon='MESH_GRID')
        col.prop(self, "resolution")
        col.prop(self, "label_size")
        col = split.column()
        col.label(text="Cubes", icon='CUBE')
        row = col.row(align=True)
        for name in ("unknown", "filled", "empty", "highlight"):
            row.prop(self, name, text="")
        col.label(text="Clues", icon='FONT_DATA')
        row = col.row(align=True)
        for name in ("plain", "circle", "square"):
            row.prop(self, name, text="")
        _draw_numba(layout.box())
        _draw_keymap(layout.box(), context)


def _draw_numba(box):
    status = numba_status()
    box.label(text="Solver Kernels (numba)", icon='SETTINGS')
    col = box.column(align=True)
    if status["error"]:
        col.label(text="Unavailable: the engine runs as slow plain Python", icon='ERROR')
        col.label(text=status["error"])
    else:
        col.label(text=f"numba {status['version']}"
                  + ("" if status["loaded"] else " (loaded on first Make or Solve)"),
                  icon='CHECKMARK')
    if status.get("warmup"):
        col.label(text=status["warmup"], icon='TIME')
    if status.get("prebuilt"):
        col.label(text=status["prebuilt"], icon='PACKAGE')
    if status.get("sat"):
        col.label(text=f"python-sat {status['sat']}: hard searches hand over to a SAT solver",
                  icon='CHECKMARK')
    else:
        col.label(text="python-sat not installed: hard searches run without the SAT fallback",
                  icon='INFO')
    col.label(text=f"Cache: {status['cache_dir']}")
    col.label(text=f"{status['cache_files']} files, {status['cache_bytes'] / 2**20:.1f} MiB"
              if os.path.isdir(status["cache_dir"]) else "Cache: empty")
    box.operator("nonogram.clear_kernel_cache", icon='TRASH')


def _draw_keymap(box, context):
    import rna_keymap_ui  # Blender's own keymap item widget
    box.label(text="Keymap", icon='KEYINGSET')
    kc = context.window_manager.keyconfigs.user
    for km, kmi in menus.keymap_items():
        # The user's copy of our item, so changes made here are the ones Blender keeps.
        user_km = kc.keymaps.get(km.name) if kc is not None else None
        user_kmi = _find(user_km, kmi) if user_km is not None else None
        if user_kmi is None:  # not merged into the user's key configuration yet
            box.label(text=f"{km.name}: {kmi.to_string()} opens the Nonogram menu")
            continue
        col = box.column()
        col.context_pointer_set("keymap", user_km)
        rna_keymap_ui.draw_kmi([], kc, user_km, user_kmi, col, 0)


def _find(km, kmi):
    for item in km.keymap_items:
        if item.idname == kmi.idname and item.properties.name == kmi.properties.name:
            return item
    return None


# cast: the stubs declare register_classes_factory as returning None.
register, unregister = cast(Any, bpy.utils.register_classes_factory((NonogramPreferences,)))
