"""Removing a nonogram and everything it created."""
from __future__ import annotations

import bpy

from .common import TAG, NonogramError
from .store import nonogram_of


def clear_nonogram(nonogram_obj: bpy.types.Object) -> None:
    """Remove a generated nonogram and everything it created: its objects and their data, its
    collection (when nothing else was put in it), the glyph library, and the shared node groups
    and materials once no other nonogram uses them. Unhides the source if Make hid it."""
    obj = nonogram_of(nonogram_obj)
    if obj is None:
        raise NonogramError(f"'{nonogram_obj.name if nonogram_obj else None}' is not a nonogram")
    pg = obj.nonogram
    if pg.hid_source:
        for src in {pg.source, *(item.object for item in pg.sources)} - {None}:
            try:
                src.hide_set(False)
            except RuntimeError:  # source not in the current view layer
                pass
    for item in pg.sources:
        if item.hid_render and item.object is not None:
            item.object.hide_render = False
    coll, glyphs, outlines = pg.collection, pg.glyphs, pg.outlines
    objects = [obj] + [c for c in obj.children if c.nonogram.is_clue_object]
    if pg.labels is not None and pg.labels not in objects:
        objects.append(pg.labels)
    for lib in (glyphs, outlines):
        if lib is not None:
            objects.extend(lib.objects)
    datas = [o.data for o in objects if o.data is not None]
    for o in objects:
        bpy.data.objects.remove(o, do_unlink=True)
    for d in datas:
        if d.users == 0:
            if isinstance(d, bpy.types.Mesh):
                bpy.data.meshes.remove(d)
            else:
                bpy.data.curves.remove(d)
    for c in (glyphs, outlines):
        if c is not None:
            bpy.data.collections.remove(c)
    if coll is not None and not coll.objects and not coll.children:
        bpy.data.collections.remove(coll)
    # Groups first: they hold the voxel material.
    for ng in list(bpy.data.node_groups):
        if ng.get(TAG) is not None and ng.users == 0:
            bpy.data.node_groups.remove(ng)
    for m in list(bpy.data.materials):
        if m.get(TAG) is not None and m.users == 0:
            bpy.data.materials.remove(m)
    for f in list(bpy.data.fonts):
        if f.get(TAG) is not None and f.users == 0:
            bpy.data.fonts.remove(f)
