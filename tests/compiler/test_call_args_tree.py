"""Whether a call may change a variable passed to it whole (`f(n)`), as
clang's tree says (frontend/parse.py: call_args; Function.by_value, by_ref)
instead of a list of names: the block functions keep one copy of a variable
that crosses a barrier only when nothing changes it per thread
(regions/blocks.py: _safe_call).

A user function that takes its argument by value cannot change it: the
variable stays uniform (block function, where the token rule sent the kernel
to its fiber variant).  A reference parameter, or a class whose copy
constructor takes a non-const reference (the copy changes its source), can:
the variable gets one copy per thread, and each thread's value is kept.
Results against NumPy, with and without PYEMU_FORCE_FIBERS=1."""
import numpy as np
import pytest

from pyemu.cuda import SourceModule

SRC = r"""
__device__ int sq(int v) { return v * v; }
__device__ void bump(int &v) { v += 1; }
struct Taker {
    int v;
    __device__ Taker(int x) : v(x) {}
    __device__ Taker(Taker &o) : v(o.v) { o.v++; }
};
__device__ int use(Taker t) { return t.v; }

__global__ void by_value(int *out) {
    __shared__ int s[64];
    int n = blockIdx.x;
    s[threadIdx.x] = sq(n) + threadIdx.x;
    __syncthreads();
    if (n < 3) { int o = s[63 - threadIdx.x]; __syncthreads(); s[threadIdx.x] += o; }
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}
__global__ void by_reference(int *out) {
    __shared__ int s[64];
    int n = blockIdx.x;
    if (threadIdx.x & 1) bump(n);
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] * 1000 + n;
}
__global__ void by_copy(int *out) {
    __shared__ int s[64];
    Taker k(blockIdx.x);
    int u = 0;
    if (threadIdx.x & 1) u = use(k);
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] * 1000 + k.v * 10 + u;
}
"""
BLOCKS = 5


def _want(name):
    b = np.arange(BLOCKS)[:, None]
    t = np.arange(64)[None, :]
    if name == "by_value":
        return np.where(b < 3, 2 * b * b + 63, b * b + t)
    odd = t & 1
    if name == "by_reference":
        return (63 - t) * 1000 + b + odd
    return (63 - t) * 1000 + (b + odd) * 10 + b * odd


def test_paths():
    paths = SourceModule(SRC).compiled.paths
    assert tuple(paths["by_value"]) == ("block function", ""), paths
    # n changes per thread: one copy each (a block function), or the fiber variant
    assert paths["by_reference"][0] in ("block function", "fiber variant"), paths


@pytest.mark.parametrize("name", ["by_value", "by_reference", "by_copy"])
def test_results(forced, launch_read, name):
    mod = SourceModule(SRC)
    out = launch_read(mod, name, BLOCKS, 64, (BLOCKS, 64))
    np.testing.assert_array_equal(out, _want(name), err_msg=name)
