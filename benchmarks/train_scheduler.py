"""Train the learned scheduler's weights (engine/kinds/plain/learned_scheduler.json) by evolutionary search.

The seed study's section 6.2.2 suggests searching the heuristic's parameters with an
evolutionary algorithm. This script does that with CMA-ES over the weights of the learned
scheduler's line score (``engine/kinds/plain/learned.py``), one weight set for runs without the pre-pass and
one for runs with it. The objective is the strict linesolver count relative to strict brute force
(both with the complete DP linesolver), averaged over the training puzzles; the weights are
scaled so the largest is 1 and rounded, and the rounded weights are the ones evaluated and saved.

Split (stated in docs/BENCHMARKS.md, which reports both sides):
- training: the benchmark's model puzzles at 12³ and 24³ (benchmarks/out/puzzles/, made by
  benchmarks/make_puzzles.py) and random blobs (engine/voxel/blobs.py) in cubes of 16³ and 24³;
- validation, never seen while training: the model puzzles at 36³ and 64³, and blobs of other,
  elongated and flat shapes up to 64 cells long, with other seeds.
Only line-solvable puzzles take part (as in the seed's Table 6): brute force's count is not
defined on the others (it spends its 100 sweeps).

    python benchmarks/train_scheduler.py                 # train, write the weights, summarise
    python benchmarks/train_scheduler.py --evaluate      # only summarise the shipped weights
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import OUT, log, rel, single_thread_env  # noqa: E402

single_thread_env()

import numpy as np  # noqa: E402

MODELS = ("trex", "duck", "horse", "jeep", "torus_knot", "teapot", "bunny")
TRAIN_RESOLUTIONS = (12, 24)
VALIDATION_RESOLUTIONS = (36, 64)
# (shape, seed, fill, blur scale or None for the default)
TRAIN_BLOBS = tuple((shape, seed, fill, scale) for shape in ((16, 16, 16), (24, 24, 24), (32, 32, 32))
                    for fill, scale, seed in ((0.25, None, 1), (0.4, None, 2), (0.3, 2.0, 3),
                                              (0.45, 2.0, 4)))
VALIDATION_BLOBS = tuple((shape, seed, fill, scale) for shape in ((48, 24, 12), (40, 40, 16),
                                                                  (64, 32, 24), (30, 30, 60))
                         for fill, scale, seed in ((0.3, None, 101), (0.45, 2.0, 102)))

# A test set looked at once, after the feature set and the weights were final (the validation
# averages were consulted while choosing the features): other shapes, fills and seeds again.
TEST_BLOBS = tuple((shape, seed, fill, scale) for shape in ((56, 28, 20), (36, 36, 36), (20, 50, 40),
                                                            (60, 60, 12))
                   for fill, scale, seed in ((0.35, None, 201), (0.4, 3.0, 202)))

CMA_SEED = 12
GENERATIONS = 120
# The search starts from the seed heuristic's own idea for both clue groups (new filled cells
# count twice as much as new empty ones, a bad guess lowers a line), plus the sure completions
# and an untouched line's overlap; the run with the pre-pass starts from the weights found
# without it.
START = [2, 1, 1, 0, 0, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] * 2
POPULATION = 16
DIGITS = 3  # weights are saved rounded to this many decimals (after scaling to max |w| = 1)


def model_puzzles(resolutions):
    from engine.files.puzzlefile import load_puzzle
    out = []
    for res in resolutions:
        for m in MODELS:
            path = OUT / "puzzles" / f"{m}_{res}.json"
            if not path.exists():
                raise SystemExit(f"{rel(path)} is missing: run benchmarks/make_puzzles.py first")
            out.append((f"{m} {res}³", load_puzzle(path)))
    return out


def blob_puzzles(specs):
    from engine.voxel.blobs import blob_puzzle
    return [(f"blob {'×'.join(map(str, shape))} s{seed}", blob_puzzle(shape, seed=seed, fill=fill, scale=scale))
            for shape, seed, fill, scale in specs]


def training_set():
    return model_puzzles(TRAIN_RESOLUTIONS) + blob_puzzles(TRAIN_BLOBS)


def validation_set():
    return model_puzzles(VALIDATION_RESOLUTIONS) + blob_puzzles(VALIDATION_BLOBS)


def test_set():
    return blob_puzzles(TEST_BLOBS)


def split_text() -> str:
    """The split in one sentence, for the benchmark document."""
    tb = sorted({"×".join(map(str, s)) for s, *_ in TRAIN_BLOBS})
    vb = sorted({"×".join(map(str, s)) for s, *_ in VALIDATION_BLOBS})
    return (f"training: the model puzzles at {' and '.join(f'{r}³' for r in TRAIN_RESOLUTIONS)} and "
            f"{len(TRAIN_BLOBS)} random blobs ({', '.join(tb)}); validation, never seen in training: the "
            f"model puzzles at {' and '.join(f'{r}³' for r in VALIDATION_RESOLUTIONS)} and "
            f"{len(VALIDATION_BLOBS)} blobs of other shapes ({', '.join(vb)}) and seeds; test, looked at "
            f"once after the features and weights were final: {len(TEST_BLOBS)} more blobs "
            f"({', '.join(sorted({'×'.join(map(str, s)) for s, *_ in TEST_BLOBS}))}) of other fills and seeds")


class Case:
    """One puzzle ready for fast repeated runs: its net, the state after the pre-pass, and strict
    brute force's linesolvers (the denominator)."""

    def __init__(self, name, puzzle):
        from engine.model.cells import UNKNOWN
        from engine.kinds.plain.propagate import DEFAULT_SEED_BUDGET, LS_DP, build_net, new_work, prepass
        from engine.solve.driver import solve
        self.name, self.puzzle = name, puzzle
        self.net = build_net(puzzle)
        self.budget = np.int64(DEFAULT_SEED_BUDGET)
        w = new_work(self.net)
        if not prepass(LS_DP, self.budget, self.net, w):
            raise ValueError(f"{name}: the pre-pass finds a contradiction")
        self.state = {False: np.full(puzzle.n_cells, UNKNOWN, np.int8), True: w.state.copy()}
        brute = solve(puzzle, method="brute")
        self.solvable = brute.verdict == "unique"
        self.brute = brute.linesolvers

    def run(self, wts, prepass):
        """(linesolvers, bad guesses) of the learned kernel with weights ``wts``."""
        from engine.model.cells import UNKNOWN
        from engine.kinds.plain.learned import learned, new_learned_queue
        from engine.kinds.plain.propagate import LS_DP, S_BAD, S_LINESOLVERS, new_work
        from engine.kinds.plain.schedulers import ST_SOLVED, new_control
        st0 = self.state[prepass]
        w = new_work(self.net, st0)
        hp, lq, score = new_learned_queue(len(self.net.clue_kind))
        n0 = int(np.count_nonzero(st0 == UNKNOWN))
        st = learned(LS_DP, self.budget, 0, n0, 1 << 62, self.net, w, new_control(), hp, lq, score,
                     np.asarray(wts, np.float64).ravel())
        if st != ST_SOLVED:
            raise RuntimeError(f"{self.name}: the learned scheduler did not finish ({st})")
        return int(w.stats[S_LINESOLVERS]), int(w.stats[S_BAD])


