"""N-panel UI, menus and the add-on's property groups (display only, no logic)."""
from . import menus, preferences, properties, sidebar


def register():
    properties.register()
    sidebar.register()
    menus.register()
    preferences.register()


def unregister():
    preferences.unregister()
    menus.unregister()
    sidebar.unregister()
    properties.unregister()
