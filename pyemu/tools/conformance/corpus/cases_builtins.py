"""Integer, common, geometric and relational built-ins (OpenCL 1.2,
sections 6.12.3 to 6.12.6)."""
from __future__ import annotations

import numpy as np

from . import bounds
from .cases_convert import INT_RANGES
from .compare import Abs, Exact, Ulp
from .model import Case, In, Out, case, f64, random_bits, uniform, with_specials

INF, NAN = np.inf, np.nan
F32 = np.float32
EPS = bounds.FLT_EPSILON


def _ints(a):
    return [int(v) for v in np.asarray(a).tolist()]


def _sat(v, t):
    lo, hi = INT_RANGES[t]
    return min(max(v, lo), hi)


# --- integer functions ---------------------------------------------------------------

INT_TYPES = [("c", np.int8, np.uint8), ("uc", np.uint8, np.uint8), ("s", np.int16, np.uint16),
             ("us", np.uint16, np.uint16), ("i", np.int32, np.uint32),
             ("ui", np.uint32, np.uint32), ("l", np.int64, np.uint64),
             ("ul", np.uint64, np.uint64)]


def _int_sat_ref(t, n):
    def o_ref(d, k):
        a, b, c = (np.array(_ints(d[f"{k}_{x}"]), dtype=object).reshape(n, 4) for x in "abc")
        sat = np.vectorize(lambda v: _sat(v, t), otypes=[object])
        out = np.empty((n, 36), object)
        out[:, 0:4] = sat(a + b)
        out[:, 4:8] = sat(a - b)
        out[:, 8:12] = (a + b) // 2
        out[:, 12:16] = (a + b + 1) // 2
        out[:, 16:20] = sat(a * b + c)
        lo, hi = np.minimum(b, c), np.maximum(b, c)
        out[:, 20:24] = np.minimum(np.maximum(a, lo), hi)
        out[:, 24:28] = np.maximum(a, b)
        out[:, 28:32] = np.minimum(a, c[:, :1])
        out[:, 32] = sat(a[:, 0] + b[:, 0])
        out[:, 33] = sat(a[:, 1] - c[:, 1])
        out[:, 34] = sat(a[:, 2] * b[:, 2] + c[:, 2])
        out[:, 35] = np.minimum(np.maximum(a[:, 3], 5), 100)
        return out.reshape(-1).astype(t)

    def u_ref(d, k):
        a, b = (np.array(_ints(d[f"{k}_{x}"]), dtype=object) for x in "ab")
        return np.concatenate([np.abs(a), np.abs(a - b)])

    return o_ref, u_ref


@case
def int_sat(rng):
    """abs, abs_diff, add_sat, sub_sat, hadd, rhadd, mad_sat, clamp, max, min on every integer type."""
    n = 256
    args = []
    for k, t, ut in INT_TYPES:
        for x in "abc":
            v = random_bits(rng, t, 4 * n)
            v[:64] = (v[:64] % 16).astype(t)               # small values as well
            args.append(In(f"{k}_{x}", v))
        o_ref, u_ref = _int_sat_ref(t, n)
        args.append(Out(f"{k}_o", t, 36 * n, Exact(), ref=lambda d, k=k, f=o_ref: f(d, k)))
        args.append(Out(f"{k}_u", ut, 8 * n, Exact("abs, abs_diff"),
                        ref=lambda d, k=k, f=u_ref: f(d, k)))
    return Case("int_sat", "int_sat.cl", "int_sat", args, global_size=(n,), local_size=(64,))


def _clz(v, bits):
    return bits - v.bit_length()


def _rot(v, s, bits):
    s %= bits
    m = (1 << bits) - 1
    return ((v << s) | (v >> (bits - s))) & m if s else v


def _signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _int_bits_refs(n):
    def u(d):
        out = []
        for x, y in zip(_ints(d["a"]), _ints(d["b"])):
            out += [_clz(x, 32), bin(x).count("1"), _rot(x, y, 32), (x * y) >> 32,
                    (((x * y) >> 32) + x) & 0xFFFFFFFF, (x & 0xFFFFFF) * (y & 0xFF),
                    ((x & 0xFFFFFF) * (y & 0xFF) + y) & 0xFFFFFFFF,
                    ((x & 0xFFFF) << 16) | (y & 0xFFFF)]
        return np.array(out, np.uint32)

    def s(d):
        out = []
        for x, y in zip(_ints(d["a"]), _ints(d["b"])):
            sx, sy = _signed(x, 32), _signed(y, 32)
            x24, y8 = _signed(x, 24), _signed(y, 8)
            out += [_clz(x, 32), bin(x).count("1"), _signed(_rot(x, y, 32), 32),
                    (sx * sy) >> 32, _signed(((sx * sy) >> 32) + (sx >> 1), 32), x24 * y8,
                    _signed(x24 * y8 + (sx >> 2), 32),
                    _signed(((sx & 0xFFFF) << 16) | (y & 0xFFFF), 32)]
        return np.array(out, np.int32)

    def ul(d):
        out = []
        for x, y, lx, ly in zip(_ints(d["a"]), _ints(d["b"]), _ints(d["la"]), _ints(d["lb"])):
            out += [_clz(lx, 64), bin(lx).count("1"), _rot(lx, ly, 64), (lx * ly) >> 64,
                    (x << 32) | y]
        return np.array(out, np.uint64)

    def sl(d):
        out = []
        for x, y, lx, ly in zip(_ints(d["a"]), _ints(d["b"]), _ints(d["la"]), _ints(d["lb"])):
            slx, sly = _signed(lx, 64), _signed(ly, 64)
            out += [(slx * sly) >> 64, _signed(((slx * sly) >> 64) + (slx >> 1), 64),
                    _signed(_rot(lx, ly & 127, 64), 64), _signed((x << 32) | y, 64)]
        return np.array(out, np.int64)

    return u, s, ul, sl


