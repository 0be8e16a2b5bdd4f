"""The add-on compiles its kernels ahead (jobs/warmup.py) and every limit holds in its
worker: a real long-line solve stops within about a second of Esc, and a solve still waiting
for its kernels is abandoned at once."""
import threading
import time

import numpy as np
import pytest

from blender_support import Event, Recorder, addon, addon_module, bpy, engine  # noqa: F401
from test_blender_solve import _modal_op

pytestmark = pytest.mark.blender

SLACK = 2.0  # seconds, on a loaded machine; the failure this catches ran for minutes


def _square_line(n):
    clues = engine("model.clues")
    g = np.random.default_rng(0).random((1, 1, n)) < 0.5
    hidden = np.ones(clues.puzzle_from_grid(g).n_lines, bool)
    hidden[-1] = False
    return clues.puzzle_from_grid(g, hidden=hidden)


def test_worker_job_stops_a_long_line_solve_on_cancel(addon):
    worker = addon_module("jobs.worker")
    solve = engine("solve.driver").solve
    solve(_square_line(200), time_limit=5)  # compiled before timing
    puzzle = _square_line(20000)
    job = worker.Job("solve", lambda progress: solve(puzzle, progress=progress)).start()
    time.sleep(0.5)
    assert not job.done
    t0 = time.perf_counter()
    job.cancel_event.set()
    assert job.done_event.wait(30)
    job.finished = True
    assert time.perf_counter() - t0 < SLACK
    assert job.error is None and job.result.stats["cancelled"] and job.result.verdict == "unknown"


def test_esc_abandons_a_solve_waiting_for_its_kernels(addon):
    worker = addon_module("jobs.worker")
    release = threading.Event()

    def work(progress):
        progress(0.0, worker.PREPARING)  # what solve() reports before compiling
        release.wait(10)  # compiling: the callback is not polled
        return "late"
    ctx = Recorder()
    op = _modal_op(addon, work)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    time.sleep(0.05)
    t0 = time.perf_counter()
    assert op.modal(ctx, Event('ESC', value='PRESS')) == {'CANCELLED'}
    assert time.perf_counter() - t0 < 0.5
    assert op.finished_with is None
    release.set()


@pytest.fixture
def fresh_warmup(monkeypatch):
    """The add-on's warm-up module as if the add-on had just been enabled."""
    warm = addon_module("jobs.warmup")
    monkeypatch.setattr(warm, "_thread", None)
    monkeypatch.setattr(warm, "_state", dict(warm._state, state="idle", done=0, total=0, error="", loaded=()))
    eng = engine("warmup")
    monkeypatch.setattr(engine("gate"), "_done", set())  # the parts compiled in this process
    return warm, eng


def test_warm_up_compiles_in_a_process_and_loads_here(fresh_warmup):
    warm, eng = fresh_warmup
    assert warm.status_text() == ""
    th = warm.start()
    assert warm.status()["state"] == "running" and warm.status_text().startswith("Preparing solver")
    th.join(900)
    st = warm.status()
    assert st["state"] == "ready", st
    assert st["where"] == "process" and not st["error"], st
    assert st["done"] == st["total"] > 0
    assert eng.ready("make", "masks", "solve", "design")  # loaded into Blender's process
    assert st["loaded"].index("solve") < st["loaded"].index("design") and "make" in st["loaded"]
    # the design part waited for the design kernels Make's process compiled (or took over the
    # rest of them: then they are loaded after it)
    loaded = st["loaded"]
    assert loaded.index("masks") < loaded.index("design") or warm._taken == {"masks"}
    assert warm.status_text().startswith("Solver ready")
    runtime = addon_module("jobs.kernel_cache")
    assert runtime.numba_status()["warmup"] == warm.status_text()
    assert warm.start() is th  # once per session


def test_warm_up_compiles_here_when_no_process_can_run(fresh_warmup, monkeypatch):
    warm, eng = fresh_warmup
    monkeypatch.setattr(warm, "_python", lambda: "")
    warm.start().join(900)
    st = warm.status()
    assert st["state"] == "ready" and st["where"] == "blender", st
    assert eng.ready("make", "solve", "design")


def test_a_failing_process_falls_back_to_compiling_here(fresh_warmup, monkeypatch):
    warm, eng = fresh_warmup
    monkeypatch.setattr(warm, "_CHILD", "raise SystemExit('no numba in this interpreter')")
    warm.start().join(900)
    st = warm.status()
    assert st["state"] == "ready" and st["where"] == "blender", st
    assert "no numba in this interpreter" in st["error"]
    assert eng.ready("make", "solve", "design")


