"""``python -m engine export-html PUZZLE -o OUT.html``: a playable web page of a 3D puzzle.

Exit code 0 on success, 2 on bad input (no solution stored, over the player's size limit, a
player that was never built, a bad puzzle file) with the message on stderr.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

from ..files.puzzlefile import PuzzleFileError, PuzzleFileWarning, load_puzzle
from ..play.webpage import WebPageError, write_page


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(f"{self.format_usage()}{self.prog}: error: {message}")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m engine export-html",
                description="Write a self-contained web page that plays a 3D puzzle (it must have its "
                            "solution stored). The page opens from disk, with no network and no server.")
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle file (.json, optionally .gz); FILE#N picks puzzle N")
    p.add_argument("-o", "--output", metavar="OUT.html", default=None,
                   help="the page to write (default: the puzzle's file name with .html)")
    p.add_argument("--name", default=None, help="the title the page shows (default: the puzzle's name)")
    return p


def main(argv) -> int:
    argv = list(argv)
    if argv and argv[0] == "export-html":
        argv = argv[1:]
    try:
        args = parser().parse_args(argv)
    except _UsageError as e:
        sys.stderr.write(f"{e}\n")
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    out = args.output
    if out is None:
        base = os.path.basename(args.puzzle.split("#", 1)[0])
        for ext in (".gz", ".json"):
            base = base[:-len(ext)] if base.endswith(ext) else base
        out = base + ".html"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PuzzleFileWarning)
            puzzle = load_puzzle(args.puzzle)
        for w in caught:
            sys.stderr.write(f"warning: {w.message}\n")
        if args.name:
            puzzle.name = args.name
        elif not puzzle.name:
            puzzle.name = os.path.basename(out).rsplit(".", 1)[0]
        write_page(puzzle, out)
    except (PuzzleFileError, WebPageError, OSError) as e:
        sys.stderr.write(f"export-html: {e}\n")
        return 2
    size = os.path.getsize(out)
    sys.stdout.write(f"wrote {out} ({size / 1024:.0f} KiB): {'×'.join(map(str, puzzle.shape))} puzzle "
                     f"'{puzzle.name}'; open it in a web browser\n")
    return 0
