"""The statements the block functions are built from are clang's
(pyemu/compiler/frontend/stmts.py, regions/tree.py): their kinds and parts,
declarations and parameters, through the front end's edits, and kernels a
token parser read wrongly or not at all."""
import numpy as np

from pyemu.compiler import frontend as fe
from pyemu.compiler.regions import blocks as _regions
from pyemu.compiler.regions import syntax as S
from pyemu.compiler.regions import tree as _tree
from pyemu.cuda import cudaDeviceSynchronize

from regions_util import both, managed, path_of  # noqa: F401  (managed: a fixture)

ROOT = "/nonexistent/pyemu/include"


def _tree_of(text: str, name: str, dialect: str = "cuda"):
    """(tokens, statements, declarations, param Decls) of function `name`
    of preprocessed `text`, as blocks.generate reads them (edits made)."""
    m = fe.parse(text, dialect, ROOT)
    moved = fe.Moved.of(m.edits)
    edited = fe.apply(text, m.edits)
    funcs = [f.moved(moved, moved.left, moved.last) for f in m.functions]
    toks = S.tokenize(edited, [])
    (g,) = [g for g in _regions._groups(toks, funcs) if g.name == name]
    stmts, decls = _tree.body(toks, g)
    return toks, stmts, decls, _tree.head(g)[2]


def _text(toks, lo, hi):
    return " ".join(t.text for t in toks[lo:hi])


def test_statement_kinds_and_their_parts():
    text = ('# 1 "k.cu"\n'
            "void pyemu_barrier(const char *);\n"
            "void f(int n, float *p, int d = 3) {\n"
            "  int a = 1, *b = &a, c[4] = {1, 2}, &r = a;\n"
            "  for (int i = 0; i < n; ++i) { p[i] = 0; }\n"
            "  if (n) p[0] = 1; else { p[1] = 2; }\n"
            "  do { n++; } while (n < 3);\n"
            "  switch (n) { case 1: case 2: p[0] = 1; break; default: ; }\n"
            "#pragma unroll\n"
            "  for (;;) break;\n"
            "  pyemu_barrier(\"k.cu:9\");\n"
            "  typedef int I;\n"
            "  return;\n"
            "}\n")
    toks, stmts, decls, params = _tree_of(text, "f")
    assert [s.kind for s in stmts] == ["decl", "for", "if", "do", "switch", "pragma", "for",
                                      "barrier", "other", "return"]
    d = stmts[0].decl
    assert _text(toks, *d.spec) == "int"
    assert [(x.name, _text(toks, *x.ptr), x.init_kind, _text(toks, *x.init), x.is_ref)
            for x in d.decls] == [("a", "", "=", "1", False), ("b", "*", "=", "& a", False),
                                  ("c", "", "=", "{ 1 , 2 }", False), ("r", "&", "=", "a", True)]
    assert _text(toks, *d.decls[2].suffix) == "[ 4 ]"
    loop = stmts[1]
    assert loop.init.kind == "decl" and _text(toks, loop.init.lo, loop.init.hi) == "int i = 0 ;"
    assert _text(toks, *loop.cond) == "i < n" and _text(toks, *loop.inc) == "++ i"
    assert [k.kind for k in stmts[2].kids] == ["expr", "compound"]
    assert _text(toks, *stmts[3].cond) == "n < 3"
    assert [k.kind for k in stmts[4].kids[0].kids] == ["label", "label", "expr", "break",
                                                       "label", "empty"]
    assert stmts[6].init.kind == "empty" and stmts[6].cond[0] == stmts[6].cond[1]
    assert stmts[7].barrier and _text(toks, *stmts[7].cond) == '"k.cu:9"'
    assert [(p.decls[0].name, p.decls[0].init_kind) for p in params] == [
        ("n", ""), ("p", ""), ("d", "=")]
    assert [dd.name for dd in decls[0].decls] == ["a", "b", "c", "r"] and len(decls) == 2


