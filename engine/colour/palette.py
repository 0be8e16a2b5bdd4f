"""Palette: the captured voxel colours reduced to k colours, and the designer's edits of it.

``reduce_palette(colours, k)`` clusters linear RGB colours in OKLab (perceptually even distances)
by weighted k-means over the distinct 8-bit sRGB colours, seeded by k-means++ from a fixed seed:
the same colours and k always give the same palette.  Palettes are sRGB float32 (k, 3) in 0..1,
rounded to the 8 bits a puzzle file stores; entries are ordered by how many voxels use them
(most first).  Fewer distinct colours than k give a shorter palette.  See docs/ENGINE_API.md
("Palette").
"""
import numpy as np

from .colourspace import linear_to_oklab, linear_to_srgb, quantize_srgb, srgb_to_linear

MAX_COLOURS = 256
ITERATIONS = 40
SEED = 0x5EED


class PaletteError(ValueError):
    """A palette request that cannot be met; the message is meant for the user."""


def check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise PaletteError(f"the number of colours must be an integer, got {k!r}")
    if not 1 <= int(k) <= MAX_COLOURS:
        raise PaletteError(f"the number of colours must be 1 to {MAX_COLOURS}, got {int(k)}")
    return int(k)


def _first_of_each(key):
    """(index of one element per distinct key, inverse: which distinct key each element has)."""
    uniq = np.unique(key)  # a sort; argsort-based return_inverse is several times slower
    inv = np.searchsorted(uniq, key)
    first = np.zeros(len(uniq), np.int64)
    first[inv[::-1]] = np.arange(len(key) - 1, -1, -1)
    return first, inv


def _distinct(colours):
    """(distinct 8-bit sRGB colours (u, 3) uint8, voxel counts, inverse index per colour)."""
    c = np.ascontiguousarray(colours, np.float32)
    # Voxels share few colours (interior voxels copy surface ones): convert each distinct float
    # colour once.  Distinct by a hash of the exact bits, checked; a collision takes the slow way.
    bits = c.view(np.uint32).astype(np.int64)
    h = (bits[:, 0] * 0x9E3779B1 ^ bits[:, 1] * 0x85EBCA77 ^ bits[:, 2] * 0xC2B2AE3D) & (2**62 - 1)
    first, inv0 = _first_of_each(h)
    if not np.array_equal(c[first][inv0], c):
        first, inv0 = np.arange(len(c)), np.arange(len(c))
    b = np.clip(np.rint(linear_to_srgb(c[first].astype(np.float64)) * 255.0), 0, 255).astype(np.int64)
    key = (b[:, 0] << 16) | (b[:, 1] << 8) | b[:, 2]
    uniq, inv1 = np.unique(key, return_inverse=True)
    inv = inv1.ravel()[inv0]
    counts = np.bincount(inv, minlength=len(uniq))
    rgb = np.stack([(uniq >> 16) & 255, (uniq >> 8) & 255, uniq & 255], axis=1).astype(np.uint8)
    return rgb, counts, inv


def _nearest(points, centres):
    d = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return d.argmin(axis=1), d


def _kmeans(lab, weight, k, seed):
    rng = np.random.default_rng(seed)
    n = len(lab)
    centres = np.empty((k, 3))
    first = int(np.argmax(weight))  # the commonest colour: no luck in the first pick
    centres[0] = lab[first]
    d2 = ((lab - centres[0]) ** 2).sum(axis=1)
    for c in range(1, k):
        p = d2 * weight
        total = p.sum()
        i = int(rng.choice(n, p=p / total)) if total > 0 else int(np.argmax(d2))
        centres[c] = lab[i]
        d2 = np.minimum(d2, ((lab - centres[c]) ** 2).sum(axis=1))
    assign = None
    for _ in range(ITERATIONS):
        new, _d = _nearest(lab, centres)
        if assign is not None and np.array_equal(new, assign):
            break
        assign = new
        w = np.bincount(assign, weights=weight, minlength=k)
        for a in range(3):
            s = np.bincount(assign, weights=weight * lab[:, a], minlength=k)
            centres[:, a] = np.where(w > 0, s / np.maximum(w, 1e-300), centres[:, a])
    return centres


