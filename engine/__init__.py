"""Nonogram 3D engine: puzzles, clues, line solvers, solvers, voxelizer, puzzle files.

Pure Python + numpy + numba (through ``jit.njit``); never imports Blender modules, and uses
relative imports only so it works both as the top-level package ``engine`` and inside the
Blender extension.
"""
from . import gate


def _load_warmup() -> None:
    # the warm-up knows every part and registers their compile steps with the gate; the solver
    # and the design ask the gate (they never import the warm-up: imports go one way)
    from . import warmup  # noqa: F401


gate.set_loader(_load_warmup)
