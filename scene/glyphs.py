"""Clue points and the glyph library that labels them."""
from __future__ import annotations

import math
from typing import cast

import bpy
import numpy as np

from .materials import clue_material


KIND_CODES = {2: "plain", 3: "circle", 4: "square"}


def clue_points(puzzle) -> dict:
    """One entry per clued line: local position (voxel units), total, kind code, line index.

    An x-line's label sits in front of the +X face, a y-line's in front of -Y, a z-line's above
    +Z: the three faces Blender's default camera looks at.
    """
    X, Y, Z = puzzle.shape
    kinds = puzzle.clue_kind.astype(np.int64)
    starts = puzzle.clue_start[:-1]
    data = puzzle.clue_data
    totals = np.zeros(len(kinds), dtype=np.int64)
    has = kinds != 0
    if data.size:
        totals[has] = data[starts[has]]
    off = 0.6
    yy, zz = np.meshgrid(np.arange(Y), np.arange(Z), indexing="ij")
    px = np.stack([np.full(Y * Z, X + off), yy.ravel() + 0.5, zz.ravel() + 0.5], axis=1)
    xx, zz = np.meshgrid(np.arange(X), np.arange(Z), indexing="ij")
    py = np.stack([xx.ravel() + 0.5, np.full(X * Z, -off), zz.ravel() + 0.5], axis=1)
    xx, yy = np.meshgrid(np.arange(X), np.arange(Y), indexing="ij")
    pz = np.stack([xx.ravel() + 0.5, yy.ravel() + 0.5, np.full(X * Y, Z + off)], axis=1)
    pos = np.concatenate([px, py, pz]).astype(np.float32)
    # The cell just past each line's other end (-X, +Y, -Z): where the designer's clue-layer
    # view puts its label (scene/layers.py), and the line's axis.
    far = np.floor(pos).astype(np.int64)
    axis = np.repeat([0, 1, 2], [Y * Z, X * Z, X * Y])
    far[axis == 0, 0] = -1
    far[axis == 1, 1] = Y
    far[axis == 2, 2] = -1
    lines = np.flatnonzero(has)
    return {"position": pos[lines], "total": totals[lines], "kind": kinds[lines], "line": lines,
            "far": far[lines], "axis": axis[lines]}


# Advance of a digit of Blender's built-in font, per unit of text size, and the height of a
# digit (measured on the evaluated curves).
DIGIT_WIDTH = 0.64
DIGIT_HEIGHT = 0.70
GLYPH_BEVEL = 0.02
# Numbers of two or more digits are set tighter (Blender's character spacing), so they can be
# larger in the same width: inside a circle a two-digit number was barely legible at 800 px.
TIGHT_SPACING = 0.85
# The circle and square outlines: outer radius (half side) and stroke width, voxel units.
OUTLINE_RADIUS = 0.48
OUTLINE_WIDTH = 0.055


def glyph_spacing(total: int) -> float:
    return TIGHT_SPACING if len(str(total)) > 1 else 1.0


def glyph_size(total: int, kind: str) -> float:
    """Text size that fills a cell face (1 voxel) as far as the digits allow: large labels
    read at a few pixels per cell; framed ones fit, corners and all, inside their circle (the
    square's inside is larger)."""
    digits = len(str(total))
    width = DIGIT_WIDTH * glyph_spacing(total) * digits  # per unit of size
    if kind == "plain":
        return min(0.72, 0.82 / width)
    inner = OUTLINE_RADIUS - OUTLINE_WIDTH
    # the number's box (width x DIGIT_HEIGHT per unit of size), diagonal within the inner circle
    return min(0.64, 0.94 * 2 * inner / math.hypot(width, DIGIT_HEIGHT))


def glyph_library(name, pts, created, colours=None):
    """Collections of FONT objects (one per distinct clue) and of the two outlines, inked in
    ``colours`` (by clue kind; None for the defaults)."""
    keys = pts["kind"] * (1 << 32) + pts["total"]
    distinct, index = np.unique(keys, return_inverse=True)
    glyphs = bpy.data.collections.new(f"{name} Glyphs")
    created.append(glyphs)
    for i, key in enumerate(distinct.tolist()):
        kind, total = KIND_CODES[key >> 32], key & 0xFFFFFFFF
        suffix = {"plain": "", "circle": "o", "square": "s"}[kind]
        # Collection Info's Separate Children orders children by name: the zero-padded index
        # in front makes that order the glyph index.
        label = f"{name} glyph {i:05d} {total}{suffix}"
        curve = cast(bpy.types.TextCurve, bpy.data.curves.new(label, 'FONT'))
        created.append(curve)
        curve.body = str(total)
        curve.align_x = 'CENTER'
        curve.align_y = 'CENTER'
        curve.size = glyph_size(total, kind)
        curve.space_character = glyph_spacing(total)
        # Bolder strokes read better at a few pixels per cell (``offset`` would do it too, but
        # breaks closed digits like 6 and 8).
        curve.bevel_depth = GLYPH_BEVEL
        curve.bevel_resolution = 1
        curve.materials.append(clue_material(kind, colours))
        ob = bpy.data.objects.new(label, curve)
        created.append(ob)
        ob.visible_shadow = False  # floating labels would print dark marks on the cubes
        glyphs.objects.link(ob)
    outlines = bpy.data.collections.new(f"{name} Outlines")
    created.append(outlines)
    for i, kind in enumerate(("circle", "square")):
        mesh = _outline_mesh(f"{name} outline {i} {kind}", kind)
        created.append(mesh)
        mesh.materials.append(clue_material(kind, colours))
        ob = bpy.data.objects.new(mesh.name, mesh)
        created.append(ob)
        ob.visible_shadow = False
        outlines.objects.link(ob)
    return glyphs, outlines, index.astype(np.int32)


def _outline_mesh(name, kind, r_out=OUTLINE_RADIUS, width=OUTLINE_WIDTH):
    """A flat ring (circle) or frame (square) in the XY plane, like the glyph text."""
    n = 40 if kind == "circle" else 4
    a = np.arange(n) * 2 * np.pi / n + (0 if kind == "circle" else np.pi / 4)
    r_out = r_out if kind == "circle" else r_out * np.sqrt(2)
    r_in = r_out - (width if kind == "circle" else width * np.sqrt(2))
    ring = np.concatenate([np.stack([np.cos(a), np.sin(a)], 1) * r_out,
                           np.stack([np.cos(a), np.sin(a)], 1) * r_in])
    verts = [(float(x), float(y), 0.0) for x, y in ring]
    faces = [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh
