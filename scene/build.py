"""Building a nonogram in the scene: from a puzzle, or from a mesh through the voxelizer."""
from __future__ import annotations

import json
import sys
import time
import traceback
from typing import cast

import bpy
import numpy as np

from ..jobs import engine_access
from ..jobs.make import Made, SourceMesh, check_colour_options, load_engine, voxelize_source
from .attributes import object_point_attribute, points_mesh, set_object_point_attribute, set_point_attribute
from .colours import gather as gather_colours, reveal_of, show_colours  # noqa: F401 (reveal_of: its old home)
from .common import (DEFAULT_STYLE, EMPTY, FILLED, LABEL_GROUP, MAX_CELLS, PLAYER_GROUP, TAG, UNKNOWN,
                     NonogramError)
from .glyphs import clue_points, colour_clue_points, colour_glyph_library, glyph_library, reink_colour_glyphs
from .layers import default_layer, set_clue_layer
from .check import store_design
from .hidden import hidden_mask, set_hidden, split_designed
from .materials import tag_id
from .nodes import label_group, set_modifier_input, voxel_group
from .player import player_modifier
from .source import check_resolution, sources_triangles
from .store import cells_mesh, is_colour_puzzle, jsonable, props, store_puzzle


def _remove_ids(ids):
    """Undo a half-built nonogram (newest first, so users go before what they use). Called while
    the error that stopped it is handled: the frames that error left first let go of their
    locals, the nodes, sockets and modifiers of what is removed here. bpy guards a removed
    datablock but not the structs inside it, so whatever looks at the error's frames afterwards
    read freed memory: pytest's report of a failed Make (it shows each call's arguments) died
    of it with a segmentation fault on bpy 5.3."""
    traceback.clear_frames(sys.exc_info()[2])
    for idb in reversed(ids):
        try:
            if isinstance(idb, bpy.types.Object):
                bpy.data.objects.remove(idb)
            elif isinstance(idb, bpy.types.Mesh):
                bpy.data.meshes.remove(idb)
            elif isinstance(idb, bpy.types.Collection):
                bpy.data.collections.remove(idb)
            else:
                bpy.data.curves.remove(idb)
        except ReferenceError:
            pass


def build_from_puzzle(context: bpy.types.Context, puzzle, *, name: str, origin=(0.0, 0.0, 0.0),
                      voxel_size: float = 1.0, style=None) -> bpy.types.Object:
    """Build the nonogram scene for a 3D puzzle; returns the nonogram object (made active).

    ``style``: colours and label size (``DEFAULT_STYLE``'s keys; missing ones are defaults).
    A designed puzzle (lines without a clue, and a solution) is shown as designed: its missing
    clues are hidden ones the designer can show again (``hidden.split_designed``)."""
    if not getattr(puzzle, "is_3d", False):
        raise NonogramError(f"'{puzzle.name or name}' is a {len(puzzle.shape)}D puzzle; only 3D "
                            "puzzles can be built in the scene")
    if puzzle.clue_kind.size and int(puzzle.clue_kind.max()) == 1:
        raise NonogramError("block-list clues cannot be shown on a 3D nonogram")
    style = {**DEFAULT_STYLE, **(style or {})}
    X, Y, Z = puzzle.shape
    if X * Y * Z > MAX_CELLS:
        raise NonogramError(f"a {X}×{Y}×{Z} puzzle has too many cells (limit {MAX_CELLS:,})")
    design_info = puzzle.meta.get("design")
    puzzle, hidden = split_designed(puzzle)
    created: list = []
    groups_before = set(bpy.data.node_groups)
    materials_before = set(bpy.data.materials)
    fonts_before = set(bpy.data.fonts)  # the first text curve loads Blender's built-in font
    try:
        coll = bpy.data.collections.new(f"{name} Nonogram")
        created.append(coll)
        context.scene.collection.children.link(coll)

        # Cells in the puzzle's own order (x-major), so point i is cell i.
        idx = np.indices((X, Y, Z)).reshape(3, -1).T
        mesh = points_mesh(f"{name} Cells", idx + 0.5)
        created.append(mesh)
        n = X * Y * Z
        sol = puzzle.solution if puzzle.solution is not None else np.zeros(n, dtype=bool)
        set_point_attribute(mesh, "solution", sol, 'BOOLEAN')
        # The designer's view draws the cells by state: before any solve or check, the model
        # Make (or the file) gave, not a grey block of unknown cells; a puzzle without its
        # solution starts unknown.
        state = np.where(sol, FILLED, EMPTY) if puzzle.solution is not None else np.full(n, UNKNOWN)
        set_point_attribute(mesh, "state", state, 'INT')
        set_point_attribute(mesh, "visible", np.ones(n, dtype=bool), 'BOOLEAN')
        set_point_attribute(mesh, "highlight", np.zeros(n, dtype=bool), 'BOOLEAN')
        set_point_attribute(mesh, "known_at", np.zeros(n), 'INT')
        obj = bpy.data.objects.new(f"{name} Nonogram", mesh)
        created.append(obj)
        coll.objects.link(obj)
        obj.location = tuple(float(v) for v in origin)
        obj.scale = (float(voxel_size),) * 3
        mod = cast(bpy.types.NodesModifier, obj.modifiers.new("Nonogram Voxels", 'NODES'))
        mod.node_group = voxel_group(style)

        if is_colour_puzzle(puzzle):
            pts = colour_clue_points(puzzle)
            glyphs, outlines, glyph_index = colour_glyph_library(context, name, pts, created,
                                                                 puzzle.clue_colours, style)
        else:
            pts = clue_points(puzzle)
            glyphs, outlines, glyph_index = glyph_library(name, pts, created, style)
        lmesh = points_mesh(f"{name} Clue Points", pts["position"])
        created.append(lmesh)
        set_point_attribute(lmesh, "glyph", glyph_index)
        set_point_attribute(lmesh, "clue_total", pts["total"])
        set_point_attribute(lmesh, "clue_kind", pts["kind"])
        set_point_attribute(lmesh, "line", pts["line"])
        for i, a in enumerate("xyz"):
            set_point_attribute(lmesh, f"far_{a}", pts["far"][:, i])
        set_point_attribute(lmesh, "line_axis", pts["axis"])
        labels = bpy.data.objects.new(f"{name} Clues", lmesh)
        created.append(labels)
        coll.objects.link(labels)
        labels.parent = obj
        labels.visible_shadow = False
        lmod = cast(bpy.types.NodesModifier, labels.modifiers.new("Nonogram Clues", 'NODES'))
        lmod.node_group = label_group()
        set_modifier_input(lmod, "Glyphs", glyphs)
        set_modifier_input(lmod, "Outlines", outlines)
        set_modifier_input(lmod, "Show Zero Clues", False)
        set_modifier_input(lmod, "Label Size", float(style["label_size"]))

        pg = props(obj)
        pg.is_nonogram = True
        pg.collection = coll
        pg.labels = labels
        pg.glyphs = glyphs
        pg.outlines = outlines
        props(labels).is_clue_object = True
        store_puzzle(obj, puzzle)
        show_colours(obj, puzzle)
        set_hidden(obj, hidden)
        if hidden.any() and isinstance(design_info, dict):
            store_design(obj, design_info)  # a designed puzzle file says how it was designed
        player_modifier(obj, style)
        set_modifier_input(player_modifier(obj), "Label Size", float(style["label_size"]))
        set_clue_layer(obj, *default_layer((X, Y, Z)))
    except Exception:
        _remove_ids(created)
        for ng in set(bpy.data.node_groups) - groups_before:
            bpy.data.node_groups.remove(ng)
        for m in set(bpy.data.materials) - materials_before:
            bpy.data.materials.remove(m)
        for f in set(bpy.data.fonts) - fonts_before:
            bpy.data.fonts.remove(f)
        raise
    for f in set(bpy.data.fonts) - fonts_before:
        tag_id(f, "Glyph Font")  # ours: Clear removes it with the last glyph that uses it

    for ob in context.view_layer.objects:
        if ob.select_get():
            ob.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    return obj


def show_as_colour_puzzle(context, obj, puzzle) -> None:
    """Turn the nonogram ``obj`` (black-and-white, or a colour puzzle grouped otherwise) into the
    colour puzzle ``puzzle`` of the same filled cells (every clue; ``engine.colour.groups``
    made it from the reveal colours): the stored puzzle, the clue glyphs (inked anew) and the
    cubes' colours change, the hidden clues stay."""
    pg = props(obj)
    labels = pg.labels
    line = None if labels is None else object_point_attribute(labels, "line")
    pts = colour_clue_points(puzzle)
    if tuple(pg.shape) != tuple(puzzle.shape) or line is None or not np.array_equal(line, pts["line"]):
        raise NonogramError(f"the colour puzzle does not fit '{obj.name}' (its clue points changed)")
    name = pg.glyphs.name.removesuffix(" Glyphs") if pg.glyphs is not None else obj.name
    created: list = []
    try:
        glyphs, outlines, index = colour_glyph_library(context, name, pts, created, puzzle.clue_colours)
    except Exception:
        _remove_ids(created)
        raise
    old = [c for c in (pg.glyphs, pg.outlines) if c is not None]
    hidden = hidden_mask(obj)
    set_object_point_attribute(labels, "glyph", index)
    set_object_point_attribute(labels, "clue_total", pts["total"])
    set_object_point_attribute(labels, "clue_kind", pts["kind"])
    pg.glyphs, pg.outlines = glyphs, outlines
    for mod in [*labels.modifiers, *obj.modifiers]:
        group = getattr(mod, "node_group", None)
        if group is not None and group.get(TAG + "_role") in (LABEL_GROUP, PLAYER_GROUP):
            set_modifier_input(mod, "Glyphs", glyphs)
            set_modifier_input(mod, "Outlines", outlines)
    for coll in old:
        datas = [o.data for o in coll.objects if o.data is not None]
        for o in list(coll.objects):
            bpy.data.objects.remove(o, do_unlink=True)
        for d in datas:
            if d.users == 0:
                (bpy.data.meshes if isinstance(d, bpy.types.Mesh) else bpy.data.curves).remove(d)
        bpy.data.collections.remove(coll)
    store_puzzle(obj, puzzle)
    show_colours(obj, puzzle)
    set_hidden(obj, hidden)
    labels.update_tag()
    obj.update_tag()


def recolour_colour_puzzle(obj, puzzle) -> bool:
    """Show the colour puzzle ``puzzle`` on ``obj`` when only its puzzle colours differ from the
    one shown (an edited or merged palette entry of one puzzle colour): the glyphs re-inked in
    place, the cubes recoloured, the puzzle stored. ``show_as_colour_puzzle`` builds the glyph
    library anew, 0.5-1 s at 24³, too slow for every step of a colour picker's drag. False, with
    no glyph changed, when the shown glyphs do not fit (then ``show_as_colour_puzzle``)."""
    pg = props(obj)
    if pg.glyphs is None or pg.labels is None or tuple(pg.shape) != tuple(puzzle.shape):
        return False
    if not reink_colour_glyphs(pg.glyphs, colour_clue_points(puzzle), puzzle.clue_colours):
        return False
    store_puzzle(obj, puzzle)
    show_colours(obj, puzzle)
    pg.labels.update_tag()
    obj.update_tag()
    return True


def _sources(source_obj) -> list:
    """One source object or several, as a list."""
    return list(source_obj) if isinstance(source_obj, (list, tuple)) else [source_obj]


def read_source(context, source_obj, resolution, colours=1) -> SourceMesh:
    """The evaluated mesh of ``source_obj`` (an object, or a list of them: their union) in world
    space, checked against ``resolution``.

    Main thread only (it reads bpy). It also imports the engine, so that numba's cache folder
    is set on the main thread; compiling, if needed, happens in ``voxelize_source``.
    ``colours`` > 1 also gathers the objects' colours (``colours.gather``).
    """
    t0 = time.perf_counter()
    check_colour_options(colours)
    objs = _sources(source_obj)
    verts, tris = sources_triangles(context, objs)
    check_resolution(verts, int(resolution))
    t1 = time.perf_counter()
    load_engine(int(colours))  # first call: imports numba
    t2 = time.perf_counter()
    times = {"triangles": t1 - t0, "engine_import": t2 - t1}
    colour = None
    if int(colours) > 1:
        colour = gather_colours(context, objs)
        times["colour_gather"] = time.perf_counter() - t2
    return SourceMesh(objs[0].name, verts, tris, times, [o.name for o in objs], colour)