def reduce_palette(colours, k, seed=SEED):
    """(palette sRGB float32 (k', 3), index uint8 (n,)) for linear RGB colours (n, 3), k' <= k."""
    k = check_k(k)
    colours = np.asarray(colours, np.float64).reshape(-1, 3)
    if len(colours) == 0:
        return np.zeros((0, 3), np.float32), np.zeros(0, np.uint8)
    rgb, counts, inv = _distinct(colours)
    srgb = rgb.astype(np.float64) / 255.0
    lab = linear_to_oklab(srgb_to_linear(srgb))
    if len(rgb) <= k:
        entries = srgb
        which = np.arange(len(rgb))
    else:
        centres = _kmeans(lab, counts.astype(np.float64), k, seed)
        entries = linear_to_srgb(_oklab_to_linear_clipped(centres))
        entries = quantize_srgb(entries).astype(np.float64)
        which, _d = _nearest(lab, linear_to_oklab(srgb_to_linear(entries)))
    # order by use (then by colour), and drop entries no colour is nearest to
    use = np.bincount(which, weights=counts, minlength=len(entries))
    keys = np.clip(np.rint(entries * 255), 0, 255).astype(np.int64)
    order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0], -use))
    order = order[use[order] > 0]
    remap = np.full(len(entries), -1, np.int64)
    remap[order] = np.arange(len(order))
    palette = quantize_srgb(entries[order])
    return palette, remap[which][inv].astype(np.uint8)


def _oklab_to_linear_clipped(lab):
    from .colourspace import oklab_to_linear
    return np.clip(oklab_to_linear(lab), 0.0, 1.0)


def grid_palette(grid, colours, k, seed=SEED):
    """(palette, per-cell index uint8 (X*Y*Z,) in the puzzle's cell order, 0 on empty cells) for a
    voxel grid and its captured linear colours (X, Y, Z, 3)."""
    grid = np.asarray(grid, bool)
    flat = np.asarray(colours, np.float64).reshape(-1, 3)
    filled = np.flatnonzero(grid.ravel())
    palette, idx = reduce_palette(flat[filled], k, seed)
    cells = np.zeros(grid.size, np.uint8)
    cells[filled] = idx
    return palette, cells


def check_palette(palette) -> np.ndarray:
    p = np.asarray(palette, np.float32)
    if p.ndim != 2 or p.shape[1] != 3:
        raise PaletteError(f"a palette is a list of RGB colours, got shape {p.shape}")
    if not 1 <= len(p) <= MAX_COLOURS:
        raise PaletteError(f"a palette has 1 to {MAX_COLOURS} colours, got {len(p)}")
    if not np.isfinite(p).all() or p.min() < 0 or p.max() > 1:
        raise PaletteError("palette colours must be sRGB values in 0..1")
    return p


def set_entry(palette, i, srgb) -> np.ndarray:
    """A copy of the palette with entry ``i`` changed to ``srgb``; the voxels keep their index."""
    p = check_palette(palette).copy()
    if not 0 <= i < len(p):
        raise PaletteError(f"no palette entry {i} (the palette has {len(p)})")
    c = np.asarray(srgb, np.float64).ravel()
    if c.size != 3 or not np.isfinite(c).all():
        raise PaletteError(f"{srgb!r} is not an RGB colour")
    p[i] = quantize_srgb(np.clip(c, 0.0, 1.0))
    return p


def merge_entries(palette, index, keep, drop):
    """(palette without entry ``drop``, index with ``drop``'s voxels moved to ``keep``)."""
    p = check_palette(palette)
    n = len(p)
    for name, v in (("keep", keep), ("drop", drop)):
        if not 0 <= v < n:
            raise PaletteError(f"no palette entry {v} to {name} (the palette has {n})")
    if keep == drop:
        raise PaletteError("cannot merge a palette entry with itself")
    remap = np.arange(n)
    remap[drop] = keep
    remap = remap - (remap > drop)
    return np.delete(p, drop, axis=0), remap[np.asarray(index, np.int64)].astype(np.uint8)


def reduce_puzzle_palette(puzzle, k, seed=SEED):
    """(palette, colours) of a coloured puzzle reduced to at most k colours."""
    k = check_k(k)
    if puzzle.palette is None or puzzle.colours is None or puzzle.solution is None:
        raise PaletteError("the puzzle has no colours to reduce")
    sol = np.asarray(puzzle.solution, bool).ravel()
    cols = srgb_to_linear(np.asarray(puzzle.palette, np.float64)[np.asarray(puzzle.colours)[sol]])
    palette, idx = reduce_palette(cols, k, seed)
    cells = np.zeros(sol.size, np.uint8)
    cells[sol] = idx
    return palette, cells


def describe(palette) -> str:
    """``6 colours: #ffd800 #ffbd00 ...`` for reports."""
    from .colourspace import to_hex
    if palette is None:
        return "no colours"
    n = len(palette)
    return f"{n} colour{'s' if n != 1 else ''}: " + " ".join(to_hex(palette))
