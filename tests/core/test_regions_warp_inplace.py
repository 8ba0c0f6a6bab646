"""Issue 13: the in-place form of `v op= __shfl_down_sync(full, v, d[, W])`
in a block function (pyemu/compiler/regions/warpcut.py, gen.py).

When the shuffled value is the local variable the statement assigns, the
mask a literal full one, the width a literal power of 2 and every lane
arrives, no value is recorded: each thread reads its source lane's own copy
of the variable (lane + d > lane: in the ascending thread loop, not written
yet), padded with zeros past the block (a partial warp's lanes that are not
there).  Checked against NumPy (warp.c's semantics) and against the fibers
(PYEMU_FORCE_FIBERS=1) exactly: widths 32/16/8/4, offsets that are not
powers of 2, offsets >= the width and >= 32, offsets per lane, 48-, 96-
thread and 2-D blocks, types, compound operators, a statement after it in
the same region; and the form is not taken with a non-full mask, a value
that is not the assigned variable, or where a lane may not arrive."""
import numpy as np
import pytest

from regions_util import paths_module
from test_regions_warp_fast import _cut_text, _launch, shfl_ref

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

OFFS = {32: (16, 8, 4, 2, 1, 3, 5, 7, 33, 31), 16: (8, 4, 2, 1, 3, 5, 7, 20, 15),
        8: (4, 2, 1, 3, 5, 9, 7), 4: (2, 1, 3, 6)}

SRC = r"""
// straight code: each step stores its result
#define S(W, D) v += __shfl_down_sync(0xffffffff, v, D, W); o[k++ * n + t] = v;
__global__ void steps(int *o, const int *in) {
  int t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y, k = 0;
  int v = in[t];
  S(32, 16) S(32, 8) S(32, 4) S(32, 2) S(32, 1) S(32, 3) S(32, 5) S(32, 7)
  S(32, 33) S(32, 31) S(16, 8) S(16, 4) S(16, 2) S(16, 1) S(16, 3) S(16, 5)
  S(16, 7) S(16, 20) S(16, 15) S(8, 4) S(8, 2) S(8, 1) S(8, 3) S(8, 5)
  S(8, 9) S(8, 7) S(4, 2) S(4, 1) S(4, 3) S(4, 6)
}
// the reduction of reduce_shfl.cu: the shuffle alone in its thread loop
__global__ void reduce(int *o, const int *in) {
  int t = threadIdx.x + blockDim.x * threadIdx.y;
  int v = in[t];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  o[t] = v;
}
// offsets per lane (read again after the cut), operators, a statement after
// the shuffle in the same region, other types
__global__ void forms(int *o, unsigned *ou, float *of, long long *ol, short *os, const int *in) {
  int t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
  int v = in[t], w = in[t], x = in[t];
  v -= __shfl_down_sync(0xffffffff, v, t % 7);
  o[t] = v;
  w = __shfl_down_sync(0xffffffffu, w, 3, 16);
  w = w * 3 + 1;
  w ^= __shfl_down_sync(0xffffffff, w, 5);
  o[n + t] = w;
  x += __shfl_down_sync(0xffffffff, x, 1);
  x += __shfl_down_sync(0xffffffff, x, 1);
  o[2 * n + t] = x;
  unsigned u = 0x9e3779b9u * (unsigned)in[t];
  u *= __shfl_down_sync(0xffffffff, u, 2);
  ou[t] = u;
  float f = in[t] * 0.5f;
  for (int d = 1; d < 32; d *= 2) f += __shfl_down_sync(0xffffffff, f, d, 16);
  of[t] = f;
  long long l = (long long)in[t] << 33 | t;
  l += __shfl_down_sync(0xffffffff, l, 4, 8);
  ol[t] = l;
  short s = (short)(in[t] * 1000);
  s += __shfl_down_sync(0xffffffff, s, 1);
  os[t] = s;
}
"""

KERNELS = {"steps", "reduce", "forms"}
BLOCKS = [(64, 1), (48, 1), (16, 3), (96, 1), (256, 1)]


mod = paths_module(SRC)


def _input(n):
    return ((np.arange(n, dtype=np.int64) * 37 + 11) % 1000 - 300).astype(np.int32)


