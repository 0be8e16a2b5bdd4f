"""The colour-puzzle side of ``python -m engine solve`` (the command's options that apply)."""
from __future__ import annotations

import json

from ..files.colourfile import colour_solution_text
from ..model.colourpuzzle import COLOUR_CHARS, ColourPuzzle


def warm_colour_kernels(parts=("colour",)) -> float:
    """Compile (or load) the colour kernels of the warm-up ``parts``; seconds taken."""
    from .. import gate
    return gate.ensure(*parts)


def solve_main(p: ColourPuzzle, args, compile_s: float) -> int:
    """``python -m engine solve`` on a colour puzzle, its kernels loaded by the caller in
    ``compile_s`` seconds."""
    from ..solve.coloursolve import solve_colour
    r = solve_colour(p, time_limit=args.time_limit, want=1 if args.first else 2,
                     use_known=not args.no_known, grade=True)
    name = p.name or args.puzzle
    if args.json:
        d = r.to_dict()
        d.update(puzzle=name, shape=list(p.shape), colours=p.k, compile_s=compile_s)
        print(json.dumps(d))
        return 0
    shape = "x".join(str(s) for s in p.shape)
    lines = [f"{name}: {shape} colour puzzle, {p.k} colours, {p.n_cells} cells, {p.n_lines} lines",
             f"verdict: {r.verdict}" + (f" (difficulty: {r.difficulty})" if r.difficulty else ""),
             *([f"score: {r.score} ({r.band})"] if r.score is not None else []),
             f"linesolvers: {r.linesolvers}, search nodes: {r.nodes}",
             f"known by logic: {100 * r.known_fraction:.1f}%, time: {1000 * r.time_s:.1f} ms"]
    if r.verdict == "multiple":
        lines.append(f"two solutions differ in {len(r.differing_cells)} cells")
    if p.dim == 2 and r.verdict in ("unique", "solved") and p.n_cells <= 100 * 100:
        W, H = p.shape
        sol = r.solutions[0].reshape(H, W)
        lines += ["".join("." if v == 0 else COLOUR_CHARS[int(v)] for v in row) for row in sol]
    elif r.verdict in ("unique", "solved") and p.n_cells <= 200:
        lines.append("solution: " + colour_solution_text(r.solutions[0]))
    print("\n".join(lines))
    print(f"compile (numba, before the solve): {compile_s:.2f} s")
    return 0


def design_main(p: ColourPuzzle, args, progress) -> int:
    """``python -m engine design`` on a colour puzzle file (--method greedy/anneal/random,
    --logic, --difficulty, --score-range, --seed, --time-limit, --start)."""
    import sys
    from ..design.colourdesign import COLOUR_PARTS, ColourDesignError, design_colour
    from ..files.puzzlefile import PuzzleFileError, save_puzzle
    compile_s = warm_colour_kernels(COLOUR_PARTS)
    progress = progress()  # started after compiling, so that its clock is the design's
    try:
        r = design_colour(p, logic=args.logic, seed=args.seed, band=args.difficulty,
                          score_range=tuple(args.score_range) if args.score_range else None,
                          start=args.start, time_limit=args.time_limit, progress=progress,
                          method=args.method)
    except ColourDesignError as exc:
        progress.done()
        sys.stderr.write(f"error: {exc}\n")
        return 2
    progress.done()
    try:
        save_puzzle(r.puzzle, args.output)
    except (PuzzleFileError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    if args.json:
        d = r.to_dict()
        d.update(output=args.output, compile_s=round(compile_s, 4), colours=p.k)
        print(json.dumps(d))
        return 0
    shape = "x".join(str(s) for s in p.shape)
    print(f"{p.name or args.input}: {shape} colour puzzle, {p.k} colours, {r.n_lines} clues, {r.hidden_count} "
          f"hidden ({100 * r.hidden_count / max(r.n_lines, 1):.1f}%), logic {r.logic}, method {r.method}, seed {r.seed}")
    print(f"difficulty: score {r.score} ({r.band})")
    print(f"trials: {r.trials}, time: {r.time_s:.3f} s" + ("" if r.locally_minimal else " (not proven locally minimal)"))
    if r.message:
        print(r.message)
    print(f"compile (numba, before the design): {compile_s:.2f} s")
    print(f"wrote {args.output}")
    return 0
