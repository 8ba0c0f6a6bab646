"""Images and samplers (kernels/images.cl): every case against PoCL and
against the OpenCL specification's formulas in NumPy (imageref.py).

What is compared, and why:

- Nearest filtering and integer coordinates pick one texel: exact for float,
  half and integer formats.  Float coordinates are kept 0.05 texel or more
  from texel edges, since where a coordinate falls on an edge is a matter of
  float rounding (pyemu, as an NVIDIA GPU, also cuts normalized coordinates
  to 20 fractional bits).
- Normalized integer formats read through read_imagef are held to 1.5 ulp,
  the specification's precision for those conversions (OpenCL 1.2, 8.3.1.1):
  pyemu divides exactly (as an H100 does), PoCL multiplies by 1/255.
- Linear filtering: the specification fixes the formula (8.2) but not its
  precision.  PoCL weights in float; pyemu reproduces the NVIDIA texture
  unit, whose weights have 8 fractional bits (CUDA Programming Guide,
  texture fetching; tests/data/ground_truth/texture_README.md), so each
  weight is within 1/512 of the exact one and the four (eight in 3-D)
  products within another rounding of it.  Held to (dims + 1) / 256 of the
  texels' range (border colour included), against PoCL and against the
  float64 formula alike: a wrong texel, weight or addressing mode is off by
  a large part of the range.
- Writes are exact: write_imagef converts with _sat_rte, write_imagei/ui
  saturate (8.3.1, 8.3.2), half rounds to nearest even; the values include
  ties and out-of-range ones.
- Behaviour the specification leaves undefined is not exercised:
  CLK_ADDRESS_NONE is sampled in range only (and, linear, half a texel in),
  CLK_ADDRESS_REPEAT and MIRRORED_REPEAT only with normalized coordinates,
  integer formats only with nearest filtering and read_imagei/ui, integer
  coordinates only with unnormalized nearest samplers.
- Where PoCL is wrong the case says so and names the elements
  (`pocl_differs`): there pyemu is held to the NumPy formula alone.  PoCL
  3.1's CLK_ADDRESS_CLAMP border is (0, 0, 0, 0) for every channel order;
  the specification (8.2) says (0, 0, 0, 1) for orders without alpha
  (CL_R, CL_RG), so the alpha of samples that touch the border differs.
  PoCL 3.1's read_imagei/ui of CL_R images returns alpha 0 (the
  specification: 1), and its reads of CL_R / CL_HALF_FLOAT images are
  wrong altogether (pocl_known below names them); with a normalized
  sampler it takes an array image's layer otherwise than
  clamp(rint(c), 0, layers - 1), so those array reads are checked against
  the formula only.
- PoCL 3.1 has no CL_RG images (clGetSupportedImageFormats lists R, A,
  RGBA, BGRA, ARGB): the CL_RG cases (image2d_*_rg_*) say so (`pocl_skip`)
  and run on pyemu alone, against the formulas (texels (r, g, 0, 1), the
  CLAMP border (0, 0, 0, 1), writes storing r and g).
- 3-D image writes (cl_khr_3d_image_writes, which PoCL 3.1 and pyemu
  report) are compared with PoCL and with the 8.3 conversions.
- Half images: read_imageh / write_imageh exist only with cl_khr_fp16
  (OpenCL C 1.2, 9.6.8 of the extensions), which neither pyemu nor PoCL 3.1
  reports; CL_HALF_FLOAT images are read and written through
  read_imagef / write_imagef (the cases *_half_float), which the
  specification requires of every device with images.
"""
from __future__ import annotations

import numpy as np

from . import imageref as R
from .compare import Abs, Exact, Ulp
from .model import Case, Image, In, Out, Sampler, Scalar, case

# OpenCL's enumerants, for the query cases
CL_R, CL_RG, CL_RGBA, CL_BGRA = 0x10B0, 0x10B2, 0x10B5, 0x10B6
CL_TYPE = {"CL_SNORM_INT8": 0x10D0, "CL_SNORM_INT16": 0x10D1, "CL_UNORM_INT8": 0x10D2,
           "CL_UNORM_INT16": 0x10D3, "CL_SIGNED_INT8": 0x10D7, "CL_SIGNED_INT16": 0x10D8,
           "CL_SIGNED_INT32": 0x10D9, "CL_UNSIGNED_INT8": 0x10DA, "CL_UNSIGNED_INT16": 0x10DB,
           "CL_UNSIGNED_INT32": 0x10DC, "CL_HALF_FLOAT": 0x10DD, "CL_FLOAT": 0x10DE}
CL_ORDER = {"CL_R": CL_R, "CL_RG": CL_RG, "CL_RGBA": CL_RGBA, "CL_BGRA": CL_BGRA}
N = 256             # samples per case


# --- data and coordinates ----------------------------------------------------------------------

def image_data(rng, shape, fmt):
    """Random texels of `fmt` for an image stored as `shape` (slowest first,
    without the channels): every bit pattern of integer types, [-4, 4) floats."""
    order, ctype = fmt
    full = tuple(shape) + ({"CL_R": 1, "CL_RG": 2, "CL_RGBA": 4, "CL_BGRA": 4}[order],)
    if ctype == "CL_FLOAT":
        return rng.uniform(-4, 4, full).astype(np.float32)
    if ctype == "CL_HALF_FLOAT":
        return rng.uniform(-4, 4, full).astype(np.float16)
    dt = np.dtype({"CL_UNORM_INT8": np.uint8, "CL_SNORM_INT8": np.int8,
                   "CL_UNORM_INT16": np.uint16, "CL_SNORM_INT16": np.int16,
                   "CL_UNSIGNED_INT8": np.uint8, "CL_UNSIGNED_INT16": np.uint16,
                   "CL_UNSIGNED_INT32": np.uint32, "CL_SIGNED_INT8": np.int8,
                   "CL_SIGNED_INT16": np.int16, "CL_SIGNED_INT32": np.int32}[ctype])
    n = int(np.prod(full))
    return rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt).reshape(full)


