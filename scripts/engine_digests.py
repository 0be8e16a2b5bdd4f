"""Digests of what the engine makes, solves and designs on the shared models, through the CLI.

A restructuring must not change behaviour: run this before and after and compare the lines.
Each line is one model × resolution × option set: the designed puzzle file's digest and the
solve report's digest, with every timing field left out (they differ run to run).

    python scripts/engine_digests.py [--models DIR] [--resolutions 12 16] > digests.txt
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPTION_SETS = {
    "plain": [],
    "colours4": ["--colours", "4"],
    "puzzlecolours2": ["--colours", "4", "--puzzle-colours", "2"],
}


def _without_times(value):
    """The JSON value with every key that names a time (or a machine-dependent count) removed."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items()
                if "time" not in k and k not in ("seconds", "elapsed", "compile_s", "warm")}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(_without_times(value), sort_keys=True).encode()).hexdigest()[:16]


def _engine(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True,
                          text=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=ROOT.parent / "shared" / "models")
    ap.add_argument("--resolutions", type=int, nargs="+", default=[12, 16])
    args = ap.parse_args(argv)
    models = sorted(p for p in args.models.glob("*") if p.suffix in (".obj", ".ply", ".stl", ".glb"))
    if not models:
        print(f"no models in {args.models}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            for res in args.resolutions:
                for name, opts in OPTION_SETS.items():
                    out = Path(tmp) / f"{model.stem}_{res}_{name}.json"
                    made = _engine("design", str(model), "-o", str(out), "--resolution", str(res),
                                   "--seed", "1", *opts)
                    if made.returncode != 0:
                        print(f"{model.name} {res} {name}: design exit {made.returncode}: "
                              f"{made.stderr.strip().splitlines()[-1:]}")
                        continue
                    solved = _engine("solve", str(out), "--json")
                    report = json.loads(solved.stdout) if solved.returncode == 0 else solved.stderr
                    print(f"{model.name} {res} {name}: design {_digest(json.loads(out.read_text()))}"
                          f" solve {_digest(report)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
