"""Clue points and the glyph library that labels them."""
from __future__ import annotations

import math
from typing import cast

import bpy
import numpy as np

from ..jobs import engine_access
from .common import TAG
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
    outlines = outline_library(name, created, colours)
    return glyphs, outlines, index.astype(np.int32)


def outline_library(name, created, colours=None):
    """The collection of the two outlines (circle first, then square) the labels pick from."""
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
    return outlines


def _outline_geometry(kind, r_out=OUTLINE_RADIUS, width=OUTLINE_WIDTH):
    """(vertices (n, 3), quads) of a flat ring (circle) or frame (square) in the XY plane."""
    n = 40 if kind == "circle" else 4
    a = np.arange(n) * 2 * np.pi / n + (0 if kind == "circle" else np.pi / 4)
    r_out = r_out if kind == "circle" else r_out * np.sqrt(2)
    r_in = r_out - (width if kind == "circle" else width * np.sqrt(2))
    ring = np.concatenate([np.stack([np.cos(a), np.sin(a)], 1) * r_out,
                           np.stack([np.cos(a), np.sin(a)], 1) * r_in])
    verts = np.concatenate([ring, np.zeros((len(ring), 1))], axis=1)
    faces = [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    return verts, faces


def _outline_mesh(name, kind):
    """A flat ring (circle) or frame (square) in the XY plane, like the glyph text."""
    ring, faces = _outline_geometry(kind)
    verts = [(float(x), float(y), float(z)) for x, y, z in ring]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


# ---------------------------------------------------------------------------------------------
# colour puzzles (issue #24): one glyph per distinct clue, its numbers side by side, each with
# its mark, inked in its puzzle colour; a single mesh object, so the labels' and the player's
# instancing (one glyph index per clue point, no separate outline) serve them unchanged.

# Space between two numbers of a colour clue, and the widest a clue may be, voxel units.
PART_GAP = 0.08
COLOUR_CLUE_WIDTH = 0.98
# The darkest floating (designer's view) ink of a colour clue, relative luminance, linear.
FLOATING_MIN_LUMINANCE = 0.3
MARK_KINDS = ("plain", "circle", "square")  # engine MARK_PLAIN, MARK_CIRCLE, MARK_SQUARE


def colour_clue_points(puzzle) -> dict:
    """``clue_points`` of a 3D colour puzzle, with ``parts`` per point: the clue's (count, mark,
    colour) for each colour in the line, or ((0, 0, 0),) for an empty line; ``total`` is the
    line's filled cells (0 for an empty line, which Show Zero Clues governs). The kind is plain
    for every point: a colour clue's glyph draws its own marks."""
    pts = clue_points(puzzle)
    parts, totals = [], []
    for li in pts["line"].tolist():
        nums = [int(v) for v in puzzle.clue_numbers(li)]
        part = tuple((nums[j], nums[j + 1], j // 2 + 1) for j in range(0, len(nums), 2) if nums[j] > 0)
        parts.append(part or ((0, 0, 0),))
        totals.append(sum(n for n, _, _ in part))
    pts["parts"] = parts
    pts["total"] = np.asarray(totals, dtype=np.int64)
    pts["kind"] = np.full(len(parts), 2, dtype=np.int64)
    return pts


def _text_geometries(context, numbers) -> dict:
    """{(number, kind): (vertices, faces)}: the bevelled digits of each number at the size a
    label of that kind has, as mesh data (the text curves evaluated once, all together)."""
    temp: list = []
    try:
        objects = {}
        for number, kind in numbers:
            curve = cast(bpy.types.TextCurve, bpy.data.curves.new("nonogram digits", 'FONT'))
            temp.append(curve)
            curve.body = str(number)
            curve.align_x = 'CENTER'
            curve.align_y = 'CENTER'
            curve.size = glyph_size(number, kind)
            curve.space_character = glyph_spacing(number)
            curve.bevel_depth = GLYPH_BEVEL
            curve.bevel_resolution = 1
            ob = bpy.data.objects.new("nonogram digits", curve)
            temp.insert(0, ob)
            context.scene.collection.objects.link(ob)
            objects[(number, kind)] = ob
        depsgraph = context.evaluated_depsgraph_get()
        out = {}
        for key, ob in objects.items():
            me = bpy.data.meshes.new_from_object(ob.evaluated_get(depsgraph))
            co = np.empty(len(me.vertices) * 3, dtype=np.float64)
            me.vertices.foreach_get("co", co)
            start = np.empty(len(me.polygons), dtype=np.int64)
            total = np.empty(len(me.polygons), dtype=np.int64)
            loops = np.empty(len(me.loops), dtype=np.int64)
            me.polygons.foreach_get("loop_start", start)
            me.polygons.foreach_get("loop_total", total)
            me.loops.foreach_get("vertex_index", loops)
            out[key] = (co.reshape(-1, 3), [loops[a:a + b].tolist() for a, b in zip(start, total)])
            bpy.data.meshes.remove(me)
        return out
    finally:
        for item in temp:
            if isinstance(item, bpy.types.Object):
                bpy.data.objects.remove(item, do_unlink=True)
            else:
                bpy.data.curves.remove(item)
        context.view_layer.update()  # else the view layer still lists the removed objects (as None)


def ink_colours(clue_colours) -> np.ndarray:
    """Linear RGB inks of the puzzle colours (sRGB) on the player's cubes: the engine's legible
    inks (``engine.colour.inks.choose_inks``), the same the web page draws: apart from each other
    (also to colour-blind eyes) and dark enough for the light cubes, near each colour's hue."""
    srgb = engine_access.inks.choose_inks(np.asarray(clue_colours, np.float64).reshape(-1, 3))
    return engine_access.colourspace.srgb_to_linear(srgb)


def floating_colours(linear) -> np.ndarray:
    """The designer's floating-label inks of linear colours: each lightened (same hue) to at
    least ``FLOATING_MIN_LUMINANCE``, so a dark clue colour reads over the dark background."""
    lin = np.asarray(linear, np.float64).reshape(-1, 3)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    lift = np.clip((FLOATING_MIN_LUMINANCE - lum) / np.maximum(1.0 - lum, 1e-9), 0.0, 1.0)
    return lin + (1.0 - lin) * lift[:, None]  # towards white by what the luminance lacks


def _part_width(number: int, kind: str) -> float:
    if kind != "plain":
        return 2 * OUTLINE_RADIUS
    return DIGIT_WIDTH * glyph_spacing(number) * len(str(number)) * glyph_size(number, kind)


def colour_glyph_library(context, name, pts, created, clue_colours, colours=None):
    """(glyphs, outlines, glyph index per point) for a colour puzzle's clue points: one mesh
    object per distinct clue, its numbers side by side in their puzzle colours (``clue_colours``,
    sRGB), circled or squared by their mark, scaled down together only when they would not fit
    one cell face. Zero clues (no colour) are inked as plain ones."""
    distinct = sorted(set(pts["parts"]))
    lookup = {p: i for i, p in enumerate(distinct)}
    index = np.asarray([lookup[p] for p in pts["parts"]], dtype=np.int32)
    inks = _colour_inks(clue_colours, colours)
    texts = _text_geometries(context, sorted({(n, MARK_KINDS[m]) for p in distinct for n, m, _ in p}))
    rings = {kind: _outline_geometry(kind) for kind in ("circle", "square")}
    glyphs = bpy.data.collections.new(f"{name} Glyphs")
    created.append(glyphs)
    for i, parts in enumerate(distinct):
        text = " ".join(f"{n}{('', 'o', 's')[m]}c{c}" for n, m, c in parts)
        label = f"{name} glyph {i:05d} {text}"  # the index first: Collection Info's name order
        widths = [_part_width(n, MARK_KINDS[m]) for n, m, _ in parts]
        span = sum(widths) + PART_GAP * (len(parts) - 1)
        scale = min(1.0, COLOUR_CLUE_WIDTH / span)
        verts: list = []
        faces: list = []
        mat_of_face: list = []
        slots = _slots(parts, inks)
        x = -span / 2
        for (n, m, c), w in zip(parts, widths):
            pieces = [texts[(n, MARK_KINDS[m])]] + ([rings[MARK_KINDS[m]]] if m else [])
            for v, f in pieces:
                base = sum(len(a) for a in verts)
                verts.append((np.asarray(v, np.float64) + (x + w / 2, 0.0, 0.0)) * scale)
                faces += [[base + j for j in face] for face in f]
                mat_of_face += [slots.index(inks[c])] * len(f)
            x += w + PART_GAP
        mesh = bpy.data.meshes.new(label)
        created.append(mesh)
        mesh.from_pydata(np.concatenate(verts).tolist(), [], faces)
        for mat in slots:
            mesh.materials.append(mat)
        mesh.polygons.foreach_set("material_index", np.asarray(mat_of_face, dtype=np.int32))
        mesh.update()
        ob = bpy.data.objects.new(label, mesh)
        created.append(ob)
        ob.visible_shadow = False
        ob[GLYPH_INDEX] = i
        glyphs.objects.link(ob)
    return glyphs, outline_library(name, created, colours), index


# A colour glyph object's place in its library (the distinct clue it draws), for re-inking it in
# place; a name can be cut short or take a ".001", so it is not read back.
GLYPH_INDEX = "nonogram_glyph"


def _colour_inks(clue_colours, colours=None) -> dict:
    """The ink material of each puzzle colour 1..k (``clue_colours``, sRGB), and 0: zero clues
    (no colour), inked as plain ones."""
    lin = ink_colours(clue_colours)
    raw = engine_access.colourspace.srgb_to_linear(np.asarray(clue_colours, np.float64).reshape(-1, 3))
    inks = {0: clue_material("plain", colours)}
    for c, (rgb, light) in enumerate(zip(lin.tolist(), floating_colours(raw).tolist()), start=1):
        # on the player's cubes the legible ink; floating over the designer's dark background the
        # puzzle colour, lightened (lightening the dark inks would merge the greys among them)
        inks[c] = clue_material("plain", {"plain": (*rgb, 1.0)}, floating=(*light, 1.0))
    return inks


def _slots(parts, inks) -> list:
    """A colour glyph's material slots: its parts' inks, each once, in the order of the parts."""
    slots: list = []
    for _, _, c in parts:
        if inks[c] not in slots:
            slots.append(inks[c])
    return slots


def reink_colour_glyphs(glyphs, pts, clue_colours, colours=None) -> bool:
    """Re-ink the colour glyph library ``glyphs`` in place for new puzzle colours of the same
    clues (``pts``: ``colour_clue_points``): each glyph's material slots take the new inks, and
    ink materials no longer used by anything go. A fraction of building the library again, so a
    palette colour can be dragged. False, with no glyph changed, when the library is not the one
    these clue points give (an older file's, or other clues): the caller builds it anew, with
    the inks made here."""
    distinct = sorted(set(pts["parts"]))
    objs = list(glyphs.objects)
    if len(objs) != len(distinct):
        return False
    inks = _colour_inks(clue_colours, colours)
    plan = []
    for ob in objs:
        i = ob.get(GLYPH_INDEX)
        mesh = ob.data
        if not isinstance(i, int) or not 0 <= i < len(distinct) or mesh is None:
            return False
        slots = _slots(distinct[i], inks)
        if len(mesh.materials) != len(slots):
            return False  # two colours shared one ink and now differ (or the other way round)
        plan.append((mesh, slots))
    old = set()
    for mesh, slots in plan:
        for j, mat in enumerate(slots):
            if mesh.materials[j] != mat:
                old.add(mesh.materials[j])
                mesh.materials[j] = mat
    for mat in old:
        if mat is not None and mat.users == 0 and mat.get(TAG) is not None:
            bpy.data.materials.remove(mat)  # our ink of a colour no longer shown (a drag's steps)
    return True