def texel_coords(rng, n, sizes, lo, hi, nearest):
    """n coordinates in texel units, per dimension in [lo*size + hi[0], ...]:
    lo, hi are (scale, offset) pairs; nearest ones kept off texel edges."""
    cols = []
    for size in sizes:
        a, b = lo[0] * size + lo[1], hi[0] * size + hi[1]
        t = rng.uniform(a, b, n)
        if nearest:
            f = t - np.floor(t)
            t = np.floor(t) + np.clip(f, 0.05, 0.95)
        cols.append(t)
    return np.stack(cols, axis=1)


def coord_range(addressing, normalized, filt):
    """Where a sampler's coordinates may go (texel units, as (scale, offset)
    of the size): well outside for the clamping and repeating modes, inside
    for CLK_ADDRESS_NONE (outside is undefined)."""
    if addressing == "NONE":
        return ((0, 0.5), (1, -0.5)) if filt == "LINEAR" else ((0, 0), (1, 0))
    if normalized:
        return (-1.5, 0), (2.5, 0)
    return (0, -2.5), (1, 2.5)


def as_coords(t, sizes, normalized, width=None):
    """Texel-unit coordinates as the kernel takes them (normalized: divided
    by the size), float32, padded to `width` components."""
    c = t / np.asarray(sizes, np.float64) if normalized else t
    c = c.astype(np.float32)
    if width and width > c.shape[1]:
        c = np.concatenate([c, np.zeros((len(c), width - c.shape[1]), np.float32)], axis=1)
    return c


# --- comparisons ------------------------------------------------------------------------------

def linear_tol(t, fmt, dims):
    """The linear-filtering bound: (dims + 1) / 256 of the texels' range
    (border colour included), plus float rounding of the largest value."""
    vals = np.concatenate([t.reshape(-1, 4), R.border(fmt)[None, :]])
    rng_ = float(vals.max() - vals.min())
    return rng_ * (dims + 1) / 256 + 4e-7 * float(np.abs(vals).max())


def read_cmp(fmt, filt, dims, t):
    order, ctype = fmt
    if filt == "LINEAR":
        return Abs(linear_tol(t, fmt, dims), f"linear filtering ({dims}-D, 8-bit weights)",
                   pair_factor=1.0)
    if ctype in R.NORM:
        return Ulp(1.5, f"{ctype[3:].lower()} -> float (8.3.1.1)")
    return Exact(f"nearest texel, {ctype[3:].lower()}")


def border_touched(t, coords, smp, fmt):
    """Flat mask over the (n, 4) output: the alpha of samples that use the
    CLK_ADDRESS_CLAMP border, for an order without alpha (where PoCL 3.1
    gives alpha 0, the specification 1)."""
    n = len(coords)
    mask = np.zeros((n, 4), bool)
    if smp[1] == "CLAMP" and fmt[0] not in R.ALPHA_ORDERS:
        ones = np.ones_like(t)
        a = R.sample(ones, coords, *smp, np.zeros(4))
        mask[:, 3] = a[:, 3] < 1
    return mask.reshape(-1)


POCL_BORDER = ("PoCL 3.1 returns the CLK_ADDRESS_CLAMP border (0, 0, 0, 0) for orders "
               "without alpha; OpenCL 1.2 8.2 says (0, 0, 0, 1)")


def sampled_out(name, kind, t, coords, smp, fmt, dims, layers=None):
    """The output buffer of a sampling kernel: n rgba values, referenced by
    the 8.2 formula at the case's coordinates (for an array, per layer)."""
    n = len(coords)
    dt = {"f": np.float32, "i": np.int32, "ui": np.uint32}[kind]
    bcol = R.border(fmt)

    def ref(d):
        if layers is None:
            return R.sample(t, coords, *smp, bcol)
        out = np.zeros((n, 4))
        for k in range(n):
            out[k] = R.sample(t[layers[k]], coords[k:k + 1], *smp, bcol)[0]
        return out

    def differs(d):
        if layers is None:
            return border_touched(t, coords, smp, fmt)
        m = np.zeros((n, 4), bool)
        for k in range(n):
            m[k] = border_touched(t[layers[k]], coords[k:k + 1], smp, fmt).reshape(4)
        return m.reshape(-1)

    out = Out(name, dt, n * 4, read_cmp(fmt, smp[2], dims, t), ref=ref)
    known = pocl_known(fmt, kind, n)
    if layers is not None and smp[0]:
        out.pocl_differs, out.pocl_note = (lambda d: np.ones(n * 4, bool)), POCL_ARRAY_LAYER
    elif known is not None:
        out.pocl_differs, out.pocl_note = known
    elif smp[1] == "CLAMP" and fmt[0] not in R.ALPHA_ORDERS:
        out.pocl_differs, out.pocl_note = differs, POCL_BORDER
    return out


POCL_ARRAY_LAYER = ("PoCL 3.1, with a normalized-coordinates sampler, does not take an array "
                    "image's layer as clamp(rint(c), 0, layers - 1) (OpenCL C 1.2 6.12.14.2, "
                    "never normalized): not compared with PoCL")
POCL_INT_ALPHA = ("PoCL 3.1's read_imagei/ui of an order without alpha returns alpha 0; "
                  "OpenCL 1.2 8.3 says (r, 0, 0, 1)")
POCL_R_HALF = ("PoCL 3.1 reads CL_R / CL_HALF_FLOAT images wrongly (234.0 for a texel of "
               "-1.124): not compared with PoCL at all")


