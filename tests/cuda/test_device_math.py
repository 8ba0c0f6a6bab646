"""The device math library, intrinsics and atomics through the real runtime:
kernels from SourceModule, launched with k[grid, block](args), checked against
NumPy (or exact rational arithmetic) within CUDA's documented error bounds,
and atomics under contention across many blocks with exact totals."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemset)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

BLOCK = 128
RNG_SEED = 20240611


def to_device(host):
    host = np.ascontiguousarray(host)
    d = cudaMalloc(max(host.nbytes, 1))
    cudaMemcpy(d, host, host.nbytes, cudaMemcpyHostToDevice)
    return d


def from_device(d, shape, dtype):
    out = np.zeros(shape, dtype)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    return out


def run_map(fn, out_dtype, *inputs, nout=1):
    """Launches fn(in..., out..., n) over n = len(inputs[0]) threads; returns the outputs."""
    n = len(inputs[0])
    dins = [to_device(x) for x in inputs]
    douts = [cudaMalloc(n * np.dtype(out_dtype).itemsize) for _ in range(nout)]
    try:
        fn[(n + BLOCK - 1) // BLOCK, BLOCK](*dins, *douts, n)
        outs = [from_device(d, n, out_dtype) for d in douts]
    finally:
        for d in dins + douts:
            cudaFree(d)
    return outs[0] if nout == 1 else outs


def ulp_error(got, ref, dtype):
    """|got - ref| in units of the spacing of dtype at ref (ref in float64 or better)."""
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        spacing = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
        err = np.abs(got - ref) / spacing
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    return np.where(same, 0.0, err)


def assert_within(name, x, got, ref, dtype, max_ulp):
    err = ulp_error(got, ref, dtype)
    worst = int(np.nanargmax(np.where(np.isnan(err), np.inf, err)))
    assert not np.isnan(err).any() and err[worst] <= max_ulp, (
        f"{name}: {err[worst]:.3g} ulp at x={x[worst]!r}: got {got[worst]!r}, want {ref[worst]!r}")


# ---------------------------------------------------------------- references

def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


def sinpi_ref(x):
    """sin(pi x) in float64 after the same exact reduction to [-1/2, 1/2]."""
    x = np.asarray(x, np.float64)
    r = x - 2.0 * np.round(x / 2.0)
    r = np.where(r > 0.5, 1.0 - r, np.where(r < -0.5, -1.0 - r, r))
    return np.where(r == 0, np.copysign(0.0, x), np.sin(np.pi * r))


def cospi_ref(x):
    x = np.asarray(x, np.float64)
    return sinpi_ref(0.5 - np.abs(x - 2.0 * np.round(x / 2.0)))


def _bisect(f, lo, hi, target, iters=80):
    """The t in [lo, hi] with f(t) = target, f increasing, elementwise."""
    lo = np.full_like(target, lo)
    hi = np.full_like(target, hi)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        below = f(mid) < target
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


_erf, _erfc = _vec(math.erf), _vec(math.erfc)


def erfinv_ref(x):
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    # erf(t) = a near 0; erfc(t) = 1 - a (exact for a >= 1/2) in the tail
    t = np.where(a < 0.5, _bisect(_erf, 0.0, 1.0, a),
                 _bisect(lambda t: -_erfc(t), 0.0, 6.0, -(1.0 - a)))
    return np.copysign(t, x)


def erfcinv_ref(y):
    y = np.asarray(y, np.float64)
    return _bisect(lambda t: -_erfc(t), -6.0, 27.0, -y)


def bessel_i_ref(nu, x):
    """(1/pi) int_0^pi exp(x cos s) cos(nu s) ds: the trapezoid rule is exact to
    rounding for this periodic integrand."""
    s = np.linspace(0.0, np.pi, 401)
    w = np.full(401, 1.0)
    w[0] = w[-1] = 0.5
    vals = np.exp(np.asarray(x, np.float64)[:, None] * np.cos(s)[None, :]) * np.cos(nu * s)[None, :]
    return (vals @ w) / 400.0


# ---------------------------------------------------------------- float functions

def _inputs(rng, lo, hi, n=3000, log=False):
    if log:   # magnitudes spread over decades
        x = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    else:
        x = rng.uniform(lo, hi, n)
    return x.astype(np.float32)


# name: (expression of a, reference on float64, inputs(rng), max ulp: CUDA 12's bound)
F32_UNARY = {
    "sqrtf": ("sqrtf(a)", np.sqrt, lambda r: _inputs(r, 1e-30, 1e30, log=True), 0.5),
    "rsqrtf": ("rsqrtf(a)", lambda x: 1 / np.sqrt(x), lambda r: _inputs(r, 1e-30, 1e30, log=True), 2),
    "cbrtf": ("cbrtf(a)", np.cbrt, lambda r: _inputs(r, -1e30, 1e30), 1),
    "rcbrtf": ("rcbrtf(a)", lambda x: 1 / np.cbrt(x), lambda r: _inputs(r, 1e-30, 1e30, log=True), 1),
    "expf": ("expf(a)", np.exp, lambda r: _inputs(r, -87, 88), 2),
    "exp2f": ("exp2f(a)", np.exp2, lambda r: _inputs(r, -125, 127), 2),
    "exp10f": ("exp10f(a)", lambda x: 10.0 ** x, lambda r: _inputs(r, -37, 38), 2),
    "expm1f": ("expm1f(a)", np.expm1, lambda r: _inputs(r, -10, 10), 1),
    "logf": ("logf(a)", np.log, lambda r: _inputs(r, 1e-30, 1e30, log=True), 1),
    "log2f": ("log2f(a)", np.log2, lambda r: _inputs(r, 1e-30, 1e30, log=True), 1),
    "log10f": ("log10f(a)", np.log10, lambda r: _inputs(r, 1e-30, 1e30, log=True), 2),
    "log1pf": ("log1pf(a)", np.log1p, lambda r: _inputs(r, -0.9, 100), 1),
    "sinf": ("sinf(a)", np.sin, lambda r: _inputs(r, -1e4, 1e4), 2),
    "cosf": ("cosf(a)", np.cos, lambda r: _inputs(r, -1e4, 1e4), 2),
    "tanf": ("tanf(a)", np.tan, lambda r: _inputs(r, -1.5, 1.5), 4),
    "asinf": ("asinf(a)", np.arcsin, lambda r: _inputs(r, -1, 1), 2),
    "acosf": ("acosf(a)", np.arccos, lambda r: _inputs(r, -1, 1), 2),
    "atanf": ("atanf(a)", np.arctan, lambda r: _inputs(r, -100, 100), 2),
    "sinhf": ("sinhf(a)", np.sinh, lambda r: _inputs(r, -80, 80), 3),
    "coshf": ("coshf(a)", np.cosh, lambda r: _inputs(r, -80, 80), 2),
    "tanhf": ("tanhf(a)", np.tanh, lambda r: _inputs(r, -10, 10), 2),
    "asinhf": ("asinhf(a)", np.arcsinh, lambda r: _inputs(r, -1e5, 1e5), 3),
    "acoshf": ("acoshf(a)", np.arccosh, lambda r: _inputs(r, 1, 1e5), 4),
    "atanhf": ("atanhf(a)", np.arctanh, lambda r: _inputs(r, -0.99, 0.99), 3),
    "erff": ("erff(a)", _erf, lambda r: _inputs(r, -4, 4), 2),
    "erfcf": ("erfcf(a)", _erfc, lambda r: _inputs(r, -4, 9), 4),
    "lgammaf": ("lgammaf(a)", _vec(math.lgamma), lambda r: _inputs(r, 2.5, 1e3), 6),
    "tgammaf": ("tgammaf(a)", _vec(math.gamma), lambda r: _inputs(r, 0.05, 30), 5),
    "sinpif": ("sinpif(a)", sinpi_ref, lambda r: _inputs(r, -1e4, 1e4), 1),
    "cospif": ("cospif(a)", cospi_ref, lambda r: _inputs(r, -1e4, 1e4), 1),
    "sincosf.sin": ("({ float s, c; sincosf(a, &s, &c); s; })", np.sin, lambda r: _inputs(r, -100, 100), 2),
    "sincosf.cos": ("({ float s, c; sincosf(a, &s, &c); c; })", np.cos, lambda r: _inputs(r, -100, 100), 2),
    "sincospif.sin": ("({ float s, c; sincospif(a, &s, &c); s; })", sinpi_ref, lambda r: _inputs(r, -50, 50), 1),
    "sincospif.cos": ("({ float s, c; sincospif(a, &s, &c); c; })", cospi_ref, lambda r: _inputs(r, -50, 50), 1),
    "erfinvf": ("erfinvf(a)", erfinv_ref, lambda r: _inputs(r, -0.999999, 0.999999), 2),
    "erfcinvf": ("erfcinvf(a)", erfcinv_ref, lambda r: _inputs(r, 1e-30, 1.999, log=True), 4),
    "erfcxf": ("erfcxf(a)", lambda x: np.exp(x * x) * _erfc(x), lambda r: _inputs(r, -9, 26), 4),
    "normcdff": ("normcdff(a)", lambda x: 0.5 * _erfc(-x / np.sqrt(2.0)), lambda r: _inputs(r, -13, 6), 5),
    "normcdfinvf": ("normcdfinvf(a)", lambda p: -np.sqrt(2.0) * erfcinv_ref(2.0 * p),
                    lambda r: _inputs(r, 1e-30, 0.999, log=True), 5),
    "cyl_bessel_i0f": ("cyl_bessel_i0f(a)", lambda x: bessel_i_ref(0, x), lambda r: _inputs(r, -80, 80), 6),
    "cyl_bessel_i1f": ("cyl_bessel_i1f(a)", lambda x: bessel_i_ref(1, x), lambda r: _inputs(r, -80, 80), 6),
    # the fast intrinsics are at least as accurate here as the functions
    "__sinf": ("__sinf(a)", np.sin, lambda r: _inputs(r, -np.pi, np.pi), 2),
    "__cosf": ("__cosf(a)", np.cos, lambda r: _inputs(r, -np.pi, np.pi), 2),
    "__tanf": ("__tanf(a)", np.tan, lambda r: _inputs(r, -1.5, 1.5), 4),
    "__expf": ("__expf(a)", np.exp, lambda r: _inputs(r, -87, 88), 2),
    "__exp10f": ("__exp10f(a)", lambda x: 10.0 ** x, lambda r: _inputs(r, -37, 38), 2),
    "__logf": ("__logf(a)", np.log, lambda r: _inputs(r, 1e-30, 1e30, log=True), 2),
    "__log2f": ("__log2f(a)", np.log2, lambda r: _inputs(r, 1e-30, 1e30, log=True), 2),
    "__log10f": ("__log10f(a)", np.log10, lambda r: _inputs(r, 1e-30, 1e30, log=True), 2),
    "__frsqrt_rn": ("__frsqrt_rn(a)", lambda x: 1 / np.sqrt(x), lambda r: _inputs(r, 1e-30, 1e30, log=True), 0.5),
    "__fsqrt_rn": ("__fsqrt_rn(a)", np.sqrt, lambda r: _inputs(r, 1e-30, 1e30, log=True), 0.5),
    "__frcp_rn": ("__frcp_rn(a)", lambda x: 1 / x, lambda r: _inputs(r, 1e-30, 1e30, log=True), 0.5),
    "__saturatef": ("__saturatef(a)", lambda x: np.clip(x, 0, 1), lambda r: _inputs(r, -2, 2), 0),
}


def _kernel_name(name):
    return "k_" + name.replace(".", "_")


def _unary_source(table, T):
    lines = [f"__global__ void {_kernel_name(name)}(const {T} *x, {T} *y, int n) {{\n"
             f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             f"    if (i < n) {{ {T} a = x[i]; y[i] = {expr}; }}\n}}\n"
             for name, (expr, *_rest) in table.items()]
    return "#include <cuda_runtime.h>\n" + "".join(lines)


@pytest.fixture(scope="module")
def f32_unary():
    return SourceModule(_unary_source(F32_UNARY, "float"))


@pytest.mark.parametrize("name", list(F32_UNARY))
def test_float_function(f32_unary, name):
    expr, ref, inputs, max_ulp = F32_UNARY[name]
    x = inputs(np.random.default_rng(RNG_SEED))
    got = run_map(f32_unary.get_function(_kernel_name(name)), np.float32, x)
    assert_within(name, x, got, ref(x.astype(np.float64)), np.float32, max_ulp)


# name: (expression of a, reference on float64, inputs(rng), max ulp), double precision;
# the references are NumPy's own float64 functions, which err by up to an ulp too.
F64_UNARY = {
    "sqrt": ("sqrt(a)", np.sqrt, lambda r: r.uniform(0, 1e10, 3000), 0.5),
    "rsqrt": ("rsqrt(a)", lambda x: 1 / np.sqrt(x), lambda r: np.exp(r.uniform(-300, 300, 3000)), 2),
    "rcbrt": ("rcbrt(a)", lambda x: 1 / np.cbrt(np.asarray(x, np.longdouble)), lambda r: np.exp(r.uniform(-300, 300, 3000)), 2),
    "exp10": ("exp10(a)", lambda x: 10.0 ** x, lambda r: r.uniform(-300, 300, 3000), 2),
    "sinpi": ("sinpi(a)", sinpi_ref, lambda r: r.uniform(-1e6, 1e6, 3000), 2),
    "cospi": ("cospi(a)", cospi_ref, lambda r: r.uniform(-1e6, 1e6, 3000), 2),
    "cyl_bessel_i0": ("cyl_bessel_i0(a)", np.i0, lambda r: r.uniform(-700, 700, 3000), 6),
    "norm3d": ("norm3d(a, 2 * a, 2 * a)", lambda x: 3 * np.abs(x), lambda r: r.uniform(-1e300, 1e300, 3000), 2),
    "rnorm4d": ("rnorm4d(a, a, -a, a)", lambda x: 0.5 / np.abs(x), lambda r: r.uniform(1e-300, 1e300, 3000), 2),
    "rhypot": ("rhypot(3 * a, 4 * a)", lambda x: 0.2 / x, lambda r: np.exp(r.uniform(-300, 300, 3000)), 2),
}


@pytest.fixture(scope="module")
def f64_unary():
    return SourceModule(_unary_source(F64_UNARY, "double"))


@pytest.mark.parametrize("name", list(F64_UNARY))
def test_double_function(f64_unary, name):
    expr, ref, inputs, max_ulp = F64_UNARY[name]
    x = np.asarray(inputs(np.random.default_rng(RNG_SEED)), np.float64)
    got = run_map(f64_unary.get_function(_kernel_name(name)), np.float64, x)
    assert_within(name, x, got, ref(x), np.float64, max_ulp)


def test_double_inverse_error_functions():
    """erfinv, erfcinv, normcdfinv against their inverses (no reference needed)."""
    mod = SourceModule(r"""
    __global__ void inv(const double *x, double *a, double *b, double *c, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { a[i] = erfinv(x[i]); b[i] = erfcinv(1.0 - x[i]); c[i] = normcdfinv(0.5 + 0.5 * x[i]); }
    }""")
    x = np.random.default_rng(RNG_SEED).uniform(-0.999, 0.999, 2000)
    a, b, c = run_map(mod.get_function("inv"), np.float64, x, nout=3)
    np.testing.assert_allclose(_erf(a), x, rtol=6e-16, atol=1e-17)
    # 1 - x and 0.5 + 0.5 x round: erfcinv(1 - x) and normcdfinv(...) / sqrt(2) are erfinv(x) to that
    np.testing.assert_allclose(b, a, rtol=1e-13, atol=3e-16)
    np.testing.assert_allclose(c, np.sqrt(2.0) * a, rtol=1e-13, atol=5e-16)


# ---------------------------------------------------------------- rounding modes, exactly

F32_MAX = float(np.finfo(np.float32).max)


def round_fraction(q: Fraction, dtype):
    """q rounded to dtype in each mode ('rn', 'rz', 'ru', 'rd'), by exact comparison."""
    t = np.dtype(dtype).type
    inf = t(np.inf)
    big = t(np.finfo(dtype).max)
    ulp_big = Fraction(float(big)) - Fraction(float(np.nextafter(big, t(0))))
    beyond = Fraction(float(big)) + ulp_big / 2                            # where RN overflows
    if abs(q) > Fraction(float(big)):
        s = 1 if q > 0 else -1
        lo, hi = (big, inf) if s > 0 else (-inf, -big)
        rn = t(s * inf) if abs(q) >= beyond else t(s * big)
    else:
        approx = t(float(q))                                   # within an ulp of q
        lo = approx if Fraction(float(approx)) <= q else np.nextafter(approx, -inf)
        hi = lo if Fraction(float(lo)) == q else np.nextafter(lo, inf)
        dlo, dhi = q - Fraction(float(lo)), Fraction(float(hi)) - q
        if dlo != dhi:
            rn = lo if dlo < dhi else hi
        else:                                                  # a tie (or exact): the even one
            rn = lo if int(np.array([lo]).view(f"u{np.dtype(dtype).itemsize}")[0]) % 2 == 0 else hi
    return {"rn": rn, "rz": lo if q >= 0 else hi, "ru": hi, "rd": lo}


OPS = {  # name: (arity, CUDA name pattern, exact value)
    "add": (2, "__fadd_{m}(a, b)", "__dadd_{m}(a, b)", lambda a, b, c: a + b),
    "sub": (2, "__fsub_{m}(a, b)", "__dsub_{m}(a, b)", lambda a, b, c: a - b),
    "mul": (2, "__fmul_{m}(a, b)", "__dmul_{m}(a, b)", lambda a, b, c: a * b),
    "div": (2, "__fdiv_{m}(a, b)", "__ddiv_{m}(a, b)", lambda a, b, c: a / b),
    "fma": (3, "__fmaf_{m}(a, b, c)", "__fma_{m}(a, b, c)", lambda a, b, c: a * b + c),
    "rcp": (1, "__frcp_{m}(a)", "__drcp_{m}(a)", lambda a, b, c: 1 / a),
}
MODES = ("rn", "rz", "ru", "rd")


@pytest.fixture(scope="module")
def rounded_ops():
    src = ["#include <cuda_runtime.h>\n"]
    for T, col in (("float", 1), ("double", 2)):
        for op, spec in OPS.items():
            for m in MODES:
                src.append(f"__global__ void {op}_{m}_{T}(const {T} *A, const {T} *B, const {T} *C, {T} *y, int n) {{\n"
                           f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           f"    if (i < n) {{ {T} a = A[i], b = B[i], c = C[i]; (void)b; (void)c;"
                           f" y[i] = {spec[col].format(m=m)}; }}\n}}\n")
            if op == "rcp":
                for m in MODES:
                    sq = ("__fsqrt_" if T == "float" else "__dsqrt_") + m
                    src.append(f"__global__ void sqrt_{m}_{T}(const {T} *A, {T} *y, int n) {{\n"
                               f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               f"    if (i < n) y[i] = {sq}(A[i]);\n}}\n")
    return SourceModule("".join(src))


def _operands(rng, dtype, n=400):
    def one():
        mant = rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n)
        return (mant * np.exp2(rng.integers(-20, 21, n))).astype(dtype)
    a, b, c = one(), one(), one()
    if dtype == np.float32:   # near overflow, and sums that cancel
        a[:8] = np.float32(3e38)
        b[:8] = np.float32(3.0)
        c[8:16] = -a[8:16] * b[8:16]
    return a, b, c


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float", "double"])
@pytest.mark.parametrize("op", list(OPS))
def test_rounded_arithmetic_is_exact(rounded_ops, op, dtype):
    T = "float" if dtype == np.float32 else "double"
    a, b, c = _operands(np.random.default_rng(RNG_SEED), dtype)
    exact_of = OPS[op][3]
    want = {m: [] for m in MODES}
    for x, y, z in zip(a, b, c):
        rounded = round_fraction(exact_of(Fraction(float(x)), Fraction(float(y)), Fraction(float(z))), dtype)
        for m in MODES:
            want[m].append(rounded[m])
    for m in MODES:
        got = run_map(rounded_ops.get_function(f"{op}_{m}_{T}"), dtype, a, b, c)
        w = np.array(want[m], dtype)
        bad = np.flatnonzero(~((got == w) | (np.isnan(got) & np.isnan(w))))
        assert bad.size == 0, (f"{op}_{m}_{T}({a[bad[0]]!r}, {b[bad[0]]!r}, {c[bad[0]]!r}) = "
                               f"{got[bad[0]]!r}, want {w[bad[0]]!r} ({bad.size} wrong)")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float", "double"])
def test_rounded_sqrt_brackets_the_root(rounded_ops, dtype):
    T = "float" if dtype == np.float32 else "double"
    x = np.abs(_operands(np.random.default_rng(RNG_SEED), dtype)[0][16:])
    got = {m: run_map(rounded_ops.get_function(f"sqrt_{m}_{T}"), dtype, x) for m in MODES}
    assert (got["rz"] == got["rd"]).all()
    assert (got["rn"] == np.sqrt(x)).all()
    for xi, lo, hi in zip(x, got["rd"], got["ru"]):
        q = Fraction(float(xi))
        assert Fraction(float(lo)) ** 2 <= q <= Fraction(float(hi)) ** 2
        assert hi == lo if Fraction(float(lo)) ** 2 == q else hi == np.nextafter(lo, dtype(np.inf))


def test_conversions():
    mod = SourceModule(r"""
    __global__ void f2i(const float *x, int *rn, int *rz, int *ru, int *rd, unsigned *urn, long long *llrn, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            float a = x[i];
            rn[i] = __float2int_rn(a); rz[i] = __float2int_rz(a); ru[i] = __float2int_ru(a); rd[i] = __float2int_rd(a);
            urn[i] = __float2uint_rn(a); llrn[i] = __float2ll_rn(a);
        }
    }
    __global__ void i2f(const long long *x, float *rn, float *rz, float *ru, float *rd, double *drz, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            long long v = x[i];
            rn[i] = __ll2float_rn(v); rz[i] = __ll2float_rz(v); ru[i] = __ll2float_ru(v); rd[i] = __ll2float_rd(v);
            drz[i] = __ll2double_rz(v);
        }
    }
    __global__ void bits(const float *x, int *fi, float *back, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { fi[i] = __float_as_int(x[i]); back[i] = __int_as_float(fi[i] ^ (int)0x80000000); }
    }
    """)
    rng = np.random.default_rng(RNG_SEED)
    x = np.concatenate([rng.uniform(-1e3, 1e3, 1000), np.arange(-20, 20) + 0.5,
                        [3e9, -3e9, 1e20, -1e20, np.inf, -np.inf, np.nan, -0.5, 0.5, 2147483520.0]]).astype(np.float32)
    n = len(x)
    dx = to_device(x)
    outs = [cudaMalloc(n * 8) for _ in range(6)]
    mod.get_function("f2i")[(n + BLOCK - 1) // BLOCK, BLOCK](dx, *outs, n)
    rn, rz, ru, rd, urn = (from_device(d, n, t) for d, t in zip(outs, [np.int32] * 4 + [np.uint32]))
    llrn = from_device(outs[5], n, np.int64)
    x64 = x.astype(np.float64)

    def sat(v, lo, hi):
        return np.where(np.isnan(v), 0, np.clip(np.nan_to_num(v, posinf=hi, neginf=lo), lo, hi))
    i32 = (-2.0 ** 31, 2.0 ** 31 - 1)
    np.testing.assert_array_equal(rn, sat(np.rint(x64), *i32))       # ties to even
    np.testing.assert_array_equal(rz, sat(np.trunc(x64), *i32))
    np.testing.assert_array_equal(ru, sat(np.ceil(x64), *i32))
    np.testing.assert_array_equal(rd, sat(np.floor(x64), *i32))
    np.testing.assert_array_equal(urn, sat(np.rint(x64), 0, 2.0 ** 32 - 1))
    ll = sat(np.rint(x64), -2.0 ** 63, 2.0 ** 63)
    np.testing.assert_array_equal(llrn, [int(v) if v < 2.0 ** 63 else 2 ** 63 - 1 for v in ll])

    ints = np.concatenate([rng.integers(-2 ** 62, 2 ** 62, 300), [2 ** 24 + 1, -(2 ** 24 + 1), 2 ** 63 - 1,
                                                                -2 ** 63, 2 ** 53 + 1, 0]]).astype(np.int64)
    m = len(ints)
    di = to_device(ints)
    mod.get_function("i2f")[(m + BLOCK - 1) // BLOCK, BLOCK](di, *outs[:5], m)
    got = {mode: from_device(d, m, np.float32) for mode, d in zip(MODES, outs[:4])}
    drz = from_device(outs[4], m, np.float64)
    for j, v in enumerate(ints):
        want = round_fraction(Fraction(int(v)), np.float32)
        for mode in MODES:
            assert got[mode][j] == want[mode], (mode, int(v), got[mode][j], want[mode])
        assert drz[j] == round_fraction(Fraction(int(v)), np.float64)["rz"]

    mod.get_function("bits")[(n + BLOCK - 1) // BLOCK, BLOCK](dx, outs[0], outs[1], n)
    np.testing.assert_array_equal(from_device(outs[0], n, np.int32), x.view(np.int32))
    np.testing.assert_array_equal(from_device(outs[1], n, np.float32), -x)
    for d in [dx, di, *outs]:
        cudaFree(d)


# ---------------------------------------------------------------- integer intrinsics

def _u32(v):
    return int(v) & 0xFFFFFFFF


def _s32(v):
    v = _u32(v)
    return v - (1 << 32) if v >> 31 else v


def _byte_perm(x, y, s):
    b = (_u32(y) << 32) | _u32(x)
    return sum(((b >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))


INT_OPS = {  # name: (expression of unsigned a, b, s; Python reference)
    "popc": ("__popc(a)", lambda a, b, s: bin(a).count("1")),
    "clz": ("__clz((int)a)", lambda a, b, s: 32 - a.bit_length()),
    "ffs": ("__ffs((int)a)", lambda a, b, s: (a & -a).bit_length()),
    "brev": ("__brev(a)", lambda a, b, s: int(f"{a:032b}"[::-1], 2)),
    "byte_perm": ("__byte_perm(a, b, s)", lambda a, b, s: _byte_perm(a, b, s)),
    "funnelshift_l": ("__funnelshift_l(a, b, s)", lambda a, b, s: _u32((((b << 32) | a) << (s & 31)) >> 32)),
    "funnelshift_lc": ("__funnelshift_lc(a, b, s)", lambda a, b, s: _u32((((b << 32) | a) << min(s, 32)) >> 32)),
    "funnelshift_r": ("__funnelshift_r(a, b, s)", lambda a, b, s: _u32(((b << 32) | a) >> (s & 31))),
    "funnelshift_rc": ("__funnelshift_rc(a, b, s)", lambda a, b, s: _u32(((b << 32) | a) >> min(s, 32))),
    "mulhi": ("(unsigned)__mulhi((int)a, (int)b)", lambda a, b, s: _u32((_s32(a) * _s32(b)) >> 32)),
    "umulhi": ("__umulhi(a, b)", lambda a, b, s: (a * b) >> 32),
    "mul24": ("(unsigned)__mul24((int)a, (int)b)",
              lambda a, b, s: _u32((_s32((a & 0xFFFFFF) << 8) >> 8) * (_s32((b & 0xFFFFFF) << 8) >> 8))),
    "umul24": ("__umul24(a, b)", lambda a, b, s: _u32((a & 0xFFFFFF) * (b & 0xFFFFFF))),
    "sad": ("__sad((int)a, (int)b, s)", lambda a, b, s: _u32(abs(_s32(a) - _s32(b)) + s)),
    "usad": ("__usad(a, b, s)", lambda a, b, s: _u32(abs(a - b) + s)),
    "hadd": ("(unsigned)__hadd((int)a, (int)b)", lambda a, b, s: _u32((_s32(a) + _s32(b)) >> 1)),
    "rhadd": ("(unsigned)__rhadd((int)a, (int)b)", lambda a, b, s: _u32((_s32(a) + _s32(b) + 1) >> 1)),
    "uhadd": ("__uhadd(a, b)", lambda a, b, s: (a + b) >> 1),
    "urhadd": ("__urhadd(a, b)", lambda a, b, s: (a + b + 1) >> 1),
    "min_mixed": ("min((int)a, b)", lambda a, b, s: min(a, b)),        # CUDA compares as unsigned
    "max_int": ("(unsigned)max((int)a, (int)b)", lambda a, b, s: _u32(max(_s32(a), _s32(b)))),
}


def test_integer_intrinsics():
    src = "".join(
        f"__global__ void i_{name}(const unsigned *A, const unsigned *B, const unsigned *S, unsigned *y, int n) {{\n"
        f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"    if (i < n) {{ unsigned a = A[i], b = B[i], s = S[i]; (void)b; (void)s; y[i] = {expr}; }}\n}}\n"
        for name, (expr, _) in INT_OPS.items())
    mod = SourceModule(src)
    rng = np.random.default_rng(RNG_SEED)
    n = 1500
    a = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    s = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    a[:6] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x00FFFFFF]
    b[:6] = [0, 0xFFFFFFFF, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 2]
    s[: n // 2] %= 40                      # shift amounts around 32 for the funnel shifts
    for name, (_, ref) in INT_OPS.items():
        got = run_map(mod.get_function(f"i_{name}"), np.uint32, a, b, s)
        want = [ref(int(x), int(y), int(z)) for x, y, z in zip(a, b, s)]
        bad = [j for j in range(n) if int(got[j]) != want[j]]
        assert not bad, f"{name}({a[bad[0]]:#x}, {b[bad[0]]:#x}, {s[bad[0]]:#x}) = {int(got[bad[0]]):#x}, " \
                        f"want {want[bad[0]]:#x} ({len(bad)} wrong)"


def test_64_bit_integer_intrinsics():
    mod = SourceModule(r"""
    __global__ void k(const unsigned long long *A, const unsigned long long *B, unsigned long long *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            unsigned long long a = A[i], b = B[i];
            y[5 * i + 0] = __popcll(a);
            y[5 * i + 1] = __clzll((long long)a) + 100 * __ffsll((long long)a);
            y[5 * i + 2] = __brevll(a);
            y[5 * i + 3] = __umul64hi(a, b);
            y[5 * i + 4] = (unsigned long long)__mul64hi((long long)a, (long long)b);
        }
    }""")
    rng = np.random.default_rng(RNG_SEED)
    n = 1000
    a = rng.integers(0, 2 ** 64, n, dtype=np.uint64)
    b = rng.integers(0, 2 ** 64, n, dtype=np.uint64)
    a[:3] = [0, 1, 2 ** 63]
    da, db, dy = to_device(a), to_device(b), cudaMalloc(5 * n * 8)
    mod.get_function("k")[(n + BLOCK - 1) // BLOCK, BLOCK](da, db, dy, n)
    y = from_device(dy, 5 * n, np.uint64).reshape(n, 5)
    for d in (da, db, dy):
        cudaFree(d)

    def s64(v):
        return v - (1 << 64) if v >> 63 else v
    for j in range(n):
        x, z = int(a[j]), int(b[j])
        want = [bin(x).count("1"), 64 - x.bit_length() + 100 * (x & -x).bit_length(),
                int(f"{x:064b}"[::-1], 2), (x * z) >> 64, ((s64(x) * s64(z)) >> 64) & (2 ** 64 - 1)]
        assert [int(v) for v in y[j]] == want, (hex(x), hex(z))


# ---------------------------------------------------------------- vector types, helper_math, constants

def test_vector_types_and_helper_math():
    mod = SourceModule(r"""
    #include <helper_math.h>
    #include <math_constants.h>
    __global__ void k(const float4 *in, float4 *out, float *len, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        __shared__ float4 tile[128];
        if (i < n) {
            tile[threadIdx.x] = in[i];
            float4 v = tile[threadIdx.x];
            float3 p = make_float3(v.x, v.y, v.z);
            out[i] = make_float4(normalize(p) * 2.0f + make_float3(1.0f), dot(p, p));
            len[i] = length(p) + CUDART_PI_F * 0.0f + (isinf(CUDART_INF_F) ? 0.0f : 1.0f);
        }
    }""")
    rng = np.random.default_rng(RNG_SEED)
    n = 1000
    v = rng.uniform(-10, 10, (n, 4)).astype(np.float32)
    din, dout, dlen = to_device(v), cudaMalloc(v.nbytes), cudaMalloc(n * 4)
    mod.get_function("k")[(n + BLOCK - 1) // BLOCK, BLOCK](din, dout, dlen, n)
    out = from_device(dout, (n, 4), np.float32)
    length = from_device(dlen, n, np.float32)
    for d in (din, dout, dlen):
        cudaFree(d)
    p = v[:, :3].astype(np.float64)
    norm = np.linalg.norm(p, axis=1)
    np.testing.assert_allclose(length, norm, rtol=4e-7)
    np.testing.assert_allclose(out[:, :3], p / norm[:, None] * 2 + 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[:, 3], (p * p).sum(axis=1), rtol=4e-7)


# ---------------------------------------------------------------- atomics under contention

ATOMICS = r"""
#include <sm_20_atomic_functions.h>