def build_made(context, source_obj, made: Made, *, hide_source=False,
               style=None) -> bpy.types.Object:
    """The nonogram scene for ``made`` (main thread) from ``source_obj`` (an object or the list
    ``read_source`` had). Timings, the sources, the pieces and what the piece options changed
    land in ``make_info`` (JSON); the cells the options changed get the point attribute
    ``repair`` (the voxelizer's codes)."""
    t3 = time.perf_counter()
    result = made.result
    obj = build_from_puzzle(context, made.puzzle, name=made.name, origin=result.origin,
                            voxel_size=result.voxel_size, style=style)
    if result.changes is not None:
        set_point_attribute(cells_mesh(obj), "repair", result.changes.ravel())
    t4 = time.perf_counter()
    pg = props(obj)
    sources = _sources(source_obj)
    pg.source = sources[0]
    for src in sources:
        item = pg.sources.add()
        item.object = src
        # The cubes have gaps: a visible source would show through them in renders. Showing it
        # again (Object Properties > Visibility > Renders) is the way to ask for it.
        if not src.hide_render:
            src.hide_render = item.hid_render = True
    times = dict(made.times, build=t4 - t3)
    times["total"] = sum(times.values())
    if is_colour_puzzle(made.puzzle):  # its reveal palette went into its meta, grouped
        made.options["palette"] = list(made.puzzle.meta.get("_reveal", {}).get("palette", []))
        made.options["clue_colours"] = engine_access.colourspace.to_hex(made.puzzle.clue_colours)
        made.options["colour_notes"] = list(made.colour_notes)
    elif made.puzzle.palette is not None:
        made.options["palette"] = engine_access.colourspace.to_hex(made.puzzle.palette)
        made.options["colour_notes"] = list(made.colour_notes)
        made.options["colour_info"] = list(made.colour_info)
    info = dict(made.options, shape=[int(s) for s in result.grid.shape],
                filled=int(result.grid.sum()), warnings=list(result.warnings),
                changes=engine_access.pieces.describe_repair(result.diagnostics.get("repair")),
                diagnostics=jsonable(result.diagnostics, max_array=64), time_s=times)
    pg.make_info = json.dumps(info)
    made.info = info  # the operator's report reads this, not the JSON back
    if hide_source:
        for src in sources:
            src.hide_set(True)
        pg.hid_source = True
    return obj


def make_nonogram(context, source_obj, *, resolution=12, samples=1, threshold=0.5, robust=True,
                  hide_source=False, progress=None, style=None, bridge=False, thin_parts=False,
                  min_piece=0, keep_largest=False, colours=1, puzzle_colours=1):
    """Voxelize the evaluated mesh of ``source_obj`` (an object, or a list of them: their union)
    in world space and build its nonogram, in one go (the Make operator runs the same three
    steps, the middle one in a worker thread).

    ``progress(fraction) -> bool`` is passed to the voxelizer (True cancels it); so are the
    piece options (``voxelize_source``). ``colours`` > 1 keeps the model's colours, reduced to
    that many (the palette of the reveal); 1 makes plain cubes. ``puzzle_colours`` > 1 makes a
    colour puzzle of that many colours from the reveal's (``jobs.make.colour_puzzle``).

    Returns (nonogram object, VoxelResult). Raises NonogramError, with bpy.data unchanged, on
    input that cannot make a puzzle. Timings land in ``obj.nonogram.make_info`` (JSON).
    """
    src = read_source(context, source_obj, resolution, colours)
    made = voxelize_source(src, resolution=resolution, samples=samples, threshold=threshold,
                           robust=robust, progress=progress, bridge=bridge, thin_parts=thin_parts,
                           min_piece=min_piece, keep_largest=keep_largest, colours=colours,
                           puzzle_colours=puzzle_colours)
    return (build_made(context, source_obj, made, hide_source=hide_source, style=style),
            made.result)
