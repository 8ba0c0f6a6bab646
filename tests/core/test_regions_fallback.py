"""Block functions (pyemu.compiler.regions): what keeps the fiber path, and stays
right; switching the pass off; diagnostics of kernels with block functions."""
import re

import numpy as np
import pytest

from regions_util import NO_REGIONS, blocks, both, managed, path_of  # noqa: F401
from test_regions import PLUS_REDUCE
from pyemu.compiler.regions import blocks as _regions
from pyemu.compiler import CompileError
from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaGetLastError

# ------------------------------------------------------------------ fallbacks

FALLBACKS = {
    "syncthreads_count": (r"""
__global__ void k(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    int c = __syncthreads_count(threadIdx.x % 3 == 0);
    __syncthreads();
    out[threadIdx.x] = c + s[63 - threadIdx.x];
}""", lambda t: 22 + (63 - t), "__syncthreads_count"),
    "barrier_in_device_function": (r"""
__device__ int swap_through(int *s, int v) {
    s[threadIdx.x] = v; __syncthreads();
    int w = s[blockDim.x - 1 - threadIdx.x]; __syncthreads();
    if (v < 0) return 0;          // two returns: not inlined (one at the end would be)
    return w;
}
__global__ void k(int *out) {
    __shared__ int s[64];
    int v = swap_through(s, threadIdx.x * 2);
    __syncthreads();
    out[threadIdx.x] = v;
}""", lambda t: (63 - t) * 2, "reaches __syncthreads()"),
    "goto": (r"""
__global__ void k(int *out) {
    __shared__ int s[64];
    int v = threadIdx.x;
    if (v < 0) goto done;
    s[v] = v + 1;
done:
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}""", lambda t: 64 - t, "goto"),
    "switch_with_barrier": (r"""
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    switch (mode) {
    case 1: __syncthreads(); out[threadIdx.x] = s[63 - threadIdx.x]; break;
    default: out[threadIdx.x] = 0;
    }
}""", lambda t: 63 - t, "switch"),
    "break_in_barrier_loop": (r"""
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    int acc = 0;
    for (int i = 0; i < 10; i++) {
        if (i == mode + 2 + (int)(threadIdx.x / 64)) break;   // not provably uniform
        s[threadIdx.x] = i * threadIdx.x;
        __syncthreads();
        acc += s[63 - threadIdx.x];
        __syncthreads();
    }
    out[threadIdx.x] = acc;
}""", lambda t: 3 * (63 - t), "break or continue"),
    "auto_crossing": (r"""
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    auto v = threadIdx.x * 3 + mode;
    v += mode;
    s[threadIdx.x] = v;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x] + v;
}""", lambda t: (63 - t) * 3 + 2 + t * 3 + 2, "'auto'"),
    "reference_crossing": (r"""
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    int &mine = s[threadIdx.x];
    mine = threadIdx.x + mode;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x] + mine;
}""", lambda t: 63 - t + 1 + t + 1, "reference"),
    "lambda": (r"""
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    auto f = [&](int x) { return x * 2 + mode; };
    s[threadIdx.x] = f(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}""", lambda t: (63 - t) * 2 + 1, "lambda"),
    "recursion": (r"""
__device__ int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    s[threadIdx.x] = depth(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x] + mode;
}""", lambda t: 63 - t + 1, "recurses"),
    "barrier_macro_in_expression": (r"""
#define SYNC_AND(x) (__syncthreads(), (x))
__global__ void k(int *out, int mode) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    int v = SYNC_AND(s[63 - threadIdx.x]) + mode;
    out[threadIdx.x] = v;
}""", lambda t: 63 - t + 1, "expression"),
}


@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_fallback_keeps_fiber_path_and_right_results_block_64(managed, case):
    src, want, why = FALLBACKS[case]
    m = SourceModule(src)
    assert path_of(src, "k") != "block function"
    assert why in blocks(src).skipped["k"]
    out = managed(np.zeros(64, np.int32))
    fn = m.get_function("k")
    if "mode" in src:
        fn[2, 64](out, np.int32(1))
    else:
        fn[2, 64](out)
    cudaDeviceSynchronize()
    assert np.array_equal(out, want(np.arange(64)))


