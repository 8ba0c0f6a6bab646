"""The slides' kernels in their OpenCL form (kernels/vector_add.cl, ...)."""
from __future__ import annotations

import numpy as np

from .bounds import FLT_EPSILON
from .compare import Exact, Rel, Ulp
from .model import Case, In, InOut, Local, Out, Scalar, case, f64, uniform


@case
def vector_add(rng):
    n = 10000                       # not a multiple of the work-group size
    a, b = uniform(rng, -100, 100, n), uniform(rng, -100, 100, n)
    return Case("vector_add", "vector_add.cl", "vector_add",
                [In("a", a), In("b", b),
                 Out("c", np.float32, n, Exact("+"), ref=lambda d: d["a"] + d["b"]),
                 Scalar("n", np.int32(n))],
                global_size=(10240,), local_size=(256,))


@case
def saxpy(rng):
    n = 1 << 14
    x, y = uniform(rng, 0, 10, n), uniform(rng, 0, 10, n)
    # a*x+y may be contracted to one fma (FP_CONTRACT is on by default in
    # OpenCL C); with positive operands either way is within 1 ulp.
    return Case("saxpy", "saxpy.cl", "saxpy",
                [Scalar("n", np.int32(n)), Scalar("a", np.float32(2.5)), In("x", x),
                 InOut("y", y, Ulp(1, "a*x+y (fma or not)"),
                       ref=lambda d: f64(d["a"]) * d["x"] + d["y"])],
                global_size=(n,), local_size=(128,))


def _matmul_ref(d):
    w = int(d["Width"])
    m = f64(d["M"]).reshape(w, w)
    nn = f64(d["N"]).reshape(w, w)
    return (m @ nn).reshape(-1)


@case
def matmul_naive(rng):
    w = 96
    m, n = uniform(rng, 0, 1, w * w), uniform(rng, 0, 1, w * w)
    # sums of w positive products in the same order; each step may or may
    # not be fused (FP_CONTRACT), so each side is within w*eps of the sum
    return Case("matmul_naive", "matmul_naive.cl", "matmul_naive",
                [In("M", m), In("N", n),
                 Out("P", np.float32, w * w, Rel(w * FLT_EPSILON, "sum of products"),
                     ref=_matmul_ref),
                 Scalar("Width", np.int32(w))],
                global_size=(w, w), local_size=(16, 16))


@case
def matmul_tiled(rng):
    w = 128
    m, n = uniform(rng, 0, 1, w * w), uniform(rng, 0, 1, w * w)
    return Case("matmul_tiled", "matmul_tiled.cl", "matmul_tiled",
                [In("Md", m), In("Nd", n),
                 Out("Pd", np.float32, w * w, Rel(w * FLT_EPSILON, "sum of products"),
                     ref=lambda d: _matmul_ref({"M": d["Md"], "N": d["Nd"],
                                                "Width": d["Width"]})),
                 Scalar("Width", np.int32(w))],
                global_size=(w, w), local_size=(16, 16), options="-D TILE_WIDTH=16")


@case
def reduce(rng):
    n, local = 50000, 128
    groups = (n + local - 1) // local
    x = rng.integers(-1000, 1000, n, dtype=np.int32)

    def partial(d):
        p = np.zeros(groups * local, np.int64)
        p[:n] = d["in"]
        return p.reshape(groups, local).sum(axis=1)

    return Case("reduce", "reduce.cl", "reduce",
                [In("in", x), Out("partial", np.int32, groups, Exact(), ref=partial),
                 Out("total", np.int32, 1, Exact("atomic_add"),
                     ref=lambda d: [d["in"].astype(np.int64).sum()]),
                 Local("scratch", local * 4), Scalar("n", np.uint32(n))],
                global_size=(groups * local,), local_size=(local,))


@case
def reduce_float(rng):
    n, local = 40000, 256
    groups = (n + local - 1) // local
    x = uniform(rng, -1, 1, n)
    return Case("reduce_float", "reduce_float.cl", "reduce_float",
                [In("in", x),
                 Out("partial", np.float32, groups, Exact("the same tree of +")),
                 Scalar("n", np.uint32(n))],
                global_size=(groups * local,), local_size=(local,))


@case
def histogram(rng):
    n = 1 << 16
    data = rng.integers(0, 256, n, dtype=np.uint8)
    data[: n // 8] = 7                              # one hot bin: contention
    return Case("histogram", "histogram.cl", "histogram",
                [In("data", data), Scalar("n", np.uint32(n)),
                 Out("hist", np.uint32, 256, Exact("atomic_inc, atomic_add"),
                     ref=lambda d: np.bincount(d["data"], minlength=256))],
                global_size=(4096,), local_size=(256,))


def _transpose(name, rng):
    w, h = 144, 80                                  # multiples of the 16x16 tile
    x = uniform(rng, -1, 1, w * h)
    return Case(name, "transpose.cl", name,
                [Out("out", np.float32, w * h, Exact(),
                     ref=lambda d: d["in"].reshape(h, w).T.reshape(-1)),
                 In("in", x), Scalar("width", np.int32(w)), Scalar("height", np.int32(h))],
                global_size=(w, h), local_size=(16, 16))


@case
def transpose_naive(rng):
    return _transpose("transpose_naive", rng)


@case
def transpose_tiled(rng):
    return _transpose("transpose_tiled", rng)


@case
def transpose_padded(rng):
    return _transpose("transpose_padded", rng)


@case
def spmv_csr(rng):
    rows, cols = 3000, 2000
    counts = rng.integers(0, 24, rows)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    indices = rng.integers(0, cols, int(ptr[-1]), dtype=np.int32)
    data = uniform(rng, 0, 1, int(ptr[-1]))
    x = uniform(rng, 0, 1, cols)

    def ref(d):
        y = np.zeros(rows)
        for r in range(rows):
            s, e = d["ptr"][r], d["ptr"][r + 1]
            y[r] = np.dot(f64(d["data"][s:e]), f64(d["x"][d["indices"][s:e]]))
        return y

    return Case("spmv_csr", "spmv_csr.cl", "spmv_csr",
                [Scalar("num_rows", np.int32(rows)), In("ptr", ptr), In("indices", indices),
                 In("data", data), In("x", x),
                 Out("y", np.float32, rows, Rel(24 * FLT_EPSILON, "sum of products"), ref=ref)],
                global_size=(3072,), local_size=(128,))


@case
def offset_copy(rng):
    n, offset = 8192, 5
    x = uniform(rng, -1, 1, n + offset)
    return Case("offset_copy", "copy.cl", "offset_copy",
                [Out("odata", np.float32, n, Exact(), ref=lambda d: d["idata"][offset:]),
                 In("idata", x), Scalar("offset", np.int32(offset))],
                global_size=(n,), local_size=(64,))


@case
def stride_copy(rng):
    n, stride = 4096, 3
    x = uniform(rng, -1, 1, n * stride)
    return Case("stride_copy", "copy.cl", "stride_copy",
                [Out("odata", np.float32, n, Exact(), ref=lambda d: d["idata"][::stride]),
                 In("idata", x), Scalar("stride", np.int32(stride))],
                global_size=(n,), local_size=(64,))


@case
def copy_any_groups(rng):
    n = 6000
    x = uniform(rng, -1, 1, n)
    return Case("copy_any_groups", "copy.cl", "copy_any_groups",
                [Out("odata", np.float32, n, Exact(), ref=lambda d: d["idata"] * 2),
                 In("idata", x)],
                global_size=(n,), local_size=None)
