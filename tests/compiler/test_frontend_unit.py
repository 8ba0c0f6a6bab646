"""pyemu.compiler.frontend on its own: libclang's parse of preprocessed text
(the scan's markers, as g++ -E leaves them) and the edits it gives."""
import pytest

from pyemu.compiler import frontend as fe
from pyemu.compiler.frontend.edits import apply
from pyemu.compiler.frontend.model import Edit

ROOT = "/nonexistent/pyemu/include"


def test_kernels_in_namespaces_templates_and_prototypes():
    text = ('# 1 "k.cu"\n'
            "__pyemu_global__ void proto(int *p);\n"
            "namespace a { namespace b { __pyemu_global__ void k(int *p) { p[0] = 1; } } }\n"
            "template <int N> __pyemu_global__ void t(float *o) { o[0] = N; }\n"
            "__pyemu_global__ void __launch_bounds__(2 * 64, 1) proto(int *p) {}\n"
            "void not_a_kernel(int *p) {}\n")
    m = fe.parse(text, "cuda", ROOT)
    ks = {k.qualified: k for k in m.kernels}
    assert list(ks) == ["proto", "a::b::k", "t"]
    assert ks["proto"].defined and ks["proto"].where == "k.cu:4"
    assert ks["proto"].max_threads == "2 * 64"
    assert ks["t"].template and not ks["a::b::k"].template
    assert ks["a::b::k"].where == "k.cu:2"
    assert ks["proto"].signature == "void (*)(int *)" and not ks["t"].signature


def test_kernel_named_like_an_overloaded_function_gets_its_type():
    text = ('int div(int a, int b);\n# 1 "k.cu"\n'
            "__pyemu_global__ void div(float *o) { o[0] = 1; }\n")
    (k,) = fe.parse(text, "cuda", ROOT).kernels
    assert k.qualified == "div" and k.signature == "void (*)(float *)"


def test_opencl_arguments_and_attributes():
    text = ('typedef unsigned int uint;\nstruct pair { int a, b; };\n# 1 "p.cl"\n'
            "__pyemu_kernel__ __attribute__((reqd_work_group_size(4*2, 1, 1))) "
            "void mm(__pyemu_as_global__ const float *__restrict__ A, "
            "__pyemu_as_local__ float *tmp, __pyemu_as_constant__ int *c, const uint n, "
            "unsigned char flag, __pyemu_as_global__ volatile int *v, struct pair p, "
            "__pyemu_as_global__ float arr[]) "
            "__attribute__((vec_type_hint(int))) { }\n")
    (k,) = fe.parse(text, "opencl", ROOT).kernels
    assert [p.name for p in k.params] == ["A", "tmp", "c", "n", "flag", "v", "p", "arr"]
    assert [p.type_name for p in k.params] == ["float*", "float*", "int*", "uint", "uchar",
                                               "int*", "struct pair", "float*"]
    assert [p.address for p in k.params] == ["global", "local", "constant", "private",
                                             "private", "global", "private", "global"]
    assert k.params[0].type_qualifiers == ("const", "restrict")
    assert k.params[2].type_qualifiers == ("const",)
    assert k.params[5].type_qualifiers == ("volatile",)
    assert dict(k.attributes) == {"reqd_work_group_size": ("4 * 2", "1", "1"),
                                  "vec_type_hint": ("int",)}


def test_file_scope_symbols():
    text = ('template <class T, int D> struct texture { };\n# 1 "s.cu"\n'
            '__attribute__((used, section("pyemu_const." "0"))) float c[4];\n'
            "int d;\ntexture<float, 2> tex;\n")
    m = fe.parse(text, "cuda", ROOT)
    assert [(s.qualified, s.kind) for s in m.symbols] == [("c", "constant"), ("d", "device"),
                                                          ("tex", "texture")]


