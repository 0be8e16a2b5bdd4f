"""The add-on's warm-up with numba's cache empty, in real bpy (headless): how long until the
solver is ready, how long a user who enables the add-on, makes a nonogram and clicks Solve
some seconds later waits for kernels (then clicks Hide Clues), and how often the main thread
stalls meanwhile.

    .venv/bin/python scripts/bench_warmup.py [--repeat 3] [--model PATH] [--res 24] [--delay 20]
    .venv/bin/python scripts/bench_warmup.py --zip dist/nonogram3d-0.1.0-linux_x64.zip  # as installed

``--zip``: install that built zip (Blender's own installer, into a temporary user folder) and
time the installed add-on, with the prebuilt kernels it carries (see build_extension.py);
"kernels compiled" counts the entries written to its (empty) kernel cache, i.e. kernels no
process could load and had to compile.

Each repeat is a fresh process with an empty cache folder (TMPDIR points at a new temporary
folder, where the add-on keeps its kernel cache outside an installed extension). In it:
enable the add-on and start the warm-up as its start-up timer does (background mode does not
run timers), make a nonogram from the model (Make waits for nothing: it compiles what it needs
if the warm-up has not got there), wait ``--delay`` seconds, then Solve, then Hide Clues (a 5 s
time limit). Printed per run and as medians: seconds until the warm-up is ready, Make's time,
the Solve's wait for kernels (its report's ``compile_s``) and its ``time_s``, Hide Clues' wait
for kernels (its result's ``compile_s``), and main-thread stalls over 100 ms (a thread
sleeping 1 ms, like a UI waiting for events), and how many of them came while the main thread
itself was waiting (sleeping, or blocked on a lock or on an import another thread runs): the
others fall in the main thread's own work (this script runs Make, Solve and Hide Clues on it,
whose building holds the GIL), which a UI would spend busy anyway. ``--trace-stalls`` prints
where each thread was when a stall ended. Figures are wall times on a shared machine.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "horse.ply"


def _install(zip_path: str) -> str:
    """Install and enable the zip (BLENDER_USER_RESOURCES is a temporary folder); its package."""
    import bpy
    assert bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                    enable_on_install=True) == {'FINISHED'}
    return "bl_ext.user_default." + os.path.basename(zip_path).split("-")[0]


def _where(length: float, at: float, phase: str) -> dict:
    """A stall just ended: the innermost frames of every other thread (the one that held the
    GIL has just let it go, usually right after the call that held it)."""
    import traceback
    me = threading.get_ident()
    names = {t.ident: t.name for t in threading.enumerate()}
    threads = {}
    for ident, frame in sys._current_frames().items():
        if ident != me:
            stack = traceback.extract_stack(frame)[-4:]
            threads[names.get(ident, str(ident))] = [f"{os.path.basename(f.filename)}:{f.lineno} {f.name}"
                                                     for f in stack]
    main = sys._current_frames().get(threading.main_thread().ident)
    return {"ms": round(1000 * length), "at_s": round(at - length, 2), "main": phase, "threads": threads,
            "main_waiting": _waiting(main)}


def _waiting(frame) -> bool:
    """Is the main thread blocked (sleeping, or waiting for a lock, a thread or an import
    another thread is running) rather than running its own code? Then the stall is another
    thread's doing: it held the GIL (or the lock) that long."""
    import linecache
    if frame is None:
        return False
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    return (frame.f_code.co_name in ("acquire", "wait", "join", "_wait_for_tstate_lock", "__enter__")
            or any(w in line for w in ("sleep(", ".wait(", ".join(", "acquire(", "with _lock")))


