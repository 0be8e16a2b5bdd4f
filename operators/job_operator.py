"""The modal operator that runs a ``jobs.worker.Job``: a window-manager timer polls the job
from the main thread, Esc cancels it, and ``finish`` hands its result to the scene layer."""
from __future__ import annotations

from typing import TYPE_CHECKING

import bpy

from ..jobs.worker import PREPARING, active_job
from ..scene import polls
from ..scene.common import NonogramError

if TYPE_CHECKING:
    _OperatorBase = bpy.types.Operator
else:
    # At run time the mix-in must not be an Operator itself: the concrete class is.
    _OperatorBase = object


class JobOperator(_OperatorBase):
    """Mixin for operators that run a Job under a modal timer.

    Subclasses implement ``make_job(context) -> Job`` (return None after self.report on error)
    and ``finish(context, result) -> set`` (runs on the main thread, may change the scene).
    ``execute`` runs the same job synchronously (scripts, tests, background mode).
    """
    _job = None
    _timer = None

    def execute(self, context: bpy.types.Context):
        job = self.make_job(context)
        if job is None:
            return {'CANCELLED'}
        # In place, so the only progress Blender can show is the cursor's (a redo from Adjust
        # Last Operation runs here too).
        wm = context.window_manager
        wm.progress_begin(0.0, 1.0)
        job.on_progress = wm.progress_update
        try:
            job._run()
        finally:
            wm.progress_end()
        job.finished = True
        return self._conclude(context, job)

    def run_synchronously(self, context) -> bool:
        # No event loop to drive a modal timer: run in place (still bounded by time limits).
        return bpy.app.background or context.window is None

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event):
        if self.run_synchronously(context):
            return self.execute(context)
        if active_job() is not None:
            self.report({'ERROR'}, f"A nonogram {active_job().label} is still running")
            return {'CANCELLED'}
        job = self.make_job(context)
        if job is None:
            return {'CANCELLED'}
        self._job = job.start()
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        self._status(context, job.status_text())
        return {'RUNNING_MODAL'}

    def modal(self, context: bpy.types.Context, event: bpy.types.Event):
        job = self._job
        if event.type == 'ESC' and event.value == 'PRESS':
            job.cancel_event.set()
            # compiling (or waiting for the kernels) does not poll the callback: abandon it
            if not self.cancel_is_cooperative or job.message == PREPARING:
                return self._stop(context, cancelled=True)
            self._status(context, job.status_text())
            return {'RUNNING_MODAL'}
        # Event has no reference to its timer: any TIMER tick is a cue to look at the job.
        if event.type != 'TIMER':
            return {'PASS_THROUGH'}
        if not job.done:
            self._status(context, job.status_text())
            return {'PASS_THROUGH'}
        cancelled = job.cancel_event.is_set()
        wait = ("" if cancelled or job.error is not None
                else polls.why_not(context, *self.finish_checks))
        if wait:
            self._status(context, f"Nonogram {job.label} done: {wait} to apply it - Esc to cancel")
            return {'PASS_THROUGH'}
        return self._stop(context, cancelled=cancelled)

    def cancel(self, context: bpy.types.Context):
        # Blender ends the modal operator itself (a file is loaded, the window closes): stop the
        # engine if it listens and drop whatever it returns.
        if self._job is not None:
            self._job.cancel_event.set()
            self._job.finished = True
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None
        self._status(context, None)

    # engine calls that poll the progress callback stop soon after Esc; others are abandoned
    cancel_is_cooperative = True
    # Checks (context -> reason, '' when fine) that must pass before finish() may change the
    # scene: a result that lands while the user edits a mesh waits for them, rather than being
    # written into mesh data that leaving Edit Mode would overwrite.
    finish_checks: tuple = ()

    def make_job(self, context: bpy.types.Context):
        raise NotImplementedError

    def finish(self, context: bpy.types.Context, result):
        raise NotImplementedError

    def _stop(self, context: bpy.types.Context, cancelled: bool):
        job = self._job
        context.window_manager.event_timer_remove(self._timer)
        self._timer = None
        self._status(context, None)
        job.finished = True
        if cancelled:
            self.report({'INFO'}, f"Nonogram {job.label} cancelled; nothing was changed")
            return {'CANCELLED'}
        return self._conclude(context, job)

    def _conclude(self, context, job):
        if job.error is not None:
            err = job.error
            self.report({'ERROR'}, str(err) if isinstance(err, NonogramError)
                        else f"Nonogram {job.label} failed: {type(err).__name__}: {err}")
            return {'CANCELLED'}
        try:
            return self.finish(context, job.result)
        except NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        except ReferenceError:
            self.report({'ERROR'}, f"The nonogram was deleted during the {job.label}")
            return {'CANCELLED'}

    @staticmethod
    def _status(context: bpy.types.Context, text):
        if context.workspace is not None:
            context.workspace.status_text_set(text)
        for area in (context.screen.areas if context.screen else ()):
            if area.type == 'VIEW_3D':
                area.tag_redraw()