def test_comments_and_strings_are_not_code():
    # g++ -E drops comments; a string that names a kernel qualifier is a string
    text = ('# 1 "k.cu"\n'
            'const char *s = "__pyemu_global__ void fake(int *p) {}";\n'
            "__pyemu_global__ void real(int *p) { const char *b = \"barrier(\"; }\n")
    assert [k.qualified for k in fe.parse(text, "cuda", ROOT).kernels] == ["real"]


def test_edits_apply_in_order_and_refuse_overlaps():
    assert apply("abcdef", [Edit(3, 3, "X"), Edit(0, 1, "A"), Edit(3, 3, "Y"),
                            Edit(4, 6, "")]) == "AbcXYd"
    with pytest.raises(ValueError):
        apply("abcdef", [Edit(0, 3, "x"), Edit(2, 4, "y")])


def test_without_libclang_the_error_names_the_fix(monkeypatch):
    import builtins
    from pyemu.compiler.frontend import libclang
    real = builtins.__import__

    def no_clang(name, *a, **kw):
        if name.startswith("clang"):
            raise ImportError("No module named 'clang'")
        return real(name, *a, **kw)
    libclang.cindex.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_clang)
    try:
        with pytest.raises(fe.FrontendUnavailable) as e:
            libclang.cindex()
        assert "pip install libclang" in str(e.value)
    finally:
        monkeypatch.undo()
        libclang.cindex.cache_clear()
    assert libclang.cindex() is not None


def test_a_damaged_precompiled_header_is_built_again(tmp_path):
    text = 'int shared_by_all;\n# 1 "k.cu"\n__pyemu_global__ void k(int *p) { p[0] = 1; }\n'
    split = text.index("# 1")
    first = fe.parse(text, "cuda", ROOT, split_at=split, pch_dir=tmp_path)
    (pch,) = tmp_path.glob("*.pch")
    for damage in (b"", b"not a precompiled header"):
        pch.write_bytes(damage)
        again = fe.parse(text, "cuda", ROOT, split_at=split, pch_dir=tmp_path)
        assert [k.qualified for k in again.kernels] == [k.qualified for k in first.kernels] == ["k"]


# ------------------------------------------- function records, call graph

HEAD = '# 1 "/nonexistent/pyemu/include/pyemu/abi.h"\n' \
       "void pyemu_barrier(const char *site);\n" \
       "unsigned __shfl_down_sync(unsigned m, unsigned v, unsigned d);\n" \
       "int atomicCAS(int *p, int c, int v);\n" \
       "namespace cooperative_groups { struct thread_block { static void sync() {} };\n" \
       "struct thread_group { void sync() const {} }; }\n"


def _records(text, dialect="cuda"):
    m = fe.parse(HEAD + text, dialect, ROOT)
    full = HEAD + text
    return m, full, {(f.kind, f.qualified or f.name): f for f in m.functions}


def test_every_function_definition_is_recorded_with_its_head_and_body():
    """Kernels, functions (a `struct` parameter too), templates, methods and
    lambdas at namespace scope; the head runs from the declaration's first
    token to the body's '{'; namespace heads as written; prototypes none."""
    text = ('# 1 "k.cu"\n'
            "struct pair { int a, b; };\n"
            "__attribute__((noinline)) int first(struct pair p) { return p.a; }\n"
            "namespace a { namespace b::c {\n"
            "template <class T> T twice(T v) { return v + v; }\n"
            "__pyemu_global__ void k(int *o) { o[0] = twice<int>(first(pair{1, 2})); }\n"
            "} }\n"
            "struct S { int m(int x) const { return x; } };\n"
            "auto lam = [](int x) { return x; };\n"
            "void proto(int);\n")
    m, full, recs = _records(text)
    assert set(recs) == {("function", "first"), ("function", "a::b::c::twice"),
                         ("kernel", "a::b::c::k"), ("other", "m"), ("other", "")}
    for f in m.functions:
        assert full[f.body[0]] == "{" and full[f.body[1]] == "}"
        assert full[f.head[1]] == "{"
    first = recs["function", "first"]
    assert full[first.head[0]:first.head[1]].strip() == \
        "__attribute__((noinline)) int first(struct pair p)"
    k = recs["kernel", "a::b::c::k"]
    assert [full[s:e].strip() for s, e in k.namespaces] == ["namespace a", "namespace b::c"]
    assert full[k.body[0]:k.body[1] + 1].startswith("{ o[0] = twice<int>")
    assert recs["function", "a::b::c::twice"].template and not k.template
    assert full[recs["function", "a::b::c::twice"].head[0]:].startswith("template <class T>")


