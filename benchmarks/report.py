"""Stage 4: write docs/BENCHMARKS.md (and docs/img/*.png) from benchmarks/results/*.json.

Every number about our code in the document comes from the result files of the run; the seed study's
published figures come from benchmarks/seed_published.py (checked against the seed text at run time).

    python benchmarks/report.py
"""
from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import handwritten  # noqa: E402
from benchmarks import seed_published as SP  # noqa: E402
from benchmarks.common import DOC, LINESOLVERS, RESULTS, SEED_CONFIGS, load_json, log  # noqa: E402

LABELS = [c[0] for c in SEED_CONFIGS]
DONE = ("unique", "multiple", "none")
LSNAME = {"seed": "seed linesolver", "dp": "complete DP linesolver"}


# ---------------------------------------------------------------------------------------------
# formatting


def ft(s) -> str:
    """A time in s as text."""
    if s is None:
        return "—"
    if s < 0.001:
        return f"{s * 1000:.2f} ms"
    if s < 1:
        return f"{s * 1000:.1f} ms"
    if s < 100:
        return f"{s:.2f} s"
    return f"{s:.0f} s"


def fr(x, digits=3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def fx(x) -> str:
    """A ratio as 'N×'."""
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}×"
    if x >= 10:
        return f"{x:.1f}×"
    return f"{x:.2f}×"


def nth(k) -> str:
    k = int(k)
    if k == 1:
        return "one"
    suf = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suf}"


def table(head, rows) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def section_farm(farm) -> str:
    """Catalogue throughput (issue #26), from scripts/bench_farm.py."""
    runs, model, dask = farm["runs"], farm["model"], farm["dask"]
    out = [f"`scripts/bench_farm.py` ({farm['date']}): {farm['jobs']} jobs = "
           f"{len(farm['inputs'])} models ({', '.join(farm['inputs'])}) × sizes "
           f"{', '.join(map(str, farm['sizes']))}, options `{farm.get('batch_options', '')}`, no renders, warm numba cache (warm-up run "
           f"{farm['warmup_compile_s']} s, not counted){_farm_bytecode(farm)}; {farm['cpus']} CPUs, load average "
           f"{farm['load_start'][0]} at the start, {farm['load_end'][0]} at the end.", "",
           *farm_runs_table(runs)]
    times = runs["workers1"]["job_s"]
    vs_seq = (f" (`--workers 2 --pool` vs the one-process sequential batch: "
              f"{farm['speedup_workers2_vs_sequential']}×)" if "speedup_workers2_vs_sequential" in farm else "")
    rounds = farm.get("rounds") or []
    if len(rounds) > 1:  # the first round alone is one draw of a noisy VM: the medians are the figures
        out += ["", f"The same plan run {len(rounds)} times, the rounds interleaved (`--repeat "
                    f"{len(rounds)}`); the table above is the first round:", "", *farm_rounds_table(rounds)]
        pool_x = farm_target_figure(rounds, "speedup_workers2")
        dask_x = farm_target_figure(rounds, "speedup_dask2")
    else:
        pool_x, dask_x = f"{farm['speedup_workers2']}×", f"{farm['speedup_dask2']}×"
    out += ["", f"Target: 2 workers ≥ 1.8× one worker: own pool {pool_x}, "
                f"Dask LocalCluster {dask_x}{vs_seq}. Per job (in a started worker: import, "
                f"voxelize, solve, design, write): median {model.get('median_job_s', sorted(times)[len(times) // 2]):.2f} s, "
                f"longest {model['longest_job_s']:.2f} s, sum {model['sum_job_s']:.1f} s"
                + (f"; the jobs alone on 2 workers: {model['jobs_only_speedup_2']:.2f}×" if "jobs_only_speedup_2" in model
                   else "") + ". Overhead = wall minus the busiest worker's "
                f"start-up and jobs (the coordinator's start, handing out and collecting, a LocalCluster's start, "
                f"the workers' end). Dask: LocalCluster start {dask['startup_s']:.2f} s, "
                f"{dask['per_task_s'] * 1000:.2f} ms per task (round trip of {dask['tasks']} no-op tasks).", "",
            "Model (overhead + a worker's start-up + list scheduling of the measured per-job times, longest "
            "first as the batch hands them out, plus the per-task overhead): 2 workers predicted "
            f"{model['check_workers2_s']:.1f} s (measured {runs['workers2']['wall_s']:.1f} s), Dask 2 workers "
            f"{model['check_dask2_s']:.1f} s (measured {runs['dask2']['wall_s']:.1f} s). Predicted for more "
            "single-threaded workers (with the Dask run's overhead):", "",
            "| workers | this catalogue | speed-up | a catalogue 100× as long | speed-up |", "|---|---|---|---|---|"]
    for n in (1, 2, 8, 32, 128):
        out.append(f"| {n} | {model[f'catalogue_{n}']:.1f} s | {model['catalogue_1'] / model[f'catalogue_{n}']:.1f}× "
                   f"| {model[f'x100_{n}']:.0f} s | {model['x100_1'] / model[f'x100_{n}']:.1f}× |")
    out += ["", "A small catalogue stops scaling at its longest job; a long one scales until the scheduler's "
                "per-task overhead (one task dispatched at a time) or the shared folder's bandwidth binds."]
    if "speedup_dask2_vs_dask1" in farm:
        vs_dask1 = (farm_target_figure(rounds, "speedup_dask2_vs_dask1") if len(rounds) > 1
                    else f"{farm['speedup_dask2_vs_dask1']}×")
        out += ["", f"Dask's 2 workers against Dask's own 1 worker: {vs_dask1} "
                    f"(against the own pool's 1 worker: {dask_x})."]
    full = farm.get("full")
    if full:
        out += ["", f"The full catalogue (`scripts/bench_farm.py --full-jobs`): the same jobs with options "
                    f"`{full['batch_options']}` (each also writes its playable page, the run its index.html, "
                    f"and a small Cycles render of the player's view): own pool 2 vs 1 "
                    f"{full['speedup_workers2']}×, Dask 2 vs own pool 1 {full['speedup_dask2']}×, Dask 2 vs "
                    f"Dask 1 {full['speedup_dask2_vs_dask1']}×.", "", *farm_runs_table(full["runs"])]
    if "cpu" in farm:
        c = farm["cpu"]
        out += ["", f"CPU ceiling of this machine at the time: a CPU-bound process alone {c['alone_s']} s, two side "
                    f"by side {c['side_by_side_s']} s each: 2 processes give {c['ceiling']}× one."]
    return "\n".join(out)


def section_dask_parts(parts) -> str:
    """Dask's fixed cost part by part (issue #26), from scripts/bench_dask_parts.py."""
    out = [f"Dask's fixed cost part by part (`scripts/bench_dask_parts.py`, {parts.get('date', '')}, medians of "
           f"{parts['reps']}, each variant interleaved with the one it replaces; load average "
           f"{parts['load_start'][0]} → {parts['load_end'][0]}): `import distributed` "
           f"{parts['import']['import_s']:.2f} s.", "",
           "| LocalCluster of 2 worker processes | start | first task | close | coordinator CPU | workers' CPU |",
           "|---|---|---|---|---|---|"]
    for name, r in parts["cluster"].items():
        out.append(f"| {name} | {r['start_s']:.2f} s | {r['first_task_s'] * 1000:.0f} ms | {r['close_s']:.2f} s "
                   f"| {r['coordinator_cpu_s']:.2f} s | {r['workers_cpu_s']:.2f} s |")
    out += ["", "(\"waiting\": the forked cluster with two 3 s sleep tasks, as workers wait on their batch "
                "process, with Dask's monitoring as it comes and turned down as the batch has it.)"]
    if "catalogue" in parts:
        out += ["", "| a 2-job catalogue, `--workers 2` | wall | batch processes ready (from the coordinator's "
                    "start) | jobs | the rest |", "|---|---|---|---|---|"]
        for name, r in parts["catalogue"].items():
            out.append(f"| {name} | {r['wall_s']:.2f} s | {r['ready_s']:.2f} s | {r['jobs_s']:.2f} s "
                       f"| {r['rest_s']:.2f} s |")
    return "\n".join(out)


def _farm_bytecode(farm) -> str:
    """How the run's workers found the add-on's bytecode (runs since ``warm_bytecode``)."""
    b = farm.get("bytecode")
    if b is None:
        return ""
    done = f"{b['written']} modules written by the warm-up" if b["written"] else "it already was"
    why = "" if b.get("python_writes_bytecode", True) else \
        "; PYTHONDONTWRITEBYTECODE is set here, so Python itself would not have written it"
    return f", the add-on's bytecode up to date before the runs ({done}{why})"


FARM_RATIOS = (("speedup_workers2", "own pool 2 vs 1"), ("speedup_workers2_nopin", "same, `--no-pin`"),
               ("speedup_dask2", "Dask 2 vs own pool 1"), ("speedup_dask2_vs_dask1", "Dask 2 vs Dask 1"))


def farm_target_figure(rounds: list, key: str) -> str:
    """A speed-up over ``--repeat`` rounds: 'median× (median of N rounds, min–max)'."""
    v = sorted(r[key] for r in rounds if key in r)
    return (f"{statistics.median(v):.2f}× (median of {len(v)} rounds, {v[0]:.2f}–{v[-1]:.2f}×)" if v
            else "–")


def farm_rounds_table(rounds: list) -> list:
    """Each round's walls and speed-ups, and the medians."""
    keys = [(k, name) for k, name in FARM_RATIOS if any(k in r for r in rounds)]
    runs = [k for k in ("workers1", "workers2", "workers2_nopin", "dask1", "dask2")
            if any(k in r.get("walls", {}) for r in rounds)]
    out = ["| round | " + " | ".join(f"`{k}` wall" for k in runs) + " | "
           + " | ".join(name for _, name in keys) + " |", "|" + "---|" * (1 + len(runs) + len(keys))]
    for i, r in enumerate(rounds, 1):
        walls = [f"{r['walls'][k]:.2f} s" if k in r.get("walls", {}) else "–" for k in runs]
        ratios = [f"{r[k]:.2f}×" if k in r else "–" for k, _ in keys]
        out.append(f"| {i} | " + " | ".join(walls + ratios) + " |")
    medians = []
    for k, _ in keys:
        v = [r[k] for r in rounds if k in r]
        medians.append(f"**{statistics.median(v):.2f}×**" if v else "–")
    out.append("| median | " + " | ".join(["" for _ in runs] + medians) + " |")
    return out


def farm_runs_table(runs) -> list:
    names = {"sequential": "one batch process (sequential)", "workers1": "`--workers 1 --pool`",
             "workers2": "`--workers 2 --pool`", "dask1": "`--workers 1 --dask` (Dask LocalCluster)",
             "dask2": "`--workers 2` (Dask LocalCluster, the default)"}
    w1 = runs["workers1"]["wall_s"]
    d1 = runs.get("dask1", {}).get("wall_s")
    out = ["| run | wall | jobs ok | throughput vs `--workers 1 --pool` | vs Dask 1 worker | start-up per "
           "worker | overhead | load average before → after |", "|---|---|---|---|---|---|---|---|"]
    for key in ("sequential", "workers1", "workers2", "dask1", "dask2"):
        r = runs.get(key)
        if r is None:
            continue
        starts = ", ".join(f"{w['start_s']:.1f} s" for w in r.get("workers", [])) or "–"
        over = f"{r['overhead_s']:.1f} s" if "overhead_s" in r else "–"
        vs_d1 = f"{d1 / r['wall_s']:.2f}×" if d1 and key.startswith("dask") else "–"
        out.append(f"| {names[key]} | {r['wall_s']:.1f} s | {r['ok']}/{r['rows']} | {w1 / r['wall_s']:.2f}× "
                   f"| {vs_d1} | {starts} | {over} | {r['load_before'][0]} → {r['load_after'][0]} |")
    return out