def pocl_known(fmt, kind, n_values):
    """(pocl_differs, pocl_note) for reads PoCL 3.1 gets wrong whatever the
    coordinates, or None: every value of a CL_R / CL_HALF_FLOAT read; the
    alpha of read_imagei/ui of an order without alpha (border or not).
    n_values: how many rgba values the output holds."""
    m = np.zeros((n_values, 4), bool)
    if fmt == ("CL_R", "CL_HALF_FLOAT"):
        m[:] = True
        return (lambda d: m.reshape(-1)), POCL_R_HALF
    if kind in ("i", "ui") and fmt[0] not in R.ALPHA_ORDERS:
        m[:, 3] = True
        return (lambda d: m.reshape(-1)), POCL_INT_ALPHA
    return None


# --- 2-D sampling: every addressing mode, normalized and not, nearest and linear ----------------

def _sampling_case(name, normalized, addressing, filt, fmt=("CL_RGBA", "CL_FLOAT"),
                   size=(7, 5), pocl_skip=""):
    """read_imagef(im, s, float2) with s from clCreateSampler."""
    def build(rng):
        w, h = size
        data = image_data(rng, (h, w), fmt)
        t = R.texels(data, fmt)
        lo, hi = coord_range(addressing, normalized, filt)
        tc = texel_coords(rng, N, (w, h), lo, hi, filt == "NEAREST")
        c = as_coords(tc, (w, h), normalized)
        smp = (normalized, addressing, filt)
        return Case(name, "images.cl", "sample2d_f",
                    [Image("im", data, fmt), Sampler("s", *smp), In("c", c.reshape(-1)),
                     sampled_out("out", "f", t, c.astype(np.float64), smp, fmt, 2)],
                    global_size=(N,), local_size=(64,), pocl_skip=pocl_skip,
                    doc=f"read_imagef, {'normalized' if normalized else 'unnormalized'} "
                        f"coordinates, CLK_ADDRESS_{addressing}, CLK_FILTER_{filt}")
    build.__name__ = name
    build.__doc__ = f"2-D {fmt[0]}/{fmt[1]}: CLK_ADDRESS_{addressing}, CLK_FILTER_{filt}, " \
                    f"{'normalized' if normalized else 'unnormalized'} coordinates"
    return case(build)


for _norm in (True, False):
    for _addr in ("NONE", "CLAMP_TO_EDGE", "CLAMP", "REPEAT", "MIRRORED_REPEAT"):
        if not _norm and _addr in ("REPEAT", "MIRRORED_REPEAT"):
            continue        # only with normalized coordinates (OpenCL 1.2, 6.12.14.1)
        for _filt in ("NEAREST", "LINEAR"):
            _sampling_case(f"image2d_{_filt.lower()}_{_addr.lower()}_"
                           f"{'norm' if _norm else 'unnorm'}", _norm, _addr, _filt)

# --- formats through read_imagef (nearest with the CLAMP border; linear) -----------------------

for _fmt in (("CL_RGBA", "CL_UNORM_INT8"), ("CL_BGRA", "CL_UNORM_INT8"), ("CL_R", "CL_UNORM_INT8"),
             ("CL_RGBA", "CL_SNORM_INT8"), ("CL_RGBA", "CL_UNORM_INT16"),
             ("CL_R", "CL_SNORM_INT16"), ("CL_RGBA", "CL_HALF_FLOAT"), ("CL_R", "CL_HALF_FLOAT"),
             ("CL_R", "CL_FLOAT")):
    _sampling_case(f"image2d_read_{_fmt[0][3:].lower()}_{_fmt[1][3:].lower()}", False, "CLAMP",
                   "NEAREST", _fmt)

for _fmt in (("CL_RGBA", "CL_UNORM_INT8"), ("CL_RGBA", "CL_SNORM_INT8"),
             ("CL_RGBA", "CL_HALF_FLOAT"), ("CL_R", "CL_UNORM_INT16")):
    _sampling_case(f"image2d_linear_{_fmt[0][3:].lower()}_{_fmt[1][3:].lower()}", True,
                   "CLAMP_TO_EDGE", "LINEAR", _fmt, size=(9, 6))

_sampling_case("image2d_linear_clamp_r_unorm_int8", False, "CLAMP", "LINEAR",
               ("CL_R", "CL_UNORM_INT8"))


# --- samplers declared in the kernel and at program scope ---------------------------------------

def _declared(name, kernel, options, smp, fmt=("CL_RGBA", "CL_FLOAT")):
    def build(rng):
        w, h = 6, 6
        data = image_data(rng, (h, w), fmt)
        t = R.texels(data, fmt)
        lo, hi = coord_range(smp[1], smp[0], smp[2])
        c = as_coords(texel_coords(rng, N, (w, h), lo, hi, smp[2] == "NEAREST"), (w, h), smp[0])
        return Case(name, "images.cl", kernel,
                    [Image("im", data, fmt), In("c", c.reshape(-1)),
                     sampled_out("out", "f", t, c.astype(np.float64), smp, fmt, 2)],
                    global_size=(N,), local_size=(32,), options=options)
    build.__name__ = name
    return case(build)


_declared("image2d_sampler_in_kernel_mirrored_linear", "sample2d_src_mirrored_linear", "",
          (True, "MIRRORED_REPEAT", "LINEAR"))
_declared("image2d_sampler_in_kernel_clamp_nearest", "sample2d_src_clamp_nearest", "",
          (False, "CLAMP", "NEAREST"), ("CL_RGBA", "CL_UNORM_INT8"))
_declared("image2d_sampler_in_kernel_edge_linear", "sample2d_src_edge_linear", "",
          (False, "CLAMP_TO_EDGE", "LINEAR"), ("CL_RGBA", "CL_HALF_FLOAT"))
_declared("image2d_sampler_program_scope", "sample2d_program", "",
          (True, "REPEAT", "LINEAR"), ("CL_RGBA", "CL_UNORM_INT8"))


# --- integer formats: read_imagei / read_imageui ---------------------------------------------

