"""Solve, Show unknown cells, Animate solve and Compare on generated nonograms."""
import json
import threading
import time

import numpy as np
import pytest

from blender_support import (Event, Recorder, add_primitive, addon, addon_module, bpy, drive_modal, engine,
                             instances_of, point_attribute, run_op)

pytestmark = pytest.mark.blender


def _monkey_nonogram(res=8):
    add_primitive("monkey")
    bpy.context.scene.nonogram_settings.resolution = res
    assert run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    obj = bpy.context.active_object
    # every cell drawn (a new nonogram's designer view cuts at its clue layer)
    addon_module("operators.scene").set_clue_layer(obj, 'ALL', 0)
    return obj


NUMBERS = ("verdict", "difficulty", "linesolvers", "bad_guesses", "bad_guess_rate",
           "known_fraction", "method")


@pytest.mark.parametrize("method,prepass,linesolver", [
    ("full", False, "dp"), ("heuristic", True, "seed"), ("brute", False, "dp"), ("learned", True, "dp")])
def test_solve_stores_the_engines_report(addon, method, prepass, linesolver):
    obj = _monkey_nonogram()
    s = bpy.context.scene.nonogram_settings
    s.method, s.prepass, s.linesolver = method, prepass, linesolver
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    scene = addon_module("operators.scene")
    stored = scene.load_stored_report(obj)
    puzzle = scene.load_stored_puzzle(obj)
    ref = addon_module("engine.solve.driver").solve(puzzle, method=method, prepass=prepass,
                                            linesolver=linesolver, time_limit=s.time_limit)
    want = ref.to_dict()
    for k in NUMBERS:
        assert stored[k] == want[k], k
    assert stored["options"]["prepass"] == prepass and stored["options"]["linesolver"] == linesolver
    assert stored["n_known"] == int((ref.state != 3).sum())
    if method == "full":
        # the voxel grid is stored with the puzzle, so the search is guided by it
        assert puzzle.solution is not None and stored["stats"]["known_solution"]
    # Per-cell results are point attributes, not JSON.
    state = point_attribute(obj, "state")
    assert np.array_equal(state, ref.state)
    assert np.array_equal(point_attribute(obj, "visible"), ref.state != 1)
    rank = point_attribute(obj, "solve_rank")
    assert np.array_equal(np.flatnonzero(rank >= 0), np.sort(ref.order))
    if ref.verdict == "unique":
        sol = point_attribute(obj, "solution")
        assert np.array_equal(state == 2, sol)
        # Solved: exactly the filled cells are drawn.
        assert len(instances_of(obj)) == int(sol.sum())


def _multi_solution_nonogram(addon):
    """A 2×2×1 diagonal whose z clues are hidden: the anti-diagonal fits the x and y clues too."""
    clues = addon_module("engine.model.clues")
    grid = np.zeros((2, 2, 1), dtype=bool)
    grid[0, 0, 0] = grid[1, 1, 0] = True
    n_lines = 2 + 2 + 4
    hidden = np.zeros(n_lines, dtype=bool)
    hidden[-4:] = True  # the z-lines (length 1) would give every cell away
    puzzle = clues.puzzle_from_grid(grid, name="multi", hidden=hidden)
    scene = addon_module("operators.scene")
    obj = scene.build_from_puzzle(bpy.context, puzzle, name="multi", voxel_size=0.5)
    scene.set_clue_layer(obj, 'ALL', 0)  # every cell drawn
    return obj


def test_show_unknown_cells_highlights_undecided(addon):
    obj = _multi_solution_nonogram(addon)
    bpy.context.scene.nonogram_settings.method = 'full'
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    scene = addon_module("operators.scene")
    report = scene.load_stored_report(obj)
    assert report["verdict"] == "multiple" and report["n_differing"] > 0
    differs = point_attribute(obj, "differs")
    state = point_attribute(obj, "state")
    undecided = (state == 3) | differs
    assert undecided.any()
    assert run_op(bpy.ops.nonogram.show_cells, mode='UNDECIDED') == {'FINISHED'}
    assert np.array_equal(point_attribute(obj, "visible"), undecided)
    assert np.array_equal(point_attribute(obj, "highlight"), undecided)
    # Drawn cubes: the undecided cells that are not known empty.
    assert len(instances_of(obj)) == int((undecided & (state != 1)).sum())
    assert run_op(bpy.ops.nonogram.show_cells, mode='RESULT') == {'FINISHED'}
    assert not point_attribute(obj, "highlight").any()
    assert np.array_equal(point_attribute(obj, "visible"), state != 1)


def test_animate_solve_reveals_cells_in_solver_order(addon):
    obj = _monkey_nonogram(6)
    bpy.context.scene.nonogram_settings.method = 'full'
    assert run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    state = point_attribute(obj, "state")
    n, n_drawn_end = state.size, int((state != 1).sum())
    assert n_drawn_end < n
    sc = bpy.context.scene
    sc.frame_start = 1
    sc.nonogram_settings.anim_frames = 20
    assert run_op(bpy.ops.nonogram.animate_solve) == {'FINISHED'}
    known_at = point_attribute(obj, "known_at")
    rank = point_attribute(obj, "solve_rank")
    order = np.argsort(np.where(rank >= 0, rank, n))[: int((rank >= 0).sum())]
    assert (np.diff(known_at[order]) >= 0).all()  # solver order
    counts = []
    for f in (1, 6, 11, 16, 22):
        sc.frame_set(f)
        counts.append(len(instances_of(obj)))
    # Every cell pending at the start; cells known empty disappear as frames pass.
    assert counts[0] == n and counts[-1] == n_drawn_end
    assert all(a >= b for a, b in zip(counts, counts[1:])), counts
    assert len(set(counts)) >= 3, counts  # gradual, not all at once
    assert len(obj.animation_data.drivers) == 1  # the frame reaches the nodes by a driver
    assert run_op(bpy.ops.nonogram.animate_solve, clear=True) == {'FINISHED'}
    assert len(obj.animation_data.drivers) == 0
    assert not point_attribute(obj, "known_at").any()
    sc.frame_set(1)
    assert len(instances_of(obj)) == n_drawn_end


