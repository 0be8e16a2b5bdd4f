"""Design operators: Hide Clues (the engine's design, in the background), Show All Clues,
hiding/showing clues by hand (selected clue points, or the Pick Clues tool), Suggest Clue.
Every change of the hidden clues starts a live check (``live_check``)."""
import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty

from .. import scene
from ..scene import live_check, polls
from ..jobs import colour, engine_access
from ..jobs import live_check as checks
from ..jobs.worker import Job
from .job_operator import JobOperator


def _labels_in_edit_mode(context) -> str:
    labels = scene.props(scene.nonogram_of(context.active_object)).labels
    if labels is None or labels.mode != 'EDIT':
        return "Select clue points in Edit Mode of the clue labels (or use Pick Clues)"
    return ""


def _in_3d_view(context) -> str:
    if context.area is None or context.area.type != 'VIEW_3D':
        return "Run it from a 3D View"
    return ""


def change_hidden(obj, mask) -> int:
    """Hide exactly ``mask``'s clues and check the puzzle again; returns the hidden count."""
    n = scene.set_hidden(obj, mask)
    live_check.request(obj)
    return n


class _DesignJob(JobOperator):
    """A JobOperator with what the design jobs (Hide Clues, Suggest Clue, Repair) share: the
    nonogram and hidden clues a job starts from, remembered for its end, and the engine's refusals
    (a puzzle it cannot design, with a message meant for the user) reported as errors, not as a
    traceback."""

    def _remember(self, obj, hidden=None) -> None:
        self._obj_name = obj.name
        if hidden is not None:
            self._key = scene.mask_key(hidden)

    def _conclude(self, context, job):
        err = job.error
        if err is not None and isinstance(err, engine_access.design.DesignError):
            self.report({'ERROR'}, str(err))
            return {'CANCELLED'}
        return JobOperator._conclude(self, context, job)


