"""How an operator's options relate to the panel's settings.

The sidebar's settings (``Scene.nonogram_settings``) are what the next Make/Solve uses; the
operator has the same options as real properties, so Adjust Last Operation (F9) and presets
change the operation that just ran. An operator takes the panel's value for every option its
caller did not set explicitly: pressing the button uses the panel, ``bpy.ops.nonogram.make(
resolution=8)`` uses 8, and a redo re-runs with the operator's own (now set) values. Values
Blender remembers from the previous run do not count as set (``ghost=False``): the panel wins
over them.
"""
from __future__ import annotations

from .. import scene


def fill_from_panel(op, context, names) -> dict:
    """Set every option in ``names`` the caller left unset from the panel; returns them all."""
    panel = scene.settings(context)
    for name in names:
        if not op.properties.is_property_set(name, ghost=False):
            setattr(op, name, getattr(panel, name))
    return {name: getattr(op, name) for name in names}
