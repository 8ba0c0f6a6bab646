"""<cooperative_groups.h> (issue 13): this_thread_block, tiled_partition
(template and runtime), tile shuffles/votes/match, cg::reduce and the scans
over tiles of 4/8/16/32, coalesced_threads; kernels written as in
cuda-samples (this_thread_block().sync() only) build and run."""
import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemset)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void block_info(unsigned *o) {
  cg::thread_block b = cg::this_thread_block();
  unsigned t = b.thread_rank();
  o[t * 8 + 0] = b.size();
  o[t * 8 + 1] = b.num_threads();
  o[t * 8 + 2] = b.group_index().x;
  o[t * 8 + 3] = b.thread_index().y;
  o[t * 8 + 4] = b.dim_threads().x;
  b.sync();
  cg::thread_group g = cg::tiled_partition(b, 8);
  o[t * 8 + 5] = g.thread_rank();
  o[t * 8 + 6] = g.size();
  g.sync();
  o[t * 8 + 7] = t;
}

template <unsigned N>
__device__ void tile_ops(int *o, const int *in) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(b);
  unsigned t = b.thread_rank(), n = b.size();
  int v = in[t];
  o[0 * n + t] = cg::reduce(tile, v, cg::plus<int>());
  o[1 * n + t] = cg::reduce(tile, v, cg::less<int>());
  o[2 * n + t] = cg::reduce(tile, v, cg::greater<int>());
  o[3 * n + t] = cg::reduce(tile, (unsigned)v, cg::bit_xor<unsigned>());
  o[4 * n + t] = cg::inclusive_scan(tile, v, cg::plus<int>());
  o[5 * n + t] = cg::exclusive_scan(tile, v);
  o[6 * n + t] = tile.shfl(v, 1);
  o[7 * n + t] = tile.shfl_down(v, 1);
  o[8 * n + t] = tile.ballot(v & 1);
  o[9 * n + t] = tile.any(v == 7);
  o[10 * n + t] = tile.all(v >= 0);
  o[11 * n + t] = tile.meta_group_rank();
  o[12 * n + t] = tile.meta_group_size();
  o[13 * n + t] = tile.thread_rank();
  o[14 * n + t] = tile.match_any(v & 3);
  tile.sync();
}
__global__ void tiles4(int *o, const int *in) { tile_ops<4>(o, in); }
__global__ void tiles8(int *o, const int *in) { tile_ops<8>(o, in); }
__global__ void tiles16(int *o, const int *in) { tile_ops<16>(o, in); }
__global__ void tiles32(int *o, const int *in) { tile_ops<32>(o, in); }

__global__ void coalesced(int *o) {
  cg::coalesced_group g = cg::coalesced_threads();
  int first = g.shfl((int)threadIdx.x * 10, 0);
  o[threadIdx.x] = g.size() * 1000 + g.thread_rank() + first * 100000;
}

