"""Which names of a variable may change it comes from clang's tree
(frontend/lvalues.py; Function.changed, unchanged), not from the tokens
around the name: the block functions keep one copy of a variable that
crosses a barrier only where nothing changes it per thread.

Each kernel changes a variable in some threads only, in a way the token
rule did not see (a parenthesized target, a parenthesized argument of a
reference parameter, the target of a `?:`), then reads it after a barrier:
every thread must see its own value.  And the other way, a const member
function called on a variable leaves it one copy (a block function).
Results against NumPy, with and without PYEMU_FORCE_FIBERS=1."""
import numpy as np
import pytest

from pyemu.cuda import SourceModule

SRC = r"""
__device__ void bump(int &v) { v += 100; }
struct Box { int v; __device__ int get() const { return v; } };

__global__ void paren_target(int *out) {
    __shared__ int s[64];
    int n = blockIdx.x;
    if (threadIdx.x & 1) (n) = 100 + blockIdx.x;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] * 1000 + n;
}
__global__ void paren_argument(int *out) {
    __shared__ int s[64];
    int n = blockIdx.x;
    if (threadIdx.x & 1) bump((n));
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] * 1000 + n;
}
__global__ void conditional_target(int *out) {
    __shared__ int s[64];
    int a = blockIdx.x, b = blockIdx.x;
    ((threadIdx.x & 1) ? a : b) = 100 + blockIdx.x;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] * 1000 + a - b;
}
__global__ void const_method(int *out) {
    __shared__ int s[64];
    Box x = {(int)blockIdx.x};
    s[threadIdx.x] = x.get() + threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x] + x.get();
}
"""
BLOCKS = 4
NAMES = ["paren_target", "paren_argument", "conditional_target", "const_method"]


def _want(name):
    b = np.arange(BLOCKS)[:, None]
    t = np.arange(64)[None, :]
    odd = (t & 1).astype(bool)
    if name == "paren_target":
        return (63 - t) * 1000 + np.where(odd, 100 + b, b)
    if name == "paren_argument":
        return (63 - t) * 1000 + np.where(odd, b + 100, b)
    if name == "conditional_target":
        return (63 - t) * 1000 + np.where(odd, 100, -100) + 0 * b
    return b + 63 - t + b


@pytest.mark.parametrize("name", NAMES)
def test_results(forced, launch_read, name):
    mod = SourceModule(SRC)
    if not forced:
        assert mod.compiled.paths[name][0] == "block function", mod.compiled.paths
    out = launch_read(mod, name, BLOCKS, 64, (BLOCKS, 64))
    np.testing.assert_array_equal(out, _want(name), err_msg=name)