def section_web(web) -> str:
    """The web player's targets (issues #25 and #39), from scripts/bench_web_player.py."""
    def med(v):
        v = sorted(v)
        return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])
    vp = web.get("viewport", {})
    target = {24: "≤ 1000 ms", 36: "≤ 2000 ms"}
    rows = [[f"{r['n']}³", f"{r['page_bytes'] / 1024:.0f} KiB", f"{r['data_bytes'] / 1024:.0f} KiB",
             f"{r['faces']:,}", f"{med(r['first_frame_ms']):.0f} ms", f"{max(r['first_frame_ms']):.0f} ms",
             target.get(r["n"], "")] for r in web["sizes"]]
    clicks = sorted(web["click_ms"])
    lines = [
        f"`scripts/bench_web_player.py` ({web.get('date', '')}): headless Chromium {web.get('chromium', '')} "
        f"(Debian's, SwiftShader: WebGL on the CPU, no GPU), viewport {vp.get('width')}×{vp.get('height')}, "
        f"{web.get('cpus')} CPUs shared with other jobs (load average {web['load_average'][0]:.1f} at the start, "
        f"{web.get('load_average_end', [0])[0]:.1f} at the end). Puzzles: a hollow ball with a tunnel, half its "
        "clues hidden. Load: navigation start to the first animation frame after the first render, "
        f"{len(web['sizes'][0]['first_frame_ms'])} fresh loads each.",
        "",
        f"Template (player + three.js, minified): **{web['template_bytes'] / 1024:.0f} KiB** (target: under "
        "1 MB plus the puzzle's data).",
        "",
        table(["puzzle", "page", "of it the puzzle's data", "faces drawn", "load to first frame (median)", "max",
               "target"], rows),
        "",
        f"Click to break at {web['click_n']}³ ({len(clicks)} clicks on cubes not in the model, real mouse "
        "events; from the click event to the new frame read back): "
        f"**median {med(clicks):.0f} ms**, p90 {clicks[int(0.9 * (len(clicks) - 1))]:.0f} ms, max {clicks[-1]:.0f} ms "
        f"(target ≤ 50 ms); of it the game's update (grid, face buffers, save) median "
        f"{med(web['click_update_ms']):.1f} ms and drawing median {med(web['click_render_ms']):.1f} ms. Drawing is "
        "what SwiftShader makes slow and what varies with the machine's load (this machine has no GPU to "
        "compare with).",
    ]
    st, hints = web.get("strokes"), web.get("hints")
    if st:
        lines += ["", f"A stroke over 24 cubes at {st['n']}³ (issue #39; {len(st['jump_ms'])} strokes along x-lines "
                  "of the top layer, real mouse events: the press, a first move of a few pixels that breaks the "
                  "first cube or two, then one move 24 cubes further; from that move's event to its frame "
                  "read back): "
                  f"**median {med(st['jump_ms']):.0f} ms**, max {max(st['jump_ms']):.0f} ms (target ≤ 50 ms); of "
                  f"it the game's update median {med(st['jump_update_ms']):.1f} ms and drawing "
                  f"{med(st['jump_render_ms']):.1f} ms. Dragged a cube a move: median {med(st['step_ms']):.0f} ms a "
                  f"move. The stroke saves its progress once, when it ends: median {med(st['save_ms']):.1f} ms. "
                  f"Load average {web.get('load_average_strokes', [0])[0]:.1f} when the strokes started."]
    if hints:
        rows = []
        for name, h in (("plain", hints["plain"]), ("3 colours", hints["colour"])):
            rows.append([f"{hints['n']}³ {name}", f"{h.get('warm_ms', 0):.0f} ms", f"{h['open_ms'][0]:.0f} ms",
                         f"{h['after_stroke_ms'][0]:.0f} ms", f"{med(h['midgame_ms']):.0f} ms",
                         f"{max(h['midgame_ms']):.0f} ms", f"{h['found']} of {h['asked']}", "≤ 100 ms"])
        lines += ["", "A hint (issue #39): the page's line solvers on every clued line, from what the player "
                  "knows; a colour line by its per-colour pass first. *As it opens*: every line still to work out "
                  "(the page has compiled its solvers in its first idle moment by a throwaway scan, nothing kept: "
                  "*warm-up*); *after a stroke*: only the stroke's lines again; *mid-game*: random states, each "
                  "page opened anew. Load average "
                  f"{web.get('load_average_hints', [0])[0]:.1f} when the hints started.", "",
                  table(["puzzle", "warm-up (idle, once)", "as it opens", "after a stroke", "mid-game median",
                         "max", "found a line", "target"], rows)]
    gestures = load_json(RESULTS / "gestures.json")
    if gestures:
        rows = [[r["model"], "×".join(map(str, r["shape"])), f"{r['colours']} colours" if r["colours"] > 1 else "plain",
                 f"{r['clicks']:,}", f"{r['gestures']:,}", f"{r['strokes']} / {r['single_clicks']} / {r['keys']}",
                 f"{r['ratio']:.3f}", ("reveal, 0 mistakes" if r.get("played_solved") and not r.get("played_mistakes")
                                       else "not played" if "played_solved" not in r else "FAILED")]
                for r in gestures["rows"]]
        lines += ["", f"Gestures to the reveal at {gestures['resolution']} (issue #39, `scripts/bench_gestures.py`; "
                  "target: by strokes at most a fifth of clicking): a scripted player that knows the solution plays "
                  "layer by layer from the top, each finished layer sliced away; by clicks a click per cube to "
                  "break or paint; by strokes greedily the stroke that settles most (along the layer's rows or "
                  "down a column), never into a cube it would be refused. Keys (slices, tools) count in both. "
                  "Each stroke plan was played in Chromium with real mouse events.", "",
                  table(["model", "block", "kind", "by clicks", "by strokes", "strokes / one-cube clicks / keys",
                         "ratio", "played"], rows)]
    runs = web.get("click_runs")
    if runs:
        # the same script before and after a change to the player (same machine, same session)
        lines += ["", "Click to break, the same script before and after the player's per-cube updates (issue #25):", "",
                  table(["player", "block", "clicks", "median", "p90", "max", "update (median)",
                         "drawing (median)", "load average"],
                        [[r["what"], f"{r['n']}³", str(len(r["click_ms"])), f"{med(r['click_ms']):.1f} ms",
                          f"{sorted(r['click_ms'])[int(0.9 * (len(r['click_ms']) - 1))]:.1f} ms",
                          f"{max(r['click_ms']):.1f} ms", f"{med(r['click_update_ms']):.1f} ms",
                          f"{med(r['click_render_ms']):.1f} ms",
                          f"{r['load_average'][0]:.1f} → {r['load_average'][1]:.1f}"] for r in runs])]
    return "\n".join(lines)


def size(shape) -> str:
    return "×".join(str(int(s)) for s in shape)


def rng(s) -> str:
    from engine.model.stats import format_range
    return format_range(s)


def tval(r):
    if not r:
        return None
    return r.get("time_s") if r.get("time_s") is not None else r.get("wall_s")


def tcell(r) -> str:
    """A time for the time tables: 'killed at X', 'skipped', 'not run', or the time."""
    if not r:
        return "not run"
    v = r.get("verdict")
    if v == "timeout":
        return f"killed at {ft(r.get('wall_s'))}"
    if v in ("skipped", "error"):
        return v
    return ft(tval(r)) + ("" if v in DONE else f" ({v})")


def verdict_cell(r) -> str:
    if not r:
        return "not run"
    v = r.get("verdict")
    if v == "timeout":
        return f"killed at {ft(r.get('wall_s'))}"
    if v == "error":
        return f"error: {r.get('error', '')[:60]}"
    if v == "skipped":
        return "skipped"
    d = r.get("difficulty")
    return f"{v} ({d})" if d and v in DONE else str(v)


def sched_cell(r) -> str:
    """Table 5 notation: linesolvers (bad %), with a mark when the run did not solve the puzzle."""
    if not r:
        return "not run"
    v = r.get("verdict")
    if v in ("timeout", "error", "skipped"):
        return verdict_cell(r)
    ls, rate = r.get("linesolvers"), r.get("bad_guess_rate")
    s = f"{ls} ({100 * rate:.0f}%)" if ls is not None and rate is not None else "—"
    if v != "unique":
        s += f" *{v}*"
    return s


def puzzle_label(r) -> str:
    return f"{r['model']} {r['resolution']}³"


# ---------------------------------------------------------------------------------------------
# sections


def section_machine(b3d, b2d, puz, run) -> str:
    m = (b3d or b2d or puz or {}).get("machine", {})
    rows = [("CPU", m.get("cpu")), ("logical CPUs", m.get("logical_cpus")),
            ("memory", f"{m.get('memory_gb')} GB"), ("OS", m.get("os")),
            ("Python / numpy / numba", f"{m.get('python')} / {m.get('numpy')} / {m.get('numba')}"),
            ("OR-tools (CP-SAT) / matplotlib", f"{m.get('ortools')} / {m.get('matplotlib')}"),
            ("load average at the start of the 3D stage", m.get("load_average")),
            ("run started", (run or {}).get("started_utc", m.get("date_utc"))),
            ("mode", "QUICK (development mode: fewer/smaller puzzles, shorter limits)"
             if (run or {}).get("quick") else "full")]
    if run and run.get("elapsed_s") is not None:
        rows.append(("wall time of the whole run", ft(run["elapsed_s"])))
    for pr in (run or {}).get("partial_runs", []):
        rows.append(("stages re-run later (`run_all.py --skip` the others)",
                     f"{', '.join(pr['stages'])}: started {pr['started_utc']}, {ft(pr.get('elapsed_s'))}"))
    return table(("", "this run"), rows)


def section_puzzles3d(puz) -> str:
    rows = []
    paths = sorted({p.get("path") for p in puz["puzzles"]})
    for p in puz["puzzles"]:
        st = p["stats"]
        seed_key = (SP.SEED_NAME.get(p["model"]), p["resolution"])
        rows.append((f"**{p['model']}**", p["resolution"], size(st["shape"]), st["cells"], st["lines"],
                     st["empty"]["count"], rng(st["plain"]), rng(st["circle"]), rng(st["square"]),
                     p["filled"], p.get("path")))
        if seed_key in SP.TABLE4:
            t = SP.TABLE4[seed_key]
            rows.append((f"↳ *seed: {seed_key[0]}*", "", f"*{t[0]}*", f"*{t[1]}*", f"*{t[2]}*", f"*{t[3]}*",
                         f"*{t[4]}*", f"*{t[5]}*", f"*{t[6]}*", "", ""))
    head = ("Puzzle", "res.", "Size", "Cells", "Lines", "Empty", "Plain (Single)", "Circle (Double)",
            "Square (Triple+)", "filled", "made by")
    return table(head, rows), paths


def section_table5(rows3d, ls) -> str:
    out = []
    for r in rows3d:
        sc = r["schedulers"][ls] or {}
        out.append([f"**{puzzle_label(r)}**", r["stats"]["lines"]] + [sched_cell(sc.get(l)) for l in LABELS])
        key = (SP.SEED_NAME.get(r["model"]), r["resolution"])
        if key in SP.RESULTS3D and ls == "seed":
            pub = SP.RESULTS3D[key]
            if isinstance(pub, dict):
                out.append([f"↳ *seed: {key[0]}*", f"*{SP.TABLE4[key][2]}*"] +
                           [f"*{pub[l][0]} ({pub[l][2]:.0f}%)*" for l in LABELS])
            else:
                out.append([f"↳ *seed: {key[0]}*", f"*{SP.TABLE4[key][2]}*", f"*{pub}*", "", "", "", ""])
    return table(["Puzzle", "Lines"] + LABELS, out)


def ratios(rows3d, ls):
    """Per solvable puzzle (all five schedulers unique): linesolvers / Brute's."""
    out = []
    for r in rows3d:
        sc = r["schedulers"][ls] or {}
        if any((sc.get(l) or {}).get("verdict") != "unique" for l in LABELS):
            continue
        b = sc["Brute"]["linesolvers"]
        if not b:
            continue
        out.append((r, {l: sc[l]["linesolvers"] / b for l in LABELS}))
    return out


def ratios_common(rows3d):
    """Average ratios to Brute per linesolver over the puzzles solved by all five with both."""
    per = {ls: {puzzle_label(r): q for r, q in ratios(rows3d, ls)} for ls in LINESOLVERS}
    keys = set.intersection(*(set(v) for v in per.values())) if per else set()
    if not keys:
        return None
    out = {"n": len(keys)}
    for ls in LINESOLVERS:
        out[ls] = {l: statistics.mean(per[ls][k][l] for k in keys) for l in LABELS}
    return out


def section_table6(rows3d):
    rows = []
    avgs = {}
    for ls in LINESOLVERS:
        rs = ratios(rows3d, ls)
        for r, q in rs:
            rows.append([puzzle_label(r), LSNAME[ls]] + [fr(q[l]) for l in LABELS])
        if rs:
            avgs[ls] = {l: statistics.mean(q[l] for _r, q in rs) for l in LABELS}
            avgs[ls]["n"] = len(rs)
            avgs[ls]["best"] = {l: min(q[l] for _r, q in rs) for l in LABELS}
    # the seed's own average, recomputed from the transcription and as printed
    seed_q = [SP.ratio_to_brute(k) for k in SP.RESULTS3D if SP.ratio_to_brute(k) and k[0] != "Check"]
    seed_avg = {l: statistics.mean(q[l] for q in seed_q) for l in LABELS}
    for ls in LINESOLVERS:
        if ls in avgs:
            rows.append([f"**average ({avgs[ls]['n']} solvable)**", LSNAME[ls]] +
                        [f"**{fr(avgs[ls][l])}**" for l in LABELS])
    rows.append([f"*seed study average ({len(seed_q)} solvable), recomputed*", "seed (2016)"] +
                [f"*{fr(seed_avg[l])}*" for l in LABELS])
    rows.append(["*seed study Table 6 average as printed*", "seed (2016)"] +
                [f"*{fr(SP.TABLE6_AVERAGE[l])}*" for l in LABELS])
    return table(["Puzzle", "linesolver"] + LABELS, rows), avgs, seed_avg


