"""Issue 13: warp-shuffle code at loop speed in block functions
(pyemu/compiler/regions/gen.py, ranges.py, abi.h's pyemu_warp_pred_*).

* A predicated if (a shuffle inside, a condition that is not uniform) runs
  its branches' thread loops over the range of linear indices that holds
  their threads, without the flag tests where every thread of the range
  takes the branch (`if (warp == 0)`, `if (t < 32)`), and without the fast
  form's arrival marks where every warp takes it whole or not at all.
  Conditions that are no range (`warp & 1`, data, nested ifs, an else
  branch) must give the same threads.
* `if (lane == u)` (lane = x % C or x & (C - 1)) runs every C-th thread of a
  row (ranges.py), after the statements before it in a loop of their own
  where they only touch the thread's own variables (gen.fission); other
  forms keep the `if`, a region that writes shared memory before it keeps
  one loop.

Each kernel runs as a block function and on the fibers
(PYEMU_FORCE_FIBERS=1), both checked against NumPy."""
import re
from pathlib import Path

import numpy as np
import pytest

from regions_util import paths_module, preprocessed
from test_regions_warp_fast import _launch, shfl_ref
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import SourceModule

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
// predicates that are ranges of the linear index around shuffles
__global__ void ranges(int *o, const int *in) {
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
  unsigned warp = t / 32;
  int v = in[t], a = -1, b = -1, c = -1, d = -1;
  if (warp == 0) a = v + __shfl_down_sync(0xffffffff, v, 1);
  if (t < 32) b = __shfl_xor_sync(0xffffffff, v, 3);
  if (t >= 32) c = __shfl_up_sync(0xffffffff, v, 2); else c = v * 5;
  if (warp == 1) {
    d = v;
    for (int off = 16; off > 0; off /= 2) d += __shfl_down_sync(0xffffffff, d, off);
  }
  o[t] = a; o[n + t] = b; o[2 * n + t] = c; o[3 * n + t] = d;
}
// predicates that are not one range: warps 1 and 3, a value per warp from
// memory, nested ifs, an else branch without shuffles
__global__ void general(int *o, const int *in) {
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
  unsigned warp = t / 32;
  int v = in[t], a = -1, b = -1, c = -1;
  if (warp & 1) a = __shfl_down_sync(0xffffffff, v, 4);
  if (in[n + warp] > 0) b = __shfl_xor_sync(0xffffffff, v, 1);
  if (warp != 1) {
    if (t >= 64) c = __shfl_up_sync(0xffffffff, v, 1);
    else c = v * 2;
  }
  o[t] = a; o[n + t] = b; o[2 * n + t] = c;
}
// if (lane == u) over every C-th thread; forms that keep the if
__global__ void strided(int *o, const int *in, int u) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
  unsigned lane = threadIdx.x % 32, tl = t % 32;
  int v = in[t], w = v * 3;
  s[t] = v;
  __syncthreads();
  w += 1;
  if (lane == 0) o[t] = w;
  __syncthreads();
  if ((threadIdx.x & 7) == u) o[n + t] = s[t] + 1;
  __syncthreads();
  if (u == threadIdx.x % 4) o[2 * n + t] = 5;
  __syncthreads();
  if ((blockIdx.x * blockDim.x + threadIdx.x) % 16 == 3 && threadIdx.x < 40) o[3 * n + t] = 6;
  __syncthreads();
  if (tl == 5) o[4 * n + t] = 9;
  __syncthreads();
  if ((2 * threadIdx.x) % 32 == 0) o[5 * n + t] = 7;
  __syncthreads();
  if (threadIdx.x % 32 != 0) o[6 * n + t] = 8;
}
// S writes shared memory before `if (lane == 0)`: one loop, as the fibers run it
__global__ void racy(int *o, const int *in) {
  __shared__ int s[1025];
  unsigned t = threadIdx.x;
  s[t] = -1;
  s[t + 1] = -1;
  __syncthreads();
  s[t] = in[t];
  if (t % 32 == 0) o[t] = s[t + 1];
}
// S assigns a variable of a class type (an operator of the user's): one loop
struct Tally { int n; __device__ Tally &operator+=(int x) { n += x; return *this; } };
__global__ void classy(int *o, const int *in) {
  unsigned t = threadIdx.x, lane = t % 32;
  Tally c = {in[t]};
  __syncthreads();
  c += 2;
  if (lane == 0) o[t] = c.n;
}
"""

KERNELS = {"ranges", "general", "strided", "racy", "classy"}
BLOCKS = [(64, 1), (96, 1), (48, 1), (16, 6), (32, 4)]
IDS = ["64", "96", "48", "16x6", "32x4"]


mod = paths_module(SRC)


def test_paths(mod):
    want = ("fibers", "fiber variant") if mod.force == "1" else ("block function",)
    assert {k for k in KERNELS if mod.compiled.paths[k][0] in want} == KERNELS, mod.compiled.paths


@pytest.mark.parametrize("block", BLOCKS, ids=IDS)
def test_range_predicates_against_numpy(mod, block):
    n = block[0] * block[1]
    v = (np.arange(n, dtype=np.int32) * 29 + 5) % 200 - 80
    (got,) = _launch(mod, "ranges", [(4 * n, np.int32)], [v], block)
    got = got.reshape(4, n)
    t = np.arange(n)
    full = lambda op, a: shfl_ref(v, op, np.full(n, a), 32)   # noqa: E731
    assert np.array_equal(got[0], np.where(t < 32, v + full("down", 1), -1))
    assert np.array_equal(got[1], np.where(t < 32, full("xor", 3), -1))
    assert np.array_equal(got[2], np.where(t >= 32, full("up", 2), v * 5))
    d = v.copy()
    for off in (16, 8, 4, 2, 1):
        d = d + shfl_ref(d, "down", np.full(n, off), 32)
    assert np.array_equal(got[3], np.where(t // 32 == 1, d, -1))


@pytest.mark.parametrize("block", BLOCKS, ids=IDS)
def test_predicates_that_are_no_range_against_numpy(mod, block):
    n = block[0] * block[1]
    warps = (n + 31) // 32
    v = (np.arange(n, dtype=np.int32) * 13 + 1) % 90 - 40
    per_warp = np.array([1, -1, 0, 5][:warps] + [2] * max(0, warps - 4), np.int32)
    (got,) = _launch(mod, "general", [(3 * n, np.int32)], [np.concatenate([v, per_warp])], block)
    got = got.reshape(3, n)
    w = np.arange(n) // 32
    t = np.arange(n)
    full = lambda op, a: shfl_ref(v, op, np.full(n, a), 32)   # noqa: E731
    assert np.array_equal(got[0], np.where(w & 1 == 1, full("down", 4), -1))
    assert np.array_equal(got[1], np.where(per_warp[w] > 0, full("xor", 1), -1))
    assert np.array_equal(got[2], np.where(w == 1, -1, np.where(t >= 64, full("up", 1), v * 2)))


@pytest.mark.parametrize("u", [0, 3, 9, -1])
@pytest.mark.parametrize("block", BLOCKS, ids=IDS)
def test_lane_equal_runs_every_cth_thread_against_numpy(mod, block, u):
    n = block[0] * block[1]
    v = np.arange(n, dtype=np.int32) * 7 - 100
    (got,) = _launch(mod, "strided", [(7 * n, np.int32)], [v], block, extra=(np.int32(u),))
    got = got.reshape(7, n)
    tx = np.arange(n) % block[0]          # one block: blockIdx.x is 0
    t = np.arange(n)
    assert np.array_equal(got[0], np.where(tx % 32 == 0, v * 3 + 1, 0))
    assert np.array_equal(got[1], np.where((tx & 7) == u, v + 1, 0))
    assert np.array_equal(got[2], np.where(tx % 4 == np.uint32(u & 0xFFFFFFFF), 5, 0))
    assert np.array_equal(got[3], np.where((tx % 16 == 3) & (tx < 40), 6, 0))
    assert np.array_equal(got[4], np.where(t % 32 == 5, 9, 0))
    assert np.array_equal(got[5], np.where((2 * tx) % 32 == 0, 7, 0))
    assert np.array_equal(got[6], np.where(tx % 32 != 0, 8, 0))


def test_a_region_writing_shared_memory_keeps_one_loop(mod):
    n = 64
    v = np.arange(n, dtype=np.int32) + 10
    (got,) = _launch(mod, "racy", [(n, np.int32)], [v], n)
    # threads in index order between barriers: lane 0 reads s[t + 1] before
    # thread t + 1 writes it
    assert np.array_equal(got, np.where(np.arange(n) % 32 == 0, -1, 0))


def test_a_region_assigning_a_class_keeps_one_loop(mod):
    n = 96
    v = np.arange(n, dtype=np.int32) * 5
    (got,) = _launch(mod, "classy", [(n, np.int32)], [v], n)
    assert np.array_equal(got, np.where(np.arange(n) % 32 == 0, v + 2, 0))


def test_the_forms_are_used_where_they_apply():
    pre, root = preprocessed(SRC)
    text = _regions.generate(pre, "__pyemu_global__", root, implicit=True, warp=True).text
    body = text[text.index("pyemu_rg_strided"):text.index("pyemu_rg_racy")]
    for c in (32, 8, 4, 16):            # lane == 0, & 7, % 4, % 16 with a range, t % 32
        assert f"pyemu_rg_tx += {c}u" in body, c
    assert body.count("pyemu_rg_tx += 32u") == 2                 # lane and tl; not 2 * x, !=
    racy = text[text.index("pyemu_rg_racy"):]
    assert "pyemu_rg_racy" in text and "pyemu_rg_classy" in text
    assert "pyemu_rg_tx += 32u" not in racy          # racy and classy
    ranges = text[text.index("pyemu_rg_ranges"):text.index("pyemu_rg_general")]
    # each branch over its span; the marks and their check only where a warp
    # is taken in part (not here: every cut's check is conditional)
    assert "pyemu_warp_pred_span" in ranges and "pyemu_warp_pred_dense" in ranges
    cuts = re.findall(r"(.{24})pyemu_warp_block_done\(0u\)", ranges)
    assert cuts and all(re.search(r"if \(!\(pyemu_rg_pr\d+u\)\) $", c) for c in cuts), cuts


REDUCE = Path(__file__).resolve().parents[2] / "pyemu" / "tools" / "bench_kernels" / "reduce_shfl.cu"


@pytest.mark.parametrize("bs,n", [(256, 256 * 37 + 11), (64, 64 * 5), (96, 1000)])
def test_the_bench_shuffle_reduction_against_numpy(monkeypatch, bs, n):
    from pyemu.cuda import (cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost,
                            cudaMemcpyHostToDevice, cudaMemset, cudaDeviceSynchronize)
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    m = SourceModule(REDUCE.read_text(), options=[f"-Dblocksize={bs}"])
    assert m.compiled.paths["shfl_reduce"][0] == "block function"
    x = ((np.arange(n, dtype=np.int64) * 2654435761) % 2001 - 1000).astype(np.int32)
    d_x, d_t = cudaMalloc(x.nbytes), cudaMalloc(4)
    cudaMemcpy(d_x, x, x.nbytes, cudaMemcpyHostToDevice)
    cudaMemset(d_t, 0, 4)
    m.get_function("shfl_reduce")[(n + bs - 1) // bs, bs](d_x, np.uint32(n), d_t)
    cudaDeviceSynchronize()
    out = np.zeros(1, np.int32)
    cudaMemcpy(out, d_t, 4, cudaMemcpyDeviceToHost)
    cudaFree(d_x)
    cudaFree(d_t)
    assert int(out[0]) == int(x.astype(np.int64).sum())
