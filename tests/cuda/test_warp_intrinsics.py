"""Warp intrinsics (issue 13): __shfl*_sync with widths and every type,
__ballot/__any/__all_sync, __match_*_sync, __reduce_*_sync, __syncwarp,
__activemask, __lanemask_*, __fns; partial warps; collectives in loops,
branches, __device__ functions and templates; kernels with collectives never
get a block function (pyemu/compiler/regions/), and with -DPYEMU_NO_REGIONS
give the same results.  References are computed here from the CUDA
Programming Guide's definitions (shfl.sync in the PTX ISA)."""
import numpy as np
import pytest

from pyemu.cuda import (CompileError, SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc,
                        cudaMemcpy, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemset)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
template <class T>
__device__ void shfl_all(T *out, const T *in, int arg, int width) {
  int t = threadIdx.x, n = blockDim.x;
  T v = in[t];
  out[0 * n + t] = __shfl_sync(0xffffffff, v, arg, width);
  out[1 * n + t] = __shfl_up_sync(0xffffffff, v, (unsigned)arg, width);
  out[2 * n + t] = __shfl_down_sync(0xffffffff, v, (unsigned)arg, width);
  out[3 * n + t] = __shfl_xor_sync(0xffffffff, v, arg, width);
}
#define SHFL(name, T) \
  __global__ void shfl_##name(T *o, const T *i, int a, int w) { shfl_all<T>(o, i, a, w); }
SHFL(int, int)
SHFL(unsigned, unsigned)
SHFL(longlong, long long)
SHFL(ulonglong, unsigned long long)
SHFL(float, float)
SHFL(double, double)

__global__ void votes(unsigned *out, const int *in) {
  int t = threadIdx.x, n = blockDim.x;
  int p = in[t];
  out[0 * n + t] = __ballot_sync(0xffffffff, p & 1);
  out[1 * n + t] = __any_sync(0xffffffff, p == 7);
  out[2 * n + t] = __all_sync(0xffffffff, p >= 0);
  out[3 * n + t] = __match_any_sync(0xffffffff, p % 3);
  int pred = -1;
  out[4 * n + t] = __match_all_sync(0xffffffff, p / 1000, &pred);
  out[5 * n + t] = pred;
  out[6 * n + t] = __reduce_add_sync(0xffffffff, p);
  out[7 * n + t] = __reduce_min_sync(0xffffffff, p - 50);
  out[8 * n + t] = __reduce_max_sync(0xffffffff, (unsigned)p);
  out[9 * n + t] = __reduce_and_sync(0xffffffff, (unsigned)p | 0x100);
  out[10 * n + t] = __reduce_or_sync(0xffffffff, (unsigned)p);
  out[11 * n + t] = __reduce_xor_sync(0xffffffff, (unsigned)p);
  out[12 * n + t] = __activemask();
  out[13 * n + t] = __lanemask_lt();
  out[14 * n + t] = __lanemask_ge();
  __syncwarp();
}

// a half-warp mask inside a branch: lanes 0..15 of each warp
__global__ void half_mask(int *out, const int *in) {
  int t = threadIdx.x;
  int v = in[t];
  if ((t & 31) < 16) {
    for (int o = 8; o > 0; o /= 2) v += __shfl_xor_sync(0x0000ffff, v, o);
  } else {
    v = __ballot_sync(0xffff0000, v & 1);
  }
  out[t] = v;
}

__device__ int warp_sum(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}

// the classic block reduction: a warp sum, a barrier, the first warp sums the partials
__global__ void block_sum(int *out, const int *in, int n) {
  __shared__ int part[32];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int v = i < n ? in[i] : 0;
  v = warp_sum(v);
  if ((t & 31) == 0) part[t >> 5] = v;
  __syncthreads();
  if (t < 32) {
    v = t < (int)(blockDim.x >> 5) ? part[t] : 0;
    v = warp_sum(v);
    if (t == 0) out[blockIdx.x] = v;
  }
}

// an inclusive scan with __shfl_up_sync
__global__ void warp_scan(int *out, const int *in) {
  int t = threadIdx.x, lane = t & 31;
  int v = in[t];
  for (int o = 1; o < 32; o *= 2) {
    int y = __shfl_up_sync(0xffffffff, v, o);
    if (lane >= o) v += y;
  }
  out[t] = v;
}

