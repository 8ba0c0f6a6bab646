"""Issue 13: the fast form of a warp shuffle in a block function
(pyemu/compiler/regions/warpcut.py, csrc/warp_block.c, abi.h's pyemu_warp_buf).

A __shfl*_sync with a literal full mask and a literal width (or none) is
written without a call: each thread stores its value, the thread after the
cut reads its source lane inline.  Every shuffle kind, width 1..32, the
types CUDA declares, partial warps (48 threads), 2-D blocks, the statement
forms (lane argument evaluated again or recorded), the form with arrival
marks (a kernel with an early exit or a branch around the site) are checked
against NumPy (warp.c's semantics: a source lane past a partial warp gives
0, a source outside the segment the caller's own value) and against the
fibers (PYEMU_FORCE_FIBERS=1) exactly; a lane that does not arrive fails
the launch with the general form's message, and the form is used where it
should be (and not where it must not be: a mask in a variable, a width that
is not a literal, the unit's own overload of the intrinsic)."""
import numpy as np
import pytest

from regions_util import fails_alike, paths_module

from pyemu.compiler.regions import warpcut
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemset)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

WIDTHS = (32, 16, 8, 4, 2, 1)

SRC = r"""
#define ALL(W) \
  o[k++ * n + t] = __shfl_sync(0xffffffff, v, 5, W); \
  o[k++ * n + t] = __shfl_up_sync(0xffffffff, v, 3, W); \
  o[k++ * n + t] = __shfl_down_sync(0xffffffff, v, 3, W); \
  o[k++ * n + t] = __shfl_xor_sync(0xffffffff, v, 6, W);
// o[...] = shfl(...): the lane argument is recorded before the cut
__global__ void kinds(int *o, const int *in) {
  int t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y, k = 0;
  int v = in[t];
  ALL(32) ALL(16) ALL(8) ALL(4) ALL(2) ALL(1)
}
// v op= shfl(v, d) with a loop variable: evaluated again after the cut (each
// loop its own variable: a name declared twice is not provably uniform)
__global__ void loops(int *o, const int *in) {
  int t = threadIdx.x, n = blockDim.x;
  int s = in[t], x = in[t], m = in[t];
  for (int d = 1; d < 32; d *= 2) {
    int y = __shfl_up_sync(0xffffffff, s, d);
    if ((t & 31) >= d) s += y;
  }
  for (int e = 16; e > 0; e /= 2) x += __shfl_xor_sync(0xffffffff, x, e);
  for (int f = 4; f > 0; f /= 2) m = max(m, __shfl_down_sync(0xffffffffu, m, f, 8));
  o[t] = s;
  o[n + t] = x;
  o[2 * n + t] = m;
}
// the types: long long, unsigned, float and double; lanes from a variable;
// consecutive shuffles of values of one size (unsigned, float): the slots the
// next one writes are not the ones this one's threads still read
__global__ void types(long long *ol, unsigned *ou, float *of, double *od, const int *in) {
  int t = threadIdx.x;
  int src = (t * 7) & 31;
  long long l = (long long)in[t] << 33 | t;
  ol[t] = __shfl_sync(0xffffffff, l, src);
  unsigned u = 0x80000000u | (unsigned)in[t];
  ou[t] = __shfl_xor_sync(0xffffffff, u, 5, 16);
  float f = in[t] * 0.5f;
  of[t] = __shfl_down_sync(0xffffffff, f, 2);
  double d = in[t] * 0.25;
  double e = __shfl_up_sync(0xffffffff, d, 1, 4);
  od[t] = e;
}
// the argument reads what the statement writes: recorded, not read again
__global__ void hazard(int *o, const int *in) {
  __shared__ int s[1024];
  int t = threadIdx.x;
  s[t] = (t * 5 + 3) & 31;
  __syncthreads();
  int v = in[t];
  s[t] = __shfl_sync(0xffffffff, v, s[(t & ~31) | ((t + 1) & 31)]);   // within the warp
  __syncthreads();
  o[t] = s[t];
}
// an early exit that no thread takes, and a branch per warp: arrival marks
__global__ void marked(int *o, const int *in, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  int v = in[t], w = v;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
  if ((t / 32) % 2 == 1) w = __shfl_xor_sync(0xffffffff, w, 1);
  o[t] = v;
  o[blockDim.x + t] = w;
}
"""

KERNELS = {"kinds", "loops", "types", "hazard", "marked"}


mod = paths_module(SRC)


