"""Puzzle colours from reveal colours: group a puzzle's reveal palette into k puzzle colours.

The reveal palette (issue #23's ``Puzzle.palette``, float32 (n, 3) sRGB, with ``Puzzle.colours``,
the palette index of each filled cell) can have many entries; a colour puzzle has few (2-4).
``group_palette`` splits the palette entries into k groups by scoring every partition (OKLab
distances, weighted by how many cells use each entry: groups visibly apart, each with a
meaningful share of the cells; see ``partition_scores``), ``colour_puzzle_from_reveal`` builds the full-clue colour
puzzle whose cell colours are the groups, keeping the palette and the grouping
(``colour_groups``: the puzzle colour 1..k of each palette entry). The designer may instead pass
its own grouping.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Optional, Sequence

import numpy as np

from .colourspace import linear_to_oklab, quantize_srgb, srgb_to_linear
from ..model.colourpuzzle import MAX_COLOURS, ColourPuzzle, colour_puzzle_from_grid, colour_text


# What "visibly distinct" and "a meaningful share" mean to the grouping (docs/ADDON.md, "Puzzle
# colours"): group colours at least D_VISIBLE apart in OKLab x 100 (about 5 just-noticeable
# differences: two yellows 12 apart are told apart at a glance on a cube face), and each group at
# least S_MEANINGFUL of the cells (or 1/(2k) when smaller) before a share counts as full.
D_VISIBLE = 12.0
S_MEANINGFUL = 0.05
# The partitions tried at once: k ** (entries - 1) label rows (entry 0 is in group 0); palettes
# with more entries are first reduced by merging the closest, least used entries (Ward).
MAX_CANDIDATES = 20_000


def _oklab100(palette) -> np.ndarray:
    return linear_to_oklab(srgb_to_linear(np.asarray(palette, np.float64))) * 100.0


def _premerge(x: np.ndarray, w: np.ndarray, most: int) -> np.ndarray:
    """Cluster label per entry, at most ``most`` clusters: weighted Ward merges (the pair whose
    merge adds least variance first; ties by index, so deterministic)."""
    lab, wt = x.copy(), w.copy()
    n = len(x)
    label = np.arange(n)

    def costs(i):
        return wt[i] * wt / (wt[i] + wt) * ((lab - lab[i]) ** 2).sum(1)

    cost = np.stack([costs(i) for i in range(n)])
    np.fill_diagonal(cost, np.inf)
    for _ in range(n - most):
        p, q = divmod(int(np.argmin(cost)), n)
        p, q = min(p, q), max(p, q)
        s = wt[p] + wt[q]
        lab[p] = (lab[p] * wt[p] + lab[q] * wt[q]) / s
        wt[p] = s
        label[label == q] = p
        cost[q, :] = cost[:, q] = np.inf
        alive = np.isfinite(cost[p]) | (np.arange(n) == p)
        row = np.where(alive, costs(p), np.inf)
        row[p] = np.inf
        cost[p, :] = cost[:, p] = row
    _, dense = np.unique(label, return_inverse=True)
    return dense.ravel()


def partition_scores(labels: np.ndarray, x: np.ndarray, w: np.ndarray, k: int):
    """Per candidate row of ``labels`` (m, n) of groups 0..k-1 (each non-empty): (score, least
    distance between group centres, shares (m, k), worst within-group spread). Entries ``x``
    in OKLab x 100, ``w`` their cells. Score: among candidates whose groups are all at least
    ``D_VISIBLE`` apart, the least share (up to ``S_MEANINGFUL``) over 1 + the worst group's mean
    distance of its cells to its centre (in units of 2 D_VISIBLE: a group mixing white and black
    shows as a grey no entry has); when none is that distinct, the distance alone."""
    m = len(labels)
    total = w.sum()
    share = np.empty((m, k))
    centre = np.empty((m, k, 3))
    for g in range(k):
        mw = (labels == g) * w
        s = mw.sum(1)
        share[:, g] = s / total
        centre[:, g] = (mw @ x) / np.maximum(s, 1e-300)[:, None]
    apart = np.full(m, np.inf)
    for a in range(k):
        for b in range(a + 1, k):
            apart = np.minimum(apart, np.sqrt(((centre[:, a] - centre[:, b]) ** 2).sum(1)))
    own = np.take_along_axis(centre, labels[:, :, None].repeat(3, axis=2), axis=1)
    dist = np.sqrt(((own - x[None]) ** 2).sum(2)) * w
    spread = np.zeros(m)
    for g in range(k):
        spread = np.maximum(spread, (dist * (labels == g)).sum(1) / np.maximum(share[:, g] * total, 1e-300))
    balance = np.minimum(1.0, share.min(1) / min(0.5 / k, S_MEANINGFUL))
    score = balance / (1.0 + spread / (2 * D_VISIBLE)) + 1e-6 * apart
    visible = apart >= D_VISIBLE
    score = np.where(visible, score, -np.inf) if visible.any() else apart
    return score, apart, share, spread


def group_palette(palette, counts, k: int) -> np.ndarray:
    """The group (1..k) of each palette entry, most used group first; deterministic. Every
    partition of the entries into k groups is scored (``partition_scores``) and the best kept:
    groups visibly apart first, then each holding a meaningful share of the cells, then groups
    that are each of one kind of colour."""
    pal = np.asarray(palette, dtype=np.float64).reshape(-1, 3)
    n = len(pal)
    if not 1 <= k <= MAX_COLOURS:
        raise ValueError(f"puzzle colours must be between 1 and {MAX_COLOURS}, got {k}")
    w = np.asarray(counts, dtype=np.float64).reshape(n) + 1e-9
    if k >= n:
        return np.arange(1, n + 1, dtype=np.int64)
    x = _oklab100(pal)
    most = n
    while k > 1 and k ** (most - 1) > MAX_CANDIDATES:
        most -= 1
    pre = _premerge(x, w, max(most, k)) if most < n else np.arange(n)
    nn = int(pre.max()) + 1
    ws = np.bincount(pre, weights=w, minlength=nn)
    xs = np.stack([np.bincount(pre, weights=w * x[:, a], minlength=nn) for a in range(3)], 1) / ws[:, None]
    code = np.arange(k ** (nn - 1), dtype=np.int64)
    labels = np.zeros((len(code), nn), dtype=np.int64)
    for j in range(1, nn):
        labels[:, j] = (code // k ** (j - 1)) % k
    full = np.ones(len(code), bool)
    for g in range(k):
        full &= (labels == g).any(1)
    labels = labels[full]
    score, _apart, _share, _spread = partition_scores(labels, xs, ws, k)
    label = labels[int(np.argmax(score))][pre]
    # number the groups by use, most used first (colour 1 is the commonest)
    use = np.bincount(label, weights=w, minlength=k)
    rank = np.empty(k, dtype=np.int64)
    rank[np.argsort(-use, kind="stable")] = np.arange(k)
    return rank[label] + 1


def groups_apart(palette, counts, groups) -> float:
    """The least distance (OKLab x 100) between two groups' colours (each the use-weighted mean
    of its entries): below ``D_VISIBLE`` two puzzle colours look nearly the same."""
    x = _oklab100(np.asarray(palette, np.float64).reshape(-1, 3))
    w = np.asarray(counts, np.float64).ravel() + 1e-9
    g = np.asarray(groups, np.int64).ravel()
    k = int(g.max())
    centre = np.stack([np.average(x[g == j], axis=0, weights=w[g == j]) for j in range(1, k + 1) if (g == j).any()])
    d = [float(np.linalg.norm(centre[a] - centre[b])) for a in range(len(centre)) for b in range(a + 1, len(centre))]
    return min(d) if d else float("inf")


def choose_grouping(palette, counts, k: int):
    """(groups, note) for at most ``k`` puzzle colours: ``group_palette``'s k when its groups
    are visibly apart (``D_VISIBLE``); else the most colours, down to two, whose groups are; and
    when no number of colours is, the one whose groups are furthest apart. ``note`` (None when
    the k colours were visibly apart) says what was found and done, for the designer."""
    pal = np.asarray(palette, np.float64).reshape(-1, 3)
    k = min(k, len(pal))
    tried = []
    for kk in range(k, 1, -1):
        g = group_palette(pal, counts, kk)
        apart = groups_apart(pal, counts, g)
        if apart >= D_VISIBLE:
            if kk == k:
                return g, None
            return g, (f"{k} puzzle colours from this model's colours would include two nearly the same "
                       f"({tried[0][1]:.1f} apart in OKLab x 100; {D_VISIBLE:.0f} tells colours apart at "
                       f"a glance): made {kk} colours instead, {apart:.1f} apart")
        tried.append((kk, apart, g))
    if not tried:
        return group_palette(pal, counts, max(k, 1)), None
    kk, apart, g = max(tried, key=lambda t: (t[1], t[0]))
    return g, (f"this model's colours are nearly the same: no grouping into 2 to {k} puzzle colours sets them "
               f"{D_VISIBLE:.0f} apart (OKLab x 100); made {kk} colours, the furthest apart ({apart:.1f}). "
               f"Their clues are still inked apart, but the reveal shows them alike")


def colour_puzzle_from_reveal(puzzle, k: int, groups: Optional[Sequence[int]] = None,
                              name: str = "", fewer: bool = False) -> ColourPuzzle:
    """The full-clue colour puzzle of a black-and-white puzzle that carries reveal colours.

    Puzzle colours that would look nearly the same (closer than ``D_VISIBLE``) are reported in
    ``meta["grouping"]`` (``note``, ``apart``, ``asked``); with ``fewer`` and no ``groups`` the
    grouping takes fewer colours instead where that sets them apart (``choose_grouping``)."""
    palette = getattr(puzzle, "palette", None)
    colours = getattr(puzzle, "colours", None)
    if palette is None or colours is None or puzzle.solution is None:
        raise ValueError("puzzle colours need a puzzle with its solution and reveal colours "
                         "(palette and colours: --colours K from a mesh, or a file that has them)")
    palette = np.asarray(palette, dtype=np.float32).reshape(-1, 3)
    colours = np.asarray(colours).ravel().astype(np.int64)
    filled = np.asarray(puzzle.solution, dtype=bool).ravel()
    counts = np.bincount(colours[filled], minlength=len(palette))[:len(palette)]
    note, asked = None, k
    if groups is not None:
        g = np.asarray(groups, dtype=np.int64)
    elif fewer:
        g, note = choose_grouping(palette, counts, k)
        k = int(g.max())
    else:
        g = group_palette(palette, counts, k)
    if len(g) != len(palette) or g.min() < 1 or g.max() > k:
        raise ValueError(f"colour groups must give each of the {len(palette)} palette entries a puzzle "
                         f"colour 1..{k}")
    cell = np.where(filled, g[np.clip(colours, 0, len(palette) - 1)], 0)
    # each puzzle colour shown as the use-weighted mean of its palette entries
    shown = np.zeros((k, 3), dtype=np.float32)
    for j in range(1, k + 1):
        sel = g == j
        if sel.any():
            shown[j - 1] = np.average(palette[sel], axis=0, weights=counts[sel] + 1e-9)
    shown = quantize_srgb(shown)  # the 8 bits a file keeps: the scene and a file agree
    p = colour_puzzle_from_grid(cell.reshape(puzzle.grid_shape()), k, shown, name or puzzle.name)
    p.colour_groups = [int(v) for v in g]
    apart = groups_apart(palette, counts, g) if k > 1 else float("inf")
    if note is None and apart < D_VISIBLE:
        note = (f"two of the {k} puzzle colours are nearly the same ({apart:.1f} apart in OKLab x 100; "
                f"{D_VISIBLE:.0f} tells colours apart at a glance): their clues are inked apart, but fewer "
                f"puzzle colours may suit the model better")
    if note is not None:
        p.meta["grouping"] = {"note": note, "apart": round(apart, 2), "asked": int(asked)}
    p.meta["_reveal"] = {"palette": [colour_text(c) for c in palette],
                         "colours": "".join(".." if not f else f"{int(v):02x}" for f, v in zip(filled, colours))}
    return p


# ---------------------------------------------------------------------------------------------
# a colour puzzle's reveal palette edited, or regrouped: the clues follow (docs/ADDON.md,
# "Editing a colour puzzle's palette")


def reveal_parts(p: ColourPuzzle):
    """(palette sRGB float32 (n, 3), palette index per cell int64, puzzle colour 1..k per entry)
    of colour puzzle ``p``'s reveal. A puzzle without reveal colours (made from clues alone)
    gets its puzzle colours as its palette, one entry per colour."""
    from .colourspace import from_hex
    reveal = p.meta.get("_reveal") or {}
    sol = np.asarray(p.colour_solution, np.int64).ravel()
    if reveal.get("palette") and reveal.get("colours") and p.colour_groups:
        palette = from_hex(reveal["palette"])
        text = reveal["colours"]
        colours = np.array([0 if text[i:i + 2] == ".." else int(text[i:i + 2], 16)
                            for i in range(0, len(text), 2)], dtype=np.int64)
        return palette, colours, np.asarray(p.colour_groups, np.int64)
    return (np.asarray(p.clue_colours, np.float32).copy(), np.maximum(sol - 1, 0),
            np.arange(1, p.k + 1, dtype=np.int64))


def regroup(p: ColourPuzzle, k: int, groups=None, palette=None, colours=None) -> ColourPuzzle:
    """The full-clue colour puzzle of ``p``'s cells grouped anew: its reveal palette (or
    ``palette``/``colours`` given) in ``k`` puzzle colours, by ``groups`` (1..k per entry) or the
    automatic grouping. Name and meta (but what a design said) kept."""
    pal0, col0, _ = reveal_parts(p)
    palette = pal0 if palette is None else np.asarray(palette, np.float32).reshape(-1, 3)
    colours = col0 if colours is None else np.asarray(colours, np.int64).ravel()
    if groups is not None:
        g = np.asarray(groups, np.int64).ravel()
        if len(g) != len(palette) or g.min() < 1 or g.max() > k or len(set(g.tolist())) != k:
            raise ValueError(f"each of the {k} puzzle colours needs at least one of the "
                             f"{len(palette)} palette entries (picked: {g.tolist()})")
    bw = SimpleNamespace(palette=palette, colours=colours, solution=p.solution, name=p.name,
                         grid_shape=p.grid_shape)
    out = colour_puzzle_from_reveal(bw, k, groups, p.name)
    fresh = {key: out.meta[key] for key in ("_reveal", "grouping") if key in out.meta}
    out.meta = dict({key: v for key, v in p.meta.items() if key not in ("_reveal", "design",
                                                                         "difficulty", "grouping")},
                    **fresh)
    return out


def recolour(p: ColourPuzzle, palette) -> ColourPuzzle:
    """``p`` with its reveal palette changed (same entries, new colours): the same cells and
    clues, each puzzle colour the use-weighted mean of its entries' new colours."""
    _, colours, groups = reveal_parts(p)
    return regroup(p, p.k, groups, palette, colours)


def merge_reveal(p: ColourPuzzle, keep: int, drop: int):
    """(colour puzzle, whether its cells changed colour) with reveal entry ``drop`` merged into
    ``keep`` (0-based): ``drop``'s cells take ``keep``'s entry, and so ``keep``'s puzzle colour.
    Entries of one puzzle colour: the cells and clues stay. Entries of two: the cells of
    ``drop`` change puzzle colour, so the clues of their lines change; a puzzle colour left with
    no entry goes (the later ones renumbered). ValueError when one puzzle colour would be left."""
    from .palette import merge_entries
    palette, colours, groups = reveal_parts(p)
    new_pal, new_col = merge_entries(palette, colours, keep, drop)
    g = np.delete(groups, drop)
    used = sorted(set(g.tolist()))
    if len(used) < 2:
        raise ValueError("merging these would leave one puzzle colour: regroup the palette into "
                         "more puzzle colours first, or make the nonogram black-and-white")
    renumber = {old: i + 1 for i, old in enumerate(used)}
    g = np.array([renumber[v] for v in g.tolist()], np.int64)
    out = regroup(p, len(used), g, new_pal, new_col)
    return out, not np.array_equal(out.colour_solution, p.colour_solution)