def section_sched_times(rows3d):
    rows = []
    tot = {"seed": 0.0, "dp": 0.0}
    per_run = []
    for r in rows3d:
        cells = [puzzle_label(r)]
        both = True
        for ls in LINESOLVERS:
            sc = r["schedulers"][ls] or {}
            ts = [tval(sc.get(l)) for l in LABELS]
            cells.append(" / ".join(tcell(sc.get(l)) for l in LABELS))
            if any(t is None or (sc.get(l) or {}).get("verdict") in ("timeout", "error", "skipped")
                   for t, l in zip(ts, LABELS)):
                both = False
        sa = r["schedulers"]["seed"] or {}
        sb = r["schedulers"]["dp"] or {}
        if both:
            ts_seed = sum(tval(sa[l]) for l in LABELS)
            ts_dp = sum(tval(sb[l]) for l in LABELS)
            tot["seed"] += ts_seed
            tot["dp"] += ts_dp
            cells.append(fx(ts_seed / ts_dp) if ts_dp > 0 else "—")
            for l in LABELS:
                a, b = tval(sa[l]), tval(sb[l])
                if a and b and a > 0 and b > 0:
                    per_run.append(a / b)
        else:
            cells.append("—")
        fs, fd = r["full"]["seed"] or {}, r["full"]["dp"] or {}
        cells.append(f"{tcell(fs)} / {tcell(fd)}")
        if fs.get("verdict") in DONE and fd.get("verdict") in DONE and tval(fd):
            cells.append(fx(tval(fs) / tval(fd)))
        else:
            cells.append("—")
        rows.append(cells)
    head = ("Puzzle", "seed linesolver: " + " / ".join(LABELS), "DP linesolver: " + " / ".join(LABELS),
            "5 schedulers seed÷DP", "full: seed / DP", "full seed÷DP")
    return table(head, rows), tot, per_run


def section_full_vs_cpsat(rows3d):
    rows = []
    disagree = []
    for r in rows3d:
        fd, fs, c = r["full"]["dp"] or {}, r["full"]["seed"] or {}, r["cpsat"] or {}
        ratio = None
        if fd.get("verdict") in DONE and c.get("verdict") in DONE and tval(fd) and tval(c):
            ratio = tval(fd) / tval(c)
        ag = r.get("agreement")
        if ag == "DISAGREE":
            disagree.append(puzzle_label(r))
            ag = "**DISAGREE**"
        rows.append((puzzle_label(r), r["stats"]["cells"], verdict_cell(fd), tcell(fd), tcell(fs),
                     verdict_cell(c), tcell(c), ft(c.get("build_s")),
                     fr(ratio, 4) if ratio is not None and ratio < 0.01 else fr(ratio), ag,
                     ft(r.get("time_limit"))))
    head = ("Puzzle", "Cells", "full (DP) verdict (difficulty)", "full DP time", "full seed-ls time",
            "CP-SAT verdict", "CP-SAT time", "of which model build", "ours÷CP-SAT", "verdicts",
            "time limit")
    return table(head, rows), disagree


def headline_cpsat(rows3d, resolutions):
    rs = []
    for r in rows3d:
        if r["model"] == "checkerboard" or r["resolution"] not in resolutions:
            continue
        fd, c = r["full"]["dp"] or {}, r["cpsat"] or {}
        if fd.get("verdict") in DONE and c.get("verdict") in DONE and tval(fd) and tval(c):
            rs.append((puzzle_label(r), tval(fd) / tval(c), tval(fd), tval(c)))
    return rs


def section_2d_survey(b2d):
    rows = []
    disagree = []
    for r in b2d.get("survey", []):
        fd, fs, c = r["full"].get("dp") or {}, r["full"].get("seed") or {}, r["cpsat"] or {}
        ratio = None
        if fd.get("verdict") in DONE and c.get("verdict") in DONE and tval(fd) and tval(c):
            ratio = tval(fd) / tval(c)
        exp = r.get("expected")
        ls_ok = r.get("expected_line_solvable")
        ag = r["agreement"]
        if ag == "DISAGREE":
            disagree.append(r["file"])
            ag = "**DISAGREE**"
        rows.append((r["file"] + (f" ({r['seed_name']})" if r.get("seed_name") else ""), size(r["shape"]),
                     verdict_cell(fd), ft(tval(fd)), ft(tval(fs)), verdict_cell(c), ft(tval(c)),
                     fr(ratio), ag, f"{exp}, line-solvable: {ls_ok}" if exp else "—"))
    head = ("Puzzle", "W×H", "full (DP)", "time", "full seed-ls time", "CP-SAT", "time", "ours÷CP-SAT",
            "verdicts", "EXPECTED.csv")
    return table(head, rows), disagree


def section_table8(b2d):
    byname = {r.get("seed_name"): r for r in b2d.get("survey", []) if r.get("seed_name")}
    t7 = []
    rows = []
    for name, row in SP.TABLE7.items():
        ours = byname.get(name)
        if ours:
            st = ours["stats"]
            t7.append((name, ours["file"], size(ours["shape"]), st["cells"], st["lines"], st["empty"]["count"],
                       rng(st["filled"]), rng(st["blocks"]),
                       "yes" if (ours["full"].get("dp") or {}).get("difficulty") == "line" else "no",
                       f"*{row[0]}, {row[1]} cells, {row[2]} lines, empty {row[3]}, single {row[4]}, "
                       f"line-solvable: {row[5]}*"))
        else:
            t7.append((name, "not redistributable: not in ../shared/", "", "", "", "", "", "", "",
                       f"*{row[0]}, {row[1]} cells, {row[2]} lines, line-solvable: {row[5]}*"))
        pub = SP.RESULTS2D[name]
        for ls in LINESOLVERS:
            if ours:
                sc = ours["schedulers"][ls]
                rows.append([f"**{name}**" if ls == "seed" else "", LSNAME[ls], ours["stats"]["lines"]] +
                            [sched_cell(sc.get(l)) for l in LABELS])
        rows.append([f"↳ *seed: {name}*" if ours else f"*{name}* (seed only)", "seed (2016)",
                     f"*{row[2]}*"] + [f"*{pub[l][0]} ({pub[l][2]:.0f}%)*" for l in LABELS] +
                    [])
        rows[-1][-1] += f" — solved: {pub['solved']}"
    t7h = ("Seed name", "our file", "Size", "Cells", "Lines", "Empty", "filled/line", "blocks/line",
           "line-solvable (ours)", "seed's Table 7")
    return table(t7h, t7), table(["Puzzle", "linesolver", "Lines"] + LABELS, rows)


def section_taai(b2d):
    rows = []
    summary = []
    for st in b2d.get("taai", []):
        rs = st["rows"]
        ot = [r["ours_s"] for r in rs if r["ours_s"] is not None]
        verd = {}
        for r in rs:
            verd[r["ours"]] = verd.get(r["ours"], 0) + 1
        diff = {}
        for r in rs:
            if r["difficulty"]:
                diff[r["difficulty"]] = diff.get(r["difficulty"], 0) + 1
        both = [r for r in rs if r["cpsat"] is not None]
        bt = [(r["ours_s"], r["cpsat_s"]) for r in both if r["ours"] in DONE and r["cpsat"] in DONE]
        cverd = {}
        for r in both:
            cverd[r["cpsat"]] = cverd.get(r["cpsat"], 0) + 1
        agree = sum(r["agreement"] == "agree" for r in both)
        only_o = sum(r["ours"] in DONE and r["cpsat"] not in DONE for r in both)
        only_c = sum(r["cpsat"] in DONE and r["ours"] not in DONE for r in both)
        dis = [r["index"] for r in both if r["agreement"] == "DISAGREE"]
        o_sum = sum(a for a, _ in bt)
        c_sum = sum(b for _, b in bt)
        rows.append((st["set"], f"{st['n']} (every {nth(st.get('stride', 1))} of {st.get('range', st['n'])}"
                     f"{' of ' + str(st['of']) + ', stopped by the time budget' if st.get('stopped') else ''})",
                     ft(sum(ot)), ft(statistics.mean(ot)) if ot else "—",
                     ft(statistics.median(ot)) if ot else "—", ft(max(ot)) if ot else "—",
                     ", ".join(f"{k}: {v}" for k, v in sorted(verd.items(), key=lambda kv: str(kv[0]))),
                     ", ".join(f"{k}: {v}" for k, v in sorted(diff.items())),
                     f"{len(both)} (every {nth(st.get('cpsat_every', 1))})",
                     ", ".join(f"{k}: {v}" for k, v in sorted(cverd.items(), key=lambda kv: str(kv[0]))),
                     f"{ft(o_sum)} vs {ft(c_sum)}", fx(c_sum / o_sum) if o_sum > 0 else "—",
                     f"{agree}/{len(both)}" + (f", **DISAGREE: {dis}**" if dis else ""),
                     f"{only_o} / {only_c}"))
        summary.append((st["set"], o_sum, c_sum, len(bt), dis))
    head = ("Set", "puzzles", "ours total", "mean", "median", "max", "our verdicts", "difficulty",
            "CP-SAT on", "CP-SAT verdicts", "time where both finished (ours vs CP-SAT)", "CP-SAT÷ours",
            "verdicts agree", "finished only by ours / only by CP-SAT")
    return table(head, rows), summary


def _loads(tour):
    """The 1-minute load averages recorded around each solver's turns: (lowest, highest)."""
    loads = [e["load"][k][0] for st in tour.get("sets", []) for m in ("solve", "process")
             for e in (st.get(m) or {}).values() if e.get("load") for k in (0, 1)]
    return (min(loads), max(loads)) if loads else None


def write_tournament(w, tour, title):
    """A tournament.py result: how it was run, then one table per measure (ours ÷ each peer)."""
    from benchmarks.tournament import MEASURES, table_lines
    w(title)
    w("")
    loads = _loads(tour)
    stride, proc = tour.get("stride", 1), tour.get("process_stride", 1)
    run = f"{ft(tour.get('elapsed_s'))} in all"
    # runs before --chunk took turns a whole set at a time
    chunk = tour.get("chunk", 0)
    turns = (f"take turns {chunk} puzzles of a set at a time, their order rotating" if chunk else
             "take turns set by set")
    if loads:
        run += f"; 1-minute load average {loads[0]:g}–{loads[1]:g} around the solvers' turns"
    w(f"`python benchmarks/{tour.get('command', 'tournament.py')}` ({run}"
      f"): every {nth(stride)} puzzle of each set (from puzzle {tour.get('offset', 0) + 1}), first solution, "
      f"a limit of {ft(tour.get('limit'))} of **CPU time** per puzzle; one solver at a time (the solvers "
      f"{turns}, never beside each other on the cores); every solution checked against the "
      f"clues (*solved* counts checked solutions; an unsolved puzzle counts the time it used). Two "
      f"measures, never mixed: **own solve time** — ours `time.process_time()` around `solve(p, want=1)` "
      f"in a worker warmed up on generated puzzles it does not measure; nonosolve (hyouv/FastNonogramSolver, "
      f"`benchmarks/build_nonosolve.sh`) its `--taai` log's time per puzzle (its `now_sec()`); LalaFrogKK "
      f"(CGI-LAB/Nonogram, "
      f"`benchmarks/build_lalafrogkk.sh`) its tournament log's `clock()` per puzzle — and the **whole "
      f"process** per puzzle (every {nth(stride * proc)} puzzle), CPU time from `wait4`: "
      f"`python -m engine solve ONE.txt --first --json`, `nonosolve --taai ONE.txt -n 1`, "
      f"`lalafrog SOLVE STRING`. *to SAT*: puzzles handed to a CDCL solver. Ratios are ours ÷ the "
      f"solver: above 1 ours is slower.")
    if tour.get("note"):
        w("")
        w(tour["note"])
    if tour.get("peers_from"):
        pf = tour["peers_from"]
        w("")
        w(f"**Not one run**: this run timed ours alone; the peers' rows are those of the run of "
          f"{pf.get('date_utc')} (`python benchmarks/{pf.get('command')}`, load average {pf.get('load_average')}), "
          f"on the same puzzles, so the ratios set two runs side by side (`--peers-from`).")
    for m, label in MEASURES.items():
        lines = table_lines(tour, m)
        if len(lines) > 2:
            w("")
            w(f"**{label[0].upper() + label[1:]}**:")
            w("")
            w("\n".join(lines))
    w("")


def section_voxel(vox):
    rows = vox["rows"]
    ress = sorted({r["resolution"] for r in rows})
    models = []
    for r in rows:
        if r["model"] not in [m for m, _ in models]:
            models.append((r["model"], r["triangles"]))
    out = []
    for m, tri in models:
        cells = [m, tri]
        for res in ress:
            hit = [r for r in rows if r["model"] == m and r["resolution"] == res]
            cells.append(f"{hit[0]['time_s'] * 1000:.1f} ms" if hit else "—")
        out.append(cells)
    return table(["Model", "triangles"] + [f"{r}³" for r in ress], out)


# ---------------------------------------------------------------------------------------------
# benchmarks/bench_sched.py: both counting rules, the greedy oracle, the learned scheduler

NEW_LABELS = ["Oracle", "Oracle+Pre", "Learned", "Learned+Pre"]
TARGETS = {"Learned": 0.75, "Learned+Pre": 0.35}  # issue 12: strict, validation average


def srun(row, label, counting="strict"):
    """One run of a bench_sched row; the heuristic counts the same under both rules."""
    if counting == "seed" and label.startswith("Heur"):
        counting = "strict"
    return (row["runs"].get(f"{label}|{counting}") or {})


def sched_ratios(row, counting, labels):
    """linesolvers / Brute's under one counting rule, or None unless every run solved it."""
    b = srun(row, "Brute", counting)
    runs = [srun(row, l, counting) for l in labels]
    if b.get("verdict") != "unique" or not b.get("linesolvers") or any(r.get("verdict") != "unique"
                                                                          for r in runs):
        return None
    return {l: r["linesolvers"] / b["linesolvers"] for l, r in zip(labels, runs)}


