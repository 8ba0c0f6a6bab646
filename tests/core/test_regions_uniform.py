"""PoCL's implicit loop barriers in kernels with barriers, and the uniformity
analysis that places them (pyemu/compiler/regions/uniform.py).

An innermost barrier-free loop that every thread enters, with a condition
that is the same for all threads, and whose body calls a function (printf,
atomics: where the order shows), gets a barrier at the start and at the end
of its body, on both paths (the block function's regions, the fiber
variant's soft barriers): a printf in it prints iteration by iteration, as
PoCL prints (tests/opencl/test_pocl_workgroup.py runs PoCL's own kernels).
Loops that are not provably uniform keep running thread by thread; a kernel
without barriers gets none of these (PoCL adds them only where the kernel
has a barrier); results never change.
"""
import numpy as np
import pytest

from regions_util import NO_REGIONS, blocks, managed, path_of, unit_groups  # noqa: F401  (managed: a fixture)
from pyemu.compiler.regions import blocks as _regions
from pyemu.compiler.regions.uniform import Uniformity, with_loop_barriers
from pyemu.cuda import SourceModule, cudaDeviceSynchronize


@pytest.fixture(params=["0", "1"], ids=["picked", "fibers"])
def force(request, monkeypatch):
    monkeypatch.setenv(_regions.FORCE_ENV, request.param)
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    return request.param


def _kernel(src, name="k"):
    """(tokens, files, group) of kernel `name` in the preprocessed unit of src."""
    toks, files, groups = unit_groups(src)
    g = next(g for g in groups if g.kind == "kernel" and g.name == name)
    return toks, files, g


def _uniform_names(src):
    toks, files, g = _kernel(src)
    u = Uniformity(toks, files, g)
    return u, {toks[at].text for at in u.names}


# the uniform do-while of PoCL's implicit_barriers.cl (there `a` is volatile)
LOOPS = r"""
__global__ void k(int *out, int n) {
    __shared__ int buf[64];
    unsigned g = blockIdx.x;
    int t = threadIdx.x;
    buf[t] = blockDim.x - t;
    __syncthreads();
    printf("t%d before\n", t);
    if (g == 0) {
        printf("t%d inside\n", t);
        int a = 0;
        int index = 0;
        do {
            printf("t%d do %d value %d\n", t, a, buf[index]);
            ++index;
            ++a;
        } while (a < 2);
    }
    for (int i = 0; i < n; ++i)
        printf("t%d for %d\n", t, i);
    for (int i = 0; i < t; ++i)                 // not uniform: thread by thread
        printf("t%d vertical %d\n", t, i);
    out[t] = buf[t];
}
"""


def test_uniform_loops_print_iteration_by_iteration_on_both_paths(managed, force, capsys):
    want_path = "block function" if force == "0" else "fiber variant"
    assert path_of(LOOPS, "k") == want_path
    out = managed(np.zeros(3, np.int32))
    SourceModule(LOOPS).get_function("k")[1, 3](out, np.int32(2))
    cudaDeviceSynchronize()
    assert list(out) == [3, 2, 1]
    got = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("t")]
    ts = range(3)
    want = ([f"t{t} before" for t in ts] + [f"t{t} inside" for t in ts]
            + [f"t{t} do 0 value 3" for t in ts] + [f"t{t} do 1 value 2" for t in ts]
            + [f"t{t} for 0" for t in ts] + [f"t{t} for 1" for t in ts]
            + [f"t{t} vertical {i}" for t in ts for i in range(t)])
    assert got == want


def test_the_block_function_reads_a_uniform_counter_from_thread_0():
    b = blocks(LOOPS, implicit=True)
    fn = b.text[b.text.index("static bool pyemu_rg_k"):]
    assert "pyemu_barrier_diverged" not in fn       # no comparison of threads' conditions
    assert "const unsigned long pyemu_rg_lin = 0;" in fn   # the do-while's `a < 2`


