"""Compiling the engine's kernels ahead, without blocking Blender.

When the add-on is enabled, two Python processes of their own (Blender's interpreter) compile
kernels into the add-on's kernel cache in parallel (``GROUPS``): one Make's and then the design
tools' own, the other the full solver's and then the rest the design tools need; a thread here
loads each finished part from that cache (well under a second). Why a process and not a
thread: numba compiles holding the GIL most of the time, and a compiling thread beside
Blender's UI stalled it for up to 0.5 s at a time (measured on the shared 2-core machine: 18
stalls over 100 ms during a 56 s warm-up); the processes also use the other core. A Make, a
Solve, a Hide Clues or a live check started meanwhile waits for its part's process, then
loads, instead of compiling the same kernels a second time (``engine.warmup.set_external``).
If a process cannot run, the thread compiles here instead.

``status()`` / ``status_text()`` give the state the Solve panel and the preferences show:
"Preparing solver... n/m", ready, or failed and why.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

from . import engine_access, runtime

# One process per group, the groups in parallel, a group's parts in order. Make's kernels take
# a fraction of the solver's, so Make's process then compiles the design tools' own kernels
# (``masks``, which calls no solver kernel but the line solvers, compiled early in the other
# process), while the other compiles the solver's; ``design`` (Hide Clues, the live check,
# Suggest Clue: their kernels and the solver's) then waits for ``masks`` (``AFTER``) and only
# loads. The first Solve, which a user reaches before the design tools, waits for neither.
# The colour kind's kernels (``colour``: its solver's; ``colourdesign``: its design's, for designs,
# the live check, Suggest / Repair)
# come last, at a low priority, in the solver's process: Make's may be stopped in ``masks`` for
# the solver's to take over (``_take_over``), and would leave them undone.
GROUPS = (("make", "masks"), ("solve", "design", "colour", "colourdesign"))
PARTS = tuple(p for group in GROUPS for p in group)
AFTER = {"design": ("masks",)}  # part -> parts another process must have finished first
# On a busy machine the design kernels must not take CPU from the solver's, which the first
# Solve waits for: they compile at a lower priority (measured with other jobs on the 2 cores:
# the first Solve waited up to 8.3 s when both compiled at the same priority). Once the solver's
# process is done, it takes over what is left of them at the normal priority (``_take_over``).
NICE = {"masks": 10, "colour": 10, "colourdesign": 10}
ONE_THREAD = ("make", "solve", "masks", "design", "colour", "colourdesign")  # the order when Blender compiles them itself

_state: dict[str, Any] = {"state": "idle", "done": 0, "total": 0, "error": "", "seconds": 0.0, "where": "",
                          "loaded": ()}
_finished: dict = {}  # part -> threading.Event: the process compiled it (or stopped trying)
_procs: list = []  # the compiling processes, while they run
_doing: dict = {}  # process -> the part it is compiling
_taken: set = set()  # parts whose process was stopped for another to finish them
# Set once the solver's part is loaded here (or will not be): until then the other parts wait
# to be loaded, though their processes finished first (Make's does, with the zip's prebuilt
# kernels): loading takes the GIL, and the first Solve waits for the solver's kernels only.
_solver_loaded = threading.Event()
_thread = None
_stop = threading.Event()  # the current run's: set by unregister(), the add-on is going away
_threads: list = []  # every thread a run started (its own, its followers), until stop() joined them

# The start of a script another Python process runs: the engine of the add-on folder argv[1]
# imported as ``jit`` under the add-on's own package name argv[2] (cached kernels name their
# modules, so the add-on loads only what was compiled under its name), without the add-on itself
# (which needs bpy). scripts/build_extension.py starts its prebuilt kernels' builds with it too.
IMPORT_ENGINE = r"""
import importlib, sys, types
addon_dir, package = sys.argv[1], sys.argv[2]
names = package.split(".")
for i in range(1, len(names) + 1):
    module = types.ModuleType(".".join(names[:i]))
    module.__path__ = [addon_dir] if i == len(names) else []
    sys.modules[module.__name__] = module
jit = importlib.import_module(package + ".engine.jit")
"""

# Run by Blender's Python in the second process.
_CHILD = r"""
import sys
# Write the bytecode of what this process imports (the add-on's engine; an installed zip has
# none): Blender's loading thread then reads it, where it would compile each module's source,
# one call holding the GIL for tens of milliseconds (and for more when the machine is busy: a
# main-thread stall), even where PYTHONDONTWRITEBYTECODE is set.
sys.dont_write_bytecode = False
""" + IMPORT_ENGINE + r"""
import os
base, parts = sys.argv[3], sys.argv[4].split(",")
if not jit.HAVE_NUMBA:
    print("ERROR " + jit.NUMBA_ERROR, flush=True)
    sys.exit(3)