def test_compare_stores_the_seven_configurations(addon):
    obj = _monkey_nonogram(6)
    assert run_op(bpy.ops.nonogram.compare) == {'FINISHED'}
    rows = json.loads(obj.nonogram.compare)
    scene = addon_module("operators.scene")
    engine_solve = addon_module("engine.solve.driver")
    ref = engine_solve.compare(scene.load_stored_puzzle(obj), linesolver="dp",
                               configs=engine_solve.COMPARE_CONFIGS)
    assert [r["config"] for r in rows] == ["Brute", "Hier", "Hier+Pre", "Heur", "Heur+Pre", "Learned",
                                           "Learned+Pre"]
    for got, want in zip(rows, ref):
        for k in ("linesolvers", "bad_guesses", "bad_guess_rate", "verdict"):
            assert got[k] == want[k], (got["config"], k)


def test_worker_job_runs_off_the_main_thread_and_cancels(addon):
    worker = addon_module("operators.worker")
    main = threading.get_ident()
    seen = {}

    def slow(progress):
        seen["thread"] = threading.get_ident()
        for i in range(200):
            if progress(i / 200, "working"):
                return "stopped"
            time.sleep(0.01)
        return "finished"

    job = worker.Job("test", slow).start()
    time.sleep(0.05)
    assert not job.done and worker.active_job() is job
    job.cancel_event.set()
    assert job.done_event.wait(5)
    job.finished = True
    assert job.result == "stopped" and seen["thread"] != main
    assert worker.active_job() is None
    assert "Esc to cancel" in job.status_text()

    def boom(progress):
        raise ValueError("bad")
    job = worker.Job("test", boom).start()
    assert job.done_event.wait(5)
    job.finished = True
    assert isinstance(job.error, ValueError)


def _modal_op(addon, fn, cooperative=True):
    worker = addon_module("operators.worker")

    class Op(worker.JobOperator):
        cancel_is_cooperative = cooperative

        def __init__(self):
            self.reports, self.finished_with = [], None

        def run_synchronously(self, context):
            return False

        def report(self, kind, msg):
            self.reports.append((set(kind), msg))

        def make_job(self, context):
            return worker.Job("test job", fn)

        def finish(self, context, result):
            self.finished_with = result
            return {'FINISHED'}
    return Op()


def test_modal_solve_reports_progress_and_finishes(addon):
    ctx = Recorder()

    def work(progress):
        for i in range(10):
            progress(i / 10, "step")
            time.sleep(0.02)
        return 42
    op = _modal_op(addon, work)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    assert ctx.handlers == [op] and len(ctx.timers) == 1
    # Other events pass through: Blender stays usable while the job runs.
    assert op.modal(ctx, Event('MOUSEMOVE')) == {'PASS_THROUGH'}
    assert drive_modal(op, ctx, []) == {'FINISHED'}
    assert op.finished_with == 42
    assert ctx.timers == [] and ctx.status[-1] is None
    assert any(s and "test job" in s and "%" in s for s in ctx.status)
    assert addon_module("operators.worker").active_job() is None


def test_modal_esc_cancels_and_changes_nothing(addon):
    ctx = Recorder()
    stopped = threading.Event()

    def work(progress):
        while not progress(0.5, "waiting"):
            time.sleep(0.01)
        stopped.set()
        return "should be dropped"
    op = _modal_op(addon, work)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    assert drive_modal(op, ctx, [Event('ESC', value='PRESS')]) == {'CANCELLED'}
    assert stopped.is_set()  # the engine saw the request through its progress callback
    assert op.finished_with is None and ctx.timers == []
    assert any("cancelled" in msg for _, msg in op.reports)


def test_modal_esc_abandons_a_job_that_does_not_poll(addon):
    ctx = Recorder()
    release = threading.Event()

    def work(progress):
        release.wait(10)
        return "late"
    op = _modal_op(addon, work, cooperative=False)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    t0 = time.perf_counter()
    assert op.modal(ctx, Event('ESC', value='PRESS')) == {'CANCELLED'}
    assert time.perf_counter() - t0 < 0.5  # does not wait for the engine
    assert op.finished_with is None and ctx.timers == []
    release.set()


def test_blender_ending_the_modal_operator_stops_the_job(addon):
    ctx = Recorder()
    saw_cancel = threading.Event()

    def work(progress):
        while not progress(0.1, "waiting"):
            time.sleep(0.01)
        saw_cancel.set()
        return "dropped"
    op = _modal_op(addon, work)
    assert op.invoke(ctx, Event('NONE')) == {'RUNNING_MODAL'}
    op.cancel(ctx)  # what Blender calls when it removes the handler (e.g. on file load)
    assert saw_cancel.wait(5)
    assert ctx.timers == [] and ctx.status[-1] is None
    assert op.finished_with is None
    assert addon_module("operators.worker").active_job() is None
