"""Presets of Make's and Solve's options, one set of files for the redo panel and the sidebar.

The operators have ``'PRESET'`` in ``bl_options``, so Blender's Adjust Last Operation panel
lists, adds and applies presets itself, as Python files in
``scripts/presets/operator/nonogram.make/`` (``op = bpy.context.active_operator`` then one
``op.<option> = value`` line per option). The sidebar's preset menus read and write the same
files, but for the panel's settings: applying reads only ``op.<option> = <literal>`` lines, so a
preset file is data to the sidebar, never code it runs.
"""
from __future__ import annotations

import ast
import os

import bpy
from bpy.props import StringProperty
from bl_operators.presets import AddPresetBase

from .. import scene


def preset_subdir(idname: str) -> str:
    """The folder Blender's operator presets use for ``idname`` ("nonogram.make")."""
    return os.path.join("operator", idname)


def preset_options(idname: str) -> tuple:
    """The options a preset of operator ``idname`` holds: what Blender's own operator presets
    save (every property not marked SKIP_SAVE)."""
    module, name = idname.split(".")
    rna = getattr(getattr(bpy.ops, module), name).get_rna_type()
    return tuple(p.identifier for p in rna.properties
                 if p.identifier != "rna_type" and not p.is_skip_save)


def write_preset(filepath: str, values: dict) -> None:
    """A preset file in the format of Blender's operator presets."""
    with open(filepath, "w", encoding="utf-8") as f:
        f.write("import bpy\nop = bpy.context.active_operator\n\n")
        for name, value in values.items():
            f.write(f"op.{name} = {value!r}\n")


def read_preset(filepath: str) -> dict:
    """The ``op.<name> = <literal>`` assignments of a preset file (anything else is ignored)."""
    with open(filepath, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filepath)
    values = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "op"):
            try:
                values[target.attr] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return values


class _AddPanelPreset(AddPresetBase):
    """Add or remove a preset of the sidebar's settings"""
    operator_idname = ""

    @property
    def preset_subdir(self):
        return preset_subdir(self.operator_idname)

    def add(self, context, filepath):
        settings = scene.settings(context)
        write_preset(filepath, {name: getattr(settings, name)
                                for name in preset_options(self.operator_idname)})


class NONOGRAM_OT_make_preset_add(_AddPanelPreset, bpy.types.Operator):
    """Add or remove a preset of Make Nonogram's settings"""
    bl_idname = "nonogram.make_preset_add"
    bl_label = "Add Make Preset"
    preset_menu = "NONOGRAM_PT_make_presets"
    operator_idname = "nonogram.make"


class NONOGRAM_OT_solve_preset_add(_AddPanelPreset, bpy.types.Operator):
    """Add or remove a preset of Solve's settings"""
    bl_idname = "nonogram.solve_preset_add"
    bl_label = "Add Solve Preset"
    preset_menu = "NONOGRAM_PT_solve_presets"
    operator_idname = "nonogram.solve"


class NONOGRAM_OT_preset_apply(bpy.types.Operator):
    """Set the sidebar's settings from this preset"""
    bl_idname = "nonogram.preset_apply"
    bl_label = "Apply Nonogram Preset"
    bl_options = {'REGISTER', 'UNDO', 'INTERNAL'}

    filepath: StringProperty(subtype='FILE_PATH', options={'SKIP_SAVE'})
    menu_idname: StringProperty(options={'SKIP_SAVE'})

    def execute(self, context: bpy.types.Context):
        try:
            values = read_preset(self.filepath)
        except (OSError, SyntaxError, ValueError) as e:
            self.report({'ERROR'}, f"Cannot read the preset {self.filepath}: {e}")
            return {'CANCELLED'}
        settings = scene.settings(context)
        known = settings.bl_rna.properties
        for name, value in values.items():
            if name in known and not known[name].is_readonly:
                try:
                    setattr(settings, name, value)
                except (TypeError, ValueError) as e:
                    self.report({'WARNING'}, f"Preset value {name} = {value!r} ignored: {e}")
        menu = getattr(bpy.types, self.menu_idname, None)
        if menu is not None:  # the preset menu shows the preset last chosen, as Blender's do
            menu.bl_label = bpy.path.display_name(os.path.basename(self.filepath),
                                                  title_case=False)
        return {'FINISHED'}


classes = (NONOGRAM_OT_make_preset_add, NONOGRAM_OT_solve_preset_add, NONOGRAM_OT_preset_apply)
