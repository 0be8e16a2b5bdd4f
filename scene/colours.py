"""The model's colours on the nonogram: gathering what the engine's capture needs from the source
objects (main thread), and the reveal's per-cell colour attributes.

Gathering, per source object and per material slot, in the order a Blender artist expects:
the Principled BSDF's Base Color (an Image Texture linked to it, sampled through its UV Map node's
map or the active one; a Color Attribute / Attribute node: the mesh's colour attribute; else the
socket's value), then the material's viewport display colour; a mesh without materials uses its
active colour attribute, else the object colour.  A node tree this cannot follow falls back to
the next source and a note says so; nothing here raises for a material.

Per cell (point attributes of the nonogram object): ``colour_index`` (palette entry), ``coloured``
(a palette exists and the cell is filled) and ``reveal_colour`` (the entry's colour, linear,
read by the cubes' material through the instancer).  Changing the palette rewrites
``reveal_colour`` only: no geometry changes.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable, Optional

import numpy as np

from ..jobs import engine_access
from .attributes import set_point_attribute
from .common import NonogramError
from .store import cells_mesh, is_colour_puzzle, load_full_puzzle, props, store_puzzle

COLOUR_SOCKETS = ("Base Color", "Color")


def _linked_from(sock):
    if sock is None or not sock.is_linked:
        return None
    return sock.links[0].from_node


def _surface_shader(mat):
    nt = mat.node_tree if mat is not None else None
    if nt is None:
        return None
    outs = [n for n in nt.nodes if n.bl_idname == "ShaderNodeOutputMaterial"]
    out = next((n for n in outs if n.is_active_output), outs[0] if outs else None)
    return _linked_from(out.inputs.get("Surface")) if out is not None else None


def _image_pixels(image, notes, label):
    """Linear float32 (h, w, 4), row 0 at the bottom; None (noted) when it has no pixels."""
    try:
        w, h = image.size
        if w == 0 or h == 0 or not image.has_data and not (image.pixels and len(image.pixels)):
            raise ValueError
        px = np.empty(w * h * image.channels, np.float32)
        image.pixels.foreach_get(px)
    except (ValueError, RuntimeError, AttributeError):
        notes.append(f"{label}: image '{image.name}' has no pixels (missing file?); the next "
                     f"colour source used")
        return None
    px = px.reshape(h, w, image.channels)
    if image.channels < 3:
        px = np.repeat(px[..., :1], 3, axis=2)
    rgb = px[..., :3].astype(np.float64)
    # byte images hold their colour space's values; float images are linear already
    if not image.is_float and image.colorspace_settings.name in ("sRGB", "sRGB EOTF"):
        rgb = engine_access.colourspace.srgb_to_linear(rgb)
    return np.ascontiguousarray(rgb, np.float32)


class _Gather:
    def __init__(self):
        self.sources: list = []
        self.images: list = []
        self.image_ids: dict = {}
        self.notes: list = []  # real fallbacks: Make reports them as warnings
        self.info: list = []  # documented behaviour worth a mention, not a warning

    def image(self, image, label):
        key = image.name
        if key not in self.image_ids:
            px = _image_pixels(image, self.notes, label)
            self.image_ids[key] = -1 if px is None else len(self.images)
            if px is not None:
                self.images.append(px)
        return self.image_ids[key]

    def material(self, obj, mat, label):
        """(Source, UV map name or None, wants the colour attribute)."""
        Source = engine_access.colour.Source
        display = tuple(mat.diffuse_color[:3]) if mat is not None else tuple(obj.color[:3])
        fallback = Source(display, name=label)
        shader = _surface_shader(mat)
        if shader is None:
            self.notes.append(f"{label}: no surface shader; its viewport display colour used")
            return fallback, None, False
        sock = next((shader.inputs[n] for n in COLOUR_SOCKETS if n in shader.inputs), None)
        if sock is None:
            self.notes.append(f"{label}: its {shader.bl_label} node has no colour input; its "
                              f"viewport display colour used")
            return fallback, None, False
        src = _linked_from(sock)
        if src is None:
            return Source(tuple(sock.default_value[:3]), name=label), None, False
        if src.bl_idname == "ShaderNodeTexImage":
            if src.image is None:
                self.notes.append(f"{label}: an Image Texture node without an image; its "
                                  f"viewport display colour used")
                return fallback, None, False
            index = self.image(src.image, label)
            if index < 0:
                return fallback, None, False
            uv = _linked_from(src.inputs.get("Vector"))
            uv_name = uv.uv_map if uv is not None and uv.bl_idname == "ShaderNodeUVMap" else None
            if uv is not None and uv.bl_idname != "ShaderNodeUVMap":
                self.notes.append(f"{label}: the image's coordinates come from a "
                                  f"{uv.bl_label} node; the UV map used instead")
            return (Source((1.0, 1.0, 1.0), image=index, name=label,
                           closest=src.interpolation == 'Closest'), uv_name or "", False)
        if src.bl_idname in ("ShaderNodeVertexColor", "ShaderNodeAttribute"):
            name = getattr(src, "layer_name", "") or getattr(src, "attribute_name", "")
            return Source((1.0, 1.0, 1.0), corners=True, name=label), None, name or True
        self.notes.append(f"{label}: Base Color comes from a {src.bl_label} node the add-on "
                          f"cannot follow; its viewport display colour used")
        return fallback, None, False


def _corner_colours(mesh, loops, verts_of_loop, name):
    attrs = mesh.color_attributes
    attr = attrs.get(name) if isinstance(name, str) and name else None
    if attr is None:
        attr = attrs.active_color if hasattr(attrs, "active_color") else None
        if attr is None and len(attrs):
            attr = attrs[0]
    if attr is None:
        return None
    n = len(attr.data)
    vals = np.empty(n * 4, np.float32)
    attr.data.foreach_get("color", vals)  # scene linear for byte and float colours alike
    vals = vals.reshape(-1, 4)[:, :3]
    if attr.domain == 'CORNER':
        return vals[loops]
    if attr.domain == 'POINT':
        return vals[verts_of_loop[loops]]
    return None


def gather(context, objs) -> dict:
    """The capture's arrays for the union of ``objs`` (their triangles in the same order as
    ``source.sources_triangles``): tri_material, sources, uvs, corner_colours, images, notes
    (fallbacks, warned about) and info (documented sources worth a mention, e.g. the object
    colour of a mesh without material)."""
    g = _Gather()
    tri_mat, uv_parts, col_parts = [], [], []
    any_uv = any_col = False
    depsgraph = context.evaluated_depsgraph_get()
    Source = engine_access.colour.Source
    for obj in objs:
        ob_eval = obj.evaluated_get(depsgraph)
        mesh = ob_eval.to_mesh()
        try:
            mesh.calc_loop_triangles()
            m = len(mesh.loop_triangles)
            loops = np.empty(m * 3, np.int32)
            mesh.loop_triangles.foreach_get("loops", loops)
            loops = loops.reshape(-1, 3)
            mat_idx = np.empty(m, np.int32)
            mesh.loop_triangles.foreach_get("material_index", mat_idx)
            vol = np.empty(len(mesh.loops), np.int32)
            mesh.loops.foreach_get("vertex_index", vol)
            slots = [s.material for s in obj.material_slots]
            base = len(g.sources)
            wanted_uv: Any = None
            wants_col: Any = False
            if not slots or all(s is None for s in slots):
                if len(mesh.color_attributes):
                    g.sources.append(Source((1.0, 1.0, 1.0), corners=True, name=obj.name))
                    wants_col = True
                else:
                    g.sources.append(Source(tuple(obj.color[:3]), name=obj.name))
                    # the documented last source, not a fallback: said in Make's report only
                    g.info.append(f"'{obj.name}' has no material: its object colour")
                mat_idx[:] = 0
            else:
                for i, mat in enumerate(slots):
                    label = f"'{obj.name}' slot {i + 1}" + (f" ('{mat.name}')" if mat else "")
                    src, uv_name, col = g.material(obj, mat, label)
                    g.sources.append(src)
                    if uv_name is not None and wanted_uv is None:
                        wanted_uv = uv_name
                    wants_col = wants_col or col
                mat_idx = np.clip(mat_idx, 0, len(slots) - 1)
            tri_mat.append(mat_idx.astype(np.int64) + base)
            uv_layer = None
            if wanted_uv is not None:
                uv_layer = mesh.uv_layers.get(wanted_uv) if wanted_uv else None
                if uv_layer is None:
                    uv_layer = mesh.uv_layers.active
                if uv_layer is None:
                    g.notes.append(f"'{obj.name}': an image texture but no UV map; the material's "
                                   f"viewport display colour used")
            if uv_layer is not None:
                uv = np.empty(len(mesh.loops) * 2, np.float32)
                uv_layer.data.foreach_get("uv", uv)
                uv_parts.append(uv.reshape(-1, 2).astype(np.float64)[loops])
                any_uv = True
            else:
                uv_parts.append(np.full((m, 3, 2), np.nan))
            cc = _corner_colours(mesh, loops, vol, wants_col) if wants_col else None
            if wants_col and cc is None:
                g.notes.append(f"'{obj.name}': the material reads a colour attribute the mesh "
                               f"does not have; the material's colour used")
            if cc is not None:
                col_parts.append(cc.astype(np.float64))
                any_col = True
            else:
                col_parts.append(np.ones((m, 3, 3)))
            if uv_layer is None:
                # without UVs, an image material falls back to its display colour, not white
                for j in range(base, len(g.sources)):
                    s = g.sources[j]
                    if s.image >= 0:
                        mat = slots[j - base]
                        g.sources[j] = Source(tuple(mat.diffuse_color[:3]), name=s.name)
            if cc is None:
                for j in range(base, len(g.sources)):
                    s = g.sources[j]
                    if s.corners:
                        mat = slots[j - base] if slots and slots[j - base] is not None else None
                        colour = tuple(mat.diffuse_color[:3]) if mat else tuple(obj.color[:3])
                        g.sources[j] = Source(colour, name=s.name)
        finally:
            ob_eval.to_mesh_clear()
    return dict(tri_material=np.concatenate(tri_mat) if tri_mat else np.zeros(0, np.int64),
                sources=g.sources, uvs=np.concatenate(uv_parts) if any_uv else None,
                corner_colours=np.concatenate(col_parts) if any_col else None, images=g.images,
                notes=g.notes, info=g.info)


# ---------------------------------------------------------------------------------------------
# the reveal's attributes


def set_colour_attribute(mesh, name, rgb):
    attr: Any = mesh.attributes.get(name)
    if attr is not None and (attr.data_type != 'FLOAT_COLOR' or attr.domain != 'POINT'):
        mesh.attributes.remove(attr)
        attr = None
    if attr is None:
        attr = mesh.attributes.new(name, 'FLOAT_COLOR', 'POINT')
    rgba = np.ones((len(rgb), 4), np.float32)
    rgba[:, :3] = rgb
    attr.data.foreach_set("color", rgba.ravel())
    mesh.update()


def reveal_of(puzzle):
    """What ``write_colours`` shows: a black-and-white puzzle's own reveal colours; a colour
    puzzle's cells in their puzzle colours."""
    if not is_colour_puzzle(puzzle):
        return puzzle
    sol = puzzle.colour_solution
    colours = None if sol is None else np.maximum(np.asarray(sol, np.int64) - 1, 0)
    return SimpleNamespace(palette=puzzle.clue_colours, colours=colours, solution=puzzle.solution)


