"""Clue inks a player can tell apart: the colours a colour puzzle's numbers, palette buttons and
painted cubes are drawn in, chosen for legibility rather than copied from the model.

A puzzle colour's own colour (``ColourPuzzle.clue_colours``, the mean of the model's colours it
groups) can be anything: two browns 7 apart, a near-white that looks like an unpainted cube, a
yellow that vanishes on the cream cubes. ``choose_inks`` gives each puzzle colour an ink near its
own hue that is

- dark enough to read on the light cubes: relative luminance at most ``MAX_INK_LUMINANCE``, a
  contrast of at least 3.2:1 (WCAG's large text) on the page's cube, the centre of the page's
  marked cube and Blender's player cube;
- at least ``MIN_DELTA_E`` (CIEDE2000) from every other ink, and at least ``MIN_DELTA_E_CVD``
  under simulated protanopia and deuteranopia (Machado et al. 2009, full severity) — held for
  up to ``GUARANTEED_COLOURS`` colours; with more, the search lowers both limits together until
  the colours fit and ``ink_report`` says what was reached;
- readable on a painted cube: a painted cube takes its colour's ink, and every number is drawn
  with a white outline, so a number reads on any painted cube by the outline's contrast with
  the ink and with the paint (both at least 3.2:1 with these luminances).

The reveal keeps the model's own colours; only the clues, buttons and paint use the inks. The
same function serves the web page and Blender's player view, so both show the same inks.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

import numpy as np

from .colourspace import ciede2000, linear_to_lab, linear_to_oklab, srgb_to_linear

MIN_DELTA_E = 20.0
MIN_DELTA_E_CVD = 15.0
GUARANTEED_COLOURS = 6
MAX_INK_LUMINANCE = 0.2
# The cubes the numbers are read on (sRGB): the web page's cream cube, the light blue centre of
# its marked cube (web/src/shading.js MARKED_CENTRE, framed in blue) and Blender's player cube
# (scene/common.py CELL_COLOURS "unknown", 0.75 linear grey).
CUBE_COLOURS = ((0.95, 0.93, 0.88), (0.78, 0.9, 1.0), (0.88, 0.88, 0.86))
OUTLINE = (1.0, 1.0, 1.0)   # the outline every coloured number has (web/src/atlas.js)
# Simulated colour vision deficiencies on linear RGB (Machado, Oliveira & Fernandes 2009, 1.0).
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
_LEVELS = 12            # candidate inks: an sRGB grid of 12 levels a channel, the dark ones
_NODES = 20_000         # search steps before the limits are lowered


def relative_luminance(srgb) -> np.ndarray:
    return srgb_to_linear(srgb) @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a, b) -> np.ndarray:
    """WCAG contrast ratio of sRGB colours (1 to 21)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def views(srgb) -> list:
    """CIELAB of sRGB colours as seen with normal vision, protanopia and deuteranopia."""
    lin = srgb_to_linear(np.asarray(srgb, np.float64))
    return [linear_to_lab(lin)] + [linear_to_lab(np.clip(lin @ m.T, 0.0, 1.0)) for m in (PROTANOPIA, DEUTERANOPIA)]


@lru_cache(maxsize=1)
def _candidates():
    """The dark enough sRGB colours of the grid, their OKLab x 100, and the CIEDE2000 between
    every two of them in normal vision and (the lesser of) under the two deficiencies."""
    v = np.linspace(0.0, 1.0, _LEVELS)
    grid = np.stack(np.meshgrid(v, v, v, indexing="ij"), -1).reshape(-1, 3)
    ink = grid[relative_luminance(grid) <= MAX_INK_LUMINANCE]
    labs = views(ink)
    a, b = np.triu_indices(len(ink), 1)
    normal = np.zeros((len(ink), len(ink)), np.float32)
    cvd = np.zeros_like(normal)
    normal[a, b] = normal[b, a] = ciede2000(labs[0][a], labs[0][b])
    cvd[a, b] = cvd[b, a] = np.minimum(ciede2000(labs[1][a], labs[1][b]), ciede2000(labs[2][a], labs[2][b]))
    return ink, linear_to_oklab(srgb_to_linear(ink)) * 100.0, normal, cvd


