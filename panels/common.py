"""What the sidebar's panels share: the tab they live in, and the active nonogram."""
from .. import scene


class _Sidebar:
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Nonogram"


def _active_nonogram(context):
    return scene.nonogram_of(context.active_object)


class _NonogramPanel(_Sidebar):
    """A sidebar panel about the active nonogram (shown only when there is one)."""

    @classmethod
    def poll(cls, context):
        return _active_nonogram(context) is not None
