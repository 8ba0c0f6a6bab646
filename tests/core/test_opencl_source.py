"""pyemu.compiler.opencl: the OpenCL C rewrite and the kernel argument scan (pure text)."""
import pytest

from pyemu.compiler.opencl import kernel_info, rewrite_opencl
from pyemu.compiler.smem import segment


def lines_kept(src):
    out = rewrite_opencl(src)
    assert out.count("\n") == src.count("\n")
    return out


@pytest.mark.parametrize("src, want", [
    ("v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);", "v =  float4 (1.0f, 2.0f, 3.0f, 4.0f);"),
    ("v = (uint2)(x);", "v =  uint2 (x);"),
    ("return (double16)(0.0);", "return  double16 (0.0);"),
    ("f((float4)(a, b), (int3)(1, 2, 3));", "f( float4 (a, b),  int3 (1, 2, 3));"),
    ("#define ONE (float4)(1.0f)", "#define ONE  float4 (1.0f)"),
    ("#define F(x) ((float2)(x, x))", "#define F(x) ( float2 (x, x))"),
])
def test_vector_literals_become_constructor_calls(src, want):
    assert lines_kept(src) == want


@pytest.mark.parametrize("src", [
    "n = sizeof(float4) * 2;",        # sizeof of a type, then an operator
    "s = sizeof(float4)(x);",
    "void f(float4)(void);",
    "(float)(x + y)",                 # scalar casts are C and C++ alike
    "a[(int)(i)]",
    "#define G(float4) (x)",          # a macro parameter list
    "/* (float4)(1, 2, 3, 4) */",
    '"(float4)(1, 2)"',
])
def test_other_parentheses_are_left_alone(src):
    assert lines_kept(src) == src


def test_kernel_scope_local_and_constant_variables():
    src = """__kernel void k(__global float *out, __local float *scratch) {
    __local float tile[16][16];
    local int count;
    __local float *p = tile[0];
    __constant int tbl[3] = {1, 2, 3};
    volatile __local int flag;
    int x = (int)tile[0][0];
}"""
    out = lines_kept(src).splitlines()
    assert out[0] == src.splitlines()[0]                    # parameters untouched
    # kernel-scope __local variables: references into the work-group's arena,
    # in the kernel's own segment (pyemu.compiler.smem)
    seg = segment("k")
    assert out[1].strip() == \
        f"__pyemu_smem__ auto &tile = (pyemu_smem<{seg}ul, 1, float, 0, (16), (16)>());"
    assert out[2].strip() == f"__pyemu_smem__ auto &count = (pyemu_smem<{seg}ul, 2, int, 0>());"
    assert out[3].strip() == "__local float *p = tile[0];"  # a pointer to local memory
    assert out[4].strip() == "static __constant int tbl[3] = {1, 2, 3};"
    assert out[5].strip() == \
        f"__pyemu_smem__ auto &flag = (pyemu_smem<{seg}ul, 3, volatile int, 0>());"
    assert out[6].strip() == "int x = (int)tile[0][0];"


def test_program_scope_constant_is_left_alone():
    src = "__constant float w[2] = {0.5f, 0.25f};\n__local_thing x;"
    assert lines_kept(src) == src


def test_cxx_only_keywords_are_renamed():
    src = "int new = 1, class = 2; // this\n#define this 3\nint template = this + new;"
    out = lines_kept(src)
    assert "int pyemu_kw_new = 1, pyemu_kw_class = 2; // this" in out
    assert "#define pyemu_kw_this 3" in out
    assert "int pyemu_kw_template = pyemu_kw_this + pyemu_kw_new;" in out


def test_include_and_pragma_lines_keep_their_words():
    src = '#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#include "new.h"\n'
    assert lines_kept(src) == src


