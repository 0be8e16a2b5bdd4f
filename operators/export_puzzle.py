import bpy
from bpy.props import EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from . import polls, scene
from .runtime import engine

FORMATS = [('JSON', "Puzzle file (.json)", "The engine's puzzle file: clues, hidden clues and the solution"),
           ('HTML', "Playable page (.html)", "A self-contained web page that plays the puzzle in a browser "
                                             "(no network, no server)")]
EXTENSIONS = {'JSON': ".json", 'HTML': ".html"}


class NONOGRAM_OT_export_puzzle(polls.Polled, bpy.types.Operator, ExportHelper):
    """Save the active nonogram's puzzle as a puzzle file (the engine's JSON format) or as a
    playable web page"""
    bl_idname = "nonogram.export_puzzle"
    bl_label = "Export Puzzle"
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json;*.html", options={'HIDDEN'})
    file_format: EnumProperty(name="Format", items=FORMATS, default='JSON',
                              description="What to write: the puzzle file, or a page that plays it")

    checks = (polls.nonogram,)

    def _sync_extension(self):
        # ExportHelper.check() puts filename_ext on the path: follow the chosen format
        self.filename_ext = EXTENSIONS[self.file_format]

    def check(self, context):
        self._sync_extension()
        return ExportHelper.check(self, context)

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event):
        self._sync_extension()
        if not self.filepath:
            obj = scene.nonogram_of(context.active_object)
            self.filepath = bpy.path.clean_name(obj.name) + self.filename_ext
        return ExportHelper.invoke(self, context, event)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        pf = engine("files.puzzlefile")
        web = engine("play.webpage")
        try:
            puzzle = scene.load_stored_puzzle(obj)
            if self.file_format == 'HTML':
                if not puzzle.name:
                    puzzle.name = obj.name
                web.write_page(puzzle, self.filepath)
            else:
                pf.save_puzzle(puzzle, self.filepath)
        except (scene.NonogramError, pf.PuzzleFileError, web.WebPageError, OSError) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Saved {self.filepath}")
        return {'FINISHED'}