@case
def int_bits(rng):
    """clz, popcount, rotate, upsample, mul_hi, mad_hi, mul24, mad24."""
    n = 1024
    a, b = random_bits(rng, np.uint32, n), random_bits(rng, np.uint32, n)
    a[:8] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x00010000, 7, 0x7FFFFFFF, 0x00800000]
    la, lb = random_bits(rng, np.uint64, n), random_bits(rng, np.uint64, n)
    la[:3] = [0, 1, 2**63]
    u, s, ul, sl = _int_bits_refs(n)
    return Case("int_bits", "int_bits.cl", "int_bits",
                [In("a", a), In("b", b), In("la", la), In("lb", lb),
                 Out("o_u", np.uint32, 8 * n, Exact(), ref=u),
                 Out("o_i", np.int32, 8 * n, Exact(), ref=s),
                 Out("o_ul", np.uint64, 5 * n, Exact(), ref=ul),
                 Out("o_l", np.int64, 4 * n, Exact(), ref=sl),
                 Out("o_c", np.uint8, 16 * n, Exact("uchar4: clz, popcount, rotate, mul_hi")),
                 Out("o_s", np.uint16, 8 * n, Exact("ushort2: clz, rotate, mad_hi, upsample"))],
                global_size=(n,), local_size=(64,))


# --- common functions -------------------------------------------------------------------

def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


@case
def common_fns(rng):
    """clamp, degrees, radians, max, min, mix, step, smoothstep, sign."""
    n = 4096
    # no NaN or infinity: max, min (of floats) and clamp leave them undefined
    x = with_specials(uniform(rng, -2, 2, n), [0.0, -0.0, 0.5, -0.5, 0.75, 1e-30, 2.0, -2.0])
    y = uniform(rng, -2, 2, n)
    y[100:200] = x[100:200]
    t = uniform(rng, 0, 1, n)
    a = lambda d: f64(d["x"])  # noqa: E731
    b = lambda d: f64(d["y"])  # noqa: E731

    def sign(d):
        v = a(d)
        return np.where(np.isnan(v), 0.0, np.where(v > 0, 1.0, np.where(v < 0, -1.0, v)))

    return Case("common_fns", "common.cl", "common_fns",
                [In("x", x), In("y", y), In("t", t),
                 Out("o_clamp", F32, n, Ulp(0, "clamp"),
                     ref=lambda d: np.clip(a(d), -0.5, 0.75)),
                 Out("o_degrees", F32, n, Ulp(bounds.ulp("degrees"), "degrees"),
                     ref=lambda d: a(d) * 180 / np.pi),
                 Out("o_radians", F32, n, Ulp(bounds.ulp("radians"), "radians"),
                     ref=lambda d: f64(d["x"] * F32(100)) * np.pi / 180),
                 Out("o_max", F32, n, Exact("max"), ref=lambda d: np.fmax(a(d), b(d))),
                 Out("o_min", F32, n, Exact("min"), ref=lambda d: np.fmin(a(d), b(d))),
                 Out("o_mix", F32, n, Abs(bounds.ABSOLUTE["mix"], "mix"),
                     ref=lambda d: a(d) + (b(d) - a(d)) * f64(d["t"])),
                 Out("o_step", F32, n, Exact("step"),
                     ref=lambda d: np.where(a(d) < b(d), 0.0, 1.0)),
                 Out("o_smoothstep", F32, n, Abs(bounds.ABSOLUTE["smoothstep"], "smoothstep"),
                     ref=lambda d: _smoothstep(-0.5, 0.5, a(d))),
                 Out("o_sign", F32, n, Exact("sign"), ref=sign),
                 Out("o_vec", F32, 4 * n, Exact("clamp, step, max, min (float4, float)"))],
                global_size=(n,), local_size=(64,))


# --- geometric functions ----------------------------------------------------------------------

