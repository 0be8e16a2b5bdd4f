"""``python -m engine stats PUZZLE... [--json]`` and ``python -m engine convert IN OUT``.

Files are read and written by extension (see docs/PUZZLE_FORMAT.md); ``FILE#N`` picks puzzle N
(1-based) of a multi-puzzle file. Exit code 0 on success, 2 on bad input with the message on
stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from ..files.puzzlefile import PuzzleFileError, PuzzleFileWarning, load_puzzles, save_puzzles
from ..model.stats import format_table, puzzle_stats


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    # argparse would print and sys.exit; main() must return its code instead.
    def error(self, message):
        raise _UsageError(f"{self.format_usage()}{self.prog}: error: {message}")


def _stats_parser():
    p = _Parser(prog="python -m engine stats",
                description="Statistics of puzzles (the seed study's Table 4): size, cells, lines, and "
                            "per clue kind the number of lines with the min-max clue.")
    p.add_argument("puzzles", nargs="+", metavar="PUZZLE",
                   help="puzzle file (.json .non .nonpack .nin .txt, optionally .gz); FILE#N picks puzzle N")
    p.add_argument("--json", action="store_true",
                   help="print JSON: one object for a single puzzle, else a list of objects")
    p.add_argument("--difficulty", nargs="?", const="line", choices=("line", "probe"), default=None,
                   metavar="LOGIC", help="add the difficulty score and band of puzzles that logic solves "
                                         "(line propagation, or with probing: --difficulty probe)")
    return p


def _convert_parser():
    p = _Parser(prog="python -m engine convert",
                description="Convert puzzles between file formats, chosen by the file extensions.")
    p.add_argument("input", metavar="IN", help="input puzzle file; FILE#N picks puzzle N")
    p.add_argument("output", metavar="OUT",
                   help="output file: .json .non .nin (one puzzle), .nonpack .txt (several), optionally .gz")
    p.add_argument("--colours", type=int, default=None, metavar="K",
                   help="reduce the reveal palette of coloured puzzles to K colours (1..256)")
    return p


def cmd_stats(args) -> int:
    results = []
    for src in args.puzzles:
        puzzles = load_puzzles(src)
        for p in puzzles:
            from ..model.colourpuzzle import colour_stats, is_colour
            s = colour_stats(p) if is_colour(p) else puzzle_stats(p)
            if args.difficulty:
                from ..solve.kinds import kind_for
                d = kind_for(p).grade(args.difficulty == "probe")
                s["score"], s["band"] = d.score, d.band
            results.append((p.name or src, s))
    if args.json:
        objs = [s for _, s in results]
        json.dump(objs[0] if len(objs) == 1 else objs, sys.stdout)
        sys.stdout.write("\n")
    else:
        from ..model.colourpuzzle import format_colour_stats
        plain = [(n, s) for n, s in results if "colours" not in s]
        for n, s in results:
            if "colours" in s:
                sys.stdout.write(format_colour_stats(n, s))
        if plain:
            sys.stdout.write(format_table(plain))
    return 0


def cmd_convert(args) -> int:
    puzzles = load_puzzles(args.input)
    if args.colours is not None:
        from ..colour.palette import PaletteError, describe, reduce_puzzle_palette
        for p in puzzles:
            try:
                p.palette, p.colours = reduce_puzzle_palette(p, args.colours)
            except PaletteError as e:
                raise PuzzleFileError(f"{args.input}: {p.name or 'puzzle'}: {e}") from None
            sys.stderr.write(f"{p.name or args.input}: palette {describe(p.palette)}\n")
    save_puzzles(puzzles, args.output)
    n = len(puzzles)
    sys.stderr.write(f"wrote {n} puzzle{'s' if n != 1 else ''} to {args.output}\n")
    return 0


COMMANDS = {"stats": (_stats_parser, cmd_stats), "convert": (_convert_parser, cmd_convert)}


def main(argv) -> int:
    argv = list(argv)
    if not argv or argv[0] not in COMMANDS:
        sys.stderr.write(f"cli_puzzle: expected one of {', '.join(COMMANDS)} as the command\n")
        return 2
    make_parser, run = COMMANDS[argv[0]]
    try:
        try:
            args = make_parser().parse_args(argv[1:])
        except SystemExit as e:  # --help
            return int(e.code or 0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PuzzleFileWarning)
            try:
                return run(args)
            finally:
                for w in caught:
                    sys.stderr.write(f"warning: {w.message}\n")
    except _UsageError as e:
        sys.stderr.write(f"{e}\n")
        return 2
    except PuzzleFileError as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the final flush at interpreter exit too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