def test_declarations_through_the_edits():
    """OpenCL C: __local variables (replaced by smem's declarations), a
    kernel-scope __constant (given `static`) and a volatile store (an
    implicit warp step around it): every token has its statement."""
    text = ('# 1 "k.cl"\n'
            "typedef float float4 __attribute__((ext_vector_type(4)));\n"
            "__pyemu_kernel__ void k(__pyemu_as_global__ float *o) {\n"
            "  __pyemu_as_local__ float tile[4];\n"
            "  __pyemu_as_local__ int flag;\n"
            "  __pyemu_as_constant__ int cst = 3;\n"
            "  __pyemu_as_local__ volatile int v[4];\n"
            "  v[0] = 2;\n"
            "  o[0] = tile[0] + flag + v[0];\n"
            "}\n")
    toks, stmts, decls, params = _tree_of(text, "k", "opencl")
    kinds = [s.kind for s in stmts]
    assert kinds[0] == "decl" and "__pyemu_smem__" in stmts[0].decl.words
    assert stmts[0].decl.decls[0].name == "tile" and stmts[0].decl.decls[0].is_ref
    assert stmts[1].decl.decls[0].name == "flag" and stmts[1].decl.is_static
    assert "static" in stmts[2].decl.words and stmts[2].decl.decls[0].name == "cst"
    assert _text(toks, *stmts[2].decl.decls[0].init) == "3"
    step = stmts[4]
    assert step.kind == "compound" and [k.kind for k in step.kids] == ["expr", "expr"]
    assert _text(toks, step.kids[1].lo, step.kids[1].hi) == "pyemu_warp_step ( ) ;"
    assert [p.decls[0].name for p in params] == ["o"]
    assert stmts[-1].kind == "expr" and toks[stmts[-1].hi - 1].text == ";"


def test_a_parameter_with_a_default_value_gets_a_block_function(managed):
    """cuda-samples' shfl_scan_test takes `int *partial_sums = NULL`: the
    front end reads it as a parameter (a token scan could not)."""
    src = r"""
__global__ void k(int *a, int n, int *unused = NULL) {
    __shared__ int s[64];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[63 - threadIdx.x] * n;
}
"""
    k, fib = both(src, "k")
    x = np.arange(64, dtype=np.int32)
    for fn in (k, fib):
        a = managed(x)
        fn(a, np.int32(3), managed(np.zeros(1, np.int32)), grid=(1, 1, 1), block=(64, 1, 1))
        cudaDeviceSynchronize()
        np.testing.assert_array_equal(np.asarray(a[:64]), x[::-1] * 3)


def test_an_elaborated_struct_variable_crosses_a_barrier(managed):
    """`struct pair p;` is a declaration (clang), which a token parser took
    for a local type and sent to fibers: each thread keeps its own copy."""
    src = r"""
struct pair { int a, b; };
__global__ void k(int *o) {
    __shared__ int s[32];
    struct pair p;
    p.a = threadIdx.x; p.b = 2 * threadIdx.x;
    s[threadIdx.x] = p.a;
    __syncthreads();
    o[threadIdx.x] = s[31 - threadIdx.x] + p.b;
}
"""
    assert path_of(src, "k") == "block function"
    k, fib = both(src, "k")
    t = np.arange(32)
    for fn in (k, fib):
        o = managed(np.zeros(32, np.int32))
        fn(o, grid=(1, 1, 1), block=(32, 1, 1))
        cudaDeviceSynchronize()
        np.testing.assert_array_equal(np.asarray(o[:32]), (31 - t) + 2 * t)


def test_tokens_outside_clang_tree_keep_the_fiber_path():
    """A statement clang drops (it cannot read it) leaves tokens the tree
    does not place: the kernel gets no block function, for that reason."""
    src = ("__global__ void k(int *a) {\n  __shared__ int s[4];\n  s[threadIdx.x] = a[0];\n"
           "  __syncthreads();\n  a[1] = s[0] + undeclared_name;\n}\n")
    from regions_util import blocks
    b = blocks(src)
    path, why = b.paths["k"]
    assert path != "block function" and "outside the statements" in why, (path, why)



def test_a_restrict_parameter_copied_per_thread_compiles(monkeypatch):
    """OpenCL's spellings.cl passes its `restrict` parameter `in` to a
    function after a barrier, so each work-item keeps a copy: the copies'
    type drops the restrict, which g++ refuses in
    static_cast<T *__restrict__ *>(void *) (spellings.cl and the conformance
    corpus' qualifiers cases took the fiber path with a warning for it).
    Strict: a block function that does not compile fails here."""
    from pathlib import Path
    from pyemu.compiler import compile_source
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    lib = Path(__file__).resolve().parents[1] / "opencl" / "device_lib" / "kernels"
    mod = compile_source((lib / "spellings.cl").read_text(), dialect="opencl")
    assert "spellings" in mod.block_kernels