def show_colours(obj, puzzle) -> None:
    """``write_colours`` for any stored puzzle: a colour puzzle's cubes in their puzzle colours,
    its panel palette the reveal's entries, each with its puzzle colour (``colour_groups``)."""
    if not is_colour_puzzle(puzzle):
        write_colours(obj, puzzle)
        return
    palette, _, groups = engine_access.colourgroups.reveal_parts(puzzle)
    write_colours(obj, reveal_of(puzzle), entries=palette, groups=groups)


def write_colours(obj, puzzle, entries=None, groups=None) -> None:
    """The per-cell colour attributes of ``puzzle``'s palette (none: cleared to plain) and the
    palette property shown in the panel: ``entries`` (default the palette), each with its
    puzzle colour in ``groups`` (0: a black-and-white puzzle's entry)."""
    mesh = cells_mesh(obj)
    n = len(mesh.vertices)
    pg = props(obj)
    if puzzle.palette is None or puzzle.colours is None or puzzle.solution is None:
        set_point_attribute(mesh, "coloured", np.zeros(n, bool), 'BOOLEAN')
        pg.palette.clear()
        return
    cs = engine_access.colourspace
    sol = np.asarray(puzzle.solution, bool).ravel()
    idx = np.asarray(puzzle.colours, np.int64).ravel()
    lin = cs.srgb_to_linear(np.asarray(puzzle.palette, np.float64))
    set_point_attribute(mesh, "colour_index", np.where(sol, idx, 0))
    set_point_attribute(mesh, "coloured", sol, 'BOOLEAN')
    set_colour_attribute(mesh, "reveal_colour", np.where(sol[:, None], lin[idx], 0.0))
    pg["palette_sync"] = True  # the palette's update callback must not write back meanwhile
    try:
        pg.palette.clear()
        shown = puzzle.palette if entries is None else entries
        for i, c in enumerate(np.asarray(shown, np.float64)):
            entry = pg.palette.add()
            entry.colour = tuple(float(v) for v in c)
            entry.group = 0 if groups is None else int(groups[i])
    finally:
        pg["palette_sync"] = False
    obj.update_tag()