def model_rows(bs, resolutions=None):
    return [r for r in bs["rows"] if r["kind"] == "model" and r["model"] != "checkerboard"
            and (resolutions is None or r["resolution"] in resolutions)]


def section_seed_count_table5(bs):
    rows = []
    for r in bs["rows"]:
        if r["kind"] != "model":
            continue
        rows.append([f"**{r['name']}**", r["lines"]] + [sched_cell(srun(r, l, "seed")) for l in LABELS])
        key = (SP.SEED_NAME.get(r["model"]), r["resolution"])
        pub = SP.RESULTS3D.get(key)
        if isinstance(pub, dict):
            rows.append([f"↳ *seed: {key[0]}*", f"*{SP.TABLE4[key][2]}*"] +
                        [f"*{pub[l][0]} ({pub[l][2]:.0f}%)*" for l in LABELS])
    return table(["Puzzle", "Lines"] + LABELS, rows)


def counting_averages(bs, resolutions):
    """{counting: {label: mean ratio}, 'n': puzzles} over the line-solvable model puzzles."""
    out = {}
    n = None
    for counting in ("seed", "strict"):
        qs = [q for q in (sched_ratios(r, counting, LABELS) for r in model_rows(bs, resolutions)) if q]
        if not qs:
            return None
        out[counting] = {l: statistics.mean(q[l] for q in qs) for l in LABELS}
        out[counting]["bad_brute"] = statistics.mean(
            srun(r, "Brute", counting)["bad_guess_rate"] for r in model_rows(bs, resolutions)
            if sched_ratios(r, counting, LABELS))
        out[counting]["bad_hier"] = statistics.mean(
            srun(r, "Hier", counting)["bad_guess_rate"] for r in model_rows(bs, resolutions)
            if sched_ratios(r, counting, LABELS))
        n = len(qs)
    out["n"] = n
    return out


def section_table6_both(bs):
    rows = []
    for r in model_rows(bs):
        qs, qt = sched_ratios(r, "seed", LABELS), sched_ratios(r, "strict", LABELS)
        if not qs or not qt:
            continue
        rows.append([r["name"]] + [fr(qs[l]) for l in LABELS[1:]] + [fr(qt[l]) for l in LABELS[1:]])
    seed_q = [SP.ratio_to_brute(k) for k in SP.RESULTS3D if SP.ratio_to_brute(k) and k[0] != "Check"]
    for res, what in (((12, 24, 36), "12³–36³ (the seed's sizes)"), (None, "all sizes")):
        a = counting_averages(bs, res)
        if a:
            rows.append([f"**average, {a['n']} puzzles at {what}**"] +
                        [f"**{fr(a['seed'][l])}**" for l in LABELS[1:]] +
                        [f"**{fr(a['strict'][l])}**" for l in LABELS[1:]])
    rows.append([f"*seed study, its {len(seed_q)} solvable puzzles (Table 6 average as printed)*"] +
                [f"*{fr(SP.TABLE6_AVERAGE[l])}*" for l in LABELS[1:]] + ["", "", "", ""])
    head = (["Puzzle"] + [f"{l} ÷ Brute, seed's rule" for l in LABELS[1:]] +
            [f"{l} ÷ Brute, strict" for l in LABELS[1:]])
    return table(head, rows)


def learned_sets(bs):
    """(name, rows) of the training and validation sets, and the validation split by kind."""
    ok = [r for r in bs["rows"] if r.get("split") and sched_ratios(r, "strict", LABELS + NEW_LABELS)]
    tr = [r for r in ok if r["split"] == "training"]
    va = [r for r in ok if r["split"] == "validation"]
    return [("training", tr), ("validation", va),
            ("validation: models at 36³, 64³", [r for r in va if r["kind"] == "model"]),
            ("validation: blobs", [r for r in va if r["kind"] == "blob"]),
            ("test (blobs)", [r for r in ok if r["split"] == "test"])]


def section_learned_per_puzzle(bs):
    rows = []
    for split in ("training", "validation", "test"):
        for r in bs["rows"]:
            if r.get("split") != split:
                continue
            q = sched_ratios(r, "strict", LABELS + NEW_LABELS)
            if not q:
                rows.append([r["name"], split, r["lines"], "not line-solvable"] + [""] * 8)
                continue
            rows.append([r["name"], split, r["lines"], srun(r, "Brute")["linesolvers"]] +
                        [fr(q[l]) for l in LABELS[1:] + NEW_LABELS])
    head = ["Puzzle", "set", "Lines", "Brute (strict)"] + [f"{l}" for l in LABELS[1:] + NEW_LABELS]
    return table(head, rows)


def learned_summary(bs):
    """{set name: {label: (mean ratio, mean bad rate, mean time)}, 'n'}"""
    out = {}
    for name, rs in learned_sets(bs):
        if not rs:
            continue
        d = {"n": len(rs)}
        for l in LABELS + NEW_LABELS:
            d[l] = (statistics.mean(srun(r, l)["linesolvers"] / srun(r, "Brute")["linesolvers"] for r in rs),
                    statistics.mean(srun(r, l)["bad_guess_rate"] for r in rs),
                    statistics.mean(tval(srun(r, l)) or 0.0 for r in rs))
        out[name] = d
    return out


def section_learned_summary(bs):
    summ = learned_summary(bs)
    rows = []
    for name, d in summ.items():
        rows.append([f"**{name}** ({d['n']})", "linesolvers ÷ Brute"] + [fr(d[l][0]) for l in LABELS + NEW_LABELS])
        rows.append(["", "bad guesses"] + [f"{100 * d[l][1]:.0f}%" for l in LABELS + NEW_LABELS])
        rows.append(["", "time per solve"] + [ft(d[l][2]) for l in LABELS + NEW_LABELS])
    rows.append(["*target (issue 12, validation)*", "linesolvers ÷ Brute"] +
                [f"*≤ {TARGETS[l]}*" if l in TARGETS else "" for l in LABELS + NEW_LABELS])
    return table(["Set (puzzles)", ""] + list(LABELS + NEW_LABELS), rows), summ


def target_notes(va) -> list:
    """'Learned 0.523 (target ≤ 0.75: met)' for both learned configurations of a set summary."""
    return [f"{l} {fr(va[l][0])} (target ≤ {TARGETS[l]}: {'met' if va[l][0] <= TARGETS[l] else '**not met**'})"
            for l in ("Learned", "Learned+Pre")]


def headline_sched(bs) -> list:
    heads = []
    a = counting_averages(bs, (12, 24, 36))
    if a:
        heads.append(f"- **the seed's Table 6 reproduced**: counted the seed's way (brute force applies every line "
                     f"every sweep; a plain FIFO for Hier), over our {a['n']} model puzzles at 12³–36³, Hier "
                     f"needs {fr(a['seed']['Hier'])} of Brute's linesolvers, Hier+Pre {fr(a['seed']['Hier+Pre'])}, "
                     f"Heur {fr(a['seed']['Heur'])}, Heur+Pre {fr(a['seed']['Heur+Pre'])} (seed: "
                     f"{fr(SP.TABLE6_AVERAGE['Hier'])}, {fr(SP.TABLE6_AVERAGE['Hier+Pre'])}, "
                     f"{fr(SP.TABLE6_AVERAGE['Heur'])}, {fr(SP.TABLE6_AVERAGE['Heur+Pre'])}); counted strictly "
                     f"(solved lines skipped): {fr(a['strict']['Hier'])}, {fr(a['strict']['Hier+Pre'])}, "
                     f"{fr(a['strict']['Heur'])}, {fr(a['strict']['Heur+Pre'])}.")
    summ = learned_summary(bs)
    va = summ.get("validation")
    if va:
        parts = target_notes(va)
        heads.append(f"- **learned scheduler, strict count, {va['n']} validation puzzles never seen in training**: "
                     + ", ".join(parts) + f"; greedy oracle {fr(va['Oracle'][0])} / {fr(va['Oracle+Pre'][0])}, "
                     f"best seed scheduler Hier+Pre {fr(va['Hier+Pre'][0])}, Heur {fr(va['Heur'][0])} / "
                     f"Heur+Pre {fr(va['Heur+Pre'][0])}; bad guesses {100 * va['Learned'][1]:.0f}% / "
                     f"{100 * va['Learned+Pre'][1]:.0f}%"
                     + (f"; on the test blobs {fr(summ['test (blobs)']['Learned'][0])} / "
                        f"{fr(summ['test (blobs)']['Learned+Pre'][0])} (oracle "
                        f"{fr(summ['test (blobs)']['Oracle'][0])} / {fr(summ['test (blobs)']['Oracle+Pre'][0])})"
                        if "test (blobs)" in summ else "") + ".")
    return heads


def write_sched_sections(w, bs) -> None:
    w("## Two ways to count linesolvers: the seed's Tables 5 and 6 reproduced")
    w("")
    m = bs.get("machine", {})
    w(f"*This section and the next come from `benchmarks/bench_sched.py`, run on {m.get('cpu')} "
      f"({m.get('logical_cpus')} logical CPUs, load average {m.get('load_average')} at its start, "
      f"{m.get('date_utc')}).*")
    w("")
    w("The tables above count strictly: a linesolver is an application to a line that still had an unknown "
      "cell, so brute force skips lines already solved and the hierarchical queue holds a line once. The "
      "seed counted differently. Its brute force (Fig. 28, sections 3.6 and 5) applies the linesolver to "
      "every line in every sweep, solved or not, and never used fewer linesolvers than there are lines; its "
      "hierarchical solver (Fig. 29) pushes perpendicular lines onto a plain queue, where a line may wait "
      "several times. `solve(..., counting=\"seed\")` (`--counting seed`) runs both that way; the deductions "
      "are the same, only what is spent differs. The heuristic only ever applies unsolved lines, so it "
      "counts the same under both rules. Runs below: `benchmarks/bench_sched.py`, complete DP linesolver "
      "(with the seed linesolver the strict counts above differ from the DP's by a few percent).")
    w("")
    w("### Table 5, the seed's counting rule")
    w("")
    w("`linesolvers (bad-guess %)`; rows *seed:* are the seed's Appendix D figures for the model this one "
      "stands in for. Heur and Heur+Pre are the same runs as in the strict table.")
    w("")
    w(section_seed_count_table5(bs))
    w("")
    w("### Table 6 under both rules")
    w("")
    w("Each scheduler's linesolvers divided by brute force's under the same rule, on the model puzzles "
      "every configuration solved.")
    w("")
    w(section_table6_both(bs))
    w("")
    a = counting_averages(bs, (12, 24, 36))
    big = max((q["Hier"] for q in (sched_ratios(r, "seed", LABELS) for r in model_rows(bs, (64,))) if q),
              default=None)
    if a:
        pub = SP.TABLE6_AVERAGE
        w(f"**Which reproduces the seed, and why.** Counted the seed's way, the averages over our {a['n']} "
          f"puzzles at the seed's sizes are Hier {fr(a['seed']['Hier'])}, Hier+Pre {fr(a['seed']['Hier+Pre'])}, "
          f"Heur {fr(a['seed']['Heur'])}, Heur+Pre {fr(a['seed']['Heur+Pre'])} of brute force; the seed printed "
          f"{fr(pub['Hier'])}, {fr(pub['Hier+Pre'])}, {fr(pub['Heur'])} and {fr(pub['Heur+Pre'])} on its own "
          f"models. Counted strictly they are {fr(a['strict']['Hier'])}, {fr(a['strict']['Hier+Pre'])}, "
          f"{fr(a['strict']['Heur'])} and {fr(a['strict']['Heur+Pre'])}. The seed's rule reproduces its "
          f"table: the heuristic is the seed's and does need about {fr(a['seed']['Heur'])} of the seed's brute "
          f"force. The difference is the baseline. The seed's brute force spends "
          f"{100 * a['seed']['bad_brute']:.0f}% of its applications deducing nothing, most of them on lines "
          f"already solved; the strict brute force skips those ({100 * a['strict']['bad_brute']:.0f}% bad "
          f"guesses) and is a much stronger baseline, against which the seed's heuristic needs more "
          f"linesolvers than brute force. The hierarchical solver with a plain FIFO makes "
          f"{100 * a['seed']['bad_hier']:.0f}% bad guesses (the seed's: about half, more on larger puzzles, "
          f"as here), because a line waits in the queue once per perpendicular deduction"
          + (f"; beyond the seed's sizes this grows (Hier up to {fr(big)} of brute force at 64³)" if big else "")
          + f". Holding each line once in its queue (the strict rule) it makes "
          f"{100 * a['strict']['bad_hier']:.0f}% bad guesses and stays near brute force at every size. Both "
          f"rules answer their own question; the strict rule is the one the rest of this document and the "
          f"learned scheduler use.")
        w("")
    w("## Fewer linesolvers: the greedy oracle and the learned scheduler")
    w("")
    w("- **Oracle** (`method=\"oracle\"`, a benchmark reference, not a product solver): at every step it applies "
      "the line that would deduce the most new cells, found by trying every candidate on a copy of the "
      "state (trials are not counted as linesolvers). It never makes a bad guess. Greedy is not optimal, so "
      "this is a strong reference rather than a proven lower bound.")
    w("- **Learned** (`method=\"learned\"`, `--solver learned`, in the N-panel and Compare Solvers): only lines "
      "never applied or with a cell changed since their last application are candidates (so it ends at the "
      "same fixpoint as the others); among them the highest score goes first, a weighted sum of cheap per-line "
      "counters (new filled/empty cells, unknown cells, a gain estimate from the counts, bad guesses, ...; "
      "`engine/kinds/plain/learned.py`) with one weight set for plain clues and one for the other kinds. The weights "
      "(`engine/kinds/plain/learned_scheduler.json`, one pair of sets without and one with the pre-pass) come from "
      "`benchmarks/train_scheduler.py`: CMA-ES (the evolutionary search the seed's section 6.2.2 suggests) "
      "minimising the mean strict linesolvers ÷ strict Brute over the training puzzles.")
    w(f"- **Split**: {bs.get('split', '')}. Puzzles that are not line-solvable are left out, as in the seed's "
      "Table 6 (brute force's count is not defined there).")
    w("")
    t, summ = section_learned_summary(bs)
    w("Averages per set, strict count, complete DP linesolver. Time per solve: each run's best of up to 5 "
      "(runs under 0.2 s are repeated), without compile time; the machine was shared while this ran.")
    w("")
    w(t)
    w("")
    va = summ.get("validation")
    if va:
        notes = target_notes(va)
        te = summ.get("test (blobs)")
        if te:
            notes.append(f"the test blobs, evaluated once after the features and weights were final (the "
                         f"validation averages were watched while choosing the features, so they are not an "
                         f"untouched test): Learned {fr(te['Learned'][0])}, Learned+Pre {fr(te['Learned+Pre'][0])}, "
                         f"greedy oracle {fr(te['Oracle'][0])} / {fr(te['Oracle+Pre'][0])}")
        w("Targets (strict count, validation average): " + "; ".join(notes) + ". Time: the learned scheduler "
          f"took {ft(va['Learned'][2])} / {ft(va['Learned+Pre'][2])} per validation solve on average against "
          f"Brute's {ft(va['Brute'][2])} and Heur's {ft(va['Heur'][2])} / {ft(va['Heur+Pre'][2])}: keeping its "
          f"counters costs work per new cell, so "
          + ("it saves time as well as linesolvers." if va['Learned'][2] <= va['Brute'][2]
             else "it is slower than brute force although it applies fewer lines: with the DP linesolver a "
                  "line application is cheap (often well under a microsecond), so bookkeeping, not line "
                  "solving, dominates these times."))
        w("")
    w("Per puzzle (linesolvers ÷ strict Brute's):")
    w("")
    w(section_learned_per_puzzle(bs))
    w("")


# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# puzzle design (benchmarks/bench_design.py)

DESIGN_RUNS = (("random_line", "random"), ("greedy_line", "greedy"), ("anneal_line", "anneal"),
               ("random_probe", "random, probe"), ("greedy_probe", "greedy, probe"))


def _pct(x) -> str:
    return "—" if x is None else f"{x:.1f} %"


def _cats(counts: dict) -> str:
    order = ("unique", "line", "probe", "search", "multiple", "none", "unknown")
    return ", ".join(f"{k} {counts[k]}" for k in order if counts.get(k))


def design_medians(des) -> dict:
    """Per resolution and run: the median hidden % over the models, and the slowest greedy."""
    out: dict = {}
    for res in des.get("resolutions", []):
        rows = [r for r in des["rows"] if r["resolution"] == res]
        if not rows:
            continue
        m = {k: statistics.median(r["runs"][k]["hidden_pct"] for r in rows) for k, _ in DESIGN_RUNS}
        slow = max(rows, key=lambda r: r["runs"]["greedy_line"]["time_s"])
        m["greedy_time_max"] = (slow["model"], slow["runs"]["greedy_line"]["time_s"])
        out[res] = m
    return out


def design_headlines(des) -> list:
    heads = []
    med = design_medians(des)
    for res, m in med.items():
        model, t = m["greedy_time_max"]
        heads.append(f"- **puzzle design at {res}³** (median over the {sum(r['resolution'] == res for r in des['rows'])} "
                     f"models, clues hidden with logic `line`): greedy random baseline {_pct(m['random_line'])}, "
                     f"informed greedy {_pct(m['greedy_line'])}, annealed {_pct(m['anneal_line'])}; with "
                     f"logic `probe` {_pct(m['random_probe'])} / {_pct(m['greedy_probe'])}. Slowest greedy "
                     f"design: {model}, {ft(t)}.")
    return heads


BEFORE_AFTER = "Measured against the branch point's capture interleaved in one process on the same grids (thread CPU time, best of 41, three runs at load 8-9 on the 2 cores): duck 6.78 / 18.51 / 12.12 -> 6.91 / 20.03 / 12.43 ms (medians 8.69 / 37.35 / 16.99 -> 8.89 / 37.79 / 16.44 ms) against Make 8.27 / 20.88 / 13.71 ms, i.e. 82-89 % -> 84-96 % (best) and 65-84 % -> 65-86 % (median), and two more runs of best of 101 at load 12: 8.12 / 6.60 -> 8.46 / 6.68 ms (medians 13.23 / 7.10 -> 13.81 / 7.06 ms) against Make 9.02 / 7.89 ms: on the duck no gain, the best times 1-4 % slower, the medians within the noise either way; T-rex 1.26 / 1.44 / 1.43 / 1.09 / 0.98 -> 1.21 / 1.34 / 1.40 / 0.98 / 0.92 ms against 2.9-6.0 ms (24-34 % -> 22-32 %), 2-10 % faster in every run. Kept for the T-rex and because it changes no colour. The fused sweep alone (surface mask, slots and the whole fill, without the nearest-triangle pass between) takes 3.0-3.1 ms against 3.5-3.7 ms on the duck (0.22 against 0.32 ms on the T-rex), but in the capture the fill's arrays, written before the nearest-triangle pass, are read back after it from colder caches; running the fill's passes before that pass and copying the colours after it (tried) gives the same. Three runs of this script at load 7-9 (the table shows the first): duck capture / Make 53 %, 75 %, 87 % (best of 21; medians 86 %, 85 %, 102 %), T-rex 32 %, 7 %, 31 % (medians 9 %, 36 %, 24 %; the T-rex's Make times, 2.8-37 ms, show how much the load distorts single figures; the table's 53 % is no gain on the second round's 79 %: at this load Make's time is inflated more than the capture's, and the interleaved figures above are the fair comparison); fidelity unchanged (duck mean ΔE00 0.04 / 0.09, T-rex 0.37 / 0.36, plain materials 148/148 and 418/418)."
# Third round of the capture's speed (issue #23, the 25 % target): measured by hand (see the text).
THIRD_ROUND = (
    "Third round (issue #23, the 25 % target). What changed: one sweep of the grid computes the "
    "surface mask, the surface voxels' rows and slots and the interior fill's first sweep along x "
    "(`surface_sites`), where three sweeps did; the fill carries each voxel's site as its surface "
    "slot, so interior colours are copied from the small per-surface-voxel array, not from the "
    "2 MB colour grid. Colours, surface and nearest triangles are bit for bit as before (duck and "
    "T-rex at 64). " + BEFORE_AFTER + " "
    "Tried and dropped (duck at 64, thread CPU time, best of 40, load 9-10): (1) the raycaster's "
    "hits as first candidates for the nearest triangle. Even the *true* nearest distance given to "
    "every surface voxel in advance (an oracle, better than any hit) leaves the triangle pass "
    "14,490 of its 30,332 exact tests and all its 209,611 voxel visits, and saves 15-25 % of it "
    "(about 0.5 ms); a bound 1.5 times the true distance (a hit within about half a voxel) leaves "
    "23,572 tests. Recording the hits would cost Make's own passes time and memory, so it was not "
    "built. (2) Skipping the search where a candidate's bound proves it nearest: the proof needs "
    "the triangles near each voxel, i.e. buckets of a voxel; the bucket search on buckets aligned "
    "to the voxel lattice takes 16 ms against 2.5-3.5 ms for the triangle pass (the first ring's "
    "27 cells). (3) Per row of the triangle pass, only the voxels within the margin of the "
    "triangle's plane (an interval along z): visits 209,611 -> 192,450 (the duck's triangles are "
    "about a voxel across) and slower. (4) numba parallel: not tried (the 2 cores are shared by six "
    "engineers, Make's engine is single-threaded, and the gain could not be measured). "
    "Why 25 % stays out of reach while the capture is exact: on the duck the exact nearest-triangle "
    "pass (2.4-2.7 ms) alone is about 25 % of Make's engine time (about 10 ms when the machine is "
    "quiet), before the exact interior fill (about 2 ms), the sampling (about 0.5 ms) and the "
    "surface sweep. Reaching 25 % needs both parts approximate: a breadth-first or chamfer "
    "interior fill (about 0.5 ms, not always the nearest surface voxel) and a ray hit's triangle "
    "taken as the nearest without the search (up to about half a voxel from the nearest surface "
    "point). The issue's spec (\"the model's surface nearest to it\") and the tests that promise "
    "exact distances rule both out, so neither was done: that is the issue owner's decision.")


