"""Math built-ins (OpenCL 1.2, section 6.12.2): float, vectors, double,
native_ and half_, held to the ulp bounds of bounds.py.

The references are NumPy / Python's math in float64, which for float
results is as good as the exact value; inputs include the special values
(0, -0, infinities, NaN) whose results the specification fixes (section 7.5).
"""
from __future__ import annotations

import math

import numpy as np

from . import bounds
from .compare import Exact, Ulp
from .model import Case, In, Out, case, f64, uniform, with_specials

INF, NAN = np.inf, np.nan
F32 = np.float32


def U(fn, precision="float", what=None):
    """The specification's bound for built-in `fn`."""
    return Ulp(bounds.ulp(fn, precision), what or fn)


def _case(name, file, kernel, inputs, outs, n, local=64, options=""):
    """inputs: [(name, array)]; outs: [(name, dtype, cmp, ref or None, length)]."""
    args = [In(k, v) for k, v in inputs]
    args += [Out(k, dt, length or n, cmp, ref=ref) for k, dt, cmp, ref, length in outs]
    return Case(name, file, kernel, args, global_size=(n,), local_size=(local,),
                options=options)


def vec(fn):
    """fn applied elementwise with Python floats (math.erf, math.gamma, ...)."""
    def apply(x):
        out = []
        for v in f64(x).tolist():
            try:
                out.append(fn(v))
            except (ValueError, OverflowError):
                out.append(NAN)
        return np.array(out)
    return apply


# sinpi and friends, with the argument reduced exactly first (r in [-1, 1])
def sinpi(x):
    x = f64(x)
    r = x - 2 * np.round(x / 2)
    out = np.sin(np.pi * r)
    out[np.isfinite(r) & (r == np.round(r))] = 0.0
    return np.where(x == 0, x, out)


def cospi(x):
    return sinpi(np.abs(f64(x)) + 0.5)


