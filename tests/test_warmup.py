"""Compiling ahead (engine/warmup.py): what it compiles is what real calls use, solve() keeps
compilation out of time_s, and a DP session never compiles the seed's code."""
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from conftest import ROOT
from engine import warmup
from engine.voxel.blobs import blob_puzzle
from engine.voxel.blobs import blob_grid
from engine.model.clues import puzzle_from_grid
from engine.design.hiding import design
from engine.design.session import DesignSession
from engine.model.puzzle import make_2d
from engine.solve.driver import solve

numba = pytest.importorskip("numba")


def _signatures():
    from numba.core.registry import CPUDispatcher
    out = {}
    for name, mod in list(sys.modules.items()):
        if name == "engine" or name.startswith("engine."):
            for attr, value in vars(mod).items():
                if isinstance(value, CPUDispatcher):
                    out[(value.py_func.__module__, value.py_func.__qualname__)] = set(map(str, value.signatures))
    return out


def _real_solves():
    """Puzzles of every kind the add-on and the CLI meet, solved the ways they solve them."""
    rng = np.random.default_rng(3)
    yield solve(blob_puzzle((9, 9, 9), seed=2))
    yield solve(blob_puzzle((9, 9, 9), seed=3, hidden_fraction=0.3), time_limit=5)
    yield solve(blob_puzzle((9, 9, 9), seed=4, hidden_fraction=0.3), use_known=False, time_limit=5,
                progress=lambda f, m: False)
    yield solve(puzzle_from_grid(rng.random((12, 11)) < 0.5), cache=False)
    yield solve(make_2d([[1]] * 5, [[1]] * 5), step_limit=10_000)
    # 3D noise without its solution: the quick search stalls and the local search walks
    yield solve(puzzle_from_grid(np.random.default_rng(1).random((8, 8, 8)) < 0.35), use_known=False)
    line = np.zeros((1, 1, 300), bool)
    line[0, 0, rng.random(300) < 0.5] = True
    yield solve(puzzle_from_grid(line), time_limit=5)
    yield solve(puzzle_from_grid(line[0]), time_limit=5)


def test_real_solves_compile_nothing_after_the_warm_up(monkeypatch):
    warmup.ensure(*warmup.DEFAULT_PARTS)
    before = _signatures()
    verdicts = [r.verdict for r in _real_solves()]
    assert "multiple" in verdicts and "unique" in verdicts
    # the CDCL fallback's encoding too (it takes over at the first guess here, as on hard puzzles)
    import engine.solve.search as search
    from engine.kinds.plain.sat import HAVE_SAT
    monkeypatch.setattr(search, "SAT_AFTER_STEPS", 0)
    r = solve(puzzle_from_grid(np.random.default_rng(4).random((15, 15)) < 0.5), use_known=False)
    assert r.verdict in ("unique", "multiple") and (r.stats["sat_conflicts"] >= 0) == HAVE_SAT
    after = _signatures()
    new = {k: v - before.get(k, set()) for k, v in after.items() if v - before.get(k, set())}
    assert not new, f"kernels compiled after the warm-up: {new}"


def test_solve_keeps_compilation_out_of_time_s(monkeypatch):
    warmup.ensure("solve")  # the real kernels, so only the stand-in below is timed
    spent = []

    def slow_ensure(*parts):
        spent.append(parts)
        time.sleep(0.4)
        return 0.4
    monkeypatch.setattr(warmup.gate, "ensure", slow_ensure)
    monkeypatch.setattr(warmup.gate, "ready", lambda *parts: False)
    messages = []
    # two solutions: line solving leaves every cell open, so the search's kernels load on the way
    r = solve(make_2d([[1], [1]], [[1], [1]]), progress=lambda f, m: messages.append(m) or False)
    assert spent == [("lines",), ("solve",)]
    assert r.stats["compile_s"] == 0.8 and r.time_s < 0.4 and r.verdict == "multiple"
    assert messages[0] == "preparing solver" and messages.count("preparing solver") == 2
    # cancelled while it would compile: nothing is compiled, nothing is solved
    r = solve(make_2d([[1], [1]], [[1], [1]]), progress=lambda f, m: True)
    assert r.verdict == "unknown" and r.stats["cancelled"] and len(spent) == 2
    # cancelled before the search's kernels: line solving's result, nothing more compiled
    seen = []
    r = solve(make_2d([[1], [1]], [[1], [1]]), progress=lambda f, m: seen.append(m) or seen.count(m) >= 2)
    assert r.verdict == "unknown" and r.stats["cancelled"] and spent[2:] == [("lines",)]
    assert r.stats["compile_s"] == 0.4