SCAN = '''# 1 "program.cl"
__pyemu_kernel__ __attribute__((reqd_work_group_size(16, 16, 1))) void mm(
    __pyemu_as_global__ const float * __restrict__ A, __pyemu_as_local__ float *tmp,
    __pyemu_as_constant__ float4 *c, const unsigned int n, unsigned char flag,
    __pyemu_as_global__ volatile int *v, struct pair p, __pyemu_as_global__ float arr[])
{ }
__pyemu_kernel__ void noargs(void) { }
__pyemu_kernel__ void proto(__pyemu_as_global__ int *a);
__pyemu_kernel__ void hinted(__pyemu_as_global__ int *x)
    __attribute__((work_group_size_hint(64, 1, 1))) __attribute__((vec_type_hint(float4))) { }
'''


def test_kernel_info_names_types_and_qualifiers():
    info = kernel_info(SCAN)
    assert list(info) == ["mm", "noargs", "proto", "hinted"]
    args = info["mm"]["args"]
    assert [a["name"] for a in args] == ["A", "tmp", "c", "n", "flag", "v", "p", "arr"]
    assert [a["type_name"] for a in args] == ["float*", "float*", "float4*", "uint", "uchar",
                                              "int*", "struct pair", "float*"]
    assert [a["address"] for a in args] == ["global", "local", "constant", "private", "private",
                                            "global", "private", "global"]
    assert args[0]["type_qualifiers"] == ["const", "restrict"]
    assert args[2]["type_qualifiers"] == ["const"]      # __constant pointers are const
    assert args[3]["type_qualifiers"] == []             # only pointers have type qualifiers
    assert args[5]["type_qualifiers"] == ["volatile"]
    assert all(a["access"] == "none" for a in args)
    assert info["mm"]["reqd_work_group_size"] == [16, 16, 1]
    assert info["mm"]["attributes"] == "reqd_work_group_size(16,16,1)"
    assert info["noargs"]["args"] == []
    assert info["hinted"]["work_group_size_hint"] == [64, 1, 1]
    assert info["hinted"]["attributes"] == "work_group_size_hint(64,1,1) vec_type_hint(float4)"


def test_kernel_info_without_kernels():
    assert kernel_info("int f(void) { return 0; }") == {}


def _gen_cl():
    from pyemu.compiler import gen_cl
    return gen_cl


def test_work_item_calls_with_a_literal_dimension_read_the_field():
    out = lines_kept("size_t i = get_global_id(0) + get_local_id(1u) + get_num_groups(d);")
    assert out == ("size_t i = pyemu_cl_get_global_id_x + pyemu_cl_get_local_id_y"
                   " + get_num_groups(d);")


def test_swizzles_without_members_are_spelled_as_templates():
    gen = _gen_cl()
    out = rewrite_opencl("q.sCdEf = v.xxyy; e.lo.hi = w.odd.lo; a.xy = b.zw; p.s3c5;", gen)
    assert "q.pyemu_sw4<0xcdef>() = v.xxyy;" in out          # mixed-case hex digits
    assert "e.lo.pyemu_hi() = w.odd.pyemu_lo();" in out     # a swizzle of a swizzle
    assert "a.xy = b.zw;" in out                            # members stay members
    assert "p.pyemu_sw3<0x3c5>()" in out


def test_local_declared_in_a_macro_body():
    src = ("#define KERNEL(NAME, T) __kernel void NAME(__global T *o) { \\\n"
           "    __local T buf[64]; __local T *p = buf; o[0] = p[0]; }\n"
           "#define LPTR __local float *\n#define L __local\n")
    out = lines_kept(src)
    assert "{ \\\n    static __thread __local T buf[64]; __local T *p = buf;" in out
    assert "#define LPTR __local float *" in out and "#define L __local\n" in out


def test_vector_conditions_become_selects():
    from pyemu.compiler.opencl import vector_ternary
    t = "  out[i] = x > y ? x : y + 1.0f;\n  r = f(a, (u < 0) ? b : d ? e : g, h);\n"
    first = vector_ternary(t, t.index(">"))
    assert first.splitlines()[0] == "  out[i] = pyemu_vternary(x > y , x , y + 1.0f);"
    second = vector_ternary(t, t.index("u <") + 2)
    assert second.splitlines()[1] == "  r = f(a, pyemu_vternary((u < 0) , b , d ? e : g), h);"
    assert vector_ternary("if (v) x = 1;", 4) is None
