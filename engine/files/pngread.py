"""A small PNG decoder (zlib + the five row filters), so that textures embedded in a GLB need no
imaging library.  Non-interlaced images of bit depth 8 (and 1/2/4 for palette and grey) in every
colour type; 16-bit channels are cut to their high byte.  Anything else raises ``PngError``
(callers fall back to the material's constant colour and say so).

``decode_png(data) -> uint8 (h, w, 3 or 4)``, row 0 at the top as the file stores it.
"""
import struct
import zlib

import numpy as np

from ..jit import njit

MAX_PIXELS = 1 << 26  # 8k x 8k: bigger textures are not needed to colour a voxel grid


class PngError(ValueError):
    pass


@njit
def unfilter(raw, h, stride, bpp, out):
    """Undo the per-row filters of ``raw`` (h rows of 1 + stride bytes) into ``out`` (h, stride)."""
    for y in range(h):
        f = raw[y * (stride + 1)]
        src = y * (stride + 1) + 1
        for x in range(stride):
            v = np.int64(raw[src + x])
            a = np.int64(out[y, x - bpp]) if x >= bpp else 0
            b = np.int64(out[y - 1, x]) if y > 0 else 0
            c = np.int64(out[y - 1, x - bpp]) if (x >= bpp and y > 0) else 0
            if f == 1:
                v += a
            elif f == 2:
                v += b
            elif f == 3:
                v += (a + b) // 2
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                if pa <= pb and pa <= pc:
                    v += a
                elif pb <= pc:
                    v += b
                else:
                    v += c
            elif f != 0:
                return y + 1  # bad filter type on row y
            out[y, x] = v & 255
    return 0


_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def decode_png(data: bytes) -> np.ndarray:
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise PngError("not a PNG image")
    pos = 8
    ihdr = None
    plte = trns = None
    idat = []
    while pos + 8 <= len(data):
        length, ctype = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"PLTE":
            plte = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif ctype == b"tRNS":
            trns = np.frombuffer(body, np.uint8)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
    if ihdr is None:
        raise PngError("no IHDR chunk")
    w, h, depth, ctype, _comp, _filt, interlace = ihdr
    if ctype not in _CHANNELS:
        raise PngError(f"unknown colour type {ctype}")
    if interlace:
        raise PngError("interlaced PNGs are not supported")
    if w < 1 or h < 1 or w * h > MAX_PIXELS:
        raise PngError(f"image size {w}x{h} is not supported")
    ch = _CHANNELS[ctype]
    if depth not in (1, 2, 4, 8, 16) or (depth < 8 and ch != 1):
        raise PngError(f"bit depth {depth} with colour type {ctype} is not supported")
    bits = ch * depth
    stride = (w * bits + 7) // 8
    try:
        raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8)
    except zlib.error as e:
        raise PngError(f"bad image data ({e})") from None
    if raw.size < h * (stride + 1):
        raise PngError("the image data is shorter than the image")
    rows = np.empty((h, stride), np.uint8)
    bad = unfilter(raw, h, stride, max(1, bits // 8), rows)
    if bad:
        raise PngError(f"row {bad - 1} has an unknown filter type")
    if depth == 16:
        px = rows.reshape(h, w, ch, 2)[..., 0]
    elif depth == 8:
        px = rows.reshape(h, w, ch)
    else:
        per = 8 // depth
        shifts = (8 - depth * (np.arange(per) + 1)).astype(np.uint8)
        vals = (rows[:, :, None] >> shifts) & ((1 << depth) - 1)
        px = vals.reshape(h, -1)[:, :w, None]
        if ctype == 0:
            px = (px.astype(np.uint16) * 255 // ((1 << depth) - 1)).astype(np.uint8)
    if ctype == 3:
        if plte is None:
            raise PngError("a palette image without a PLTE chunk")
        idx = px[..., 0]
        if idx.max() >= len(plte):
            raise PngError("a pixel refers to a palette entry that does not exist")
        rgb = plte[idx]
        if trns is not None:
            alpha = np.full(len(plte), 255, np.uint8)
            alpha[:min(len(trns), len(plte))] = trns[:len(plte)]
            return np.concatenate([rgb, alpha[idx][..., None]], axis=2)
        return rgb
    if ctype == 0:
        return np.repeat(px, 3, axis=2)
    if ctype == 4:
        return np.concatenate([np.repeat(px[..., :1], 3, axis=2), px[..., 1:]], axis=2)
    return np.ascontiguousarray(px)
