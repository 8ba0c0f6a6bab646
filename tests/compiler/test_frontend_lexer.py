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
