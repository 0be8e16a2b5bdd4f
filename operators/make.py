import json

import bpy

from ..panels import preferences
from ..panels.properties import MakeOptions, option_names
from . import polls, scene
from .options import fill_from_panel
from .worker import Job, JobOperator

MAKE_OPTIONS = option_names(MakeOptions)


class NONOGRAM_OT_make(polls.Polled, MakeOptions, JobOperator, bpy.types.Operator):
    """Turn the active mesh into a 3D nonogram: voxels, clue labels and the stored puzzle
    (in the background; Esc cancels)"""
    bl_idname = "nonogram.make"
    bl_label = "Make Nonogram"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    finish_checks = (polls.object_mode,)
    checks = (polls.object_mode, polls.no_job, polls.mesh_source)

    def draw(self, context: bpy.types.Context):
        self.layout.use_property_split = True
        MakeOptions.draw_options(self.layout, self)

    def make_job(self, context: bpy.types.Context):
        # The source is read here, on the main thread; the worker only voxelizes; finish()
        # builds the scene. Cancelling before finish() therefore leaves the file untouched.
        options = fill_from_panel(self, context, MAKE_OPTIONS)
        self._hide_source = options.pop("hide_source")
        source = context.active_object
        try:
            src = scene.read_source(context, source, options["resolution"])
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return None
        self._source_name = source.name
        return Job("make", lambda progress: scene.voxelize_source(src, progress=progress,
                                                                   **options))

    def finish(self, context: bpy.types.Context, made):
        source: "bpy.types.Object | None" = bpy.data.objects.get(self._source_name)
        if source is None:
            self.report({'ERROR'}, f"'{self._source_name}' was deleted while it was being made")
            return {'CANCELLED'}
        obj = scene.build_made(context, source, made, hide_source=self._hide_source,
                               style=preferences.style(context))
        for w in made.result.warnings:
            self.report({'WARNING'}, w)
        info = json.loads(scene.props(obj).make_info)
        X, Y, Z = info["shape"]
        self.report({'INFO'}, f"Nonogram {X}×{Y}×{Z}: {info['filled']} filled cells, "
                    f"{len(scene.props(obj).labels.data.vertices)} clues "
                    f"({info['time_s']['total']:.2f} s)")
        return {'FINISHED'}