def section_colour_capture(col) -> str:
    """Colour capture (issue #23): fidelity vs an independent implementation, and speed."""
    L = ["`benchmarks/bench_colour.py`. **Fidelity**: every surface voxel's captured colour (before the "
         "palette) against the colour an independent implementation finds at the surface point nearest the "
         "voxel's centre (trimesh's loader and closest point on triangles, its barycentric UVs, the texture "
         "decoded by Pillow, bilinear with repeat wrap), as CIEDE2000; target: mean < 3. For plain "
         "materials, the voxels whose colour is exactly their nearest triangle's material colour "
         "(target: all).", "",
         "| model | resolution | grid | surface voxels | mean ΔE00 | 95th pct | max | plain materials exact |",
         "|---|---|---|---|---|---|---|---|"]
    for f in col.get("fidelity", []):
        exact = f"{f['exact']}/{f['plain']}" if f["plain"] else "(textured)"
        L.append(f"| {f['model']} | {f['res']} | {f['shape']} | {f['surface']} | {f['mean']:.2f} | "
                 f"{f['p95']:.2f} | {f['max']:.1f} | {exact} |")
    L += ["", "The few large differences are voxels at texture seams and creases, where two triangles are "
          "equally near and the two implementations pick different ones. The T-rex's small constant "
          "difference is trimesh's: it stores baseColorFactor as 8-bit values.", "",
          f"**Speed** at 64 (warm, best of {col.get('repeat')}, median beside): Make's engine work "
          "(voxelize with the piece options Make uses by default, `MAKE_PIECE_DEFAULTS`: thin parts "
          "restored, pieces bridged; + clues: what the Make operator times as `voxelize` and "
          "`puzzle` in `make_info`; not reading the mesh from Blender nor building the scene) "
          "against the capture (nearest triangles, sampling, interior fill) and the palette (k = 8) on "
          "the same grid. Targets: capture ≤ 25 % of Make's engine time, palette < 50 ms. Load average "
          "during the run: " + " → ".join(", ".join(f"{v:.1f}" for v in col.get(k) or [])
                                           for k in ("load_average", "load_average_end"))
          + " (2 cores shared with other work: all times are inflated).",
          "", "The last two columns: plain `voxelize()` (no piece options), which the earlier rounds "
          "measured against.",
          "", "| model | grid | filled | make (ms) | capture (ms) | capture / make | palette k=8 (ms) "
          "| plain voxelize + clues (ms) | capture / plain |",
          "|---|---|---|---|---|---|---|---|---|"]
    for s in col.get("speed", []):
        med = (f" (median {s['make_median_ms']:.1f})", f" (median {s['capture_median_ms']:.1f})") \
            if "capture_median_ms" in s else ("", "")
        plain = (f"{s['plain_ms']:.1f} | {s['plain_share']:.0f} %" if "plain_ms" in s else "– | –")
        L.append(f"| {s['model']} | {s['shape']} | {s['filled']} | {s['make_ms']:.1f}{med[0]} | "
                 f"{s['capture_ms']:.1f}{med[1]} | {s['share']:.0f} % | {s['palette_ms']:.1f} | {plain} |")
    for s in col.get("speed", []):
        st = s.get("stages_ms")
        if st:
            L.append(f"\n{s['model']}: the capture's kernels, each alone (best of {col.get('repeat')}): "
                     f"surface sweep (mask, slots, the fill's first sweep) {st['surface']:.2f} ms, nearest triangles "
                     f"{st['nearest']:.2f} ms, interior fill {st['fill']:.2f} ms; the rest is sampling, "
                     f"checks and allocation.")
    worst = max((s["share"] for s in col.get("speed", [])), default=0)
    if worst <= 25 and col.get("speed"):
        L += ["", "The capture target is met on both models."]
    if worst > 25:
        L += ["", f"The capture target is **missed** (up to {worst:.0f} %): Make's engine work is a few "
              "milliseconds at 64³, and on the duck the capture's exact interior fill (a Euclidean feature "
              "transform over the filled voxels) and the nearest-triangle pass for every surface voxel "
              "each cost about a third of it or more, so neither alone can be brought under 25 % by "
              "trimming."]
    L += ["", ("Before and after the speed-up of the capture (issue #23's follow-up; the same script, "
          "best of 9 or 21, on the shared 2 cores at load 3.4-4.9, where single runs vary by 2x). "
          "Duck capture: before 18.4, 18.8, 26.3, 26.4 ms (make 7.2, 7.1, 11.1, 4.7 ms: 257-559 %); "
          "after 11.9, 12.1, 12.9, 11.1, 8.7, 17.1, 19.3, 19.7, 18.3 ms (make 4.6-10.9 ms: 167-344 %); "
          "in the two runs taken back to back, 26.3 -> 19.7 and 26.4 -> 18.3 ms. T-rex capture: before "
          "2.1-3.1 ms (104-130 %), after 1.3-1.9 ms (67-86 %, within Make's time but not 25 %). "
          "Kernel by kernel (duck, best of 9-30): interior fill 8.3-10.4 -> 4.4 ms, nearest triangles "
          "3.7-4.1 -> 2.7-3.5 ms, the rest (surface mask, argwhere, sampling, scatter) about 1.5 ms. "
          "What changed: the interior fill is one kernel (passes along x, y, z so the last runs along "
          "the contiguous axis; the first pass as two sweeps; the last only on lines holding interior "
          "voxels, copying the colour in place; the envelopes in exact integer arithmetic, no "
          "division), and the triangle pass skips voxels whose distance to the triangle's plane already "
          "exceeds their best. Nearest triangles are unchanged, bit for bit; an interior voxel equally "
          "near two surface voxels may now take the other one's colour (856 of 60,632 interior voxels "
          "of the duck at 64). A smaller first-pass margin (0.6-0.87 voxel) is slower: the bucket "
          "search for the voxels it leaves costs more than it saves."),
          "",
          ("Second round (issue #23's open points). The table above now measures Make's engine time "
           "with the piece options the Make operator runs by default (thin parts restored, pieces "
           "bridged: 2-3 ms more than plain `voxelize()` at 64³); the first round and the figures "
           "below measured against plain `voxelize()` (the table's last two columns). Against plain "
           "`voxelize()`, measured as the previous capture (the branch point's "
           "engine) and this one interleaved in one process on the same grids, best of 41, four runs at "
           "load 5-6 and one at load 1 on the 2 cores: duck capture 8.3 / 17.2 / 11.6 / 11.4 / 10.2 -> "
           "6.7 / 10.9 / 9.3 / 9.2 / 8.2 ms against make 4.9 / 9.1 / 7.4 / 7.2 / 6.6 ms, i.e. 153-189 % "
           "-> 120-136 %; T-rex 1.36-1.79 -> 0.99-1.24 ms against 1.8-2.7 ms, 63-74 % -> 46-54 %. Duck "
           "kernel by kernel: interior fill 3.9-6.3 -> 2.3-3.9 ms, nearest triangles 2.5-3.1 -> 2.3-2.9 "
           "ms, sampling about 0.5 ms, the "
           "rest (surface mask and slots, allocation) about 0.7 ms. Surface colours and nearest "
           "triangles bit for bit as before on both models (under 1,000 of the duck's 60,632 interior "
           "voxels take another of two equally near surface voxels). What changed: the fill's passes "
           "run only over runs of filled voxels that hold interior voxels (exact still: a run's ends are "
           "surface voxels, so the site nearest along the axis lies in the run), in int32; a run whose "
           "squared distances are all <= 12² is searched outwards voxel by voxel, deeper runs take the "
           "envelope (its stack carrying heights and sites, so a run is read once), which keeps it "
           "linear; the triangle pass also prunes by the triangle's box; non-finite pixels are checked "
           "where sampled instead of over the whole image on every capture; int32 slots; the surface "
           "colours scattered by a kernel. Tried and dropped (no gain): measuring each triangle's own "
           "box first to tighten the bounds; a lower bound from the projection's barycentric weights "
           "(plane distance plus the distance to the edge line it falls beyond); the division-based "
           "envelope (40 % slower than the integer one). Where the rest of the time goes: about 30,000 "
           "exact closest-point tests for 8,613 surface voxels (about 1.3 ms of the nearest-triangle "
           "time), and the fill's passes over about 60,000 interior voxels. A chamfer or "
           "breadth-first fill (about 0.5 ms) would still leave the duck near 90 %, and the tests "
           "promise the exact nearest surface voxel, so the fill stays exact. Cold compile of the "
           "capture's kernels: 10.8 s before, 14.1 s after (two more small kernels; load 5, the "
           "voxelizer's compile before it varied as much, 22.7 / 28.5 s).")]
    L += ["", THIRD_ROUND]
    L += ["", f"Compiling or loading the kernels before the first capture: {col.get('compile_s', 0):.1f} s "
          "(not in the times above)."]
    return "\n".join(L) + "\n"


def section_design(des) -> str:
    L = []
    w = L.append
    machine = des.get("machine", {})
    w("Every shared model voxelized with `engine/voxel/meshio.py` + `engine/voxel/voxelize.py` (the add-on's settings; "
      "axes may differ from the Blender path above), then designed with `engine.design.hiding.design` "
      "(seed 0): `random` = the baseline (clues tried in a random order, each kept hidden while line "
      "propagation still solves the puzzle), `greedy` = the informed start (the clue that deduces the "
      "most cells now, until solved) and the same pass, `anneal` = greedy, restarts, then simulated "
      f"annealing (reveal one clue, hide those a run led by it no longer needs) with a "
      f"{ft(des.get('anneal_time_limit'))} limit, the default. With logic `probe` trials may also "
      "probe. Times are `DesignResult.time_s` (greedy: median of 3 runs; it includes the final check by "
      "`solve`), single-threaded, on the machine shared with other work (load average "
      f"{machine.get('load_average')} at the end); kernel compilation or cache loading is done first "
      f"({ft(des.get('compile_s'))} in this run) and not counted. Score/band: the difficulty of the "
      "greedy design (`engine/model/difficulty.py`); *full* = the puzzle with every clue shown.")
    w("")
    w("```")
    w("python benchmarks/bench_design.py" + (" --quick" if des.get("quick") else ""))
    w("```")
    w("")
    head = ["Puzzle", "res.", "clues", "full score", "random", "greedy (time)", "anneal (time)",
            "random, probe", "greedy, probe", "greedy score", "cells with 1/2/3 clued lines"]
    rows = []
    for r in des["rows"]:
        ru = r["runs"]
        cov = r["cover_greedy"]
        n = max(sum(cov), 1)
        rows.append([f"**{r['model']}**", r["resolution"], r["lines"],
                     f"{r['full_score']} ({r['full_band']})",
                     _pct(ru["random_line"]["hidden_pct"]),
                     f"{_pct(ru['greedy_line']['hidden_pct'])} ({ft(ru['greedy_line']['time_s'])})",
                     f"{_pct(ru['anneal_line']['hidden_pct'])} ({ft(ru['anneal_line']['time_s'])})"
                     + ("*" if ru["anneal_line"]["stopped_early"] else ""),
                     _pct(ru["random_probe"]["hidden_pct"]), _pct(ru["greedy_probe"]["hidden_pct"]),
                     f"{ru['greedy_line']['score']} ({ru['greedy_line']['band']})",
                     " / ".join(f"{100 * c / n:.0f} %" for c in cov[1:])])
    w(table(head, rows))
    w("")
    w("\\* annealing was cut short by its time limit (the result still ends with a full pass, so it "
      "is locally minimal).")
    w("")
    med = design_medians(des)
    w(table(["res.", "random", "greedy", "anneal", "random, probe", "greedy, probe", "slowest greedy"],
            [[res, _pct(m["random_line"]), _pct(m["greedy_line"]), _pct(m["anneal_line"]),
              _pct(m["random_probe"]), _pct(m["greedy_probe"]),
              f"{m['greedy_time_max'][0]} {ft(m['greedy_time_max'][1])}"] for res, m in med.items()]))
    w("")
    more = [r for r in des["rows"] if r.get("one_more")]
    if more:
        w("What hiding one more clue does to the greedy design (12³, every clue still shown tried, "
          "`solve` with the engine's full solver): " + "; ".join(
              f"{r['model']} {_cats(r['one_more'])}" for r in more) + ". *multiple* = the puzzle gets a "
          "second solution, so no logic (and no amount of probing) could have hidden it: the designs are "
          "minimal for uniqueness itself, which is why logic `probe` hides no more than `line` on these "
          "models.")
        w("")
    noise = des.get("probe_noise") or []
    if noise:
        keys = list(noise[0])
        w(f"Where probing does matter, on random noise (8³, density 0.35; {len(noise)} grids whose full clue "
          "set line propagation solves), median clues hidden: " + ", ".join(
              f"{k.replace('_', ' ')} {_pct(statistics.median(r[k]['hidden_pct'] for r in noise))}"
              for k in keys) + ".")
        w("")
    live = des.get("live") or []
    if live:
        w("The live check of a hand-editing session (`DesignSession`, 24³): the greedy design with one "
          "random clue toggled (shown again, or hidden as well), then `check` (verdict, logic, score, "
          "undecided cells; a search of at most 0.1 s when logic stalls on covered cells) and `suggest`:")
        w("")
        w(table(["Puzzle", "toggles", "verdicts", "check median", "check max", "suggest median", "suggest max"],
                [[r["model"], r["toggles"], _cats(r["verdicts"]), ft(r["check_median_s"]), ft(r["check_max_s"]),
                  ft(r["suggest_median_s"]), ft(r["suggest_max_s"])] for r in live]))
        w("")
    q1 = des.get("q1")
    if q1:
        w("### The seed's open questions (its section 6.2.1)")
        w("")
        w("**Is a 3D puzzle guaranteed to be line-solvable if no clues are removed?** No. Categories: what "
          "the engine's full solver needs for the full clue set (`line`, `probe`, `search` = unique; "
          "`multiple` = not even unique).")
        w("")
        w("- checkerboards (filled where x+y+z is odd): " + "; ".join(
            f"{c['n']}³ {c['category']} (line propagation knows {100 * c['line_known']:.0f} %)"
            for c in q1["checkerboard"]) + ". Even sizes: every line's clue fits the complement too, so "
          "line propagation deduces nothing and the puzzle has two solutions.")
        w("- random noise grids: " + "; ".join(
            f"{c['n']}³ at {c['density']:.2f}: {_cats(c['counts'])}" for c in q1["noise"]) + ".")
        w("- random blobs (smooth shapes, fill 0.35): " + "; ".join(
            f"{c['n']}³: {_cats(c['counts'])}" for c in q1["blobs"]) + ".")
        n_line = sum(r["full_category"] == "line" for r in des["rows"])
        w(f"- the shared models: {n_line} of {len(des['rows'])} full-clue puzzles are line-solvable.")
        w("")
    q2 = des.get("q2")
    if q2:
        sm = q2["smallest"]
        w("**Is a 3D puzzle still line-solvable if every cell keeps at least two axes of information?** "
          f"No. Smallest counterexample: {sm['grid']}, {sm['hidden']} hidden: {sm['category']} (each row "
          "and column clue is 1, which the other diagonal satisfies too). On the models, hiding one whole "
          "axis (every cell keeps exactly two clued lines), and random maximal masks that keep two clued "
          "lines on every cell:")
        w("")
        w(table(["Puzzle", "x hidden", "y hidden", "z hidden", "random 2-axis masks"],
                [[r["puzzle"], *r["axis_hidden"], _cats(r["mask_counts"])] for r in q2["rows"]]))
        w("")
        cov = [r["cover_greedy"] for r in des["rows"]]
        one = sum(c[1] for c in cov) / max(sum(sum(c) for c in cov), 1)
        w(f"Conversely two axes are not needed: in the greedy designs {100 * one:.0f} % of all cells keep a "
          "single clued line, and every design is line-solvable and unique.")
        w("")
    return "\n".join(L)


def overruns(rows3d, b2d) -> list:
    out = []
    for r in rows3d or []:
        lim = r.get("time_limit")
        for name, res in (("full/dp", r["full"].get("dp")), ("full/seed", r["full"].get("seed")),
                          ("CP-SAT", r.get("cpsat"))):
            t = tval(res)
            if lim and t and res.get("verdict") not in ("timeout", "skipped") and t > 1.5 * lim:
                out.append(f"{puzzle_label(r)} {name} {ft(t)} (limit {ft(lim)})")
    if b2d:
        lim = b2d.get("taai_time_limit")
        for st in b2d.get("taai", []):
            for r in st["rows"]:
                for name, key in (("ours", "ours_s"), ("CP-SAT", "cpsat_s")):
                    t = r.get(key)
                    if lim and t and t > 1.5 * lim:
                        out.append(f"{st['set']} #{r['index']} {name} {ft(t)} (limit {ft(lim)}, verdict "
                                   f"{r['ours'] if name == 'ours' else r['cpsat']})")
        lim = b2d.get("survey_time_limit")
        for r in b2d.get("survey", []):
            for name, res in (("full/dp", r["full"].get("dp")), ("full/seed", r["full"].get("seed")),
                              ("CP-SAT", r.get("cpsat"))):
                t = tval(res)
                if lim and t and t > 1.5 * lim and (res or {}).get("verdict") != "timeout":
                    out.append(f"{r['file']} {name} {ft(t)} (limit {ft(lim)})")
    return out


