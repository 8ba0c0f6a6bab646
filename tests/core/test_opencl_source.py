"""pyemu.compiler.opencl: the source-level OpenCL C pass (pure text).  Vector
literals, vector selects, __local declarations and the kernel argument info
are the front end's: tests/compiler/."""
import pytest

from pyemu.compiler.opencl import rewrite_opencl
from pyemu.compiler.smem import segment


def lines_kept(src):
    out = rewrite_opencl(src)
    assert out.count("\n") == src.count("\n")
    return out


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
