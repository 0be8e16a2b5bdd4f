import os

import bpy
from bpy.props import FloatProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from ..panels import preferences
from . import live_check, polls, scene
from .runtime import engine


class NONOGRAM_OT_import_puzzle(polls.Polled, bpy.types.Operator, ImportHelper):
    """Build a nonogram from a 3D puzzle file (no source mesh needed)"""
    bl_idname = "nonogram.import_puzzle"
    bl_label = "Import Puzzle"
    bl_options = {'REGISTER', 'UNDO'}

    filename_ext = ".json"
    filepath: StringProperty(subtype='FILE_PATH', options={'SKIP_SAVE'})
    filter_glob: StringProperty(default="*.json;*.json.gz", options={'HIDDEN'})
    voxel_size: FloatProperty(name="Voxel Size", default=0.1, min=1e-4, soft_max=10.0,
                              unit='LENGTH')

    checks = (polls.object_mode,)

    def execute(self, context: bpy.types.Context):
        pf = engine("files.puzzlefile")
        try:
            puzzle = pf.load_puzzle(self.filepath)
        except (pf.PuzzleFileError, OSError) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        name = puzzle.name or os.path.splitext(os.path.basename(self.filepath))[0] or "Puzzle"
        # Centre the puzzle on the 3D cursor, sitting on it.
        size = self.voxel_size
        cursor = context.scene.cursor.location
        origin = (cursor.x - puzzle.shape[0] * size / 2 if puzzle.is_3d else cursor.x,
                  cursor.y - (puzzle.shape[1] * size / 2 if puzzle.is_3d else 0), cursor.z)
        try:
            obj = scene.build_from_puzzle(context, puzzle, name=name, origin=origin,
                                          voxel_size=size, style=preferences.style(context))
        except scene.NonogramError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if puzzle.solution is not None and scene.hidden_mask(obj).any():
            # a designed puzzle: check it as the player gets it, as after any change of its clues
            live_check.request(obj)
        self.report({'INFO'}, f"Imported '{obj.name}' ({'×'.join(map(str, puzzle.shape))})")
        return {'FINISHED'}