def _real_designs():
    """Hide Clues with the options the add-on offers, the live check and Suggest Clue."""
    g = blob_grid((7, 6, 5), seed=8, fill=0.45)
    yield design(g)
    yield design(g, logic="probe", band="medium", time_limit=5)
    yield design(g, method="anneal", anneal_moves=5, time_limit=5)
    yield design(g, method="random", band="easy", time_limit=5)
    s = DesignSession(g)
    hidden = np.random.default_rng(0).random(s.n_lines) < 0.6
    for logic in ("line", "probe"):
        yield s.check(hidden, logic, search_time=1.0)
        yield s.suggest(hidden, logic, k=2)


# The start of a script run in a process of its own (the checkout in argv[1]): ``compiled()``,
# the kernels (module, name, signature) numba compiled in it so far (its cache misses).
COMPILED_IN_PROCESS = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/tests")
from numba.core.registry import CPUDispatcher
from engine import warmup


def compiled():
    return {(v.py_func.__module__, v.py_func.__qualname__, str(sig))
            for m in list(sys.modules.values()) if (m.__name__ or "").startswith("engine.")
            for v in vars(m).values() if isinstance(v, CPUDispatcher)
            for sig, n in v._cache_misses.items() if n}
"""

DESIGNS_AFTER_WARM_UP = COMPILED_IN_PROCESS + r"""
import test_warmup

