"""Issue 13: lane demand (pyemu/compiler/regions/demand.py, gen.py).

A halving shfl_down loop (`for (off = 16; off > 0; off /= 2) v +=
__shfl_down_sync(full, v, off);`) whose result only lane 0 reads afterwards
needs lanes [0, off) of each step: the block function runs lanes 0..15 of
each warp where the offset is at most 16 and blockDim.x is a multiple of 32.
Lanes past that keep values nothing reads, so every output the kernels
write is checked against NumPy (warp.c's semantics, the full loop), on the
block function and on the fibers (PYEMU_FORCE_FIBERS=1), which compute every
lane: the kernels where demand applies (int and float, bit for bit: the same
additions in the same order), and the kernels where it must not (v read by
other lanes afterwards, in a condition, in the else of a lane-0 if, by
`threadIdx.x % 16 == 0` lanes, in a later iteration of an enclosing loop;
offsets that do not halve; a width of 16).  The generated text shows where
the narrowed loop is written."""
import re

import numpy as np
import pytest

from regions_util import paths_module, preprocessed
from test_regions_warp_fast import _launch, shfl_ref
from test_regions_warp_inplace import _input
from pyemu.compiler.regions import blocks as _regions

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__device__ __forceinline__ int wsum(int v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  return v;
}
// demand applies: only lane 0 reads the sums (directly, through a copy, in
// a lane-0 if); the second warp-sum inside a predicated if
__global__ void lane0(int *o, const int *in) {
  __shared__ int part[32];
  unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  if (t < 32 && threadIdx.y == 0) part[t] = 0;
  __syncthreads();
  int v = wsum(in[t + blockDim.x * threadIdx.y]);
  int w = v;
  if (lane == 0) part[warp + 8 * threadIdx.y] = w;
  __syncthreads();
  if (t == 0 && threadIdx.y == 0) {
    int s = 0;
    for (int k = 0; k < 32; ++k) s += part[k];
    o[0] = s;
  }
  if (warp == 0) {
    v = lane < 8 ? part[lane] : 0;
    v = wsum(v);
    if (lane == 0) o[1 + threadIdx.y] = v;
  }
}
// float: the narrowed loop adds in the full loop's order
__global__ void lane0_float(float *o, const float *in) {
  float v = in[threadIdx.x];
  for (unsigned off = 32 / 2; off >= 1; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0) o[threadIdx.x / 32] = v;
}
// OpenCL's lane (the linear id & 31) spelled out, a start above 16
__global__ void lane0_linear(int *o, const int *in) {
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  int v = in[t];
  for (int off = 24; 0 < off; off = off / 2) v += __shfl_down_sync(0xffffffff, v, off);
  if ((t & 31u) == 0) o[t / 32] = v;
}
// demand must not apply: every lane's v is read afterwards
__global__ void all_lanes(int *o, const int *in) {
  unsigned t = threadIdx.x;
  int v = wsum(in[t]);
  o[t] = v;
}
// ... by lanes 0 and 16, by a condition, by the else of a lane-0 if
__global__ void other_reads(int *o, const int *in) {
  unsigned t = threadIdx.x, n = blockDim.x;
  int a = wsum(in[t]);
  int b = wsum(in[t] + 1);
  int c = wsum(in[t] + 2);
  if (t % 16 == 0) o[t] = a;
  if (b > 0) o[n + t] = 1;
  if (t % 32 == 0) o[2 * n + t] = c; else o[2 * n + t] = -c;
}
// ... in the next iteration of an enclosing loop
__global__ void in_a_loop(int *o, const int *in) {
  unsigned t = threadIdx.x;
  int v = in[t];
  for (int r = 0; r < 2; ++r) {
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
    if (t % 32 == 0) o[2 * (t / 32) + r] = v;
  }
}
// offsets that do not halve, a width of 16, (t + 1) % 32
__global__ void shapes(int *o, const int *in) {
  unsigned t = threadIdx.x, n = blockDim.x;
  int a = in[t], b = in[t], c = in[t];
  for (int off = 27; off > 0; off /= 3) a += __shfl_down_sync(0xffffffff, a, off);
  for (int off = 8; off > 0; off /= 2) b += __shfl_down_sync(0xffffffff, b, off, 16);
  for (int off = 16; off > 0; off /= 2) c += __shfl_down_sync(0xffffffff, c, off);
  if (t % 32 == 0) o[t] = a;
  if (t % 16 == 0) o[n + t] = b;
  if ((t + 1) % 32 == 0) o[2 * n + t] = c;
}
"""

mod = paths_module(SRC)
NARROW = "pyemu_rg_k < 16u"


def _down(v, d, w=32):
    return shfl_ref(v, "down", np.full(len(v), d), w)


def _loop(v, offs, w=32):
    for off in offs:
        v = v + _down(v, off, w)
    return v


HALVES = (16, 8, 4, 2, 1)


def test_paths(mod):
    want = "fibers" if mod.force == "1" else "block function"
    names = ("lane0", "lane0_float", "lane0_linear", "all_lanes", "other_reads", "in_a_loop",
             "shapes")
    assert {k: mod.compiled.paths[k][0] for k in names} == {k: want for k in names}


@pytest.mark.parametrize("block", [(256, 1), (64, 1), (96, 1), (48, 1), (32, 4), (64, 2)])
def test_lane0_sums_against_numpy(mod, block):
    n = block[0] * block[1]
    x = _input(n)
    (got,) = _launch(mod, "lane0", [(1 + block[1], np.int32)], [x], block)
    # each warp of each row (warps are linear: a row of 48 ends one in its middle)
    sums = _loop(x.astype(np.int64), HALVES)
    part = np.zeros(32, np.int64)
    t = np.arange(n)
    tx, ty = t % block[0], t // block[0]
    for i in np.flatnonzero(tx % 32 == 0):
        part[tx[i] // 32 + 8 * ty[i]] = sums[i]
    assert got[0] == part.sum(), (got, part)
    # warp 0 of each row: lanes 0..7 read part[lane]; its warp-sum is written by lane 0
    for y in range(block[1]):
        lanes = np.flatnonzero((ty == y) & (tx // 32 == 0))
        vals = np.zeros(n, np.int64)
        vals[lanes] = np.where(tx[lanes] % 32 < 8, part[tx[lanes] % 32], 0)
        mask = np.zeros(n, bool)
        mask[lanes] = True
        # the lanes that take the branch shuffle among themselves (whole warps here)
        res = _loop(np.where(mask, vals, 0), HALVES)
        first = lanes[tx[lanes] % 32 == 0][0]
        assert got[1 + y] == res[first], (y, got, res[first])


@pytest.mark.parametrize("n", [256, 64, 96])
def test_float_sums_bit_for_bit(mod, n):
    x = ((np.arange(n) * 0.37) % 3.1 - 1.2).astype(np.float32)
    (got,) = _launch(mod, "lane0_float", [(n // 32, np.float32)], [x], (n, 1))
    want = _loop(x, HALVES)[::32]
    assert np.array_equal(got.view(np.uint32), want.astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("block", [(256, 1), (32, 2), (96, 1)])
def test_linear_lane_and_a_start_above_16(mod, block):
    n = block[0] * block[1]
    x = _input(n)
    (got,) = _launch(mod, "lane0_linear", [(n // 32, np.int32)], [x], block)
    assert np.array_equal(got, _loop(x, (24, 12, 6, 3, 1))[::32])


@pytest.mark.parametrize("n", [256, 64])
def test_where_other_lanes_read_the_result(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "all_lanes", [(n, np.int32)], [x], (n, 1))
    assert np.array_equal(got, _loop(x, HALVES))
    (got,) = _launch(mod, "other_reads", [(3 * n, np.int32)], [x], (n, 1))
    t = np.arange(n)
    a, b, c = _loop(x, HALVES), _loop(x + 1, HALVES), _loop(x + 2, HALVES)
    want = np.concatenate([np.where(t % 16 == 0, a, 0), (b > 0).astype(np.int32),
                           np.where(t % 32 == 0, c, -c)])
    assert np.array_equal(got, want)
    (got,) = _launch(mod, "in_a_loop", [(2 * n // 32, np.int32)], [x], (n, 1))
    once = _loop(x, HALVES)
    twice = _loop(once, HALVES)
    assert np.array_equal(got.reshape(-1, 2), np.stack([once[::32], twice[::32]], axis=1))


@pytest.mark.parametrize("n", [256, 64])
def test_shapes_it_does_not_take(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "shapes", [(3 * n, np.int32)], [x], (n, 1))
    t = np.arange(n)
    a = _loop(x, (27, 9, 3, 1))
    b = _loop(x, (8, 4, 2, 1), 16)
    c = _loop(x, HALVES)
    want = np.concatenate([np.where(t % 32 == 0, a, 0), np.where(t % 16 == 0, b, 0),
                           np.where((t + 1) % 32 == 0, c, 0)])
    assert np.array_equal(got, want)


def test_the_narrowed_loop_where_demand_applies_and_not_elsewhere():
    pre, root = preprocessed(SRC)
    text = _regions.generate(pre, "__pyemu_global__", root, implicit=True, warp=True).text
    names = ["lane0", "lane0_float", "lane0_linear", "all_lanes", "other_reads", "in_a_loop",
             "shapes"]
    at = [text.index(f"pyemu_rg_{k} (") for k in names] + [len(text)]
    body = {k: text[at[i]:at[i + 1]] for i, k in enumerate(names)}
    # both warp-sums of lane0 (the second inside the predicated if), the others once
    assert body["lane0"].count(NARROW) == 2
    assert body["lane0_float"].count(NARROW) == 1
    assert body["lane0_linear"].count(NARROW) == 1
    for k in ("all_lanes", "other_reads", "in_a_loop", "shapes"):
        assert NARROW not in body[k], k
    # where blockDim.x is a multiple of 32 and the offset at most 16
    assert re.search(r"if \(pyemu_rg_bdx % 32u == 0u && pyemu_il\d+_off <= 16", body["lane0"])