def _int_case(name, kernel, fmt, smp, int_coords, kind, pocl_skip=""):
    def build(rng):
        w, h = 6, 5
        data = image_data(rng, (h, w), fmt)
        t = R.texels(data, fmt, kind)
        if int_coords:
            ci = np.stack([rng.integers(-3, w + 3, N), rng.integers(-3, h + 3, N)], axis=1)
            c_arg = In("c", ci.astype(np.int32).reshape(-1))
            c = ci + 0.5            # the texel's centre, as unnormalized nearest coordinates
        else:
            lo, hi = coord_range(smp[1], smp[0], "NEAREST")
            cf = as_coords(texel_coords(rng, N, (w, h), lo, hi, True), (w, h), smp[0])
            c_arg = In("c", cf.reshape(-1))
            c = cf.astype(np.float64)
        return Case(name, "images.cl", kernel,
                    [Image("im", data, fmt), Sampler("s", *smp), c_arg,
                     sampled_out("out", kind, t, c, smp, fmt, 2)],
                    global_size=(N,), local_size=(64,), pocl_skip=pocl_skip)
    build.__name__ = name
    return case(build)


_int_case("image2d_readui_uint8_repeat", "sample2d_ui", ("CL_RGBA", "CL_UNSIGNED_INT8"),
          (True, "REPEAT", "NEAREST"), False, "ui")
_int_case("image2d_readui_uint16_mirrored", "sample2d_ui", ("CL_RGBA", "CL_UNSIGNED_INT16"),
          (True, "MIRRORED_REPEAT", "NEAREST"), False, "ui")
_int_case("image2d_fetchui_uint32_clamp", "fetch2d_ui", ("CL_RGBA", "CL_UNSIGNED_INT32"),
          (False, "CLAMP", "NEAREST"), True, "ui")
_int_case("image2d_readi_int8_clamp", "sample2d_i", ("CL_RGBA", "CL_SIGNED_INT8"),
          (False, "CLAMP", "NEAREST"), False, "i")
_int_case("image2d_fetchi_int16_edge", "fetch2d_i", ("CL_RGBA", "CL_SIGNED_INT16"),
          (False, "CLAMP_TO_EDGE", "NEAREST"), True, "i")
_int_case("image2d_fetchi_r_int32_clamp", "fetch2d_i", ("CL_R", "CL_SIGNED_INT32"),
          (False, "CLAMP", "NEAREST"), True, "i")
_int_case("image2d_fetchf_unorm8_clamp", "fetch2d_f", ("CL_BGRA", "CL_UNORM_INT8"),
          (False, "CLAMP", "NEAREST"), True, "f")


# --- sampler-less reads ------------------------------------------------------------------------

@case
def image2d_load_no_sampler(rng):
    """read_imagef(image, int2) without a sampler (OpenCL 1.2), every texel."""
    w, h = 9, 4
    fmt = ("CL_RGBA", "CL_SNORM_INT16")
    data = image_data(rng, (h, w), fmt)
    t = R.texels(data, fmt).reshape(-1)
    return Case("image2d_load_no_sampler", "images.cl", "load2d",
                [Image("im", data, fmt),
                 Out("f", np.float32, w * h * 4, Ulp(1.5, "snorm_int16 -> float (8.3.1.1)"),
                     ref=lambda d: t)],
                global_size=(w, h), local_size=None)


@case
def image2d_load_i_no_sampler(rng):
    """read_imagei(image, int2) without a sampler, every texel of an R image."""
    w, h = 5, 7
    fmt = ("CL_R", "CL_SIGNED_INT16")
    data = image_data(rng, (h, w), fmt)
    t = R.texels(data, fmt, "i").reshape(-1)
    out = Out("n", np.int32, w * h * 4, Exact("read_imagei"), ref=lambda d: t)
    out.pocl_differs, out.pocl_note = pocl_known(fmt, "i", w * h)
    return Case("image2d_load_i_no_sampler", "images.cl", "load2d_i",
                [Image("im", data, fmt), out],
                global_size=(w, h))


# --- writes -------------------------------------------------------------------------------------

def _write_case(name, kernel, fmt, values_fn, vdtype, pocl_skip=""):
    def build(rng):
        w, h = 8, 4
        v = values_fn(rng, w * h).astype(vdtype)
        init = image_data(rng, (h, w), fmt)
        want = R.stored(v, fmt).reshape(h, w, -1)
        return Case(name, "images.cl", kernel,
                    [Image("im", init, fmt, cmp=Exact(f"{kernel[5:]} to {fmt[1][3:].lower()}"),
                           ref=lambda d: want),
                     In("v", v.reshape(-1))],
                    global_size=(w, h), pocl_skip=pocl_skip)
    build.__name__ = name
    return case(build)


def _unit_floats(rng, n):
    v = rng.uniform(-0.3, 1.3, (n, 4))
    v[0] = [0.5 / 255, 1.5 / 255, 2.5 / 255, 254.5 / 255]       # ties of _rte
    v[1] = [-0.0, 1.0, 2.0, -1.0]
    return v


def _signed_floats(rng, n):
    v = rng.uniform(-1.3, 1.3, (n, 4))
    v[0] = [0.5 / 127, -0.5 / 127, 1.5 / 127, -2.5 / 127]
    v[1] = [-1.0, 1.0, -2.0, 0.0]
    return v


