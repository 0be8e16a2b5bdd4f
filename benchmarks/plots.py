"""PNG plots for docs/BENCHMARKS.md (matplotlib, Agg backend), drawn from benchmarks/results/*.json."""
from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import IMG, LINESOLVERS, SEED_CONFIGS  # noqa: E402
from benchmarks.seed_published import RESULTS3D, SOLVERS, TABLE4  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"Brute": "tab:red", "Hier": "tab:orange", "Hier+Pre": "tab:olive", "Heur": "tab:blue",
          "Heur+Pre": "tab:cyan", "full": "black", "CP-SAT": "tab:purple"}
MARKERS = {"Brute": "s", "Hier": "^", "Hier+Pre": "v", "Heur": "D", "Heur+Pre": "o", "full": "*",
           "CP-SAT": "P"}
FINISHED = ("unique", "multiple", "none")


def _save(fig, name: str) -> str:
    IMG.mkdir(parents=True, exist_ok=True)
    path = IMG / name
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return f"img/{name}"


def _t(r):
    """Time of a result row (solver's own time, else wall time)."""
    if not r:
        return None
    t = r.get("time_s")
    if t is None:
        t = r.get("wall_s")
    return t


def _series(ax, pts, label, finished_only=False):
    """pts: [(x, y, finished)] -> filled markers for finished, hollow for limited runs."""
    pts = [(x, max(y, 1e-5), f) for x, y, f in pts if x and y is not None]
    if not pts:
        return
    c, m = COLORS.get(label, "grey"), MARKERS.get(label, "o")
    xs = [p[0] for p in pts if p[2]]
    ys = [p[1] for p in pts if p[2]]
    ax.scatter(xs, ys, c=c, marker=m, s=28, label=label, alpha=0.85)
    if not finished_only:
        xh = [p[0] for p in pts if not p[2]]
        yh = [p[1] for p in pts if not p[2]]
        if xh:
            ax.scatter(xh, yh, facecolors="none", edgecolors=c, marker=m, s=40, alpha=0.9)


