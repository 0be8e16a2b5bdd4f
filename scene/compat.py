"""What differs between the Blender versions the add-on runs on (4.2 LTS to 5.3), decided here once
from what the running Blender offers, never from scattered version checks. tests/test_blender_compat.py
checks each rule on every Blender line the test command runs.

- A Geometry Nodes modifier's input values: ID properties on the modifier (``mod["Socket_2"]``) up
  to Blender 5.1; from 5.2 RNA properties (``mod.properties.inputs.Socket_2.value``), and the
  modifier takes no ID properties at all (``mod[...] = ...`` raises TypeError).
- A Boolean Math node set to NOT has one input from 5.2 on (before, a second, unavailable one):
  ``nodetree.boolean_node`` wires only the first, which is right on every version.
"""
from __future__ import annotations

from typing import Any

import bpy

# Blender 5.2+: NodesModifier.properties (a GeometryNodesModifierInterface) holds the inputs.
MODIFIER_INPUTS_IN_RNA = "properties" in bpy.types.NodesModifier.bl_rna.properties


def modifier_input_owner(mod, identifier: str) -> tuple[Any, str]:
    """The struct and the property of it that hold the modifier's input ``identifier`` (a group
    interface socket's identifier): what ``layout.prop`` draws and ``path_from_id`` names."""
    if MODIFIER_INPUTS_IN_RNA:
        return getattr(mod.properties.inputs, identifier), "value"
    return mod, f'["{identifier}"]'


def get_modifier_value(mod, identifier: str):
    owner, prop = modifier_input_owner(mod, identifier)
    return getattr(owner, prop) if MODIFIER_INPUTS_IN_RNA else owner[identifier]


def set_modifier_value(mod, identifier: str, value) -> None:
    owner, prop = modifier_input_owner(mod, identifier)
    if MODIFIER_INPUTS_IN_RNA:
        setattr(owner, prop, value)
    else:
        owner[identifier] = value


def modifier_input_path(mod, identifier: str) -> str:
    """The input's data path from the object (a driver's target)."""
    owner, prop = modifier_input_owner(mod, identifier)
    return owner.path_from_id(prop)
