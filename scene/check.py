"""What the design tools leave on a nonogram: the last Hide Clues result and the live check of
the puzzle as the player gets it (stored as JSON on the object), and the undecided cells
(highlighted through the point attributes)."""
from __future__ import annotations

import json

import numpy as np

from .attributes import set_object_point_attribute
from .cells import clear_animation
from .common import EMPTY, NonogramError
from .hidden import hidden_mask, mask_key
from .store import cells_mesh, jsonable, props


def store_design(obj, info) -> None:
    """Keep a Hide Clues result (``DesignResult.to_dict()``-like) with the hidden clues it is
    about (its ``mask`` fingerprint: hand edits later make it history, not the current state)."""
    if info:
        info = dict(info, mask=mask_key(hidden_mask(obj)))
    props(obj).design = json.dumps(jsonable(info)) if info else ""


def load_design(obj):
    text = props(obj).design
    return json.loads(text) if text else None


def load_check(obj):
    text = props(obj).check
    return json.loads(text) if text else None


def apply_check(obj, summary: dict, state, undecided) -> None:
    """The check's verdict on the object and its cells: the designer's view draws what logic
    decided filled plus every undecided cell, those highlighted (the player's view highlights
    them too, when sliced open). The Solve report is dropped: it was about other clues."""
    mesh = cells_mesh(obj)
    n = len(mesh.vertices)
    state = np.asarray(state, dtype=np.int32).ravel()
    undecided = np.asarray(undecided, dtype=bool).ravel()
    if state.size != n or undecided.size != n:
        raise NonogramError(f"the check returned {state.size} cells for a {n}-cell nonogram")
    set_object_point_attribute(obj, "state", state)
    set_object_point_attribute(obj, "visible", (state != EMPTY) | undecided, 'BOOLEAN')
    set_object_point_attribute(obj, "highlight", undecided, 'BOOLEAN')
    set_object_point_attribute(obj, "differs", np.zeros(n, dtype=bool), 'BOOLEAN')
    set_object_point_attribute(obj, "solve_rank", np.full(n, -1), 'INT')
    pg = props(obj)
    if pg.report:
        clear_animation(obj)  # it replayed a solve of other clues
    pg.report = ""
    pg.check = json.dumps(jsonable(summary))
    obj.update_tag()
