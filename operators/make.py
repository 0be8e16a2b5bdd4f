import bpy

from ..scene.properties import THIN_PARTS_OPTIONS, MakeOptions, option_names, style
from .. import scene
from ..scene import polls
from .options import fill_from_panel
from ..jobs.make import check_colour_options, voxelize_source
from ..jobs.worker import Job
from .job_operator import JobOperator

MAKE_OPTIONS = option_names(MakeOptions)


class NONOGRAM_OT_make(polls.Polled, MakeOptions, JobOperator, bpy.types.Operator):
    """Turn the active mesh (with the other selected meshes: their union) into a 3D nonogram:
    voxels, clue labels and the stored puzzle (in the background; Esc cancels)"""
    bl_idname = "nonogram.make"
    bl_label = "Make Nonogram"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    finish_checks = (polls.object_mode,)
    checks = polls.MAKE

    def draw(self, context: bpy.types.Context):
        self.layout.use_property_split = True
        MakeOptions.draw_options(self.layout, self)

    def make_job(self, context: bpy.types.Context):
        # The source is read here, on the main thread; the worker only voxelizes; finish()
        # builds the scene. Cancelling before finish() therefore leaves the file untouched.
        options = fill_from_panel(self, context, MAKE_OPTIONS)
        self._hide_source = options.pop("hide_source")
        options["bridge"], options["thin_parts"] = THIN_PARTS_OPTIONS[options["thin_parts"]]
        try:
            check_colour_options(options["colours"], options["puzzle_colours"])
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        sources, self._left_out = scene.selected_sources(context)
        if not sources and self._left_out:
            self.report({'ERROR'}, "No mesh to make a nonogram from: left out "
                        + ", ".join(f"'{n}' ({why})" for n, why in self._left_out))
            return None
        try:
            src = scene.read_source(context, sources, options["resolution"], options["colours"])
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        self._source_names = [o.name for o in sources]
        return Job("make", lambda progress: voxelize_source(src, progress=progress,
                                                                   **options))

    def finish(self, context: bpy.types.Context, made):
        sources: "list[bpy.types.Object | None]" = [bpy.data.objects.get(name)
                                                    for name in self._source_names]
        for name, source in zip(self._source_names, sources):
            if source is None:
                self.report({'ERROR'}, f"'{name}' was deleted while it was being made")
                return {'CANCELLED'}
        obj = scene.build_made(context, sources, made, hide_source=self._hide_source,
                               style=style(context))
        for w in made.result.warnings:
            self.report({'WARNING'}, w)
        info = made.info
        X, Y, Z = info["shape"]
        stats = info["diagnostics"].get("pieces")
        n = stats["pieces"] if stats else 0
        text = (f"Nonogram {X}×{Y}×{Z}: {info['filled']} filled cells"
                + (f" in {n} piece{'s' if n != 1 else ''}" if n else "")
                + f", {len(scene.props(obj).labels.data.vertices)} clues "
                f"({info['time_s']['total']:.2f} s)")
        if info["diagnostics"].get("size_note"):
            text += f"; {info['diagnostics']['size_note']}"
        if info.get("clue_colours"):
            k = len(info["clue_colours"])
            text += f"; a colour puzzle of {k} colour{'s' if k != 1 else ''}"
        if info.get("palette"):
            k = len(info["palette"])
            text += f"; {k} colour{'s' if k != 1 else ''}"
            if info.get("colour_info"):
                text += " (" + "; ".join(info["colour_info"]) + ")"
            for note in info.get("colour_notes", []):
                self.report({'WARNING'}, f"Colours: {note}")
        if len(sources) > 1:
            text += f"; the union of {len(sources)} meshes: " + ", ".join(self._source_names)
        if info["changes"]:
            text += "; " + ", ".join(info["changes"])
        if self._left_out:
            text += "; left out: " + ", ".join(f"'{n}' ({why})" for n, why in self._left_out)
        self.report({'INFO'}, text)
        return {'FINISHED'}
