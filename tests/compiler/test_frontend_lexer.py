"""clang's lexer as the compiler's one tokenizer (pyemu/compiler/frontend/lex.py),
and kernels the front end finds by its tree: out-of-line definitions of
namespace members (issue 10)."""
import numpy as np
import pytest

from pyemu.compiler import compile_source
from pyemu.compiler.frontend import lex


def _spelled(text):
    return [(k, text[a:b]) for k, a, b in lex.lex(text)]


def test_lexer_splits_as_cxx_does():
    text = ("int a = 1'000; auto s = R\"x(a)\" b)x\"; // note\n"
            "char c = '\\''; u8\"s\"; v.s3c5 <<= .5f; x::y; %: define Q \\\n new")
    assert _spelled(text) == [
        ("id", "int"), ("id", "a"), ("op", "="), ("num", "1'000"), ("op", ";"),
        ("id", "auto"), ("id", "s"), ("op", "="), ("raw", 'R"x(a)" b)x"'), ("op", ";"),
        ("comment", "// note"), ("id", "char"), ("id", "c"), ("op", "="), ("chr", "'\\''"),
        ("op", ";"), ("str", 'u8"s"'), ("op", ";"), ("id", "v"), ("op", "."), ("id", "s3c5"),
        ("op", "<<="), ("num", ".5f"), ("op", ";"), ("id", "x"), ("op", "::"), ("id", "y"),
        ("op", ";"), ("op", "%:"), ("id", "define"), ("id", "Q"), ("id", "new")]
    # offsets are the text's: each token's text is where lex() says
    for k, a, b in lex.lex(text):
        assert text[a:b].strip() == text[a:b] and b > a


def test_lexer_keeps_directives_and_the_wrapper_out():
    # the text's own #if/#endif (unbalanced too) are tokens like others
    text = "#endif\n#if 1\nint x;\n#else\n"
    assert [t for _, t in _spelled(text)] == ["#", "endif", "#", "if", "1", "int", "x", ";",
                                               "#", "else"]
    first = [(text[a:b], f) for _, a, b, f in lex.code(text, lex.lex(text))]
    assert first[:3] == [("#", True), ("endif", False), ("#", True)]
    assert lex.lex("") == []


def test_line_starts_see_comments_as_whitespace():
    text = "/* c */ # define A 1\n#define B /* a\n */ C\nD \\\n E"
    starts = [text[a:b] for _, a, b, f in lex.code(text, lex.lex(text)) if f]
    assert starts == ["#", "#", "D"]


def _run_cuda(src, name, n=4):
    from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaFree, cudaMallocManaged
    mod = SourceModule(src)
    o = cudaMallocManaged(n * 4, dtype=np.float32)
    try:
        o[:] = 0
        mod.get_function(name)(o, grid=(1, 1, 1), block=(n, 1, 1))
        cudaDeviceSynchronize()
        return list(np.array(o))
    finally:
        cudaFree(o)


OUT_OF_LINE = r"""
namespace ns { __global__ void k(float *p); }
namespace ns2 { namespace in { __global__ void k(float *p); } }
namespace one { __global__ void only(float *p); }
__global__ void ns::k(float *p) { p[threadIdx.x] = threadIdx.x * 2.0f; }
__global__ void ns2::in::k(float *p) { p[threadIdx.x] = 3.0f; }
__global__ void one::only(float *p) {
    __shared__ float s[4];
    s[threadIdx.x] = threadIdx.x + 1.0f;
    __syncthreads();
    p[threadIdx.x] = s[3 - threadIdx.x];
}
"""


def test_out_of_line_kernel_definitions_by_their_qualified_names():
    m = compile_source(OUT_OF_LINE)
    assert sorted(m.kernel_names) == ["ns2::in::k", "ns::k", "only"]
    assert _run_cuda(OUT_OF_LINE, "ns::k") == [0, 2, 4, 6]
    assert _run_cuda(OUT_OF_LINE, "ns2::in::k") == [3, 3, 3, 3]
    assert _run_cuda(OUT_OF_LINE, "only") == [4, 3, 2, 1]


def _compile_runs(monkeypatch):
    """The g++ runs that compile a unit (not those that preprocess), counted."""
    from pyemu.compiler import driver
    runs, run = [], driver._run

    def counting(cmd, *a, **kw):
        if driver._UNIT_NAME in cmd:
            runs.append(cmd)
        return run(cmd, *a, **kw)
    monkeypatch.setattr(driver, "_run", counting)
    return runs


BARRIER_TYPO = r"""
__global__ void k(float *p) {
    __shared__ float s[4];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    p[threadIdx.x] = s[3 - threadIdx.x] +;
}
"""


def test_a_users_error_costs_one_compile(monkeypatch, tmp_path):
    from pyemu.compiler import CompileError
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path))
    runs = _compile_runs(monkeypatch)
    with pytest.raises(CompileError) as e:
        compile_source(BARRIER_TYPO)
    assert "kernel.cu:6:" in str(e.value) and "error" in str(e.value)
    assert len(runs) == 1
    # the same kernel without the error has its block function, in one run
    runs.clear()
    m = compile_source(BARRIER_TYPO.replace(" +;", ";"))
    assert m.paths["k"] == ("block function", "") and len(runs) == 1


# g++ takes an initializer for a variable-length array (a GNU extension),
# clang refuses it: the front end reports it, the unit is built without its
# block functions first (a failure would be the user's alone), then with them
VLA_INIT = r"""
__device__ int first(int n) { int a[n] = {7}; return a[0] + n; }
__global__ void k(float *p) {
    __shared__ float s[4];
    s[threadIdx.x] = first(threadIdx.x + 1);
    __syncthreads();
    p[threadIdx.x] = s[3 - threadIdx.x];
}
"""


def test_units_clang_misreads_keep_their_block_functions(monkeypatch, tmp_path):
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path))
    runs = _compile_runs(monkeypatch)
    m = compile_source(VLA_INIT)
    assert len(runs) == 2 and m.block_kernels == ("k",)
    assert m.paths["k"] == ("block function", "")
    assert "kernel.cu:2: warning: pyemu's front end (libclang) could not read this" in m.log
    assert _run_cuda(VLA_INIT, "k") == [11, 10, 9, 8]


def test_block_functions_that_fail_after_a_misread_are_not_the_users(monkeypatch, tmp_path):
    from pyemu.compiler.regions import blocks as _regions
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path))
    generate = _regions.generate

    def broken(*a, **kw):     # block functions that g++ refuses: a bug of the pass
        b = generate(*a, **kw)
        b.body += "\nint pyemu_broken_block = undeclared_name;\n"
        return b
    monkeypatch.setattr(_regions, "generate", broken)
    runs = _compile_runs(monkeypatch)
    with pytest.warns(RuntimeWarning, match="block functions of kernel.cu did not compile"):
        m = compile_source(VLA_INIT)
    assert len(runs) == 2 and m.block_kernels == ()
    assert m.paths["k"][0] == "fibers"
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    with pytest.raises(_regions.RegionsBug):
        compile_source(VLA_INIT + "\n// again\n")
