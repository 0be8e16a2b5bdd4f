"""Finding the clue under the mouse: where each clue is drawn in the current view, and the
nearest one to a point of the 3D View's region (numpy, so it stays instant at 64³)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .nodes import get_modifier_input
from .player import current_view, kept_block, player_modifier
from .store import props
from .attributes import object_point_attribute
from .hidden import clue_lines
from .layers import clue_layer, layer_label_positions
from .view_side import side_of


def label_anchors(obj):
    """(world positions (n, 3), outward normals (n, 3) or None, line of each) of every clue the
    current view draws or leaves blank: the designer's floating labels, or the end faces of the
    player's kept block (hidden clues there are blank faces, still pickable)."""
    lines = clue_lines(obj)
    if current_view(obj) == 'DESIGNER':
        labels = props(obj).labels
        co = np.empty(len(labels.data.vertices) * 3, dtype=np.float64)
        labels.data.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        # only the clue layer's labels are drawn, at their far ends (layers.py)
        far = [object_point_attribute(labels, f"far_{a}") for a in "xyz"]
        if all(f is not None for f in far):
            pos, drawn = layer_label_positions(np.stack(far, axis=1), *clue_layer(obj), points=co,
                                               side=side_of(obj))
            if pos is not None:
                co = pos
            co, lines = co[drawn], lines[drawn]
        return _world(labels.matrix_world, co), None, lines
    mod = player_modifier(obj)
    shape = tuple(props(obj).shape)
    slices = [get_modifier_input(mod, f"Slice {a}") for a in "XYZ"]
    half = float(get_modifier_input(mod, "Cube Size")) / 2
    lo, hi = kept_block(shape, slices)
    X, Y, Z = shape
    axis = np.repeat([0, 1, 2], [Y * Z, X * Z, X * Y])[lines]
    # the two coordinates a line keeps fixed, from its index within its axis
    base = np.array([0, Y * Z, Y * Z + X * Z])[axis]
    k = lines - base
    inner = np.array([Z, Z, Y])[axis]
    a, b = k // inner, k % inner
    fixed_axes = np.array([[1, 2], [0, 2], [0, 1]])[axis]
    pos, nrm, out_lines = [], [], []
    for end in (-1, 1):
        cell = np.zeros((len(lines), 3))
        rows = np.arange(len(lines))
        cell[rows, fixed_axes[:, 0]] = a
        cell[rows, fixed_axes[:, 1]] = b
        cell[rows, axis] = np.where(end < 0, np.asarray(lo)[axis], np.asarray(hi)[axis])
        inside = np.all((cell >= lo) & (cell <= hi), axis=1)
        normal = np.zeros((len(lines), 3))
        normal[rows, axis] = end
        p = cell + 0.5 + normal * half
        pos.append(p[inside])
        nrm.append(normal[inside])
        out_lines.append(lines[inside])
    mw = np.array(obj.matrix_world)
    world = _world(obj.matrix_world, np.concatenate(pos))
    normals = np.concatenate(nrm) @ np.linalg.inv(mw[:3, :3])  # normals: inverse transpose
    return world, normals, np.concatenate(out_lines)


def _world(matrix, local):
    m = np.array(matrix)
    return local @ m[:3, :3].T + m[:3, 3]


def pick_label(positions, normals, lines, perspective_matrix, view_matrix, is_perspective: bool,
               size, mouse, radius: float = 24.0) -> Optional[int]:
    """The line whose label is drawn nearest to ``mouse`` (region pixels) within ``radius``
    pixels; labels on faces turned away from the viewer do not count; the one nearest the
    viewer wins ties. None when nothing is near."""
    if len(positions) == 0:
        return None
    p = np.asarray(positions, dtype=np.float64)
    clip = np.c_[p, np.ones(len(p))] @ np.array(perspective_matrix).T
    w = clip[:, 3]
    ok = w > 1e-9
    xy = np.empty((len(p), 2))
    xy[ok] = clip[ok, :2] / w[ok, None]
    px = (xy + 1.0) * 0.5 * np.asarray(size, dtype=np.float64)
    if normals is not None:
        view_inv = np.linalg.inv(np.array(view_matrix))
        if is_perspective:
            to_label = p - view_inv[:3, 3]
        else:
            to_label = np.broadcast_to(-view_inv[:3, 2], p.shape)
        ok &= np.einsum("ij,ij->i", np.asarray(normals), to_label) < 0
    d = np.hypot(*(px - np.asarray(mouse, dtype=np.float64)).T)
    ok &= d <= radius
    if not ok.any():
        return None
    idx = np.flatnonzero(ok)
    # the nearest on screen; among labels as near as that (within 2 px), the nearest the viewer
    near = idx[d[idx] <= d[idx].min() + 2.0]
    return int(lines[near[np.argmin(w[near])]])
