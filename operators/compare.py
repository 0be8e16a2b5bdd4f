import json

import bpy

from .. import scene
from ..scene import polls
from ..jobs import engine_access
from ..jobs.worker import Job
from .job_operator import JobOperator


class NONOGRAM_OT_compare(polls.Polled, JobOperator, bpy.types.Operator):
    """Run the five seed solver configurations (Brute, Hier, Hier+Pre, Heur, Heur+Pre) and the
    learned scheduler (with and without pre-pass) on the active nonogram and show line-solver
    counts and bad-guess rates"""
    bl_idname = "nonogram.compare"
    bl_label = "Compare Solvers"
    bl_options = {'REGISTER', 'UNDO'}

    # compare() gets no progress callback, so it does not poll for cancellation: Esc abandons
    # the run.
    cancel_is_cooperative = False

    checks = (polls.no_job, polls.nonogram, polls.black_and_white)

    def make_job(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        try:
            puzzle = scene.load_stored_puzzle(obj)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        self._obj_name = obj.name
        linesolver = scene.settings(context).linesolver
        solve = engine_access.solve
        configs = solve.COMPARE_CONFIGS

        def run(progress):
            progress(0.0, ", ".join(label for label, _m, _p in configs))
            return solve.compare(puzzle, linesolver=linesolver, configs=configs)
        return Job("solver comparison", run)

    def finish(self, context: bpy.types.Context, rows):
        obj: "bpy.types.Object | None" = bpy.data.objects.get(self._obj_name)
        if obj is None or scene.nonogram_of(obj) is not obj:
            self.report({'ERROR'}, "The nonogram was deleted during the comparison")
            return {'CANCELLED'}
        scene.props(obj).compare = json.dumps(scene.jsonable(rows))
        best = min(rows, key=lambda r: r["linesolvers"])
        self.report({'INFO'}, f"Compared {len(rows)} solvers; fewest line solves: "
                    f"{best['config']} ({best['linesolvers']})")
        return {'FINISHED'}
