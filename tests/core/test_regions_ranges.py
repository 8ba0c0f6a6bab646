"""Guarded regions run over a range of threadIdx.x (regions/ranges.py): for
every condition form, bound and block shape, the threads that run the body
are exactly those the per-thread path (plain loop / fibers) runs."""
import re

import numpy as np
import pytest

from regions_util import blocks, both, managed  # noqa: F401  (managed: a fixture)
from pyemu.cuda import cudaDeviceSynchronize

INT_MAX, INT_MIN = 2**31 - 1, -2**31

# each kernel marks the threads whose body ran; `n`, `lo`, `hi` are bounds
KERNELS = r"""
struct Lim { int v; };
__device__ bool operator<(int i, Lim l) { return i % 2 == 0; }   // not a range

__global__ void lt(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 7;
}
__global__ void gt_flipped(int *out, int n, int lo, int hi) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (n > i) { out[i] = 7; }
}
__global__ void le_minus(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n - 1) out[i] = 7;
}
__global__ void between(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= lo && i < hi) out[i] = 7;
}
__global__ void above(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((lo < i) && (i <= hi)) out[i] = 7;
}
__global__ void unsigned_index(int *out, int n, int lo, int hi) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 7;              // n < 0 converts to a huge unsigned: every thread
}
__global__ void unsigned_bound(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n) out[i] = 7;
}
__global__ void raw_poly(int *out, int n, int lo, int hi) {
    if (blockIdx.x * blockDim.x + threadIdx.x < n)
        out[blockIdx.x * blockDim.x + threadIdx.x] = 7;
}
__global__ void long_index(int *out, int n, int lo, int hi) {
    long i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long)lo - 3) out[i] = 7;
}
__global__ void float_bound(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * 0.5f) out[i] = 7;
}
__global__ void scaled(int *out, int n, int lo, int hi) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 3 + 1;
    if (i < n) out[(i - 1) / 3] = 7;
}
__global__ void not_equal(int *out, int n, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i != n) out[i] = 7;
}
__global__ void class_bound(int *out, int n, int lo, int hi) {
    Lim l = {n};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < l) out[i] = 7;
}
__global__ void class_param(int *out, Lim l, int lo, int hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < l) out[i] = 7;
}
"""

RANGED = ["lt", "gt_flipped", "le_minus", "between", "above", "unsigned_index",
          "unsigned_bound", "raw_poly", "long_index", "float_bound", "scaled", "class_param"]
KEPT = ["not_equal", "class_bound"]


def _function(text: str, name: str) -> str:
    m = re.search(r"static bool pyemu_rg_" + name + r" \(.*?\n#pragma|static bool pyemu_rg_"
                  + name + r" \(.*", text, re.S)
    assert m, name
    body = m.group(0)
    nxt = body.find("static bool pyemu_rg_", 10)
    return body if nxt < 0 else body[:nxt]


def test_which_regions_get_a_range():
    text = blocks(KERNELS, implicit=True).text
    for name in RANGED:
        assert "pyemu_rg_xlo" in _function(text, name), name
    for name in KEPT:
        assert "pyemu_rg_xlo" not in _function(text, name), name
    # a class on the uniform side: the range is written, and g++ turns it off
    assert "__is_class" in _function(text, "class_param")


def _run(fn, grid, block, *args):
    threads = int(np.prod(grid)) * int(np.prod(block))
    return fn, threads


BOUNDS = [0, -1, -5, 1, 3, 31, 32, 33, 63, 64, 65, 95, 96, 97, 200, INT_MAX, INT_MIN + 1]


@pytest.mark.parametrize("name", RANGED + KEPT)
def test_range_equals_per_thread(managed, name):
    k, fib = both(KERNELS, name)
    grid, block = 3, 32
    total = grid * block
    for n in BOUNDS:
        for lo, hi in [(n, n + 10 if n < INT_MAX - 10 else INT_MAX), (-3, n), (40, 40), (50, 10)]:
            outs = []
            for fn in (k, fib):
                out = managed(np.zeros(total, np.int32))
                a0 = np.array([n], np.int32) if name == "class_param" else np.int32(n)
                fn[grid, block](out, a0, np.int32(lo), np.int32(hi))
                cudaDeviceSynchronize()
                outs.append(np.array(out[:total]))
            assert np.array_equal(outs[0], outs[1]), (name, n, lo, hi)


def test_range_values_are_the_documented_ones(managed):
    k, _ = both(KERNELS, "unsigned_index")
    out = managed(np.zeros(96, np.int32))
    k[3, 32](out, np.int32(-1), np.int32(0), np.int32(0))      # (unsigned)-1: every thread
    cudaDeviceSynchronize()
    assert (np.array(out[:96]) == 7).all()
    k, _ = both(KERNELS, "lt")
    out = managed(np.zeros(96, np.int32))
    k[3, 32](out, np.int32(40), np.int32(0), np.int32(0))
    cudaDeviceSynchronize()
    assert np.array_equal(np.array(out[:96]) == 7, np.arange(96) < 40)


