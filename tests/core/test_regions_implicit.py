"""Implicit loop barriers (pyemu.compiler.regions.blocks._implicit, on unless
-DPYEMU_NO_IMPLICIT_BARRIERS): a kernel without __syncthreads() whose top-level
for loop has a uniform header gets a block function with the thread loop
inside that loop (as PoCL does), so g++ can vectorize across threads.  Golden
outputs against NumPy and the per-thread path (bit for bit for ints; floats
within a tolerance, since vectorized and scalar code may order a reduction
differently); loops that are not provably uniform keep the kernel
as it is; printf keeps each thread's own order.
"""
import re

import numpy as np
import pytest

from regions_util import NO_REGIONS, both, managed  # noqa: F401  (managed: a fixture)
from regions_util import blocks as _blocks
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import SourceModule, cudaDeviceSynchronize

ON = "-DPYEMU_TEST_IMPLICIT=1"          # the default; spelled out where a test relies on it
OFF = "-D" + _regions.NO_IMPLICIT_MACRO


def blocks(src, options=()):
    return _blocks(src, options, implicit=True)


def _same(got, ref, t):
    if t == "int":
        assert got.tobytes() == ref.tobytes()      # bit for bit, as thread by thread
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)

MATMUL = r"""
__global__ void mm(const T *a, const T *b, T *c, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    T sum = 0;
    for (int k = 0; k < K; k++)
        sum += a[row * K + k] * b[k * N + col];
    c[row * N + col] = sum;
}
"""

MATMUL_GUARDED = r"""
__global__ void mm(const T *a, const T *b, T *c, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        T sum = 0;
        for (int k = 0; k < K; k++)
            sum += a[row * K + k] * b[k * N + col];
        c[row * N + col] = sum;
    }
}
"""

MATMUL_GUARD_IN_LOOP = r"""
__global__ void mm(const T *a, const T *b, T *c, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    T sum = 0;
    for (int k = 0; k < K; k++) {
        if (row < M && col < N)
            sum += a[row * K + k] * b[k * N + col];
    }
    if (row < M && col < N)
        c[row * N + col] = sum;
}
"""

TYPES = {"float": np.float32, "int": np.int32}


def _inputs(t, m, n, k, seed):
    rng = np.random.default_rng(seed)
    if t == "int":
        return (rng.integers(-50, 50, (m, k)).astype(np.int32),
                rng.integers(-50, 50, (k, n)).astype(np.int32))
    return (rng.standard_normal((m, k)).astype(np.float32),
            rng.standard_normal((k, n)).astype(np.float32))


def _run(fn, managed, a, b, m, n, k, block, grid):
    dt = a.dtype
    da, db = managed(a), managed(b)
    dc = managed(np.full(m * n, 7, dt))
    fn[grid, block](da, db, dc, np.int32(m), np.int32(n), np.int32(k))
    cudaDeviceSynchronize()
    return np.array(dc[:m * n]).reshape(m, n)


@pytest.mark.parametrize("t", ["float", "int"])
@pytest.mark.parametrize("m,n,k,block", [(64, 96, 40, (32, 8)), (32, 32, 1, (16, 16)),
                                         (48, 24, 77, (8, 4)), (16, 64, 0, (32, 2))])
