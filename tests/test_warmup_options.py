"""The warm-up covers every option of every operator (issue #22 item 6): in a fresh process,
after the add-on's warm-up parts, Make with every combination of its options (the thin-part
choices, anti-aliasing 1..8 samples, one axis or three, the piece filters, several shells) and
the design operators (Hide Clues' methods and logics, a band, the live check, Suggest Clue,
Repair) add no kernel signature: nothing compiles (or loads) after the warm-up. A signature is
what a compile (or a cache load) adds, so the count does not depend on the cache being empty."""
import json

import pytest

from conftest import run_python

pytest.importorskip("numba")

CODE = r"""
import itertools, json, sys
import numpy as np
from numba.core.registry import CPUDispatcher
from engine import warmup

def signatures():
    out = {}
    for name, mod in list(sys.modules.items()):
        if name == "engine" or name.startswith("engine."):
            for value in vars(mod).values():
                if isinstance(value, CPUDispatcher):
                    key = value.py_func.__module__ + "." + value.py_func.__qualname__
                    out[key] = set(map(str, value.signatures))
    return out

# what the add-on warms up when it is enabled, and what Hide Clues / the live check ensure
warmup.ensure("make", "solve", "design")
before = signatures()

from engine.model.clues import puzzle_from_grid
from engine.voxel.voxelize import voxelize
from engine.warmup import _cube_mesh

def merged(*meshes):
    off = np.cumsum([0] + [len(v) for v, _ in meshes[:-1]])
    return (np.concatenate([v for v, _ in meshes]),
            np.concatenate([t + o for (_, t), o in zip(meshes, off)]))

# not the warm-up's mesh: a tower with a hollow, two loose cubes, a thin fin and a thin rod
mesh = merged(_cube_mesh((0, 0, 0), (3, 3, 6)), _cube_mesh((1, 1, 1), (2, 2, 4), inward=True),
              _cube_mesh((5, 0, 0), (6, 1, 1)), _cube_mesh((5, 5, 5), (5.5, 5.5, 5.5)),
              _cube_mesh((0, 3, 0), (3, 3.04, 5)), _cube_mesh((1.4, 1.4, 6), (1.45, 1.45, 8)))
# Make's options (panels/properties.py MakeOptions; THIN_PARTS_OPTIONS gives bridge, thin_parts)
thin = [(False, False), (True, False), (True, True)]
runs = 0
for (bridge, thin_parts), samples, robust, (min_piece, keep_largest) in itertools.product(
        thin, range(1, 9), (True, False), ((0, False), (3, False), (0, True))):
    r = voxelize(*mesh, resolution=9, samples=samples, threshold=0.4 if samples > 1 else 0.5,
                 robust=robust, bridge=bridge, thin_parts=thin_parts, min_piece=min_piece,
                 keep_largest=keep_largest)
    puzzle_from_grid(r.grid)
    runs += 1

# the design operators on the voxelized model
from engine.design.hiding import design
from engine.design.session import DesignSession
g = voxelize(*mesh, resolution=9).grid
for logic in ("line", "probe"):
    for method in ("greedy", "anneal", "random"):
        design(g, logic=logic, method=method, anneal_moves=30)
for band in ("easy", "hard", "expert"):
    design(g, band=band, anneal_moves=30)
s = DesignSession(g)
h = np.zeros(s.n_lines, bool)
h[::2] = True
for logic in ("line", "probe"):
    s.check(h, logic, search_time=2.0)
    s.suggest(h, logic)
    s.repair(h, logic)
after = signatures()
new = {k: sorted(v - before.get(k, set())) for k, v in after.items() if v - before.get(k, set())}
print(json.dumps({"runs": runs, "new": new}))
"""


def test_every_option_of_make_and_design_compiles_nothing_after_the_warm_up():
    proc = run_python(CODE, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["runs"] == 3 * 8 * 2 * 3
    assert got["new"] == {}, f"kernels compiled after the warm-up: {got['new']}"