def fake_child(make_s=0.0):
    """A child speaking the processes' protocol: its make part takes ``make_s`` seconds and its
    masks part never ends by itself (a slow, low-priority compile)."""
    return r"""
import sys, time
parts = sys.argv[4].split(",")
print("TOTAL %d" % len(parts), flush=True)
for part in parts:
    if part == "make":
        time.sleep(MAKE_S)
    print("NEED " + part, flush=True)
    sys.stdin.readline()
    if part == "masks":
        time.sleep(600)
    print("STEP " + part, flush=True)
    print("PART " + part, flush=True)
""".replace("MAKE_S", repr(float(make_s)))


def test_the_solver_process_takes_over_design_kernels_still_compiling(fresh_warmup, monkeypatch):
    warm, eng = fresh_warmup
    monkeypatch.setattr(warm, "_CHILD", fake_child())
    t0 = time.perf_counter()
    warm.start().join(500)
    st = warm.status()
    assert time.perf_counter() - t0 < 300  # the masks process was stopped, not waited for
    assert st["state"] == "ready" and st["where"] == "process" and not st["error"], st
    # make, solve, design and the colour parts after them: masks' step went with it
    assert st["done"] == st["total"] == 5
    assert eng.ready("make", "masks", "solve", "design")
    assert st["loaded"].index("design") < st["loaded"].index("masks")


def test_solve_panel_shows_one_line_about_the_warm_up(fresh_warmup, monkeypatch):
    import blender_support as bs
    from test_blender_addon import _draw_all
    warm, _eng = fresh_warmup
    addon = bs.ensure_registered()
    bs.reset_scene()
    bs.add_primitive("cube")
    bpy.context.scene.nonogram_settings.resolution = 3
    assert bs.run_op(bpy.ops.nonogram.make) == {'FINISHED'}

    def lines():
        return [t for kind, t in _draw_all(addon) if kind == "label" and "olver" in t]
    assert lines() == []  # not started (background mode does not start it)
    monkeypatch.setattr(warm, "_state", dict(warm._state, state="running", done=2, total=4))
    assert lines() == ["Preparing solver... 2/4"]
    monkeypatch.setattr(warm, "_state", dict(warm._state, done=3, loaded=("make", "solve")))
    assert lines() == ["Solver ready; preparing design tools... 3/4"]
    monkeypatch.setattr(warm, "_state", dict(warm._state, state="failed", error="OSError: boom"))
    assert lines() == ["Solver preparation failed: OSError: boom"]
    monkeypatch.setattr(warm, "_state", dict(warm._state, state="ready", seconds=12.3, error=""))
    assert lines() == ["Solver ready (prepared in 12 s)"]


# Speaks the processes' protocol and never finishes a part.
STUCK = r"""
import sys, time
parts = sys.argv[4].split(",")
print("TOTAL %d" % len(parts), flush=True)
print("NEED " + parts[0], flush=True)
sys.stdin.readline()
time.sleep(600)
"""


def test_disabling_stops_the_warm_up_without_compiling_in_blender(fresh_warmup, monkeypatch):
    """unregister() stops the compiling processes; the run then ends instead of compiling their
    parts in Blender's process (as it does when a process fails), and a new start begins anew."""
    warm, eng = fresh_warmup
    monkeypatch.setattr(warm, "_CHILD", STUCK)
    th = warm.start()
    t0 = time.perf_counter()
    while sum(p.poll() is None for p in warm._procs) < 2 and time.perf_counter() - t0 < 60:
        time.sleep(0.05)
    procs = [p for p in warm._procs if p.poll() is None]
    assert len(procs) == 2, warm.status()
    warm.unregister()
    th.join(30)
    assert not th.is_alive()
    assert all(p.wait(10) is not None for p in procs)
    assert warm.status()["state"] == "idle", warm.status()
    assert not eng.ready("make") and not eng.ready("solve")  # nothing compiled here
    assert warm._thread is None
    th2 = warm.start()  # enabled again: a new run
    assert th2 is not th and warm.status()["state"] == "running"
    warm.unregister()
    th2.join(30)
    assert not th2.is_alive()