def _preference(target, ok) -> np.ndarray:
    """How far each candidate is from looking like ``target`` once darkened: OKLab hue and
    chroma (a, b) count in full, lightness a quarter (every ink is darker than most models)."""
    t = linear_to_oklab(srgb_to_linear(np.asarray(target, np.float64))) * 100.0
    return np.hypot(ok[:, 1] - t[1], ok[:, 2] - t[2]) + 0.25 * np.abs(ok[:, 0] - t[0])


def _search(order, normal, cvd, apart, apart_cvd, nodes):
    """Candidate index per colour (in ``order`` of candidate lists) with every pair at least
    ``normal`` apart and ``cvd`` under both deficiencies (the distance tables ``apart`` and
    ``apart_cvd``); depth first, the preferred candidates first; None when ``nodes`` steps
    find nothing."""
    k = len(order)
    chosen: list = []
    budget = [nodes]

    def place(j):
        if j == k:
            return True
        cand = order[j]
        ok = np.ones(len(cand), bool)
        for s in chosen:
            ok &= (apart[cand, s] >= normal) & (apart_cvd[cand, s] >= cvd)
        for c in cand[ok]:
            budget[0] -= 1
            if budget[0] < 0:
                return False
            chosen.append(int(c))
            if place(j + 1):
                return True
            chosen.pop()
        return False

    return list(chosen) if place(0) else None


def choose_inks(colours) -> np.ndarray:
    """sRGB float (k, 3) inks for puzzle colours ``colours`` (sRGB, (k, 3), colour 1 first):
    each near its colour's hue, all of them legible and apart (module docstring).
    Deterministic: the same colours give the same inks (the page and Blender agree)."""
    target = np.asarray(colours, np.float64).reshape(-1, 3)
    k = len(target)
    ink, ok, apart, apart_cvd = _candidates()
    if k == 0:
        return np.zeros((0, 3))
    order = [np.argsort(_preference(t, ok), kind="stable") for t in target]
    normal, cvd = MIN_DELTA_E, MIN_DELTA_E_CVD
    while True:
        picked = _search(order, normal, cvd, apart, apart_cvd, _NODES)
        if picked is not None or normal < 1.0:
            break
        normal, cvd = normal * 0.95, cvd * 0.95
    if picked is None:   # cannot happen with the candidates there are; keep going regardless
        picked = [int(o[0]) for o in order]
    return ink[np.asarray(picked)]


def ink_report(inks) -> dict:
    """What a set of inks reaches: the least CIEDE2000 between two of them in normal vision,
    under protanopia and deuteranopia; the least contrast on the cubes; the least contrast of a
    number's outline with an ink and with a painted cube."""
    inks = np.asarray(inks, np.float64).reshape(-1, 3)
    labs = views(inks)
    out = {"colours": len(inks)}
    for name, lab in zip(("delta_e", "delta_e_protanopia", "delta_e_deuteranopia"), labs):
        d = [float(ciede2000(lab[a], lab[b])) for a in range(len(inks)) for b in range(a + 1, len(inks))]
        out[name] = min(d) if d else float("inf")
    out["contrast_on_cubes"] = float(min(contrast(inks, np.asarray(c)).min() for c in CUBE_COLOURS))
    outline = np.asarray(OUTLINE)
    out["outline_contrast"] = float(contrast(inks, outline).min())
    return out


def legible(inks, report: Optional[dict] = None) -> bool:
    """Whether inks meet the stated limits (for up to GUARANTEED_COLOURS colours)."""
    r = report or ink_report(inks)
    return (r["delta_e"] >= MIN_DELTA_E - 1e-9
            and min(r["delta_e_protanopia"], r["delta_e_deuteranopia"]) >= MIN_DELTA_E_CVD - 1e-9
            and r["contrast_on_cubes"] >= 3.0 and r["outline_contrast"] >= 3.0)
