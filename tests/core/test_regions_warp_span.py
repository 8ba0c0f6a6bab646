"""Issue 13: a predicated if whose condition is a range of threadIdx.x gets
its span without flags (pyemu/compiler/regions/gen.py's predicated,
ranges.py's `q == u` for q monotone); inside predicated ifs each thread
loop has a version for dense spans (no flag read; at a shuffle also every
warp whole, the in-place form) and a cold one (gen.COLD) for the rest.

In a block of one row, `if (warp == k)` (warp = t / 32), `if (t / 64 ==
k)`, `if (k == (threadIdx.x + 32) / 64)`, `if (t >> 5 == k)` and `if (t >=
32 * k && t < 32 * k + 64)` run their branch over the range the bisection
finds, dense, whole where its ends are multiples of 32 or the block's end;
a range that splits a warp takes the marks and fails as the general form
does; a block of several rows, an else branch, `warp & 1` keep the flags.
Each kernel runs as a block function and on the fibers
(PYEMU_FORCE_FIBERS=1), both checked against NumPy (warp.c's shuffle
semantics)."""
import re

import numpy as np
import pytest

from regions_util import fails_alike, paths_module, preprocessed
from test_regions_warp_fast import shfl_ref
from test_regions_warp_inplace import _input, _launch
from test_regions_warps import FAULT_SCRIPT
from pyemu.compiler.regions import blocks as _regions

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__device__ __forceinline__ int wsum(int v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  return v;
}
// the branch's threads are one range of the row: each form of condition
__global__ void eq_forms(int *o, const int *in, int k) {
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
  unsigned warp = t / 32;
  int v = in[t], a = v, b = v, c = v, d = v, e = v;
  if (warp == k) a = wsum(a);
  if (t / 64 == k) b += __shfl_down_sync(0xffffffff, b, 3);
  if (k == (threadIdx.x + 32) / 64) c = wsum(c);
  if (t >= 32 * k && t < 32 * k + 64) d -= __shfl_down_sync(0xffffffff, d, 1, 8);
  if (t >> 5 == k) e = wsum(e);                 // OpenCL's get_sub_group_id()
  o[t] = a; o[n + t] = b; o[2 * n + t] = c; o[3 * n + t] = d; o[4 * n + t] = e;
}
// forms that keep the flags: an else branch, warp & 1
__global__ void flag_forms(int *o, const int *in, int k) {
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
  unsigned warp = t / 32;
  int v = in[t], a = v, b = v;
  if (warp == k) a = wsum(a); else a = -a;
  if (warp & 1) b = wsum(b);
  o[t] = a; o[n + t] = b;
}
// a return inside the branch: its loop stays one (the return's label once)
__global__ void with_return(int *o, const int *in) {
  unsigned t = threadIdx.x;
  int v = in[t];
  o[t] = -1;
  if (t / 32 == 0) { v += __shfl_down_sync(0xffffffff, v, 1); if (v > 0) return; o[t] = v; }
}
"""

mod = paths_module(SRC)


def _down(v, d, w=32):
    return shfl_ref(v, "down", np.full(len(v), d), w)


def _wsum(v):
    for off in (16, 8, 4, 2, 1):
        v = v + _down(v, off)
    return v


def test_paths(mod):
    want = "fibers" if mod.force == "1" else "block function"
    names = ("eq_forms", "flag_forms", "with_return")
    assert {k: mod.compiled.paths[k][0] for k in names} == {k: want for k in names}


# k: the branch's warps; 7 and 9: no thread takes it (an empty range)
@pytest.mark.parametrize("block,k", [((256, 1), 0), ((256, 1), 1), ((256, 1), 7), ((96, 1), 1),
                                     ((96, 1), 2), ((64, 1), 0), ((64, 1), 9), ((32, 2), 0),
                                     ((32, 4), 1)])
def test_ranges_of_the_row_against_numpy(mod, block, k):
    n = block[0] * block[1]
    x = _input(n)
    (got,) = _launch(mod, "eq_forms", [(5 * n, np.int32)], [x], block, (np.int32(k),))
    t = np.arange(n)
    tx = t % block[0]
    warp = t // 32
    a = np.where(warp == k, _wsum(x), x)
    b = np.where(t // 64 == k, x + _down(x, 3), x)
    c = np.where((tx + 32) // 64 == k, _wsum(x), x)
    d = np.where((t >= 32 * k) & (t < 32 * k + 64), x - _down(x, 1, 8), x)
    assert np.array_equal(got, np.concatenate([a, b, c, d, a])), (block, k)


@pytest.mark.parametrize("block,k", [((256, 1), 0), ((96, 1), 2), ((32, 2), 1)])
def test_forms_that_keep_the_flags_against_numpy(mod, block, k):
    n = block[0] * block[1]
    x = _input(n)
    (got,) = _launch(mod, "flag_forms", [(2 * n, np.int32)], [x], block, (np.int32(k),))
    warp = np.arange(n) // 32
    a = np.where(warp == k, _wsum(x), -x)
    b = np.where(warp & 1, _wsum(x), x)
    assert np.array_equal(got, np.concatenate([a, b])), (block, k)


@pytest.mark.parametrize("n", [32, 64, 96])
def test_a_return_inside_the_branch_against_numpy(mod, n):
    x = _input(n)
    (got,) = _launch(mod, "with_return", [(n, np.int32)], [x], (n, 1))
    t = np.arange(n)
    v = x + _down(x, 1)
    assert np.array_equal(got, np.where((t < 32) & ~(v > 0), v, -1))


FAULTS = r"""
__global__ void half_warp_eq(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x / 16 == 1) v += __shfl_down_sync(0xffffffff, v, 1);
  o[threadIdx.x] = v;
}
"""


def test_a_range_that_splits_a_warp_fails_alike_on_both_paths(run_cuda, tmp_path):
    # lanes 16..31 of warp 0 arrive, 0..15 do not: the marks' check fails it
    fails_alike(run_cuda, tmp_path, FAULT_SCRIPT, FAULTS, "half_warp_eq",
                ["warp 0", "__shfl_down_sync"])


def test_the_span_without_flags_where_it_applies_and_not_elsewhere():
    pre, root = preprocessed(SRC)
    text = _regions.generate(pre, "__pyemu_global__", root, implicit=True, warp=True).text
    eq = text[text.index("pyemu_rg_eq_forms"):text.index("pyemu_rg_flag_forms")]
    flags = text[text.index("pyemu_rg_flag_forms"):text.index("pyemu_rg_with_return")]
    ret = text[text.index("pyemu_rg_with_return"):]
    # each of eq_forms' five ifs: the bisection's span, the flags only where
    # the block has several rows (pyemu_rg_prNk false)
    spans = re.findall(r"bool (pyemu_rg_pr\d+)k = false", eq)
    assert len(spans) == 5, spans
    for f in spans:
        assert f"if ({f}k) {{ {f}d0 = true;" in eq, f
    assert ") >= (" in eq and ") <= (" in eq           # the == split in two probes
    assert not re.search(r"pyemu_rg_pr\d+k = false", flags)
    # inside a predicated if each loop has two versions: a hot one for dense
    # spans (and, at a shuffle, every warp whole: the in-place form), and a
    # cold one (no vector versions) that reads the flags (and MARK)
    for body in (eq, flags):
        flagged = re.findall(r"(.{26})if \(!pyemu_rg_pr\d+d\d && !?pyemu_rg_pr\d+\[", body)
        assert flagged and all(c == '__asm__ __volatile__(""); ' for c in flagged), flagged
        splits = re.findall(r"if \((!\(!\(pyemu_rg_pr\d+u\)\) && )?pyemu_rg_pr\d+d\d\) \{", body)
        assert len(splits) == len(flagged)
        assert any(splits) and not all(splits)     # shuffles' loops and the others'
    # the loop with the return's label: one version, testing the flags
    tests = re.findall(r"(.{26})if \(!pyemu_rg_pr\d+d0 && !pyemu_rg_pr\d+\[pyemu_rg_lin\]\) continue;", ret)
    assert any(c == "[pyemu_rg_lin]) continue; " for c in tests), tests   # after the exit test
    # the marking form (MARK tested at run time) only in the cold loops; the
    # hot ones have it fixed false (the in-place form)
    for body in (eq, flags):
        loops = _thread_loops(body)
        marking = [b for b in loops if re.search(r"\( \(!\(pyemu_rg_pr\d+u\)\) \)", b)]
        assert marking and all(b.lstrip().startswith('__asm__ __volatile__("");') for b in marking)
        assert any("( (false) ?" in b and not b.lstrip().startswith("__asm__") for b in loops)


def _thread_loops(text: str) -> list:
    """The bodies of the block function's thread loops in text."""
    out = []
    for m in re.finditer(r"for \(unsigned pyemu_rg_tx[^)]*\) \{", text):
        depth, k = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        out.append(text[m.end():k - 1])
    return out