def cases(pairs):
    out = [Case(n, p) for n, p in pairs]
    for c in out:
        if not c.solvable:
            log(f"  {c.name}: not line-solvable, left out")
    return [c for c in out if c.solvable]


def objective(cs, wts, prepass) -> float:
    return statistics.mean(c.run(wts, prepass)[0] / c.brute for c in cs)


def normalise(x) -> list:
    """Scaled to max |w| = 1 (the order of scores does not change), rounded, one list per
    weight group."""
    from engine.kinds.plain.learned import N_FEATURES
    x = np.asarray(x, float)
    m = np.max(np.abs(x))
    x = x / m if m > 0 else x
    return [[round(float(v), DIGITS) for v in x[i:i + N_FEATURES]] for i in range(0, len(x), N_FEATURES)]


def cma_es(f, x0, sigma, generations, lam, seed, report=None):
    """Minimise f with CMA-ES (Hansen's standard settings); returns (best x, best f)."""
    rng = np.random.default_rng(seed)
    n = len(x0)
    mu = lam // 2
    wr = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    wr /= wr.sum()
    mueff = 1.0 / np.sum(wr ** 2)
    cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n)
    cs = (mueff + 2) / (n + mueff + 5)
    c1 = 2 / ((n + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) ** 2 + mueff))
    damps = 1 + 2 * max(0.0, np.sqrt((mueff - 1) / (n + 1)) - 1) + cs
    chi_n = np.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n))
    mean = np.asarray(x0, float).copy()
    pc, ps, C = np.zeros(n), np.zeros(n), np.eye(n)
    best_x, best_f = mean.copy(), f(mean)
    for g in range(generations):
        C = (C + C.T) / 2
        evals, B = np.linalg.eigh(C)
        D = np.sqrt(np.maximum(evals, 1e-20))
        y = rng.standard_normal((lam, n)) @ (B * D).T
        xs = mean + sigma * y
        fs = np.array([f(x) for x in xs])
        order = np.argsort(fs, kind="stable")
        if fs[order[0]] < best_f:
            best_f, best_x = float(fs[order[0]]), xs[order[0]].copy()
        yw = wr @ y[order[:mu]]
        mean = mean + sigma * yw
        inv_sqrt = B @ np.diag(1 / D) @ B.T
        ps = (1 - cs) * ps + np.sqrt(cs * (2 - cs) * mueff) * (inv_sqrt @ yw)
        hsig = np.linalg.norm(ps) / np.sqrt(1 - (1 - cs) ** (2 * (g + 1))) / chi_n < 1.4 + 2 / (n + 1)
        pc = (1 - cc) * pc + hsig * np.sqrt(cc * (2 - cc) * mueff) * yw
        ysel = y[order[:mu]]
        C = ((1 - c1 - cmu) * C + c1 * (np.outer(pc, pc) + (1 - hsig) * cc * (2 - cc) * C)
             + cmu * (ysel.T * wr) @ ysel)
        sigma *= np.exp((cs / damps) * (np.linalg.norm(ps) / chi_n - 1))
        if report:
            report(g, best_f, float(np.median(fs)), sigma)
    return best_x, best_f