def test_analysis_names_what_is_uniform():
    src = r"""
__global__ void k(int *out, int n, int *p) {
    __shared__ int s[32];
    int g = blockIdx.x * blockDim.x;        // uniform: block indices
    int t = threadIdx.x;                    // not: threadIdx
    volatile int a = 0;                     // uniform: uniform stores only
    int b = n;                              // not: a store under a non-uniform if
    int c = 1;                              // not: its address is taken
    int d = 0;                              // not: stored from memory
    int e = 0;                              // uniform: loop counter
    if (t == 0) b = 3;
    int *q = &c;
    d = p[0];
    s[t] = *q + d;
    __syncthreads();
    do { ++a; printf("%d\n", a); } while (a < 2);
    for (e = 0; e < n; e += 2) out[g + t] += e;     // uniform, but calls nothing
    { int t = 5; out[t] = t; }              // another t, uniform, in its scope
}"""
    u, names = _uniform_names(src)
    assert u.ok
    assert {"g", "a", "e", "n", "out", "p"} <= names
    assert not names & {"b", "c", "d", "q"}
    toks = u.toks
    ts = [at for at in u.names if toks[at].text == "t"]
    assert len(ts) == 1 and toks[ts[0] - 1].text == "int" and toks[ts[0] + 2].text == "5"
    assert [st.kind for st in u.loops] == ["do"]


NOT_UNIFORM = {
    "bound_threadIdx": "for (int i = 0; i < n + (int)threadIdx.x; i++) atomicAdd(&s[t], i);",
    "under_divergent_if": "if (t < 2) { for (int i = 0; i < n; i++) atomicAdd(&s[t], i); }",
    "break": "for (int i = 0; i < n; i++) { if (s[t] > 3) break; atomicAdd(&s[t], i); }",
    "continue": "for (int i = 0; i < n; i++) { if (t == 1) continue; atomicAdd(&s[t], i); }",
    "counter_in_divergent_branch": "int j = 0; if (t) j = 1; while (j < n) { atomicAdd(&s[t], j); j++; }",
    "counter_from_memory": "int j = s[0]; while (j < n) { atomicAdd(&s[t], j); j++; }",
    "not_innermost": "for (int i = 0; i < n; i++) for (int j = 0; j < t; j++) atomicAdd(&s[t], i);",
    "return_in_kernel": "if (n < 0) return; for (int i = 0; i < n; i++) atomicAdd(&s[t], i);",
}


@pytest.mark.parametrize("name", sorted(NOT_UNIFORM))
def test_loop_not_provably_uniform_gets_no_implicit_barrier(managed, name):
    body = NOT_UNIFORM[name]
    src = ("__global__ void k(int *out, int n) {\n    __shared__ int s[64];\n"
           "    int t = threadIdx.x;\n    s[t] = t;\n    __syncthreads();\n    "
           + body + "\n    __syncthreads();\n    out[t] = s[t];\n}")
    toks, files, g = _kernel(src)
    new, ng = with_loop_barriers(toks, files, g, _regions.BARRIER)
    assert new is toks and ng is g
    got = []
    for opts in ([], [NO_REGIONS]):          # the picked path, and thread by thread
        out = managed(np.zeros(8, np.int32))
        SourceModule(src, options=opts).get_function("k")[1, 8](out, np.int32(4))
        cudaDeviceSynchronize()
        got.append(np.array(out))
    assert np.array_equal(got[0], got[1]) and got[0].any()


def test_kernel_without_barriers_gets_none():
    # PoCL adds implicit loop barriers only to kernels with a barrier
    src = r"""
__global__ void k(int *out, int n) {
    for (int i = 0; i < n; i++) out[threadIdx.x] += i;
}"""
    toks, files, g = _kernel(src)
    assert with_loop_barriers(toks, files, g, _regions.BARRIER)[0] is toks


def test_results_unchanged_with_implicit_barriers(managed, force):
    # a uniform loop between barriers that reads what other threads wrote
    # before the first barrier: the same result on both paths and without
    # block functions
    src = r"""
__device__ int twice(int x) { return 2 * x; }

__global__ void k(int *out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 3;
    __syncthreads();
    int acc = 0;
    for (int i = 0; i < n; i++)
        acc += twice(s[(t + i) % 64]) * (i + 1);
    __syncthreads();
    s[t] = acc;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t];
}"""
    fn = SourceModule(src).get_function("k")
    out = managed(np.zeros(128, np.int32))
    fn[2, 64](out, np.int32(5))
    cudaDeviceSynchronize()
    t = np.arange(64)
    acc = sum(2 * ((t + i) % 64) * 3 * (i + 1) for i in range(5))
    toks, files, g = _kernel(src)
    assert with_loop_barriers(toks, files, g, _regions.BARRIER)[0] is not toks
    assert np.array_equal(out, np.tile(acc[::-1], 2))