// cuda-samples style: the include only for this_thread_block().sync()
__global__ void reverse(int *o, const int *in) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int s[256];
  s[threadIdx.x] = in[threadIdx.x];
  cg::sync(cta);
  o[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
"""


def _run(mod, name, nout, ins, grid, block, dtype=np.int32):
    ptrs = []
    for a in ins:
        p = cudaMalloc(a.nbytes)
        cudaMemcpy(p, a, a.nbytes, cudaMemcpyHostToDevice)
        ptrs.append(p)
    out = np.zeros(nout, dtype)
    d = cudaMalloc(out.nbytes)
    cudaMemset(d, 0, out.nbytes)
    mod.get_function(name)[grid, block](d, *ptrs)
    cudaDeviceSynchronize()
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    for p in ptrs + [d]:
        cudaFree(p)
    return out


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC)


def test_this_thread_block_and_runtime_tiled_partition(mod):
    got = _run(mod, "block_info", 8 * 64, [], 3, 64, np.uint32).reshape(64, 8)
    t = np.arange(64)
    assert (got[:, 0] == 64).all() and (got[:, 1] == 64).all() and (got[:, 4] == 64).all()
    assert (got[:, 5] == t % 8).all() and (got[:, 6] == 8).all() and (got[:, 7] == t).all()


@pytest.mark.parametrize("N", [4, 8, 16, 32])
@pytest.mark.parametrize("n", [64, 48])
def test_tile_reduce_scan_shfl_vote_every_size(mod, N, n):
    rng = np.random.default_rng(N * n)
    v = rng.integers(0, 1000, n).astype(np.int32)
    v[2] = 7
    got = _run(mod, f"tiles{N}", 15 * n, [v], 1, n).reshape(15, n)
    for t in range(n):
        base = t // N * N
        tile = v[base:base + N]          # a partial last warp cuts the last tile short
        r = t - base
        assert got[0, t] == tile.sum() and got[1, t] == tile.min() and got[2, t] == tile.max()
        assert got[3].view(np.uint32)[t] == np.bitwise_xor.reduce(tile)
        assert got[4, t] == tile[:r + 1].sum()
        assert got[5, t] == tile[:r].sum()
        assert got[6, t] == (tile[1] if len(tile) > 1 else v[t])
        # a lane past the end of a partial warp gives 0 (as an H100)
        assert got[7, t] == (tile[r + 1] if r + 1 < len(tile) else 0 if r + 1 < N else v[t])
        assert got[8].view(np.uint32)[t] == sum(1 << i for i, x in enumerate(tile) if x & 1)
        assert got[9, t] == int((tile == 7).any()) and got[10, t] == 1
        assert got[11, t] == t // N and got[12, t] == (n + N - 1) // N and got[13, t] == r
        assert got[14].view(np.uint32)[t] == sum(1 << i for i, x in enumerate(tile) if x & 3 == v[t] & 3)


def test_coalesced_threads_is_the_warp_in_converged_code(mod):
    """In converged code (no lane returned yet) the coalesced group is the
    warp; pyemu cannot tell a branch's lanes (see cooperative_groups.h)."""
    got = _run(mod, "coalesced", 40, [], 1, 40)
    assert list(got[:32]) == [32000 + i for i in range(32)]
    assert list(got[32:]) == [8000 + i + 320 * 100000 for i in range(8)]


def test_cuda_samples_style_this_thread_block_sync(mod):
    v = np.arange(256, dtype=np.int32) * 3
    got = _run(mod, "reverse", 256, [v], 1, 256)
    assert np.array_equal(got, v[::-1])


def test_tile_shfl_moves_types_over_8_bytes_as_cuda_does():
    # cuda-samples shfl_scan's integral image shuffles uint4 through a tile
    m = SourceModule(r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct big { int a[5]; };
__global__ void k(int *o) {
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
    int l = t.thread_rank();
    uint4 v = make_uint4(l, l * 2, l * 3, l * 4);
    uint4 x = t.shfl_xor(v, 1);
    uint4 d = t.shfl_down(v, 2);
    big b; for (int i = 0; i < 5; i++) b.a[i] = l * 10 + i;
    big s = t.shfl(b, 7);
    o[l * 12 + 0] = x.x; o[l * 12 + 1] = x.y; o[l * 12 + 2] = x.z; o[l * 12 + 3] = x.w;
    o[l * 12 + 4] = d.x; o[l * 12 + 5] = d.w;
    for (int i = 0; i < 5; i++) o[l * 12 + 6 + i] = s.a[i];
    int up = l;                                        /* and a small one, in a loop */
    for (int i = 1; i < 32; i *= 2) { int n = t.shfl_up(up, i); if (l >= i) up += n; }
    o[l * 12 + 11] = up;
}""")
    o = cudaMalloc(4 * 32 * 12)
    m.k[1, 32](o)
    cudaDeviceSynchronize()
    h = np.empty(32 * 12, np.int32)
    cudaMemcpy(h, o, h.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(o)
    h = h.reshape(32, 12)
    lanes = np.arange(32)
    x = lanes ^ 1
    assert np.array_equal(h[:, 0:4], np.stack([x, 2 * x, 3 * x, 4 * x], 1))
    d = np.where(lanes + 2 < 32, lanes + 2, lanes)     # past the tile: the caller's own
    assert np.array_equal(h[:, 4], d) and np.array_equal(h[:, 5], 4 * d)
    assert (h[:, 6:11] == np.arange(70, 75)).all()
    assert np.array_equal(h[:, 11], np.cumsum(lanes))


MULTI_WARP = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <unsigned N>
__global__ void tile_sums(const int *in, int *sum, int *mx, int *rank) {
    __shared__ cg::block_tile_memory<256> scratch;
    auto cta = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<N>(cta);
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int s = cg::reduce(tile, v, cg::plus<int>());
    int m = cg::reduce(tile, v, cg::greater<int>());
    tile.sync();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    sum[t] = s; mx[t] = m;
    rank[t] = tile.thread_rank() * 100 + tile.meta_group_rank() * 10 + tile.meta_group_size();
}
__global__ void no_scratch(const int *in, int *sum) {
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    sum[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());
}
"""


@pytest.mark.parametrize("n", [64, 128, 256])
def test_multi_warp_tiles_reduce_with_block_tile_memory(n):
    # cuda-samples reduction's multi_warp_cg_reduce (kernel 9) uses these
    m = SourceModule(MULTI_WARP, name_expressions=[f"tile_sums<{n}>"])
    blocks, block = 3, 256
    v = np.random.default_rng(n).integers(-1000, 1000, blocks * block).astype(np.int32)
    bufs = [cudaMalloc(v.nbytes) for _ in range(4)]
    cudaMemcpy(bufs[0], v, v.nbytes, cudaMemcpyHostToDevice)
    m.get_function(f"tile_sums<{n}>")[blocks, block](*bufs)
    cudaDeviceSynchronize()
    got = []
    for b in bufs[1:]:
        h = np.empty_like(v)
        cudaMemcpy(h, b, h.nbytes, cudaMemcpyDeviceToHost)
        got.append(h)
        cudaFree(b)
    cudaFree(bufs[0])
    tiles = v.reshape(-1, n)
    assert np.array_equal(got[0], np.repeat(tiles.sum(axis=1), n))
    assert np.array_equal(got[1], np.repeat(tiles.max(axis=1), n))
    t = np.arange(blocks * block) % block
    assert np.array_equal(got[2], t % n * 100 + t // n * 10 + block // n)


def test_multi_warp_tile_without_block_tile_memory_fails_the_launch(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE)
a = cudaMalloc(4 * 64)
m.no_scratch[1, 64](a, a)
R["code"] = code_of(cudaDeviceSynchronize)
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]
""", consts={"SOURCE": MULTI_WARP}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 710, run.R              # cudaErrorAssert, naming the cause
    assert "block_tile_memory" in run.R["message"]