def child(model: str, res: int, delay: float, zip_path: str = "") -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)  # later, it would disable an installed add-on
    t_install = time.perf_counter()
    if zip_path:
        package = _install(zip_path)
    else:
        import blender_support as bs
        package = bs.PACKAGE
    install_s = time.perf_counter() - t_install
    stalls = []
    culprits: list = []  # per stall: where each other thread was when the watcher got the GIL back
    phase = ["enable"]  # what the main thread is doing (the bench's own steps)
    stop = threading.Event()
    seen: dict = {}  # "solver" / "ready" -> seconds after enabling

    def watch():
        # like a UI thread: wakes every millisecond, needs the GIL each time
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            if now - last > 0.1:
                stalls.append(now - last)
                culprits.append(_where(now - last, now - t0, phase[0]))
            last = now
            st = warm.status()
            if "solver" not in seen and "solve" in st["loaded"]:
                seen["solver"] = now - t0
            if "ready" not in seen and st["state"] == "ready":
                seen["ready"] = now - t0

    t0 = time.perf_counter()
    if not zip_path:
        bs.ensure_registered()
    warm = sys.modules[package + ".jobs.warmup"]
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    warm.start()  # what the add-on's start-up timer calls
    phase[0] = "import model"
    if model and os.path.exists(model):
        bpy.ops.wm.ply_import(filepath=model)
    else:
        bpy.ops.mesh.primitive_monkey_add()
    src = bpy.context.selected_objects[0]
    bpy.context.view_layer.objects.active = src
    bpy.context.scene.nonogram_settings.resolution = res
    t_make = time.perf_counter()
    phase[0] = "Make"
    assert bpy.ops.nonogram.make() == {'FINISHED'}
    make_s = time.perf_counter() - t_make
    phase[0] = "sleeping"
    time.sleep(max(0.0, delay))
    solver_at = seen.get("solver")
    t_solve = time.perf_counter()
    phase[0] = "Solve"
    assert bpy.ops.nonogram.solve() == {'FINISHED'}
    solve_wall = time.perf_counter() - t_solve
    obj = bpy.context.active_object
    report = json.loads(obj.nonogram.report)
    obj.nonogram.design_options.time_limit = 5.0
    t_hide = time.perf_counter()
    phase[0] = "Hide Clues"
    assert bpy.ops.nonogram.hide_clues() == {'FINISHED'}
    hide_wall = time.perf_counter() - t_hide
    designed = json.loads(obj.nonogram.design)
    phase[0] = "waiting for the warm-up"
    warm_thread = warm.start()
    warm_thread.join()
    time.sleep(0.01)
    stop.set()
    watcher.join()
    ready_at = seen.get("ready", time.perf_counter() - t0)
    st = warm.status()
    jit = sys.modules[package + ".engine.jit"]
    folder = jit.cache_folder()
    compiled = sum(1 for f in (os.listdir(folder) if os.path.isdir(folder) else ()) if f.endswith(".nbc"))
    print("RESULT " + json.dumps({
        "install_s": install_s, "kernels_compiled": compiled, "prebuilt": jit.prebuilt_status(),
        "ready_s": ready_at, "solver_ready_s": solver_at, "make_s": make_s, "solve_click_s": t_solve - t0,
        "solve_wait_s": report["stats"].get("compile_s", 0.0), "solve_time_s": report["time_s"],
        "solve_wall_s": solve_wall, "verdict": report["verdict"], "where": st["where"],
        "hide_click_s": t_hide - t0, "hide_wait_s": designed.get("compile_s", 0.0),
        "hide_time_s": designed["time_s"], "hide_wall_s": hide_wall,
        "warmup_error": st["error"], "stalls_over_100ms": len(stalls),
        "worst_stall_s": max(stalls, default=0.0), "stalls": culprits,
        "stalls_main_waiting": sum(1 for c in culprits if c["main_waiting"]),
        "worst_main_waiting_s": max((c["ms"] / 1000 for c in culprits if c["main_waiting"]), default=0.0)}))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--res", type=int, default=24)
    ap.add_argument("--delay", type=float, default=20.0, help="seconds between Make and Solve")
    ap.add_argument("--zip", default="", help="install this built zip and time the installed add-on")
    ap.add_argument("--trace-stalls", action="store_true",
                    help="for each stall, print where the other threads were when it ended")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.model, args.res, args.delay, args.zip)
        return 0
    runs = []
    for i in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="nonogram-warmup-") as tmp:
            env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
            env["TMPDIR"] = tmp
            env["BLENDER_USER_RESOURCES"] = os.path.join(tmp, "blender_user")
            cmd = [sys.executable, __file__, "--child", "--model", args.model, "--res", str(args.res),
                   "--delay", str(args.delay), "--zip", os.path.abspath(args.zip) if args.zip else ""]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
            line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if line is None:
                print(p.stdout[-2000:], p.stderr[-4000:], file=sys.stderr)
                return 1
            r = json.loads(line[7:])
            runs.append(r)
            solver = "after the Solve" if r["solver_ready_s"] is None else f"{r['solver_ready_s']:.1f} s"
            print(f"run {i + 1}: solver ready {solver}, all ready {r['ready_s']:.1f} s after enabling "
                  f"({r['where']}); Make "
                  f"{r['make_s']:.1f} s; Solve clicked at {r['solve_click_s']:.1f} s waited "
                  f"{r['solve_wait_s']:.2f} s for kernels, solved in {r['solve_time_s']:.2f} s "
                  f"({r['verdict']}); Hide Clues clicked at {r['hide_click_s']:.1f} s waited "
                  f"{r['hide_wait_s']:.2f} s, designed in {r['hide_time_s']:.2f} s; main-thread "
                  f"stalls > 100 ms: {r['stalls_over_100ms']} "
                  f"(worst {1000 * r['worst_stall_s']:.0f} ms), of them with the main thread waiting (another "
                  f"thread's doing) {r['stalls_main_waiting']} (worst {1000 * r['worst_main_waiting_s']:.0f} ms); "
                  f"kernels compiled {r['kernels_compiled']}; "
                  f"{r['prebuilt']} {r['warmup_error']}", flush=True)
            if args.trace_stalls:
                for st in r["stalls"]:
                    who = "waiting" if st["main_waiting"] else "running"
                    print(f"  stall {st['ms']} ms at {st['at_s']} s, main thread: {st['main']} ({who})")
                    for name, stack in st["threads"].items():
                        print(f"    {name}: " + " <- ".join(reversed(stack)))
    if len(runs) > 1:
        def med(k):
            return statistics.median(r[k] for r in runs)
        solver = ("" if any(r["solver_ready_s"] is None for r in runs)
                  else f"solver ready {med('solver_ready_s'):.1f} s, ")
        print(f"median of {len(runs)}: {solver}all ready {med('ready_s'):.1f} s, Make {med('make_s'):.1f} s, "
              f"Solve waited {med('solve_wait_s'):.2f} s, Hide Clues waited {med('hide_wait_s'):.2f} s, "
              f"stalls > 100 ms {med('stalls_over_100ms'):.0f} (main thread waiting {med('stalls_main_waiting'):.0f}), "
              f"kernels compiled {med('kernels_compiled'):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