def _buffers(arrays):
    ptrs = []
    for a in arrays:
        p = cudaMalloc(max(a.nbytes, 4))
        cudaMemcpy(p, a, a.nbytes, cudaMemcpyHostToDevice)
        ptrs.append(p)
    return ptrs


def _launch(mod, name, outs, ins, block, extra=()):
    """Runs kernel `name` on one block; returns the outputs (fresh zeros of
    the given dtypes and sizes)."""
    res = [np.zeros(n, dt) for n, dt in outs]
    d_out = [cudaMalloc(r.nbytes) for r in res]
    for p, r in zip(d_out, res):
        cudaMemset(p, 0, r.nbytes)
    d_in = _buffers(ins)
    mod.get_function(name)[1, block](*d_out, *d_in, *extra)
    cudaDeviceSynchronize()
    for p, r in zip(d_out, res):
        cudaMemcpy(r, p, r.nbytes, cudaMemcpyDeviceToHost)
    for p in d_out + d_in:
        cudaFree(p)
    return res


def shfl_ref(val, op, arg, width):
    """warp.c's shuffle over the threads of one block, all arriving: val and
    arg per thread (linear index); a source past the block gives 0."""
    n = len(val)
    out = np.zeros_like(val)
    for i in range(n):
        base, lane = i & ~31, i & 31
        a = int(arg[i]) & 31
        lo = lane & ~(width - 1)
        if op == "idx":
            j = lo | (a & (width - 1))
        elif op == "up":
            j = lane - a if lane - a >= lo else None
        elif op == "down":
            j = lane + a if lane + a <= lo + width - 1 else None
        else:
            j = lane ^ a if (lane ^ a) <= lo + width - 1 else None
        if j is None:
            out[i] = val[i]
        else:
            out[i] = val[base + j] if base + j < n else 0
    return out


def test_paths_block_function(mod):
    paths = mod.compiled.paths
    want = "fibers" if mod.force == "1" else "block function"
    assert {k for k in KERNELS if paths[k][0] == want} == KERNELS, paths


@pytest.mark.parametrize("block", [(64, 1), (48, 1), (16, 3), (96, 1)],
                         ids=["64", "48", "16x3", "96"])
def test_every_kind_and_width_against_numpy(mod, block):
    n = block[0] * block[1]
    v = (np.arange(n, dtype=np.int32) * 37 + 11) % 1000 - 300
    (got,) = _launch(mod, "kinds", [(4 * len(WIDTHS) * n, np.int32)], [v], block)
    got = got.reshape(-1, n)
    k = 0
    for w in WIDTHS:
        for op, a in (("idx", 5), ("up", 3), ("down", 3), ("xor", 6)):
            want = shfl_ref(v, op, np.full(n, a), w)
            assert np.array_equal(got[k], want), (block, w, op, got[k], want)
            k += 1


@pytest.mark.parametrize("n", [64, 40])
def test_loops_scan_butterfly_and_segment_max(mod, n):
    v = (np.arange(n, dtype=np.int32) * 13) % 50 - 20
    (got,) = _launch(mod, "loops", [(3 * n, np.int32)], [v], n)
    got = got.reshape(3, n)
    s = v.copy()
    for d in (1, 2, 4, 8, 16):
        y = shfl_ref(s, "up", np.full(n, d), 32)
        s = np.where((np.arange(n) & 31) >= d, s + y, s)
    x = v.copy()
    for d in (16, 8, 4, 2, 1):
        x = x + shfl_ref(x, "xor", np.full(n, d), 32)
    m = v.copy()
    for d in (4, 2, 1):
        m = np.maximum(m, shfl_ref(m, "down", np.full(n, d), 8))
    assert np.array_equal(got[0], s) and np.array_equal(got[1], x) and np.array_equal(got[2], m)


def test_types_long_long_unsigned_float_double(mod):
    n = 64
    v = np.arange(n, dtype=np.int32) * 3 - 50
    ol, ou, of, od = _launch(mod, "types", [(n, np.int64), (n, np.uint32), (n, np.float32),
                                            (n, np.float64)], [v], n)
    t = np.arange(n)
    lv = (v.astype(np.int64) << 33) | t
    assert np.array_equal(ol, shfl_ref(lv, "idx", (t * 7) & 31, 32))
    uv = (np.uint32(0x80000000) | v.astype(np.uint32)).astype(np.uint32)
    assert np.array_equal(ou, shfl_ref(uv, "xor", np.full(n, 5), 16))
    assert np.array_equal(of, shfl_ref((v * np.float32(0.5)).astype(np.float32), "down",
                                       np.full(n, 2), 32))
    assert np.array_equal(od, shfl_ref(v * 0.25, "up", np.full(n, 1), 4))


