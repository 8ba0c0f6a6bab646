"""Cooperative groups decide the path per kernel, not per translation unit.

cuda-samples' reduction has reduce0-3, whose only use of cooperative groups is
the block (cg::this_thread_block(), cg::sync(cta)), in the same file as
reduce4+, which use tiles (cg::tiled_partition<32>, tile32.shfl_down) and
cg::reduce.  A kernel that reaches (itself, or through the functions,
templates, methods and lambdas it calls) a use of cooperative groups beyond the
block's own runs on fibers in the warp form, with that reason
(pyemu.compiler.frontend.parse: cg_reasons, Function.cg); the others take block
functions as __syncthreads() kernels do.  A use outside functions, or in a
destructor (called implicitly: the call graph has no edge to it), still gives
the reason to every kernel of the unit.  Each result is checked against NumPy,
with and without PYEMU_FORCE_FIBERS=1 (the block-function kernels' fiber
variant)."""
import numpy as np

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)

HEAD = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <class T> struct Smem {
    __device__ operator T *() { extern __shared__ int pyemu_s[]; return (T *)pyemu_s; }
};
"""

# reduction_kernel.cu's shapes: a block-only tree reduction (first add while loading,
# as reduce3), one whose last warp reduces through a tile's shuffles (reduce4), one
# whose tile is used by a device function template it calls (cg_reduce's
# cg_reduce_n), one whose block sync is in a device function it calls
UNIT = HEAD + r"""
__device__ void sync_block(cg::thread_block b) { cg::sync(b); }

template <class T> __global__ void block_only(T *in, T *out, unsigned n) {
    cg::thread_block cta = cg::this_thread_block();
    T *s = Smem<T>();
    unsigned tid = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    cg::sync(cta);
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        sync_block(cta);
    }
    if (tid == 0) out[blockIdx.x] = v;
}

template <class T> __global__ void with_tile(T *in, T *out, unsigned n) {
    cg::thread_block cta = cg::this_thread_block();
    T *s = Smem<T>();
    unsigned tid = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    cg::sync(cta);
    for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        cg::sync(cta);
    }
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockDim.x >= 64) v += s[tid + 32];
        for (int o = t.size() / 2; o > 0; o /= 2) v += t.shfl_down(v, o);
    }
    if (cta.thread_rank() == 0) out[blockIdx.x] = v;
}

template <class T, class G> __device__ T group_sum(T v, G &g) {
    return cg::reduce(g, v, cg::plus<T>());
}

template <class T> __global__ void via_template(T *in, T *out, unsigned n) {
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cta);
    T *s = Smem<T>();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = group_sum((i < n) ? in[i] : T(0), t);
    if (t.thread_rank() == 0) s[t.meta_group_rank()] = v;
    cta.sync();
    if (threadIdx.x == 0) {
        T a = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) a += s[w];
        out[blockIdx.x] = a;
    }
}
"""
# the same tile use, in a method of the user's class that a kernel calls
IN_METHOD = HEAD + r"""
struct Warp {
    __device__ int sum(int v) {
        cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
        for (int o = 16; o > 0; o /= 2) v += t.shfl_down(v, o);
        return v;
    }
};
__global__ void by_method(int *in, int *out) {
    int v = Warp().sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
    if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
__global__ void reverse(int *in, int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = in[threadIdx.x];
    cg::this_thread_block().sync();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"""
# a destructor that syncs a tile: called where an object dies (no call in the tree),
# so every kernel of the unit takes the warp form
IN_DESTRUCTOR = HEAD + r"""
struct TileGuard {
    __device__ ~TileGuard() { cg::tiled_partition<32>(cg::this_thread_block()).sync(); }
};
__global__ void guarded(int *in, int *out) {
    TileGuard g;
    out[threadIdx.x] = in[threadIdx.x] + 1;
}
__global__ void reverse(int *in, int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = in[threadIdx.x];
    cg::this_thread_block().sync();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"""

NAMES = {"block_only<int>": "block_only", "block_only<float>": "block_only",
         "with_tile<int>": "with_tile", "via_template<int>": "via_template"}
BEYOND = "cooperative groups beyond the block"


def _paths(src, names=()):
    mod = SourceModule(src, name_expressions=list(names))
    return mod, {n: tuple(mod.compiled.paths[n]) for n in mod.compiled.kernel_names}


def _run(mod, name, x, blocks, threads, smem, nout, *extra):
    d_i, d_o = cudaMalloc(x.nbytes), cudaMalloc(x.itemsize * nout)
    cudaMemcpy(d_i, x, x.nbytes, cudaMemcpyHostToDevice)
    mod.get_function(name)[(blocks,), (threads,), smem](d_i, d_o, *extra)
    cudaDeviceSynchronize()
    out = np.zeros(nout, x.dtype)
    cudaMemcpy(out, d_o, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_i)
    cudaFree(d_o)
    return out


def test_paths_and_reasons_per_kernel():
    _, paths = _paths(UNIT, NAMES)
    assert paths["block_only<int>"] == ("block function", ""), paths
    assert paths["block_only<float>"] == ("block function", ""), paths
    path, why = paths["with_tile<int>"]
    assert path == "fibers" and f"it uses {BEYOND} (cooperative_groups::" in why, why
    path, why = paths["via_template<int>"]
    assert path == "fibers" and BEYOND in why, why


def test_results_on_both_paths(forced):
    mod, paths = _paths(UNIT, NAMES)
    if forced:
        assert paths["block_only<int>"][0] in ("fibers", "fiber variant"), paths
    n, threads = 5000, 128
    for name in NAMES:
        dt = np.float32 if "float" in name else np.int32
        x = (np.arange(n) % 251).astype(dt)
        if name.startswith("via_template"):
            blocks = (n + threads - 1) // threads
            want = np.add.reduceat(np.pad(x, (0, blocks * threads - n)),
                                   np.arange(0, blocks * threads, threads))
        else:
            blocks = (n + 2 * threads - 1) // (2 * threads)
            want = np.add.reduceat(np.pad(x, (0, blocks * 2 * threads - n)),
                                   np.arange(0, blocks * 2 * threads, 2 * threads))
        got = _run(mod, name, x, blocks, threads, threads * x.itemsize, blocks, np.uint32(n))
        np.testing.assert_array_equal(got, want.astype(dt), err_msg=name)


def test_a_method_with_a_tile_keeps_only_its_callers_on_fibers(forced):
    mod, paths = _paths(IN_METHOD)
    path, why = paths["by_method"]
    assert path == "fibers" and f"it calls sum, which uses {BEYOND}" in why, why
    assert (paths["reverse"][0] == "block function") != forced, paths
    x = np.arange(128, dtype=np.int32)
    np.testing.assert_array_equal(_run(mod, "by_method", x, 2, 64, 0, 4),
                                  x.reshape(4, 32).sum(axis=1))
    np.testing.assert_array_equal(_run(mod, "reverse", x[:64], 1, 64, 0, 64), x[:64][::-1])


def test_a_destructor_with_a_tile_keeps_the_whole_unit_on_fibers():
    mod, paths = _paths(IN_DESTRUCTOR)
    for name in ("guarded", "reverse"):
        path, why = paths[name]
        assert path == "fibers" and "the unit uses cooperative groups in ~TileGuard" in why, \
            (name, why)
    x = np.arange(64, dtype=np.int32)
    np.testing.assert_array_equal(_run(mod, "guarded", x, 1, 64, 0, 64), x + 1)
    np.testing.assert_array_equal(_run(mod, "reverse", x, 1, 64, 0, 64), x[::-1])