def test_macro_barrier_statement_and_syncwarp_run_right(managed):
    """A barrier statement from a macro, then __syncwarp(): a warp collective
    in straight code, which the block function cuts at (regions/warpcut.py), right."""
    src = r"""
#define SYNC() do { } while (0); __syncthreads()
__global__ void k(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    SYNC();
    int v = s[63 - threadIdx.x];
    __syncwarp();
    out[threadIdx.x] = v;
}"""
    m = SourceModule(src)
    assert m.compiled.block_kernels == ("k",)  # the collective is cut
    k = m.get_function("k")
    out = managed(np.zeros(64, np.int32))
    k[1, 64](out)
    cudaDeviceSynchronize()
    assert np.array_equal(out, 63 - np.arange(64))


def test_large_private_copies_decline_to_fibers_block_1024(managed):
    """2 KiB of private array per thread crossing a barrier: with 1024 threads
    the copies would take 8 MiB of the worker's stack, so the block function
    declines and the block runs as fibers (64 KiB each), still right."""
    src = r"""
__global__ void big(int *out) {
    __shared__ int s[1024];
    int a[512];
    for (int i = 0; i < 512; i++) a[i] = threadIdx.x + i;
    s[threadIdx.x] = a[511];
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x] + a[threadIdx.x % 512];
}"""
    k, _ = both(src, "big")
    for threads in (64, 1024):
        out = managed(np.zeros(threads, np.int32))
        k[2, threads](out)
        cudaDeviceSynchronize()
        t = np.arange(threads)
        assert np.array_equal(out, (threads - 1 - t + 511) + t + t % 512)


# ------------------------------------------------------- switch, diagnostics

def test_disabled_by_macro_and_kernels_without_barriers_that_call_untouched():
    """A kernel without barriers gets a one-region block function only when
    it calls nothing (a call keeps the plain loop, which sets threadIdx)."""
    src = PLUS_REDUCE + ("__global__ void plain(int *a) { a[threadIdx.x] = 1; }\n"
                         "__global__ void calls(int *a) { atomicAdd(a, threadIdx.x); }\n")
    m = SourceModule(src, options=["-Dblocksize=64"])
    assert sorted(m.compiled.block_kernels) == ["plain", "plus_reduce"]
    assert SourceModule(src, options=["-Dblocksize=64", NO_REGIONS]).compiled.block_kernels == ()
    assert "calls" not in blocks(src, ["-Dblocksize=64"]).kernels


def test_compile_error_in_barrier_kernel_reported_once_at_user_line():
    src = "__global__ void k(int *a) {\n  __shared__ int s[4];\n  s[0] = 1;\n" \
          "  __syncthreads();\n  a[0] = undefined_name + s[0];\n}\n"
    with pytest.raises(CompileError) as e:
        SourceModule(src)
    text = str(e.value)
    assert text.count("undefined_name") == 1 or text.count("kernel.cu:5") >= 1, text
    assert len(re.findall(r"kernel\.cu:5:\d+: error", text)) == 1, text
    assert "pyemu_rg" not in text, text


def test_warnings_of_block_functions_not_duplicated():
    src = "__global__ void k(int *a) {\n  __shared__ int s[4];\n  int unused_here = 3;\n" \
          "  s[0] = a[0] / 0;\n  __syncthreads();\n  a[1] = s[0];\n}\n"
    m = SourceModule(src)
    assert m.compiled.block_kernels == ("k",)
    assert m.compiled.log.count("division by zero") == 1, m.compiled.log
    assert "pyemu_rg" not in m.compiled.log


def _break_block_functions(monkeypatch):
    """The pass's output made wrong on purpose: what a bug of it would give."""
    real = _regions.generate

    def broken(*a, **k):
        b = real(*a, **k)
        assert "return true; }" in b.body
        b.body = b.body.replace("return true; }", "return this_is_not_declared; }")
        return b
    monkeypatch.setattr(_regions, "generate", broken)