# 2-D blocks: the range is on x, per row; a row-only conjunct (y < h) gives
# the whole row or none of it
TWO_D = r"""
__global__ void rect(int *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[(blockIdx.y * blockDim.y + threadIdx.y) * 40 + x] = 1 + threadIdx.z;
}
__global__ void cube(int *out, int w, int d) {
    unsigned x = threadIdx.x + 5 * threadIdx.y;
    if (x >= w && threadIdx.z < d)
        out[((blockIdx.x * blockDim.z + threadIdx.z) * blockDim.y + threadIdx.y) * blockDim.x
            + threadIdx.x] = 1;
}"""


@pytest.mark.parametrize("w,h", [(0, 0), (1, 1), (7, 5), (8, 8), (9, 13), (40, 16), (-1, 3),
                                 (100, 100)])
def test_two_dimensional_blocks(managed, w, h):
    assert "pyemu_rg_xlo" in _function(blocks(TWO_D, implicit=True).text, "rect")
    assert "pyemu_rg_xlo" in _function(blocks(TWO_D, implicit=True).text, "cube")
    k, fib = both(TWO_D, "rect")
    outs = []
    for fn in (k, fib):
        out = managed(np.zeros(40 * 16, np.int32))
        fn[(5, 2), (8, 8)](out, np.int32(w), np.int32(h))
        cudaDeviceSynchronize()
        outs.append(np.array(out[:640]))
    assert np.array_equal(outs[0], outs[1])
    k, fib = both(TWO_D, "cube")
    outs = []
    for fn in (k, fib):
        out = managed(np.zeros(2 * 6 * 4 * 3, np.int32))
        fn[2, (6, 4, 3)](out, np.int32(w), np.int32(h))
        cudaDeviceSynchronize()
        outs.append(np.array(out[:144]))
    assert np.array_equal(outs[0], outs[1])


# the unsigned index wraps past 2^32 in the later blocks, so the threads that
# pass are not a range: the guard fails there and the `if` decides
WRAP = r"""
__global__ void wrap(int *out, unsigned n) {
    unsigned i = blockIdx.x * 1000000000u + threadIdx.x * 100000000u;
    if (i < n) out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
__global__ void wrap_int(int *out, int n) {
    int i = blockIdx.x * 1000000000 + threadIdx.x;
    if (i < n) out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}"""


@pytest.mark.parametrize("name", ["wrap", "wrap_int"])
@pytest.mark.parametrize("grid", [2, 3, 6])
def test_polynomial_past_int_max_keeps_the_if(managed, name, grid):
    k, fib = both(WRAP, name)
    for n in (0, 5, 1000000000, 2000000000, 2**31 - 1, 3000000000, 2**32 - 1):
        if name == "wrap_int" and n > INT_MAX:
            continue
        outs = []
        for fn in (k, fib):
            out = managed(np.zeros(grid * 32, np.int32))
            val = np.uint32(n) if name == "wrap" else np.int32(n)
            fn[grid, 32](out, val)
            cudaDeviceSynchronize()
            outs.append(np.array(out[:grid * 32]))
        assert np.array_equal(outs[0], outs[1]), (grid, n)
        if name == "wrap":
            b = np.repeat(np.arange(grid, dtype=np.int64), 32)
            t = np.tile(np.arange(32, dtype=np.int64), grid)
            i = (b * 1000000000 + t * 100000000) % 2**32
            assert np.array_equal(outs[0], (i < n).astype(np.int32))


# a barrier kernel: the tree of a reduction (`if (tid < s)` in a uniform loop,
# tid recomputed from threadIdx.x in each region)
REDUCE = r"""
__global__ void plus_reduce(const int *input, unsigned int N, int *total) {
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ int x[256];
    x[tid] = (i < N) ? input[i] : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s = s / 2) {
        if (tid < s)
            x[tid] += x[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        total[blockIdx.x] = x[0];
}"""


@pytest.mark.parametrize("block", [1, 2, 32, 64, 256])
def test_reduction_tree(managed, block):
    assert "pyemu_rg_xlo" in blocks(REDUCE).text
    k, fib = both(REDUCE, "plus_reduce")
    data = np.arange(1, 1001, dtype=np.int32)
    grid = (1000 + block - 1) // block
    outs = []
    for fn in (k, fib):
        inp, tot = managed(data), managed(np.zeros(grid, np.int32))
        fn[grid, block](inp, np.uint32(1000), tot)
        cudaDeviceSynchronize()
        outs.append(np.array(tot[:grid]))
    assert np.array_equal(outs[0], outs[1])
    assert outs[0].sum() == data.sum()