if base:
    jit.set_cache_base(base)
warmup = importlib.import_module(package + ".engine.warmup")
print("TOTAL %d" % sum(len(warmup.PARTS[p]) for p in parts), flush=True)
for part in parts:
    print("NEED " + part, flush=True)
    # the parent answers once the parts this one builds on are done, with a niceness increment
    nice = int(sys.stdin.readline().strip() or 0)
    if nice and hasattr(os, "nice"):
        os.nice(nice)
    warmup.run_parts([part], lambda name: print("STEP " + name, flush=True))
    print("PART " + part, flush=True)
"""


def status() -> dict:
    """``state`` ('idle': not started, 'running', 'ready', 'failed'), ``done``/``total`` steps,
    ``error`` (why it failed), ``seconds`` (once finished), ``where`` ('process' or 'blender'),
    ``loaded``: the parts ready in this process so far."""
    return dict(_state)


def status_text() -> str:
    """One line for the panels ('' before anything started)."""
    st = _state["state"]
    if st == "running":
        total = _state["total"]
        n = f" {_state['done']}/{total}" if total else ""
        if "solve" in _state["loaded"]:  # the design tools' kernels come after the solver's
            return f"Solver ready; preparing design tools...{n}"
        return f"Preparing solver...{n}"
    if st == "ready":
        return f"Solver ready (prepared in {_state['seconds']:.0f} s)"
    if st == "failed":
        return f"Solver preparation failed: {_state['error']}"
    return ""


def _loaded(part):
    _state["loaded"] = _state["loaded"] + (part,)


def _python() -> str:
    """Blender's Python interpreter ('' when sys.executable is not one, e.g. a Blender binary)."""
    exe = sys.executable or ""
    return exe if os.path.basename(exe).lower().startswith("python") else ""


def _wait_for_process(part):
    event = _finished.get(part)
    if event is not None:
        event.wait()


def _spawn(parts, base):
    addon_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.Popen(
        [_python(), "-c", _CHILD, addon_dir, runtime.ADDON_PACKAGE, base, ",".join(parts)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.PIPE, text=True, env=env,
        creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))


def _take_over(part):
    """Stop the process compiling ``part`` at a low priority: the caller's process, free now,
    compiles what is left of it at the normal one. Nothing done is lost: numba saves each
    kernel to the cache (atomically) as soon as it is compiled. A process that has not reached
    ``part`` yet is stopped when it does (``_follow``), so the caller never waits for it."""
    done = _finished.get(part)
    if not NICE.get(part) or (done is not None and done.is_set()):
        return
    _taken.add(part)
    for proc, doing in list(_doing.items()):
        if doing == part and proc.poll() is None:
            proc.terminate()


def _follow(group, warm, problems, stop):
    """Compile the parts of ``group`` in a process of their own and load each here once it is
    in the cache."""
    try:
        proc = _spawn(group, runtime.active_cache_dir())
    except OSError as exc:
        problems.append(str(exc))
        for part in group:
            _finished[part].set()
        return
    _procs.append(proc)
    if stop.is_set():  # disabled while it was starting: unregister() may have missed it
        proc.terminate()
    last = ""
    steps = 0  # of the part it is compiling
    try:
        for line in proc.stdout:
            kind, _, arg = line.strip().partition(" ")
            if kind == "TOTAL":
                _state["total"] += int(arg)
            elif kind == "STEP":
                _state["done"] += 1
                steps += 1
            elif kind == "NEED":
                for before in AFTER.get(arg, ()):
                    _take_over(before)
                    if before not in _taken:
                        _wait_for_process(before)
                _doing[proc], steps = arg, 0
                if arg in _taken:  # the other process, free now, compiles it at normal priority
                    proc.terminate()
                    continue
                try:
                    proc.stdin.write(f"{NICE.get(arg, 0)}\n")
                    proc.stdin.flush()
                except OSError:  # it stopped meanwhile; its output says why
                    pass
            elif kind == "ERROR":
                last = arg
            elif kind == "PART":
                _doing.pop(proc, None)
                _finished[arg].set()
                if arg != "solve":
                    _solver_loaded.wait()  # the solver's kernels are loaded first
                warm.ensure(arg)  # loads what the process compiled
                _loaded(arg)
                if arg == "solve":
                    _solver_loaded.set()
                for before in AFTER.get(arg, ()):
                    if before in _taken and before not in _state["loaded"]:  # this process compiled
                        warm.ensure(before)  # the rest of it: loads
                        _loaded(before)
            elif line.strip():
                last = line.strip()  # a traceback's last line says why
        stopped = _doing.pop(proc, None)
        code = proc.wait()
        if stopped in _taken:  # its steps left are another process's now
            _state["total"] -= len(warm.PARTS[stopped]) - steps
        elif code != 0 and not _taken.intersection(group):
            problems.append(last or f"exit status {code}")
    finally:
        for part in group:
            _finished[part].set()
        if "solve" in group:  # loaded, or it never will be: the other parts wait no longer
            _solver_loaded.set()


