"""Compile ahead: run each stage's kernels once on tiny inputs.

numba compiles a kernel on its first call (or loads it from its disk cache, ~1 s for the whole
solver): without this, a session's first Make or Solve would spend seconds compiling inside the
call, and a solve's ``time_s`` would include it. The add-on and the CLI start ``start(...)`` in
a background thread; ``solve()`` calls ``ensure`` for what it is about to run, outside its timed
section, and reports the seconds in ``stats["compile_s"]``.

Parts (``PARTS``), each a list of named steps (the add-on shows "Preparing solver... n/m"):
- ``make``: the voxelizer and the clues of a grid;
- ``solve``: the full method with the complete line solvers (line solving, quick search,
  probing, search, long lines); ``lines``: its first step alone, line solving, which is all a
  solve loads before line solving leaves a cell open (``gate.WITHIN``, ``gate.later_parts``);
- ``schedulers``: the seed study's schedulers, the learned one and the pre-pass with the
  complete line solvers;
- ``seed``: the seed study's linesolver, in the full method and the schedulers;
- ``grade``: the difficulty score (``solve(grade=True)``);
- ``design``: Hide Clues (both logics, its methods, a difficulty band), the live check and
  Suggest Clue (``design.prepare`` ensures it with ``solve``);
- ``colour``: the colour kind's solver kernels (line logic, probing, search, grade; ``solve``
  ensures it for a colour puzzle); ``colourdesign``: the colour kind's design kernels, through
  designs of colour puzzles and their live check, Suggest Clue and Repair (``design`` and
  ``DesignSession`` ensure it with ``colour`` for a colour puzzle);
- ``masks``: the design's own kernels (``maskprop``) alone, through the same designs and checks
  minus their solves: the add-on compiles them in the process that compiled Make's while
  another compiles the solver's, and ``design`` then only loads them.
A session that never asks for the seed's methods never compiles them. The inputs are built
with the same functions and types as real ones, so every kernel signature a real call uses is
compiled here (scripts/compile_times.py --workload warmup lists any a real workload still had to
compile; tests/test_warmup.py checks it).
"""
from __future__ import annotations

import atexit
import threading
import time

import numpy as np

from . import gate
from . import jit as jit  # the tests and the add-on reach the JIT shim through the warm-up
from .gate import PARTS as PARTS, Stopped as Stopped, ensure as ensure, parts_for as parts_for
from .gate import ready as ready, run_parts as run_parts, set_external as set_external
from .model.cells import UNKNOWN

_status = {"state": "idle", "done": 0, "total": 0, "error": "", "seconds": 0.0}


def _cube_mesh(lo=(0.0, 0.0, 0.0), hi=(1.0, 1.0, 1.0), inward=False):
    v = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])], float)
    quads = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))
    t = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))], np.int64)
    return v, (t[:, ::-1].copy() if inward else t)


def pieces_mesh():
    """A box with an inner shell wound inwards (a cavity: the part volumes), a loose cube (Bridge
    Pieces joins it) and a plate thinner than a voxel (Restore Thin Parts keeps it)."""
    parts = (_cube_mesh((0, 0, 0), (4, 4, 4)), _cube_mesh((1, 1, 1), (3, 3, 3), inward=True),
             _cube_mesh((6, 0, 0), (7, 1, 1)), _cube_mesh((0, 5, 0), (4, 5.05, 4)))
    offsets = np.cumsum([0] + [len(v) for v, _ in parts[:-1]])
    return (np.concatenate([v for v, _ in parts]),
            np.concatenate([t + o for (_, t), o in zip(parts, offsets)]))


def _voxelizer():
    """Make with each of its options: plain, the thin-part options (bridge, restore, the
    piece filters), anti-aliasing whose counters are one byte (up to 6 samples) or two (7, 8),
    one axis (not robust), and a mesh of several closed shells."""
    from .model.clues import puzzle_from_grid
    from .voxel.voxelize import voxelize
    v, t = _cube_mesh()
    puzzle_from_grid(voxelize(v, t, resolution=4).grid)
    voxelize(v, t, resolution=3, samples=2, robust=False)
    voxelize(v, t, resolution=3, samples=7)
    v, t = pieces_mesh()
    voxelize(v, t, resolution=6)
    voxelize(v, t, resolution=6, bridge=True)
    voxelize(v, t, resolution=6, thin_parts=True, bridge=True, min_piece=2, keep_largest=True)


