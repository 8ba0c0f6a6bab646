"""Template kernels in a unit that includes <cooperative_groups.h> (cuda-samples
reduction's reduce0..reduce3): clang has the template's pattern, so a template
whose calls it resolves, to the block alone (this_thread_block(), cg::sync(cta),
cta.sync()), takes a block function as a non-template would; one with a call
clang leaves open (g.sync() on a template parameter, a dependent call found at
instantiation) or a tile keeps the fibers' warp form.  Every case against NumPy,
and the block-function kernels against the fiber path (PYEMU_FORCE_FIBERS=1)."""
import numpy as np
import pytest

from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)

HEAD = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <class T> struct SharedMemory {
    __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
};
"""
# reduce2 of cuda-samples reduction, and the same with cta.sync() and a T(0)
BLOCK_ONLY = HEAD + r"""
template <class T> __global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    cg::sync(cta);
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        cg::sync(cta);
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
template <class T, unsigned int B> __global__ void by_method(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ T sdata[B];
    unsigned int tid = cta.thread_rank(), i = blockIdx.x * B + tid;
    sdata[tid] = (i < n) ? g_idata[i] : T(0);
    cta.sync();
    for (unsigned int s = B / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        cta.sync();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""
# a call clang leaves open: the group's sync of a template parameter's type
DEPENDENT = HEAD + r"""
template <class G, class T> __device__ void load(G g, T *s, const T *in, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n) ? in[i] : 0;
    g.sync();
}
template <class T> __global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    load(cta, sdata, g_idata, n);
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        cg::sync(cta);
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""
# a tile in a template: its collectives run on fibers
TILE = HEAD + r"""
template <class T> __global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cta);
    T *sdata = SharedMemory<T>();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = (i < n) ? g_idata[i] : 0;
    for (int o = 16; o > 0; o >>= 1) v += t.shfl_down(v, o);
    if (t.thread_rank() == 0) sdata[threadIdx.x / 32] = v;
    cg::sync(cta);
    if (threadIdx.x == 0) {
        T s = 0;
        for (unsigned int w = 0; w < blockDim.x / 32; w++) s += sdata[w];
        g_odata[blockIdx.x] = s;
    }
}
"""


def _reduce(mod, name, dtype, n=10000, threads=256):
    x = (np.arange(n) % 97).astype(dtype)
    blocks = (n + threads - 1) // threads
    d_i, d_o = cudaMalloc(x.nbytes), cudaMalloc(blocks * x.itemsize)
    cudaMemcpy(d_i, x, x.nbytes, cudaMemcpyHostToDevice)
    mod.get_function(name)[blocks, threads, threads * x.itemsize](d_i, d_o, np.uint32(n))
    cudaDeviceSynchronize()
    out = np.zeros(blocks, dtype)
    cudaMemcpy(out, d_o, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_i)
    cudaFree(d_o)
    want = np.zeros(blocks * threads, dtype)
    want[:n] = x
    return out, want.reshape(blocks, threads).sum(axis=1)


EXPRS = ["reduce2<int>", "reduce2<float>", "by_method<int, 256>"]


@pytest.mark.parametrize("fibers", [False, True], ids=["block-function", "fibers"])
def test_block_only_templates_take_block_functions(monkeypatch, fibers):
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    if fibers:
        monkeypatch.setenv(_regions.FORCE_ENV, "1")
    mod = SourceModule(BLOCK_ONLY, name_expressions=EXPRS)
    for e in EXPRS:
        path, why = mod.compiled.paths[e]
        if fibers:
            assert path != "block function" and "warp" not in why, (e, path, why)
        else:
            assert (path, why) == ("block function", ""), (e, path, why)
        dtype = np.float32 if "float" in e else np.int32
        out, want = _reduce(mod, e, dtype)
        np.testing.assert_array_equal(out, want, err_msg=e)


@pytest.mark.parametrize("src", [DEPENDENT, TILE], ids=["dependent-sync", "tile"])
def test_open_calls_and_tiles_keep_the_warp_form(src):
    mod = SourceModule(src, name_expressions=["reduce2<int>"])
    path, why = mod.compiled.paths["reduce2<int>"]
    assert path == "fibers" and "warp collectives" in why, (path, why)
    out, want = _reduce(mod, "reduce2<int>", np.int32)
    np.testing.assert_array_equal(out, want)
