"""The colour at a point of a triangle, for the colour capture (``capture.py``): its material's
image sampled through the per-corner UVs (bilinear with repeat wrap, or the closest pixel),
its per-corner colours interpolated barycentrically, or its constant colour.
"""
import numpy as np

from ..jit import njit

KIND_CONSTANT, KIND_IMAGE, KIND_CORNERS = 0, 1, 2  # a material's source, per ``Source``


@njit
def _pixel(pixels, i):
    """A pixel channel; NaN or infinite (a broken float image) reads as 0.  Checked here, at the
    few pixels sampled, rather than over the whole image on every capture."""
    p = pixels[i]
    return p if np.isfinite(p) else 0.0


@njit
def sample_closest(pixels, offset, w, h, u, v, out):
    """The pixel holding (u, v), with repeat wrap."""
    x = int(np.floor(u * w)) % w
    y = int(np.floor(v * h)) % h
    for c in range(3):
        out[c] = _pixel(pixels, offset + (y * w + x) * 3 + c)


@njit
def sample_image(pixels, offset, w, h, u, v, out):
    """Bilinear sample with repeat wrap of the image stored at ``pixels[offset:]`` (h*w*3)."""
    x = u * w - 0.5
    y = v * h - 0.5
    fx0 = np.floor(x)
    fy0 = np.floor(y)
    tx = x - fx0
    ty = y - fy0
    x0 = int(fx0) % w
    y0 = int(fy0) % h
    x1 = (x0 + 1) % w
    y1 = (y0 + 1) % h
    for c in range(3):
        p00 = _pixel(pixels, offset + (y0 * w + x0) * 3 + c)
        p10 = _pixel(pixels, offset + (y0 * w + x1) * 3 + c)
        p01 = _pixel(pixels, offset + (y1 * w + x0) * 3 + c)
        p11 = _pixel(pixels, offset + (y1 * w + x1) * 3 + c)
        out[c] = ((1.0 - tx) * (1.0 - ty) * p00 + tx * (1.0 - ty) * p10
                  + (1.0 - tx) * ty * p01 + tx * ty * p11)


@njit
def shade_points(tri, bary, tri_mat, kind, const, image_of, closest, uvs, corners, pixels, img_offset,
                 img_w, img_h, out, fell_back):
    """Colour of each point: its triangle's material source at the barycentric weights."""
    tmp = np.empty(3, np.float64)
    for p in range(tri.shape[0]):
        t = tri[p]
        m = tri_mat[t]
        k = kind[m]
        u, v, w = bary[p, 0], bary[p, 1], bary[p, 2]
        if k == 1:
            su = u * uvs[t, 0, 0] + v * uvs[t, 1, 0] + w * uvs[t, 2, 0]
            sv = u * uvs[t, 0, 1] + v * uvs[t, 1, 1] + w * uvs[t, 2, 1]
            if np.isfinite(su) and np.isfinite(sv):
                im = image_of[m]
                if closest[m]:
                    sample_closest(pixels, img_offset[im], img_w[im], img_h[im], su, sv, tmp)
                else:
                    sample_image(pixels, img_offset[im], img_w[im], img_h[im], su, sv, tmp)
                for c in range(3):
                    out[p, c] = tmp[c] * const[m, c]
                continue
            fell_back[p] = True
        elif k == 2:
            for c in range(3):
                out[p, c] = (u * corners[t, 0, c] + v * corners[t, 1, c]
                             + w * corners[t, 2, c]) * const[m, c]
            continue
        for c in range(3):
            out[p, c] = const[m, c]