def _half_floats(rng, n):
    v = rng.uniform(-70000, 70000, (n, 4))
    v[: n // 2] = rng.uniform(-3, 3, (n // 2, 4))
    v[0] = [1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 65520.0, -65519.0]     # ties; overflow
    return v


_write_case("image2d_writef_rgba_unorm_int8", "store2d_f", ("CL_RGBA", "CL_UNORM_INT8"),
            _unit_floats, np.float32)
_write_case("image2d_writef_bgra_unorm_int8", "store2d_f", ("CL_BGRA", "CL_UNORM_INT8"),
            _unit_floats, np.float32)
_write_case("image2d_writef_rgba_snorm_int8", "store2d_f", ("CL_RGBA", "CL_SNORM_INT8"),
            _signed_floats, np.float32)
_write_case("image2d_writef_r_unorm_int16", "store2d_f", ("CL_R", "CL_UNORM_INT16"),
            _unit_floats, np.float32)
_write_case("image2d_writef_rgba_half_float", "store2d_f", ("CL_RGBA", "CL_HALF_FLOAT"),
            _half_floats, np.float32)
_write_case("image2d_writef_rgba_float", "store2d_f", ("CL_RGBA", "CL_FLOAT"),
            lambda rng, n: rng.uniform(-1e6, 1e6, (n, 4)), np.float32)
_write_case("image2d_writei_rgba_int8", "store2d_i", ("CL_RGBA", "CL_SIGNED_INT8"),
            lambda rng, n: rng.integers(-300, 300, (n, 4)), np.int32)
_write_case("image2d_writei_r_int16", "store2d_i", ("CL_R", "CL_SIGNED_INT16"),
            lambda rng, n: rng.integers(-70000, 70000, (n, 4)), np.int32)
_write_case("image2d_writeui_rgba_uint8", "store2d_ui", ("CL_RGBA", "CL_UNSIGNED_INT8"),
            lambda rng, n: rng.integers(0, 600, (n, 4)), np.uint32)
_write_case("image2d_writeui_r_uint16", "store2d_ui", ("CL_R", "CL_UNSIGNED_INT16"),
            lambda rng, n: rng.integers(0, 2**32 - 1, (n, 4), dtype=np.uint64), np.uint32)
_write_case("image2d_writeui_rgba_uint32", "store2d_ui", ("CL_RGBA", "CL_UNSIGNED_INT32"),
            lambda rng, n: rng.integers(0, 2**32 - 1, (n, 4), dtype=np.uint64), np.uint32)


@case
def image2d_flip_filter(rng):
    """An image filter: read_imagef from one image (CLK_ADDRESS_NONE, integer
    coordinates), write_imagef to another of another format (float ->
    unorm8: the conversion rounds, so 8.3.1.1's exact values are compared)."""
    w, h = 10, 6
    src = image_data(rng, (h, w), ("CL_RGBA", "CL_UNORM_INT8"))
    scale = np.float32(0.618034)        # c * scale is never near a tie of the rounding

    def want(d):
        v = (R.texels(src, ("CL_RGBA", "CL_UNORM_INT8"))[:, ::-1].astype(np.float32) * scale)
        return R.stored(v.reshape(-1, 4), ("CL_RGBA", "CL_UNORM_INT8")).reshape(h, w, 4)
    init = np.zeros((h, w, 4), np.uint8)
    return Case("image2d_flip_filter", "images.cl", "flip2d",
                [Image("src", src, ("CL_RGBA", "CL_UNORM_INT8")),
                 Image("dst", init, ("CL_RGBA", "CL_UNORM_INT8"), cmp=Exact("unorm8 written"),
                       ref=want),
                 Scalar("scale", scale)],
                global_size=(w, h))


@case
def image2d_queries(rng):
    """get_image_width/height/dim/channel_data_type/channel_order of a read
    and a write image, and the CLK_ channel constants."""
    a = image_data(rng, (3, 11), ("CL_RGBA", "CL_UNORM_INT8"))
    b = np.zeros((5, 2, 1), np.float32)
    want = np.array([11, 3, 11, 3, CL_TYPE["CL_UNORM_INT8"], CL_RGBA,
                     2, 5, 2, 5, CL_TYPE["CL_FLOAT"], CL_R, 1, 1], np.int32)
    return Case("image2d_queries", "images.cl", "query2d",
                [Image("a", a, ("CL_RGBA", "CL_UNORM_INT8")),
                 Image("b", b, ("CL_R", "CL_FLOAT"), cmp=Exact("untouched"), ref=lambda d: b),
                 Out("out", np.int32, 14, Exact("image queries"), ref=lambda d: want)],
                global_size=(1,))


# --- 3-D ----------------------------------------------------------------------------------------

def _sample3d(name, smp, fmt, size=(5, 4, 3)):
    def build(rng):
        w, h, dd = size
        data = image_data(rng, (dd, h, w), fmt)
        t = R.texels(data, fmt)
        lo, hi = coord_range(smp[1], smp[0], smp[2])
        c = as_coords(texel_coords(rng, N, size, lo, hi, smp[2] == "NEAREST"), size, smp[0], 4)
        return Case(name, "images.cl", "sample3d_f",
                    [Image("im", data, fmt, "image3d_t"), Sampler("s", *smp),
                     In("c", c.reshape(-1)),
                     sampled_out("out", "f", t, c[:, :3].astype(np.float64), smp, fmt, 3)],
                    global_size=(N,), local_size=(64,))
    build.__name__ = name
    return case(build)


_sample3d("image3d_linear_clamp_unnorm", (False, "CLAMP", "LINEAR"), ("CL_RGBA", "CL_FLOAT"))
_sample3d("image3d_linear_repeat_norm", (True, "REPEAT", "LINEAR"), ("CL_RGBA", "CL_UNORM_INT8"))
_sample3d("image3d_nearest_mirrored_norm", (True, "MIRRORED_REPEAT", "NEAREST"),
          ("CL_RGBA", "CL_HALF_FLOAT"))
_sample3d("image3d_nearest_clamp_r_float", (False, "CLAMP", "NEAREST"), ("CL_R", "CL_FLOAT"))


@case
def image3d_fetchui_uint8(rng):
    """read_imageui(image3d_t, sampler, int4) with CLK_ADDRESS_CLAMP_TO_EDGE."""
    size = (4, 3, 5)
    fmt = ("CL_RGBA", "CL_UNSIGNED_INT8")
    data = image_data(rng, size[::-1], fmt)
    t = R.texels(data, fmt, "ui")
    ci = np.stack([rng.integers(-2, s + 2, N) for s in size] + [np.zeros(N, np.int64)], axis=1)
    smp = (False, "CLAMP_TO_EDGE", "NEAREST")
    return Case("image3d_fetchui_uint8", "images.cl", "fetch3d_ui",
                [Image("im", data, fmt, "image3d_t"), Sampler("s", *smp),
                 In("c", ci.astype(np.int32).reshape(-1)),
                 sampled_out("out", "ui", t, ci[:, :3] + 0.5, smp, fmt, 3)],
                global_size=(N,))


@case
def image3d_queries(rng):
    """get_image_width/height/depth, get_image_dim (int4, w = 0) of a 3-D image."""
    data = image_data(rng, (4, 3, 6), ("CL_R", "CL_SIGNED_INT16"))
    want = np.array([6, 3, 4, 6, 3, 4, 0, CL_TYPE["CL_SIGNED_INT16"], CL_R], np.int32)
    return Case("image3d_queries", "images.cl", "query3d",
                [Image("im", data, ("CL_R", "CL_SIGNED_INT16"), "image3d_t"),
                 Out("out", np.int32, 9, Exact("image queries"), ref=lambda d: want)],
                global_size=(1,))


# --- 1-D, 1-D buffer, 1-D array --------------------------------------------------------------

def _sample1d(name, smp, fmt, w=13):
    def build(rng):
        data = image_data(rng, (w,), fmt)
        t = R.texels(data, fmt)
        lo, hi = coord_range(smp[1], smp[0], smp[2])
        c = as_coords(texel_coords(rng, N, (w,), lo, hi, smp[2] == "NEAREST"), (w,), smp[0])
        return Case(name, "images.cl", "sample1d_f",
                    [Image("im", data, fmt, "image1d_t"), Sampler("s", *smp),
                     In("c", c.reshape(-1)),
                     sampled_out("out", "f", t, c.astype(np.float64), smp, fmt, 1)],
                    global_size=(N,), local_size=(64,))
    build.__name__ = name
    return case(build)


_sample1d("image1d_linear_mirrored_norm", (True, "MIRRORED_REPEAT", "LINEAR"),
          ("CL_RGBA", "CL_FLOAT"))
_sample1d("image1d_nearest_repeat_norm", (True, "REPEAT", "NEAREST"), ("CL_RGBA", "CL_SNORM_INT8"))
_sample1d("image1d_linear_clamp_unnorm", (False, "CLAMP", "LINEAR"), ("CL_RGBA", "CL_UNORM_INT16"))


@case
def image1d_fetchi_clamp(rng):
    """read_imagei(image1d_t, sampler, int) with CLK_ADDRESS_CLAMP: the border
    is (0, 0, 0, 0) for RGBA."""
    w = 11
    fmt = ("CL_RGBA", "CL_SIGNED_INT8")
    data = image_data(rng, (w,), fmt)
    t = R.texels(data, fmt, "i")
    ci = rng.integers(-4, w + 4, N)
    smp = (False, "CLAMP", "NEAREST")
    return Case("image1d_fetchi_clamp", "images.cl", "fetch1d_i",
                [Image("im", data, fmt, "image1d_t"), Sampler("s", *smp),
                 In("c", ci.astype(np.int32)),
                 sampled_out("out", "i", t, (ci + 0.5)[:, None], smp, fmt, 1)],
                global_size=(N,))


@case
def image1d_writef_unorm16(rng):
    """write_imagef(image1d_t, int, float4) to CL_RGBA / CL_UNORM_INT16."""
    w = 64
    fmt = ("CL_RGBA", "CL_UNORM_INT16")
    v = _unit_floats(rng, w).astype(np.float32)
    want = R.stored(v, fmt)
    return Case("image1d_writef_unorm16", "images.cl", "store1d_f",
                [Image("im", np.zeros((w, 4), np.uint16), fmt, "image1d_t",
                       cmp=Exact("unorm16 written"), ref=lambda d: want),
                 In("v", v.reshape(-1))],
                global_size=(w,))


@case
def image1d_buffer_read_write(rng):
    """image1d_buffer_t: read_imagef and write_imagef without a sampler; the
    images are views of buffers (what is written is read back from the
    buffer).  The image queries are left out: PoCL 3.1's kernel library has
    no get_image_width or get_image_channel_* for image1d_buffer_t (the
    kernel's dlopen fails on the undefined symbol and the process aborts)."""
    w = 96
    fmt = ("CL_RGBA", "CL_FLOAT")
    src = image_data(rng, (w,), fmt)
    return Case("image1d_buffer_read_write", "images.cl", "buffer1d_scale",
                [Image("src", src, fmt, "image1d_buffer_t"),
                 Image("dst", np.zeros((w, 4), np.float32), fmt, "image1d_buffer_t",
                       cmp=Exact("float written"), ref=lambda d: d["src"] * np.float32(0.5)),
                 Out("copy", np.float32, w * 4, Exact("float read"), ref=lambda d: d["src"])],
                global_size=(w,), local_size=(32,))


@case
def image1d_buffer_uint(rng):
    """image1d_buffer_t of CL_RGBA / CL_UNSIGNED_INT16: read_imageui,
    write_imageui (saturating at 65535)."""
    w = 80
    fmt = ("CL_RGBA", "CL_UNSIGNED_INT16")
    src = image_data(rng, (w,), fmt)
    src[0] = [65535, 65534, 65533, 65532]
    return Case("image1d_buffer_uint", "images.cl", "buffer1d_ui",
                [Image("src", src, fmt, "image1d_buffer_t"),
                 Image("dst", np.zeros((w, 4), np.uint16), fmt, "image1d_buffer_t",
                       cmp=Exact("uint16 written"),
                       ref=lambda d: R.stored(d["src"].astype(np.int64) + [1, 2, 3, 4], fmt))],
                global_size=(w,))


@case
def image1d_array_sample(rng):
    """image1d_array_t: read_imagef at float2 (x normalized, the layer
    rint-rounded and clamped), linear, CLK_ADDRESS_REPEAT; get_image_array_size."""
    w, n_layers = 9, 4
    fmt = ("CL_RGBA", "CL_UNORM_INT8")
    data = image_data(rng, (n_layers, w), fmt)
    t = R.texels(data, fmt)
    smp = (True, "REPEAT", "LINEAR")
    x = texel_coords(rng, N, (w,), (-1.5, 0), (2.5, 0), False)[:, 0] / w
    lay = rng.uniform(-1.4, n_layers + 0.4, N)
    lay = np.floor(lay) + np.clip(lay - np.floor(lay), 0.0, 0.45)     # off the .5 ties
    c = np.stack([x, lay], axis=1).astype(np.float32)
    layers = R.layer(c[:, 1], n_layers)
    return Case("image1d_array_sample", "images.cl", "sample1da_f",
                [Image("im", data, fmt, "image1d_array_t"), Sampler("s", *smp),
                 In("c", c.reshape(-1)),
                 sampled_out("out", "f", t, c[:, :1].astype(np.float64), smp, fmt, 1,
                             layers=layers),
                 Out("n", np.int32, 2, Exact("width, array size"),
                     ref=lambda d: np.array([w, n_layers]))],
                global_size=(N,), local_size=(64,))


# --- 2-D array ----------------------------------------------------------------------------------

def _sample2da(name, smp, fmt):
    def build(rng):
        w, h, n_layers = 6, 5, 3
        data = image_data(rng, (n_layers, h, w), fmt)
        t = R.texels(data, fmt)
        lo, hi = coord_range(smp[1], smp[0], smp[2])
        xy = as_coords(texel_coords(rng, N, (w, h), lo, hi, smp[2] == "NEAREST"), (w, h), smp[0])
        lay = rng.uniform(-1.4, n_layers + 0.4, N)
        lay = np.floor(lay) + np.clip(lay - np.floor(lay), 0.0, 0.45)
        c = np.concatenate([xy, lay[:, None].astype(np.float32), np.zeros((N, 1), np.float32)],
                           axis=1)
        layers = R.layer(c[:, 2], n_layers)
        return Case(name, "images.cl", "sample2da_f",
                    [Image("im", data, fmt, "image2d_array_t"), Sampler("s", *smp),
                     In("c", c.reshape(-1)),
                     sampled_out("out", "f", t, c[:, :2].astype(np.float64), smp, fmt, 2,
                                 layers=layers)],
                    global_size=(N,), local_size=(64,))
    build.__name__ = name
    return case(build)


_sample2da("image2d_array_linear_clamp_unnorm", (False, "CLAMP", "LINEAR"), ("CL_RGBA", "CL_FLOAT"))
_sample2da("image2d_array_nearest_repeat_norm", (True, "REPEAT", "NEAREST"),
           ("CL_R", "CL_UNORM_INT8"))


@case
def image2d_array_fetchi(rng):
    """read_imagei(image2d_array_t, sampler, int4): CLK_ADDRESS_CLAMP in x and
    y; the layer (an integer) clamped to [0, layers - 1]."""
    w, h, n_layers = 5, 4, 3
    fmt = ("CL_RGBA", "CL_SIGNED_INT16")
    data = image_data(rng, (n_layers, h, w), fmt)
    t = R.texels(data, fmt, "i")
    ci = np.stack([rng.integers(-2, w + 2, N), rng.integers(-2, h + 2, N),
                   rng.integers(-2, n_layers + 2, N), np.zeros(N, np.int64)], axis=1)
    smp = (False, "CLAMP", "NEAREST")
    layers = R.layer(ci[:, 2], n_layers)
    return Case("image2d_array_fetchi", "images.cl", "fetch2da_i",
                [Image("im", data, fmt, "image2d_array_t"), Sampler("s", *smp),
                 In("c", ci.astype(np.int32).reshape(-1)),
                 sampled_out("out", "i", t, ci[:, :2] + 0.5, smp, fmt, 2, layers=layers)],
                global_size=(N,))


@case
def image2d_array_writef(rng):
    """write_imagef(image2d_array_t, int4, float4) to every texel of every
    layer (CL_RGBA / CL_SNORM_INT16); get_image_dim and get_image_array_size."""
    w, h, n_layers = 4, 3, 5
    fmt = ("CL_RGBA", "CL_SNORM_INT16")
    v = _signed_floats(rng, w * h * n_layers).astype(np.float32)
    want = R.stored(v, fmt).reshape(n_layers, h, w, 4)
    return Case("image2d_array_writef", "images.cl", "store2da_f",
                [Image("im", np.zeros((n_layers, h, w, 4), np.int16), fmt, "image2d_array_t",
                       cmp=Exact("snorm16 written"), ref=lambda d: want),
                 In("v", v.reshape(-1)),
                 Out("dims", np.int32, 5, Exact("image queries"),
                     ref=lambda d: np.array([w, h, w, h, n_layers]))],
                global_size=(w, h, n_layers))


# --- CL_RG: PoCL 3.1 has none (pocl_skip), pyemu against the formulas ----------------------------

POCL_NO_RG = "PoCL 3.1 has no CL_RG images (clGetSupportedImageFormats)"

_sampling_case("image2d_read_rg_float", False, "CLAMP", "NEAREST", ("CL_RG", "CL_FLOAT"),
               pocl_skip=POCL_NO_RG)
_sampling_case("image2d_read_rg_snorm_int16", True, "MIRRORED_REPEAT", "NEAREST",
               ("CL_RG", "CL_SNORM_INT16"), pocl_skip=POCL_NO_RG)
_sampling_case("image2d_linear_rg_unorm_int8", True, "CLAMP", "LINEAR", ("CL_RG", "CL_UNORM_INT8"),
               size=(9, 6), pocl_skip=POCL_NO_RG)
_int_case("image2d_fetchui_rg_uint16_clamp", "fetch2d_ui", ("CL_RG", "CL_UNSIGNED_INT16"),
          (False, "CLAMP", "NEAREST"), True, "ui", pocl_skip=POCL_NO_RG)
_int_case("image2d_readi_rg_int8_edge", "sample2d_i", ("CL_RG", "CL_SIGNED_INT8"),
          (False, "CLAMP_TO_EDGE", "NEAREST"), False, "i", pocl_skip=POCL_NO_RG)
_write_case("image2d_writef_rg_unorm_int8", "store2d_f", ("CL_RG", "CL_UNORM_INT8"),
            _unit_floats, np.float32, pocl_skip=POCL_NO_RG)
_write_case("image2d_writef_rg_half_float", "store2d_f", ("CL_RG", "CL_HALF_FLOAT"),
            _half_floats, np.float32, pocl_skip=POCL_NO_RG)
_write_case("image2d_writeui_rg_uint32", "store2d_ui", ("CL_RG", "CL_UNSIGNED_INT32"),
            lambda rng, n: rng.integers(0, 2**32 - 1, (n, 4), dtype=np.uint64), np.uint32,
            pocl_skip=POCL_NO_RG)
_write_case("image2d_writei_rg_int16", "store2d_i", ("CL_RG", "CL_SIGNED_INT16"),
            lambda rng, n: rng.integers(-70000, 70000, (n, 4)), np.int32, pocl_skip=POCL_NO_RG)


@case
def image2d_rg_queries(rng):
    """get_image_channel_order of a CL_RG image is CLK_RG (pyemu only: PoCL 3.1
    has no CL_RG images)."""
    a = image_data(rng, (3, 11), ("CL_RG", "CL_UNORM_INT8"))
    b = np.zeros((5, 2, 2), np.float32)
    want = np.array([11, 3, 11, 3, CL_TYPE["CL_UNORM_INT8"], CL_RG,
                     2, 5, 2, 5, CL_TYPE["CL_FLOAT"], CL_RG, 1, 0], np.int32)
    return Case("image2d_rg_queries", "images.cl", "query2d",
                [Image("a", a, ("CL_RG", "CL_UNORM_INT8")),
                 Image("b", b, ("CL_RG", "CL_FLOAT"), cmp=Exact("untouched"), ref=lambda d: b),
                 Out("out", np.int32, 14, Exact("image queries"), ref=lambda d: want)],
                global_size=(1,), pocl_skip=POCL_NO_RG)


# --- 3-D writes (cl_khr_3d_image_writes) ---------------------------------------------------------

def _write3d_case(name, kernel, fmt, values_fn, vdtype, size=(5, 4, 3)):
    """write_image{f,i,ui}(image3d_t, int4, ...) to every texel of a 3-D image:
    compared with PoCL and with the 8.3 conversions (R.stored)."""
    def build(rng):
        w, h, dd = size
        v = values_fn(rng, w * h * dd).astype(vdtype)
        init = image_data(rng, (dd, h, w), fmt)
        want = R.stored(v, fmt).reshape(dd, h, w, -1)
        return Case(name, "images.cl", kernel,
                    [Image("im", init, fmt, "image3d_t",
                           cmp=Exact(f"{kernel[5:]} to {fmt[1][3:].lower()}"),
                           ref=lambda d: want),
                     In("v", v.reshape(-1))],
                    global_size=size,
                    doc="cl_khr_3d_image_writes: a __write_only image3d_t")
    build.__name__ = name
    build.__doc__ = f"3-D write to {fmt[0]}/{fmt[1]} (cl_khr_3d_image_writes)"
    return case(build)


_write3d_case("image3d_writef_rgba_unorm_int8", "store3d_f", ("CL_RGBA", "CL_UNORM_INT8"),
              _unit_floats, np.float32)
_write3d_case("image3d_writef_r_float", "store3d_f", ("CL_R", "CL_FLOAT"),
              lambda rng, n: rng.uniform(-1e6, 1e6, (n, 4)), np.float32)
_write3d_case("image3d_writef_rgba_half_float", "store3d_f", ("CL_RGBA", "CL_HALF_FLOAT"),
              _half_floats, np.float32, size=(4, 3, 2))
_write3d_case("image3d_writei_rgba_int16", "store3d_i", ("CL_RGBA", "CL_SIGNED_INT16"),
              lambda rng, n: rng.integers(-70000, 70000, (n, 4)), np.int32)
_write3d_case("image3d_writeui_rgba_uint8", "store3d_ui", ("CL_RGBA", "CL_UNSIGNED_INT8"),
              lambda rng, n: rng.integers(0, 600, (n, 4)), np.uint32, size=(3, 3, 4))


@case
def image3d_write_then_sample(rng):
    """One kernel writes a 3-D image (write_imagef, every texel) and samples
    another 3-D image that holds what the write stores (read_imagef, linear,
    CLK_ADDRESS_CLAMP_TO_EDGE, normalized): both against PoCL and the
    formulas."""
    size = (4, 3, 3)
    fmt = ("CL_RGBA", "CL_FLOAT")
    w, h, dd = size
    v = rng.uniform(-2, 2, (w * h * dd, 4)).astype(np.float32)
    stored = R.stored(v, fmt).reshape(dd, h, w, 4)
    t = R.texels(stored, fmt)
    smp = (True, "CLAMP_TO_EDGE", "LINEAR")
    lo, hi = coord_range(smp[1], smp[0], smp[2])
    c = as_coords(texel_coords(rng, N, size, lo, hi, False), size, True, 4)
    return Case("image3d_write_then_sample", "images.cl", "store3d_then_sample",
                [Image("im", np.zeros((dd, h, w, 4), np.float32), fmt, "image3d_t",
                       cmp=Exact("float written"), ref=lambda d: stored),
                 In("v", v.reshape(-1)), Sampler("s", *smp), In("c", c.reshape(-1)),
                 Image("src", stored, fmt, "image3d_t"),
                 sampled_out("out", "f", t, c[:, :3].astype(np.float64), smp, fmt, 3)],
                global_size=size)
