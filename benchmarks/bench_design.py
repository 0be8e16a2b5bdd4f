"""Puzzle design (engine/design/hiding.py): how many clues each method hides, how fast, how hard the result
is; and the seed study's open questions of its section 6.2.1, answered with data.

Per shared model at 12, 24 and 36 (voxelized with engine/voxel/meshio.py + engine/voxel/voxelize.py and the
add-on's settings): the greedy random baseline, the informed greedy order and annealing (20 s
limit, the default), with logic ``line``, and the baseline and greedy with logic ``probe``: hidden %,
time (greedy: median of 3 runs), trials, score and band, and how many cells of the greedy design
keep 1, 2 or 3 clued lines.

The seed's questions: (1) is a 3D puzzle always line-solvable with no clue removed? (checkerboards,
random grids, random blobs, the models); (2) is it still line-solvable if every cell keeps at least
two clued axes? (one whole axis hidden; random masks that keep two clued lines on every cell).

    python benchmarks/bench_design.py [--quick] [--resolutions 12 24] [--anneal-time S]

Writes ``benchmarks/results/design.json``; ``benchmarks/report.py`` turns it into the design
section of docs/BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import RESULTS, SHARED, log, machine_info, save_json, single_thread_env  # noqa: E402
from benchmarks.make_puzzles import MODELS, checkerboard  # noqa: E402

single_thread_env()

import numpy as np  # noqa: E402

RESOLUTIONS = [12, 24, 36]
QUICK_RESOLUTIONS = [12, 24]
ANNEAL_TIME = 20.0
SOLVE_LIMIT = 20.0


def grids(res_list):
    """(model, resolution, grid) of every shared model, voxelized as the add-on does."""
    from engine.voxel.meshio import load_mesh
    from engine.voxel.voxelize import voxelize
    out = []
    for name, fname, _seed in MODELS:
        path = SHARED / "models" / fname
        if not path.exists():
            log(f"missing model {path}")
            continue
        v, t = load_mesh(path)
        for res in res_list:
            g = voxelize(v, t, resolution=res, samples=1, threshold=0.5, robust=True, fit=True).grid
            out.append((name, res, np.asarray(g, bool)))
    return out


def category(puzzle) -> str:
    """line / probe / search (unique, by what it takes) / multiple / none / unknown."""
    from engine.solve.driver import solve
    r = solve(puzzle, time_limit=SOLVE_LIMIT)
    if r.verdict == "unique":
        return r.difficulty
    return r.verdict


def run_design(g, **kw) -> dict:
    from engine.design.hiding import design
    t0 = time.perf_counter()
    r = design(g, **kw)
    wall = time.perf_counter() - t0
    return {"hidden": r.hidden_count, "hidden_pct": 100.0 * r.hidden_fraction, "time_s": r.time_s,
            "wall_s": wall, "trials": r.trials, "score": r.score, "band": r.band,
            "rounds": r.difficulty.rounds, "locally_minimal": r.locally_minimal,
            "stopped_early": r.stopped_early, "message": r.message, "_mask": r.hidden}


def cover_counts(g, hidden) -> list:
    """Cells with 0, 1, 2, 3 clued lines through them."""
    from engine.model.clues import puzzle_from_grid
    from engine.kinds.plain.maskprop import cover_of
    from engine.kinds.plain.propagate import build_net
    net = build_net(puzzle_from_grid(g))
    cov = cover_of(net, (~hidden).astype(np.uint8))
    return [int(v) for v in np.bincount(cov, minlength=4)[:4]]


def model_rows(items, anneal_time):
    from engine.model.clues import puzzle_from_grid
    from engine.kinds.plain.grade import difficulty
    rows = []
    for name, res, g in items:
        p = puzzle_from_grid(g)
        full = difficulty(p, "line")
        row = {"model": name, "resolution": res, "shape": list(g.shape), "cells": int(g.size),
               "filled": int(g.sum()), "lines": p.n_lines, "full_score": full.score, "full_band": full.band,
               "full_category": category(p)}
        runs = {}
        greedy = [run_design(g, method="greedy", seed=0) for _ in range(3)]
        runs["greedy_line"] = dict(greedy[0], time_s=statistics.median(d["time_s"] for d in greedy))
        runs["random_line"] = run_design(g, method="random", seed=0)
        runs["anneal_line"] = run_design(g, method="anneal", seed=0, time_limit=anneal_time)
        runs["random_probe"] = run_design(g, method="random", seed=0, logic="probe")
        runs["greedy_probe"] = run_design(g, method="greedy", seed=0, logic="probe")
        row["cover_greedy"] = cover_counts(g, runs["greedy_line"]["_mask"])
        row["cover_anneal"] = cover_counts(g, runs["anneal_line"]["_mask"])
        # what hiding one more clue of the greedy design does (resolution 12: every clue tried)
        if res <= 12:
            row["one_more"] = one_more(p, runs["greedy_line"]["_mask"])
        for d in runs.values():
            d.pop("_mask")
        row["runs"] = runs
        rows.append(row)
        log(f"  {name:11s} {res:3d}: {p.n_lines:5d} clues | random {runs['random_line']['hidden_pct']:5.1f}% "
            f"greedy {runs['greedy_line']['hidden_pct']:5.1f}% ({runs['greedy_line']['time_s']:.2f} s) "
            f"anneal {runs['anneal_line']['hidden_pct']:5.1f}% | probe: random "
            f"{runs['random_probe']['hidden_pct']:5.1f}% greedy {runs['greedy_probe']['hidden_pct']:5.1f}% | "
            f"score {runs['greedy_line']['score']} ({runs['greedy_line']['band']})")
    return rows


def one_more(p, hidden) -> dict:
    """Categories of the puzzle with each still shown clue of a design hidden as well."""
    from engine.model.puzzle import with_hidden
    counts: dict = {}
    for li in np.flatnonzero(~hidden):
        h = hidden.copy()
        h[li] = True
        c = category(with_hidden(p, h))
        counts[c] = counts.get(c, 0) + 1
    return counts


# ---------------------------------------------------------------------------------------------
# the seed's questions (section 6.2.1)


def q1_all_clues(items, quick):
    """Is a 3D puzzle line-solvable with every clue shown?"""
    from engine.voxel.blobs import blob_grid
    from engine.model.clues import puzzle_from_grid
    from engine.solve.driver import solve
    checker = []
    for n in ([2, 3, 4, 6, 8] if quick else [2, 3, 4, 5, 6, 8, 12]):
        p = puzzle_from_grid(checkerboard(n))
        r = solve(p, time_limit=SOLVE_LIMIT)
        line = solve(p, method="hierarchical")
        checker.append({"n": n, "category": r.verdict if r.verdict != "unique" else r.difficulty,
                        "line_known": line.known_fraction})
    rng = np.random.default_rng(0)
    noise = []
    per = 10 if quick else 30
    for n in (4, 6, 8):
        for dens in (0.2, 0.35, 0.5, 0.65, 0.8):
            counts: dict = {}
            for _ in range(per):
                c = category(puzzle_from_grid(rng.random((n, n, n)) < dens))
                counts[c] = counts.get(c, 0) + 1
            noise.append({"n": n, "density": dens, "grids": per, "counts": counts})
    blobs = []
    for n in (8, 12, 16):
        counts = {}
        for seed in range(per):
            c = category(puzzle_from_grid(blob_grid((n, n, n), seed=seed, fill=0.35)))
            counts[c] = counts.get(c, 0) + 1
        blobs.append({"n": n, "grids": per, "counts": counts})
    return {"checkerboard": checker, "noise": noise, "blobs": blobs}


def two_axes_mask(net, n_lines, rng):
    """A random maximal mask that keeps at least two clued lines on every cell."""
    cover = np.full(len(net.cell_start) - 1, 3, np.int64)
    hidden = np.zeros(n_lines, bool)
    for li in rng.permutation(n_lines):
        cells = net.line_cells[net.line_start[li]:net.line_start[li + 1]]
        if cover[cells].min() > 2:
            cover[cells] -= 1
            hidden[li] = True
    return hidden


def q2_two_axes(items, quick):
    """Is a puzzle still line-solvable when every cell keeps at least two clued axes?"""
    from engine.voxel.blobs import blob_grid
    from engine.model.clues import puzzle_from_grid
    from engine.kinds.plain.propagate import build_net
    rng = np.random.default_rng(1)
    shapes = [(f"{name} {res}", g) for name, res, g in items if res <= (12 if quick else 24)]
    shapes += [(f"blob 10³ s{s}", blob_grid((10, 10, 10), seed=s, fill=0.35)) for s in range(3 if quick else 6)]
    rows = []
    per = 5 if quick else 20
    for label, g in shapes:
        p = puzzle_from_grid(g)
        axis_cats = []
        for a in range(3):
            axis_cats.append(category(puzzle_from_grid(g, hidden=p.line_axis == a)))
        net = build_net(p)
        counts: dict = {}
        for _ in range(per):
            h = two_axes_mask(net, p.n_lines, rng)
            c = category(puzzle_from_grid(g, hidden=h))
            counts[c] = counts.get(c, 0) + 1
        rows.append({"puzzle": label, "axis_hidden": axis_cats, "masks": per, "mask_counts": counts})
        log(f"  two axes {label}: one axis hidden {axis_cats}, random 2-axis masks {counts}")
    # the smallest counterexample: a 2x2x1 diagonal with its four z-lines (of one cell) hidden
    g = np.zeros((2, 2, 1), bool)
    g[0, 0, 0] = g[1, 1, 0] = True
    p = puzzle_from_grid(g)
    smallest = {"grid": "2×2×1, cells (0,0,0) and (1,1,0) filled", "hidden": "the four z-lines",
                "category": category(puzzle_from_grid(g, hidden=p.line_axis == 2))}
    return {"rows": rows, "smallest": smallest}


def live_checks(items, quick):
    """The live check of a hand-editing session: the greedy design with one random clue toggled
    (shown again, or hidden as well), timing ``DesignSession.check`` and ``suggest``."""
    from engine.design.hiding import design
    from engine.design.session import DesignSession
    rng = np.random.default_rng(3)
    rows = []
    for name, res, g in items:
        if res != 24:
            continue
        sess = DesignSession(g)
        designed = design(g).hidden
        sess.check(designed)
        sess.suggest(designed)
        t_check, t_suggest, verdicts = [], [], {}
        for _ in range(30 if quick else 100):
            hidden = designed.copy()
            hidden[rng.integers(len(hidden))] ^= True
            t = time.perf_counter()
            c = sess.check(hidden)
            t_check.append(time.perf_counter() - t)
            verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
            t = time.perf_counter()
            sess.suggest(hidden)
            t_suggest.append(time.perf_counter() - t)
        rows.append({"model": name, "resolution": res, "toggles": len(t_check), "verdicts": verdicts,
                     "check_median_s": statistics.median(t_check), "check_max_s": max(t_check),
                     "suggest_median_s": statistics.median(t_suggest), "suggest_max_s": max(t_suggest)})
        log(f"  live check {name} {res}: check median {1e3 * rows[-1]['check_median_s']:.1f} ms, max "
            f"{1e3 * rows[-1]['check_max_s']:.1f} ms; suggest median {1e3 * rows[-1]['suggest_median_s']:.1f} ms")
    return rows


def probe_on_noise(quick):
    """Where probing matters (random noise, unlike the models): greedy and random designs with
    logic line vs probe on 8³ noise grids whose full clue set line propagation solves."""
    from engine.model.clues import puzzle_from_grid
    rng = np.random.default_rng(2)
    rows = []
    want = 4 if quick else 12
    while len(rows) < want:
        g = rng.random((8, 8, 8)) < 0.35
        if category(puzzle_from_grid(g)) != "line":
            continue
        row = {}
        for method in ("random", "greedy"):
            for logic in ("line", "probe"):
                d = run_design(g, method=method, logic=logic, seed=0)
                d.pop("_mask")
                row[f"{method}_{logic}"] = d
        rows.append(row)
    log("  noise 8³: " + ", ".join(f"{k} {statistics.median(r[k]['hidden_pct'] for r in rows):.1f}%"
                                   for k in rows[0]))
    return rows


def warm_up() -> float:
    """Compile (or load) every kernel a design run and its final check use, before timing."""
    from engine.design.hiding import prepare
    return prepare()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="12 and 24 only, fewer random grids")
    ap.add_argument("--resolutions", type=int, nargs="*")
    ap.add_argument("--anneal-time", type=float, default=ANNEAL_TIME)
    a = ap.parse_args(argv)
    res_list = a.resolutions or (QUICK_RESOLUTIONS if a.quick else RESOLUTIONS)
    t0 = time.perf_counter()
    compile_s = warm_up()
    log(f"design kernels ready in {compile_s:.1f} s (compiled, or loaded from numba's cache)")
    items = grids(res_list)
    t_models = time.perf_counter()
    rows = model_rows(items, a.anneal_time)
    log(f"models: {time.perf_counter() - t_models:.0f} s")
    log("seed question 1: every clue shown")
    q1 = q1_all_clues(items, a.quick)
    log("seed question 2: two clued axes per cell")
    q2 = q2_two_axes(items, a.quick)
    log("logic probe on random noise")
    noise = probe_on_noise(a.quick)
    log("live checks")
    live = live_checks(items, a.quick)
    save_json({"machine": machine_info(), "quick": a.quick, "resolutions": res_list,
               "anneal_time_limit": a.anneal_time, "compile_s": compile_s, "rows": rows, "q1": q1, "q2": q2,
               "probe_noise": noise, "live": live,
               "elapsed_s": time.perf_counter() - t0}, RESULTS / "design.json")
    log(f"wrote {RESULTS / 'design.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