def _geo_tol(d, widths, factor):
    """max*max*factor(w)*FLT_EPSILON per output, max over the operands' first w components."""
    p, q = np.abs(d["p"].reshape(-1, 4)), np.abs(d["q"].reshape(-1, 4))
    cols = []
    for w in widths:
        m = np.maximum(p[:, :w].max(1), q[:, :w].max(1)).astype(np.float64)
        cols.append(m * m * factor(w) * EPS)
    return np.stack(cols, 1).reshape(-1)


def _cross(a, b):
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1], a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], 1)


@case
def geometric(rng):
    """dot, cross, length, distance, normalize and their fast_ forms."""
    n = 2048
    p = uniform(rng, -10, 10, 4 * n)
    q = uniform(rng, -10, 10, 4 * n)
    P = lambda d: f64(d["p"]).reshape(-1, 4)  # noqa: E731
    Q = lambda d: f64(d["q"]).reshape(-1, 4)  # noqa: E731
    widths = [1, 2, 3, 4]

    def dot(d):
        return np.stack([(P(d)[:, :w] * Q(d)[:, :w]).sum(1) for w in widths], 1).reshape(-1)

    def cross4(d):
        c = _cross(P(d), Q(d))
        return np.concatenate([c, np.zeros((n, 1))], 1).reshape(-1)

    def cross3(d):
        return _cross(P(d), Q(d)[:, [2, 0, 1]]).reshape(-1)

    def cross_tol(d, perm=None):
        pp, qq = np.abs(P(d)[:, :3]), np.abs(Q(d)[:, :3])
        m = np.maximum(pp.max(1), qq.max(1))
        return np.repeat(m * m * 3 * EPS, 4 if perm is None else 3)

    def length(d):
        return np.stack([np.sqrt((P(d)[:, :w] ** 2).sum(1)) for w in widths], 1).reshape(-1)

    def distance(d):
        return np.stack([np.sqrt(((P(d) - Q(d))[:, :w] ** 2).sum(1)) for w in widths],
                        1).reshape(-1)

    def normalize(d):
        v = P(d)
        return (v / np.sqrt((v ** 2).sum(1))[:, None]).reshape(-1)

    geo = bounds.geometric_ulp
    return Case("geometric", "geometric.cl", "geometric",
                [In("p", p), In("q", q),
                 Out("o_dot", F32, 4 * n, Abs(lambda d: _geo_tol(d, widths, lambda w: 2 * w - 1),
                                              "dot"), ref=dot),
                 Out("o_cross4", F32, 4 * n, Abs(cross_tol, "cross (float4)"), ref=cross4),
                 Out("o_cross3", F32, 3 * n, Abs(lambda d: cross_tol(d, 3), "cross (float3)"),
                     ref=cross3),
                 Out("o_length", F32, 4 * n, Ulp([geo("length", w) for w in widths], "length"),
                     ref=length),
                 Out("o_distance", F32, 4 * n,
                     Ulp([geo("distance", w) for w in widths], "distance"), ref=distance),
                 Out("o_normalize", F32, 4 * n, Ulp(geo("normalize", 4), "normalize"),
                     ref=normalize),
                 Out("o_fast_length", F32, n, Ulp(geo("fast_length", 4), "fast_length"),
                     ref=lambda d: length(d)[3::4]),
                 Out("o_fast_distance", F32, n, Ulp(geo("fast_distance", 4), "fast_distance"),
                     ref=lambda d: distance(d)[3::4]),
                 Out("o_fast_normalize", F32, 4 * n,
                     Ulp(geo("fast_normalize", 4), "fast_normalize"), ref=normalize)],
                global_size=(n,), local_size=(64,))


# --- relational functions -------------------------------------------------------------------

@case
def relational(rng):
    """isequal ... signbit (scalar 1/0, vector -1/0), any, all."""
    n = 2048
    x = uniform(rng, -2, 2, n)
    y = uniform(rng, -2, 2, n)
    y[100:300] = x[100:300]
    specials = [0.0, -0.0, INF, -INF, NAN, 1e-40, -1e-40, 1.0, NAN, 3.4e38]
    x = with_specials(x, specials)
    y = with_specials(y, specials[::-1])

    def scalar(d):
        a, b = f64(d["x"]), f64(d["y"])
        un = np.isnan(a) | np.isnan(b)
        with np.errstate(invalid="ignore"):
            cols = [a == b, a != b, a > b, a >= b, a < b, a <= b, (a < b) | (a > b),
                    np.isfinite(a), np.isinf(a), np.isnan(a),
                    np.isfinite(a) & (np.abs(a) >= np.finfo(F32).tiny), ~un, un, np.signbit(a)]
        return np.stack(cols, 1).astype(np.int32).reshape(-1)

    return Case("relational", "relational.cl", "relational",
                [In("x", x), In("y", y), Out("o_s", np.int32, 14 * n, Exact(), ref=scalar),
                 Out("o_v", np.int32, 16 * n, Exact("vector relational (-1/0)")),
                 Out("o_anyall", np.int32, 8 * n, Exact("any, all"))],
                global_size=(n,), local_size=(64,))