def test_the_take_over_holds_when_the_design_kernels_were_not_started(fresh_warmup, monkeypatch):
    """The solver's process must not wait for a low-priority part its peer has not begun: it
    takes it over at once, and the peer is stopped when it gets there."""
    warm, eng = fresh_warmup
    # Make's part is slow: the solver's process needs the design kernels before Make's process
    # has even started on them
    monkeypatch.setattr(warm, "_CHILD", fake_child(make_s=3.0))
    t0 = time.perf_counter()
    th = warm.start()
    th.join(120)
    assert not th.is_alive(), warm.status()
    assert time.perf_counter() - t0 < 120
    st = warm.status()
    assert st["state"] == "ready" and st["where"] == "process" and not st["error"], st
    assert st["done"] == st["total"] == 5, st  # make, solve, design, colour, colourdesign: masks' step went with it
    assert eng.ready("make", "masks", "solve", "design")
    assert "masks" in warm._taken


def test_an_engine_module_another_thread_is_importing_is_waited_for(addon, tmp_path, monkeypatch):
    """The warm-up thread imports engine modules while an operator may ask for the same one:
    with kernels ready at once (prebuilt in the zip), a Solve right after Make got the warm-up's
    half-imported engine.solve.driver, without its ``solve``."""
    import sys
    runtime = addon_module("jobs.runtime")
    runtime.engine("jit")
    package = sys.modules[runtime.ADDON_PACKAGE + ".engine"]
    (tmp_path / "slow_for_test.py").write_text("import time\ntime.sleep(0.6)\nDONE = True\n")
    monkeypatch.setattr(package, "__path__", list(package.__path__) + [str(tmp_path)])
    name = runtime.ADDON_PACKAGE + ".engine.slow_for_test"
    monkeypatch.delitem(sys.modules, name, raising=False)
    importer = threading.Thread(target=runtime.engine, args=("slow_for_test",))
    importer.start()
    try:
        time.sleep(0.2)
        assert name in sys.modules and not hasattr(sys.modules[name], "DONE")  # half-imported
        assert runtime.engine("slow_for_test").DONE
    finally:
        importer.join()
        sys.modules.pop(name, None)



def test_the_solvers_kernels_load_first_though_makes_process_finishes_first(fresh_warmup, monkeypatch):
    """With the zip's prebuilt kernels each process only loads them, Make's finishing first; its
    part must not take the GIL before the solver's is loaded here (issue 22: the solver was ready
    3.5-5.3 s after enabling on a loaded machine): the first Solve waits for the solver's only."""
    warm, eng = fresh_warmup
    child = r"""
import sys, time
parts = sys.argv[4].split(",")
print("TOTAL %d" % len(parts), flush=True)
for part in parts:
    print("NEED " + part, flush=True)
    sys.stdin.readline()
    if part == "solve":
        time.sleep(1.5)  # Make's process reports its parts meanwhile
    print("STEP " + part, flush=True)
    print("PART " + part, flush=True)
"""
    order = []

    def ensure(*parts):  # records the order, loads nothing
        order.extend(parts)
        engine("gate")._done.update(parts)
        return 0.0
    monkeypatch.setattr(warm, "_CHILD", child)
    monkeypatch.setattr(eng, "ensure", ensure)
    warm.start().join(60)
    st = warm.status()
    assert st["state"] == "ready" and st["where"] == "process" and not st["error"], st
    assert order[0] == "solve" and sorted(order) == ["colour", "colourdesign", "design", "make", "masks", "solve"], order
    assert st["loaded"][0] == "solve"


def test_the_compiling_processes_write_the_bytecode_blender_then_reads(addon, tmp_path):
    """An installed zip carries no bytecode: Blender's loading thread compiled each engine
    module's source, one call holding the GIL (the main-thread stalls issue 22 traced while the
    main thread waited). The processes import the same modules first and write it, even where
    PYTHONDONTWRITEBYTECODE is set."""
    import os
    import shutil
    import subprocess
    import sys
    warm = addon_module("jobs.warmup")
    root = os.path.dirname(os.path.dirname(os.path.abspath(warm.__file__)))
    shutil.copytree(os.path.join(root, "engine"), tmp_path / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "prebuilt"))
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONDONTWRITEBYTECODE="1")
    subprocess.run([sys.executable, "-c", warm._CHILD, str(tmp_path), "bytecode_probe", "", "make"],
                   input="0\n", capture_output=True, text=True, env=env, timeout=300, check=False)
    written = {p.name.split(".")[0] for p in (tmp_path / "engine" / "__pycache__").glob("*.pyc")}
    assert {"__init__", "jit", "gate"} <= written, written