warmup.ensure("solve", "design")
before = compiled()
assert all(r is not None for r in test_warmup._real_designs())
print(json.dumps(sorted(map(list, compiled() - before))))
"""


def test_real_designs_compile_nothing_after_the_design_warm_up(tmp_path):
    """In a process of its own with an empty cache: with a filled one, the warm-up loads kernels
    whole from it, and the kernels they call get no signature of their own until Python calls
    them, which a count of signatures would take for compiling (and which would hide a kernel
    the warm-up missed, loaded from an earlier run's cache). Counted: compilations (numba's
    cache misses)."""
    out = subprocess.run([sys.executable, "-c", DESIGNS_AFTER_WARM_UP, str(ROOT)], capture_output=True,
                         text=True, timeout=900, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-3000:]
    new = json.loads(out.stdout.strip().splitlines()[-1])
    assert not new, f"kernels compiled after the warm-up: {new}"


def test_design_keeps_compilation_out_of_time_s(monkeypatch):
    warmup.ensure("solve", "design")
    spent = []

    def slow_ensure(*parts):
        spent.append(parts)
        if len(spent) > 1:  # the first call compiles everything
            return 0.0
        time.sleep(0.4)
        return 0.4
    monkeypatch.setattr(warmup.gate, "ensure", slow_ensure)
    monkeypatch.setattr(warmup.gate, "ready", lambda *parts: bool(spent))
    g = blob_grid((4, 4, 4), seed=1)
    messages = []
    r = design(g, progress=lambda f, m: messages.append(m) or False)
    assert spent[0] == ("solve", "design") and messages[0] == "preparing solver"
    assert r.compile_s >= 0.4 and r.time_s < 0.4 and r.to_dict()["compile_s"] == r.compile_s
    spent.clear()
    s = DesignSession(g)  # compiles when it is built; its first check reports it
    first, second = s.check(), s.check()
    assert first.compile_s == 0.4 and first.time_s < 0.4 and second.compile_s == 0.0


def test_without_numba_nothing_is_warmed_up(monkeypatch):
    def fail():
        raise AssertionError("a warm-up step ran without numba")
    monkeypatch.setattr(warmup.jit, "HAVE_NUMBA", False)
    monkeypatch.setitem(warmup.PARTS, "no-numba", [("step", fail)])
    try:
        assert warmup.ensure("no-numba") == 0.0 and warmup.ready("no-numba")
    finally:
        warmup.gate.forget("no-numba")


def test_parts_follow_the_method_and_line_solver():
    assert warmup.parts_for("full", "dp") == ("lines",) and warmup.gate.later_parts("full") == ("solve",)
    assert warmup.parts_for("full", "seed") == ("lines", "seed")
    assert warmup.gate.later_parts("hierarchical") == ()
    assert warmup.parts_for("hierarchical", "dp") == ("schedulers",)
    assert set(warmup.DEFAULT_PARTS) == {"make", "solve"}
    assert "masks" in warmup.PARTS and "masks" not in warmup.DEFAULT_PARTS


def test_a_part_within_another_is_done_with_it(monkeypatch):
    ran = []
    monkeypatch.setitem(warmup.gate.WITHIN, "small", "big")
    monkeypatch.setitem(warmup.PARTS, "small", [("small step", lambda: ran.append("small"))])
    monkeypatch.setitem(warmup.PARTS, "big", [("small step", lambda: ran.append("small")),
                                              ("big step", lambda: ran.append("big"))])
    asked = []
    warmup.set_external(asked.append)
    try:
        warmup.run_parts(("big",))
        assert warmup.ready("small") and ran == ["small", "big"]
        warmup.ensure("small")  # done with "big": nothing runs again
        assert ran == ["small", "big"] and asked == []
        warmup.gate.forget("small")
        warmup.gate.forget("big")
        # another process compiling the larger part compiles this one too: wait for that one
        warmup.ensure("small")
        assert asked == ["big"] and ran == ["small", "big", "small"] and not warmup.ready("big")
    finally:
        warmup.set_external(None)
        warmup.gate.forget("small")
        warmup.gate.forget("big")


def test_ensure_waits_for_another_process_filling_the_cache():
    warmup.ensure("make")
    gate = threading.Event()
    asked = []

    def external(part):
        asked.append(part)
        gate.wait(5)
    warmup.gate.forget("make")
    warmup.set_external(external)
    try:
        t = threading.Thread(target=warmup.ensure, args=("make",))
        t.start()
        time.sleep(0.2)
        assert t.is_alive() and asked == ["make"] and not warmup.ready("make")
        gate.set()
        t.join(30)
        assert not t.is_alive() and warmup.ready("make")
    finally:
        warmup.set_external(None)


def test_background_start_reports_its_steps():
    th = warmup.start(("make",))
    th.join(300)
    st = warmup.status()
    assert st["state"] == "ready" and st["done"] == st["total"] and "make" in st["parts"]


MASKS = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from numba.core.registry import CPUDispatcher
from engine import warmup
from engine.design import hiding  # noqa: F401
from engine.kinds.plain import maskprop, probe, propagate, quicksearch  # noqa: F401
from engine.solve import search  # noqa: F401


def kernels():
    # named where defined: probe and quicksearch import propagate_arrays, which the trials share
    return {f"{v.py_func.__module__}.{v.py_func.__qualname__}" for m in list(sys.modules.values())
            if (m.__name__ or "").startswith("engine.")
            for v in vars(m).values() if isinstance(v, CPUDispatcher) and v.signatures}


warmup.ensure("make", "masks")
masks = kernels()
sigs = [str(s) for s in propagate.propagate_arrays.signatures]
warmup.ensure("solve", "design")
print(json.dumps({"masks": sorted(masks), "design": sorted(kernels() - masks), "propagate": sigs}))
"""


