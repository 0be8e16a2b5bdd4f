"""Nonogram 3D: turn a mesh into a 3D nonogram (Picross 3D style) puzzle and solve it.

The extension's metadata is in blender_manifest.toml. Nothing here imports numba or the engine's
kernels: the operators import them on first use, so enabling the add-on stays fast.
"""
from types import ModuleType
from typing import Optional

from . import operators, panels

cli_command: Optional[ModuleType]
try:
    from . import cli_command as _cli_command
    cli_command = _cli_command
except ModuleNotFoundError as e:  # the command-line entry is optional in development checkouts
    if e.name != f"{__package__}.cli_command":
        raise
    cli_command = None


def register():
    panels.properties.register()
    operators.register()
    panels.sidebar.register()
    panels.menus.register()
    panels.preferences.register()
    if cli_command is not None:
        cli_command.register()


def unregister():
    if cli_command is not None:
        cli_command.unregister()
    panels.preferences.unregister()
    panels.menus.unregister()
    panels.sidebar.unregister()
    operators.unregister()
    panels.properties.unregister()