def _colour_capture():
    """Make with colours: the capture (both nearest-triangle passes, image, corner and constant
    sources, the interior fill) and the palette."""
    from .colour.capture import Source, capture_colours, nearest_surface
    from .colour.palette import grid_palette
    from .voxel.voxelize import voxelize
    v, t = _cube_mesh()
    r = voxelize(v, t, resolution=4)
    m = len(t)
    uvs = np.zeros((m, 3, 2))
    img = np.ones((2, 2, 3), np.float32)
    cap = capture_colours(r.grid, r.origin, r.voxel_size, v, t,
                          tri_material=np.arange(m) % 4,
                          sources=[Source(), Source(image=0), Source(image=0, closest=True),
                                   Source(corners=True)],
                          uvs=uvs, corner_colours=np.ones((m, 3, 3)), images=[img])
    nearest_surface(np.zeros((1, 3)), v, t)
    grid_palette(r.grid, cap.colours, 2)


def _blob(hidden_every=3):
    from .voxel.blobs import blob_grid
    from .model.clues import puzzle_from_grid
    g = blob_grid((5, 5, 5), seed=1)
    hidden = np.zeros(puzzle_from_grid(g).n_lines, bool)
    hidden[::hidden_every] = True
    return puzzle_from_grid(g, hidden=hidden)


def _line_solving(linesolver):
    """A puzzle line solving settles, with lines past the word solvers (both kinds of clue)."""
    from .model.clues import puzzle_from_grid
    from .solve.driver import solve
    g = np.zeros((1, 1, 70), bool)
    g[0, 0, ::3] = True
    solve(puzzle_from_grid(g), linesolver=linesolver, time_limit=10.0)
    solve(puzzle_from_grid(g[0]), linesolver=linesolver, time_limit=10.0)


def _quick_search(linesolver):
    """Hidden clues: the quick search, with and without the known solution."""
    from .solve.driver import solve
    solve(_blob(), linesolver=linesolver, time_limit=10.0)
    solve(_blob(), linesolver=linesolver, use_known=False, time_limit=10.0)


def _probing(linesolver):
    """No solution given, 24 solutions: probing, then search (for two solutions, and for one)."""
    from .model.puzzle import make_2d
    from .solve.driver import solve
    solve(make_2d([[1]] * 4, [[1]] * 4), linesolver=linesolver, time_limit=10.0)
    solve(make_2d([[1]] * 4, [[1]] * 4), linesolver=linesolver, time_limit=10.0, want=1)


def _sat_encoding():
    """The CNF and phase kernels of the search's CDCL fallback (``sat.py``), which the tiny puzzles above
    never reach (it takes over after thousands of line solves): compiled here, with or without
    python-sat, so a hard puzzle's hand-over does not compile inside its solve."""
    from .kinds.plain.propagate import build_net
    from .model.puzzle import make_2d
    from .kinds.plain.satblocks import blocks_cnf
    from .kinds.plain.satphase import BP_ROUNDS, beliefs, blocks_phases
    net = build_net(make_2d([[1]] * 4, [[1]] * 4))
    blocks_cnf(net[0], net[1], net[3], net[4], np.arange(8, dtype=np.int64), 16)
    # and its phases (``satphase.py``), as ``sat.SatSearch`` calls them
    belief = beliefs(net[0], net[1], net[3], net[4], np.ones(8, dtype=bool), np.full(16, UNKNOWN, np.int8), BP_ROUNDS)
    blocks_phases(net[0], net[1], net[3], net[4], np.arange(8, dtype=np.int64), 16, belief)


def _colour_sat_encoding():
    """The same kernel for a colour puzzle's 2D lines (``coloursat.py``: the blocks' colours,
    k + 1), which the colour puzzles below solve without: the colour part's own, so a hard 2D
    colour puzzle's hand-over does not compile inside its solve."""
    from .kinds.colour.coloursat import block_bounds
    from .kinds.plain.satblocks import blocks_cnf
    one = np.array([0, 1], dtype=np.int64)
    bounds = block_bounds(np.full(1, 7, dtype=np.int64), np.ones(1, dtype=np.int64), np.ones(1, dtype=np.int64))
    blocks_cnf(one, np.zeros(1, dtype=np.int64), one, np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 16,
               np.ones(1, dtype=np.int64), 3, bounds, np.full(1, 7, dtype=np.int64))
    from .model.colourpuzzle import colour_puzzle_from_grid
    from .kinds.colour.colourkind import ColourSolver
    ColourSolver(colour_puzzle_from_grid(np.array([[1, 0], [2, 1]]), 2)).sat_solution_ok(np.array([1, 0, 2, 1]))