def test_the_masks_part_compiles_the_design_kernels_without_the_solver():
    """What lets the add-on compile the design's own kernels in Make's process while another
    compiles the solver's: ``masks`` needs no solver kernel beyond the line solvers and the
    net, and ``design`` after it needs no design kernel it did not compile (or load)."""
    out = subprocess.run([sys.executable, "-c", MASKS, str(ROOT)], capture_output=True, text=True,
                         timeout=900, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    masks, later = set(got["masks"]), set(got["design"])
    assert {f"engine.kinds.plain.maskprop.{k}" for k in ("run_lines", "probe_closure", "rounds", "prop_step",
                                                         "best_gain", "show_line")} <= masks
    assert not {k for k in masks if k.startswith(("engine.kinds.plain.probe.", "engine.kinds.plain.quicksearch.", "engine.solve.search."))}
    # the propagation the trials share with the solver, with their mask only (the solver's passes None)
    assert not [s for s in got["propagate"] if s.endswith("none, none, none, none)")]
    # the solver came after, as the design's check needs it (kernels loaded from the cache show
    # only where Python calls them: probe_round, not the _propagate it calls)
    assert "engine.kinds.plain.probe.probe_round" in later
    assert not {k for k in later if k.startswith("engine.kinds.plain.maskprop.")}


SESSION = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from engine import warmup
from engine.lines import linesolve_seed
from engine.kinds.plain import schedulers
from engine.solve import driver as S
from engine.voxel.blobs import blob_puzzle
warmup.ensure(*warmup.DEFAULT_PARTS)
r = S.solve(blob_puzzle((7, 7, 7), seed=1, hidden_fraction=0.2), time_limit=5)
print(json.dumps({"seed": len(linesolve_seed.seed_solve_line.signatures),
                  "schedulers": len(schedulers.heuristic.signatures),
                  "compile_s": r.stats["compile_s"], "verdict": r.verdict}))
"""


def test_a_dp_session_never_compiles_the_seed_code():
    out = subprocess.run([sys.executable, "-c", SESSION, str(ROOT)], capture_output=True, text=True,
                         timeout=600, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["seed"] == 0 and got["schedulers"] == 0
    assert got["compile_s"] == 0.0 and got["verdict"] in ("unique", "multiple")


COLOUR_AFTER_WARM_UP = COMPILED_IN_PROCESS + r"""
import numpy as np

warmup.ensure("colour")
before = compiled()
from colourgen import random_colour_puzzle
from engine.design.hiding import design
from engine.design.session import DesignSession
from engine.model.colourpuzzle import colour_puzzle_from_grid
from engine.solve.driver import solve
rng = np.random.default_rng(11)
verdicts = set()
for i in range(24):  # 2D and 3D, k = 2..4, hidden lines, mixed clues: every verdict and level
    p = random_colour_puzzle(rng, 2 + i % 2, 2 + i % 3)
    verdicts.add(solve(p, grade=True, time_limit=30).verdict)
    solve(p, sat_after=0 if i % 4 == 0 else None, want=1 if i % 5 == 0 else 2, time_limit=30,
          progress=(lambda f, m: False) if i % 3 == 0 else None)
solving = compiled() - before  # a solve alone needs the solver's part only
warmup.ensure("colourdesign")
before = compiled()
grid = rng.integers(0, 4, (6, 6, 5)) * (rng.random((6, 6, 5)) < 0.7)
p = colour_puzzle_from_grid(grid, 3)
for kw in ({}, {"logic": "probe"}, {"method": "anneal", "anneal_moves": 20}, {"method": "random"},
           {"band": "hard"}, {"score_range": (0.0, 30.0)}):
    design(p, time_limit=60.0, **kw)
s = DesignSession(p)
for logic in ("line", "probe"):
    s.check(np.arange(s.n_lines) % 2 == 0, logic, search_time=10.0)
    s.suggest(np.arange(s.n_lines) % 2 == 0, logic)
    s.repair(np.arange(s.n_lines) % 2 == 0, logic)
print(json.dumps({"verdicts": sorted(verdicts), "new": sorted(map(list, (compiled() - before) | solving))}))
"""


def test_real_colour_work_compiles_nothing_after_the_colour_warm_up(tmp_path):
    """The ``colour`` and ``colourdesign`` parts compile what colour solves, designs and the
    live check, Suggest and Repair of colour puzzles use (so the zip ships them built and the add-on prepares them ahead):
    in a process of its own with an empty cache, nothing compiles after them (numba's cache
    misses counted, as above)."""
    out = subprocess.run([sys.executable, "-c", COLOUR_AFTER_WARM_UP, str(ROOT)], capture_output=True,
                         text=True, timeout=900, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-3000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(found["verdicts"]) == {"unique", "multiple", "none"}
    assert not found["new"], f"kernels compiled after the colour warm-up: {found['new']}"
