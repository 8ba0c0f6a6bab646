"""Conversions and reinterpretation: convert_T (with _sat and rounding
modes), as_T, vloadn/vstoren, vload_half/vstore_half."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .compare import Exact
from .model import Case, In, Out, case, random_bits, uniform, with_specials

INT_RANGES = {np.uint8: (0, 255), np.int8: (-128, 127), np.uint16: (0, 65535),
              np.int16: (-32768, 32767), np.int32: (-2**31, 2**31 - 1),
              np.uint32: (0, 2**32 - 1), np.int64: (-2**63, 2**63 - 1),
              np.uint64: (0, 2**64 - 1)}


def sat(values, t) -> np.ndarray:
    """convert_T_sat of integers or floats (rounding toward zero; NaN -> 0)."""
    lo, hi = INT_RANGES[t]
    out = []
    for v in np.asarray(values).tolist():
        if isinstance(v, float):
            if v != v:
                out.append(0)
                continue
            if v in (float("inf"), float("-inf")):
                out.append(hi if v > 0 else lo)
                continue
            v = int(v)                  # toward zero
        out.append(min(max(v, lo), hi))
    return np.array(out, dtype=object).astype(t)


def round_to(value, t, mode) -> np.ndarray:
    """Exact values (ints or floats) rounded to float type t by `mode`
    ('rte', 'rtz', 'rtp', 'rtn'), elementwise."""
    with np.errstate(all="ignore"):
        return _round_to(value, t, mode)


def _round_to(value, t, mode) -> np.ndarray:
    t = np.dtype(t).type
    out = []
    big = np.finfo(t).max
    for v in np.asarray(value, dtype=object).tolist():
        if isinstance(v, float) and not np.isfinite(v):
            out.append(t(v))
            continue
        exact = Fraction(v)
        f = t(float(exact)) if abs(exact) < 2**1000 else t(np.inf if exact > 0 else -np.inf)
        if not np.isfinite(f):          # beyond the largest finite value
            toward_zero = mode == "rtz" or (mode == "rtp" and exact < 0) \
                or (mode == "rtn" and exact > 0)
            out.append(t(big if exact > 0 else -big) if toward_zero else f)
            continue
        # float(exact) is correctly rounded to double; t(...) may round again:
        # step to the neighbour that brackets the exact value, then choose
        if np.isfinite(f) and Fraction(float(f)) != exact:
            below = f if Fraction(float(f)) < exact else np.nextafter(f, t(-np.inf))
            above = np.nextafter(below, t(np.inf))
            if mode == "rte":
                # past the largest finite value, 'above' is where the next
                # binade would start: infinity is chosen as that number
                top = Fraction(float(above)) if np.isfinite(above) else \
                    2 * Fraction(float(big)) - Fraction(float(np.nextafter(big, t(0))))
                db, da = exact - Fraction(float(below)), top - exact
                if db != da:
                    f = below if db < da else above
                else:
                    f = below if int(np.array(below).view(f"u{np.dtype(t).itemsize}")) % 2 == 0 \
                        else above
            elif mode == "rtp":
                f = above
            elif mode == "rtn":
                f = below
            else:
                f = below if exact > 0 else above
        out.append(f)
    return np.array(out, dtype=t)


@case
def convert_sat(rng):
    """convert_T_sat from float, int, uint, long: clamping, NaN to 0; wrapping without _sat."""
    n = 2048
    f = with_specials(rng.uniform(-3e10, 3e10, n).astype(np.float32) / np.float32(
        10.0) ** rng.integers(0, 10, n).astype(np.float32),
        [np.nan, np.inf, -np.inf, -0.0, 255.5, 255.9, -0.9, 127.99, -128.99, 65535.7,
         2147483520.0, 2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0,
         9.2233715e18, -9.223373e18, 1.8446743e19, 1e-30])
    k = random_bits(rng, np.int32, n)
    k[:64] = rng.integers(-300, 300, 64)
    m = random_bits(rng, np.int64, n)
    m[:64] = rng.integers(-70000, 70000, 64)

    def col(d, cols):
        return np.stack(cols, 1).reshape(-1)

    fl = lambda d: d["f"].astype(np.float64)  # noqa: E731
    return Case("convert_sat", "convert_sat.cl", "convert_sat",
                [In("f", f), In("n", k), In("l", m),
                 Out("ouc", np.uint8, 3 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.uint8), sat(d["n"], np.uint8), sat(d["l"], np.uint8)])),
                 Out("oc", np.int8, 3 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.int8), sat(d["n"], np.int8),
                     sat(d["n"].view(np.uint32), np.int8)])),
                 Out("ous", np.uint16, 2 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.uint16), sat(d["n"], np.uint16)])),
                 Out("os", np.int16, 2 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.int16), sat(d["l"], np.int16)])),
                 Out("oi", np.int32, 3 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.int32), sat(d["l"], np.int32),
                     sat(d["n"].view(np.uint32), np.int32)])),
                 Out("oui", np.uint32, 3 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.uint32), sat(d["n"], np.uint32), sat(d["l"], np.uint32)])),
                 Out("ol", np.int64, 2 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.int64), sat(d["l"].view(np.uint64), np.int64)])),
                 Out("oul", np.uint64, 2 * n, Exact(), ref=lambda d: col(d, [
                     sat(fl(d), np.uint64), sat(d["l"], np.uint64)])),
                 Out("wrap", np.uint8, 16 * n, Exact("convert_uchar4(_sat), convert_char8_sat"))],
                global_size=(n,), local_size=(64,))


@case
def convert_round(rng):
    """_rte, _rtz, _rtp, _rtn: float to int, int/uint/long/double to float."""
    n = 2048
    f = rng.uniform(-1e6, 1e6, n).astype(np.float32) / np.float32(
        10.0) ** rng.integers(0, 6, n).astype(np.float32)
    f[:40] = np.arange(-20, 20) / np.float32(2)            # the halves: 2.5, -2.5, ...
    k = random_bits(rng, np.int32, n)
    k[:8] = [16777217, -16777217, 16777219, 2**31 - 1, -2**31, 33554435, 0, 1]
    m = random_bits(rng, np.int64, n)
    d = rng.uniform(-1e10, 1e10, n) * 10.0 ** rng.integers(-30, 20, n)
    d[:4] = [1 + 2**-24, 1 + 3 * 2**-25, -(1 + 2**-24), 3.4028235677973366e38]

    return Case("convert_round", "convert_round.cl", "convert_round",
                [In("f", f), In("n", k), In("l", m), In("d", d),
                 Out("oi", np.int32, 10 * n, Exact("convert_int_rte/rtz/rtp/rtn")),
                 Out("of", np.float32, 16 * n, Exact("convert_float_rte/rtz/rtp/rtn"),
                     ref=_float_round_ref)],
                global_size=(n,), local_size=(64,))


def _float_round_ref(d):
    k, m, y = d["n"], d["l"], d["d"]
    u = k.view(np.uint32)
    f32 = np.float32
    cols = [round_to(k, f32, "rte"), round_to(k, f32, "rte"), round_to(k, f32, "rtz"),
            round_to(k, f32, "rtp"), round_to(k, f32, "rtn"), round_to(u, f32, "rtz"),
            round_to(u, f32, "rtp"), round_to(m, f32, "rtn"), round_to(m, f32, "rtp"),
            round_to(y, f32, "rte"), round_to(y, f32, "rtz"), round_to(y, f32, "rtp"),
            round_to(y, f32, "rtn")]
    k4 = np.stack([k, k >> 3, -k.astype(np.int64), k ^ 0x12345], 1)
    v = [round_to(k4[:, j], f32, "rtz") for j in range(4)]
    with np.errstate(over="ignore"):
        cols += [v[0] + v[1] - v[1], round_to(m.view(np.uint64), f32, "rte"), v[3]]
    return np.stack(cols, 1).reshape(-1)


@case
def as_type(rng):
    """as_float, as_int, as_char4, as_float3 from int4, as_double, ... (same bits)."""
    n = 2048
    b = random_bits(rng, np.uint32, n)
    b[:6] = [0x7fc00000, 0x7f800001, 0xff800000, 0x80000000, 0x00000001, 0x3f800000]

    def iref(d):
        b = d["in"]
        s = b.view(np.int16).reshape(n, 2).astype(np.int32)
        cols = [b.view(np.int32), (b & 0x7f7fffff).view(np.int32), s[:, 0] + s[:, 1],
                b.view(np.uint8).reshape(n, 4)[:, ::-1].copy().view(np.int32).reshape(-1)]
        return np.stack(cols, 1).reshape(-1)

    return Case("as_type", "as_type.cl", "as_type",
                [In("in", b), Out("oi", np.int32, 4 * n, Exact(), ref=iref),
                 Out("of", np.float32, 4 * n, Exact()), Out("ouc", np.uint8, 8 * n, Exact()),
                 Out("oul", np.uint64, 2 * n, Exact())],
                global_size=(n,), local_size=(64,))


@case
def vload_vstore(rng):
    """vloadn/vstoren, n = 2, 3, 4, 8, 16, on __global, __local, private and __constant."""
    n = 256
    x = uniform(rng, -100, 100, 33 * n)
    cin = rng.integers(-1000, 1000, 20, dtype=np.int32)

    def ref(d):
        p = d["in"].reshape(n, 33)
        i = np.arange(n)
        ct = np.arange(40, dtype=np.float32)
        out = np.zeros((n, 40), np.float32)
        a, b, b1, c = p[:, 0:2], p[:, 2:5], p[:, 5:8], p[:, 9:13]
        dd, e = p[:, 13:21], p[:, 17:33]
        pm = np.zeros((n, 12), np.float32)
        pm[:, 0:4], pm[:, 4:7], pm[:, 7:10], pm[:, 10:12] = c, b, b1, a
        k = ct[3 * (i % 13)[:, None] + np.arange(3)]
        k4 = ct[(i % 9)[:, None] + np.arange(4)]
        out[:, 0:2] = a + pm[:, 10:12]
        out[:, 2:5] = b + b1 + k
        out[:, 5:9] = c + pm[:, 4:8] + k4
        out[:, 9:17] = dd + dd
        out[:, 17:33] = e + e
        out[:, 33:36] = pm[:, 4:7]
        out[:, 36:40] = pm[:, 7:11]
        return out.reshape(-1)

    def iref(d):
        c = d["cin"]
        i = np.arange(n)
        return (c[4 * (i % 4)[:, None] + np.arange(4)] + c[1:5]).reshape(-1)

    return Case("vload_vstore", "vload_vstore.cl", "vload_vstore",
                [In("in", x), Out("out", np.float32, 40 * n, Exact(), ref=ref), In("cin", cin),
                 Out("iout", np.int32, 4 * n, Exact(), ref=iref)],
                global_size=(n,), local_size=(64,))


@case
def half_storage(rng):
    """vload_half, vload_half4, vstore_half with each rounding mode."""
    n = 1024
    h = random_bits(rng, np.uint16, 4 * n + 1).view(np.float16)
    f = with_specials(uniform(rng, -70000, 70000, n) / np.float32(10.0) ** rng.integers(
        0, 8, n).astype(np.float32),
        [np.nan, np.inf, -np.inf, -0.0, 65504.0, 65520.0, 65519.0, 1e-8, -1e-8, 6e-5, 1e-7])

    def lref(d):
        hh = d["h"].astype(np.float32)
        return np.concatenate([hh[:n], hh[1:4 * n + 1].reshape(n, 4)[:, 3]])

    def sref(d):
        x = d["f"]
        cols = [round_to(x, np.float16, m) for m in ("rte", "rte", "rtz", "rtp", "rtn")]
        cols.append(round_to(d["h"][:n].astype(np.float32) * np.float32(2), np.float16, "rte"))
        return np.stack(cols, 1).reshape(-1)

    return Case("half_storage", "half_storage.cl", "half_storage",
                [In("h", h), In("f", f), Out("loaded", np.float32, 2 * n, Exact(), ref=lref),
                 Out("stored", np.float16, 6 * n, Exact(), ref=sref)],
                global_size=(n,), local_size=(64,))