def test_calls_are_resolved_by_clang_overloads_and_specializations():
    """An edge goes to the overload a call picks; a call of a template's
    specialization to the template; a call a template leaves dependent to
    every candidate."""
    text = ('# 1 "k.cu"\n'
            'void f(int *s) { pyemu_barrier("k.cu:2"); }\n'
            "void f(float *s) { }\n"
            "template <class T> void t(T *s) { f(s); }\n"
            "void g(float *x) { f(x); }\n"
            "void h(int *x) { t<int>(x); }\n")
    m, full, _ = _records(text)
    fs = {(f.name, full[f.head[0]:f.head[1]].strip()): f for f in m.functions}
    f_int, f_float = fs["f", "void f(int *s)"], fs["f", "void f(float *s)"]
    assert f_int.callees == {"pyemu_barrier"} and not f_float.callees
    g = fs["g", "void g(float *x)"]
    assert f_float.key in g.calls and f_int.key not in g.calls
    t = fs["t", "template <class T> void t(T *s)"]
    assert {f_int.key, f_float.key} <= t.calls           # dependent: both candidates
    assert t.key in fs["h", "void h(int *x)"].calls      # t<int>: the template


def test_warp_collectives_and_lock_atomics_are_facts_of_the_tree():
    """uses_warps: a call of a collective, or of cooperative_groups other
    than the block's own (thread_block, this_thread_block, its sync), in user
    code; the same names in a string, or in pyemu's headers, do not count.
    The block's sync becomes the barrier (an edit), which the function calls.
    takes_locks: a call of atomicCAS."""
    base = '# 1 "k.cu"\n__pyemu_global__ void k(unsigned *o) { %s }\n'
    m = fe.parse(HEAD + base % 'const char *s = "__shfl_down_sync(atomicCAS("; o[0] = s[0];',
                 "cuda", ROOT)
    assert not m.uses_warps and not m.takes_locks
    m = fe.parse(HEAD + base % "o[0] = __shfl_down_sync(~0u, o[1], 1);", "cuda", ROOT)
    assert m.uses_warps and not m.takes_locks
    m = fe.parse(HEAD + base % "cooperative_groups::thread_block b; (void)b;", "cuda", ROOT)
    assert not m.uses_warps
    m = fe.parse(HEAD + base % "cooperative_groups::thread_group g; g.sync();", "cuda", ROOT)
    assert m.uses_warps and not [e for e in m.edits if e.why == "cg-sync"]
    text = HEAD + base % "cooperative_groups::thread_block b; b.sync(); o[0] = 1;"
    m = fe.parse(text, "cuda", ROOT)
    assert not m.uses_warps
    (e,) = [e for e in m.edits if e.why == "cg-sync"]
    assert text[e.start:e.end] == "b.sync()" and e.text == 'pyemu_barrier("k.cu:1#cg1")', e
    (k,) = [f for f in m.functions if f.kind == "kernel"]
    assert "pyemu_barrier" in k.callees
    m = fe.parse(HEAD + base % "atomicCAS((int *)o, 0, 1);", "cuda", ROOT)
    assert m.takes_locks and not m.uses_warps