class NONOGRAM_OT_hide_clues(polls.Polled, _DesignJob, bpy.types.Operator):
    """Hide as many clues as the puzzle allows while it keeps exactly one solution and stays
    solvable by the chosen logic (in the background; Esc cancels)"""
    bl_idname = "nonogram.hide_clues"
    bl_label = "Hide Clues"
    bl_options = {'REGISTER', 'UNDO'}
    checks = (polls.nonogram, polls.no_job)

    def make_job(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        opts = scene.props(obj).design_options
        options = {"logic": opts.logic, "band": None if opts.band == 'ANY' else opts.band,
                   "method": opts.method, "seed": int(opts.seed), "time_limit": float(opts.time_limit)}
        try:
            full = scene.load_full_puzzle(obj)
            design = engine_access.design.design
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        k = int(opts.puzzle_colours)
        regroup = colour.needs_regroup(full, k)
        if regroup:
            why = colour.regroup_check(full, k)
            if why:
                self.report({'ERROR'}, why)
                return None
        self._remember(obj)
        self._options = options
        self._full = full  # parsed once: finish() colours the checked cells from it
        self._regroup = regroup
        self.cancel_is_cooperative = True  # design polls its progress callback

        def run(progress):
            # design() compiles (or waits for the add-on's warm-up) before its time limit starts,
            # reporting "preparing solver" meanwhile, which Esc abandons at once
            puzzle = colour.regrouped(full, k) if regroup else full
            return design(puzzle, progress=progress, **options), puzzle
        return Job("design", run)

    def finish(self, context: bpy.types.Context, found):
        result, full = found
        obj: "bpy.types.Object | None" = bpy.data.objects.get(self._obj_name)
        if obj is None or scene.nonogram_of(obj) is not obj:
            self.report({'ERROR'}, "The nonogram was deleted while its clues were being hidden")
            return {'CANCELLED'}
        if self._regroup:
            try:
                scene.show_as_colour_puzzle(context, obj, full)
            except scene.NonogramError as e:
                self.report({'ERROR'}, str(e))
                return {'CANCELLED'}
            self._full = full
        scene.set_hidden(obj, result.hidden)  # refuses a mask that no longer fits the puzzle
        proven = checks.proven(result)
        if proven is not None:  # the design proved these clues: no need to check them again
            live_check.apply_proven(obj, proven, self._full)
        else:
            live_check.request(obj)
        info = {k: v for k, v in result.to_dict().items() if k != "stats"}
        scene.store_design(obj, dict(info, options=self._options))
        kind = "hidden" + (" (stopped early: best so far)" if result.stopped_early else "")
        if self._regroup:
            kind += f" of a new {result.colours}-colour puzzle"
        band = f", {result.band} ({result.score})" if result.score is not None else ""
        self.report({'WARNING' if result.message else 'INFO'},
                    f"{result.hidden_count} of {result.n_lines} clues {kind}{band}"
                    + (f": {result.message}" if result.message else ""))
        return {'FINISHED'}


class NONOGRAM_OT_show_all_clues(polls.Polled, bpy.types.Operator):
    """Show every clue to the player again"""
    bl_idname = "nonogram.show_all_clues"
    bl_label = "Show All Clues"
    bl_options = {'REGISTER', 'UNDO'}
    checks = (polls.nonogram, polls.no_job)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        change_hidden(obj, np.zeros(scene.n_lines(obj), dtype=bool))
        scene.store_design(obj, None)
        return {'FINISHED'}


class NONOGRAM_OT_toggle_clues(polls.Polled, bpy.types.Operator):
    """Hide or show the clues whose points are selected (Edit Mode of the clue labels)"""
    bl_idname = "nonogram.toggle_clues"
    bl_label = "Hide/Show Selected Clues"
    bl_options = {'REGISTER', 'UNDO'}

    action: EnumProperty(name="Action", items=[
        ('TOGGLE', "Toggle", "Hide shown clues and show hidden ones"),
        ('HIDE', "Hide", "Hide the selected clues"),
        ('SHOW', "Show", "Show the selected clues")], default='TOGGLE')

    checks = (polls.nonogram, polls.no_job, _labels_in_edit_mode)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        labels = scene.props(obj).labels
        labels.update_from_editmode()
        sel = np.zeros(len(labels.data.vertices), dtype=bool)
        labels.data.vertices.foreach_get("select", sel)
        if not sel.any():
            self.report({'WARNING'}, "No clue points selected")
            return {'CANCELLED'}
        lines = scene.clue_lines(obj)[sel]
        mask = scene.hidden_mask(obj)
        mask[lines] = {'TOGGLE': ~mask[lines], 'HIDE': True, 'SHOW': False}[self.action]
        n = change_hidden(obj, mask)
        self.report({'INFO'}, f"{len(lines)} clue(s) changed; {n} hidden")
        return {'FINISHED'}


class NONOGRAM_OT_pick_clues(polls.Polled, bpy.types.Operator):
    """Click clues in the 3D View to hide or show them (Esc or right-click to finish); the
    puzzle is checked again after every click"""
    bl_idname = "nonogram.pick_clues"
    bl_label = "Pick Clues"
    # Each click is its own undo step (pushed by hand), not the whole session.
    bl_options = {'REGISTER', 'BLOCKING'}

    checks = (polls.nonogram, polls.no_job, polls.object_mode, _in_3d_view)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event):
        self._name = scene.nonogram_of(context.active_object).name
        self._changed = 0
        context.window_manager.modal_handler_add(self)
        context.area.header_text_set("Pick Clues: click a clue to hide or show it · "
                                     "Esc / right-click: done")
        return {'RUNNING_MODAL'}

    def modal(self, context: bpy.types.Context, event: bpy.types.Event):
        obj: "bpy.types.Object | None" = bpy.data.objects.get(self._name)
        if obj is None or event.type in {'ESC', 'RIGHTMOUSE'}:
            context.area.header_text_set(None)
            return {'FINISHED'} if self._changed else {'CANCELLED'}
        if event.type == 'LEFTMOUSE' and event.value == 'PRESS':
            region, rv3d = context.region, context.region_data
            if region is None or rv3d is None or region.type != 'WINDOW':
                return {'PASS_THROUGH'}
            line = pick_at(obj, region, rv3d, (event.mouse_region_x, event.mouse_region_y))
            if line is not None:
                hidden = toggle_line(obj, line)
                self._changed += 1
                self.report({'INFO'}, f"Clue of {scene.line_name(obj, line)} "
                                      f"{'hidden' if hidden else 'shown'}")
                bpy.ops.ed.undo_push(message="Pick Clue")
            return {'RUNNING_MODAL'}
        return {'PASS_THROUGH'}


def pick_at(obj, region, rv3d, mouse):
    """The line of the clue drawn under ``mouse`` (region pixels) in ``region``, or None."""
    pos, normals, lines = scene.label_anchors(obj)
    return scene.pick_label(pos, normals, lines, rv3d.perspective_matrix, rv3d.view_matrix,
                            rv3d.is_perspective, (region.width, region.height), mouse)


def toggle_line(obj, line: int) -> bool:
    """Hide the clue of ``line`` if shown, else show it; returns whether it is now hidden."""
    mask = scene.hidden_mask(obj)
    mask[line] = not mask[line]
    change_hidden(obj, mask)
    return bool(mask[line])


def _hidden_and(op, obj, task: str, load):
    """(hidden mask, ``load(obj)``) for a job on ``obj``'s hidden clues, or None after reporting
    why there is nothing to do (no clue hidden, or what ``load`` refused)."""
    hidden = scene.hidden_mask(obj)
    if not hidden.any():
        op.report({'INFO'}, f"No clue is hidden: nothing to {task}")
        return None
    try:
        return hidden, load(obj)
    except scene.NonogramError as e:
        op.report({'ERROR'}, str(e))
        return None