def test_generated_code_failing_where_kernel_compiles_falls_back(monkeypatch):
    """A block function g++ rejects (a bug of the pass) costs a second build
    without block functions, never a compile error, and a RuntimeWarning says
    so (the build is new each time: a cached module warns no more)."""
    monkeypatch.setenv(_regions.STRICT_ENV, "0")
    _break_block_functions(monkeypatch)
    src = PLUS_REDUCE.replace("plus_reduce", "plus_reduce_broken")
    import time
    with pytest.warns(RuntimeWarning, match="block functions .* did not compile"):
        m = SourceModule(src, options=["-Dblocksize=32", f"-DFORCE_NEW_KEY={time.time_ns()}"])
    assert m.compiled.block_kernels == ()
    assert m.compiled.paths["plus_reduce_broken"][0] == "fibers"
    assert "this_is_not_declared" not in m.compiled.log
    cudaGetLastError()


def test_generated_code_failing_raises_under_strict(monkeypatch):
    """In tests (PYEMU_REGIONS_STRICT=1) the same bug fails the build with
    RegionsBug, which shows what g++ said about the generated code."""
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    _break_block_functions(monkeypatch)
    import time
    with pytest.raises(_regions.RegionsBug, match="this_is_not_declared"):
        SourceModule(PLUS_REDUCE, options=["-Dblocksize=32", f"-DFORCE_NEW_KEY={time.time_ns()}"])


def test_user_error_in_a_kernel_with_block_functions_is_reported_once(monkeypatch):
    """A kernel whose block function is generated (it has barriers) and that
    holds an error: the build without block functions fails too, so the
    error is the user's, told once at the user's line and column, no RegionsBug
    even under PYEMU_REGIONS_STRICT=1.  (A call of an undeclared function:
    clang's tree keeps the statement; one it drops, as `x + undeclared;`,
    leaves tokens the pass cannot place, and the kernel no block function.)"""
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    src = ("__global__ void k(int *a) {\n  __shared__ int s[4];\n  s[threadIdx.x] = a[0];\n"
           "  __syncthreads();\n  a[1] = s[0] + not_declared_here(0);\n}\n")
    assert blocks(src).kernels == {"k": "pyemu_rg_k"}     # it has a block function
    with pytest.raises(CompileError) as e:
        SourceModule(src)
    diag = e.value.diagnostics
    assert diag.count("error: 'not_declared_here' was not declared") == 1, diag
    assert "kernel.cu:5:17: error: 'not_declared_here'" in diag, diag
    assert "pyemu_rg" not in diag and "<pyemu-regions>" not in diag


def test_name_clashes_and_shadowing_keep_meaning(managed):
    """Privatized names reused in inner scopes, in later loops and as locals."""
    src = r"""
__global__ void k(int *out, int n) {
    __shared__ int s[64];
    int i = threadIdx.x;               // private (modified below)
    int total = 0;
    i *= 2;
    __syncthreads();
    for (int i = 0; i < n; i++) {      // another i, uniform
        s[threadIdx.x] = i;
        __syncthreads();
        total += s[(threadIdx.x + i) % 64];
        __syncthreads();
    }
    { int total = 1000; s[threadIdx.x] = total; }
    __syncthreads();
    for (int i = 0; i < 2; i++) total += i;     // opaque loop, yet another i
    out[threadIdx.x] = total * 1000 + i + s[0];
}"""
    # each `i` is its own variable (uniform.py resolves names by scope): the
    # loop's condition is uniform, and the last loop (uniform, innermost,
    # without a barrier) takes PoCL's implicit loop barriers
    k, _ = both(src, "k")
    out = managed(np.zeros(64, np.int32))
    k[1, 64](out, np.int32(5))
    cudaDeviceSynchronize()
    t = np.arange(64)
    assert np.array_equal(out, (sum(range(5)) + 1) * 1000 + 2 * t + 1000)


