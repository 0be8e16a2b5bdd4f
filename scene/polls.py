"""Shared poll checks: each returns why an operator cannot run now ('' when it can).

Here, in the scene layer, so that operators and panels both use them without importing each
other. Operators combine them with ``check`` in ``poll()``, which hands the first reason to
``poll_message_set``: F3, menus and buttons then say why an operator is greyed out instead of
"poll() failed, context is incorrect". Panels show the same reasons.
"""
from __future__ import annotations

import json
from typing import Callable

from ..jobs.worker import active_job
from .common import object_kind
from .store import holds_colour_puzzle, nonogram_of, props

Check = Callable[..., str]


class Polled:
    """Mix-in: ``poll()`` runs the class's ``checks`` in order."""
    checks: tuple = ()

    @classmethod
    def poll(cls, context) -> bool:
        return check(cls, context, *cls.checks)


def check(cls, context, *checks: Check) -> bool:
    """True when every check passes; otherwise the first reason becomes the poll message."""
    for condition in checks:
        why = condition(context)
        if why:
            cls.poll_message_set(why)
            return False
    return True


def why_not(context, *checks: Check) -> str:
    """The first reason among ``checks`` ('' when all pass), for panels."""
    for condition in checks:
        why = condition(context)
        if why:
            return why
    return ""


def object_mode(context) -> str:
    # Our operators change objects and their mesh data, which edit and paint modes hold apart.
    if context.scene is None:
        return "No scene"
    if context.mode != 'OBJECT':
        return "Switch to Object Mode"
    return ""


def no_job(context) -> str:
    job = active_job()
    return f"A nonogram {job.label} is still running (Esc cancels it)" if job is not None else ""


def mesh_source(context) -> str:
    """The active object can be made into a nonogram."""
    ob = context.active_object
    if ob is None:
        return "No active object: select a mesh object to make a nonogram from"
    if nonogram_of(ob) is not None:
        return f"'{ob.name}' is already a nonogram: select a mesh object"
    if ob.type != 'MESH':
        return f"'{ob.name}' is {object_kind(ob.type)} object, not a mesh: select a mesh object"
    return ""


def nonogram(context) -> str:
    if nonogram_of(context.active_object) is None:
        return "Select a nonogram (made by Make Nonogram or Import Puzzle)"
    return ""


def black_and_white(context) -> str:
    """The active nonogram's puzzle is black-and-white: what the solvers and tools written for
    those need (a colour puzzle has its own Solve and Hide Clues)."""
    why = nonogram(context)
    if why:
        return why
    obj = nonogram_of(context.active_object)
    if holds_colour_puzzle(obj):
        return f"'{obj.name}' is a colour puzzle: this works on black-and-white ones"
    return ""


# What Make needs (its operator's poll; the sidebar greys its button out with the same reason).
MAKE = (object_mode, no_job, mesh_source)


def piece_changes(context) -> str:
    """Make's piece options added cells to the active nonogram."""
    why = nonogram(context)
    if why:
        return why
    info = props(nonogram_of(context.active_object)).make_info
    repair = (json.loads(info).get("diagnostics", {}).get("repair") or {}) if info else {}
    if not (repair.get("thin_added") or repair.get("bridge_added")):
        return "Make added no cells: its Thin Parts option was off or changed nothing"
    return ""


def solved(context) -> str:
    why = nonogram(context)
    if why:
        return why
    if not props(nonogram_of(context.active_object)).report:
        return "Solve the nonogram first"
    return ""