def set_palette(obj, palette, colours=None) -> None:
    """Store a changed palette (and per-cell indices, when merging) on the nonogram: its puzzle,
    its attributes and its panel property."""
    full = load_full_puzzle(obj)
    if is_colour_puzzle(full):
        raise NonogramError(f"'{obj.name}' is a colour puzzle: its colours are its clues' colours")
    full.palette = np.asarray(palette, np.float32)
    if colours is not None:
        full.colours = np.asarray(colours, np.uint8)
    store_puzzle(obj, full)
    write_colours(obj, full)


# How an edited entry of a colour puzzle's palette re-inks its clues and cubes: set by
# scene/colours_puzzle.py, which needs the scene builder (itself importing this module).
colour_puzzle_entry_changed: Optional[Callable[[Any, Any], None]] = None


def palette_entry_changed(obj) -> None:
    """The panel's palette property was edited: the voxels follow (their colour attribute), and
    a colour puzzle's clues (``colour_puzzle_entry_changed``)."""
    pg = props(obj)
    if pg.get("palette_sync"):
        return
    full = load_full_puzzle(obj)
    if is_colour_puzzle(full):
        if colour_puzzle_entry_changed is not None:
            colour_puzzle_entry_changed(obj, full)
        return
    if full.palette is None or len(pg.palette) != len(full.palette):
        return
    pal = engine_access.colourspace.quantize_srgb([tuple(e.colour) for e in pg.palette])
    full.palette = pal
    store_puzzle(obj, full)
    write_colours(obj, full)
