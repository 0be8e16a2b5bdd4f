"""Nonogram 3D engine: puzzles, clues, line solvers, solvers, voxelizer, puzzle files.

Pure Python + numpy + numba (through ``jit.njit``); never imports Blender modules, and uses
relative imports only so it works both as the top-level package ``engine`` and inside the
Blender extension.
"""
