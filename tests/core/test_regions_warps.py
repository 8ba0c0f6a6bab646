"""Issue 13: warp collectives in block functions (pyemu/compiler/regions/warpcut.py,
csrc/warp_block.c).

A collective statement in straight code, a uniform loop, an inlined device
function (void, or returning a value by one final `return e;`), a template,
or one branch of an `if` with a per-thread condition (predicated) is cut:
the kernel gets a block function.  Each case is checked against NumPy, the
path each kernel takes is asserted through the recorded paths, and every
case runs again under PYEMU_FORCE_FIBERS=1 (the fibers, csrc/warp.c) with the
same results; a lane named in a mask that returns before the collective
fails the launch with the same message on both paths."""
import numpy as np
import pytest

from regions_util import fails_alike, paths_module

from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemset)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__device__ int warp_sum(int v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__device__ void xor_all(int *v, int w) {
  for (int o = w / 2; o > 0; o >>= 1) *v += __shfl_xor_sync(0xffffffff, *v, o, w);
}
// reduce_shfl's shape: a warp sum, a barrier, warp 0 sums the partials (predicated)
__global__ void block_sum(int *out, const int *in, int n) {
  __shared__ int part[32];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  unsigned lane = t % 32, warp = t / 32;
  int v = warp_sum(i < n ? in[i] : 0);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? part[lane] : 0;
    v = warp_sum(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
// shuffles in uniform loops and straight code, widths from a parameter
__global__ void shuffles(int *out, const int *in, int w) {
  int t = threadIdx.x, n = blockDim.x;
  int v = in[t];
  int s = v;
  for (int d = 1; d < w; d *= 2) {            // inclusive scan within segments of w
    int y = __shfl_up_sync(0xffffffff, s, d, w);
    if ((t % w) >= d) s += y;
  }
  out[t] = s;
  int x = v;
  xor_all(&x, w);                             // butterfly: every lane gets its segment's sum
  out[n + t] = x;
  out[2 * n + t] = __shfl_sync(0xffffffff, v, 3, w);
  int dn = __shfl_down_sync(0xffffffff, v, 1, w);
  out[3 * n + t] = dn;
}
__global__ void votes(unsigned *out, const int *in) {
  int t = threadIdx.x, n = blockDim.x;
  int p = in[t];
  out[t] = __ballot_sync(0xffffffff, p & 1);
  out[n + t] = __any_sync(0xffffffff, p == 7);
  out[2 * n + t] = __all_sync(0xffffffff, p >= 0);
  unsigned s = __reduce_add_sync(0xffffffff, (unsigned)p);
  out[3 * n + t] = s;
  __syncwarp();
  out[4 * n + t] = __match_any_sync(0xffffffff, p % 3);
}
template <int W>
__global__ void seg_max(int *out, const int *in) {
  int v = in[threadIdx.x];
  for (int o = W / 2; o > 0; o /= 2) {
    int y = __shfl_xor_sync(0xffffffff, v, o, W);
    v = v > y ? v : y;
  }
  out[threadIdx.x] = v;
}
// no collective: a block function as in a unit without collectives
__global__ void mirror(int *out) {
  __shared__ int s[1024];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
// a collective inside an expression with a call: not cut (fibers)
__global__ void in_call(int *out, const int *in) {
  out[threadIdx.x] = __shfl_xor_sync(0xffffffff, in[threadIdx.x] * 2, 1) + abs(in[0]);
  out[threadIdx.x] += __shfl_sync(0xffffffff, __shfl_sync(0xffffffff, 1, 0), 0);
}
"""

BLOCKED = {"block_sum", "shuffles", "votes", "seg_max<8>", "mirror"}


mod = paths_module(SRC, name_expressions=["seg_max<8>"])


def _run(mod, name, nout, ins, grid, block, dtype=np.int32, extra=()):
    k = mod.get_function(name)
    ptrs = []
    for a in ins:
        p = cudaMalloc(a.nbytes)
        cudaMemcpy(p, a, a.nbytes, cudaMemcpyHostToDevice)
        ptrs.append(p)
    out = np.zeros(nout, dtype)
    d_out = cudaMalloc(out.nbytes)
    cudaMemset(d_out, 0, out.nbytes)
    k[grid, block](d_out, *ptrs, *extra)
    cudaDeviceSynchronize()
    cudaMemcpy(out, d_out, out.nbytes, cudaMemcpyDeviceToHost)
    for p in ptrs + [d_out]:
        cudaFree(p)
    return out


def test_paths_block_function_for_cut_collectives_fibers_for_the_rest(mod):
    paths = mod.compiled.paths
    if mod.force == "1":
        assert set(mod.compiled.block_kernels) <= {"mirror"}
        assert all(paths[k][0] == "fibers" for k in BLOCKED - {"mirror"}), paths
        return
    assert set(mod.compiled.block_kernels) == BLOCKED, paths
    assert paths["in_call"][0] == "fibers" and "cannot" in paths["in_call"][1] or \
        "collectives" in paths["in_call"][1], paths["in_call"]


@pytest.mark.parametrize("block", [256, 48, 32, 1024])
def test_block_sum_shfl_down_inlined_and_predicated_if_warp_0(mod, block):
    n = 5000
    v = np.random.default_rng(block).integers(-1000, 1000, n).astype(np.int32)
    grid = (n + block - 1) // block
    got = _run(mod, "block_sum", grid, [v], grid, block, extra=(np.int32(n),))
    assert np.array_equal(got, [v[b * block:(b + 1) * block].sum() for b in range(grid)])


def _segments(v, w, f):
    return np.concatenate([f(v[i:i + w]) for i in range(0, len(v), w)])


@pytest.mark.parametrize("w", [32, 16, 8])
@pytest.mark.parametrize("block", [64, 48])
def test_shuffles_up_xor_idx_down_with_width(mod, w, block):
    v = np.random.default_rng(w + block).integers(0, 100, block).astype(np.int32)
    got = _run(mod, "shuffles", 4 * block, [v], 1, block, extra=(np.int32(w),)).reshape(4, block)
    assert np.array_equal(got[0], _segments(v, w, np.cumsum))
    # a segment cut short by a partial warp: the missing lanes give 0 (warp.c's pick)
    assert np.array_equal(got[1], _segments(v, w, lambda s: np.full(len(s), s.sum())))
    lanes = np.arange(block)
    src = (lanes & ~(w - 1)) | 3
    assert np.array_equal(got[2], np.where(src < block, v[np.minimum(src, block - 1)], 0))
    down = lanes + 1
    keep = (down % w == 0)
    assert np.array_equal(got[3], np.where(keep, v, np.where(down < block, v[np.minimum(down, block - 1)], 0)))


@pytest.mark.parametrize("block", [64, 48])
def test_votes_ballot_any_all_reduce_add_match_any(mod, block):
    v = np.random.default_rng(block).integers(0, 10, block).astype(np.int32)
    v[5] = 7
    got = _run(mod, "votes", 5 * block, [v], 1, block, np.uint32).reshape(5, block)
    for w0 in range(0, block, 32):
        seg = v[w0:w0 + 32]
        sl = slice(w0, w0 + len(seg))
        bal = sum(1 << i for i, x in enumerate(seg) if x & 1)
        assert (got[0, sl] == bal).all()
        assert (got[1, sl] == int((seg == 7).any())).all()
        assert (got[2, sl] == 1).all()
        assert (got[3, sl] == seg.sum()).all()
        for i, x in enumerate(seg):
            assert got[4, w0 + i] == sum(1 << j for j, y in enumerate(seg) if y % 3 == x % 3)


def test_template_kernel_segment_max_width_8(mod):
    v = np.random.default_rng(8).integers(-50, 50, 64).astype(np.int32)
    got = _run(mod, "seg_max<8>", 64, [v], 1, 64)
    assert np.array_equal(got, _segments(v, 8, lambda s: np.full(len(s), s.max())))


def test_kernel_without_collectives_in_the_unit_keeps_its_block_function(mod):
    got = _run(mod, "mirror", 96, [], 1, 96)
    assert np.array_equal(got, 95 - np.arange(96))


def test_collective_in_an_expression_with_a_call_runs_on_fibers_right(mod):
    v = np.arange(64, dtype=np.int32) - 3
    got = _run(mod, "in_call", 64, [v], 1, 64)
    assert np.array_equal(got, 2 * v[np.arange(64) ^ 1] + 3 + 1)


FAULTS = r"""
__global__ void early_return(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x == 5) return;
  for (int d = 1; d < 32; d *= 2) v += __shfl_down_sync(0xffffffff, v, d);
  o[threadIdx.x] = v;
}
__global__ void first_returns(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x % 32 == 0) return;
  o[threadIdx.x] = __reduce_add_sync(0xffffffff, v);
}
__global__ void predicated(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x < 40) v = __shfl_xor_sync(0xffffffff, v, 1);
  o[threadIdx.x] = v;
}
__global__ void mixed_masks(int *o) {
  unsigned m = threadIdx.x < 3 ? 0xffffffffu : 0x7fffffffu;
  o[threadIdx.x] = __ballot_sync(m, 1);
}
"""

FAULT_SCRIPT = r"""
m = SourceModule(SOURCE)
R["path"] = m.compiled.paths[NAME][0]
o = cudaMalloc(4 * 64)
m.get_function(NAME)[1, 64](o)
R["code"] = code_of(cudaDeviceSynchronize)
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]
"""


@pytest.mark.parametrize("name,words", [
    ("early_return", ["warp 0: lane 5 returns without reaching it", "thread (5,0,0)"]),
    ("first_returns", ["is reached by lane(s) 1, but lane(s) 0 returned", "thread (1,0,0)"]),
    ("predicated", ["warp 1", "lane 8 returns without reaching it", "__shfl_xor_sync"]),
    ("mixed_masks", ["lane(s) 3 reaches it with mask 0x7fffffff instead"]),
])
def test_mask_naming_a_lane_that_does_not_arrive_fails_alike_on_both_paths(run_cuda, tmp_path,
                                                                          name, words):
    fails_alike(run_cuda, tmp_path, FAULT_SCRIPT, FAULTS, name, words)


HIDDEN = r"""
struct W {
  __device__ int sum(int v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
  }
};
__global__ void k(int *out, const int *in) {
  __shared__ int s[64];
  W w;
  s[threadIdx.x] = w.sum(in[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}"""

TILES = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *out, const int *in) {
  __shared__ int s[64];
  auto t = cg::tiled_partition<32>(cg::this_thread_block());
  s[threadIdx.x] = in[threadIdx.x] + t.shfl_down(in[threadIdx.x], 1);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}"""


@pytest.mark.parametrize("src", [HIDDEN, TILES], ids=["method", "cooperative_groups"])
def test_collectives_the_cuts_cannot_see_keep_the_unit_on_fibers(src, monkeypatch):
    """A class method or a cooperative-groups tile calls a collective the
    pass does not see in the kernel: its kernels run on fibers, right."""
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    m = SourceModule(src)
    assert m.compiled.block_kernels == () and m.compiled.paths["k"][0] == "fibers"
    v = np.arange(64, dtype=np.int32) * 5
    got = _run(m, "k", 64, [v], 1, 64)
    lanes = np.arange(64)
    if src is HIDDEN:
        assert got[0] == v[:32].sum() and got[32] == v[32:].sum()
    else:
        want = v + np.where(lanes % 32 != 31, v[np.minimum(lanes + 1, 63)], v)
        assert np.array_equal(got, want)


TEMPLATE_HELPER = r"""
template <class T> __device__ T tsum(T v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__device__ int via(int v) { return tsum<int>(v); }
__global__ void k(int *out, const int *in) {
  __shared__ int s[64];
  s[threadIdx.x] = via(in[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}"""


def test_function_template_with_collectives_called_through_a_function_runs_on_fibers(
        monkeypatch):
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    m = SourceModule(TEMPLATE_HELPER)
    assert m.compiled.paths["k"][0] == "fibers" and "template" in m.compiled.paths["k"][1]
    v = np.arange(64, dtype=np.int32)
    got = _run(m, "k", 64, [v], 1, 64)
    assert got[0] == v[:32].sum() and got[32] == v[32:].sum()