def _walking():
    """The local search (``walk.py``) a loose 3D puzzle without a known solution gets after
    the quick search: the tiny puzzles above never reach it."""
    from .model.clues import puzzle_from_grid
    from .kinds.plain.propagate import build_net
    from .kinds.plain.walk import walk, walk_start
    g = np.zeros((3, 3, 3), bool)
    g[:, :, ::2] = True  # circles along z
    net = build_net(puzzle_from_grid(g))
    rng = np.array([1], np.int64)
    x, free = walk_start(net, np.full(g.size, UNKNOWN, np.int8), rng)
    walk(net, x, free, 50, rng)


def _schedulers(linesolver):
    from .solve.driver import COMPARE_CONFIGS, compare
    compare(_blob(), linesolver=linesolver, configs=COMPARE_CONFIGS, time_limit=10.0)
    compare(_blob(), linesolver=linesolver, time_limit=10.0, counting="seed")


def _grading():
    """The difficulty score of a puzzle logic solves (``solve(grade=True)``, the CLI's)."""
    from .solve.driver import solve
    solve(_blob(hidden_every=50), grade=True, time_limit=10.0)


def _design_grid():
    from .voxel.blobs import blob_grid
    return blob_grid((5, 5, 5), seed=1)


def _designing():
    """Hide Clues: greedy and annealing designs, line and probing logic, a difficulty band
    (steering grades every trial), and the final check of the designed puzzle."""
    from .design.hiding import design
    g = _design_grid()
    design(g)
    design(g, logic="probe", method="anneal", band="hard", anneal_moves=20, time_limit=60.0)
    design(g, band="expert", anneal_moves=20, time_limit=60.0)  # line logic: steering, its passes
    design(g, method="random", start="current")


def _live_check():
    """The live check of a hand-edited mask (both logics, a search when logic stalls) and
    Suggest Clue."""
    from .design.session import DesignSession
    s = DesignSession(_design_grid())
    hidden = np.zeros(s.n_lines, bool)
    hidden[::2] = True
    for logic in ("line", "probe"):
        s.check(hidden, logic, search_time=10.0)
        s.suggest(hidden, logic)
        s.repair(hidden, logic)
    s.check(None)


def _colour_puzzles():
    """A 2D and a 3D colour puzzle of two colours, and the 3D one with a third of its clues
    hidden (where line logic stalls: probing, the search)."""
    from .model.colourpuzzle import colour_puzzle_from_grid, with_hidden
    from .voxel.blobs import blob_grid
    # blobs in two colours by halves: line logic solves both with every clue shown
    flat = blob_grid((6, 5), seed=1)
    flat = colour_puzzle_from_grid(np.where(flat, np.where(np.arange(6)[:, None] < 3, 1, 2), 0), 2)
    solid = blob_grid((5, 5, 5), seed=1)
    solid = colour_puzzle_from_grid(np.where(solid, np.where(np.arange(5)[:, None, None] < 2, 1, 2), 0), 2)
    return flat, solid, with_hidden(solid, np.arange(solid.n_lines) % 3 == 0)


def _colour_solving():
    """Colour puzzles: line logic, probing, the search with and without the puzzle's own
    solution, its turns with the CDCL solver, a time limit's slices, and the grade."""
    from .solve.driver import solve
    flat, solid, loose = _colour_puzzles()
    for p in (flat, solid, loose):
        solve(p, grade=True)
        solve(p, use_known=False, time_limit=60.0, want=1)
    solve(loose, use_known=False, sat_after=0, time_limit=60.0)
    solve(loose, use_known=False, time_limit=60.0, grade=True, progress=lambda f, m: False)


def _colour_designing():
    """Colour designs (greedy, annealing, random; line and probing logic; a difficulty band
    with its final passes) and the colour Suggest Clue and Repair."""
    from .design.hiding import design
    from .design.session import DesignSession
    flat, solid, _ = _colour_puzzles()
    for p in (flat, solid):
        design(p)
        design(p, logic="probe", method="anneal", anneal_moves=10, time_limit=60.0)
        design(p, band="hard", anneal_moves=10, time_limit=60.0)
        design(p, method="random")
    s = DesignSession(solid)
    hidden = np.arange(s.n_lines) % 2 == 0
    for logic in ("line", "probe"):
        s.check(hidden, logic, search_time=10.0)
        s.suggest(hidden, logic)
        s.repair(hidden, logic)


