"""Nonogram 3D: turn a mesh into a 3D nonogram (Picross 3D style) puzzle and solve it.

The extension's metadata is in blender_manifest.toml. Nothing here imports numba or the engine's
kernels: the operators import them on first use, so enabling the add-on stays fast.
"""
import atexit
import sys
from types import ModuleType
from typing import Optional

import bpy

from . import operators, panels
from .scene import properties, view_side

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
    properties.register()  # first: operators and panels use the property groups
    operators.register()
    panels.register()
    view_side.register()  # the designer's view follows the side the 3D View looks from
    if cli_command is not None:
        cli_command.register()
    atexit.register(_unregister_at_exit)
    _registered = True


def _release_bpy_at_exit():
    """Blender 4.2 as a Python module keeps a reference to a class registered with property
    callbacks (ours are) even after it is unregistered (4.5 does not). Through the functions'
    globals that keeps the ``bpy`` module alive, so it is never freed, and freeing it is what runs
    Blender's own exit: C++ destructors then free Python objects after the interpreter is gone, a
    segmentation fault (exit 139) at the end of every script that enabled the add-on. Emptying
    our modules' globals at exit, as Python's shutdown does for the modules it still holds, lets
    the module go. Registered at import, so it runs after ``_unregister_at_exit``."""
    own = __name__
    prefix = own + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            module.__dict__.clear()
    module = sys.modules.get(own)
    if module is not None:
        module.__dict__.clear()


def _unregister_at_exit():
    """Blender disables add-ons before its Python exits; a script that imports Blender as a
    Python module (the batch, the tests) has no such step: without it bpy 4.5 hangs at exit with
    our classes registered, and our background threads would outlive the interpreter."""
    if _registered and not bpy.app.binary_path:  # the bpy module; Blender unregisters us itself
        unregister()


def unregister():
    global _registered
    atexit.unregister(_unregister_at_exit)
    if not _registered:
        # already done: with the bpy module our exit hook unregisters first, then Blender's own
        # exit disables every add-on again (a traceback at the end of every such script)
        return
    _registered = False
    if cli_command is not None:
        cli_command.unregister()
    view_side.unregister()
    panels.unregister()
    operators.unregister()
    properties.unregister()


if not bpy.app.binary_path and tuple(bpy.app.version) < (4, 5, 0):
    atexit.register(_release_bpy_at_exit)
