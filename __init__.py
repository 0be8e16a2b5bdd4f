"""Nonogram 3D: turn a mesh into a 3D nonogram (Picross 3D style) puzzle and solve it.

The extension's metadata is in blender_manifest.toml. Nothing here imports numba or the engine's
kernels: the operators import them on first use, so enabling the add-on stays fast.
"""
import atexit
from types import ModuleType
from typing import Optional

import bpy

from . import operators, panels

cli_command: Optional[ModuleType]
try:
    from . import cli_command as _cli_command
    cli_command = _cli_command
except ModuleNotFoundError as e:  # the command-line entry is optional in development checkouts
    if e.name != f"{__package__}.cli_command":
        raise
    cli_command = None


_registered = False


def register():
    global _registered
    panels.properties.register()
    operators.register()
    panels.sidebar.register()
    panels.menus.register()
    panels.preferences.register()
    if cli_command is not None:
        cli_command.register()
    atexit.register(_unregister_at_exit)
    _registered = True


def _unregister_at_exit():
    """Blender disables add-ons before its Python exits; a script that imports Blender as a
    Python module (the batch, the tests) has no such step: without it bpy 4.5 hangs at exit with
    our classes registered, and our background threads would outlive the interpreter."""
    if _registered and not bpy.app.binary_path:  # the bpy module; Blender unregisters us itself
        unregister()


def unregister():
    global _registered
    atexit.unregister(_unregister_at_exit)
    _registered = False
    if cli_command is not None:
        cli_command.unregister()
    panels.preferences.unregister()
    panels.menus.unregister()
    panels.sidebar.unregister()
    operators.unregister()
    panels.properties.unregister()
