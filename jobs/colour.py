"""Puzzle Colours for Hide Clues (bpy-free): whether a design first (re)groups the model's reveal
colours into a colour puzzle of K colours, why it cannot, and the regrouped full puzzle. Solving
and designing are the engine's one pipeline for every kind (``engine_access.solve``,
``engine_access.design``); nothing here depends on the kind beyond the grouping."""
from __future__ import annotations

from . import engine_access


def is_colour(puzzle) -> bool:
    """Whether ``puzzle`` (a parsed puzzle or a result's ``puzzle``) is a colour puzzle."""
    return engine_access.colourpuzzle.is_colour(puzzle)


def needs_regroup(full, puzzle_colours: int) -> bool:
    """Whether Hide Clues with ``puzzle_colours`` first (re)groups ``full``: a black-and-white
    puzzle when asked for more than 1; a colour puzzle when asked for another number > 1 (1 or
    its own number keep the grouping it has, perhaps picked by the designer)."""
    k = int(puzzle_colours)
    if is_colour(full):
        return k > 1 and k != full.k
    return k > 1


def regroup_check(full, puzzle_colours: int) -> str:
    """Why ``full`` (black-and-white, or a colour puzzle) cannot become a colour puzzle of
    ``puzzle_colours``, or ''."""
    if is_colour(full):
        n = len(engine_access.colourgroups.reveal_parts(full)[0])
        if n < puzzle_colours:
            return (f"Puzzle Colours {puzzle_colours} groups the palette's colours, and this colour "
                    f"puzzle has {n}: set Puzzle Colours to at most {n} (or 1 to keep its grouping)")
        return ""
    palette = getattr(full, "palette", None)
    n = 0 if palette is None or getattr(full, "colours", None) is None else len(palette)
    if n < puzzle_colours:
        return (f"Puzzle Colours {puzzle_colours} groups the model's colours, and this nonogram has "
                f"{n or 'none'}: Make it with Colours {puzzle_colours} or more")
    if full.solution is None:
        return "Puzzle Colours needs the puzzle's solution"
    return ""


def regrouped(full, puzzle_colours: int):
    """The full colour puzzle of ``puzzle_colours`` groups of ``full``'s reveal colours (a colour
    puzzle's palette grouped anew; a black-and-white puzzle's made a colour puzzle)."""
    groups = engine_access.colourgroups
    if is_colour(full):
        return groups.regroup(full, int(puzzle_colours))
    return groups.colour_puzzle_from_reveal(full, int(puzzle_colours))
