"""The engine modules the Blender side uses, typed for mypy and imported lazily at run time.

Enabling the add-on must not import numba or the engine (Blender starts fast), and the engine's
kernels must be cached in the add-on's folder, which ``runtime.engine()`` sets before the first
engine import. So at run time each name below is a ``runtime.LazyModule`` that imports its module
through ``runtime.engine()`` on first attribute access; for mypy it is the module itself, so
every call across the boundary is checked. Use them as ``engine_access.design.DesignSession(...)``
and catch the engine's exceptions by type (``except engine_access.design.DesignError``).
This file is the one place that knows where each engine module lives.
"""
from typing import TYPE_CHECKING

from .runtime import lazy

if TYPE_CHECKING:
    from ..engine import (clues, colour, colourspace, design, jit, palette, pieces, puzzle,
                          puzzlefile, solve, stats, voxelize, webpage)
    from ..engine import warmup as kernels_warmup
else:
    clues = lazy("clues")
    colour = lazy("colour")
    colourspace = lazy("colourspace")
    design = lazy("design")
    jit = lazy("jit")
    kernels_warmup = lazy("warmup")
    palette = lazy("palette")
    pieces = lazy("pieces")
    puzzle = lazy("puzzle")
    puzzlefile = lazy("puzzlefile")
    solve = lazy("solve")
    stats = lazy("stats")
    voxelize = lazy("voxelize")
    webpage = lazy("webpage")

__all__ = ["clues", "colour", "colourspace", "design", "jit", "kernels_warmup", "palette", "pieces",
           "puzzle", "puzzlefile", "solve", "stats", "voxelize", "webpage"]
