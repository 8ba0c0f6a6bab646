"""Issue 13: the in-place form of `v op= __shfl_down_sync(full, v, d[, W])`
under a per-thread `if` (pyemu/compiler/regions/warpcut.py, gen.py).

In a kernel with no early exit, a site under a branch takes the in-place
form where the block function finds at run time that every warp takes the
branch whole or not at all (the branch's flags agree within each warp:
pyemu_warp_pred_whole; a partial last warp counts by its lanes that are
there); elsewhere its lanes record their values and mark their arrival, and
the cut checks the marks, failing as the general form does.  Checked
against NumPy (warp.c's semantics) and the fibers (PYEMU_FORCE_FIBERS=1):
`if (warp == 0)`, `if (tid < 32)`, `if (tid >= 64 && tid < 128)`, an else
branch, a range that is not whole warps (the launch fails alike on both
paths), a 48-thread block, a mask naming the lanes that branch (the
general form); and the form's text is taken or not taken."""
import numpy as np
import pytest

from regions_util import fails_alike, paths_module


from test_regions_warp_fast import _cut_text, shfl_ref
from test_regions_warp_inplace import _input, _launch
from test_regions_warps import FAULT_SCRIPT

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__device__ __forceinline__ int wsum(int v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  return v;
}
// reduce_shfl.cu's two stages
__global__ void two_stage(int *o, const int *in) {
  __shared__ int part[32];
  unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  int v = wsum(in[t]);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? part[lane] : 0;
    v = wsum(v);
    o[t] = v;
  }
}
__global__ void first_warp(int *o, const int *in) {
  int t = threadIdx.x, v = in[t];
  if (t < 32) {
    v += __shfl_down_sync(0xffffffff, v, 3);
    v += __shfl_down_sync(0xffffffff, v, 1, 8);
  }
  o[t] = v;
}
__global__ void middle(int *o, const int *in) {
  int t = threadIdx.x, v = in[t];
  if (t >= 64 && t < 128) {
    for (int d = 1; d < 32; d *= 2) v += __shfl_down_sync(0xffffffff, v, d);
  } else {
    v = v * 2 + 1;
  }
  o[t] = v;
}
__global__ void other_branch(int *o, const int *in) {
  int t = threadIdx.x, v = in[t];
  if (t / 32 == 1) v = -v;
  else v -= __shfl_down_sync(0xffffffff, v, 5, 16);
  o[t] = v;
}
__global__ void by_value(int *o, const int *in, const int *pa) {
  int t = threadIdx.x, v = in[t], a = pa[0];
  if (t % 64 < a) v += __shfl_down_sync(0xffffffff, v, 2);
  o[t] = v;
}
// a mask naming the lanes that take the branch: the general form
__global__ void half_mask(int *o, const int *in) {
  int t = threadIdx.x, v = in[t];
  if (t % 32 < 16) v += __shfl_down_sync(0x0000ffff, v, 1, 16);
  o[t] = v;
}
"""


mod = paths_module(SRC)


def test_paths(mod):
    want = "fibers" if mod.force == "1" else "block function"
    names = {"two_stage", "first_warp", "middle", "other_branch", "by_value", "half_mask"}
    assert {k for k in names if mod.compiled.paths[k][0] == want} == names, mod.compiled.paths


def _down(v, d, w=32):
    return shfl_ref(v, "down", np.full(len(v), d), w)


@pytest.mark.parametrize("n", [32, 48, 64, 256, 1024])
def test_two_stage_against_numpy(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "two_stage", [(n, np.int32)], [x], (n, 1))
    v = x.copy()
    for d in (16, 8, 4, 2, 1):
        v = v + _down(v, d)
    lanes = np.arange(n)
    part = np.zeros(32, np.int32)
    part[:(n + 31) // 32] = v[::32]
    w = np.where(lanes < (n + 31) // 32, part[lanes % 32], 0).astype(np.int32)
    for d in (16, 8, 4, 2, 1):
        w = w + _down(w, d)
    assert np.array_equal(got[:min(n, 32)], w[:min(n, 32)])
    assert np.all(got[32:] == 0)
    assert got[0] == x.sum()


@pytest.mark.parametrize("n", [32, 48, 64, 160])
def test_first_warp_against_numpy(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "first_warp", [(n, np.int32)], [x], (n, 1))
    v = x.copy()
    w = v + _down(v, 3)
    w = w + _down(w, 1, 8)
    want = np.where(np.arange(n) < 32, w, v)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("n", [128, 144, 192, 256])
def test_middle_warps_and_else_against_numpy(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "middle", [(n, np.int32)], [x], (n, 1))
    w = x.copy()
    for d in (1, 2, 4, 8, 16):
        w = w + _down(w, d)
    t = np.arange(n)
    assert np.array_equal(got, np.where((t >= 64) & (t < 128), w, x * 2 + 1))
    (got,) = _launch(mod, "other_branch", [(n, np.int32)], [x], (n, 1))
    assert np.array_equal(got, np.where(t // 32 == 1, -x, x - _down(x, 5, 16)))


@pytest.mark.parametrize("n,a", [(64, 64), (48, 64), (128, 0), (96, 32)])
def test_a_runtime_condition_of_whole_warps_against_numpy(mod, n, a):
    x = _input(n)
    (got,) = _launch(mod, "by_value", [(n, np.int32)], [x, np.array([a], np.int32)], (n, 1))
    t = np.arange(n)
    assert np.array_equal(got, np.where(t % 64 < a, x + _down(x, 2), x))


@pytest.mark.parametrize("n", [32, 48, 96])
def test_a_mask_of_the_lanes_that_take_the_branch_against_numpy(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "half_mask", [(n, np.int32)], [x], (n, 1))
    t = np.arange(n)
    assert np.array_equal(got, np.where(t % 32 < 16, x + _down(x, 1, 16), x))


FAULTS = r"""
__global__ void part_warp(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x < 40) v += __shfl_down_sync(0xffffffff, v, 1);
  o[threadIdx.x] = v;
}
__global__ void part_warp_loop(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x >= 8) { for (int d = 1; d < 32; d *= 2) v += __shfl_down_sync(0xffffffff, v, d); }
  o[threadIdx.x] = v;
}
"""


@pytest.mark.parametrize("name,words", [
    ("part_warp", ["warp 1", "lane 8 returns without reaching it", "__shfl_down_sync"]),
    ("part_warp_loop", ["warp 0", "__shfl_down_sync"]),
])
def test_a_range_that_is_not_whole_warps_fails_alike_on_both_paths(run_cuda, tmp_path, name,
                                                                   words):
    fails_alike(run_cuda, tmp_path, FAULT_SCRIPT, FAULTS, name, words)


def test_the_ranged_form_where_it_applies_and_not_elsewhere():
    for cond in ("threadIdx.x / 32 == 0", "threadIdx.x < 32", "threadIdx.x >= 64 && threadIdx.x < 128",
                 "threadIdx.x < 40", "a > 3"):
        text = _cut_text("__pyemu_global__ void k(int *o, int a) { int v = a; if (" + cond +
                         ") v += __shfl_down_sync(0xffffffff, v, 1); }")
        # in place where the block function's MARK is false, the record and
        # marks where it is true
        assert text.count("pyemu_rg_peer") == 1 and "pyemu_rg_mark ?" in text, cond
        assert "if ( pyemu_rg_mark ) reinterpret_cast" in text, cond
    for body in ("if (threadIdx.x < 32) v += __shfl_down_sync(0x0000ffff, v, 1);",  # mask
                 "if (threadIdx.x < 32) return; if (a) v += __shfl_down_sync(0xffffffff, v, 1);",
                 "if (threadIdx.x < 32) v += __shfl_down_sync(0xffffffff, a, 1);",
                 "if (threadIdx.x < 32) v += __shfl_up_sync(0xffffffff, v, 1);"):
        text = _cut_text("__pyemu_global__ void k(int *o, int a) { int v = a; " + body + " }")
        assert "pyemu_rg_peer" not in text, body
