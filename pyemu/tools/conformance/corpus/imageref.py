"""The OpenCL specification's image formulas in NumPy: the references of the
image cases (cases_images.py).

    texels(data, format, kind)      what a read returns for each stored texel
                                    (OpenCL 1.2, 8.3.1: the conversion to
                                    float, int or uint; missing channels are
                                    0, alpha 1; BGRA in rgba order)
    border(format)                  CLK_ADDRESS_CLAMP's border colour (8.2)
    sample(t, coords, ...)          read_image{f,i,ui} at float coordinates:
                                    the addressing and filter formulas of
                                    section 8.2, nearest and linear, in float64
    layer(c, n)                     an array image's layer: clamp(rint(c), 0, n-1)
    stored(values, format)          what write_image{f,i,ui} stores (8.3.1 and
                                    8.3.2: _sat_rte to normalized types, _sat
                                    to integer types, round to even to half)

Coordinates are (n, dims) arrays, fastest dimension first (x, y, z); texel
arrays are stored slowest first with the four read channels last
((d, h, w, 4) for 3-D), as the Image argument's data is.
"""
from __future__ import annotations

import numpy as np

ALPHA_ORDERS = ("CL_RGBA", "CL_BGRA", "CL_A", "CL_RA", "CL_ARGB")
NORM = {"CL_UNORM_INT8": 255.0, "CL_UNORM_INT16": 65535.0,
        "CL_SNORM_INT8": 127.0, "CL_SNORM_INT16": 32767.0}


def texels(data, fmt, kind="f") -> np.ndarray:
    """The stored texels as read_imagef ("f"), read_imagei ("i") or
    read_imageui ("ui") returns them, float64, four channels in rgba order."""
    order, ctype = fmt
    d = np.asarray(data)
    if kind == "f":
        v = d.astype(np.float64)
        if ctype in NORM:
            v = v / NORM[ctype]
            if ctype.startswith("CL_SNORM"):
                v = np.maximum(v, -1.0)         # -128 and -32768 read as -1.0
    else:
        v = d.astype(np.float64)
    out = np.zeros(d.shape[:-1] + (4,), np.float64)
    out[..., 3] = 1.0
    if order == "CL_R":
        out[..., 0] = v[..., 0]
    elif order == "CL_RG":
        out[..., :2] = v
    elif order == "CL_RGBA":
        out[...] = v
    elif order == "CL_BGRA":
        out[...] = v[..., [2, 1, 0, 3]]
    else:
        raise ValueError(f"order {order} is not in the corpus")
    return out


def border(fmt) -> np.ndarray:
    """(0, 0, 0, 0), or (0, 0, 0, 1) for an order without alpha (8.2)."""
    return np.array([0, 0, 0, 0 if fmt[0] in ALPHA_ORDERS else 1], np.float64)


def _nearest(s, n, normalized, addressing):
    """(index, inside) of each coordinate along a dimension of n texels."""
    if addressing == "REPEAT":
        u = (s - np.floor(s)) * n
        i = np.floor(u).astype(np.int64)
        i = np.where(i > n - 1, i - n, i)
        return i, np.ones(i.shape, bool)
    if addressing == "MIRRORED_REPEAT":
        sp = np.abs(s - 2.0 * np.rint(0.5 * s))
        i = np.minimum(np.floor(sp * n).astype(np.int64), n - 1)
        return i, np.ones(i.shape, bool)
    u = s * n if normalized else s
    i = np.floor(u).astype(np.int64)
    if addressing == "CLAMP":
        i = np.clip(i, -1, n)
        return np.clip(i, 0, n - 1), (i >= 0) & (i <= n - 1)
    return np.clip(i, 0, n - 1), np.ones(i.shape, bool)     # CLAMP_TO_EDGE (NONE: in range)


