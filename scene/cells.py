"""Solver results on the cell points: states, highlights and the solve animation."""
from __future__ import annotations

import bpy
import numpy as np

from .attributes import get_point_attribute, set_point_attribute
from .common import EMPTY, TAG, UNKNOWN, VOXEL_GROUP, NonogramError
from .nodes import modifier_input_path, set_modifier_input
from .store import cells_mesh


def apply_solve_result(obj: bpy.types.Object, report) -> None:
    """Write a SolveReport's per-cell results into the point attributes."""
    mesh = cells_mesh(obj)
    n = len(mesh.vertices)
    state = np.asarray(report.state, dtype=np.int32).ravel()
    if state.size != n:
        raise NonogramError(f"the solver returned {state.size} cells for a {n}-cell nonogram")
    rank = np.full(n, -1, dtype=np.int32)
    order = np.asarray(report.order, dtype=np.int64).ravel()
    rank[order] = np.arange(order.size, dtype=np.int32)
    differs = np.zeros(n, dtype=bool)
    diff = np.asarray(report.differing_cells, dtype=np.int64).ravel()
    differs[diff] = True
    set_point_attribute(mesh, "state", state)
    set_point_attribute(mesh, "solve_rank", rank)
    set_point_attribute(mesh, "differs", differs, 'BOOLEAN')
    set_point_attribute(mesh, "visible", state != EMPTY, 'BOOLEAN')
    set_point_attribute(mesh, "highlight", np.zeros(n, dtype=bool), 'BOOLEAN')
    set_point_attribute(mesh, "known_at", np.zeros(n), 'INT')
    _drive_frame(obj, False)
    obj.update_tag()


def show_cells(obj: bpy.types.Object, mode: str) -> int:
    """'UNDECIDED': only the cells logic left unknown or where two solutions differ, highlighted
    (when there are none the view is left as it is: hiding every cube would say nothing);
    'CHANGES': the answer, with the cells Make's piece options added highlighted (removed cells
    are empty cells of the answer: the make info counts them);
    'RESULT': every cell that is not known empty. Returns the number of cells marked
    (UNDECIDED, CHANGES) or shown (RESULT)."""
    mesh = cells_mesh(obj)
    if mode == 'CHANGES':
        repair = get_point_attribute(mesh, "repair")
        if repair is None:
            return 0
        mark = repair > 0
        visible = get_point_attribute(mesh, "solution").astype(bool)
        set_point_attribute(mesh, "visible", visible, 'BOOLEAN')
        set_point_attribute(mesh, "highlight", mark, 'BOOLEAN')
        obj.update_tag()
        return int(mark.sum())
    state = get_point_attribute(mesh, "state")
    differs = get_point_attribute(mesh, "differs")
    if differs is None:
        differs = np.zeros_like(state, dtype=bool)
    if mode == 'UNDECIDED':
        mark = (state == UNKNOWN) | differs
        if not mark.any():
            return 0
        visible = mark
    else:
        mark = np.zeros_like(differs)
        visible = state != EMPTY
    set_point_attribute(mesh, "visible", visible, 'BOOLEAN')
    set_point_attribute(mesh, "highlight", mark, 'BOOLEAN')
    obj.update_tag()
    return int(visible.sum())


def animate_solve(scene: bpy.types.Scene, obj: bpy.types.Object, *, start: int = 1,
                  duration: int = 120) -> int:
    """Per-cell ``known_at`` frames in solver order (frame-driven in Geometry Nodes); returns the
    number of animated cells. Cells the solver never decided keep ``known_at`` 0."""
    mesh = cells_mesh(obj)
    rank = get_point_attribute(mesh, "solve_rank")
    if rank is None:
        raise NonogramError("solve the nonogram first: there is no solver order to animate")
    known = rank >= 0
    n_known = int(known.sum())
    known_at = np.zeros(rank.size, dtype=np.int64)
    if n_known:
        steps = max(int(duration), 1)
        known_at[known] = start + 1 + (rank[known].astype(np.int64) * steps) // max(n_known, 1)
    set_point_attribute(mesh, "known_at", known_at)
    # Cells known before the animation ends must be visible while they are pending.
    state = get_point_attribute(mesh, "state")
    set_point_attribute(mesh, "visible", state != EMPTY, 'BOOLEAN')
    set_point_attribute(mesh, "highlight", np.zeros(rank.size, dtype=bool), 'BOOLEAN')
    _drive_frame(obj, True)
    scene.frame_start = start
    scene.frame_end = start + int(duration) + 1
    scene.frame_set(start)
    obj.update_tag()
    return n_known


def _voxel_modifier(obj):
    for mod in obj.modifiers:
        group = getattr(mod, "node_group", None)
        if group is not None and group.get(TAG + "_role") == VOXEL_GROUP:
            return mod
    raise NonogramError(f"'{obj.name}' has lost its '{VOXEL_GROUP}' modifier")


def _drive_frame(obj: bpy.types.Object, on: bool) -> None:
    """Drive (or stop driving) the voxel modifier's Frame input with the scene frame. A plain
    ``frame`` expression is a simple expression: it runs even with Python scripts disabled."""
    mod = _voxel_modifier(obj)
    path = modifier_input_path(mod, "Frame")
    obj.driver_remove(path)
    if on:
        fc = obj.driver_add(path)
        fc.driver.type = 'SCRIPTED'
        fc.driver.expression = "frame"
    else:
        set_modifier_input(mod, "Frame", 0.0)


def clear_animation(obj: bpy.types.Object) -> None:
    set_point_attribute(cells_mesh(obj), "known_at", np.zeros(len(cells_mesh(obj).vertices)), 'INT')
    _drive_frame(obj, False)
    obj.update_tag()