def test_warp_steps_make_a_warp_unit_and_are_calls_of_their_function():
    """A store through a volatile lvalue gets a warp step: the unit uses
    warps and the device function holding it calls pyemu_warp_step (the
    regions pass inlines it); with a lock-taking atomic in the unit, none."""
    text = ('# 1 "k.cu"\n'
            "void wr(volatile int *s, unsigned t) { s[t] += s[t + 1]; }\n"
            "__pyemu_global__ void k(int *o) { wr(o, 0); }\n")
    m = fe.parse(HEAD + text, "cuda", ROOT)
    assert m.uses_warps and any(e.why == "warp-step" for e in m.edits)
    (wr,) = [f for f in m.functions if f.name == "wr"]
    assert "pyemu_warp_step" in wr.callees
    m = fe.parse(HEAD + text.replace("wr(o, 0);", "wr(o, 0); atomicCAS(o, 0, 1);"), "cuda", ROOT)
    assert m.takes_locks and not m.uses_warps
    assert not any(e.why == "warp-step" for e in m.edits)


def test_no_warp_step_for_a_threads_own_volatile_variable():
    """A store to a thread's own automatic volatile scalar (PoCL's
    implicit_barriers.cl loop counter) needs no warp step: no other lane
    sees it.  Shared memory, a reference, an array element or a store
    through a pointer still get one."""
    def steps(body):
        m = fe.parse(HEAD + '# 1 "k.cu"\n__pyemu_global__ void k(volatile int *o) { '
                     + body + " }\n", "cuda", ROOT)
        return sum(e.why == "warp-step" for e in m.edits) // 2
    assert steps("volatile int a = 0; do { ++a; a += 2; a = a * 3; } while (a < 2);") == 0
    assert steps("__pyemu_shared__ volatile int f; f = 1;") == 1
    assert steps("__pyemu_shared__ volatile int s[4]; volatile int &r = s[0]; r = 1;") == 1
    assert steps("volatile int v[2]; v[0] = 1;") == 1
    assert steps("o[0] = 1; *o += 2;") == 2


def test_moved_maps_offsets_through_edits_and_substitutions():
    import re
    text = "ab(cd)ef"
    edits = [Edit(2, 3, " "), Edit(2, 2, "XY"), Edit(5, 6, "")]
    out = apply(text, edits)
    where = fe.Moved.of(edits)
    assert out == "abXY cdef"
    assert [out[where(p)] for p in (0, 1, 3, 4, 6, 7)] == list("abcdef")
    out2, again = fe.Moved.sub(re.compile("cd"), "Z", out)
    assert out2 == "abXY Zef" and out2[again(where(6))] == "e"


def test_call_statements_name_the_callee_clang_resolved():
    # regions/inline.py inlines a call only where this record says which
    # function it calls: an overload, a lambda or a method of the same name is
    # another function
    text = ('# 1 "k.cu"\n'
            "int f(int *p) { return p[0]; }\n"
            "int f(float *p) { return 1; }\n"
            "struct S { int f(int *p) { return 2; } };\n"
            "namespace ns { int g(int *p) { return 3; } }\n"
            "__pyemu_global__ void k(int *p, float *q) {\n"
            "  f(p);\n  int v = f(p);\n  v += f(q);\n  v = ns::g(p);\n"
            "  S s; s.f(p);\n  auto l = [](int *x) { return 0; }; l(p);\n  v = f(p) + 1;\n}\n")
    m = fe.parse(text, "cuda", ROOT)
    k = next(fn for fn in m.functions if fn.kind == "kernel")
    calls = [(st.kind, text[st.call[1]:st.call[1] + 5] if st.call else "", st.call[:1])
             for st in k.stmts]
    f_int = next(fn.key for fn in m.functions if fn.name == "f" and fn.kind == "function"
                 and "int *p) { return p" in text[fn.head[0]:fn.body[1]])
    f_flt = next(fn.key for fn in m.functions if fn.name == "f" and fn.kind == "function"
                 and fn.key != f_int)
    g = next(fn.key for fn in m.functions if fn.name == "g")
    assert f_int != f_flt
    assert calls == [("expr", "f(p);", (f_int,)), ("decl", "f(p);", (f_int,)),
                     ("expr", "f(q);", (f_flt,)), ("expr", "ns::g", (g,)),
                     ("decl", "", ()), ("expr", "", ()), ("decl", "", ()), ("expr", "", ()),
                     ("expr", "", ())]
