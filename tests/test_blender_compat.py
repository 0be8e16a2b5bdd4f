"""What differs between the Blender lines (scene/compat.py), checked on the Blender running the
test: the way it decided is the way that works there, and the other way does not; and what a
Make that fails half-way leaves behind is safe to look at (on bpy 5.3 pytest's report of such a
failure died with a segmentation fault)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from blender_support import ROOT, addon, addon_module, bpy  # noqa: F401

pytestmark = pytest.mark.blender

SOCKETS = (("Collection", 'NodeSocketCollection'), ("Size", 'NodeSocketFloat'), ("Count", 'NodeSocketInt'),
           ("On", 'NodeSocketBool'), ("Side", 'NodeSocketVector'))


def _modifier_with_inputs():
    ng = bpy.data.node_groups.new("compat", "GeometryNodeTree")
    ng.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
    ng.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    for name, kind in SOCKETS:
        ng.interface.new_socket(name, in_out='INPUT', socket_type=kind)
    gin, gout = ng.nodes.new("NodeGroupInput"), ng.nodes.new("NodeGroupOutput")
    ng.links.new(gin.outputs[0], gout.inputs[0])
    ob = bpy.data.objects.new("compat", bpy.data.meshes.new("compat"))
    bpy.context.scene.collection.objects.link(ob)
    mod = ob.modifiers.new("Compat", 'NODES')
    mod.node_group = ng
    return ob, mod


def test_modifier_inputs_are_where_this_blender_keeps_them():
    compat = addon_module("scene.compat")
    nodes = addon_module("scene.nodes")
    ob, mod = _modifier_with_inputs()
    ident = nodes.input_id(mod.node_group, "Size")
    # the rule follows what this Blender has, and the other way is refused here
    assert compat.MODIFIER_INPUTS_IN_RNA == (bpy.app.version >= (5, 2, 0))
    if compat.MODIFIER_INPUTS_IN_RNA:
        with pytest.raises(TypeError):
            mod[ident] = 2.0
    else:
        assert not hasattr(mod, "properties")
        assert ident in mod.keys()
    coll = bpy.data.collections.new("glyphs")
    values = {"Collection": coll, "Size": 2.5, "Count": 7, "On": True, "Side": (1.0, -1.0, 1.0)}
    for name, value in values.items():
        nodes.set_modifier_input(mod, name, value)
    for name, value in values.items():
        got = nodes.get_modifier_input(mod, name)
        if name == "Side":
            assert tuple(got) == value
        else:
            assert got == value, name
    # what the panels draw and a driver targets: a path from the object that resolves to it
    owner, prop = nodes.modifier_input_prop(mod, "Size")
    path = nodes.modifier_input_path(mod, "Size")
    assert ob.path_resolve(path) == 2.5 and owner.path_from_id(prop) == path
    fc = ob.driver_add(path)
    fc.driver.expression = "frame"
    bpy.context.scene.frame_set(9)
    assert nodes.get_modifier_input(mod, "Size") == 9.0


def _not_of(flags):
    """Evaluate a Geometry Nodes group that keeps the points whose ``flag`` is false, through
    nodetree.boolean_node(ng, 'NOT', ...): the indices of the points kept."""
    nodetree = addon_module("scene.nodetree")
    mesh = bpy.data.meshes.new("flags")
    mesh.vertices.add(len(flags))
    mesh.vertices.foreach_set("co", np.arange(len(flags) * 3, dtype=np.float32))
    attr = mesh.attributes.new("flag", 'BOOLEAN', 'POINT')
    attr.data.foreach_set("value", np.asarray(flags, dtype=bool))
    ob = bpy.data.objects.new("flags", mesh)
    bpy.context.scene.collection.objects.link(ob)
    ng = bpy.data.node_groups.new("not", "GeometryNodeTree")
    ng.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
    ng.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    gin, gout = ng.nodes.new("NodeGroupInput"), ng.nodes.new("NodeGroupOutput")
    delete = ng.nodes.new("GeometryNodeDeleteGeometry")
    delete.domain = 'POINT'
    ng.links.new(gin.outputs[0], delete.inputs["Geometry"])
    # delete where NOT flag: keeps the flagged points
    ng.links.new(nodetree.boolean_node(ng, 'NOT', nodetree.named_attribute(ng, "flag", 'BOOLEAN')),
                 delete.inputs["Selection"])
    ng.links.new(delete.outputs[0], gout.inputs[0])
    ob.modifiers.new("not", 'NODES').node_group = ng
    ev = ob.evaluated_get(bpy.context.evaluated_depsgraph_get())
    co = np.empty(len(ev.data.vertices) * 3, dtype=np.float32)
    ev.data.vertices.foreach_get("co", co)
    return sorted(int(v) // 3 for v in co[0::3])


def test_a_boolean_not_node_negates_its_one_input():
    """Blender 5.2 gave a NOT node one input (it had a second, unavailable one): wiring a second
    raised IndexError there and Make failed on every model."""
    flags = [True, False, False, True, True, False]
    assert _not_of(flags) == [i for i, f in enumerate(flags) if f]


# A Make whose node building fails (as every Make did on 5.2+ before boolean_node took one input
# for NOT) in a fresh process: then pytest's own report of the error, each call with its
# arguments, is formatted, which read the sockets of the removed node group.
FAILED_MAKE = r"""
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import bpy
from blender_support import load_addon
addon = load_addon()
addon.register()
from nonogram3d import scene
from nonogram3d.scene import nodes
real = nodes.boolean_node

def failing(ng, op, a, b=None):
    out = real(ng, op, a, b)
    if op == 'NOT':
        raise IndexError("bpy_prop_collection[index]: index 1 out of range, size 1")
    return out

nodes.boolean_node = failing
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add()
before = len(bpy.data.node_groups), len(bpy.data.objects)
try:
    scene.make_nonogram(bpy.context, bpy.context.active_object, resolution=4)
    sys.exit("Make did not fail")
except IndexError as e:
    error = e
frames, tb = [], error.__traceback__
while tb is not None:
    code = tb.tb_frame.f_code
    structs = sorted(k for k, v in tb.tb_frame.f_locals.items() if isinstance(v, bpy.types.bpy_struct))
    frames.append([code.co_name, structs])
    tb = tb.tb_next
from _pytest._code import ExceptionInfo
report = str(ExceptionInfo.from_exception(error).getrepr(style="long", funcargs=True))
print("RESULT " + json.dumps({"frames": frames, "report": "IndexError: bpy_prop_collection" in report,
                              "left": [len(bpy.data.node_groups), len(bpy.data.objects)] == list(before)}))
"""


def test_a_make_that_fails_half_way_leaves_no_dangling_struct_in_its_error():
    proc = subprocess.run([sys.executable, "-c", FAILED_MAKE, str(ROOT), str(ROOT / "tests")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))[7:])
    assert got["report"] and got["left"]
    frames = dict(got["frames"])
    assert "failing" in frames and "label_group" in frames
    # the frames below the one that removed the half-built nonogram hold no bpy struct
    below = [name for name, _ in got["frames"]]
    below = below[below.index("build_from_puzzle") + 1:]
    assert below and all(frames[name] == [] for name in below), got["frames"]
