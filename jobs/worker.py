"""Running the engine off Blender's main thread.

A ``Job`` runs one engine call in a daemon thread. The thread never touches bpy: it only reads
the arguments it was given and leaves its result (or exception) on the job, which the modal
operator (``operators/job_operator.py``) polls from a window-manager timer on the main thread. Cancelling sets an event the
engine's ``progress`` callback reports back; engine calls that do not poll it (the solver
comparison) are abandoned instead: their thread finishes in the background and its result is
dropped, so the scene is never changed after a cancel.
"""
from __future__ import annotations

import threading
import time
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