def _hidden_clue_session(op, obj, task: str):
    """(hidden mask, live-check session, its lock, logic) for a job on ``obj``'s hidden clues, or
    None after reporting why there is nothing to do."""
    got = _hidden_and(op, obj, task, live_check.session)
    if got is None:
        return None
    hidden, (sess, lock) = got
    return hidden, sess, lock, scene.props(obj).design_options.logic


def _nonogram_named(op, name: str):
    """The nonogram a finished job worked on, or None (reported) when it was deleted meanwhile."""
    obj: "bpy.types.Object | None" = bpy.data.objects.get(name)
    if obj is None or scene.nonogram_of(obj) is not obj:
        op.report({'ERROR'}, "The nonogram was deleted meanwhile")
        return None
    return obj


def _clues_unchanged(op, obj, key, task: str) -> bool:
    """Whether ``obj`` still hides the clues a job started from (else reported)."""
    if scene.mask_key(scene.hidden_mask(obj)) != key:
        op.report({'WARNING'}, f"The clues changed meanwhile: {task} again")
        return False
    return True


class NONOGRAM_OT_suggest_clue(polls.Polled, _DesignJob, bpy.types.Operator):
    """Find the hidden clue that settles the most undecided cells, and show it (or only
    select it)"""
    bl_idname = "nonogram.suggest_clue"
    bl_label = "Suggest Clue"
    bl_options = {'REGISTER', 'UNDO'}
    checks = (polls.nonogram, polls.no_job)

    reveal: BoolProperty(name="Show It", default=True,
                         description="Show the suggested clue to the player (else only report it)")

    def make_job(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        # The engine's suggestion does not poll for cancellation (it takes milliseconds).
        self.cancel_is_cooperative = False
        got = _hidden_clue_session(self, obj, "suggest")
        if got is None:
            return None
        hidden, sess, lock, logic = got
        self._remember(obj, hidden)

        def run(progress):
            with lock:
                found = sess.suggest(hidden, logic, k=1)
            return (found[0].line, found[0].settles) if found else None
        return Job("clue suggestion", run)

    def finish(self, context: bpy.types.Context, found):
        obj = _nonogram_named(self, self._obj_name)
        if obj is None or not _clues_unchanged(self, obj, self._key, "suggest"):
            return {'CANCELLED'}
        if found is None:
            self.report({'INFO'}, "Every cell is decided: no hidden clue would help")
            return {'CANCELLED'}
        line, settled = found
        name = scene.line_name(obj, line)
        if self.reveal:
            toggle_line(obj, line)
            self.report({'INFO'}, f"Showed the clue of {name}: it settles {settled} undecided cells")
        else:
            scene.select_clue(obj, line)
            self.report({'INFO'}, f"The clue of {name} would settle {settled} undecided cells")
        return {'FINISHED'}


class NONOGRAM_OT_repair(polls.Polled, _DesignJob, bpy.types.Operator):
    """Show the fewest hidden clues that make the puzzle unique and solvable by the chosen
    logic again (one undo step; the puzzle is checked again after)"""
    bl_idname = "nonogram.repair"
    bl_label = "Repair"
    bl_options = {'REGISTER', 'UNDO'}
    checks = (polls.nonogram, polls.no_job)

    def make_job(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        self.cancel_is_cooperative = True  # repair polls its progress callback
        got = _hidden_clue_session(self, obj, "repair")
        if got is None:
            return None
        hidden, sess, lock, logic = got
        self._remember(obj, hidden)
        self._logic = logic

        def run(progress):
            with lock:
                return sess.repair(hidden, logic, progress=progress)
        return Job("repair", run)

    def finish(self, context: bpy.types.Context, found):
        obj = _nonogram_named(self, self._obj_name)
        if obj is None:
            return {'CANCELLED'}
        if found is None:
            self.report({'INFO'}, "Repair cancelled")
            return {'CANCELLED'}
        if not _clues_unchanged(self, obj, self._key, "repair"):
            return {'CANCELLED'}
        logic = {"line": "line logic", "probe": "line logic + probing"}[self._logic]
        if not found.lines:
            self.report({'INFO'}, f"Already unique and solvable by {logic}: nothing to show")
            return {'CANCELLED'}
        change_hidden(obj, found.hidden)  # one change: one undo step, then the live check
        names = ", ".join(found.names[:6]) + (" …" if len(found.names) > 6 else "")
        self.report({'INFO'}, f"Showed {len(found.lines)} clue(s) ({names}): unique and solvable by "
                              f"{logic} again")
        return {'FINISHED'}
