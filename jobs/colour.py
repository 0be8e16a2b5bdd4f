"""Solve and design for colour puzzles (issue #24), bpy-free so they run in a worker thread, with
results in the terms the scene's cells and clues already take: a cell is empty, filled (some
colour: the cells' reveal colours tell which) or unknown; a design is a hidden-clue mask."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import engine_access


def is_colour_puzzle(puzzle) -> bool:
    return getattr(puzzle, "clue_colours", None) is not None


@dataclass
class ColourSolve:
    """A colour solve's report (``engine.solve.coloursolve.ColourReport``) with the fields the
    Solve operator and ``scene.apply_solve_result`` read."""
    report: Any
    state: np.ndarray            # per cell: the engine's EMPTY / FILLED / UNKNOWN
    values: np.ndarray           # per cell: 0 empty, 1..k its colour, -1 not known
    order: np.ndarray            # the colour solver records no deduction order: empty

    verdict = property(lambda self: self.report.verdict)
    difficulty = property(lambda self: self.report.difficulty)
    known_fraction = property(lambda self: self.report.known_fraction)
    linesolvers = property(lambda self: self.report.linesolvers)
    time_s = property(lambda self: self.report.time_s)
    differing_cells = property(lambda self: self.report.differing_cells)

    def to_dict(self) -> dict:
        d = self.report.to_dict()
        d["solver"] = d["method"] = "colour"
        d["options"] = {"linesolver": "colour lines"}
        d["colours_known"] = int((self.values > 0).sum())
        return d


def cell_states(bits: np.ndarray) -> np.ndarray:
    """The engine's cell codes of a colour solver state (bit 0: may be empty, bit c: may be colour
    c): empty when only bit 0 is left, filled when bit 0 is gone (a colour, maybe not yet which)."""
    cells = engine_access.cells
    bits = np.asarray(bits, dtype=np.int64)
    out = np.full(bits.shape, int(cells.UNKNOWN), dtype=np.int8)
    out[bits == 1] = int(cells.EMPTY)
    out[(bits & 1) == 0] = int(cells.FILLED)
    return out


def solve_colour(puzzle, *, time_limit=None) -> ColourSolve:
    """The colour solver's verdict on ``puzzle`` (graded when logic solves it). A unique puzzle's
    cells are its solution's, also when search found it; otherwise what logic deduced."""
    cs = engine_access.coloursolve
    report = cs.solve_colour(puzzle, time_limit=time_limit, grade=True)
    if report.verdict in ("unique", "solved") and report.solutions:
        values = np.asarray(report.solutions[0], dtype=np.int64)
    else:
        values = cs.values_of(np.asarray(report.state, dtype=np.int64))
    bits = np.where(values >= 0, np.left_shift(1, np.maximum(values, 0)), report.state)
    return ColourSolve(report, cell_states(bits), values, np.zeros(0, dtype=np.int64))


@dataclass
class ColourHiding:
    """A colour design (``engine.design.colourdesign.ColourDesign``) with the fields Hide Clues
    reads from a black-and-white ``DesignResult``."""
    design: Any
    hidden: np.ndarray           # bool per line: the clues the design hides
    method: str                  # the design method (greedy, anneal or random)
    full: Any = None             # the full colour puzzle designed (made here when regrouped)
    regrouped: bool = False      # made from a black-and-white puzzle's reveal colours

    hidden_count = property(lambda self: self.design.hidden_count)
    n_lines = property(lambda self: self.design.n_lines)
    score = property(lambda self: self.design.score)
    band = property(lambda self: self.design.band)
    message = property(lambda self: self.design.message)
    logic = property(lambda self: self.design.logic)
    stopped_early = property(lambda self: not self.design.locally_minimal)

    def to_dict(self) -> dict:
        return dict({k: v for k, v in self.design.to_dict().items() if k != "stats"}, method=self.method,
                    colour=True)

    def proven(self) -> dict:
        """The live check's summary, from what the colour design proved: each hide it kept left
        the puzzle solved by its logic (so unique), which holds for the whole mask."""
        p = self.design.puzzle
        shown = np.repeat(~self.hidden, np.diff(p.line_start))
        covered = np.zeros(p.n_cells, dtype=bool)
        covered[p.line_cells[shown]] = True
        return {"verdict": "unique", "solvable": True, "level": self.logic, "score": self.score,
                "band": self.band, "undecided": 0, "uncovered": int((~covered).sum()),
                "hidden_count": self.hidden_count, "lines": self.n_lines, "time_s": 0.0,
                "compile_s": 0.0, "logic": self.logic}


def design_colour(full, *, logic="line", band=None, method="greedy", seed=0, time_limit=None,
                  progress=None, puzzle_colours=1) -> ColourHiding:
    """Hide Clues for a colour puzzle (``full``: every clue, with its solution): the colour
    designer with ``method`` (raises its ``ColourDesignError``). A
    black-and-white ``full`` with reveal colours is first made the colour puzzle of
    ``puzzle_colours`` groups of them (``regroup_check`` said it can be); so is a colour puzzle
    of another number of colours > 1 (its reveal palette grouped anew)."""
    regrouped = needs_regroup(full, puzzle_colours)
    if regrouped and is_colour_puzzle(full):
        full = engine_access.colourgroups.regroup(full, int(puzzle_colours))
    elif regrouped:
        full = engine_access.colourgroups.colour_puzzle_from_reveal(full, int(puzzle_colours))
    d = engine_access.colourdesign.design_colour(full, logic=logic, band=band, seed=seed, method=method,
                                                 time_limit=time_limit, progress=progress)
    hidden = np.asarray(d.puzzle.clue_kind) == 0
    return ColourHiding(d, hidden, method, full, regrouped)


def needs_regroup(full, puzzle_colours: int) -> bool:
    """Whether Hide Clues with ``puzzle_colours`` first (re)groups ``full``: a black-and-white
    puzzle when asked for more than 1; a colour puzzle when asked for another number > 1 (1 or
    its own number keep the grouping it has, perhaps picked by the designer)."""
    k = int(puzzle_colours)
    if is_colour_puzzle(full):
        return k > 1 and k != full.k
    return k > 1


def regroup_check(full, puzzle_colours: int) -> str:
    """Why ``full`` (black-and-white, or a colour puzzle) cannot become a colour puzzle of
    ``puzzle_colours``, or ''."""
    if is_colour_puzzle(full):
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


def suggest_colour(full, hidden, logic: str):
    """(line, cells it settles) of the hidden clue of colour puzzle ``full`` whose showing settles
    the most undecided cells, or None when logic already decides every cell."""
    found = engine_access.coloursession.suggest_colour_clues(full, hidden, logic, k=1)
    return (found[0].line, found[0].settles) if found else None


def repair_colour(full, hidden, logic: str, progress=None):
    """The fewest clues of colour puzzle ``full`` to show so that it is unique and solvable at
    ``logic`` again (``engine.design.session.Repair``; None when ``progress`` cancelled it)."""
    return engine_access.coloursession.repair_colour(full, hidden, logic, progress)