def time_vs_cells(rows3d) -> str:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for ax, ls in zip(axes, LINESOLVERS):
        for label, _m, _p in SEED_CONFIGS:
            pts = []
            for r in rows3d:
                s = (r["schedulers"][ls] or {}).get(label) or {}
                pts.append((r["stats"]["cells"], _t(s), s.get("verdict") in FINISHED))
            _series(ax, pts, label)
        pts = [(r["stats"]["cells"], _t(r["full"][ls]), (r["full"][ls] or {}).get("verdict") in FINISHED)
               for r in rows3d]
        _series(ax, pts, "full")
        pts = [(r["stats"]["cells"], _t(r["cpsat"]), (r["cpsat"] or {}).get("verdict") in FINISHED)
               for r in rows3d]
        _series(ax, pts, "CP-SAT")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("cells")
        ax.set_title(f"{'seed' if ls == 'seed' else 'complete DP'} linesolver (CP-SAT the same in both)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("time (s)")
    axes[1].legend(fontsize=8, loc="upper left")
    fig.suptitle("3D puzzles: time vs number of cells (hollow = stopped by a limit / not solved "
                 "by line solving)", fontsize=10)
    return _save(fig, "time_vs_cells_3d.png")


def _seed_points():
    """The seed's published (lines, linesolvers) of the solvable puzzles, per solver."""
    out = {s: [] for s in SOLVERS}
    for key, rows in RESULTS3D.items():
        if not isinstance(rows, dict) or key[0] == "Check":
            continue
        lines = TABLE4[key][2]
        for s in SOLVERS:
            out[s].append((lines, rows[s][0]))
    return out


def linesolvers_vs_lines(rows3d, per_line: bool) -> str:
    """The seed's Figure 33 (linesolvers vs lines, log y) or 34 (linesolvers per line vs lines),
    solvable puzzles only, ours (DP linesolver) filled, the seed's published points hollow grey."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    seedpts = _seed_points()
    for ax, ls in zip(axes, LINESOLVERS):
        for label, _m, _p in SEED_CONFIGS:
            pts = []
            for r in rows3d:
                if r["model"] == "checkerboard":
                    continue
                s = (r["schedulers"][ls] or {}).get(label) or {}
                if s.get("verdict") != "unique" or s.get("linesolvers") is None:
                    continue
                y = s["linesolvers"] / r["stats"]["lines"] if per_line else s["linesolvers"]
                pts.append((r["stats"]["lines"], y))
            pts.sort()
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], MARKERS[label], color=COLORS[label],
                        label=f"{label} (ours)", ms=5)
            sp = sorted(seedpts[label])
            ax.plot([p[0] for p in sp], [p[1] / p[0] if per_line else p[1] for p in sp], MARKERS[label],
                    mfc="none", color=COLORS[label], alpha=0.5, ms=7,
                    label=f"{label} (seed study)")
        ax.set_xscale("log")
        if not per_line:
            ax.set_yscale("log")
        ax.set_xlabel("lines in the puzzle")
        ax.set_title(f"ours with the {'seed' if ls == 'seed' else 'complete DP'} linesolver "
                     "(filled) vs the seed study (hollow)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("linesolvers per line" if per_line else "linesolvers")
    axes[1].legend(fontsize=7, ncol=2)
    name = "fig34_linesolvers_per_line.png" if per_line else "fig33_linesolvers_vs_lines.png"
    fig.suptitle("Figure 34 redone: linesolvers per line" if per_line else
                 "Figure 33 redone: linesolvers vs lines (solvable puzzles)", fontsize=10)
    return _save(fig, name)


def voxelizer(vox) -> str:
    rows = vox["rows"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    ress = sorted({r["resolution"] for r in rows})
    for res in ress:
        pts = sorted((r["triangles"], r["time_s"]) for r in rows if r["resolution"] == res)
        axes[0].plot([p[0] for p in pts], [p[1] * 1000 for p in pts], "o-", label=f"{res}³")
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("triangles")
    axes[0].set_ylabel("time (ms)")
    axes[0].set_title("voxelizer time vs triangles")
    axes[0].legend(fontsize=8)
    models = sorted({(r["triangles"], r["model"]) for r in rows})
    for tri, m in models:
        pts = sorted((r["resolution"], r["time_s"]) for r in rows if r["model"] == m)
        axes[1].plot([p[0] for p in pts], [p[1] * 1000 for p in pts], "o-", label=f"{m} ({tri} tris)")
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("resolution (voxels along the longest axis)")
    axes[1].set_title("voxelizer time vs resolution")
    axes[1].legend(fontsize=8)
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    return _save(fig, "voxelizer.png")


def ours_vs_cpsat(rows3d, b2d) -> str:
    fig, ax = plt.subplots(figsize=(6.4, 6))
    groups = []
    pts = [(_t(r["cpsat"]), _t(r["full"]["dp"])) for r in rows3d if r["model"] != "checkerboard"]
    groups.append(("3D models", pts, "tab:blue", "o"))
    pts = [(_t(r["cpsat"]), _t(r["full"]["dp"])) for r in rows3d if r["model"] == "checkerboard"]
    groups.append(("3D checkerboards", pts, "tab:red", "s"))
    if b2d:
        pts = [(_t(r["cpsat"]), _t(r["full"]["dp"])) for r in b2d.get("survey", [])]
        groups.append(("2D webpbn survey", pts, "tab:green", "D"))
        for st in b2d.get("taai", []):
            pts = [(r["cpsat_s"], r["ours_s"]) for r in st["rows"] if r["cpsat"] is not None]
            groups.append((f"2D {st['set']} (sampled)", pts, None, "."))
    allv = []
    for label, pts, c, m in groups:
        pts = [(max(x, 1e-5), max(y, 1e-5)) for x, y in pts if x is not None and y is not None]
        if not pts:
            continue
        allv += [v for p in pts for v in p]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], c=c, marker=m, s=22, alpha=0.7, label=label)
    if allv:
        lo, hi = min(allv) / 2, max(allv) * 2
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="equal time")
        ax.plot([lo, hi], [lo / 10, hi / 10], "k:", lw=0.6, label="ours 10x faster")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("CP-SAT time to a uniqueness verdict (s)")
    ax.set_ylabel("ours (full, DP linesolver) (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("per puzzle, single thread, same machine and run", fontsize=10)
    return _save(fig, "ours_vs_cpsat.png")


def scheduler_time_dp_vs_seed(rows3d) -> str:
    """Per puzzle and scheduler: time with the seed linesolver vs with the DP linesolver."""
    fig, ax = plt.subplots(figsize=(6.4, 6))
    allv = []
    for label, _m, _p in SEED_CONFIGS:
        xs, ys = [], []
        for r in rows3d:
            a = (r["schedulers"]["dp"] or {}).get(label) or {}
            b = (r["schedulers"]["seed"] or {}).get(label) or {}
            if _t(a) is None or _t(b) is None:
                continue
            xs.append(max(_t(a), 1e-5))
            ys.append(max(_t(b), 1e-5))
        allv += xs + ys
        ax.scatter(xs, ys, c=COLORS[label], marker=MARKERS[label], s=24, alpha=0.8, label=label)
    if allv:
        lo, hi = min(allv) / 2, max(allv) * 2
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("complete DP linesolver (s)")
    ax.set_ylabel("seed linesolver (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("3D schedulers: seed vs complete linesolver, per puzzle", fontsize=10)
    return _save(fig, "linesolver_seed_vs_dp.png")


def all_plots(b3d, b2d, vox) -> dict:
    out = {}
    rows3d = (b3d or {}).get("rows", [])
    if rows3d:
        out["time_vs_cells"] = time_vs_cells(rows3d)
        out["fig33"] = linesolvers_vs_lines(rows3d, per_line=False)
        out["fig34"] = linesolvers_vs_lines(rows3d, per_line=True)
        out["ls_seed_vs_dp"] = scheduler_time_dp_vs_seed(rows3d)
    if rows3d or b2d:
        out["ours_vs_cpsat"] = ours_vs_cpsat(rows3d, b2d)
    if vox and vox.get("rows"):
        out["voxelizer"] = voxelizer(vox)
    return out


def geomean(vals):
    vals = [v for v in vals if v and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))
