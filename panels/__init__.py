"""N-panel UI, menus and the add-on's property groups (display only, no logic)."""
from . import menus, properties, sidebar


def register():
    properties.register()
    sidebar.register()
    menus.register()


def unregister():
    menus.unregister()
    sidebar.unregister()
    properties.unregister()