// The CUDA Programming Guide's atomicAdd for double before sm_60, on atomicCAS.
__device__ double atomicAddViaCAS(double *address, double val) {
    unsigned long long *address_as_ull = (unsigned long long *)address;
    unsigned long long old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__device__ int lock;

__global__ void contend(int *i32, unsigned *u32, unsigned long long *u64, long long *i64,
                        float *f32, double *f64, unsigned short *u16,
                        unsigned *tickets, int *exch_old, unsigned *inc_old, int *plain)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&i32[0], 1);
    atomicSub(&i32[1], 3);
    atomicMax(&i32[2], (int)((gid * 7919u) % 100003u));
    atomicMin(&i32[3], -(int)gid);
    exch_old[gid] = atomicExch(&i32[4], (int)gid);
    atomicAdd_block(&i32[5], 2);
    atomicAdd_system(&i32[6], 5);
    atomicCAS(&i32[7], 0, (int)gid + 1);              // only the first one succeeds

    atomicAdd(&u32[0], 2u);
    atomicSub(&u32[1], 1u);
    atomicOr(&u32[2], 1u << (gid % 32));
    atomicAnd(&u32[3], ~(1u << (gid % 32)));
    atomicXor(&u32[4], gid);
    inc_old[gid] = atomicInc(&u32[5], 999u);
    atomicDec(&u32[6], 999u);
    tickets[gid] = atomicAdd(&u32[7], 1u);
    atomicMax(&u32[8], gid);
    atomicMin(&u32[9], gid + 5);

    atomicAdd(&u64[0], 1ull << 35);
    atomicMax(&u64[1], (unsigned long long)gid * gid);
    atomicOr(&u64[2], 1ull << (gid % 64));
    atomicXor(&u64[3], (unsigned long long)gid << 32);
    atomicMin(&i64[0], -(long long)gid * 1000000000LL);
    atomicMax(&i64[1], (long long)gid * 1000000000LL);

    atomicAdd(&f32[0], 1.0f);
    atomicAdd(&f32[1], 0.25f);
    atomicExch(&f32[2], (float)gid);
    atomicAdd(&f64[0], 0.5);
    atomicAddViaCAS(&f64[1], 1.0);

    unsigned short old16 = u16[0], seen;                // a 16-bit counter on atomicCAS
    while ((seen = atomicCAS(&u16[0], old16, (unsigned short)(old16 + 1))) != old16)
        old16 = seen;

    if (threadIdx.x == 0) {                             // a spin lock around a plain update
        while (atomicCAS(&lock, 0, 1) != 0)
            ;
        __threadfence();
        plain[0] = plain[0] + 1;
        __threadfence();
        atomicExch(&lock, 0);
    }
}

