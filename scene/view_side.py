"""The side the designer looks at a nonogram from, followed as the 3D View turns.

The designer's view cuts away the layers between the clue layer and the viewer and puts the
layer's labels at the lines' far ends; with every clue shown, the labels float in front of the
faces the viewer sees (``layers.py``). Which side that is, per axis, comes from the 3D View:
its eye (perspective), its view direction (orthographic), or the scene camera when the view
looks through it. A timer compares that side with the one the nonogram's two designer
modifiers were given (their "View Side" input) a few times a second and writes it only when it
changed: the node groups then only re-evaluate (no geometry is rebuilt, nothing happens per
frame).

With several 3D Views, the largest of each window decides (where a designer works).
"""
from __future__ import annotations

from typing import Optional

import bpy
import numpy as np

from .common import LABEL_GROUP, VOXEL_GROUP
from .nodes import DEFAULT_VIEW_SIDE, get_modifier_input, set_modifier_input
from .player import _modifier, current_view
from .store import props

INTERVAL = 0.2  # seconds between two looks at the view: a turn shows within a fifth of a second


def side_of(obj) -> tuple:
    """The side (+1.0 or -1.0 per axis) ``obj``'s designer view is drawn for: its voxel
    modifier's "View Side", or the default camera's side for nonograms built before it."""
    mod = _modifier(obj, VOXEL_GROUP)
    if mod is not None:
        try:
            return tuple(1.0 if v >= 0 else -1.0 for v in get_modifier_input(mod, "View Side"))
        except KeyError:  # node groups made before the view side
            pass
    return tuple(DEFAULT_VIEW_SIDE)


def set_view_side(obj, side) -> bool:
    """Draw ``obj``'s designer view for ``side``; True when it changed (only then are the
    modifiers' inputs written, which re-evaluates them)."""
    side = tuple(1.0 if v >= 0 else -1.0 for v in side)
    changed = False
    targets = [_modifier(obj, VOXEL_GROUP)]
    labels = props(obj).labels
    if labels is not None:
        targets.append(_modifier(labels, LABEL_GROUP))
    for mod in targets:
        if mod is None:
            continue
        try:
            if tuple(get_modifier_input(mod, "View Side")) != side:
                set_modifier_input(mod, "View Side", side)
                changed = True
        except KeyError:
            continue
    return changed


def side_from(obj, eye=None, direction=None, current=None) -> tuple:
    """The side of ``obj``'s grid a viewer is on, per axis, from the viewer's world position
    ``eye`` (perspective) or the world direction pointing from the scene towards the viewer
    (``direction``, orthographic). An axis the viewer is level with keeps its ``current``
    side (no flicker when looking straight along another axis)."""
    current = tuple(current or DEFAULT_VIEW_SIDE)
    m = np.array(obj.matrix_world, dtype=np.float64)
    inv = np.linalg.inv(m)
    if eye is not None:
        centre = np.asarray(props(obj).shape, dtype=np.float64) / 2
        d = inv[:3, :3] @ np.asarray(eye, dtype=np.float64) + inv[:3, 3] - centre
    else:
        d = inv[:3, :3] @ np.asarray(direction, dtype=np.float64)
    tol = 1e-6 * max(1.0, float(np.abs(d).max()))
    return tuple(float(np.sign(v)) if abs(v) > tol else float(c) for v, c in zip(d, current))


def viewer(area, scene) -> tuple:
    """(eye, direction) of a 3D View area: one of them None. Through the camera: the scene
    camera's; else the view's own, from its rotation, pivot and distance (what its
    ``view_matrix`` is made of, and current before the next redraw)."""
    from mathutils import Vector
    rv3d = area.spaces.active.region_3d
    if rv3d.view_perspective == 'CAMERA' and scene.camera is not None:
        mw = scene.camera.matrix_world
        if getattr(scene.camera.data, "type", 'PERSP') == 'ORTHO':
            return None, tuple(mw.col[2][:3])
        return tuple(mw.translation), None
    back = rv3d.view_rotation @ Vector((0.0, 0.0, 1.0))  # the view looks along its -Z
    if rv3d.view_perspective == 'ORTHO':
        return None, tuple(back)
    return tuple(rv3d.view_location + back * rv3d.view_distance), None


def largest_view3d(screen) -> Optional[object]:
    areas = [a for a in screen.areas if a.type == 'VIEW_3D'] if screen is not None else []
    return max(areas, key=lambda a: a.width * a.height, default=None)


def follow_view(window_manager=None) -> int:
    """Bring every nonogram in the designer's view up to the side the largest 3D View of its
    window looks from; the number of nonograms whose side changed."""
    wm = window_manager or bpy.context.window_manager
    changed = 0
    for window in getattr(wm, "windows", ()):
        area = largest_view3d(window.screen)
        scene = window.scene
        if area is None or scene is None:
            continue
        eye, direction = viewer(area, scene)
        for obj in scene.objects:
            if obj.type != 'MESH' or not props(obj).is_nonogram or current_view(obj) != 'DESIGNER':
                continue
            side = side_from(obj, eye, direction, side_of(obj))
            changed += set_view_side(obj, side)
    return changed


def _tick():
    try:
        follow_view()
    except (ReferenceError, AttributeError, RuntimeError):  # a window or scene going away
        pass
    return INTERVAL


def register():
    if not bpy.app.timers.is_registered(_tick):
        bpy.app.timers.register(_tick, first_interval=INTERVAL, persistent=True)


def unregister():
    if bpy.app.timers.is_registered(_tick):
        bpy.app.timers.unregister(_tick)
