import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty

from . import scene
from .runtime import engine
from .worker import Job, JobOperator, active_job

_METHODS = [('SETTINGS', "From Panel", "Use the Solve settings of the Nonogram panel"),
            ('full', "Full", ""), ('brute', "Brute", ""), ('hierarchical', "Hierarchical", ""),
            ('heuristic', "Heuristic", ""), ('learned', "Learned", "")]


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


class NONOGRAM_OT_solve(JobOperator, bpy.types.Operator):
    """Solve the active nonogram's puzzle (in the background; Esc cancels)"""
    bl_idname = "nonogram.solve"
    bl_label = "Solve Nonogram"
    bl_options = {'REGISTER', 'UNDO'}

    method: EnumProperty(name="Method", items=_METHODS, default='SETTINGS',
                         options={'SKIP_SAVE'})
    prepass: BoolProperty(name="Pre-pass", default=False, options={'SKIP_SAVE'})
    linesolver: EnumProperty(name="Line Solver", items=[('SETTINGS', "From Panel", ""),
                                                        ('dp', "Complete (DP)", ""),
                                                        ('seed', "Seed", "")],
                             default='SETTINGS', options={'SKIP_SAVE'})
    time_limit: FloatProperty(name="Time Limit", default=0.0, min=0.0, options={'SKIP_SAVE'},
                              description="Seconds; 0 uses the panel's setting")

    @classmethod
    def poll(cls, context: bpy.types.Context):
        return scene.nonogram_of(context.active_object) is not None and active_job() is None

    def make_job(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        settings = scene.settings(context)
        method = settings.method if self.method == 'SETTINGS' else self.method
        prepass = settings.prepass if self.method == 'SETTINGS' else self.prepass
        linesolver = settings.linesolver if self.linesolver == 'SETTINGS' else self.linesolver
        time_limit = self.time_limit or settings.time_limit
        try:
            puzzle = scene.load_stored_puzzle(obj)
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        solve = engine("solve").solve
        self._obj_name = obj.name
        # Every method polls the progress callback, so Esc stops the engine (cooperative cancel).
        self.cancel_is_cooperative = True
        return Job("solve", lambda progress: solve(
            puzzle, method=method, prepass=prepass, linesolver=linesolver,
            time_limit=time_limit, progress=progress))

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