def tanpi(x):
    s, c = sinpi(x), cospi(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return s / c


def _mul(a, k):
    """a * k in float32, as the kernel computes its argument."""
    return f64(np.asarray(a, F32) * F32(k))


# --- trigonometric, hyperbolic ---------------------------------------------------

@case
def math_trig(rng):
    n = 4096
    x = with_specials(uniform(rng, -30, 30, n),
                      [0.0, -0.0, INF, -INF, NAN, 1e4, -1e5, 3.14159265, 1.5707964, 1e-20,
                       100.0, 0.7853982])
    u = with_specials(uniform(rng, -1, 1, n), [1.0, -1.0, 0.0, -0.0, 1.5, NAN, 0.5, -0.70710677])
    y = with_specials(uniform(rng, -30, 30, n),
                      [0.0, 1.0, 1.0, -1.0, 0.0, -1.0, 1.0, 1.0, -0.0, INF, -INF, 1.0])
    p = with_specials(uniform(rng, -4, 4, n),
                      [0.0, -0.0, 0.5, 1.0, 1.5, 2.0, -0.5, -1.0, 2.25, 0.25, 1e-10, INF, NAN,
                       -2.75, 3.0, 1e6 + 0.5])
    a = lambda d: f64(d["x"])  # noqa: E731
    v = lambda d: f64(d["u"])  # noqa: E731
    outs = [("o_sin", F32, U("sin"), lambda d: np.sin(a(d)), None),
            ("o_cos", F32, U("cos"), lambda d: np.cos(a(d)), None),
            ("o_tan", F32, U("tan"), lambda d: np.tan(a(d)), None),
            ("o_asin", F32, U("asin"), lambda d: np.arcsin(v(d)), None),
            ("o_acos", F32, U("acos"), lambda d: np.arccos(v(d)), None),
            ("o_atan", F32, U("atan"), lambda d: np.arctan(a(d)), None),
            ("o_atan2", F32, U("atan2"), lambda d: np.arctan2(a(d), f64(d["y"])), None),
            ("o_sinpi", F32, U("sinpi"), lambda d: sinpi(d["p"]), None),
            ("o_cospi", F32, U("cospi"), lambda d: cospi(d["p"]), None),
            ("o_tanpi", F32, U("tanpi"), lambda d: tanpi(d["p"]), None),
            ("o_asinpi", F32, U("asinpi"), lambda d: np.arcsin(v(d)) / np.pi, None),
            ("o_acospi", F32, U("acospi"), lambda d: np.arccos(v(d)) / np.pi, None),
            ("o_atanpi", F32, U("atanpi"), lambda d: np.arctan(a(d)) / np.pi, None),
            ("o_atan2pi", F32, U("atan2pi"),
             lambda d: np.arctan2(a(d), f64(d["y"])) / np.pi, None),
            ("o_sincos_s", F32, U("sincos", what="sincos (sin)"), lambda d: np.sin(a(d)), None),
            ("o_sincos_c", F32, U("sincos", what="sincos (cos)"), lambda d: np.cos(a(d)), None)]
    return _case("math_trig", "math_trig.cl", "math_trig",
                 [("x", x), ("u", u), ("y", y), ("p", p)], outs, n)


@case
def math_hyper(rng):
    n = 4096
    x = with_specials(uniform(rng, -10, 10, n), [0.0, -0.0, INF, -INF, NAN, 88.0, -89.0, 1e-8])
    u = with_specials(uniform(rng, -1, 1, n), [1.0, -1.0, 0.0, NAN, 0.99999994])
    w = with_specials(F32(10) ** uniform(rng, 0, 4, n), [1.0, 0.5, INF, NAN, 1.0000001])
    a = lambda d: f64(d["x"])  # noqa: E731
    outs = [("o_sinh", F32, U("sinh"), lambda d: np.sinh(a(d)), None),
            ("o_cosh", F32, U("cosh"), lambda d: np.cosh(a(d)), None),
            ("o_tanh", F32, U("tanh"), lambda d: np.tanh(a(d)), None),
            ("o_asinh", F32, U("asinh"), lambda d: np.arcsinh(_mul(d["x"], 1000)), None),
            ("o_acosh", F32, U("acosh"), lambda d: np.arccosh(f64(d["w"])), None),
            ("o_atanh", F32, U("atanh"), lambda d: np.arctanh(f64(d["u"])), None),
            ("o_sincos", F32, U("sincos", what="sincos (private cosval)"),
             lambda d: np.cos(f64(d["u"])), None)]
    return _case("math_hyper", "math_hyper.cl", "math_hyper",
                 [("x", x), ("u", u), ("w", w)], outs, n)


# --- exponentials, logarithms, powers ------------------------------------------------

def _logb(x):
    x = f64(x)
    m, e = np.frexp(x)
    out = (e - 1).astype(np.float64)
    out = np.where(x == 0, -INF, out)
    out = np.where(np.isinf(x), INF, out)
    return np.where(np.isnan(x), NAN, out)


@case
def math_exp_log(rng):
    n = 4096
    e = with_specials(uniform(rng, -87, 88, n),
                      [0.0, -0.0, INF, -INF, NAN, 88.7, -103.0, 1e-7, 1.0, -1.0])
    lg = with_specials(F32(10) ** uniform(rng, -37, 38, n),
                       [0.0, -0.0, -1.0, INF, NAN, 1.0, 2.0, 1e-40, 0.5, 10.0, 3.0e38])
    m = with_specials(uniform(rng, -0.999, 10, n), [-1.0, -2.0, 0.0, 1e-10, INF, -0.0, NAN])

    def ilogb_ref(d):
        b = f64(d["l"])
        m_, ex = np.frexp(b)
        out = (ex - 1).astype(np.int64)
        out = np.where(np.isinf(b), 2**31 - 1, out)
        return np.where((b == 0) | np.isnan(b), 1, out)     # checked against FP_ILOGB0/NAN

    outs = [("o_exp", F32, U("exp"), lambda d: np.exp(f64(d["e"])), None),
            ("o_exp2", F32, U("exp2"), lambda d: np.exp2(_mul(d["e"], 1.4)), None),
            ("o_exp10", F32, U("exp10"), lambda d: 10.0 ** _mul(d["e"], 0.4), None),
            ("o_expm1", F32, U("expm1"), lambda d: np.expm1(f64(d["e"])), None),
            ("o_log", F32, U("log"), lambda d: np.log(f64(d["l"])), None),
            ("o_log2", F32, U("log2"), lambda d: np.log2(f64(d["l"])), None),
            ("o_log10", F32, U("log10"), lambda d: np.log10(f64(d["l"])), None),
            ("o_log1p", F32, U("log1p"), lambda d: np.log1p(f64(d["m"])), None),
            ("o_logb", F32, U("logb"), lambda d: _logb(d["l"]), None),
            ("o_ilogb", np.int32, Exact("ilogb"), ilogb_ref, None)]
    return _case("math_exp_log", "math_exp_log.cl", "math_exp_log",
                 [("e", e), ("l", lg), ("m", m)], outs, n)


def _powr(x, y):
    x, y = f64(x), f64(y)
    with np.errstate(all="ignore"):
        out = np.power(x, y)
    bad = (x < 0) | ((x == 0) & (y == 0)) | (np.isinf(x) & (y == 0)) \
        | ((x == 1) & np.isinf(y)) | np.isnan(x) | np.isnan(y)
    return np.where(bad, NAN, out)


def _rootn(x, k):
    x = f64(x)
    k = np.where(k == 0, 3, k).astype(np.int64)
    with np.errstate(all="ignore"):
        mag = np.abs(x) ** (1.0 / k)
    odd = (k % 2) != 0
    out = np.where(x < 0, np.where(odd, -mag, NAN), mag)
    # rootn(+-0, n): +-inf for odd n < 0, +inf for even n < 0, +-0 / +0 for n > 0
    return np.where(x == 0, np.where(odd, np.copysign(mag, x), mag), out)


@case
def math_pow(rng):
    n = 4096
    x = with_specials(uniform(rng, -10, 10, n),
                      [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 2.0, -2.0, 0.5, 1e-20, 1e20,
                       -0.0, 0.0, 4.0, -8.0])
    y = with_specials(uniform(rng, -10, 10, n),
                      [0.0, 0.0, NAN, INF, 2.0, 3.0, 0.0, -INF, 0.5, INF, 3.0, 2.5,
                       -3.0, -2.0, 0.5, 1.0 / 3.0])
    k = rng.integers(-10, 11, n).astype(np.int32)
    k[:16] = [0, 3, -3, 5, 2, -2, 1, 0, 7, -1, 3, 2, -3, -2, 2, 3]
    a = lambda d: f64(d["x"])  # noqa: E731
    outs = [("o_pow", F32, U("pow"), lambda d: np.power(a(d), f64(d["y"])), None),
            ("o_pown", F32, U("pown"),
             lambda d: np.power(a(d), d["k"].astype(np.float64)), None),
            ("o_powr", F32, U("powr"), lambda d: _powr(np.abs(a(d)), d["y"]), None),
            ("o_rootn", F32, U("rootn"), lambda d: _rootn(d["x"], d["k"]), None),
            ("o_sqrt", F32, U("sqrt"), lambda d: np.sqrt(np.abs(a(d))), None),
            ("o_rsqrt", F32, U("rsqrt"), lambda d: 1.0 / np.sqrt(np.abs(a(d))), None),
            ("o_cbrt", F32, U("cbrt"), lambda d: np.cbrt(a(d)), None),
            ("o_hypot", F32, U("hypot"), lambda d: np.hypot(a(d), f64(d["y"])), None)]
    return _case("math_pow", "math_pow.cl", "math_pow", [("x", x), ("y", y), ("k", k)], outs, n)


# --- exact functions -------------------------------------------------------------------

def _round_half_away(x):
    x = f64(x)
    return np.where(np.isfinite(x), np.copysign(np.floor(np.abs(x) + 0.5), x), x)


def _fract(x):
    x = f64(x)
    with np.errstate(invalid="ignore"):
        f = np.minimum(x - np.floor(x), float(np.nextafter(F32(1), F32(0))))
    return np.where(np.isinf(x), np.copysign(0.0, x), f)


@case
def math_round(rng):
    n = 4096
    x = uniform(rng, -1000, 1000, n)
    x[100:600] = np.round(x[100:600]) + F32(0.5)            # halves
    x[600:800] = np.round(x[600:800])                        # integers
    x = with_specials(x, [INF, -INF, NAN, -0.0, 0.0, 1e-40, -0.5, 0.5, 2.5, -2.5, 8388609.0,
                          -1.5, 0.49999997, 1e30, -1e-30, -0.99999994])
    y = uniform(rng, -1, 1, n)
    y[:8] = [-0.0, 0.0, -1.0, 1.0, NAN, -INF, 0.0, -0.0]
    k = rng.integers(-30, 31, n).astype(np.int32)
    k[:4] = [200, -200, 130, -150]
    a = lambda d: f64(d["x"])  # noqa: E731
    frexp_m = lambda d: np.frexp(a(d))[0]  # noqa: E731
    frexp_e = lambda d: np.where(np.isfinite(a(d)), np.frexp(a(d))[1], 0)  # noqa: E731
    outs = [("o_ceil", F32, U("ceil"), lambda d: np.ceil(a(d)), None),
            ("o_floor", F32, U("floor"), lambda d: np.floor(a(d)), None),
            ("o_round", F32, U("round"), lambda d: _round_half_away(d["x"]), None),
            ("o_rint", F32, U("rint"), lambda d: np.rint(a(d)), None),
            ("o_trunc", F32, U("trunc"), lambda d: np.trunc(a(d)), None),
            ("o_fabs", F32, U("fabs"), lambda d: np.abs(a(d)), None),
            ("o_copysign", F32, U("copysign"), lambda d: np.copysign(a(d), f64(d["y"])), None),
            ("o_fract", F32, U("fract"), lambda d: _fract(d["x"]), None),
            ("o_fract_i", F32, U("fract", what="fract (iptr)"), lambda d: np.floor(a(d)), None),
            ("o_modf", F32, U("modf"), lambda d: np.modf(a(d))[0], None),
            ("o_modf_i", F32, U("modf", what="modf (iptr)"), lambda d: np.modf(a(d))[1], None),
            ("o_frexp", F32, U("frexp"), frexp_m, None),
            ("o_frexp_e", np.int32, Exact("frexp (exponent)"), frexp_e, None),
            ("o_ldexp", F32, U("ldexp"), lambda d: np.ldexp(a(d), d["k"]), None),
            ("o_nan", F32, Exact("nan"), lambda d: np.ones(n), None)]
    return _case("math_round", "math_round.cl", "math_round",
                 [("x", x), ("y", y), ("k", k)], outs, n)


def _ieee_remainder(x, y):
    return np.array(
        [math.remainder(a, b) if (math.isfinite(a) and b != 0 and not math.isnan(b))
         else NAN for a, b in zip(f64(x).tolist(), f64(y).tolist())])


def _remquo_q(x, y):
    out = []
    for a, b in zip(f64(x).tolist(), f64(y).tolist()):
        if not math.isfinite(a) or b == 0 or math.isnan(b):
            out.append(0)
            continue
        q = round((a - math.remainder(a, b)) / b)  # exact: the integral quotient
        out.append(int(math.copysign(abs(q) & 127, q)) if q else 0)
    return np.array(out)


def _mag(x, y, pick_max):
    x, y = f64(x), f64(y)
    ax, ay = np.abs(x), np.abs(y)
    tie = np.fmax(x, y) if pick_max else np.fmin(x, y)
    first = ax > ay if pick_max else ax < ay
    second = ay > ax if pick_max else ay < ax
    return np.where(first, x, np.where(second, y, tie))


@case
def math_binary(rng):
    n = 4096
    x = uniform(rng, -100, 100, n)
    y = uniform(rng, -100, 100, n)
    y[200:400] = x[200:400]                                   # equal arguments
    y[400:600] = -x[400:600]
    x = with_specials(x, [0.0, -0.0, INF, -INF, NAN, 5.0, 5.0, 1.0, 7.5, -7.5, 1e-40, 3.0])
    y = with_specials(y, [-0.0, 0.0, 1.0, 2.0, 1.0, 0.0, NAN, INF, 2.5, 2.5, 0.0, -INF])
    a = lambda d: f64(d["x"])  # noqa: E731
    b = lambda d: f64(d["y"])  # noqa: E731

    def fdim(d):
        x, y = a(d), b(d)
        return np.where(np.isnan(x) | np.isnan(y), NAN, np.where(x > y, x - y, 0.0))

    outs = [("o_fdim", F32, U("fdim"), fdim, None),
            ("o_fmax", F32, U("fmax"), lambda d: np.fmax(a(d), b(d)), None),
            ("o_fmin", F32, U("fmin"), lambda d: np.fmin(a(d), b(d)), None),
            ("o_fmod", F32, U("fmod"), lambda d: np.fmod(a(d), b(d)), None),
            ("o_nextafter", F32, U("nextafter"),
             lambda d: np.nextafter(d["x"], d["y"]), None),
            ("o_remainder", F32, U("remainder"),
             lambda d: _ieee_remainder(d["x"], d["y"]), None),
            ("o_remquo", F32, U("remquo"), lambda d: _ieee_remainder(d["x"], d["y"]), None),
            ("o_remquo_q", np.int32, Exact("remquo (quotient, 7 bits)"),
             lambda d: _remquo_q(d["x"], d["y"]), None),
            ("o_maxmag", F32, U("maxmag"), lambda d: _mag(d["x"], d["y"], True), None),
            ("o_minmag", F32, U("minmag"), lambda d: _mag(d["x"], d["y"], False), None)]
    return _case("math_binary", "math_binary.cl", "math_binary", [("x", x), ("y", y)], outs, n)


# --- special functions, fma and mad ---------------------------------------------------

@case
def math_special(rng):
    n = 4096
    x = with_specials(uniform(rng, -5, 5, n), [0.0, -0.0, INF, -INF, NAN, 1e-20, 3.9])
    g = uniform(rng, 0.05, 30, n)
    g[: n // 4] = uniform(rng, -10, -3, n // 4)               # negative, not near poles
    g[: n // 4] = np.where(np.abs(g[: n // 4] - np.round(g[: n // 4])) < 0.05,
                           np.round(g[: n // 4]) + F32(0.3), g[: n // 4])
    g = np.where(np.abs(g - 1) < 0.02, g + F32(0.1), g)       # away from lgamma's zeros
    g = np.where(np.abs(g - 2) < 0.02, g + F32(0.1), g).astype(F32)
    g[n // 4: n // 4 + 4] = [0.5, 1.5, 10.0, 33.5]
    lgamma = vec(math.lgamma)
    sign = lambda d: np.where(vec(math.gamma)(d["g"]) < 0, -1, 1)  # noqa: E731
    outs = [("o_erf", F32, U("erf"), lambda d: vec(math.erf)(d["x"]), None),
            ("o_erfc", F32, U("erfc"), lambda d: vec(math.erfc)(d["x"]), None),
            ("o_tgamma", F32, U("tgamma"), lambda d: vec(math.gamma)(d["g"]), None),
            ("o_lgamma", F32, U("lgamma"), lambda d: lgamma(d["g"]), None),
            ("o_lgamma_r", F32, U("lgamma_r"), lambda d: lgamma(d["g"]), None),
            ("o_lgamma_sign", np.int32, Exact("lgamma_r (sign)"), sign, None)]
    return _case("math_special", "math_special.cl", "math_special", [("x", x), ("g", g)],
                 outs, n)


@case
def math_fma_mad(rng):
    n = 4096
    a, b, c = (uniform(rng, -10, 10, n) for _ in range(3))
    c[:1000] = -(a[:1000] * b[:1000])                        # cancellation
    c[1000:1100] = -a[1000:1100] * b[1000:1100] * F32(1.0000001)
    A, B, C = (lambda d, k=k: f64(d[k]) for k in "abc")

    def fma4(d):
        v = np.stack([A(d), B(d), C(d), np.ones(n)], 1)
        return (v * v[:, [1, 2, 3, 0]] + v[:, [2, 3, 0, 1]]).reshape(-1)

    outs = [("o_fma", F32, U("fma"), lambda d: A(d) * B(d) + C(d), None),
            ("o_mad", F32, U("mad", what="mad (positive operands)"),
             lambda d: np.abs(A(d)) * np.abs(B(d)) + np.abs(C(d)), None),
            ("o_fma4", F32, U("fma", what="fma (float4)"), fma4, 4 * n)]
    return _case("math_fma_mad", "math_fma_mad.cl", "math_fma_mad",
                 [("a", a), ("b", b), ("c", c)], outs, n)


# --- native_ and half_ -------------------------------------------------------------------

def _reduced(name, prefix):
    x_ = lambda d: f64(d["x"])  # noqa: E731
    p_ = lambda d: f64(d["p"])  # noqa: E731
    y_ = lambda d: f64(d["y"])  # noqa: E731
    with np.errstate(all="ignore"):
        refs = {"sin": lambda d: np.sin(x_(d)), "cos": lambda d: np.cos(x_(d)),
                "tan": lambda d: np.tan(_mul(d["x"], 0.125)),
                "exp": lambda d: np.exp(_mul(d["x"], 0.5)), "exp2": lambda d: np.exp2(x_(d)),
                "exp10": lambda d: 10.0 ** _mul(d["x"], 0.25),
                "log": lambda d: np.log(p_(d)), "log2": lambda d: np.log2(p_(d)),
                "log10": lambda d: np.log10(p_(d)), "sqrt": lambda d: np.sqrt(p_(d)),
                "rsqrt": lambda d: 1 / np.sqrt(p_(d)), "recip": lambda d: 1 / y_(d),
                "divide": lambda d: x_(d) / y_(d),
                "powr": lambda d: p_(d) ** _mul(d["x"], 0.1)}
    return [(f"o_{f}", F32, U(prefix + f), r, None) for f, r in refs.items()]


def _reduced_inputs(rng, n):
    x = uniform(rng, -10, 10, n)
    p = F32(10) ** uniform(rng, -2, 3, n)
    y = uniform(rng, 0.5, 10, n) * rng.choice(np.array([-1, 1], F32), n)
    return [("x", x), ("p", p), ("y", y)]


@case
def math_native(rng):
    """native_*: accuracy implementation-defined; held to 8192 ulp (bounds.py)."""
    n = 4096
    return _case("math_native", "math_native.cl", "math_native", _reduced_inputs(rng, n),
                 _reduced("math_native", "native_"), n)


@case
def math_half(rng):
    """half_*: 8192 ulp on the half_ functions' input ranges."""
    n = 4096
    return _case("math_half", "math_half.cl", "math_half", _reduced_inputs(rng, n),
                 _reduced("math_half", "half_"), n)


# --- vectors, double, division --------------------------------------------------------------

@case
def math_vector(rng):
    n = 256
    x = uniform(rng, -10, 10, 33 * n)
    y = uniform(rng, -4, 4, 16 * n)
    x16 = lambda d: f64(d["x"][: 16 * n])  # noqa: E731
    outs = [("o_sin", F32, U("sin", what="sin (float2..float16)"),
             lambda d: np.sin(f64(d["x"])), 33 * n),
            ("o_exp", F32, U("exp", what="exp (float2..float16)"),
             lambda d: np.exp(_mul(d["x"], 0.25)), 33 * n),
            ("o_pow", F32, U("pow", what="pow (float16)"),
             lambda d: np.abs(x16(d)) ** _mul(d["y"], 0.5), 16 * n),
            ("o_fmax", F32, U("fmax", what="fmax (float16, float)"),
             lambda d: np.fmax(x16(d), 0.5), 16 * n),
            ("o_ldexp", F32, U("ldexp", what="ldexp (float16, int)"),
             lambda d: x16(d) * 8, 16 * n),
            ("o_clamp", F32, Exact("clamp (float3)"), None, 3 * n)]
    return _case("math_vector", "math_vector.cl", "math_vector", [("x", x), ("y", y)], outs, n)


@case
def math_double(rng):
    """double: division and sqrt correctly rounded, sin 4 ulp, pow 16, ..."""
    n = 2048
    x = with_specials(rng.uniform(-1e3, 1e3, n), [0.0, -0.0, INF, NAN, 1e-300, 2.0])
    y = rng.uniform(0.5, 100, n) * rng.choice([-1.0, 1.0], n)
    a = lambda d: d["x"]  # noqa: E731
    b = lambda d: d["y"]  # noqa: E731
    D = np.float64

    def U2(fn):
        return U(fn, "double")

    outs = [("o_div", D, U2("/"), lambda d: a(d) / b(d), None),
            ("o_sqrt", D, U2("sqrt"), lambda d: np.sqrt(np.abs(a(d))), None),
            ("o_sin", D, U2("sin"), None, None), ("o_cos", D, U2("cos"), None, None),
            ("o_exp", D, U2("exp"), None, None), ("o_log", D, U2("log"), None, None),
            ("o_pow", D, U2("pow"), None, None), ("o_atan2", D, U2("atan2"), None, None),
            ("o_fma", D, U2("fma"), None, None),
            ("o_floor", D, Exact("floor + ceil"),
             lambda d: np.floor(a(d)) + np.ceil(b(d)), None),
            ("o_vec", D, Exact("fmax, rint (double4)"), None, 4 * n)]
    return _case("math_double", "math_double.cl", "math_double", [("x", x), ("y", y)], outs, n)


def _divide_case(name, options, cr):
    def build(rng):
        n = 4096
        x = uniform(rng, -1000, 1000, n)
        y = uniform(rng, 1, 10, n) * F32(10) ** uniform(rng, -20, 20, n) \
            * rng.choice(np.array([-1, 1], F32), n)
        x = with_specials(x, [0.0, 1.0, INF, NAN, -0.0, 1.0, 3.0])
        y = with_specials(y, [0.0, 0.0, 2.0, 1.0, 0.0, INF, 3.0])
        suffix = " (correctly rounded)" if cr else ""
        div = Ulp(bounds.ulp("/" + suffix), "x / y" + suffix)
        rec = Ulp(bounds.ulp("/" + suffix if cr else "1/x"), "1.0f / x" + suffix)
        sq = Ulp(bounds.ulp("sqrt" + suffix), "sqrt" + suffix)

        def div4(d):
            a, b = f64(d["x"]), f64(d["y"])
            with np.errstate(all="ignore"):
                return np.stack([a / b, b / a, -a / 3, 1 / b], 1).reshape(-1)

        with np.errstate(all="ignore"):
            outs = [("o_div", F32, div, lambda d: f64(d["x"]) / f64(d["y"]), None),
                    ("o_recip", F32, rec, lambda d: 1 / f64(d["y"]), None),
                    ("o_sqrt", F32, sq, lambda d: np.sqrt(np.abs(f64(d["x"]))), None),
                    ("o_div4", F32, div, div4, 4 * n)]
        return _case(name, "divide_sqrt.cl", "divide_sqrt", [("x", x), ("y", y)], outs, n,
                     options=options)
    build.__name__ = name
    return build


divide_sqrt = case(_divide_case("divide_sqrt", "", False))
divide_sqrt_cr = case(_divide_case("divide_sqrt_cr", "-cl-fp32-correctly-rounded-divide-sqrt",
                                   True))
