"""Operators: thin wrappers that read UI state, call the engine (through ``runtime.engine``,
never at import time) and build scene objects through ``scene``."""
from typing import Any, cast

import bpy

from . import warmup
from .animate import NONOGRAM_OT_animate_solve
from .clear import NONOGRAM_OT_clear
from .compare import NONOGRAM_OT_compare
from .export_puzzle import NONOGRAM_OT_export_puzzle
from .import_puzzle import NONOGRAM_OT_import_puzzle
from .kernel_cache import NONOGRAM_OT_clear_kernel_cache
from .make import NONOGRAM_OT_make
from .presets import classes as preset_classes
from .show_cells import NONOGRAM_OT_show_cells
from .solve import NONOGRAM_OT_solve

classes = (NONOGRAM_OT_make, NONOGRAM_OT_solve, NONOGRAM_OT_compare, NONOGRAM_OT_show_cells,
           NONOGRAM_OT_animate_solve, NONOGRAM_OT_export_puzzle, NONOGRAM_OT_import_puzzle,
           NONOGRAM_OT_clear, NONOGRAM_OT_clear_kernel_cache, *preset_classes)
# cast: the stubs declare register_classes_factory as returning None.
_register_classes, _unregister_classes = cast(Any, bpy.utils.register_classes_factory(classes))


def register():
    _register_classes()
    warmup.register()


def unregister():
    warmup.unregister()
    _unregister_classes()
