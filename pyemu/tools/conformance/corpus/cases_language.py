"""The OpenCL C language: qualifiers, attributes, work-item functions,
barriers and __local memory, __constant data, scalar and vector types."""
from __future__ import annotations

import numpy as np

from .compare import Exact
from .model import (Case, In, Local, Out, Scalar, case, pad3_mask, random_bits,
                    uniform)

# --- address spaces and attributes ----------------------------------------------


def _qualifiers(name, rng):
    n, local = 4096, 64
    x = uniform(rng, -10, 10, n)
    k = np.array([0.25, -3.5], np.float32)

    def ref(d):
        g = np.arange(n)
        src = (g // local) * local + (local - 1 - g % local)
        return d["in"][src] * np.float32(2) + d["k"][0] + d["k"][1]

    return Case(name, "qualifiers.cl", name,
                [In("in", x), Out("out", np.float32, n, Exact(), ref=ref), In("k", k),
                 Local("tmp", local * 4)],
                global_size=(n,), local_size=(local,))


@case
def qualifiers_plain(rng):
    """global, local, constant, private: the spellings without underscores."""
    return _qualifiers("qualifiers_plain", rng)


@case
def qualifiers_underscore(rng):
    """__global, __local, __constant, __private, restrict."""
    return _qualifiers("qualifiers_underscore", rng)


@case
def qualifiers_pointers(rng):
    n = 3000
    x = rng.integers(-1000, 1000, n, dtype=np.int32)

    def ref(d):
        out = np.zeros(n, np.int64)
        for k in range(4):
            idx = np.arange(n) + 7 * k
            ok = idx < n
            out[ok] += d["in"][idx[ok]]
        return out + (n - np.arange(n))

    return Case("qualifiers_pointers", "qualifiers.cl", "qualifiers_pointers",
                [In("in", x), Out("out", np.int32, n, Exact(), ref=ref),
                 Scalar("n", np.uint32(n))],
                global_size=(n,), local_size=(100,))


@case
def attributes_reqd(rng):
    """reqd_work_group_size, vec_type_hint, aligned, packed."""
    n = 512
    lid = np.arange(n) % 64
    ref = np.stack([3 * (63 - lid), np.full(n, 64), np.full(n, 7), np.full(n, 12)], 1)
    return Case("attributes_reqd", "attributes.cl", "attributes_reqd",
                [Out("out", np.int32, 4 * n, Exact(), ref=lambda d: ref)],
                global_size=(n,), local_size=(64,))


@case
def attributes_hint(rng):
    n = 256
    ref = (np.arange(n)[:, None] + np.arange(4)[None, :]).astype(np.float32)
    return Case("attributes_hint", "attributes.cl", "attributes_hint",
                [Out("out", np.float32, 4 * n, Exact(), ref=lambda d: ref)],
                global_size=(n,), local_size=(32,))


# --- work-items ------------------------------------------------------------------

def _workitem_ref(gsize, lsize, offset):
    dims = len(gsize)
    gsize = tuple(gsize) + (1,) * (3 - len(gsize))
    lsize = tuple(lsize) + (1,) * (3 - len(lsize))
    offset = tuple(offset) + (0,) * (3 - len(offset))
    rows = []
    for gz in range(gsize[2]):
        for gy in range(gsize[1]):
            for gx in range(gsize[0]):
                g = (gx, gy, gz)
                row = []
                for d in range(3):
                    row += [g[d] + offset[d], g[d] % lsize[d], g[d] // lsize[d], lsize[d],
                            gsize[d], gsize[d] // lsize[d], offset[d]]
                row += [0, 0, 0, 1, 1, 1, 0]       # dimension 3: ids 0, sizes 1
                row.append(dims)
                rows.append(row)
    return np.array(rows, np.uint32).reshape(-1)


def _workitem(name, gsize, lsize, offset):
    total = int(np.prod(gsize))
    ref = _workitem_ref(gsize, lsize, offset)
    # PoCL 3.1 answers 0 for get_local_size, get_global_size and
    # get_num_groups of dimension 3, where the specification says 1; those
    # three fields are left out of the comparison.
    mask = np.ones((total, 29), bool)
    mask[:, 24:27] = False
    return Case(name, "workitem.cl", "workitem",
                [Out("out", np.uint32, total * 29, Exact(), ref=lambda d: ref,
                     mask=mask.reshape(-1)),
                 Scalar("dim_beyond", np.uint32(3))],
                global_size=gsize, local_size=lsize, offset=offset)


@case
def workitem_1d(rng):
    """get_global_id ... get_global_offset in 1 dimension, with an offset."""
    return _workitem("workitem_1d", (384,), (64,), (5,))


@case
def workitem_2d(rng):
    return _workitem("workitem_2d", (48, 20), (16, 4), (3, 7))


@case
def workitem_3d(rng):
    return _workitem("workitem_3d", (12, 6, 4), (4, 3, 2), (1, 2, 3))


# --- barriers and __local memory -----------------------------------------------------

@case
def barrier_local(rng):
    n, wg = 4096, 128
    x = rng.integers(-100, 100, n, dtype=np.int32)
    rev = lambda d: d["in"].reshape(-1, wg)[:, ::-1].reshape(-1)  # noqa: E731
    scan = lambda d: np.cumsum(d["in"].reshape(-1, wg), axis=1).reshape(-1)  # noqa: E731
    return Case("barrier_local", "barrier_local.cl", "barrier_local",
                [In("in", x), Out("reversed", np.int32, n, Exact(), ref=rev),
                 Out("scan", np.int32, n, Exact(), ref=scan)],
                global_size=(n,), local_size=(wg,))


@case
def local_args(rng):
    """Two __local pointer arguments sized by the host, beside a __local variable."""
    groups, wg, chunk = 24, 32, 5
    n = groups * wg
    x = uniform(rng, -1, 1, n * chunk)

    def ref_f(d):
        blocks = d["in"].reshape(groups, wg, chunk)
        out = np.zeros((groups, wg), np.float32)
        rolled = np.roll(blocks, -1, axis=1)
        for k in range(chunk):          # the kernel's order of additions
            out = out + rolled[:, :, k]
        return out.reshape(-1)

    lid = np.arange(n) % wg
    total = sum(i * i for i in range(wg))
    return Case("local_args", "local_args.cl", "local_args",
                [In("in", x), Out("out_f", np.float32, n, Exact(), ref=ref_f),
                 Out("out_i", np.int32, n, Exact(), ref=lambda d: total + lid * lid),
                 Local("lf", wg * chunk * 4), Local("li", wg * 4),
                 Scalar("chunk", np.int32(chunk))],
                global_size=(n,), local_size=(wg,))


@case
def constants(rng):
    """__constant arguments; program-scope __constant arrays, vector and struct."""
    n = 5000
    x = uniform(rng, -4, 4, n)
    taps = np.array([0.5, -1.0, 2.0], np.float32)         # powers of two: exact products
    table = rng.integers(-50, 50, 16, dtype=np.int32)

    def ref(d):
        x = d["x"]
        i = np.arange(n)
        lft, rgt = x[np.maximum(i - 1, 0)], x[np.minimum(i + 1, n - 1)]
        f = np.float32
        s = (f(0.25) * lft + f(0.5) * x) + f(0.25) * rgt + f(4.0)
        t = (d["taps"][0] * lft + d["taps"][1] * x) + d["taps"][2] * rgt + f(0.5)
        return np.stack([s, t], 1)

    shifts = np.array([-2, -1, 1, 2])
    return Case("constants", "constants.cl", "constants",
                [In("x", x), In("taps", taps), In("table", table),
                 Out("out", np.float32, 2 * n, Exact(), ref=ref),
                 Out("iout", np.int32, n, Exact(),
                     ref=lambda d: d["table"][np.arange(n) % 16] * 3 + shifts[np.arange(n) & 3]),
                 Scalar("n", np.int32(n))],
                global_size=(5120,), local_size=(256,))


# --- scalar types --------------------------------------------------------------------

def c_div(a, d):
    """C's integer division (toward zero) and remainder, elementwise."""
    a64, d64 = a.astype(object), d.astype(object)
    q = np.array([abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
                  for x, y in zip(a64, d64)], dtype=object)
    return q, a64 - q * d64


def _scalar_ops_ref(t, x, y):
    """What the OPS(T, U, out) macro of scalar_types.cl computes."""
    t = np.dtype(t)
    bits = 8 * t.itemsize
    a = x.astype(t)                      # (T)x keeps the low bits
    b = y.astype(t)
    d = np.where(b == 0, 1, b).astype(t)
    if t.kind == "i":
        d = np.where(d == -1, 3, d).astype(t)
    else:
        d = np.where(d == np.iinfo(t).max, 3, d).astype(t)
    wrap = lambda v: (np.array([int(e) % (1 << bits) for e in v], dtype=object)  # noqa: E731
                      .astype(np.uint64).astype(f"u{t.itemsize}").view(t))
    ao, bo = a.astype(object), b.astype(object)
    q, r = c_div(a, d)
    cmp = ((ao < bo).astype(int) + 2 * (ao >= bo) + 4 * (ao == bo) + 8 * (ao != 0))
    logic = (ao == 0).astype(int) + 2 * ((ao != 0) & (bo != 0)) + 4 * ((ao != 0) | (bo != 0))
    cols = [wrap(ao + bo), wrap(ao - bo), wrap(ao * bo), wrap(q), wrap(r),
            (a & b) | (~a ^ b), wrap(cmp), wrap(-ao), wrap(logic), np.where(a > 0, a, b)]
    return np.stack([np.asarray(c).astype(t) for c in cols], 1).reshape(-1)


SCALAR_TYPES = [("oc", np.int8), ("ouc", np.uint8), ("os", np.int16), ("ous", np.uint16),
                ("oi", np.int32), ("oui", np.uint32), ("ol", np.int64), ("oul", np.uint64)]


@case
def scalar_types(rng):
    """char ... ulong: +, -, *, /, %, bitwise, comparisons, logic, conversions."""
    n = 1024
    xs, ys = random_bits(rng, np.int64, n), random_bits(rng, np.int64, n)
    xs[:64] %= 300                       # small values and zeros too
    ys[:64] %= 5
    ys[64:128] = -1

    def fref(d):
        x, y = d["xs"], d["ys"]
        small = (x & 0xFFFFF).astype(np.int32) - 0x80000
        f = np.float32
        return np.stack([small.astype(f), (x.astype(np.uint8)).astype(f),
                         y.astype(np.int16).astype(f) / f(4),
                         np.trunc(small.astype(f) * f(0.5)).astype(np.int32).astype(f)],
                        1).reshape(-1)

    def dref(d):
        x, y = d["xs"], d["ys"]
        small = (x & 0xFFFFF).astype(np.int32) - 0x80000
        return np.stack([x.astype(np.float64),
                         small.astype(np.float32).astype(np.float64)
                         + y.view(np.uint64).astype(np.float64)], 1).reshape(-1)

    outs = [Out(name, t, 10 * n, Exact(),
                ref=lambda d, t=t: _scalar_ops_ref(t, d["xs"], d["ys"]))
            for name, t in SCALAR_TYPES]
    return Case("scalar_types", "scalar_types.cl", "scalar_types",
                [In("xs", xs), In("ys", ys)] + outs
                + [Out("of", np.float32, 4 * n, Exact(), ref=fref),
                   Out("od", np.float64, 2 * n, Exact(), ref=dref)],
                global_size=(n,), local_size=(64,))


@case
def shift_modulo(rng):
    """Shift counts taken modulo the (promoted) operand's bit width."""
    n = 2048
    xs = random_bits(rng, np.int32, n)
    counts = rng.integers(0, 80, n).astype(np.uint32)

    def ref_i(d):
        x = d["xs"].astype(np.int64)
        c = d["counts"].astype(np.int64)
        i32 = lambda v: (v & 0xFFFFFFFF).astype(np.uint32).view(np.int32)  # noqa: E731
        c32 = c % 32
        cols = [i32(x << c32), i32(x >> c32), i32((x & 0xFFFFFFFF) >> c32),
                i32(x.astype(np.int8).astype(np.int64) << (c & 7)),
                i32(x.astype(np.int16).astype(np.int64) >> c32),
                i32(x.astype(np.uint8).astype(np.int64) << c32)]
        return np.stack(cols, 1).reshape(-1)

    return Case("shift_modulo", "shift_modulo.cl", "shift_modulo",
                [In("xs", xs), In("counts", counts),
                 Out("oi", np.int32, 6 * n, Exact("<<, >> on scalars"), ref=ref_i),
                 Out("ol", np.int64, 2 * n, Exact("<<, >> on long")),
                 Out("oc4", np.int8, 8 * n, Exact("<<, >> on char4")),
                 Out("os2", np.int16, 2 * n, Exact("<<, >> on short2")),
                 Out("oi4", np.int32, 4 * n, Exact("<<, >> on int4")),
                 Out("oul2", np.uint64, 2 * n, Exact("<<, >> on ulong2"))],
                global_size=(n,), local_size=(64,))


# --- vector types --------------------------------------------------------------------

@case
def vector_types(rng):
    """float2 ... float16 and int2 ... int16 through pointers to them."""
    n = 256
    f = uniform(rng, -100, 100, 2 * 16 * n)
    i = rng.integers(-10000, 10000, 2 * 16 * n, dtype=np.int32)
    outs = []
    for w in (2, 3, 4, 8, 16):
        room = 4 if w == 3 else w
        mask = pad3_mask(n) if w == 3 else None

        def fref(d, room=room):
            v = d["fin"][: 2 * room * n].reshape(n, 2, room)
            return v[:, 0] + v[:, 1] * np.float32(2)

        def iref(d, room=room):
            v = d["iin"][: 2 * room * n].reshape(n, 2, room)
            return v[:, 0] + v[:, 1] * 2

        outs.append((f"f{w}", Out(f"f{w}", np.float32, room * n, Exact(), ref=fref, mask=mask)))
        outs.append((f"i{w}", Out(f"i{w}", np.int32, room * n, Exact(), ref=iref, mask=mask)))
    by = dict(outs)
    args = ([In("fin", f)] + [by[f"f{w}"] for w in (2, 3, 4, 8, 16)]
            + [In("iin", i)] + [by[f"i{w}"] for w in (2, 3, 4, 8, 16)])
    return Case("vector_types", "vector_types.cl", "vector_types", args,
                global_size=(n,), local_size=(64,))


def _vector_int_ref(t):
    def ref(d, t=t):
        key = {np.int8: "c", np.uint8: "uc", np.int16: "s", np.uint16: "us", np.uint32: "ui",
               np.int64: "l", np.uint64: "ul"}[t]
        v = d[f"{key}_in"].reshape(-1, 33)
        tt = np.dtype(t).type
        out = np.empty_like(v)
        out[:, 0:2] = (v[:, 0:2] & tt(15)) * tt(3) + (v[:, 0:2] & tt(15))
        out[:, 2:5] = v[:, 2:5] ^ tt(0x21)
        out[:, 5:9] = v[:, 5:9] ^ tt(0x5a)
        out[:, 9:17] = v[:, 9:17] | v[:, 16:8:-1]
        out[:, 17:33] = v[:, 17:33] & tt(0x3c)
        return out.reshape(-1)
    return ref


@case
def vector_types_int(rng):
    """char, uchar, short, ushort, uint, long, ulong, double at every width (vloadn)."""
    n = 128
    args = []
    for key, t in (("c", np.int8), ("uc", np.uint8), ("s", np.int16), ("us", np.uint16),
                   ("ui", np.uint32), ("l", np.int64), ("ul", np.uint64)):
        args += [In(f"{key}_in", random_bits(rng, t, 33 * n)),
                 Out(f"{key}_out", t, 33 * n, Exact(), ref=_vector_int_ref(t))]

    def dref(d):
        v = d["d_in"].reshape(-1, 33)
        out = np.empty_like(v)
        out[:, 0:2] = v[:, 0:2] * 2
        out[:, 2:5] = v[:, 2:5] + 1
        out[:, 5:9] = -v[:, 5:9]
        out[:, 9:17] = v[:, 16:8:-1]
        out[:, 17:33] = v[:, 17:33] - 0.5
        return out.reshape(-1)

    args += [In("d_in", rng.uniform(-1e6, 1e6, 33 * n)),
             Out("d_out", np.float64, 33 * n, Exact(), ref=dref)]
    return Case("vector_types_int", "vector_types.cl", "vector_types_int", args,
                global_size=(n,), local_size=(32,))


@case
def vector_sizeof(rng):
    """sizeof, vec_step and alignment of every vector type (T3 is T4's size)."""
    sizes, steps = [], []
    for size in (1, 1, 2, 2, 4, 4, 8, 8, 4, 8):
        for w in (1, 2, 3, 4, 8, 16):
            sizes.append(size * (4 if w == 3 else w))
            steps.append(4 if w == 3 else w)     # vec_step(T3) is 4
    ref = np.array(sizes + steps + [16, 64, 2, 4], np.uint32)
    return Case("vector_sizeof", "vector_types.cl", "vector_sizeof",
                [Out("out", np.uint32, 124, Exact(), ref=lambda d: ref)],
                global_size=(64,), local_size=(64,))


@case
def vector_args(rng):
    """float4, int2, uchar, short, ulong and double arguments by value."""
    n = 512
    x = uniform(rng, -10, 10, 4 * n)
    scale = np.array([0.5, 2.0, 4.0, -1.0], np.float32)   # powers of two: exact products
    shift = np.array([3, -7], np.int32)
    big = np.uint64(0x123456789ABCDEF0)

    def ref(d):
        v = d["in"].reshape(n, 4) * d["scale"]
        add = np.array([200, -300, float(int(big) >> 40), 0.125], np.float32)
        return (v + add).reshape(-1)

    def iref(d):
        i = np.arange(n)[:, None]
        return (d["shift"][None, :] * i + np.array([int(big) & 0xFFFF, 200])).reshape(-1)

    return Case("vector_args", "vector_args.cl", "vector_args",
                [In("in", x), Out("out", np.float32, 4 * n, Exact(), ref=ref),
                 Out("iout", np.int32, 2 * n, Exact(), ref=iref),
                 Scalar("scale", scale), Scalar("shift", shift), Scalar("k", np.uint8(200)),
                 Scalar("s", np.int16(-300)), Scalar("big", big), Scalar("d", np.float64(0.125))],
                global_size=(n,), local_size=(64,))


@case
def swizzles(rng):
    """.xyzw, .s0-.sF, .lo/.hi/.even/.odd, swizzles on both sides of '='."""
    n = 256
    return Case("swizzles", "swizzles.cl", "swizzles",
                [In("in4", uniform(rng, -10, 10, 4 * n)), In("in16", uniform(rng, -10, 10, 16 * n)),
                 Out("out4", np.float32, 8 * n, Exact()), Out("out16", np.float32, 16 * n, Exact()),
                 Out("out2", np.float32, 8 * n, Exact()), Out("out8", np.float32, 16 * n, Exact()),
                 Out("out3", np.float32, 4 * n, Exact(), mask=pad3_mask(n)),
                 Out("outi", np.int32, 4 * n, Exact())],
                global_size=(n,), local_size=(64,))


@case
def vector_literals(rng):
    """(float4)(x), (float4)(a.xy, 3.0f, a.w), (int8)(v, v.wzyx), ..."""
    n = 256
    return Case("vector_literals", "vector_literals.cl", "vector_literals",
                [In("in", uniform(rng, -10, 10, 4 * n)),
                 Out("out4", np.float32, 12 * n, Exact()), Out("out8", np.float32, 8 * n, Exact()),
                 Out("out16", np.float32, 16 * n, Exact()), Out("outi8", np.int32, 8 * n, Exact()),
                 Out("outc", np.uint8, 4 * n, Exact()),
                 Out("out3", np.float32, 4 * n, Exact(), mask=pad3_mask(n))],
                global_size=(n,), local_size=(64,))


@case
def vector_operators(rng):
    """Arithmetic, bitwise, shift, comparison, logical, compound and ++/-- on vectors."""
    n = 512
    fa = uniform(rng, 0, 1, 4 * n)
    fb = fa.copy()
    fb[::3] = uniform(rng, 0, 1, fb[::3].size)            # some equal, some not
    return Case("vector_operators", "vector_operators.cl", "vector_operators",
                [In("a4", random_bits(rng, np.int32, 4 * n)),
                 In("b4", random_bits(rng, np.int32, 4 * n)),
                 Out("oi", np.int32, 32 * n, Exact()), In("fa", fa), In("fb", fb),
                 Out("ocmp", np.int32, 32 * n, Exact()), Out("of", np.float32, 8 * n, Exact()),
                 Out("ouc", np.uint8, 16 * n, Exact()), Out("os", np.int16, 8 * n, Exact()),
                 Out("ol", np.int64, 2 * n, Exact())],
                global_size=(n,), local_size=(64,))


@case
def vector_ternary(rng):
    """c ? a : b with a vector condition selects per component."""
    n = 512
    a, b = uniform(rng, -1, 1, 4 * n), uniform(rng, -1, 1, 4 * n)
    ref = lambda d: np.where(d["a"] > d["b"], d["a"], d["b"] + np.float32(1))  # noqa: E731
    return Case("vector_ternary", "vector_ternary.cl", "vector_ternary",
                [In("a", a), In("b", b), Out("out", np.float32, 4 * n, Exact(), ref=ref),
                 Out("iout", np.int32, 8 * n, Exact())],
                global_size=(n,), local_size=(64,))


@case
def select_bits(rng):
    """select and bitselect: vector masks by most significant bit, scalar by != 0."""
    n = 512
    mask = random_bits(rng, np.int32, 4 * n)
    mask[::5] = 0
    return Case("select_bits", "select.cl", "select_bits",
                [In("fa", uniform(rng, -1, 1, 4 * n)), In("fb", uniform(rng, -1, 1, 4 * n)),
                 In("mask", mask), Out("of", np.float32, 12 * n, Exact()),
                 Out("oi", np.int32, 8 * n, Exact()), Out("ouc", np.uint8, 16 * n, Exact()),
                 Out("os", np.float32, 2 * n, Exact()), Out("ol", np.int64, 2 * n, Exact())],
                global_size=(n,), local_size=(64,))


@case
def macro_kernel(rng):
    """A kernel defined by a macro, with a __local array and a barrier inside."""
    n = 1024
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    return Case("macro_kernel", "macro_kernel.cl", "macro_kernel_int",
                [In("in", x),
                 Out("out", np.int32, n, Exact(),
                     ref=lambda d: d["in"].reshape(-1, 64)[:, ::-1].reshape(-1))],
                global_size=(n,), local_size=(64,))