// Every thread hits the same few words, many times.
__global__ void hammer(float *f, double *d, int *i, unsigned long long *u, unsigned *w, int iters)
{
    for (int k = 0; k < iters; k++) {
        atomicAdd(f, 1.0f);
        atomicAdd(d, 1.0);
        atomicAdd(i, 1);
        atomicAdd(u, 3ull);
        atomicInc(w, 0xFFFFFFFFu);
    }
}

// Privatized histogram: atomics on __shared__ memory, then on global memory.
__global__ void histogram(const unsigned char *data, int n, unsigned *bins)
{
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}
"""


@pytest.fixture(scope="module")
def atomics():
    return SourceModule(ATOMICS)


def test_atomics_under_contention(atomics):
    blocks, threads = 500, 128
    N = blocks * threads                                   # 64000 threads
    init = {
        "i32": np.array([0, 0, -1, 0, -1, 0, 0, 0], np.int32),
        "u32": np.array([0, 0, 0, 0xFFFFFFFF, 0, 0, 0, 0, 0, 0xFFFFFFFF], np.uint32),
        "u64": np.zeros(4, np.uint64),
        "i64": np.zeros(2, np.int64),
        "f32": np.array([0, 0, -1], np.float32),
        "f64": np.zeros(2, np.float64),
        "u16": np.zeros(2, np.uint16),
    }
    dev = {k: to_device(v) for k, v in init.items()}
    d_tickets, d_exch, d_inc = cudaMalloc(N * 4), cudaMalloc(N * 4), cudaMalloc(N * 4)
    d_plain = to_device(np.zeros(1, np.int32))
    atomics.get_function("contend")[blocks, threads](
        dev["i32"], dev["u32"], dev["u64"], dev["i64"], dev["f32"], dev["f64"], dev["u16"],
        d_tickets, d_exch, d_inc, d_plain)
    cudaDeviceSynchronize()
    got = {k: from_device(dev[k], v.shape, v.dtype) for k, v in init.items()}
    tickets = from_device(d_tickets, N, np.uint32)
    exch_old = from_device(d_exch, N, np.int32)
    inc_old = from_device(d_inc, N, np.uint32)
    plain = from_device(d_plain, 1, np.int32)
    for d in [*dev.values(), d_tickets, d_exch, d_inc, d_plain]:
        cudaFree(d)

    gids = np.arange(N, dtype=np.int64)
    i32, u32, u64, i64 = got["i32"], got["u32"], got["u64"], got["i64"]
    assert i32[0] == N and i32[1] == -3 * N
    assert i32[2] == ((gids * 7919) % 100003).max()
    assert i32[3] == -(N - 1)
    # atomicExch: the old values and the last one are the initial -1 and every gid once
    assert sorted(np.append(exch_old, i32[4]).tolist()) == [-1] + list(range(N))
    assert i32[5] == 2 * N and i32[6] == 5 * N
    assert 1 <= i32[7] <= N

    assert u32[0] == 2 * N and u32[1] == (-N) % 2 ** 32
    assert u32[2] == 0xFFFFFFFF and u32[3] == 0
    assert u32[4] == np.bitwise_xor.reduce(gids.astype(np.uint32))
    assert u32[5] == N % 1000                              # atomicInc wraps after 999
    assert sorted(inc_old.tolist()) == sorted((np.arange(N) % 1000).tolist())
    assert u32[6] == (-N) % 1000                           # atomicDec from 0 wraps to 999
    assert sorted(tickets.tolist()) == list(range(N))      # every old value once
    assert u32[7] == N and u32[8] == N - 1 and u32[9] == 5

    assert u64[0] == N << 35 and u64[1] == (N - 1) ** 2
    assert u64[2] == 2 ** 64 - 1
    assert u64[3] == int(np.bitwise_xor.reduce(gids)) << 32
    assert i64[0] == -(N - 1) * 10 ** 9 and i64[1] == (N - 1) * 10 ** 9

    f32, f64 = got["f32"], got["f64"]
    assert f32[0] == N and f32[1] == 0.25 * N               # exact: all sums below 2^24
    assert f32[2] == int(f32[2]) and 0 <= f32[2] < N
    assert f64[0] == 0.5 * N and f64[1] == N
    assert got["u16"][0] == N % 65536 and got["u16"][1] == 0
    assert plain[0] == blocks


def test_atomics_hammering_one_address(atomics):
    blocks, threads, iters = 256, 64, 200
    total = blocks * threads * iters                       # 3276800: exact in a float
    bufs = [np.zeros(1, t) for t in (np.float32, np.float64, np.int32, np.uint64, np.uint32)]
    dev = [to_device(b) for b in bufs]
    atomics.get_function("hammer")[blocks, threads](*dev, iters)
    f, d, i, u, w = (from_device(p, 1, b.dtype)[0] for p, b in zip(dev, bufs))
    for p in dev:
        cudaFree(p)
    assert (f, d, i, u, w) == (total, total, total, 3 * total, total)


def test_shared_memory_histogram(atomics):
    rng = np.random.default_rng(RNG_SEED)
    data = rng.integers(0, 256, 1_000_003, dtype=np.uint8)
    d_data, d_bins = to_device(data), cudaMalloc(256 * 4)
    cudaMemset(d_bins, 0, 256 * 4)
    atomics.get_function("histogram")[120, 256](d_data, len(data), d_bins)
    bins = from_device(d_bins, 256, np.uint32)
    cudaFree(d_data)
    cudaFree(d_bins)
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=256))


# ---------------------------------------------------------------- assert after #include <assert.h>

def test_assert_h_in_kernel_fails_the_launch_not_the_process(run_cuda):
    run = run_cuda(r"""
    src = r'''
    #include <assert.h>
    #include <cassert>
    __global__ void k(int *p, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        assert(i != 37);
        if (i < n) p[i] = i;
    }'''
    d = cudaMalloc(64 * 4)
    SourceModule(src).get_function("k")[2, 32](d, 64)
    R["code"] = code_of(cudaDeviceSynchronize)
    """)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 710, run.explain()            # cudaErrorAssert
    assert "i != 37" in run.stdout + run.stderr, run.explain()


def test_ndebug_disables_assert(run_cuda):
    run = run_cuda(r"""
    src = r'''
    #include <assert.h>
    __global__ void k(int *p) { assert(threadIdx.x == 1000); p[threadIdx.x] = 1; }'''
    d = cudaMalloc(32 * 4)
    SourceModule(src, options=["-DNDEBUG"]).get_function("k")[1, 32](d)
    R["code"] = code_of(cudaDeviceSynchronize)
    h = np.zeros(32, np.int32)
    cudaMemcpy(h, d, h.nbytes, cudaMemcpyDeviceToHost)
    R["sum"] = int(h.sum())
    """)
    assert run.returncode == 0, run.explain()
    assert run.R == {"code": 0, "sum": 32}, run.explain()