def test_paths_block_function(mod):
    paths = mod.compiled.paths
    want = "fibers" if mod.force == "1" else "block function"
    assert {k for k in KERNELS if paths[k][0] == want} == KERNELS, paths


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_widths_and_offsets_against_numpy(mod, block):
    n = block[0] * block[1]
    v = _input(n)
    steps = [(w, d) for w in (32, 16, 8, 4) for d in OFFS[w]]
    (got,) = _launch(mod, "steps", [(len(steps) * n, np.int32)], [v], block)
    got = got.reshape(-1, n)
    cur = v.copy()
    for k, (w, d) in enumerate(steps):
        cur = (cur + shfl_ref(cur, "down", np.full(n, d), w)).astype(np.int32)
        assert np.array_equal(got[k], cur), (block, w, d, got[k], cur)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_reduction_against_numpy(mod, block):
    n = block[0] * block[1]
    v = _input(n)
    (got,) = _launch(mod, "reduce", [(n, np.int32)], [v], block)
    cur = v.copy()
    for d in (16, 8, 4, 2, 1):
        cur = cur + shfl_ref(cur, "down", np.full(n, d), 32)
    assert np.array_equal(got, cur)
    if n % 32 == 0:
        assert np.array_equal(got[::32], v.reshape(-1, 32).sum(axis=1))


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_forms_against_numpy(mod, block):
    n = block[0] * block[1]
    v = _input(n)
    t = np.arange(n)
    o, ou, of, ol, os_ = _launch(mod, "forms", [(3 * n, np.int32), (n, np.uint32), (n, np.float32),
                                                (n, np.int64), (n, np.int16)], [v], block)
    o = o.reshape(3, n)
    assert np.array_equal(o[0], v - shfl_ref(v, "down", t % 7, 32))
    w = shfl_ref(v, "down", np.full(n, 3), 16) * 3 + 1
    assert np.array_equal(o[1], w ^ shfl_ref(w, "down", np.full(n, 5), 32))
    x = v + shfl_ref(v, "down", np.full(n, 1), 32)
    assert np.array_equal(o[2], x + shfl_ref(x, "down", np.full(n, 1), 32))
    u = (np.uint32(0x9e3779b9) * v.astype(np.uint32)).astype(np.uint32)
    assert np.array_equal(ou, (u * shfl_ref(u, "down", np.full(n, 2), 32)).astype(np.uint32))
    f = v.astype(np.float32) * np.float32(0.5)
    for d in (1, 2, 4, 8, 16):
        f = (f + shfl_ref(f, "down", np.full(n, d), 16)).astype(np.float32)
    assert np.array_equal(of, f)
    ll = (v.astype(np.int64) << 33) | t
    assert np.array_equal(ol, ll + shfl_ref(ll, "down", np.full(n, 4), 8))
    s = (v * 1000).astype(np.int16)
    want = (s.astype(np.int32) + shfl_ref(s.astype(np.int32), "down", np.full(n, 1), 32))
    assert np.array_equal(os_, want.astype(np.int16))


def test_in_place_form_where_it_applies_and_not_elsewhere():
    fast = _cut_text("""__pyemu_global__ void k(int *o, int a) {
      int v = a;
      v += __shfl_down_sync(0xffffffff, v, 1);
      v = __shfl_down_sync(0xFFFFFFFFu, v, 3, 16);
    }""")
    assert fast.count("pyemu_rg_peer") == 2 and "pyemu_warp_fast_buf" not in fast
    for body in ("v += __shfl_down_sync(0x0000ffff, v, 1);",        # not the full mask
                 "unsigned m = ~0u; v += __shfl_down_sync(m, v, 1);",  # mask in a variable
                 "v += __shfl_down_sync(0xffffffff, a, 1);",        # not the assigned variable
                 "v += __shfl_up_sync(0xffffffff, v, 1);",          # reads behind
                 "v += __shfl_xor_sync(0xffffffff, v, 1);",         # reads behind too
                 "o[0] = __shfl_down_sync(0xffffffff, v, 1);",      # not a local assigned
                 "if (a > 3) return; v += __shfl_down_sync(0xffffffff, v, 1);"):  # may not arrive
        text = _cut_text("__pyemu_global__ void k(int *o, int a) { int v = a; " + body + " }")
        assert "pyemu_rg_peer" not in text, body
    # under an if: in place only where the block function finds every warp
    # whole (test_regions_warp_inplace_ranged.py)
    text = _cut_text("__pyemu_global__ void k(int *o, int a) { int v = a; "
                     "if (a > 3) v += __shfl_down_sync(0xffffffff, v, 1); }")
    assert "pyemu_rg_peer" in text and "pyemu_rg_mark ?" in text