def _work(parts, use_process, stop):
    t0 = time.perf_counter()
    try:
        warm = engine_access.kernels_warmup
        runtime.load(warm)  # imports numba here, in this thread
        if runtime.numba_error():
            _state.update(state="idle")  # plain Python: nothing to compile
            return
        left = [p for p in parts if not warm.ready(p)]
        problems: list = []
        if left and use_process and _python():
            # one process per group, in parallel (the other core is otherwise idle); a Make or a
            # Solve started meanwhile waits for its part instead of compiling it a second time
            groups = [g for g in ([p for p in group if p in left] for group in GROUPS) if g]
            groups += [[p] for p in left if p not in PARTS]
            for p in left:
                _finished[p] = threading.Event()
            if "solve" not in left:  # nothing to load first
                _solver_loaded.set()
            warm.set_external(_wait_for_process)
            _state["where"] = "process"
            followers = [threading.Thread(target=_follow, args=(g, warm, problems, stop),
                                          name="nonogram: follow warm-up", daemon=True)
                         for g in groups]
            _threads.extend(followers)
            try:
                for t in followers:
                    t.start()
                for t in followers:
                    t.join()
            finally:
                warm.set_external(None)
            left = [p for p in parts if not warm.ready(p)]
        if stop.is_set():
            # disabled meanwhile (its processes were stopped): compile nothing in Blender
            _state.update(state="idle")
            return
        if left:
            # no process (or it failed): compile here, in this thread, the solver first
            left.sort(key=lambda p: ONE_THREAD.index(p) if p in ONE_THREAD else len(ONE_THREAD))
            _state.update(where="blender", total=_state["done"] + sum(len(warm.PARTS[p]) for p in left))
            for p in left:
                try:  # disabled meanwhile: the step being compiled cannot be cut short, the rest is
                    warm.run_parts([p], lambda name: _state.__setitem__("done", _state["done"] + 1),
                                   stop=stop)
                except warm.Stopped:
                    _state.update(state="idle")
                    return
                _loaded(p)
        _state.update(state="ready", error=f"(compiled in Blender: {problems[0]})" if problems else "")
    except Exception as exc:
        _state.update(state="failed", error=f"{type(exc).__name__}: {exc}")
    finally:
        if not stop.is_set():  # a stopped run leaves the state to the next one
            _state["seconds"] = time.perf_counter() - t0
            _procs.clear()


def start(parts=PARTS, use_process=True) -> threading.Thread:
    """Start preparing ``parts`` in the background (once; later calls return the same thread)."""
    global _thread, _stop
    if _thread is None:
        _stop = threading.Event()
        _taken.clear()
        _doing.clear()
        _solver_loaded.clear()
        _state.update(state="running", done=0, total=0, error="", seconds=0.0, where="", loaded=())
        _thread = threading.Thread(target=_work, args=(tuple(parts), use_process, _stop),
                                   name="nonogram: prepare solver", daemon=True)
        _threads[:] = [t for t in _threads if t.is_alive()] + [_thread]
        _thread.start()
    return _thread


def _start_later():
    start()
    return None  # a one-shot timer


# Timers run only in Blender's event loop, i.e. once Blender has started: a longer first interval
# only delays the solver (it was 1 s, all of it added to "solver ready").
START_DELAY = 0.1


def register():
    import bpy
    # After Blender has finished starting; not in background mode (batch, tests), whose solves
    # compile what they need themselves.
    if not bpy.app.background:
        bpy.app.timers.register(_start_later, first_interval=START_DELAY)


def stop(deadline=None) -> bool:
    """End the run: its processes are terminated, and it compiles nothing more in Blender (the
    step it may be compiling cannot be cut short). With a ``deadline`` (``time.monotonic()``),
    wait until then for its processes and threads; a process still running then is killed.
    True when nothing of it is left running. Enabling the add-on again starts a new run."""
    global _thread
    _stop.set()
    _thread = None
    for proc in list(_procs):
        if proc.poll() is None:
            proc.terminate()
    if deadline is None:
        return False
    for proc in list(_procs):
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
    for thread in list(_threads):
        if thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
    _threads[:] = [t for t in _threads if t.is_alive()]
    return not _threads


def unregister():
    import bpy
    if bpy.app.timers.is_registered(_start_later):
        bpy.app.timers.unregister(_start_later)
    stop()
