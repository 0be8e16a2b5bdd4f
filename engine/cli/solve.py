"""``python -m engine solve PUZZLE [options]``: verdict, difficulty and the seed study's metrics.

Exit status: 0 when the puzzle was read and solved (whatever the verdict), 2 on bad input.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..model.colourpuzzle import COLOUR_CHARS, colour_solution_text
from ..solve.methods import COMPARE_CONFIGS, COUNTINGS, METHODS, REFERENCE_METHODS
from ..gcpause import collector_held


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m engine solve",
                                 description="Solve a nonogram: uniqueness verdict, difficulty, metrics.")
    ap.add_argument("puzzle", help="puzzle file (.json, .non, .nin, TAAI .txt[.gz]; FILE#N picks one)")
    ap.add_argument("--solver", choices=METHODS + REFERENCE_METHODS, default="full",
                    help="brute|hierarchical|heuristic: the seed study's schedulers; learned: the "
                         "scheduler with a learned line priority; oracle: the greedy oracle (a "
                         "benchmark reference); full: propagation + probing + search (default)")
    ap.add_argument("--prepass", action="store_true", help="the seed's pre-pass (empty/complete lines first)")
    ap.add_argument("--linesolver", choices=("dp", "seed"), default="dp")
    ap.add_argument("--max-iterations", type=int, default=100, help="brute force sweeps (default 100)")
    ap.add_argument("--seed-exit", action="store_true", help="the seed's heuristic exit clause")
    ap.add_argument("--counting", choices=COUNTINGS, default="strict",
                    help="seed: count brute force and hierarchical linesolvers as the seed did "
                         "(every line every sweep; a plain FIFO)")
    ap.add_argument("--time-limit", type=float, default=None, metavar="S")
    ap.add_argument("--step-limit", type=int, default=None, metavar="N")
    ap.add_argument("--no-cache", action="store_true", help="disable the line-result cache (full)")
    ap.add_argument("--no-known", action="store_true",
                    help="do not let the puzzle file's own solution order the search's guesses (full)")
    ap.add_argument("--first", action="store_true",
                    help="stop at the first solution: verdict solved or none, no uniqueness check (full)")
    ap.add_argument("--no-sat", action="store_true",
                    help="never hand the search over to the SAT solver (python-sat) (full)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--compare", action="store_true",
                    help="run the seed's five configurations (Table 5 columns) and the learned "
                         "scheduler with and without the pre-pass")
    return ap


def _summary(name, p, r) -> str:
    shape = "x".join(str(s) for s in p.shape)
    what = f" colour puzzle, {p.k} colours," if r.is_colour else ""
    lines = [f"{name}: {shape}{what} {p.n_cells} cells, {p.n_lines} lines",
             f"verdict: {r.verdict}" + (f" (difficulty: {r.difficulty})" if r.difficulty else ""),
             *([f"score: {r.score} ({r.band})"] if r.score is not None else []),
             f"linesolvers: {r.linesolvers}, idle (deduced nothing): {r.bad_guesses} "
             f"({100 * r.bad_guess_rate:.1f}%)",
             f"known by logic: {100 * r.known_fraction:.1f}%, time: {r.time_s:.3f} s"]
    if r.verdict == "multiple":
        lines.append(f"two solutions differ in {len(r.differing_cells)} cells")
    if r.stats.get("nodes"):
        lines.append(f"search nodes: {r.stats['nodes']}")
    if p.dim == 2 and r.verdict in ("unique", "solved") and p.n_cells <= 100 * 100:
        W, H = p.shape
        sol = r.solutions[0].reshape(H, W)
        cell = (lambda v: "." if v == 0 else COLOUR_CHARS[int(v)]) if r.is_colour else (lambda v: "#" if v else ".")
        lines += ["".join(cell(v) for v in row) for row in sol]
    elif r.is_colour and r.verdict in ("unique", "solved") and p.n_cells <= 200:
        lines.append("solution: " + colour_solution_text(r.solutions[0]))
    return "\n".join(lines)


def main(argv) -> int:
    args = _parser().parse_args(list(argv[1:]))
    from ..files.puzzlefile import PuzzleFileError, load_puzzle
    from ..model.colourpuzzle import is_colour
    with collector_held():  # kernel loading: many objects, no garbage
        try:
            p = load_puzzle(args.puzzle)
        except (PuzzleFileError, OSError, ValueError) as exc:
            sys.stderr.write(f"error: {exc}\n")
            return 2
        colour = is_colour(p) and p.k > 1
        if colour and (args.compare or args.solver != "full" or args.prepass or args.linesolver != "dp"):
            sys.stderr.write("error: a colour puzzle is solved by the full method with the complete line solvers "
                             "(--solver, --prepass, --linesolver and --compare are for plain puzzles)\n")
            return 2
        # the kernels (numba) only now, so a bad file or option is reported before they load;
        # the ones the puzzle's kind and the method need, before the solve (its time_s does not
        # count them)
        from .. import warmup
        from ..solve.driver import compare, solve
        compile_s = warmup.ensure(*(("colour",) if colour else
                                    warmup.parts_for("brute" if args.compare else args.solver, args.linesolver,
                                                     grade=not args.compare)))
    if args.compare:
        rows = compare(p, linesolver=args.linesolver, configs=COMPARE_CONFIGS,
                       max_iterations=args.max_iterations, step_limit=args.step_limit,
                       seed_exit=args.seed_exit, counting=args.counting)
        if args.json:
            print(json.dumps({"puzzle": p.name or args.puzzle, "lines": p.n_lines, "rows": rows,
                              "compile_s": compile_s}))
        else:
            print(f"{'Puzzle':<20}{'Lines':>7}" + "".join(f"{r['config']:>18}" for r in rows))
            cells = "".join(f"{r['linesolvers']:>10} ({100 * r['bad_guess_rate']:3.0f}%)" for r in rows)
            print(f"{(p.name or args.puzzle)[:19]:<20}{p.n_lines:>7}{cells}")
            print(f"{'known':<27}" + "".join(f"{100 * r['known_fraction']:>17.1f}%" for r in rows))
        return 0
    want = 1 if args.first else 2
    r = solve(p, method=args.solver, prepass=args.prepass, linesolver=args.linesolver,
              max_iterations=args.max_iterations, time_limit=args.time_limit,
              step_limit=args.step_limit, seed_exit=args.seed_exit, cache=not args.no_cache,
              use_known=not args.no_known, want=want, sat=not args.no_sat, grade=True,
              counting=args.counting)
    compile_s += r.stats.get("compile_s", 0.0)
    if args.json:
        d = r.to_dict()
        d["puzzle"] = p.name or args.puzzle
        d["shape"] = list(p.shape)
        d["compile_s"] = compile_s
        print(json.dumps(d))
    else:
        print(_summary(p.name or args.puzzle, p, r))
        print(f"compile (numba, before the solve): {compile_s:.2f} s")
    return 0
