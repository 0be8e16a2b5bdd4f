"""Puzzle kinds: the one design pipeline (``design/``) and the one solve pipeline (``driver.py``,
``search.py``) work on every puzzle through a *kind* object built for it, which provides the
kind's own kernels; the pipelines own everything else (the order of trials, the pass by halves,
the informed start, annealing, band steering, the live check, limits, progress, verdicts, the
score and its bands).

``kind_for(puzzle)`` gives it: ``plainkind.PlainKind`` for a plain puzzle (the bit kernels of
``maskprop.py`` / ``propagate.py``; ``engine/kinds/plain/``), ``colourkind.ColourKind`` for a
colour puzzle of two or more colours (``engine/kinds/colour/``). A 1-colour puzzle *is* a plain puzzle (``colourpuzzle.as_plain``: the same cells, lines
and clues), so it gets the plain kind and every answer the plain puzzle gets.

The design face of a kind (``K``), for one puzzle (usually the full clue set of its solution):

- ``K.n_lines``, ``K.n_cells``, ``K.line_start`` / ``K.line_cells`` (the lines' cells),
  ``K.clued`` (bool per line: it has a clue), ``K.colours``, ``K.name``;
- ``K.shown``: uint8 per line, 1 = the clue takes part. The pipeline writes it; every method
  below reads it;
- the state (what logic knows of each cell) with a trail: ``K.reset()`` (nothing known),
  ``K.mark()`` / ``K.undo(mark)``, ``K.undecided()`` (cells not decided), ``K.undecided_cells()``;
- ``K.run(key=None, probe=False) -> RUN_*`` (``maskprop``'s statuses): from nothing known, the
  shown lines to line logic's fixpoint (the line of highest ``key`` first), probing when it
  stalls and ``probe``; ``K.contrib`` then holds the cells each line changed;
- ``K.propagate(lines=None, undo_to=-1) -> bool``: undo to a mark, queue ``lines`` (default every
  shown line) and propagate from the state; False on a contradiction. The pass by halves runs on
  it; the state is the same fixpoint whatever the order (complete line solvers);
- ``K.probe() -> RUN_*`` (probing from the state to its closure; RUN_BUDGET past the kind's
  budget: no proof either way) and ``K.probe_solves()`` (the same, leaving the state as it was);
- ``K.new_gains()``, ``K.best_gain(key, gains) -> line`` (the hidden line one application of which
  changes the most cells now, ties by ``key``; ``gains`` keeps the counts between steps) and
  ``K.show(line, gains)`` (show it, propagate, mark the gains it changed to count again): the
  informed start's steps;
- ``K.grade(probe) -> model.difficulty.Difficulty``: the score of the shown clues from a
  synchronous round solve (``model.difficulty.from_rounds``: one formula and one set of bands for every kind);
- ``K.cover()`` (shown lines per cell), ``K.line_solves()``, ``K.probes()``.

Where to add a puzzle kind: a model class (``model/``), its line solvers (``lines/``), a folder
``kinds/<name>/`` beside the two with its kind class (its propagation with a trail, probing,
grading rounds, the search's node operations and its SAT encoding; a quick-search kernel is
optional: without one the driver's ``search._Driver._quick_rounds`` runs on the node
operations), a branch in ``kind_for``, its file syntax
(``files/puzzlefile.py``), and the property tests against brute force and CP-SAT.
"""
from __future__ import annotations

from ..model.colourpuzzle import as_plain, is_colour
from ..kinds.plain.plainkind import PlainKind


def plain_puzzle(puzzle):
    """The puzzle as the kind that answers it sees it: a 1-colour puzzle as its plain puzzle,
    any other as it is."""
    return as_plain(puzzle) if is_colour(puzzle) and puzzle.k == 1 else puzzle


def kind_for(puzzle):
    """The kind object of ``puzzle`` (every clue it has shown)."""
    p = plain_puzzle(puzzle)
    if not is_colour(p):
        return PlainKind(p)
    # imported on first need: its modules cost a plain puzzle's CLI solve ~30 ms of start-up
    from ..kinds.colour.colourkind import ColourKind
    return ColourKind(p)


def kind_name(puzzle) -> str:
    """``"plain"`` or ``"colour"``: which kind answers ``puzzle`` (a 1-colour puzzle is plain)."""
    return "colour" if is_colour(puzzle) and puzzle.k > 1 else "plain"
