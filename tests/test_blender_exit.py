"""Every thread and process the add-on starts ends when the add-on is disabled and when the
interpreter exits, so that Blender's Python module exits with the right status on each Blender
we support (a thread left running crashed bpy 4.2 at exit and hung bpy 4.5; issue #27).

The exit tests run a script in a fresh process: the add-on registered, an engine job running
in its worker thread and the warm-up following two compiling processes (stand-ins that sleep,
so nothing is compiled), then the script ends (without disabling anything, with an exit status, or after disabling the
add-on: bpy 4.2 crashed at exit even then, see ``_release_bpy_at_exit`` in __init__.py)."""
import os
import subprocess
import sys
import time

import pytest

from blender_support import ROOT, addon, addon_module, bpy  # noqa: F401

pytestmark = pytest.mark.blender

# What the script leaves running when it ends; it prints the ids to check afterwards.
SCRIPT = r"""
import subprocess, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from blender_support import load_addon
addon = load_addon()
addon.register()
from nonogram3d.jobs import warmup, worker

def loop(progress):
    while not progress(0.5, "looping"):
        time.sleep(0.01)
    print("JOB STOPPED", flush=True)

worker.Job("test", loop).start()

def spawn(parts, base):  # a compiling process that never finishes
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                            stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    # one write: the two groups' threads spawn at once, and print() writes its parts apart,
    # so two prints could interleave into a line no longer starting with "CHILD "
    sys.stdout.write(f"CHILD {proc.pid}\n")
    sys.stdout.flush()
    return proc

warmup._spawn = spawn
warmup.start()
t0 = time.monotonic()
while len(warmup._procs) < len(warmup.GROUPS) and time.monotonic() - t0 < 60:
    time.sleep(0.05)
print("RUNNING", len(warmup._procs), flush=True)
""" + "{end}\n"


def _gone(pid, wait=10.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < wait:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/stat") as f:  # a zombie waiting for its parent is gone too
                if f.read().split(") ")[-1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def _run(end):
    code = SCRIPT.replace("{end}", end)
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT), str(ROOT / "tests")],
                          capture_output=True, text=True, timeout=120)
    return proc, time.monotonic() - t0


@pytest.mark.skipif(sys.platform != "linux", reason="checks the child processes in /proc")
@pytest.mark.parametrize("end, status", [("", 0), ("sys.exit(3)", 3), ("addon.unregister()", 0)],
                         ids=["script-ends", "sys-exit-3", "disabled-first"])
def test_exit_stops_jobs_and_warm_up_processes_with_the_scripts_status(end, status):
    proc, seconds = _run(end)
    out = proc.stdout
    assert proc.returncode == status, (proc.returncode, out[-2000:], proc.stderr[-3000:])
    assert f"RUNNING {len(addon_module('jobs.warmup').GROUPS)}" in out, out
    assert "JOB STOPPED" in out, "the job's thread was not stopped at exit"
    children = [int(line.split()[1]) for line in out.splitlines() if line.startswith("CHILD ")]
    assert children and all(_gone(pid) for pid in children), "a warm-up process outlived Blender"
    assert seconds < 60, "exit waited for the processes instead of stopping them"


def test_disabling_stops_a_running_job_and_the_warm_up(addon, monkeypatch):
    worker, warmup = addon_module("jobs.worker"), addon_module("jobs.warmup")
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "_state", dict(warmup._state, state="idle", done=0, total=0,
                                               error="", loaded=()))
    monkeypatch.setattr(addon_module("engine.gate"), "_done", set())  # nothing compiled yet
    procs = []

    def spawn(parts, base):
        p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                             stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
        procs.append(p)
        return p
    monkeypatch.setattr(warmup, "_spawn", spawn)
    stopped = []

    def loop(progress):
        while not progress(0.5):
            time.sleep(0.01)
        stopped.append(True)
    job = worker.Job("test", loop).start()
    warmup.start()
    t0 = time.monotonic()
    while len(procs) < len(warmup.GROUPS) and time.monotonic() - t0 < 60:
        time.sleep(0.05)
    threads = list(warmup._threads)
    assert len(procs) == len(warmup.GROUPS) and threads
    try:
        t0 = time.monotonic()
        addon.unregister()
        assert time.monotonic() - t0 < addon.operators.STOP_WAIT + 1.0
        assert stopped and not job._thread.is_alive()
        assert all(p.poll() is not None for p in procs), "a warm-up process survived disabling"
        assert not any(t.is_alive() for t in threads)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        addon.register()


def test_stopping_waits_no_longer_than_asked(addon):
    """A thread that ignores the stop (a compile cannot be cut short) delays disabling by the
    bounded wait, not until it ends."""
    worker = addon_module("jobs.worker")
    release = __import__("threading").Event()
    job = worker.Job("test", lambda progress: release.wait(30)).start()
    try:
        t0 = time.monotonic()
        assert addon.operators.stop_background(timeout=0.3) is False
        assert 0.25 < time.monotonic() - t0 < 2.0
        assert job.cancel_event.is_set()
    finally:
        release.set()
        job._thread.join(5)
    assert addon.operators.stop_background(timeout=1.0) is True


# The add-on enabled as Blender enables an installed extension (bl_ext.user_default.nonogram3d,
# through addon_utils), in a fresh process whose user folder holds only it (a link to this
# checkout); the script then ends, or disables it first.
ENABLED_SCRIPT = r"""
import sys
import bpy
r = bpy.ops.preferences.addon_enable(module="bl_ext.user_default.nonogram3d")
print("ENABLED", sorted(r), hasattr(bpy.types, "NONOGRAM_OT_make"), flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="links the checkout into the user folder")
@pytest.mark.parametrize("end", ["", 'bpy.ops.preferences.addon_disable(module="bl_ext.user_default.nonogram3d")'],
                         ids=["script-ends", "disabled-first"])
def test_a_script_that_enabled_the_extension_ends_without_a_traceback(tmp_path, end):
    """Our exit hook unregisters the add-on (the bpy module has no add-on shutdown of its own
    before Python's), then Blender's exit disables every add-on: unregister ran twice and the
    second printed "Exception in module unregister() ... missing bl_rna attribute"."""
    repo = tmp_path / "extensions" / "user_default"
    repo.mkdir(parents=True)
    (repo / "nonogram3d").symlink_to(ROOT, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLENDER_")}
    env["BLENDER_USER_RESOURCES"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", ENABLED_SCRIPT + end + "\n"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert "ENABLED ['FINISHED'] True" in proc.stdout, (proc.stdout[-2000:], proc.stderr[-3000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "Exception in module" not in proc.stderr, proc.stderr[-3000:]
