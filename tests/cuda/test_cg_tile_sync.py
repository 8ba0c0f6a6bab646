"""thread_block_tile<N>::sync() for tiles of 64 to 1024 threads (CUDA 11.1's
multi-warp tiles, issue 13): a barrier of the tile's threads only.  A tile
that never syncs is not waited for, only one tile of the block may sync, and
a tile's shared-memory exchange between syncs gives the right result; a
thread of a syncing tile that returns instead fails the launch."""
import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// each tile reverses its values through shared memory between two syncs
template <unsigned N>
__global__ void reverse(const int *in, int *out) {
    __shared__ int s[1024];
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    unsigned t = threadIdx.x, base = t / N * N, r = tile.thread_rank();
    s[t] = in[blockIdx.x * blockDim.x + t];
    tile.sync();
    int v = s[base + N - 1 - r];
    tile.sync();
    s[t] = v * 2;
    tile.sync();
    out[blockIdx.x * blockDim.x + t] = s[base + N - 1 - r];
}
// only tile 1 syncs; the other tiles return at once
__global__ void only_one(const int *in, int *out) {
    __shared__ int s[256];
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    unsigned t = threadIdx.x;
    out[t] = -1;
    if (tile.meta_group_rank() != 1) return;
    s[t] = in[t];
    tile.sync();
    out[t] = s[64 + 127 - t];
}
// tile 0 returns in part while the rest of it waits at sync()
__global__ void broken(int *out) {
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    if (threadIdx.x == 40) return;
    tile.sync();
    out[threadIdx.x] = 1;
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC, name_expressions=[f"reverse<{n}>" for n in (64, 128, 256, 512,
                                                                          1024)])


def _io(h_in, n_out):
    d_in, d_out = cudaMalloc(max(h_in.nbytes, 4)), cudaMalloc(n_out * 4)
    cudaMemcpy(d_in, h_in, h_in.nbytes, cudaMemcpyHostToDevice)
    return d_in, d_out


def _read(d, n):
    cudaDeviceSynchronize()
    out = np.empty(n, np.int32)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    return out


@pytest.mark.parametrize("n", [64, 128, 256, 512, 1024])
def test_tile_sync_orders_a_shared_memory_exchange_in_each_tile(mod, n):
    blocks, block = 2, 1024
    h = np.arange(blocks * block, dtype=np.int32)
    d_in, d_out = _io(h, blocks * block)
    mod.get_function(f"reverse<{n}>")[blocks, block](d_in, d_out)
    out = _read(d_out, blocks * block)
    # reversed twice within each tile: the values doubled in place
    np.testing.assert_array_equal(out, h * 2)


def test_only_one_tile_syncs(mod):
    h = np.arange(256, dtype=np.int32) + 7
    d_in, d_out = _io(h, 256)
    mod.only_one[1, 256](d_in, d_out)
    out = _read(d_out, 256)
    want = np.full(256, -1, np.int32)
    want[64:128] = h[64:128][::-1]
    np.testing.assert_array_equal(out, want)


def test_a_thread_that_returns_before_its_tile_sync_fails_the_launch(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE)
a = cudaMalloc(4 * 128)
m.broken[1, 128](a)
R["code"] = code_of(cudaDeviceSynchronize)
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]
""", consts={"SOURCE": SRC}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] != 0, run.R
    assert "tile" in run.R["message"], run.R
