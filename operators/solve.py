import bpy

from ..scene.properties import SolveOptions, option_names
from .. import scene
from ..scene import polls
from .options import fill_from_panel
from ..jobs import colour, engine_access
from ..jobs.worker import Job
from .job_operator import JobOperator

SOLVE_OPTIONS = option_names(SolveOptions)


def report_summary(report) -> dict:
    """The report as stored on the object: ``to_dict()`` without per-cell strings (those go to
    point attributes), plus counts for them."""
    d = report.to_dict()
    d.pop("solution", None)
    d["n_solutions"] = len(d.pop("solutions", []) or [])
    d["n_differing"] = len(d.pop("differing_cells", []) or [])
    d["n_cells"] = int(report.state.size)
    d["n_known"] = int((report.state != scene.UNKNOWN).sum())
    return d


class NONOGRAM_OT_solve(polls.Polled, SolveOptions, JobOperator, bpy.types.Operator):
    """Solve the active nonogram's puzzle (in the background; Esc cancels)"""
    bl_idname = "nonogram.solve"
    bl_label = "Solve Nonogram"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    finish_checks = (polls.object_mode,)
    checks = (polls.object_mode, polls.no_job, polls.nonogram)

    def draw(self, context: bpy.types.Context):
        self.layout.use_property_split = True
        SolveOptions.draw_options(self.layout, self)

    def make_job(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        options = fill_from_panel(self, context, SOLVE_OPTIONS)
        try:
            puzzle = scene.load_stored_puzzle(obj)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        self._obj_name = obj.name
        solve = engine_access.solve.solve
        if colour.is_colour(puzzle) and puzzle.k > 1:
            # a colour puzzle takes the full method with the complete line solvers
            options = {"time_limit": options["time_limit"]}
        # Every method polls the progress callback, so Esc stops the engine (cooperative cancel).
        self.cancel_is_cooperative = True
        return Job("solve", lambda progress: solve(puzzle, progress=progress, **options))

    def finish(self, context: bpy.types.Context, report):
        obj: "bpy.types.Object | None" = bpy.data.objects.get(self._obj_name)
        if obj is None or scene.nonogram_of(obj) is not obj:
            self.report({'ERROR'}, "The nonogram was deleted while it was being solved")
            return {'CANCELLED'}
        scene.apply_solve_result(obj, report)
        scene.store_report(obj, report_summary(report))
        known = float(report.known_fraction)
        self.report({'INFO'}, f"Solved: {report.verdict}"
                    + (f" ({report.difficulty})" if report.difficulty else "")
                    + f", {known:.0%} of cells known, {report.linesolvers} line solves, "
                    f"{report.time_s:.2f} s")
        return {'FINISHED'}
