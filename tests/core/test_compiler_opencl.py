"""pyemu.compiler with dialect="opencl": build options, diagnostics, kernel info, block functions."""
import pytest

from pyemu.compiler import CompileError, CompileOptionError, compile_source

TILED = r"""
#define TS 16
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void matmul(__global const float *A, __global const float *B, __global float *C, const int N)
{
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int t = 0; t < N / TS; ++t) {
        As[ty][tx] = A[row * N + t * TS + tx];
        Bs[ty][tx] = B[(t * TS + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}

kernel void reduce(global const int *in, global int *out, local int *scratch, uint n)
{
    size_t lid = get_local_id(0), gid = get_global_id(0);
    scratch[lid] = gid < n ? in[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
"""


def test_barrier_kernels_get_block_functions_and_info():
    m = compile_source(TILED, dialect="opencl")
    assert set(m.kernel_names) == {"matmul", "reduce"}
    # both run region by region (work-item loops), not on fibers
    assert set(m.block_kernels) == {"matmul", "reduce"}
    assert m.kernel_info["matmul"]["reqd_work_group_size"] == [16, 16, 1]
    assert [a["address"] for a in m.kernel_info["reduce"]["args"]] == \
        ["global", "global", "local", "private"]
    again = compile_source(TILED, dialect="opencl")     # from the cache
    assert again.key == m.key and again.kernel_info == m.kernel_info


@pytest.mark.parametrize("bad", ["-cl-std=CL9.9", "--frobnicate", "-fopenmp", "-O2", "-D"])
def test_invalid_build_options(bad):
    with pytest.raises(CompileOptionError) as e:
        compile_source("kernel void k(void) {}", dialect="opencl", options=[bad])
    assert bad.split("=")[0] in str(e.value)


@pytest.mark.parametrize("std, version", [("CL1.1", 110), ("CL1.2", 120), ("CL2.0", 200),
                                          ("CL3.0", 300)])
def test_cl_std_sets_the_opencl_c_version(std, version):
    src = f"#if __OPENCL_C_VERSION__ != {version}\n#error wrong version\n#endif\nkernel void k(void) {{}}"
    compile_source(src, dialect="opencl", options=f"-cl-std={std}")
    with pytest.raises(CompileError):
        compile_source(src.replace(str(version), "1"), dialect="opencl", options=f"-cl-std={std}")


def test_define_options_in_both_spellings():
    src = "kernel void k(global int *a) { a[0] = N + M; }\n#if N != 4 || M != 5\n#error\n#endif\n"
    m = compile_source(src, dialect="opencl", options=["-D", "N=4", "-DM=5", "-cl-mad-enable",
                                                       "-cl-fast-relaxed-math", "-w"])
    assert m.kernel_names == ("k",)
    compile_source(src, dialect="opencl", options="-D N=4 -D M=5 -cl-opt-disable -cl-kernel-arg-info")


def test_diagnostics_point_at_the_users_lines():
    src = "kernel void k(global int *a)\n{\n    a[0] = undeclared_thing;\n}\n"
    with pytest.raises(CompileError) as e:
        compile_source(src, dialect="opencl", source_name="mine.cl")
    assert not isinstance(e.value, CompileOptionError)
    assert "mine.cl:3:" in e.value.diagnostics
    assert "undeclared_thing" in e.value.diagnostics


def test_c_names_that_are_cxx_keywords_compile():
    src = """
    int twice(int new) { return 2 * new; }
    kernel void k(global int *class, int this) {
        int template = twice(this);
        int and = template > 0, or = this < 100;
        if (and && or) class[0] = template;
    }"""
    m = compile_source(src, dialect="opencl")
    # clGetKernelArgInfo reports the names as written
    assert [a["name"] for a in m.kernel_info["k"]["args"]] == ["class", "this"]


def test_werror_turns_warnings_into_build_failures():
    src = "kernel void k(global int *a) { int x = 1 << 40; a[0] = x; }"   # shift overflow
    m = compile_source(src, dialect="opencl")
    assert "warning" in m.log
    with pytest.raises(CompileError) as e:
        compile_source(src, dialect="opencl", options=["-Werror"])
    assert "1 << 40" in e.value.diagnostics or "shift" in e.value.diagnostics


@pytest.mark.parametrize("dialect, src", [
    ("opencl", "kernel void k(global int *a) { a[get_global_id(0)] = 1; "
               "barrier(CLK_LOCAL_MEM_FENCE); printf(\"%d\\n\", 1); }"),
    ("cuda", "__global__ void k(int *a) { a[threadIdx.x] = 1; __syncthreads(); printf(\"%d\\n\", 1); }"),
])
@pytest.mark.parametrize("macro", ["name", "flags", "kind", "line", "file", "op", "fmt", "expr",
                                   "func", "site", "args", "params", "align", "bind"])
def test_user_macros_do_not_reach_pyemus_own_names(dialect, src, macro):
    # -D macros are defined before pyemu's headers are read
    m = compile_source(src, dialect=dialect, options=[f"-D{macro}=7"])
    assert m.kernel_names == ("k",)


@pytest.mark.parametrize("locale", ["C.UTF-8", "de_DE.UTF-8"])
def test_compiles_the_same_in_any_locale(monkeypatch, tmp_path, locale):
    """The driver reads some of g++'s messages (a vector condition of ?:):
    g++ runs in the C locale, so a user's UTF-8 or translated locale (other
    quotes, other words) builds the same kernel."""
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path))     # a real build, no hit
    for var in ("LC_ALL", "LANG", "LC_MESSAGES"):
        monkeypatch.setenv(var, locale)
    src = ("__kernel void sel(__global float4 *o, __global const float4 *x) {\n"
           "    int i = get_global_id(0);\n"
           "    o[i] = x[i] > (float4)(0.5f) ? x[i] : -x[i];\n"
           "}\n")
    m = compile_source(src, dialect="opencl", source_name=f"sel_{locale}.cl")
    assert m.kernel_names == ("sel",)
