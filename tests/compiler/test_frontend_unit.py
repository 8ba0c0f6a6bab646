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
