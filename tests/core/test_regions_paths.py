"""Issue 10, part 2: block functions and the fiber path agree.

* a loop whose trip count differs between threads and holds a barrier that
  none reaches is valid (the kernel takes the fiber path, which decides from
  what runs; a barrier really reached by part of the block still fails);
* both paths place the same implicit barriers (the fiber path through its
  variant's soft barriers), so a racy-but-tolerated kernel gives PoCL's
  result whichever path it takes (PYEMU_FORCE_FIBERS=1 forces the fibers);
* barriers in device functions are inlined into the block function, also
  when a function of the unit takes a `struct` parameter;
* each kernel's path and the reason are recorded (Blocks.paths, and
  PYEMU_DEBUG_PATHS=1 prints them)."""
import numpy as np
import pytest

from regions_util import blocks, managed, path_of  # noqa: F401  (managed: a fixture)
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import SourceModule, cudaDeviceSynchronize

UNREACHED = r"""
__global__ void k(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < 2 + t; i++) {
        s[t] += i;
        if (t >= blockDim.x) __syncthreads();     // no thread gets here
    }
    out[blockIdx.x * blockDim.x + t] = s[t];
}"""

RACY = r"""
__device__ void store(int *buf, int t) {
    buf[t] = t + 1;
    __syncthreads();
}
struct pair { int a, b; };
__device__ int first(struct pair p) { return p.a; }
__global__ void k(int *out, int flag) {
    __shared__ int buf[4];
    int t = threadIdx.x;
    for (int i = 0; i < 4; i++) buf[i] = 0;       // every thread clears it all
    if (flag) store(buf, t);                      // uniform: stores survive on both paths
    __syncthreads();
    out[t] = buf[t];
}"""


@pytest.fixture(params=["0", "1"], ids=["picked", "fibers"])
def force(request, monkeypatch):
    monkeypatch.setenv(_regions.FORCE_ENV, request.param)
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    return request.param


