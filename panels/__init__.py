"""Display only: the sidebar's panels, the menus, the preferences' UI. Panels name operators by
their ``bl_idname`` strings and read the scene through ``scene``; they never import
``operators``. The stored property groups they show live in ``scene/properties.py``."""
from typing import Any, cast

import bpy

from . import colours, design, menus, preferences, sidebar

# Registration order is the order in the sidebar's tab.
classes = (*sidebar.classes_top, *design.classes, *colours.classes, *sidebar.classes_bottom)
# cast: the stubs declare register_classes_factory as returning None.
_register_classes, _unregister_classes = cast(Any, bpy.utils.register_classes_factory(classes))


def register():
    _register_classes()
    menus.register()
    preferences.register()


def unregister():
    preferences.unregister()
    menus.unregister()
    _unregister_classes()
