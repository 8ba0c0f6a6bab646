"""Kernels that use cooperative groups only for the block (cg::this_thread_block(),
cg::sync(cta), cta.sync(), cta.thread_rank()): the way most cuda-samples use
<cooperative_groups.h> (histogram, scalarProd, sortingNetworks, fastWalshTransform,
transpose).  Their barriers are __syncthreads(), so they take block functions as
__syncthreads() kernels do (the front end writes the sync as the barrier); a unit that
uses anything else of cooperative groups (tiles, coalesced groups, the grid) or a call
clang leaves open (a template's dependent g.sync()) keeps the fibers' warp form.  Every
case is checked against NumPy, and the block-function kernels also against the fiber
path (PYEMU_FORCE_FIBERS=1); templates: test_cg_template_block.py."""
import numpy as np
import pytest

from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)
from pyemu.tools.info import kernel_paths

HEAD = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define TILE 32
#define ROWS 8
"""

# transpose.cu's transposeCoalesced, and the same with each spelling of the block's sync
BLOCK_ONLY = HEAD + r"""
__global__ void by_function(float *odata, const float *idata, int width, int height) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[x + (y + i) * width];
    cg::sync(cta);
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) odata[x + (y + i) * height] = tile[threadIdx.x][threadIdx.y + i];
}
__global__ void by_method(float *odata, const float *idata, int width, int height) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[x + (y + i) * width];
    cta.sync();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) odata[x + (y + i) * height] = tile[threadIdx.x][threadIdx.y + i];
}
__global__ void by_temporary(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[x + (y + i) * width];
    cg::this_thread_block().sync();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) odata[x + (y + i) * height] = tile[threadIdx.x][threadIdx.y + i];
}
__global__ void by_static(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[x + (y + i) * width];
    cooperative_groups::thread_block::sync();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS) odata[x + (y + i) * height] = tile[threadIdx.x][threadIdx.y + i];
}
"""
NAMES = ["by_function", "by_method", "by_temporary", "by_static"]

# the block's sync inside a device function (the regions pass inlines it), and the
# tree reduction of scalarProd's kernel with cta.thread_rank()
IN_FUNCTION = HEAD + r"""
__device__ void stage(cg::thread_block b, float *s, const float *in) {
    s[b.thread_rank()] = in[blockIdx.x * blockDim.x + b.thread_rank()];
    b.sync();
}
__global__ void block_sum(float *out, const float *in) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float s[256];
    stage(cta, s, in);
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (cta.thread_rank() < stride) s[cta.thread_rank()] += s[cta.thread_rank() + stride];
        cg::sync(cta);
    }
    if (cta.thread_rank() == 0) out[blockIdx.x] = s[0];
}
"""

# kernels that keep the warp form: one with a tile's collective (the block-only kernels
# next to it keep their block functions: the rule is per kernel); one calling a template
# whose sync clang leaves unresolved (g.sync() on a template parameter)
WITH_TILE = BLOCK_ONLY + r"""
__global__ void tile_sum(int *out, const int *in) {
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cta);
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += t.shfl_down(v, o);
    if (t.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
"""
IN_TEMPLATE = HEAD + r"""
template <class G> __device__ void stage(G g, float *s, const float *in) {
    s[g.thread_rank()] = in[blockIdx.x * blockDim.x + g.thread_rank()];
    g.sync();
}
__global__ void block_sum(float *out, const float *in) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float s[256];
    stage(cta, s, in);
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (cta.thread_rank() < stride) s[cta.thread_rank()] += s[cta.thread_rank() + stride];
        cg::sync(cta);
    }
    if (cta.thread_rank() == 0) out[blockIdx.x] = s[0];
}
"""


def _transpose(mod, name, n=128):
    a = np.arange(n * n, dtype=np.float32) * 0.5
    d_i, d_o = cudaMalloc(a.nbytes), cudaMalloc(a.nbytes)
    cudaMemcpy(d_i, a, a.nbytes, cudaMemcpyHostToDevice)
    mod.get_function(name)[(n // 32, n // 32), (32, 8)](d_o, d_i, np.int32(n), np.int32(n))
    cudaDeviceSynchronize()
    out = np.zeros_like(a)
    cudaMemcpy(out, d_o, a.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_i)
    cudaFree(d_o)
    return out, a.reshape(n, n).T.ravel()


def _block_sum(mod, blocks=8):
    x = (np.arange(256 * blocks) % 97).astype(np.float32)
    d_i, d_o = cudaMalloc(x.nbytes), cudaMalloc(4 * blocks)
    cudaMemcpy(d_i, x, x.nbytes, cudaMemcpyHostToDevice)
    mod.get_function("block_sum")[(blocks,), (256,)](d_o, d_i)
    cudaDeviceSynchronize()
    out = np.zeros(blocks, np.float32)
    cudaMemcpy(out, d_o, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_i)
    cudaFree(d_o)
    return out, x.reshape(blocks, 256).sum(axis=1)


def test_block_only_cooperative_groups_take_block_functions():
    paths = kernel_paths(BLOCK_ONLY, "cuda")
    assert {n: paths[n][0] for n in NAMES} == {n: "block function" for n in NAMES}, paths
    mod = SourceModule(BLOCK_ONLY)
    for name in NAMES:
        out, want = _transpose(mod, name)
        np.testing.assert_array_equal(out, want, err_msg=name)


def test_block_only_kernels_agree_with_fibers(monkeypatch):
    monkeypatch.setenv(_regions.FORCE_ENV, "1")
    assert kernel_paths(BLOCK_ONLY, "cuda")["by_method"][0] != "block function"
    mod = SourceModule(BLOCK_ONLY)
    for name in NAMES:
        out, want = _transpose(mod, name)
        np.testing.assert_array_equal(out, want, err_msg=name)


def test_block_sync_in_device_function():
    path = kernel_paths(IN_FUNCTION, "cuda")["block_sum"][0]
    assert path in ("block function", "fiber variant"), path
    out, want = _block_sum(SourceModule(IN_FUNCTION))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("src", [WITH_TILE, IN_TEMPLATE], ids=["with-tile", "in-template"])
def test_other_cooperative_groups_keep_the_warp_form(src):
    paths = kernel_paths(src, "cuda")
    name = "tile_sum" if src is WITH_TILE else "block_sum"
    assert paths[name][0] == "fibers", paths
    assert "warp collectives" in paths[name][1], paths
    if src is WITH_TILE:
        assert {n: paths[n][0] for n in NAMES} == {n: "block function" for n in NAMES}, paths
        name = "by_method"
    mod = SourceModule(src)
    if src is WITH_TILE:
        out, want = _transpose(mod, name)
        np.testing.assert_array_equal(out, want)
        x = np.arange(256, dtype=np.int32)
        d_i, d_o = cudaMalloc(x.nbytes), cudaMalloc(32)
        cudaMemcpy(d_i, x, x.nbytes, cudaMemcpyHostToDevice)
        mod.get_function("tile_sum")[(2,), (128,)](d_o, d_i)
        cudaDeviceSynchronize()
        got = np.zeros(8, np.int32)
        cudaMemcpy(got, d_o, got.nbytes, cudaMemcpyDeviceToHost)
        np.testing.assert_array_equal(got, x.reshape(8, 32).sum(axis=1))
    else:
        out, want = _block_sum(mod)
        np.testing.assert_array_equal(out, want)


# the block's sync in a lambda and in a method of the user's class: what reaches the
# barrier there keeps the unit's kernels off block functions, as for __syncthreads()
OUTSIDE = HEAD + r"""
struct Stage {
    cg::thread_block b;
    __device__ void run(int *s, const int *in) { s[threadIdx.x] = in[threadIdx.x]; b.sync(); }
};
__global__ void in_lambda(int *out, const int *in) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ int s[64];
    auto load = [&]() { s[threadIdx.x] = in[threadIdx.x]; cta.sync(); };
    load();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
__global__ void in_method(int *out, const int *in) {
    __shared__ int s[64];
    Stage st{cg::this_thread_block()};
    st.run(s, in);
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"""


@pytest.mark.parametrize("name", ["in_lambda", "in_method"])
def test_block_sync_in_lambda_or_method(name):
    path, why = kernel_paths(OUTSIDE, "cuda")[name]
    assert path != "block function" and "reaches __syncthreads()" in why, (path, why)
    x = np.arange(64, dtype=np.int32)
    d_i, d_o = cudaMalloc(x.nbytes), cudaMalloc(x.nbytes)
    cudaMemcpy(d_i, x, x.nbytes, cudaMemcpyHostToDevice)
    SourceModule(OUTSIDE).get_function(name)[(1,), (64,)](d_o, d_i)
    cudaDeviceSynchronize()
    out = np.zeros_like(x)
    cudaMemcpy(out, d_o, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_i)
    cudaFree(d_o)
    np.testing.assert_array_equal(out, x[::-1])