def summary(name, cs, wts, prepass) -> dict:
    """Per-set averages: learned vs brute, bad-guess rate."""
    ratios, bads = [], []
    for c in cs:
        ls, bad = c.run(wts, prepass)
        ratios.append(ls / c.brute)
        bads.append(bad / ls if ls else 0.0)
    return {"set": name, "puzzles": len(cs), "ratio_to_brute": round(statistics.mean(ratios), 4),
            "bad_guess_rate": round(statistics.mean(bads), 4)}


def main(argv=None) -> int:
    from engine.kinds.plain.learned import N_FEATURES, N_GROUPS, WEIGHTS_FILE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evaluate", action="store_true", help="only summarise the shipped weights")
    ap.add_argument("--generations", type=int, default=GENERATIONS)
    ap.add_argument("--population", type=int, default=POPULATION)
    ap.add_argument("--seed", type=int, default=CMA_SEED)
    ap.add_argument("--out", default=WEIGHTS_FILE)
    a = ap.parse_args(argv)
    with open(WEIGHTS_FILE, encoding="utf-8") as f:
        data = json.load(f)
    t0 = time.time()
    train = cases(training_set())
    valid = cases(validation_set())
    log(f"{len(train)} training and {len(valid)} validation puzzles ({time.time() - t0:.1f} s to load)")
    start = None
    for key, prepass in (("no_prepass", False), ("prepass", True)):
        if not a.evaluate:
            x0 = np.asarray(START if start is None else start, float).ravel()
            assert len(x0) == N_GROUPS * N_FEATURES
            log(f"== {key}: CMA-ES, {a.generations} generations of {a.population}, seed {a.seed}; "
                f"start {objective(train, x0, prepass):.4f}")

            def report(g, best, med, sigma):
                if g % 10 == 9 or g == a.generations - 1:
                    log(f"  generation {g + 1}: best {best:.4f}, median {med:.4f}, sigma {sigma:.3g}")
            best, _f = cma_es(lambda x: objective(train, x, prepass), x0, 0.5, a.generations,
                              a.population, a.seed, report)
            data[key] = {"weights": normalise(best)}
            start = data[key]["weights"]
        wts = data[key]["weights"]
        data[key]["training"] = summary("training", train, wts, prepass)
        data[key]["validation"] = summary("validation", valid, wts, prepass)
        log(f"  {key}: weights {wts}")
        log(f"  training {data[key]['training']}, validation {data[key]['validation']}")
    if not a.evaluate:
        data["produced_by"] = (f"benchmarks/train_scheduler.py (CMA-ES, {a.generations} generations of "
                               f"{a.population}, seed {a.seed})")
        data["split"] = split_text()
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(_dump(data))
        log(f"wrote {rel(a.out)} ({time.time() - t0:.0f} s)")
    return 0


def _dump(data) -> str:
    """JSON with one line per weight set (small and diff-friendly)."""
    lines = ["{"]
    items = list(data.items())
    for i, (k, v) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        lines.append(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
