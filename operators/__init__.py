"""Operators: the registered operator classes, thin: each reads UI state, starts a job (the
engine through ``jobs``, never at import time), hands its result to the scene layer
(``scene``) and reports. Panels name them by ``bl_idname``; nothing here imports ``panels``."""
import time
from typing import Any, cast

import bpy

from ..jobs import warmup, worker
from ..scene import live_check
from .animate import NONOGRAM_OT_animate_solve
from .clear import NONOGRAM_OT_clear
from .colours import NONOGRAM_OT_merge_colours, NONOGRAM_OT_regroup_colours
from .compare import NONOGRAM_OT_compare
from .design import (NONOGRAM_OT_hide_clues, NONOGRAM_OT_pick_clues, NONOGRAM_OT_repair,
                     NONOGRAM_OT_show_all_clues, NONOGRAM_OT_suggest_clue, NONOGRAM_OT_toggle_clues)
from .explain import NONOGRAM_OT_explain
from .export_puzzle import NONOGRAM_OT_export_puzzle
from .import_puzzle import NONOGRAM_OT_import_puzzle
from .kernel_cache import NONOGRAM_OT_clear_kernel_cache
from .make import NONOGRAM_OT_make
from .play import NONOGRAM_OT_play_in_browser
from .presets import classes as preset_classes
from .show_cells import NONOGRAM_OT_show_added, NONOGRAM_OT_show_cells
from .solve import NONOGRAM_OT_solve
from .view import NONOGRAM_OT_set_view

classes = (NONOGRAM_OT_make, NONOGRAM_OT_solve, NONOGRAM_OT_compare, NONOGRAM_OT_show_cells,
           NONOGRAM_OT_show_added,
           NONOGRAM_OT_animate_solve, NONOGRAM_OT_export_puzzle, NONOGRAM_OT_play_in_browser, NONOGRAM_OT_import_puzzle,
           NONOGRAM_OT_clear, NONOGRAM_OT_clear_kernel_cache, *preset_classes,
           NONOGRAM_OT_set_view, NONOGRAM_OT_hide_clues, NONOGRAM_OT_show_all_clues,
           NONOGRAM_OT_toggle_clues, NONOGRAM_OT_pick_clues, NONOGRAM_OT_suggest_clue,
           NONOGRAM_OT_merge_colours, NONOGRAM_OT_regroup_colours, NONOGRAM_OT_repair, NONOGRAM_OT_explain)
# cast: the stubs declare register_classes_factory as returning None.
_register_classes, _unregister_classes = cast(Any, bpy.utils.register_classes_factory(classes))

# Undo and redo bring hidden clues back without our operators: the live check follows them.
_HANDLERS = (bpy.app.handlers.undo_post, bpy.app.handlers.redo_post)


def register():
    _register_classes()
    for handlers in _HANDLERS:
        handlers.append(live_check.recheck_after_undo)
    warmup.register()


# How long disabling the add-on (or exiting) waits for its background threads and processes:
# the jobs that poll for Esc stop within a fraction of a second; a compile cannot be cut short.
STOP_WAIT = 2.0


def stop_background(timeout: float = STOP_WAIT) -> bool:
    """Stop every thread and process the add-on runs in the background (warm-up, engine jobs,
    live checks) and wait for them, at most ``timeout`` seconds in all. True when none is left.
    A thread still running when the interpreter shuts down crashes (bpy 4.2) or hangs (bpy
    4.5) Blender's Python module at exit."""
    deadline = time.monotonic() + timeout
    stopped = warmup.stop(deadline)
    stopped = worker.stop_all(deadline) and stopped
    return live_check.cancel_all(deadline) and stopped


def unregister():
    warmup.unregister()
    for handlers in _HANDLERS:
        if live_check.recheck_after_undo in handlers:
            handlers.remove(live_check.recheck_after_undo)
    stop_background()
    _unregister_classes()
