"""Running the engine off Blender's main thread.

A ``Job`` runs one engine call in a daemon thread. The thread never touches bpy: it only reads
the arguments it was given and leaves its result (or exception) on the job, which the modal
operator polls from a window-manager timer on the main thread. Cancelling sets an event the
engine's ``progress`` callback reports back; engine calls that do not poll it (the solver
comparison) are abandoned instead: their thread finishes in the background and its result is
dropped, so the scene is never changed after a cancel.
"""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import bpy

from . import polls
from .scene.common import NonogramError

if TYPE_CHECKING:
    _OperatorBase = bpy.types.Operator
else:
    # At run time the mix-in must not be an Operator itself: the concrete class is.
    _OperatorBase = object

# The engine's progress message while it compiles its kernels (engine/solve/driver.py).
PREPARING = "preparing solver"

# One engine job at a time: two solves would halve each other's speed on a laptop and their
# results could race for the same object.
_active = None
# Every job whose thread was started, until stop_all() has joined it: a cancelled or abandoned
# job's thread may still be finishing when the add-on is disabled or Blender exits.
_started: list = []


def active_job():
    return _active if _active is not None and not _active.finished else None


class Job:
    """``fn(progress)`` run in a thread; ``progress(fraction, message) -> bool`` (True = stop)."""

    def __init__(self, label, fn):
        self.label = label
        self.cancel_event = threading.Event()
        self.done_event = threading.Event()
        self.fraction = 0.0
        self.message = ""
        self.result = None
        self.error = None
        self.started = time.perf_counter()
        self.finished = False  # set by the main thread once it has consumed the job
        self.on_progress = None  # fraction -> None, called from the thread that runs the job
        self._fn = fn
        self._thread = threading.Thread(target=self._run, name=f"nonogram: {label}", daemon=True)

    def progress(self, fraction, message=""):
        """The engine's progress callback: returns True to ask it to stop."""
        self.fraction = float(fraction)
        self.message = str(message)
        if self.on_progress is not None:
            self.on_progress(self.fraction)
        return self.cancel_event.is_set()

    def _run(self):
        try:
            self.result = self._fn(self.progress)
        except BaseException as e:  # handed to the main thread, which reports it
            self.error = e
        finally:
            self.done_event.set()

    def start(self):
        global _active
        _active = self
        _started[:] = [j for j in _started if j._thread.is_alive()] + [self]
        self._thread.start()
        return self

    @property
    def done(self):
        return self.done_event.is_set()

    def elapsed(self):
        return time.perf_counter() - self.started

    def status_text(self):
        state = "cancelling" if self.cancel_event.is_set() else f"{self.fraction:.0%}"
        msg = f" {self.message}" if self.message else ""
        return f"Nonogram {self.label}: {state}{msg} ({self.elapsed():.1f} s) - Esc to cancel"


def stop_all(deadline: float) -> bool:
    """Cancel every job still running and wait for their threads until ``deadline``
    (``time.monotonic()``); their results are dropped. True when no job thread is left. Engine
    calls that poll the progress callback stop within a fraction of a second; the others (a
    comparison, a compile) may outlast the wait, and are then left to the interpreter."""
    global _active
    for job in _started:
        job.cancel_event.set()
        job.finished = True  # nothing may apply its result now
    for job in list(_started):
        if job._thread is not threading.current_thread():
            job._thread.join(max(0.0, deadline - time.monotonic()))
    _started[:] = [j for j in _started if j._thread.is_alive()]
    _active = None
    return not _started


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