__global__ void fns_bits(unsigned *out, unsigned mask) {
  int t = threadIdx.x;
  out[t] = __fns(mask, t & 31, (t >> 5) - 2);
}
"""


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


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC)


@pytest.fixture(scope="module")
def mod_fibers():
    return SourceModule(SRC, options=["-DPYEMU_NO_REGIONS"])


def ref_shfl(v, arg, width, n):
    """(idx, up, down, xor) per the PTX ISA's shfl.sync (the lane operand's
    low 5 bits), for n threads; a source lane past the end of a partial warp
    gives 0, as on an H100 (tests/data/ground_truth/warp_h100.json)."""
    arg &= 31
    out = np.empty((4, n), v.dtype)
    for t in range(n):
        w0, lane = t - t % 32, t % 32
        lo = lane & ~(width - 1)
        hi = lo + width - 1
        live = min(32, n - w0)

        def get(j):
            return v[w0 + j] if 0 <= j < live else 0
        out[0, t] = get(lo | (arg & (width - 1)))
        j = lane - arg
        out[1, t] = get(j) if j >= lo else v[t]
        j = lane + arg
        out[2, t] = get(j) if j <= hi else v[t]
        j = lane ^ arg
        out[3, t] = get(j) if j <= hi else v[t]
    return out


TYPES = {"int": np.int32, "unsigned": np.uint32, "long long": np.int64,
         "unsigned long long": np.uint64, "float": np.float32, "double": np.float64}


@pytest.mark.parametrize("ctype", list(TYPES))
@pytest.mark.parametrize("width", [32, 16, 8])
@pytest.mark.parametrize("arg", [1, 3, 17, 40])
def test_shfl_sync_types_widths_against_the_ptx_definition(mod, ctype, width, arg):
    dt = TYPES[ctype]
    n = 64
    rng = np.random.default_rng(arg * 100 + width)
    v = (rng.random(n) * 1e6 - (0 if dt in (np.uint32, np.uint64) else 5e5)).astype(dt)
    if dt == np.float64:
        v = v + 1e-9  # bits a float would lose
    got = _run(mod, "shfl_" + ctype.replace("unsigned long long", "ulonglong").replace("long long", "longlong"), 4 * n, [v], 1, n, dt, (np.int32(arg), np.int32(width)))
    assert np.array_equal(got.reshape(4, n), ref_shfl(v, arg, width, n))


def test_shfl_sync_partial_warp_of_48_threads(mod):
    n = 48
    v = np.arange(100, 100 + n, dtype=np.int32)
    got = _run(mod, "shfl_int", 4 * n, [v], 1, n, np.int32, (np.int32(5), np.int32(32)))
    assert np.array_equal(got.reshape(4, n), ref_shfl(v, 5, 32, n))


@pytest.mark.parametrize("n", [64, 48, 7])
def test_votes_match_reduce_activemask(mod, n):
    rng = np.random.default_rng(n)
    p = rng.integers(0, 100, n).astype(np.int32)
    p[3] = 7
    got = _run(mod, "votes", 15 * n, [p], 1, n, np.uint32).reshape(15, n)
    for w0 in range(0, n, 32):
        lanes = range(w0, min(n, w0 + 32))
        m = sum(1 << (t - w0) for t in lanes)
        ballot = sum(1 << (t - w0) for t in lanes if p[t] & 1)
        for t in lanes:
            lane = t - w0
            assert got[0, t] == ballot
            assert got[1, t] == int(any(p[u] == 7 for u in lanes))
            assert got[2, t] == 1
            assert got[3, t] == sum(1 << (u - w0) for u in lanes if p[u] % 3 == p[t] % 3)
            assert got[4, t] == m and got[5, t] == 1      # p/1000 == 0 everywhere
            assert got[6, t] == sum(int(p[u]) for u in lanes)
            assert np.int32(got[7, t]) == min(int(p[u]) - 50 for u in lanes)
            assert got[8, t] == max(int(p[u]) for u in lanes)
            a = 0xffffffff
            o = x = 0
            for u in lanes:
                a &= int(p[u]) | 0x100
                o |= int(p[u])
                x ^= int(p[u])
            assert (got[9, t], got[10, t], got[11, t]) == (a, o, x)
            assert got[12, t] == m
            assert got[13, t] == (1 << lane) - 1
            assert got[14, t] == (~((1 << lane) - 1)) & 0xffffffff


def test_match_all_sync_mixed_values_gives_0_and_pred_0(mod):
    n = 32
    p = np.full(n, 5000, np.int32)
    p[9] = 1000
    got = _run(mod, "votes", 15 * n, [p], 1, n, np.uint32).reshape(15, n)
    assert (got[4] == 0).all() and (got[5] == 0).all()


def test_partial_masks_in_a_branch(mod):
    n = 64
    v = np.random.default_rng(1).integers(0, 1000, n).astype(np.int32)
    got = _run(mod, "half_mask", n, [v], 1, n)
    for w0 in (0, 32):
        s = v[w0:w0 + 16].sum()
        b = sum(1 << (t - w0) for t in range(w0 + 16, w0 + 32) if v[t] & 1)
        assert (got[w0:w0 + 16] == s).all()
        assert (got[w0 + 16:w0 + 32].view(np.uint32) == b).all()


@pytest.mark.parametrize("fixture", ["mod", "mod_fibers"])
@pytest.mark.parametrize("block", [256, 96, 32])
def test_block_sum_shfl_down_in_device_function_with_barrier(request, fixture, block):
    m = request.getfixturevalue(fixture)
    n = 5000
    v = np.random.default_rng(block).integers(-1000, 1000, n).astype(np.int32)
    grid = (n + block - 1) // block
    got = _run(m, "block_sum", grid, [v], grid, block, np.int32, (np.int32(n),))
    want = [v[b * block:(b + 1) * block].sum() for b in range(grid)]
    assert np.array_equal(got, want)


def test_kernels_with_collectives_take_a_block_function_where_they_can(mod):
    """warp_scan's collective sits in a uniform loop, block_sum's in an
    inlined device function (the second call under a per-thread `if`): their
    block functions cut there (regions/warpcut.py); half_mask's collectives
    differ between the branches of an if (not cut: two collectives), votes
    calls __activemask: they run on fibers, as does every kernel of the unit
    without a block function (run_block's warp form)."""
    assert set(mod.compiled.block_kernels) == {"block_sum", "warp_scan"}
    assert mod.compiled.paths["votes"][0] == "fibers"
    plain = SourceModule(r"""
__global__ void s(int *o) { __shared__ int x[64]; x[threadIdx.x] = 1; __syncthreads();
  o[threadIdx.x] = x[63 - threadIdx.x]; }""")
    assert "s" in plain.compiled.block_kernels   # the same shape without collectives has one


def test_warp_scan_shfl_up(mod):
    n = 128
    v = np.random.default_rng(3).integers(0, 100, n).astype(np.int32)
    got = _run(mod, "warp_scan", n, [v], 1, n)
    want = np.concatenate([np.cumsum(v[w:w + 32]) for w in range(0, n, 32)])
    assert np.array_equal(got, want)


def test_fns(mod):
    mask = 0b1011_0000_0000_0000_1000_0000_0110_1001
    got = _run(mod, "fns_bits", 160, [], 1, 160, np.uint32, (np.uint32(mask),))
    bits = [b for b in range(32) if mask >> b & 1]
    for t in range(160):
        base, off = t & 31, (t >> 5) - 2
        if off == 0:
            want = base if mask >> base & 1 else 0xffffffff
        elif off > 0:
            up = [b for b in bits if b >= base]
            want = up[off - 1] if len(up) >= off else 0xffffffff
        else:
            down = [b for b in reversed(bits) if b <= base]
            want = down[-off - 1] if len(down) >= -off else 0xffffffff
        assert got[t] == want, (t, base, off)


@pytest.mark.parametrize("old,new", [("__shfl(v, 0)", "__shfl_sync"),
                                     ("__shfl_down(v, 1)", "__shfl_down_sync"),
                                     ("__ballot(v)", "__ballot_sync"),
                                     ("__any(v)", "__any_sync"), ("__all(v)", "__all_sync")])
def test_pre_cuda9_forms_are_compile_errors_with_a_hint(old, new):
    with pytest.raises(CompileError) as e:
        SourceModule(f"__global__ void k(int *o) {{ int v = o[0]; o[1] = {old}; }}")
    assert "is undefined for sm_70" in str(e.value) and new in str(e.value)


def test_warp_size_is_32(mod):
    m = SourceModule("__global__ void k(int *o) { o[0] = warpSize; }")
    got = _run(m, "k", 1, [], 1, 1)
    assert got[0] == 32


FAULTS = r"""
__global__ void early_return(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x == 5) return;
  o[threadIdx.x] = __shfl_down_sync(0xffffffff, v, 1);
}
__global__ void two_sites(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x & 1) v = __shfl_xor_sync(0xffffffff, v, 1);
  else v = __shfl_xor_sync(0xffffffff, v, 2);
  o[threadIdx.x] = v;
}
__global__ void not_in_mask(int *o) {
  o[threadIdx.x] = __ballot_sync(0x1, 1);
}
__global__ void barrier_instead(int *o) {
  int v = threadIdx.x;
  if (threadIdx.x == 40) __syncthreads();
  else v = __reduce_add_sync(0xffffffff, v);
  o[threadIdx.x] = v;
}
__global__ void bad_width(int *o) {
  o[threadIdx.x] = __shfl_sync(0xffffffff, 1, 0, 12);
}
"""

FAULT_SCRIPT = r"""
m = SourceModule(SOURCE)
o = cudaMalloc(4 * 64)
LAUNCH
R["code"] = code_of(cudaDeviceSynchronize)
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]     # the fault's message, kept until cudaDeviceReset
"""


@pytest.mark.parametrize("launch,words", [
    ("m.early_return[2, 64](o)", ["early_return", "failed in block (", "warp 0: lane 5 returns", "__shfl_down_sync"]),
    ("m.two_sites[1, 32](o)", ["two_sites", "__shfl_xor_sync", "lane(s) 1 reaches __shfl_xor_sync"]),
    ("m.not_in_mask[1, 32](o)", ["does not name the calling lane"]),
    ("m.barrier_instead[1, 64](o)", ["barrier_instead", "warp 1", "lane 8", "barrier"]),
    ("m.bad_width[1, 32](o)", ["width 12 is not a power of 2"]),
], ids=["lane_returned", "two_call_sites", "lane_not_in_its_mask", "barrier_instead",
        "bad_width"])
def test_collective_divergence_fails_the_launch_naming_kernel_warp_lanes(run_cuda, launch, words):
    run = run_cuda(FAULT_SCRIPT.replace("LAUNCH", launch), consts={"SOURCE": FAULTS}, timeout=90)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 719, run.R         # cudaErrorLaunchFailure, no hang, no crash
    for w in words:
        assert w in run.R["message"], (w, run.R["message"])


def test_warps_of_a_3d_block_are_linear_thread_ids_x_fastest():
    m = SourceModule(r"""
__global__ void k(int *o) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  o[t] = __shfl_sync(0xffffffff, t, 0) * 1000 + __popc(__ballot_sync(0xffffffff, 1));
}""")
    o = cudaMalloc(4 * 96)
    m.k[1, (4, 6, 4)](o)
    cudaDeviceSynchronize()
    h = np.empty(96, np.int32)
    cudaMemcpy(h, o, h.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(o)
    assert np.array_equal(h, (np.arange(96) // 32 * 32) * 1000 + 32)


def test_a_fault_inside_a_collective_leaves_the_next_launch_working(run_cuda):
    run = run_cuda(r"""
m = SourceModule(r'''
__global__ void bad(int *o) { int v = __shfl_down_sync(0xffffffff, (int)threadIdx.x, 1);
  if (threadIdx.x == 3) o[1 << 28] = v; o[threadIdx.x] = __reduce_add_sync(0xffffffff, v); }
__global__ void good(int *o) { o[threadIdx.x] = __reduce_add_sync(0xffffffff, 1); }''')
o = cudaMalloc(4 * 64)
m.bad[4, 64](o)
R["first"] = code_of(cudaDeviceSynchronize)
cudaDeviceReset()
o = cudaMalloc(4 * 64)
m.good[4, 64](o)
R["second"] = code_of(cudaDeviceSynchronize)
h = np.empty(64, np.int32)
cudaMemcpy(h, o, 256, cudaMemcpyDeviceToHost)
R["values"] = sorted(set(h.tolist()))
""", timeout=90)
    assert run.returncode == 0, run.explain()
    assert run.R["first"] == 700 and run.R["second"] == 0, run.R
    assert run.R["values"] == [32], run.R
