"""Solver benchmark: prints figures, asserts nothing.

    python -m benchmarks.bench_solve [--sizes 12,24,36,64] [--taai taai2011] [--limit 60] [--quick]
                                 [--only 3d|stress|survey|taai]

1. 3D smooth random blobs (``blobs.py``): ``full`` time (best of a few warm runs) and verdict
   with all clues, and with 30% of the clues hidden; the seed's five configurations (Table 5).
   Then the 2 s target over puzzles from smooth to rough (blur radius size/6 down to 1, and white
   noise; ``--stress-sizes``, ``--stress-limit``).
2. 2D: the webpbn survey puzzles (``../shared/puzzles2d/webpbn-survey``), each to a uniqueness
   verdict; then one 1000-puzzle TAAI tournament set: total and per-puzzle time, and the puzzles
   without a verdict within ``--limit`` seconds.
Shared data is looked up beside the checkout (``../shared``) or under ``$NONOGRAM_SHARED``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from engine.voxel.blobs import blob_puzzle
from engine.solve.driver import compare, solve


def _shared() -> Path:
    env = os.environ.get("NONOGRAM_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "shared"


def _warm_up():
    """Load or compile every stage's kernels outside the timings: line solving and the quick
    search (3D blobs), probing and the guided search (a 2x2 with two solutions)."""
    from engine.model.puzzle import make_2d
    for _, p in stress_puzzles([6]):
        solve(p, time_limit=5.0)
    solve(make_2d([[1], [1]], [[1], [1]]))


def _best(p, runs, **kw):
    best = None
    for _ in range(runs):
        r = solve(p, **kw)
        if best is None or r.time_s < best.time_s:
            best = r
    return best


def bench_3d(sizes, runs, out):
    out(f"== 3D blobs (fill 0.35), method full: best of {runs} warm runs ==")
    out(f"{'puzzle':<22}{'hidden':>7}{'verdict':>10}{'difficulty':>11}{'time s':>10}{'linesolvers':>13}"
        f"{'probes':>9}{'nodes':>7}{'known':>8}")
    warm = blob_puzzle((6, 6, 6), seed=0)
    _warm_up()
    for n in sizes:
        for hidden in (0.0, 0.3):
            p = blob_puzzle((n, n, n), seed=1, hidden_fraction=hidden)
            r = _best(p, runs if n <= 36 else max(1, runs // 2), time_limit=120)
            out(f"{p.name:<22}{hidden:>7.1f}{r.verdict:>10}{str(r.difficulty):>11}{r.time_s:>10.4f}"
                f"{r.linesolvers:>13}{r.stats['probes']:>9}{r.stats['nodes']:>7}{r.known_fraction:>8.3f}")
        for cache in (False,):
            p = blob_puzzle((n, n, n), seed=1)
            r = _best(p, runs if n <= 36 else max(1, runs // 2), cache=cache)
            out(f"{'  (no line cache)':<22}{0.0:>7.1f}{r.verdict:>10}{str(r.difficulty):>11}{r.time_s:>10.4f}"
                f"{r.linesolvers:>13}")
    out("")
    for ls in ("dp", "seed"):
        compare(warm, linesolver=ls)
        out(f"== 3D blobs: the seed's configurations (Table 5: linesolvers (bad-guess %), "
            f"{ls} linesolver) ==")
        out(f"{'puzzle':<22}{'lines':>7}"
            + "".join(f"{c:>17}" for c in ("Brute", "Hier", "Hier+Pre", "Heur", "Heur+Pre")))
        for n in sizes:
            if ls == "seed" and n > 36:
                continue  # square clues of long lines exceed the seed's expansion budget
            p = blob_puzzle((n, n, n), seed=1)
            rows = compare(p, linesolver=ls)
            out(f"{p.name:<22}{p.n_lines:>7}" + "".join(
                f"{r['linesolvers']:>10} ({100 * r['bad_guess_rate']:3.0f}%)" for r in rows))
            out(f"{'  time s':<29}" + "".join(f"{r['time_s']:>17.4f}" for r in rows))
            out(f"{'  known':<29}" + "".join(f"{r['known_fraction']:>17.3f}" for r in rows))
        out("")


def stress_puzzles(sizes, fill=0.35, hidden=(0.0, 0.3)):
    """3D puzzles from smooth to rough: blobs of blur radius size/6 ("smooth"), 3, 2, 1, and white noise
    (radius 0), each with all clues and with a fraction hidden. (name, puzzle) pairs."""
    from engine.voxel.blobs import blob_grid
    from engine.model.clues import puzzle_from_grid
    for n in sizes:
        for scale in (None, 3, 2, 1, 0):
            if scale == 0:
                g = np.random.default_rng(5).random((n, n, n)) < fill
            else:
                g = blob_grid((n, n, n), seed=3, fill=fill, scale=scale)
            for h in hidden:
                mask = None
                if h > 0:
                    mask = np.random.default_rng(11).random(puzzle_from_grid(g).n_lines) < h
                label = "noise" if scale == 0 else (f"r{scale}" if scale else "smooth")
                yield f"{n}^3 {label} hide {h:.1f}", puzzle_from_grid(g, hidden=mask)


def bench_stress(sizes, limit, out):
    """The target "any puzzle <= 36^3 to a final verdict in <= 2 s", from smooth to noise."""
    out(f"== 3D, smooth to rough (fill 0.35), method full, limit {limit} s: time to a verdict ==")
    out(f"{'puzzle':<24}{'verdict':>10}{'difficulty':>11}{'time s':>10}{'quick':>8}{'probes':>10}"
        f"{'nodes':>7}{'known':>8}")
    _warm_up()
    within = total = 0
    for name, p in stress_puzzles(sizes):
        r = solve(p, time_limit=limit)
        total += 1
        within += r.verdict != "unknown" and r.time_s <= 2.0
        out(f"{name:<24}{r.verdict:>10}{str(r.difficulty):>11}{r.time_s:>10.3f}"
            f"{r.stats['quick_nodes']:>8}{r.stats['probes']:>10}{r.stats['nodes']:>7}{r.known_fraction:>8.3f}")
    out(f"verdict within 2 s: {within} of {total}")
    out("")


def bench_survey(runs, limit, out):
    from engine.files.puzzlefile import load_puzzle
    d = _shared() / "puzzles2d" / "webpbn-survey"
    if not d.exists():
        out(f"(skipped: {d} not found)")
        return
    out(f"== webpbn survey, method full (uniqueness), best of {runs}, limit {limit} s ==")
    total = 0.0
    for f in sorted(d.glob("*.nin")):
        p = load_puzzle(f)
        hard = f.stem in ("faase", "knotty", "webpbn-06574")
        r = _best(p, 1 if hard else runs, time_limit=limit)
        total += r.time_s
        out(f"{f.stem:<16}{'x'.join(map(str, p.shape)):>8}{r.verdict:>10}{str(r.difficulty):>8}"
            f"{r.time_s:>10.4f} s{r.stats['nodes']:>8} nodes")
    out(f"total {total:.3f} s")
    out("")


def bench_taai(name, limit, out, count=None):
    from engine.files.puzzlefile import load_puzzles
    f = _shared() / "puzzles2d" / "taai-tcga-icga" / "question" / f"{name}.txt.gz"
    if not f.exists():
        out(f"(skipped: {f} not found)")
        return
    ps = load_puzzles(f)[:count]
    out(f"== TAAI set {name}: {len(ps)} puzzles, method full (uniqueness), limit {limit} s each ==")
    times, verdicts, slow = [], {}, []
    t0 = time.perf_counter()
    for i, p in enumerate(ps):
        r = solve(p, time_limit=limit)
        times.append(r.time_s)
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
        if r.verdict == "unknown":
            slow.append(i + 1)
        if (i + 1) % 100 == 0 and i + 1 < len(ps):
            out(f"  {i + 1} puzzles, {time.perf_counter() - t0:.1f} s, no verdict so far: {len(slow)}")
    t = np.array(times)
    out(f"verdicts {verdicts}")
    out(f"total {time.perf_counter() - t0:.2f} s; per puzzle mean {t.mean():.4f} s, median "
        f"{np.median(t):.4f} s, max {t.max():.3f} s; > 1 s: {int((t > 1).sum())}")
    out(f"no verdict within {limit} s: {len(slow)} {slow[:20]}")
    out("")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_solve", description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="12,24,36,64")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--taai", default="taai2011", help="TAAI set name ('' to skip)")
    ap.add_argument("--taai-count", type=int, default=None)
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--quick", action="store_true", help="small sizes, 100 TAAI puzzles, 10 s limit")
    ap.add_argument("--only", choices=("3d", "stress", "survey", "taai"), default=None)
    ap.add_argument("--stress-sizes", default="12,24,36")
    ap.add_argument("--stress-limit", type=float, default=10.0)
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.runs, args.taai_count, args.limit = "12,24", 2, 100, 10.0
        args.stress_sizes, args.stress_limit = "12", 2.0
    sizes = [int(s) for s in args.sizes.split(",") if s]

    def out(line):
        print(line, flush=True)

    if args.only in (None, "3d"):
        bench_3d(sizes, args.runs, out)
    if args.only in (None, "stress"):
        bench_stress([int(x) for x in args.stress_sizes.split(",") if x], args.stress_limit, out)
    if args.only in (None, "survey"):
        bench_survey(args.runs, args.limit, out)
    if args.only in (None, "taai") and args.taai:
        bench_taai(args.taai, args.limit, out, args.taai_count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
