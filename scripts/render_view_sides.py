"""Render the designer's view of shared models from two sides, the view side following the
camera as it follows the 3D View in Blender (scene/view_side.py): one PNG per model and side.

    .venv/bin/python scripts/render_view_sides.py --out /tmp/view_sides [--res 24] [--size 400]
        [--models horse.ply teapot.obj ...] [--layer all|default]

Each model is made into a nonogram at ``--res`` (Make's defaults), shown in the designer's view
on its default clue layer (``--layer all``: every clue), and rendered with Cycles (CPU) from
Blender's default camera direction (+X, -Y, +Z) and from the opposite side in X and Y
(-X, +Y, +Z), the view side set as the timer sets it while looking through the camera.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT.parent / "shared" / "models"
DEFAULT_MODELS = ("horse.ply", "jeep.obj", "stanford_bunny.obj", "teapot.obj", "torus_knot.obj")
SIDES = {"front": (7.36, -6.93, 4.96), "back": (-7.36, 6.93, 4.96)}


def _import(bpy, path: Path):
    before = set(bpy.data.objects)
    ext = path.suffix.lower()
    if ext == ".ply":
        bpy.ops.wm.ply_import(filepath=str(path))
    elif ext == ".obj":
        bpy.ops.wm.obj_import(filepath=str(path))
    else:
        bpy.ops.import_scene.gltf(filepath=str(path))
    return [o for o in bpy.data.objects if o not in before and o.type == 'MESH']


def _camera(bpy, obj, direction):
    from mathutils import Vector
    shape = [float(v) for v in obj.nonogram.shape]
    centre = obj.matrix_world @ Vector([v / 2 for v in shape])
    radius = math.sqrt(sum((v / 2) ** 2 for v in shape)) * obj.scale[0]
    cam = bpy.context.scene.camera
    if cam is None:
        cam = bpy.data.objects.new("View Side Camera", bpy.data.cameras.new("View Side Camera"))
        bpy.context.scene.collection.objects.link(cam)
        bpy.context.scene.camera = cam
    d = Vector(direction).normalized()
    distance = radius / math.sin(cam.data.angle / 2) * 1.1
    cam.location = centre + d * distance
    cam.rotation_euler = (-d).to_track_quat('-Z', 'Y').to_euler()
    cam.data.clip_start, cam.data.clip_end = distance * 1e-3, distance + radius * 3
    bpy.context.view_layer.update()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--res", type=int, default=24)
    ap.add_argument("--size", type=int, default=400)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--models", nargs="*", default=list(DEFAULT_MODELS))
    ap.add_argument("--layer", choices=("default", "all"), default="default")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests"))
    import bpy
    import blender_support as bs
    bs.ensure_registered()
    scene_mod = sys.modules[bs.PACKAGE + ".scene"]
    os.makedirs(args.out, exist_ok=True)
    for name in args.models:
        path = MODELS / name
        if not path.exists():
            print(f"skipped {name}: not in {MODELS}")
            continue
        bpy.ops.wm.read_factory_settings(use_empty=True)
        meshes = _import(bpy, path)
        for o in bpy.context.selected_objects:
            o.select_set(False)
        for o in meshes:
            o.select_set(True)
        bpy.context.view_layer.objects.active = meshes[0]
        bpy.context.scene.nonogram_settings.resolution = args.res
        assert bpy.ops.nonogram.make() == {'FINISHED'}
        obj = bpy.context.active_object
        scene_mod.set_view(obj, 'DESIGNER')
        if args.layer == "all":
            scene_mod.set_clue_layer(obj, 'ALL', 0)
        for src in meshes:
            src.hide_render = True
        world = bpy.context.scene.world or bpy.data.worlds.new("World")
        bpy.context.scene.world = world
        world.color = (0.35, 0.35, 0.37)  # both sides lit alike: the back is not left in shadow
        bg = world.node_tree.nodes.get("Background") if world.node_tree is not None else None
        if bg is not None:
            bg.inputs["Color"].default_value = (0.35, 0.35, 0.37, 1.0)
        sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", 'SUN'))
        sun.data.energy = 2.0
        sun.rotation_euler = (0.0, 0.0, 0.0)  # from straight above
        bpy.context.scene.collection.objects.link(sun)
        render = bpy.context.scene.render
        render.engine = 'CYCLES'
        bpy.context.scene.cycles.device = 'CPU'
        bpy.context.scene.cycles.samples = args.samples
        render.resolution_x = render.resolution_y = args.size
        area = next(a for a in bpy.context.window_manager.windows[0].screen.areas if a.type == 'VIEW_3D')
        area.spaces.active.region_3d.view_perspective = 'CAMERA'
        for side, direction in SIDES.items():
            _camera(bpy, obj, direction)
            scene_mod.follow_view()  # what the add-on's timer does while the view looks through it
            out = os.path.join(args.out, f"{path.stem}_{args.res}_{side}.png")
            render.filepath = out
            bpy.ops.render.render(write_still=True)
            print(f"{out}: shape {tuple(obj.nonogram.shape)}, layer {obj.nonogram.clue_layer_axis}"
                  f"={obj.nonogram.clue_layer}, view side {scene_mod.side_of(obj)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
