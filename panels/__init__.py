"""N-panel UI and the add-on's property groups (display only, no logic)."""
from . import properties, sidebar


def register():
    properties.register()
    sidebar.register()


def unregister():
    sidebar.unregister()
    properties.unregister()
