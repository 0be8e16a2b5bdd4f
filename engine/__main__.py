"""``python -m engine COMMAND ...``: each command lives in its own module with ``main(argv) -> int``."""
import importlib
import sys

COMMANDS = {
    "stats": ("cli_puzzle", "statistics of a puzzle file (the seed study's Table 4)"),
    "convert": ("cli_puzzle", "convert a puzzle between file formats (chosen by extension)"),
    "linesolve": ("bench_linesolve", "line solver micro-benchmark"),
    "solve": ("cli_solve", "solve a puzzle: verdict, difficulty, metrics"),
    "design": ("cli_design", "hide clues: unique, solvable by logic, at a difficulty"),
    "export-html": ("cli_webpage", "a playable web page of a 3D puzzle (self-contained HTML)"),
    "voxelize-bench": ("bench_voxelize", "voxelizer benchmark"),
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
    try:
        module = importlib.import_module(f".{COMMANDS[name][0]}", __package__ or "engine")
    except ModuleNotFoundError as e:
        # The extension's zip leaves the benchmark modules out (blender_manifest.toml).
        if not e.name or not e.name.endswith(COMMANDS[name][0]):
            raise
        sys.stderr.write(f"{name}: not part of this build (a development checkout has it)\n")
        return 2
    try:
        return int(module.main(argv) or 0)
    except BrokenPipeError:
        # output piped into e.g. `head`: not an error; keep Python from complaining at exit
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
