"""``blender -b -c nonogram --input MODELS... --out OUT``: the headless batch as a Blender command.

Blender 4.2+ has ``bpy.utils.register_cli_command``; older builds (or a bpy without it) simply
get no command, and ``blender -b --python batch.py -- ...`` still works there. The batch module is
imported only when the command runs, so registering costs nothing at start-up.
"""
from __future__ import annotations

from typing import Any, Optional

import bpy

COMMAND = "nonogram"

_handle: Optional[Any] = None


def execute(argv: list) -> int:
    """The command: the arguments after ``-c nonogram`` are the batch's arguments."""
    from . import batch
    return batch.main(list(argv), prog=f"blender -c {COMMAND}")


def register() -> None:
    global _handle
    register_cli = getattr(bpy.utils, "register_cli_command", None)
    if register_cli is None or _handle is not None:
        return
    _handle = register_cli(COMMAND, execute)


def unregister() -> None:
    global _handle
    if _handle is None:
        return
    unregister_cli = getattr(bpy.utils, "unregister_cli_command", None)
    if unregister_cli is not None:
        unregister_cli(_handle)
    _handle = None
