"""The engine's background warm-up (engine.warmup.start, used by the CLI) stops between steps
when asked and is joined with a bounded wait: also at interpreter exit, so a process never
ends with it still compiling (issue #27)."""
import threading
import time

import pytest

from conftest import run_python
from engine import gate, warmup


@pytest.fixture
def slow_parts(monkeypatch):
    """Two parts of steps that each take 0.2 s; the names of the steps run, in order."""
    ran = []

    def step(name):
        def run():
            time.sleep(0.2)
            ran.append(name)
        return name, run
    monkeypatch.setattr(gate, "PARTS", {"a": [step(f"a{i}") for i in range(5)],
                                          "b": [step(f"b{i}") for i in range(5)]})
    monkeypatch.setattr(gate, "_done", set())
    monkeypatch.setattr(warmup.jit, "HAVE_NUMBA", True)
    yield ran
    warmup.stop(5.0)


def test_stop_leaves_the_steps_not_begun_and_joins(slow_parts):
    thread = warmup.start(("a", "b"))
    time.sleep(0.3)  # in the second step
    t0 = time.monotonic()
    assert warmup.stop(5.0) is True
    assert time.monotonic() - t0 < 0.5  # the step under way only
    assert not thread.is_alive()
    assert 1 <= len(slow_parts) <= 3 and slow_parts == [f"a{i}" for i in range(len(slow_parts))]
    assert warmup.status()["state"] == "idle" and not warmup.ready("a")
    # what was left undone is done by the next call that needs it
    assert warmup.ensure("a") > 0 and warmup.ready("a") and len(slow_parts) >= 5


def test_stop_waits_no_longer_than_asked(slow_parts, monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(gate, "PARTS", {"a": [("stuck", lambda: release.wait(30))]})
    thread = warmup.start(("a",))
    time.sleep(0.1)
    t0 = time.monotonic()
    assert warmup.stop(0.3) is False
    assert 0.25 < time.monotonic() - t0 < 1.5
    release.set()
    thread.join(5)
    assert warmup.stop(1.0) is True


def test_a_running_warm_up_is_stopped_at_exit():
    # atexit runs its hooks last-registered first: this report, registered before the engine is
    # imported, runs after the engine's own hook and sees what that left running
    code = r"""
import atexit, threading, time
atexit.register(lambda: print("LEFT", sum(t.name == "nonogram: warm-up" and t.is_alive()
                                          for t in threading.enumerate()), flush=True))
from engine import gate, warmup
gate.PARTS = {"a": [("s%d" % i, lambda: time.sleep(0.2)) for i in range(100)]}
warmup.jit.HAVE_NUMBA = True
warmup.start(("a",))
time.sleep(0.5)
print("RUNNING", warmup.status()["state"], flush=True)
"""
    t0 = time.monotonic()
    proc = run_python(code, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "RUNNING running" in proc.stdout and "LEFT 0" in proc.stdout, proc.stdout
    assert time.monotonic() - t0 < 30
