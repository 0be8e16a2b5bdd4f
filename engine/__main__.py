"""``python -m engine COMMAND ...``: each command lives in its own module with ``main(argv) -> int``."""
import importlib
import sys

from .cli import startup
from .gcpause import collector_held

COMMANDS = {
    "stats": ("cli.puzzle", "statistics of a puzzle file (the seed study's Table 4)"),
    "convert": ("cli.puzzle", "convert a puzzle between file formats (chosen by extension)"),
    "solve": ("cli.solve", "solve a puzzle: verdict, difficulty, metrics"),
    "design": ("cli.design", "hide clues: unique, solvable by logic, at a difficulty"),
    "export-html": ("cli.webpage", "a playable web page of a 3D puzzle (self-contained HTML)"),
}


def usage() -> str:
    rows = "\n".join(f"  {name:<16}{help_}" for name, (_, help_) in COMMANDS.items())
    return f"usage: python -m engine COMMAND [ARGS]\n\ncommands:\n{rows}\n"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(usage())
        return 0
    name = argv[0]
    if name not in COMMANDS:
        sys.stderr.write(f"unknown command {name!r}\n\n{usage()}")
        return 2
    with collector_held():  # numba's import: many objects, no garbage
        module = importlib.import_module(f".{COMMANDS[name][0]}", __package__ or "engine")
    try:
        return int(module.main(argv) or 0)
    except BrokenPipeError:
        # output piped into e.g. `head`: not an error; keep Python from complaining at exit
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    startup.exit_now(main())  # the command has returned: skip the interpreter's teardown