def test_matmul_exact_sizes_implicit_barrier(managed, t, m, n, k, block):
    fn, per_thread = both(MATMUL, "mm", ["-DT=" + t, ON])
    a, b = _inputs(t, m, n, k, m * n + k)
    grid = (n // block[0], m // block[1])
    got = _run(fn, managed, a, b, m, n, k, block, grid)
    ref = _run(per_thread, managed, a, b, m, n, k, block, grid)
    _same(got, ref, t)
    if t == "int":
        assert np.array_equal(got, a.astype(np.int64) @ b.astype(np.int64))
    else:
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("src", [MATMUL_GUARDED, MATMUL_GUARD_IN_LOOP], ids=["guard", "guard_in_loop"])
@pytest.mark.parametrize("t", ["float", "int"])
@pytest.mark.parametrize("m,n,k", [(37, 53, 29), (5, 70, 33), (64, 32, 16)])
def test_matmul_guarded_non_square(managed, src, t, m, n, k):
    # the guard around the loop is not uniform: that kernel gets a one-region
    # block function (it calls nothing); a uniform loop with the guard inside
    # gets the implicit barrier.  Both must match the per-thread path.
    fn, per_thread = both(src, "mm", ["-DT=" + t, ON])
    a, b = _inputs(t, m, n, k, m + n + k)
    block = (16, 8)
    grid = ((n + 15) // 16, (m + 7) // 8)
    got = _run(fn, managed, a, b, m, n, k, block, grid)
    ref = _run(per_thread, managed, a, b, m, n, k, block, grid)
    _same(got, ref, t)
    if t == "int":
        assert np.array_equal(got, a.astype(np.int64) @ b.astype(np.int64))
    else:
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_bench_matmul_naive_takes_the_implicit_barrier():
    from pathlib import Path
    import pyemu
    src = (Path(pyemu.__file__).parent / "tools" / "bench_kernels" / "matmul_naive.cu").read_text()
    m = SourceModule(src, options=[ON])
    assert m.compiled.block_kernels == ("matrixMul",)
    assert SourceModule(src).compiled.block_kernels == ("matrixMul",)   # on by default
    assert SourceModule(src, options=[OFF]).compiled.block_kernels == ()
    b = blocks(src)
    assert b.kernels == {"matrixMul": "pyemu_rg_matrixMul"} and not b.skipped
    # k stays one scalar for the block (the loop runs once per block), sum
    # gets a copy per thread, and the thread loop is inside the k loop
    assert re.search(r"int k = 0 ; for \(; k < N ; k \+\+ \) \{ \{ for \(unsigned pyemu_rg_tz = 0;",
                     b.text)
    fn = b.text[b.text.index("static bool pyemu_rg_matrixMul"):]
    assert "pyemu_barrier_diverged" not in fn and "pyemu_rg_exited" not in fn   # nothing can fail
    assert "pyemu_rg_vt->" not in fn          # no volatile stores in the thread loops


NOT_UNIFORM = {
    # the trip count depends on threadIdx
    "bound_threadIdx": r"""
__global__ void k(int *out, int n) {
    int s = 0;
    for (int i = 0; i < n + (int)threadIdx.x; i++) s += i * 3 + 1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}""",
    # the start depends on threadIdx (a grid-stride loop)
    "grid_stride": r"""
__global__ void k(int *out, int n) {
    int s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        s += i * 3 + 1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}""",
    # the bound is a parameter the kernel modifies per thread
    "modified_bound": r"""
__global__ void k(int *out, int n) {
    n += threadIdx.x & 3;
    int s = 0;
    for (int i = 0; i < n; i++) s += i * 3 + 1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}""",
    # a break leaves the loop at a different iteration in each thread
    "break": r"""
__global__ void k(int *out, int n) {
    int s = 0;
    for (int i = 0; i < n + 64; i++) { if (i >= n + (int)(threadIdx.x % 5)) break; s += i * 3 + 1; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}""",
    # some threads return before the loop
    "return_before": r"""
__global__ void k(int *out, int n) {
    if (threadIdx.x % 3 == 1) { out[blockIdx.x * blockDim.x + threadIdx.x] = -1; return; }
    int s = 0;
    for (int i = 0; i < n; i++) s += i * 3 + 1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}""",
}


def _not_uniform_ref(name, g, n):
    t = g % 64
    if name == "return_before" and t % 3 == 1:
        return -1
    stop = {"bound_threadIdx": n + t, "modified_bound": n + (t & 3),
            "break": n + t % 5}.get(name, n)
    if name == "grid_stride":
        return sum(i * 3 + 1 for i in range(g, n, 64 * 2))
    return sum(i * 3 + 1 for i in range(stop))


@pytest.mark.parametrize("name", sorted(NOT_UNIFORM))
def test_loop_not_provably_uniform_keeps_the_per_thread_path(managed, name):
    src = NOT_UNIFORM[name]
    b = blocks(src)
    # no implicit barrier; at most the one-region block function of a
    # kernel that calls nothing, whose threads run one after another
    assert "implicit barrier" not in b.text, b.text
    fn = SourceModule(src, options=[ON]).get_function("k")
    n = 50
    out = managed(np.zeros(128, np.int32))
    fn[2, 64](out, np.int32(n))
    cudaDeviceSynchronize()
    got = np.array(out[:128])
    want = [_not_uniform_ref(name, i, n) for i in range(128)]
    assert list(got) == want


PRINTF = r"""
__global__ void k(int n) {
    int acc = threadIdx.x * 100;
    for (int i = 0; i < n; i++) {
        acc += i;
        printf("t%d i%d acc%d\n", (int)threadIdx.x, i, acc);
    }
    printf("t%d done %d\n", (int)threadIdx.x, acc);
}
"""


def test_printf_in_the_loop_keeps_each_threads_order(capsys):
    # CUDA: the implicit barrier makes every thread print iteration 0 before
    # any prints iteration 1, which is what a GPU prints for the threads of
    # one warp (they run the loop in lockstep, each printf for all lanes).
    # OpenCL's reference, PoCL, puts no implicit barrier in a kernel without
    # barriers: there work-items print one after another (the next test).
    b = blocks(PRINTF)
    assert b.kernels == {"k": "pyemu_rg_k"}
    fn = SourceModule(PRINTF, options=[ON]).get_function("k")
    fn[1, 8](np.int32(4))
    cudaDeviceSynchronize()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 8 * 5
    for t in range(8):
        mine = [ln for ln in lines if ln.startswith(f"t{t} ")]
        acc, want = t * 100, []
        for i in range(4):
            acc += i
            want.append(f"t{t} i{i} acc{acc}")
        want.append(f"t{t} done {acc}")
        assert mine == want
    # the implicit barrier: every thread's iteration 0 comes before any iteration 1
    first_i1 = min(j for j, ln in enumerate(lines) if " i1 " in ln)
    assert max(j for j, ln in enumerate(lines) if " i0 " in ln) < first_i1


def test_no_regions_switch_turns_implicit_barriers_off():
    m = SourceModule(MATMUL, options=["-DT=float", ON, NO_REGIONS])
    assert m.compiled.block_kernels == ()


CL_PRINTF = r"""
__kernel void k(int n) {
    int acc = get_local_id(0) * 100;
    for (int i = 0; i < n; i++) {
        acc += i;
        printf("t%d i%d acc%d\n", (int)get_local_id(0), i, acc);
    }
}"""

CL_RUN = {
    "pyemu": """
import numpy as np
from pyemu.opencl import *
plat = clGetPlatformIDs()[0]; dev = clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU)[0]
ctx = clCreateContext(None, [dev]); q = clCreateCommandQueue(ctx, dev, 0)
prog = clCreateProgramWithSource(ctx, [SRC]); clBuildProgram(prog, [dev], "")
k = clCreateKernel(prog, "k"); clSetKernelArg(k, 0, np.int32(3))
clEnqueueNDRangeKernel(q, k, 1, None, (8,), (8,)); clFinish(q)
""",
    "pocl": """
import numpy as np, pyopencl as cl
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]]); q = cl.CommandQueue(ctx)
cl.Program(ctx, SRC).build().k(q, (8,), (8,), np.int32(3)); q.finish()
""",
}


def test_opencl_printf_in_a_barrier_free_loop_prints_as_pocl(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYEMU_CACHE_DIR=str(tmp_path), PYEMU_NUM_THREADS="1",
               PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = {}
    for who, code in CL_RUN.items():
        r = subprocess.run([sys.executable, "-c", f"SRC = {CL_PRINTF!r}\n" + code],
                           capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        out[who] = [ln for ln in r.stdout.splitlines() if ln.startswith("t")]
    assert out["pyemu"] == out["pocl"]
    assert out["pocl"][:3] == ["t0 i0 acc0", "t0 i1 acc1", "t0 i2 acc3"] and len(out["pocl"]) == 24