def _linear(s, n, normalized, addressing):
    """((i0, in0), (i1, in1), a) of each coordinate along a dimension."""
    if addressing in ("REPEAT", "MIRRORED_REPEAT"):
        if addressing == "REPEAT":
            u = (s - np.floor(s)) * n
        else:
            u = np.abs(s - 2.0 * np.rint(0.5 * s)) * n
        i0 = np.floor(u - 0.5).astype(np.int64)
        i1 = i0 + 1
        a = (u - 0.5) - np.floor(u - 0.5)
        if addressing == "REPEAT":
            i0 = np.where(i0 < 0, i0 + n, i0)
            i1 = np.where(i1 > n - 1, i1 - n, i1)
        else:
            i0, i1 = np.maximum(i0, 0), np.minimum(i1, n - 1)
        yes = np.ones(i0.shape, bool)
        return (i0, yes), (i1, yes), a
    u = s * n if normalized else s
    i0 = np.floor(u - 0.5).astype(np.int64)
    i1 = i0 + 1
    a = (u - 0.5) - np.floor(u - 0.5)
    if addressing == "CLAMP":
        i0, i1 = np.clip(i0, -1, n), np.clip(i1, -1, n)
        return ((np.clip(i0, 0, n - 1), (i0 >= 0) & (i0 < n)),
                (np.clip(i1, 0, n - 1), (i1 >= 0) & (i1 < n)), a)
    return (np.clip(i0, 0, n - 1), np.ones(i0.shape, bool)), \
           (np.clip(i1, 0, n - 1), np.ones(i1.shape, bool)), a


def _fetch(t, idx, inside, bcol):
    """Texels t[..., idx] (idx fastest first), the border where not inside."""
    v = t[tuple(idx[::-1])]
    return np.where(inside[:, None], v, bcol[None, :])


def sample(t, coords, normalized, addressing, filt, bcol) -> np.ndarray:
    """read_image at float coordinates `coords` (n, dims) of texels t (slowest
    first, 4 channels last), as OpenCL 1.2 section 8.2 computes it."""
    c = np.asarray(coords, np.float64).reshape(len(coords), -1)
    dims = t.ndim - 1
    sizes = t.shape[:-1][::-1]                  # fastest first
    if filt == "NEAREST":
        parts = [_nearest(c[:, k], sizes[k], normalized, addressing) for k in range(dims)]
        idx = [p[0] for p in parts]
        inside = np.logical_and.reduce([p[1] for p in parts])
        return _fetch(t, idx, inside, bcol)
    parts = [_linear(c[:, k], sizes[k], normalized, addressing) for k in range(dims)]
    out = np.zeros((len(c), 4), np.float64)
    for corner in range(1 << dims):
        idx, inside, w = [], np.ones(len(c), bool), np.ones(len(c), np.float64)
        for k in range(dims):
            hi = (corner >> k) & 1
            (i, ok) = parts[k][hi]
            a = parts[k][2]
            idx.append(i)
            inside &= ok
            w = w * (a if hi else 1.0 - a)
        out += w[:, None] * _fetch(t, idx, inside, bcol)
    return out


def layer(c, n) -> np.ndarray:
    """The layer of an array image a coordinate names (OpenCL C 6.12.14.2)."""
    return np.clip(np.rint(np.asarray(c, np.float64)), 0, n - 1).astype(np.int64)


def stored(values, fmt) -> np.ndarray:
    """What write_image{f,i,ui} stores for rgba values (n, 4): the channels of
    the order (BGRA swapped), converted as 8.3.1 / 8.3.2 say."""
    order, ctype = fmt
    v = np.asarray(values, np.float64)
    v = {"CL_R": v[..., :1], "CL_RG": v[..., :2], "CL_RGBA": v,
         "CL_BGRA": v[..., [2, 1, 0, 3]]}[order]
    if ctype == "CL_FLOAT":
        return v.astype(np.float32)
    if ctype == "CL_HALF_FLOAT":
        with np.errstate(over="ignore"):
            return v.astype(np.float32).astype(np.float16)     # round to nearest even
    if ctype in NORM:
        lo = -NORM[ctype] if ctype.startswith("CL_SNORM") else 0.0
        # convert_T_sat_rte(f * scale); NaN is 0
        r = np.rint(np.clip(np.nan_to_num(v.astype(np.float32) * np.float32(NORM[ctype])),
                            lo - 1 if lo else 0, NORM[ctype]))
        dt = {"CL_UNORM_INT8": np.uint8, "CL_UNORM_INT16": np.uint16,
              "CL_SNORM_INT8": np.int8, "CL_SNORM_INT16": np.int16}[ctype]
        return r.astype(dt)
    dt = {"CL_UNSIGNED_INT8": np.uint8, "CL_UNSIGNED_INT16": np.uint16,
          "CL_UNSIGNED_INT32": np.uint32, "CL_SIGNED_INT8": np.int8,
          "CL_SIGNED_INT16": np.int16, "CL_SIGNED_INT32": np.int32}[ctype]
    info = np.iinfo(dt)
    return np.clip(v, info.min, info.max).astype(dt)      # convert_T_sat
