"""The designer's clue layer: which clues the designer's view draws, and where.

Every clue of a 24³ grid at once (over a thousand floating labels before three faces) is a
cloud that hides the model. A designer reads a 3D nonogram the way it is solved, a layer at a
time, so the designer's view shows the clues of one layer (*Clue Layer* in the View panel: an
axis and a layer; or every clue, as before): the layers between it and the viewer are cut away,
so the layer's cells are the exposed face, and the labels of the layer's lines stand in two rows
beside it, each at the line's far end (away from the viewer, beyond the grid), just past the
exposed face. So a label never covers a cube (behind it there is nothing but space beyond the
grid), the layer's own cubes never cover a label, and the two rows, one voxel apart and facing
the camera, have their labels scaled to the room the row leaves between neighbours as seen from
the active camera, so they never overlap. With every clue shown, each label floats in front of
its line's end facing the viewer.

The viewer's side (+1 or -1 per axis) is the modifiers' "View Side" input: ``view_side.py``
sets it to the side the 3D View looks from and follows it when the view turns; without it, the
side of Blender's default camera (+X, -Y, +Z: ``nodes.DEFAULT_VIEW_SIDE``).

The Geometry Nodes in ``nodes.py`` (``_layer_labels``, ``_not_cut_by_layer``) draw this; the
numpy functions here give the same positions for picking and tests.
"""
from __future__ import annotations

import numpy as np

from .common import LABEL_GROUP, VOXEL_GROUP
from .nodes import (DEFAULT_VIEW_SIDE, FLOATING_LABEL_GAP, LAYER_LABEL_LIFT, get_modifier_input,
                    set_modifier_input)
from .player import _modifier
from .store import props

LAYER_AXES = ('ALL', 'X', 'Y', 'Z')


def default_layer(shape) -> tuple:
    """(axis, layer) a new nonogram opens with: the middle layer across the grid's shortest
    side (its largest cross-sections: a horse's side view, a teapot's profile)."""
    a = int(np.argmin(shape))  # ties: the first, x
    return "XYZ"[a], int(shape[a]) // 2


def layer_label_positions(far, axis: str, layer: int, points=None, side=DEFAULT_VIEW_SIDE):
    """(local positions (n, 3), drawn: bool (n,)) of the clue labels in the designer's view
    seen from ``side`` (+1/-1 per axis), from the clue points' ``far`` cells (n, 3) and their
    own positions ``points`` (n, 3; needed when ``side`` is not the default one). With axis
    'ALL' and no ``points``: None (the points' own positions, all drawn)."""
    far = np.asarray(far, dtype=np.float64)
    side = np.sign(np.asarray(side, dtype=np.float64))
    flip = side != np.asarray(DEFAULT_VIEW_SIDE)
    if points is None:
        if flip.any():
            raise ValueError("the clue points' positions are needed for another side")
        if axis == 'ALL':
            return None, np.ones(len(far), dtype=bool)
        near = far
        line_axis = np.zeros(len(far), dtype=np.int64)
    else:
        near = np.floor(np.asarray(points, dtype=np.float64))
        line_axis = np.argmax(far != near, axis=1)  # the one coordinate far and near differ in
    swap = flip[line_axis][:, None]
    away, toward = np.where(swap, near, far), np.where(swap, far, near)
    rows = np.arange(len(far))
    if axis == 'ALL':
        pos = toward + 0.5
        pos[rows, line_axis] += FLOATING_LABEL_GAP * side[line_axis]
        return pos, np.ones(len(far), dtype=bool)
    a = "XYZ".index(axis)
    pos = away + 0.5
    pos[:, a] += LAYER_LABEL_LIFT * side[a]
    return pos, far[:, a] == int(layer)


def kept_by_layer(shape, axis: str, layer: int, side=DEFAULT_VIEW_SIDE) -> np.ndarray:
    """Bool per cell (puzzle cell order): does the designer's view, seen from ``side``, keep it
    (not cut away)?"""
    X, Y, Z = shape
    keep = np.ones((X, Y, Z), dtype=bool)
    if axis != 'ALL':
        a = "XYZ".index(axis)
        idx = np.arange(shape[a]).reshape([-1 if i == a else 1 for i in range(3)])
        keep &= np.sign(side[a]) * (idx - int(layer)) < 0.5
    return keep.ravel()


def clue_layer(obj) -> tuple:
    """(axis, layer) the designer's view shows ('ALL', 0 for every clue)."""
    pg = props(obj)
    return pg.clue_layer_axis, int(pg.clue_layer)


def set_clue_layer(obj, axis: str, layer: int) -> None:
    """Show the clues of ``layer`` along ``axis`` ('X', 'Y', 'Z'; clamped to the grid), or every
    clue ('ALL'), in the designer's view. Stored on the object (``clue_layer_axis``,
    ``clue_layer``; their update writes the modifiers' inputs)."""
    if axis not in LAYER_AXES:
        raise ValueError(axis)
    pg = props(obj)
    if pg.clue_layer_axis != axis:
        pg.clue_layer_axis = axis
    if int(pg.clue_layer) != int(layer):
        pg.clue_layer = int(layer)
    apply_clue_layer(obj)


def apply_clue_layer(obj) -> None:
    """Write the stored clue layer into the designer's two modifiers (the cubes' cut and the
    labels). Nonograms whose node groups predate the clue layer are left as they are."""
    pg = props(obj)
    axis = pg.clue_layer_axis
    shape = tuple(pg.shape)
    a = LAYER_AXES.index(axis)
    layer = 0 if a == 0 else min(max(int(pg.clue_layer), 0), max(int(shape[a - 1]) - 1, 0))
    targets = [_modifier(obj, VOXEL_GROUP)]
    if pg.labels is not None:
        targets.append(_modifier(pg.labels, LABEL_GROUP))
    for mod in targets:
        if mod is None:
            continue
        try:
            if get_modifier_input(mod, "Layer Axis") != a or get_modifier_input(mod, "Layer") != layer:
                set_modifier_input(mod, "Layer Axis", a)
                set_modifier_input(mod, "Layer", layer)
        except KeyError:
            continue