def test_unreached_barrier_in_divergent_loop_runs(managed, force):
    want = {"0": "fiber variant", "1": "fiber variant"}[force]
    assert path_of(UNREACHED, "k") == want
    assert "not provably uniform" in blocks(UNREACHED, implicit=True).paths["k"][1] or force == "1"
    out = managed(np.zeros(128, np.int32))
    SourceModule(UNREACHED).get_function("k")[2, 64](out)
    cudaDeviceSynchronize()
    t = np.arange(64)
    assert np.array_equal(out, np.tile(t + (1 + t) * (2 + t) // 2, 2))


def test_same_implicit_barriers_on_both_paths_and_inlined_function(managed, force):
    b = blocks(RACY, implicit=True)
    if force == "0":
        assert b.paths["k"] == ("block function", "")      # inlined; struct parameter read
    else:
        assert b.paths["k"][0] == "fiber variant"
    out = managed(np.zeros(4, np.int32))
    SourceModule(RACY).get_function("k")[1, 4](out, np.int32(1))
    cudaDeviceSynchronize()
    assert list(out) == [1, 2, 3, 4]                   # PoCL's result, not [0 0 0 4]


def test_function_that_cannot_be_inlined_takes_the_variant(managed, force):
    src = RACY.replace("    __syncthreads();\n}", "    __syncthreads();\n    return;\n}", 1)
    b = blocks(src, implicit=True)
    assert b.paths["k"][0] == "fiber variant"
    assert force == "1" or "cannot be inlined" in b.paths["k"][1]
    out = managed(np.zeros(4, np.int32))
    SourceModule(src).get_function("k")[1, 4](out, np.int32(1))
    cudaDeviceSynchronize()
    assert list(out) == [1, 2, 3, 4]


TEMPLATE_STORE = RACY.replace("__device__ void store(int *buf, int t)",
                              "template <class T> __device__ void store(T *buf, int t)").replace(
    "if (flag) store(buf, t);", "if (flag) store<int>(buf, t);")


def test_function_template_that_reaches_a_barrier_takes_the_variant(managed, force):
    """The front end's call graph sees the barrier in a function template
    (`template <class T>`, which the old token scan took for a class and so
    sent the whole unit to plain fibers: [0 0 0 4]); not inlined, the kernel
    takes its fiber variant, whose soft barriers give PoCL's result."""
    assert TEMPLATE_STORE != RACY
    b = blocks(TEMPLATE_STORE, implicit=True)
    assert b.paths["k"][0] == "fiber variant"
    assert force == "1" or "cannot be inlined" in b.paths["k"][1]
    out = managed(np.zeros(4, np.int32))
    SourceModule(TEMPLATE_STORE).get_function("k")[1, 4](out, np.int32(1))
    cudaDeviceSynchronize()
    assert list(out) == [1, 2, 3, 4]


def test_method_that_reaches_a_barrier_through_a_function_keeps_fibers(managed):
    """A method calling a device function that holds the barrier: the call
    graph follows it (the kernel's own tokens name neither the function nor
    a barrier), so no block function runs the barrier inside a region."""
    src = r"""
__device__ void sync_store(int *s, int t, int v) { s[t] = v; __syncthreads(); }
struct Acc { __device__ void put(int *s, int t, int v) { sync_store(s, t, v); } };
__global__ void k(int *out) {
    __shared__ int s[64];
    Acc a;
    int t = threadIdx.x;
    a.put(s, t, t * 2);
    out[t] = s[63 - t];
}"""
    b = blocks(src, implicit=True)
    assert "k" not in b.kernels and "lambda outside the kernels reaches" in b.paths["k"][1]
    out = managed(np.zeros(64, np.int32))
    SourceModule(src).get_function("k")[1, 64](out)
    cudaDeviceSynchronize()
    assert np.array_equal(out, (63 - np.arange(64)) * 2)


def test_syncthreads_count_on_the_variant(managed, force):
    src = r"""
__global__ void k(int *out, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) c += __syncthreads_count(threadIdx.x < 5 + i);
    out[threadIdx.x] = c;
}"""
    out = managed(np.zeros(32, np.int32))
    SourceModule(src).get_function("k")[1, 32](out, np.int32(3))
    cudaDeviceSynchronize()
    assert np.array_equal(out, np.full(32, 5 + 6 + 7))


def test_debug_paths_prints_each_kernel(capsys, monkeypatch):
    monkeypatch.setenv(_regions.DEBUG_ENV, "1")
    blocks(UNREACHED, implicit=True)
    err = capsys.readouterr().err
    assert "pyemu: kernel k: fiber variant (" in err and "not provably uniform" in err


def test_force_fibers_is_part_of_the_cache_key(monkeypatch):
    monkeypatch.setenv(_regions.FORCE_ENV, "0")
    a = _regions.VERSION
    monkeypatch.setenv(_regions.FORCE_ENV, "1")
    assert _regions.VERSION != a


def test_info_kernel_paths_says_which_path_and_why():
    from pyemu.tools import info
    paths = info.kernel_paths(UNREACHED + RACY.replace("void k(", "void k2("), "cuda")
    assert paths["k"][0] == "fiber variant" and "not provably uniform" in paths["k"][1]
    assert paths["k2"] == ("block function", "")


PARTIAL = r"""
__global__ void k(int *out, int n) {
    for (int i = 0; i < threadIdx.x; i++) __syncthreads();   // thread 0 never gets there
    out[threadIdx.x] = n;
}
__global__ void two(int *out) {
    __shared__ int s[8];
    s[threadIdx.x] = 1;
    if (threadIdx.x < 4) __syncthreads(); else __syncthreads();
    out[threadIdx.x] = s[7 - threadIdx.x];
}"""
PARTIAL_RUN = """
m = SourceModule(SOURCE)
o = cudaMalloc(4 * 8)
m.get_function(KERNEL)[1, 8](*([o, np.int32(1)] if KERNEL == "k" else [o]))
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"], R["message"] = int(e.code), str(e)
"""


@pytest.mark.parametrize("kernel,words", [("k", "returned without reaching it"),
                                          ("two", "wait at another one at")])
@pytest.mark.parametrize("mode", ["0", "1"], ids=["picked", "fibers"])
def test_barrier_really_reached_by_part_of_the_block_fails(run_cuda, kernel, words, mode):
    """A barrier that part of the block really reaches still fails the launch
    (cudaErrorLaunchFailure, naming the barrier), on the variant too."""
    run = run_cuda(PARTIAL_RUN, env={_regions.FORCE_ENV: mode, _regions.STRICT_ENV: "1"},
                   consts={"SOURCE": PARTIAL, "KERNEL": kernel})
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 719, run.R
    assert "__syncthreads() at kernel.cu:" in run.R["message"] and words in run.R["message"], run.R


NESTED_CALLS = r"""
__device__ void swap_halves(int *s, int t, int n) {
    int v = s[(t + n / 2) % n];          // `v` and `t` are the kernel's names too
    __syncthreads();
    s[t] = v;
    __syncthreads();
}
__device__ void twice(int *s, int t, int n) {
    swap_halves(s, t, n);
    if (n > 0) swap_halves(s, (t + 0), n);      // no braces around the call
}
__global__ void k(int *out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x, v = 7;
    s[t] = t;
    __syncthreads();
    if (n > 1) twice(s, t, n);
    __syncthreads();
    out[t] = s[t] * 10 + v;
}"""


def test_nested_inlined_calls_keep_their_meaning(managed, force):
    b = blocks(NESTED_CALLS, implicit=True)
    assert b.paths["k"][0] == ("block function" if force == "0" else "fiber variant"), b.paths
    out = managed(np.zeros(64, np.int32))
    SourceModule(NESTED_CALLS).get_function("k")[1, 64](out, np.int32(64))
    cudaDeviceSynchronize()
    assert np.array_equal(out, np.arange(64) * 10 + 7)     # four half swaps: back where it was


ASSERTS = r"""
#include <assert.h>
__global__ void checked(int *out, int n) {
    for (int i = 0; i < threadIdx.x; i++) {
        if (threadIdx.x >= blockDim.x) __syncthreads();
    }
    assert(threadIdx.x != 3 || n != 1);
    out[threadIdx.x] = n;
}"""
ASSERT_RUN = """
m = SourceModule(SOURCE)
o = cudaMalloc(4 * 8)
m.get_function("checked")[1, 8](o, np.int32(1))
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"], R["message"] = int(e.code), str(e)
"""


def test_assert_in_a_fiber_variant_names_the_kernel(run_cuda):
    run = run_cuda(ASSERT_RUN, env={_regions.STRICT_ENV: "1"}, consts={"SOURCE": ASSERTS})
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 710, run.R
    assert "checked" in run.R["message"] and "pyemu_fv_" not in run.R["message"], run.R
    assert "thread (3,0,0)" in run.R["message"], run.R