def test_lane_argument_written_by_the_statement_is_the_one_before_it(mod):
    n = 64
    v = np.arange(n, dtype=np.int32) * 10 + 1
    (got,) = _launch(mod, "hazard", [(n, np.int32)], [v], n)
    t = np.arange(n)
    arg = (((t & ~31) | ((t + 1) & 31)) * 5 + 3) & 31
    assert np.array_equal(got, shfl_ref(v, "idx", arg, 32))


@pytest.mark.parametrize("n", [128, 80])
def test_marked_form_early_exit_not_taken_and_branch_per_warp(mod, n):
    v = np.arange(n, dtype=np.int32) % 17
    (got,) = _launch(mod, "marked", [(2 * n, np.int32)], [v], n, extra=(np.int32(n),))
    s = v.copy()
    for d in (16, 8, 4, 2, 1):
        s = s + shfl_ref(s, "down", np.full(n, d), 32)
    w = np.where((np.arange(n) // 32) % 2 == 1, shfl_ref(v, "xor", np.full(n, 1), 32), v)
    assert np.array_equal(got[:n], s) and np.array_equal(got[n:], w)


FAULTS = r"""
__global__ void lane_returns(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x % 32 == 7) return;
  o[threadIdx.x] = __shfl_sync(0xffffffff, v, 0, 16);
}
__global__ void half_warp_branch(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x < 48) v = __shfl_down_sync(0xffffffff, v, 1);
  o[threadIdx.x] = v;
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
    ("lane_returns", ["warp 0: lane 7 returns without reaching it", "__shfl_sync",
                      "thread (7,0,0)"]),
    ("half_warp_branch", ["warp 1", "lane 16 returns without reaching it",
                          "__shfl_down_sync"]),
])
def test_a_lane_that_does_not_arrive_fails_as_on_the_fibers(run_cuda, tmp_path, name, words):
    fails_alike(run_cuda, tmp_path, FAULT_SCRIPT, FAULTS, name, words)


def _cut_text(src: str) -> str:
    """The kernel's body after warpcut.cut, as the compiler reads the unit:
    preprocessed with pyemu's headers, its groups from the front end."""
    from regions_util import unit_groups
    toks, _, groups = unit_groups(src.replace("__pyemu_global__", "__global__"))
    g = next(g for g in groups if g.kind == "kernel")
    g2, t2 = warpcut.cut(toks, g)
    return " ".join(t.text for t in t2[g2.body[0]:g2.body[1]])


def test_fast_form_where_it_applies_general_form_elsewhere():
    fast = _cut_text("""__pyemu_global__ void k(int *o, int v, int w) {
      v += __shfl_down_sync(0xffffffff, v, 1);
      v += __shfl_xor_sync(0xFFFFFFFFu, v, 1, 16);
    }""")
    assert "pyemu_warp_fast_buf" in fast and "pyemu_warp_phase" not in fast
    assert "fin" not in fast          # every thread arrives: no marks, no check
    for body in ("unsigned m = 0xffffffff; v += __shfl_down_sync(m, v, 1);",   # mask in a variable
                 "v += __shfl_down_sync(0x7fffffff, v, 1);",                    # not the full mask
                 "v += __shfl_down_sync(0xffffffff, v, 1, w);",                 # width not a literal
                 "v += __shfl_down_sync(0xffffffff, v, 1, 64);",                # width out of range
                 "v += __ballot_sync(0xffffffff, v);"):                         # not a shuffle
        text = _cut_text("__pyemu_global__ void k(int *o, int v, int w) { " + body + " }")
        assert "pyemu_warp_phase" in text and "pyemu_warp_fast_buf" not in text, body
    marked = _cut_text("""__pyemu_global__ void k(int *o, int v) {
      if (v > 3) return;
      v += __shfl_down_sync(0xffffffff, v, 1);
    }""")
    assert "fin [" in marked and "__FILE__" in marked


def test_the_units_own_overload_keeps_the_general_form():
    text = _cut_text("""struct P { int a; };
    __device__ P __shfl_down_sync(unsigned m, P p, unsigned d, int w = 32) { return p; }
    __pyemu_global__ void k(int *o, int v) { v += __shfl_down_sync(0xffffffff, v, 1); }""")
    assert "pyemu_warp_phase" in text and "pyemu_warp_fast_buf" not in text