def section_colour_2d(b) -> str:
    """benchmarks/colour_bench.py 2d: like with like against pbnsolve, by class of puzzle."""
    from benchmarks.colour_bench import checked, class_table
    rows = b["rows"]
    if "engine_whole_s" not in rows[0]:
        return ""  # a result of the earlier script (mixed measures): not shown
    m = b.get("machine", {})
    fixed = b.get("fixed") or {}
    n_gen = sum(r["class"] in ("picture", "noisy picture", "near-random") for r in rows)
    extra = (f"; and the {len(rows) - n_gen} colour puzzles in Olšák's `.g` format that ship with pbnsolve "
             f"(griddlers.net tasks, `--g PBNSOLVE/examples`; `alladin.g`, with triangle colours, skipped)"
             if len(rows) > n_gen else "")
    L = [f"### 2D colour, like with like against pbnsolve ({b.get('when', '')})", "",
         f"`benchmarks/build_pbnsolve.sh` (Wolter's pbnsolve 1.11, its CHANGELOG's last entry, from a public "
         f"mirror, built outside the checkout), then `python -m benchmarks.colour_bench 2d --pbnsolve PATH --g PBNSOLVE/examples --save` "
         f"(load average {b.get('load_start', m.get('load_average', '?'))} at the start, {b.get('load_end', '?')} at "
         f"the end; the machine "
         f"shared). {n_gen} puzzles generated by the script (seeded; 15×15 to 50×50, k = 2–4): pictures of "
         f"discs and bars, the same with 5–25 % of the cells given random values, and near-random grids, written "
         f"as webpbn XML without their solutions{extra}. Each solved to a uniqueness verdict by pbnsolve (`-u -b -t`) "
         f"and the engine, two measures never mixed: **own solve time** — pbnsolve's \"Processing Time\" "
         f"(`clock()` around its solve), the engine's CPU time of `solve_colour` alone (warm, in process) — and "
         f"the **whole process**, CPU time from `wait4`: pbnsolve's process and `python -m engine solve FILE "
         f"--json --no-known`. A solve under 0.5 s is run {b.get('repeat', 3)} times on both sides and the median "
         f"kept; limit {b.get('limit', 60):g} s. CP-SAT (`benchmarks/cpsat_colour.py`) gives its verdict too: "
         f"**wrong verdicts (the engine or its CLI, and pbnsolve, against CP-SAT): {b['disagree']}**; pbnsolve "
         f"failed (an internal error, or the time limit) on {sum(checked(r)['pbnsolve_failed'] for r in rows)}: "
         f"the totals and medians are over the puzzles both settled, the failures listed below the table. Engine "
         f"compile before the solves: {b['compile_s']:.1f} s.", ""]
    if fixed:
        L += ["The engine's cost per `solve_colour` call on a puzzle line logic settles at once: "
              + ", ".join(f"{k} {1e6 * v:.0f} µs" for k, v in fixed.items())
              + " (CPU, median of 5 batches of 400 calls).", ""]
    L += class_table(rows)
    fails = [r for r in rows if checked(r)["pbnsolve_failed"]]
    if fails:
        L += ["", "pbnsolve failed on: " + "; ".join(
            f"{r['puzzle']} ({'its time limit' if r['pbnsolve_verdict'] == 'timeout' else repr(r['pbnsolve_verdict'])}, "
            f"{ft(r['pbnsolve_whole_s'])} of CPU; the engine: {r['engine_verdict']} in {ft(r['engine_s'])}, "
            f"CP-SAT: {r['cpsat_verdict']})" for r in fails) + "."]
    L += ["", "<details><summary>Every puzzle</summary>", ""]
    L.append(table(["puzzle", "class", "size", "k", "engine", "pbnsolve", "engine whole", "pbnsolve whole",
                    "engine verdict", "pbnsolve", "CP-SAT"],
                   [[r["puzzle"], r["class"], "×".join(map(str, r["shape"])), r["k"], ft(r["engine_s"]),
                     ft(r["pbnsolve_s"]) if r["pbnsolve_s"] is not None else "—", ft(r["engine_whole_s"]),
                     ft(r["pbnsolve_whole_s"]),
                     f"{r['engine_verdict']} ({r['engine_level']})", r["pbnsolve_verdict"], r["cpsat_verdict"]]
                    for r in rows]))
    L += ["", "</details>", ""]
    return "\n".join(L)


def section_colour(col) -> str:
    """Colour puzzles (#24): benchmarks/colour_verdicts.py and benchmarks/colour_bench.py."""
    L = []
    w = L.append
    v = col.get("verdicts")
    if v:
        w(f"`python -m benchmarks.colour_verdicts 100 {v['seed']} --save` ({v.get('when', '')}): the engine's "
          f"colour solver against the CP-SAT reference (`benchmarks/cpsat_colour.py`) on {v['total']} random "
          f"colour puzzles, 2D and 3D, k = 2..4, some with hidden lines, some with clues mixed from two grids: "
          f"**{v['wrong']} wrong verdicts**; engine {v['engine_s']:.2f} s in total, CP-SAT {v['cpsat_s']:.2f} s.")
        w("")
        w(table(["puzzles", "n", "with hidden lines", "unique", "multiple", "none"],
                [[f"{r['dim']}D k={r['k']}", r["n"], r["hidden"], r["verdicts"].get("unique", 0),
                  r["verdicts"].get("multiple", 0), r["verdicts"].get("none", 0)] for r in v["per"]]))
        w("")
    b = col.get("2d")
    if b and b.get("rows"):
        w(section_colour_2d(b))
    b = col.get("3d")
    if b and b.get("rows"):
        rows = b["rows"]
        w(f"### 3D colour, from the shared models ({b.get('when', '')})")
        w("")
        w("`python -m benchmarks.colour_bench 3d --design-max 24 --cpsat-max 24 --save`: each model voxelized "
          "as the add-on does, coloured synthetically (Voronoi regions of 2k random seeds, colours 1..k in "
          "turn), all clues shown; `full`: the solve to a verdict (warm, best of 3, the puzzle's own solution "
          "not used); `design`: the greedy line-logic design, seed 0; `designed`: the solve of the designed "
          "puzzle; CP-SAT: the reference (one worker) to a uniqueness verdict on the full-clue puzzle. "
          f"Engine compile before the solves: {b['compile_s']:.1f} s.")
        w("")
        t36 = [r for r in rows if r["res"] == 36 and r["k"] == 3]
        if t36:
            w("- **36³, k = 3, full clues** (target ≤ 50 ms): " + "; ".join(
                f"{r['model']} {1000 * r['full_s']:.1f} ms" for r in t36) + ".")
        d24 = [r for r in rows if r["res"] == 24 and r.get("designed_s") is not None]
        if d24:
            worst = max(d24, key=lambda r: r["designed_s"])
            w(f"- **designed 24³ solve** (target ≤ 2 s): at most {1000 * worst['designed_s']:.1f} ms "
              f"({worst['model']}, k = {worst['k']}); designing took {min(r['design_s'] for r in d24):.1f}-"
              f"{max(r['design_s'] for r in d24):.1f} s.")
        both = [r for r in rows if r.get("cpsat_s")]
        if both:
            ratio = [r["cpsat_s"] / max(r["full_s"], 1e-6) for r in both]
            gm = math.exp(sum(math.log(x) for x in ratio) / len(ratio))
            agree = sum(r["cpsat_verdict"] == r["verdict"] for r in both)
            w(f"- **vs CP-SAT** (full clues, {len(both)} puzzles at 16³ and 24³): verdicts agree on {agree}; "
              f"CP-SAT takes {gm:.0f}× the engine's time (geometric mean).")
        w("")
        w(table(["model", "res", "shape", "k", "filled", "full", "verdict", "design", "hidden", "score",
                 "designed", "CP-SAT"],
                [[r["model"], r["res"], "×".join(map(str, r["shape"])), r["k"], r["filled"],
                  f"{1000 * r['full_s']:.1f} ms", f"{r['verdict']} ({r['level']})",
                  "-" if r.get("design_s") is None else f"{r['design_s']:.1f} s",
                  "-" if r.get("design_s") is None else f"{r['hidden']}/{r['lines']}",
                  "-" if r.get("score") is None else r["score"],
                  "-" if r.get("designed_s") is None else f"{1000 * r['designed_s']:.1f} ms",
                  "-" if r.get("cpsat_s") is None else f"{r['cpsat_s']:.2f} s ({r['cpsat_verdict']})"]
                 for r in rows]))
        w("")
    return "\n".join(L)


