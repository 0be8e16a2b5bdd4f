"""Menus: Object ▸ Nonogram (every operator; F3 finds them through it), File ▸ Import/Export,
and the add-on's keymap entry that opens the Nonogram menu in Object Mode."""
from typing import Any, cast

import bpy


class NONOGRAM_MT_object(bpy.types.Menu):
    bl_label = "Nonogram"
    bl_idname = "NONOGRAM_MT_object"

    def draw(self, context):
        layout = self.layout
        layout.operator("nonogram.make", icon='MESH_GRID')
        layout.operator("nonogram.solve", icon='PLAY')
        layout.operator("nonogram.compare", icon='SORTTIME')
        layout.separator()
        layout.operator("nonogram.show_cells", text="Show Unknown Cells",
                        icon='VIEWZOOM').mode = 'UNDECIDED'
        layout.operator("nonogram.show_cells", text="Show Result", icon='HIDE_OFF').mode = 'RESULT'
        layout.operator("nonogram.show_added", icon='VIEWZOOM')
        layout.operator("nonogram.animate_solve", icon='RENDER_ANIMATION')
        layout.operator("nonogram.animate_solve", text="Remove Solve Animation",
                        icon='X').clear = True
        layout.separator()
        layout.operator("nonogram.hide_clues", icon='HIDE_ON')
        layout.operator("nonogram.show_all_clues", icon='HIDE_OFF')
        layout.operator("nonogram.pick_clues", icon='RESTRICT_SELECT_OFF')
        layout.operator("nonogram.toggle_clues", icon='ARROW_LEFTRIGHT')
        layout.operator("nonogram.suggest_clue", icon='LIGHT')
        layout.operator("nonogram.repair", icon='TOOL_SETTINGS')
        layout.operator("nonogram.set_view", text="Player's View", icon='VIEW3D').view = 'PLAYER'
        layout.operator("nonogram.set_view", text="Designer's View",
                        icon='MESH_GRID').view = 'DESIGNER'
        layout.operator("nonogram.set_view", text="Reveal", icon='SHADING_RENDERED').view = 'REVEAL'
        layout.operator("nonogram.merge_colours", icon='AUTOMERGE_ON')
        layout.operator("nonogram.regroup_colours", icon='COLOR')
        layout.separator()
        layout.operator("nonogram.import_puzzle", text="Import Puzzle…", icon='IMPORT')
        layout.operator("nonogram.export_puzzle", text="Export Puzzle…", icon='EXPORT')
        layout.operator("nonogram.play_in_browser", icon='URL')
        layout.separator()
        layout.operator("nonogram.clear", icon='TRASH')


def _menu_object(self, context):
    self.layout.separator()
    self.layout.menu(NONOGRAM_MT_object.bl_idname, icon='MESH_GRID')


def _menu_import(self, context):
    self.layout.operator("nonogram.import_puzzle", text="Nonogram Puzzle (.json)")


def _menu_export(self, context):
    self.layout.operator("nonogram.export_puzzle", text="Nonogram Puzzle (.json)").file_format = 'JSON'
    self.layout.operator("nonogram.export_puzzle", text="Nonogram Playable Page (.html)").file_format = 'HTML'


_MENUS = (("VIEW3D_MT_object", _menu_object), ("TOPBAR_MT_file_import", _menu_import),
          ("TOPBAR_MT_file_export", _menu_export))

# Shift+Alt+N is free in Object Mode in Blender's default keymap; users rebind it in the add-on's
# preferences or in Preferences ▸ Keymap.
KEYMAP_NAME = "Object Mode"
_keymap_items: list = []

# cast: the stubs declare register_classes_factory as returning None.
_register_classes, _unregister_classes = cast(Any, bpy.utils.register_classes_factory(
    (NONOGRAM_MT_object,)))


def keymap_items() -> list:
    """(keymap, keymap item) pairs the add-on registered, for the preferences to draw."""
    return list(_keymap_items)


def _register_keymap():
    kc = bpy.context.window_manager.keyconfigs.addon
    if kc is None:  # some background sessions have no add-on key configuration
        return
    km = kc.keymaps.new(name=KEYMAP_NAME, space_type='EMPTY')
    kmi = km.keymap_items.new("wm.call_menu", 'N', 'PRESS', shift=True, alt=True)
    kmi.properties.name = NONOGRAM_MT_object.bl_idname
    _keymap_items.append((km, kmi))


def register():
    _register_classes()
    for menu, fn in _MENUS:
        getattr(bpy.types, menu).append(fn)
    _register_keymap()


def unregister():
    for km, kmi in _keymap_items:
        km.keymap_items.remove(kmi)
    _keymap_items.clear()
    for menu, fn in _MENUS:
        getattr(bpy.types, menu).remove(fn)
    _unregister_classes()
