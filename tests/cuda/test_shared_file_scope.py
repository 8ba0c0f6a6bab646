"""`__shared__` variables the arena rewrite (pyemu/compiler/smem.py) does not
reach: declared at file scope, or through a macro.  They stay the worker's
thread-local storage (cuda_qualifiers.h: `static __thread`), which is
correct because a worker runs one block at a time: one instance per block
in flight, shared by the block's threads, whichever kernel and device
function use it.  (They are not guarded: an index past their end is not
detected, unlike the variables in the arena.)"""
import numpy as np
import pytest

from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy, \
    cudaMemcpyDeviceToHost

SOURCE = r"""
__shared__ float fs[64];                      /* file scope: every kernel's */
#define SHARED __shared__
__device__ float next_of(int t) { return fs[(t + 1) % 64]; }

__global__ void file_scope(float *out) {
    int t = threadIdx.x;
    fs[t] = blockIdx.x * 1000.0f + t;
    __syncthreads();
    out[blockIdx.x * 64 + t] = next_of(t);   /* a neighbour's value, of this block */
}

__global__ void file_scope_sum(float *out) {  /* a second kernel on the same variable */
    int t = threadIdx.x;
    fs[t] = (float)(blockIdx.x + t);
    __syncthreads();
    if (t == 0) {
        float s = 0;
        for (int i = 0; i < 64; i++) s += fs[i];
        out[blockIdx.x] = s;
    }
}

__global__ void through_macro(int *out) {
    SHARED int s[32];
    s[threadIdx.x] = blockIdx.x + threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = s[31 - threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def module():
    return SourceModule(SOURCE)


def _run(fn, grid, block, n, dtype):
    d = cudaMalloc(n * np.dtype(dtype).itemsize)
    fn[grid, block](d)
    cudaDeviceSynchronize()
    out = np.empty(n, dtype)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d)
    return out


@pytest.mark.parametrize("blocks", [1, 7, 300])
def test_file_scope_shared_is_one_per_block(module, blocks):
    out = _run(module.get_function("file_scope"), blocks, 64, 64 * blocks, np.float32)
    b, t = np.repeat(np.arange(blocks), 64), np.tile(np.arange(64), blocks)
    np.testing.assert_array_equal(out, b * 1000.0 + (t + 1) % 64)


def test_file_scope_shared_used_by_two_kernels_in_turn(module):
    for _ in range(3):
        out = _run(module.get_function("file_scope_sum"), 200, 64, 200, np.float32)
        np.testing.assert_array_equal(out, 64 * np.arange(200) + 63 * 64 // 2)
        out = _run(module.get_function("file_scope"), 50, 64, 64 * 50, np.float32)
        b, t = np.repeat(np.arange(50), 64), np.tile(np.arange(64), 50)
        np.testing.assert_array_equal(out, b * 1000.0 + (t + 1) % 64)


def test_shared_through_a_macro_is_one_per_block(module):
    out = _run(module.get_function("through_macro"), 256, 32, 32 * 256, np.int32)
    b, t = np.repeat(np.arange(256), 32), np.tile(np.arange(32), 256)
    np.testing.assert_array_equal(out, b + 31 - t)