def _masks():
    """``_designing`` and ``_live_check`` without the solver: each design's search and grade
    without its final check, live checks of masks logic settles (no search) and the gains of
    showing a clue (Suggest Clue). No solver kernel is compiled here but the few that build the
    net and the line solvers every design kernel calls."""
    from .design.hiding import search_masks
    from .design.session import DesignSession
    g = _design_grid()
    search_masks(g)
    search_masks(g, logic="probe", method="anneal", band="hard", anneal_moves=20, time_limit=60.0)
    search_masks(g, band="expert", anneal_moves=20, time_limit=60.0)
    search_masks(g, method="random", start="current")
    s = DesignSession(g, compile_ahead=False)
    for logic in ("line", "probe"):
        s.check(None, logic)  # every clue shown: logic solves it
        s.suggest(np.ones(s.n_lines, bool), logic)  # none shown: nothing is deduced


# the ``lines`` part is the ``solve`` part's first step (gate.WITHIN)
_LINE_SOLVERS = ("line solvers", lambda: _line_solving("dp"))
gate.register({
    "make": [("voxelizer", _voxelizer), ("colour capture", _colour_capture)],
    "lines": [_LINE_SOLVERS],
    "solve": [_LINE_SOLVERS, ("quick search", lambda: _quick_search("dp")),
              ("probing and search", lambda: _probing("dp")), ("SAT encoding", _sat_encoding),
              ("local search", _walking)],
    "schedulers": [("seed schedulers", lambda: _schedulers("dp"))],
    "grade": [("difficulty score", _grading)],
    "masks": [("design kernels", _masks)],
    "design": [("design", _designing), ("live check", _live_check)],
    "colour": [("colour puzzles' solver", _colour_solving), ("colour SAT encoding", _colour_sat_encoding)],
    "colourdesign": [("colour design", _colour_designing)],
    "seed": [("seed linesolver", lambda: (_line_solving("seed"), _quick_search("seed"), _probing("seed"))),
             ("seed schedulers with the seed linesolver", lambda: _schedulers("seed"))],
})
DEFAULT_PARTS = ("make", "solve")


_threads: list = []  # the threads start() started, until stop() joined them
_stop = threading.Event()  # set by stop(): the threads leave the steps they have not begun


def start(parts=DEFAULT_PARTS) -> threading.Thread:
    """Warm ``parts`` up in a daemon thread; ``status()`` follows it. numba compiles holding the
    GIL most of the time, but hands it over every few milliseconds (Python's switch interval),
    so a thread drawing a UI meanwhile waits milliseconds, not for the compile. ``stop()`` (also
    run at interpreter exit) ends it."""
    todo = [p for p in parts if not gate.ready(p)]
    _status.update(state="running", done=0, total=sum(len(gate.PARTS[p]) for p in todo), error="",
                   seconds=0.0)
    _stop.clear()

    def on_step(name):
        _status["done"] += 1

    def run():
        t0 = time.perf_counter()
        try:
            run_parts(todo, on_step, stop=_stop)
            _status.update(state="ready")
        except Stopped:
            _status.update(state="idle")
        except Exception as exc:  # reported by status(); a real call raises it again
            _status.update(state="failed", error=f"{type(exc).__name__}: {exc}")
        finally:
            _status["seconds"] = time.perf_counter() - t0

    thread = threading.Thread(target=run, name="nonogram: warm-up", daemon=True)
    _threads[:] = [t for t in _threads if t.is_alive()] + [thread]
    thread.start()
    return thread


def stop(timeout: float = 5.0) -> bool:
    """Ask the threads ``start`` started to stop after their current step and wait for them, at
    most ``timeout`` seconds in all; True when none is left running. A thread still running when
    the interpreter shuts down is what crashes (bpy 4.2) or hangs (bpy 4.5) Blender's Python
    module at exit, so this runs at exit too (``atexit``); the wait is bounded so that exit
    never hangs on a long compile."""
    _stop.set()
    deadline = time.monotonic() + max(0.0, timeout)
    for thread in list(_threads):
        if thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
    _threads[:] = [t for t in _threads if t.is_alive()]
    return not _threads


atexit.register(stop, 2.0)


def status() -> dict:
    """``state`` ('idle', 'running', 'ready', 'failed'), ``done``/``total`` steps of the last
    ``start``, ``error`` (when failed), ``seconds`` (once finished) and the ``parts`` done."""
    return dict(_status, parts=gate.done_parts())
