"""Names, cell states and limits shared by the scene-building modules, and the user-facing error."""
from ..jobs.errors import NonogramError as NonogramError  # the scene's modules raise it

TAG = "nonogram3d"              # ID property on node groups/materials this add-on made
GN_VERSION = 6                  # bump when the node groups change, so old files get new groups
VOXEL_GROUP = "Nonogram Voxels"
LABEL_GROUP = "Nonogram Clues"
PLAYER_GROUP = "Nonogram Player"
VOXEL_MATERIAL = "Nonogram Voxel"
PLAYER_MATERIAL = "Nonogram Player Cube"
CLUE_MATERIALS = {"plain": "Nonogram Clue", "circle": "Nonogram Clue Circle",
                  "square": "Nonogram Clue Square"}
# Dark ink on light cubes, as in Picross 3D; circles and squares also get their own colour.
CLUE_COLOURS = {"plain": (0.02, 0.02, 0.02, 1.0), "circle": (0.02, 0.12, 0.6, 1.0),
                "square": (0.6, 0.05, 0.02, 1.0)}
# The designer's labels float over the background (dark in Blender and in our renders).
FLOATING_CLUE_COLOURS = {"plain": (0.9, 0.9, 0.88, 1.0), "circle": (0.3, 0.55, 1.0, 1.0),
                         "square": (1.0, 0.35, 0.25, 1.0)}
HIDDEN_CLUE_FADE = 0.8  # how transparent a hidden clue is in the designer's view
# Cubes by solver state (unknown light grey, as the player starts), and highlighted cells.
CELL_COLOURS = {"unknown": (0.75, 0.75, 0.72, 1.0), "filled": (0.2, 0.45, 0.9, 1.0),
                "empty": (0.8, 0.35, 0.3, 1.0), "highlight": (1.0, 0.45, 0.0, 1.0)}
# How a new nonogram looks (the add-on's preferences hold the user's own): colours by name,
# and the clue labels' size. Materials are shared by the nonograms of one style.
DEFAULT_STYLE = {**CELL_COLOURS, **CLUE_COLOURS, "label_size": 1.0}

EMPTY, FILLED, UNKNOWN = 1, 2, 3

# Rough peak memory per grid cell across voxelizing (grids per axis, anti-aliasing samples),
# the puzzle model (three int64 line arrays) and the point mesh with its attributes.
BYTES_PER_CELL = 160
# The puzzle file format refuses more cells than this; building a scene of them is pointless.
MAX_CELLS = 1 << 24




def object_kind(obj_type: str) -> str:
    """'an empty', 'a curve', 'an armature'...: an object type as a message names it."""
    word = obj_type.lower().replace("_", " ")
    return ("an " if word[:1] in "aeiou" else "a ") + word
