import os
import tempfile
import webbrowser
from pathlib import Path

import bpy

from . import polls, scene
from .runtime import engine

PLAY_FOLDER = "nonogram3d-play"


def page_path(obj) -> str:
    """Where Play in Browser writes the active nonogram's page (a temporary folder)."""
    return os.path.join(tempfile.gettempdir(), PLAY_FOLDER, (bpy.path.clean_name(obj.name) or "nonogram") + ".html")


class NONOGRAM_OT_play_in_browser(polls.Polled, bpy.types.Operator):
    """Play the active nonogram, with its hidden clues, in the system's web browser (the page
    is written to a temporary folder; nothing in the scene changes)"""
    bl_idname = "nonogram.play_in_browser"
    bl_label = "Play in Browser"
    bl_options = {'REGISTER'}

    checks = (polls.nonogram,)

    def execute(self, context: bpy.types.Context):
        obj = scene.nonogram_of(context.active_object)
        web = engine("play.webpage")
        path = page_path(obj)
        try:
            puzzle = scene.load_stored_puzzle(obj)
            puzzle.name = puzzle.name or obj.name
            web.write_page(puzzle, path)
        except (scene.NonogramError, web.WebPageError, OSError) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if not webbrowser.open(Path(path).as_uri()):
            self.report({'WARNING'}, f"No web browser could be opened; the page is {path}")
            return {'FINISHED'}
        self.report({'INFO'}, f"Opened {path} in the web browser")
        return {'FINISHED'}