def build() -> str:
    # matplotlib only where plots are drawn: the tables import this module without it
    from benchmarks.plots import all_plots, geomean

    puz = load_json(RESULTS / "puzzles3d.json")
    b3d = load_json(RESULTS / "bench3d.json")
    bs = load_json(RESULTS / "bench_sched.json")
    b2d = load_json(RESULTS / "bench2d.json")
    vox = load_json(RESULTS / "voxelizer.json")
    des = load_json(RESULTS / "design.json")
    capture = load_json(RESULTS / "colour_capture.json")
    run = load_json(RESULTS / "run.json", {})
    tour = load_json(RESULTS / "tournament.json")
    plots = all_plots(b3d, b2d, vox)
    rows3d = (b3d or {}).get("rows", [])
    seed_problems = SP.verify()
    quick = bool(run.get("quick"))
    L = []
    w = L.append
    w("# Benchmarks: the seed study's experiments redone, side by side with CP-SAT")
    w("")
    w("> Generated by `python benchmarks/run_all.py" + (" --quick" if quick else "") +
      "` from the files in `benchmarks/results/`. Do not edit by hand: every figure about this project "
      "below comes from that run, except in the paragraphs between `<!-- by hand -->` and "
      "`<!-- /by hand -->` (measurements no result file holds), which the next run keeps "
      "(`benchmarks/handwritten.py`). Figures in *italics* marked *seed* are the seed study's published "
      "numbers (`../shared/seeds/000_772b3ef6b2583e0b.txt`, 2016), quoted for comparison.")
    w("")
    if quick:
        w("**This is a QUICK run** (development mode): fewer puzzles, smaller sizes and shorter time "
          "limits than the full benchmark. Run `python benchmarks/run_all.py` for the full tables.")
        w("")
    w("The 3D models are **public stand-ins**, not the seed study's files: `trex` (Quaternius, CC0) for its "
      "Dino, `duck` (glTF sample duck) for its Duck, `horse` (Cyberware) for its Horse, `jeep` (Psionic) for "
      "its Jeep and `torus_knot` for its Knot, plus `teapot` and `bunny` that it did not use. Their shapes, "
      "and so their puzzles, differ from the seed's; the checkerboard is the same puzzle as the seed's. "
      "Compare trends, not individual numbers.")
    w("")
    w("## Machine and commands")
    w("")
    w(section_machine(b3d, b2d, puz, run))
    w("")
    w("Every solve ran single-threaded (one CP-SAT worker, `num_workers=1`; numba kernels in one thread), "
      "one at a time, in a worker process with a hard time limit (`benchmarks/runner.py`); JIT compilation "
      "is done before timing. The machine was shared with other work while this ran, so times are noisy "
      "(see the load average).")
    w("")
    w("```")
    for c in run.get("commands", []):
        w(c)
    w("```")
    w("")
    # --- headlines
    w("## Headline figures")
    w("")
    heads = []
    if rows3d:
        for res in (36, 64):
            hs = headline_cpsat(rows3d, (res,))
            if hs:
                sp = [1 / h[1] for h in hs]
                g = geomean(sp)
                heads.append(f"- **ours (`full`, DP linesolver) vs CP-SAT on the {res}³ model puzzles**: ours "
                             f"is {fx(g)} faster (geometric mean of CP-SAT time ÷ ours over the {len(hs)} "
                             f"puzzles where both finished; range {fx(min(sp))}–{fx(max(sp))}). Total "
                             f"{ft(sum(h[2] for h in hs))} (ours) vs {ft(sum(h[3] for h in hs))} (CP-SAT).")
            else:
                heads.append(f"- ours vs CP-SAT on {res}³: no {res}³ puzzle finished by both in this run.")
        _t6, avgs, seed_avg = section_table6(rows3d)
        for ls in LINESOLVERS:
            if ls in avgs:
                a = avgs[ls]
                heads.append(f"- **Heur+Pre vs Brute linesolvers ({LSNAME[ls]})**: Heur+Pre needs on average "
                             f"{fr(a['Heur+Pre'])} of Brute's linesolvers (best {fr(a['best']['Heur+Pre'])}), "
                             f"Hier+Pre {fr(a['Hier+Pre'])}, Heur {fr(a['Heur'])}, Hier {fr(a['Hier'])}, over "
                             f"the {a['n']} puzzles all five schedulers solved with it; the seed study printed "
                             f"{fr(SP.TABLE6_AVERAGE['Heur+Pre'])}, {fr(SP.TABLE6_AVERAGE['Hier+Pre'])}, "
                             f"{fr(SP.TABLE6_AVERAGE['Heur'])} and {fr(SP.TABLE6_AVERAGE['Hier'])}.")
        common = ratios_common(rows3d)
        if common:
            heads.append("- the same averages over the " + str(common["n"]) + " puzzles solved with both "
                         "linesolvers: Heur+Pre " + " vs ".join(f"{fr(common[ls]['Heur+Pre'])} ({ls})"
                                                              for ls in LINESOLVERS) +
                         ", Hier+Pre " + " vs ".join(f"{fr(common[ls]['Hier+Pre'])} ({ls})" for ls in LINESOLVERS)
                         + ".")
        _st, tot, per_run = section_sched_times(rows3d)
        if tot["dp"] > 0:
            heads.append(f"- **complete DP vs seed linesolver, time**: the five schedulers took "
                         f"{ft(tot['seed'])} in total with the seed linesolver and {ft(tot['dp'])} with the "
                         f"complete DP linesolver ({fx(tot['seed'] / tot['dp'])}; per run geometric mean "
                         f"{fx(geomean(per_run))}), on the 3D puzzles where all ten runs finished.")
        big = [r for r in rows3d if r["resolution"] > b3d.get("seed_ls_max_res", 10 ** 9)
               and r["model"] != "checkerboard"]
        if big:
            parts = []
            for r in big:
                a = (r["schedulers"]["seed"] or {}).get("Brute")
                b = (r["schedulers"]["dp"] or {}).get("Brute")
                if not a or not b:
                    continue
                ta = f"killed at {ft(a.get('wall_s'))}" if a.get("verdict") == "timeout" else ft(tval(a))
                parts.append(f"{puzzle_label(r)} {ta} vs {ft(tval(b))}")
            if parts:
                heads.append("- **Brute at 64³, seed vs DP linesolver**: " + "; ".join(parts) + ".")
        if bs:
            heads += headline_sched(bs)
        dis = [puzzle_label(r) for r in rows3d if r.get("agreement") == "DISAGREE"]
        n_ag = sum(r.get("agreement") == "agree" for r in rows3d)
        heads.append(f"- **verdicts, 3D**: `full` and CP-SAT agree on {n_ag} of {len(rows3d)} puzzles"
                     + (f"; **DISAGREE on {', '.join(dis)}**" if dis else "; no disagreement")
                     + "; the others were stopped by a time limit on at least one side.")
    if b2d:
        _s, dis2 = section_2d_survey(b2d)
        sv = b2d.get("survey", [])
        sp = [tval(r["cpsat"]) / tval(r["full"]["dp"]) for r in sv
              if (r["full"].get("dp") or {}).get("verdict") in DONE and (r["cpsat"] or {}).get("verdict") in DONE
              and tval(r["full"]["dp"]) and tval(r["cpsat"])]
        n_ag = sum(r["agreement"] == "agree" for r in sv)
        n_exp = sum(1 for r in sv if r.get("matches_expected") is not None)
        n_exp_ok = sum(1 for r in sv if r.get("matches_expected"))
        if sv:
            heads.append(f"- **2D webpbn survey**: `full` and CP-SAT agree on {n_ag} of {len(sv)} puzzles"
                         + (f" (**DISAGREE: {', '.join(dis2)}**)" if dis2 else "")
                         + f"; ours matches EXPECTED.csv on {n_exp_ok} of the {n_exp} it decided"
                         + (f"; where both finished ours is {fx(geomean(sp))} faster (geometric mean, range "
                            f"{fx(min(sp))}–{fx(max(sp))})" if sp else "") + ".")
        _t, summ = section_taai(b2d)
        for name, o, c, n, dis in summ:
            if o > 0:
                heads.append(f"- **2D {name}**: on the {n} sampled puzzles both finished, CP-SAT took "
                             f"{fx(c / o)} our time ({ft(o)} vs {ft(c)})" +
                             (f"; **DISAGREE on {dis}**" if dis else "") + ".")
    if des:
        heads += design_headlines(des)
    w("\n".join(heads) if heads else "(no results)")
    w("")
    # --- 3D puzzles
    if puz:
        w("## 3D puzzles (the seed's Table 4)")
        w("")
        t4, paths = section_puzzles3d(puz)
        how = {"blender": "Blender's own importers (bpy module) and the add-on's `make_nonogram`",
               "engine": "`engine/voxel/meshio.py` + `engine/voxel/voxelize.py` (fallback: the Blender path was not "
                         "available" + (f": {puz.get('blender_unavailable')}" if puz.get("blender_unavailable")
                                        else "") + ")",
               "generated": "generated in code (checkerboard: filled where x+y+z is odd)"}
        w("Made by: " + "; ".join(f"`{p}` = {how.get(p, p)}" for p in paths if p) + ". Resolution = voxels "
          "along the longest axis; the grid is shrunk to the filled voxels (as in the add-on), so sizes are "
          "the bounding boxes of the filled voxels. Columns follow the seed's Table 4: Empty = lines with "
          "clue 0, Plain/Circle/Square = 1, 2, 3+ blocks, `count (min-max)` of the clue totals.")
        w("")
        w(t4)
        w("")
        fails = [p for p in puz["puzzles"] if p.get("blender_error")]
        if fails:
            w("Blender path errors (engine fallback used): " + "; ".join(
                f"{p['model']} {p['resolution']}: `{p['blender_error'][:120]}`" for p in fails))
            w("")
    if rows3d:
        for ls in ("seed", "dp"):
            w(f"## Linesolvers and bad guesses, {LSNAME[ls]} (the seed's Table 5)")
            w("")
            w("`linesolvers (bad-guess %)`: a linesolver is one application of the line solver to a line that "
              "still had an unknown cell; a bad guess is one that deduced nothing. *stalled* / *unknown* = "
              "line solving stopped before the grid was complete (the puzzle is not line-solvable with "
              "this solver, or the scheduler gave up)." +
              (" Rows *seed:* are the seed's Appendix D figures for the model this one stands in for."
               if ls == "seed" else ""))
            w("")
            w(section_table5(rows3d, ls))
            w("")
        t6, avgs, seed_avg = section_table6(rows3d)
        w("## Linesolvers as a ratio to Brute (the seed's Table 6)")
        w("")
        w("Only puzzles all five schedulers solved (as in the seed, whose average covers its 13 solvable "
          "puzzles).")
        w("")
        w(t6)
        w("")
        if bs:
            write_sched_sections(w, bs)
        w("## Scheduler and linesolver times")
        w("")
        st, tot, per_run = section_sched_times(rows3d)
        w("Times of each scheduler with each linesolver, and of `full`. The seed's own times "
          "(Appendix D, unoptimised C# on a 2011 i5) are not comparable and are not repeated here.")
        if b3d.get("seed_ls_max_res"):
            w("")
            w(f"The seed linesolver is run with all five schedulers and `full` up to "
              f"{b3d['seed_ls_max_res']}³ (the seed study's sizes); above that only its Brute run is made, "
              f"killed after {ft(b3d.get('seed_ls_big_hard'))}, to keep the whole run under 30 minutes. "
              f"From {b3d.get('seed_ls_cap_from', 36)}³ on each seed-linesolver run is killed after "
              f"{ft(b3d.get('seed_ls_36_hard'))} and, once "
              f"one is, the remaining seed-linesolver runs of that puzzle are skipped.")
        w("")
        w(st)
        w("")
        if "ls_seed_vs_dp" in plots:
            w(f"![seed vs DP linesolver time]({plots['ls_seed_vs_dp']})")
            w("")
        w("## 3D: `full` vs CP-SAT, to a uniqueness verdict")
        w("")
        t, dis = section_full_vs_cpsat(rows3d)
        w("`full` = propagation with the DP linesolver and a line cache, probing, then search for a second "
          "solution. CP-SAT = `benchmarks/cpsat.py` (one automaton per clued line; find a solution, forbid "
          "it, solve again), its time includes building the model. Both single-threaded, with the same "
          "time limit, in the same run. `ours÷CP-SAT` < 1 means ours is faster.")
        w("")
        if dis:
            w(f"**DISAGREE: {', '.join(dis)}: the two solvers reached different verdicts. This is a bug in one "
              "of them.**")
            w("")
        w(t)
        w("")
        if "ours_vs_cpsat" in plots:
            w(f"![ours vs CP-SAT]({plots['ours_vs_cpsat']})")
            w("")
        w("## Scaling")
        w("")
        if "time_vs_cells" in plots:
            w(f"![time vs cells]({plots['time_vs_cells']})")
            w("")
        if "fig33" in plots:
            w("The seed's Figure 33 (linesolvers vs lines, log scale) and Figure 34 (linesolvers per line) "
              "redone: our puzzles filled, the seed's published points (Appendix D) hollow.")
            w("")
            w(f"![Figure 33 redone]({plots['fig33']})")
            w("")
            w(f"![Figure 34 redone]({plots['fig34']})")
            w("")
    if vox:
        w("## Voxelizer")
        w("")
        w("The engine voxelizer alone (`engine.voxel.voxelize.voxelize`, the add-on's settings: 1 sample, robust "
          "3-axis vote, fit) on the triangles `engine.voxel.meshio.load_mesh` reads; best of 3 runs (1 at 128³ "
          "and above). Mesh import and scene building are not included.")
        w("")
        w(section_voxel(vox))
        w("")
        if "voxelizer" in plots:
            w(f"![voxelizer]({plots['voxelizer']})")
            w("")
    web = load_json(RESULTS / "web_player.json")
    if web:
        w("## Web player")
        w("")
        w(section_web(web))
        w("")
    farm = load_json(RESULTS / "farm.json")
    if farm:
        w("## Catalogue jobs: worker processes and Dask")
        w("")
        w(section_farm(farm))
        w("")
        parts = load_json(RESULTS / "dask_parts.json")
        if parts:
            w(section_dask_parts(parts))
            w("")
    if b2d:
        w("## 2D: webpbn survey puzzles")
        w("")
        w(f"Wolter's survey puzzles that may be redistributed (14 of 31), `full` with each linesolver and "
          f"CP-SAT, time limit {ft(b2d.get('survey_time_limit'))} each; `EXPECTED.csv` is the verdict of two "
          "independent solvers (see `../shared/puzzles2d/README.md`).")
        w("")
        t, dis2 = section_2d_survey(b2d)
        if dis2:
            w(f"**DISAGREE: {', '.join(dis2)}**")
            w("")
        w(t)
        w("")
        t7, t8 = section_table8(b2d)
        w("## 2D: the seed's subset (its Tables 7 and 8)")
        w("")
        w("The seed tested 8 of the survey puzzles. Smoke (#2413) may not be redistributed, so it is "
          "missing here; the seed's row is kept for reference. The seed's Heur rows for Dancer and Knot needed "
          "its exit clause relaxed (2× and 4×); ours use the engine's default exit rule.")
        w("")
        w(t7)
        w("")
        w(t8)
        w("")
        if b2d.get("taai"):
            w("## 2D: TAAI/TCGA tournament sets")
            w("")
            w(f"1000 random 25×25 puzzles per set; almost all have several solutions (the tournaments asked "
              f"for any one), and telling that apart takes both solvers seconds on about a quarter of them. "
              f"To fit the 30-minute run, ours (`full`, DP linesolver) runs on a fixed sample (every s-th "
              f"puzzle) and CP-SAT on every k-th; time limit {ft(b2d.get('taai_time_limit'))} per puzzle "
              f"for each, so *unknown* counts the puzzles that needed more.")
            w("")
            t, _summ = section_taai(b2d)
            w(t)
            w("")
    if tour and tour.get("sets"):
        write_tournament(w, tour, "## 2D: tournament sets, first solution, like with like: ours, nonosolve, "
                                  "LalaFrogKK")
    if des:
        w("## Puzzle design: hiding clues")
        w("")
        w(section_design(des))
    if capture:
        w("## Colour capture")
        w("")
        w(section_colour_capture(capture))
    col = load_json(RESULTS / "colour.json", {})
    if col:
        w("## Colour puzzles (issue #24)")
        w("")
        w(section_colour(col))
    # --- notes
    w("## Notes")
    w("")
    notes = []
    if seed_problems:
        notes.append("Transcription check of the seed's figures: " + "; ".join(seed_problems))
    else:
        notes.append("Every quoted figure of the seed study (Tables 4 and 7, Appendices D and E) was found in "
                     "the seed text by `benchmarks/seed_published.py` during this run.")
    notes.append("The seed's Table 5 is the rounded summary of its Appendix D; the *seed* rows quote Appendix D "
                 "(linesolvers and bad-guess %, rounded here to whole percent).")
    notes.append("64³ has no counterpart in the seed study (it stopped at 36³).")
    over = overruns(rows3d, b2d)
    if over:
        notes.append("Solves that took more than 1.5× their time limit (a kernel compiled during the solve, "
                     "e.g. after the engine's source changed while the run was going on, or a limit checked "
                     "too rarely): " + "; ".join(over) + ".")
    notes.append("A scheduler result other than *unique* means line solving alone did not complete the grid "
                 "(the seed's \"unsolvable\"/\"partly\"); `full` then probes and searches to a verdict.")
    w("\n".join(f"- {n}" for n in notes))
    w("")
    return "\n".join(L)


def main(argv=None) -> int:
    text = build()
    if DOC.exists():  # the paragraphs by hand stay (the old document's; a bad marker stops here)
        try:
            text = handwritten.keep(text, DOC.read_text(encoding="utf-8"))
        except handwritten.Unclosed as e:
            raise SystemExit(f"{DOC.name}: {e}; nothing written")
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")
    log(f"wrote {DOC.relative_to(DOC.parent.parent)} ({len(text)} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
