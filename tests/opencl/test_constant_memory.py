"""Constant memory in OpenCL: program-scope __constant variables (at most
CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, else clBuildProgram's
CL_BUILD_PROGRAM_FAILURE naming them), __constant pointer arguments
(CL_DEVICE_MAX_CONSTANT_ARGS of them, their buffers and the program's
variables within the same 64 KiB, else CL_OUT_OF_RESOURCES from
clEnqueueNDRangeKernel and clEnqueueTask, with nothing run), and writes to
constant memory, which do not compile."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

LIMIT = 65536


def build(context, src, options=None):
    p = clCreateProgramWithSource(context, [src])
    clBuildProgram(p, None, options)
    return p


def build_error(context, device, src) -> str:
    """The build log of a source that must fail with CL_BUILD_PROGRAM_FAILURE."""
    p = clCreateProgramWithSource(context, [src])
    with pytest.raises(CLError) as e:
        clBuildProgram(p)
    assert e.value.code == CL_BUILD_PROGRAM_FAILURE
    assert clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS) == CL_BUILD_ERROR
    return clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG)


def buffer_of(context, array):
    return clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, array.nbytes, array)


def read(queue, buf, n, dtype=np.int32):
    out = np.zeros(n, dtype)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, out.nbytes, out)
    return out


def guarded(context, queue, n):
    """An output buffer of n ints, all -7: a kernel that ran leaves no -7."""
    o = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * n)
    clEnqueueFillBuffer(queue, o, np.int32(-7), 4, 0, 4 * n)
    clFinish(queue)
    return o


def test_device_reports_the_limits(device):
    assert clGetDeviceInfo(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) == LIMIT
    assert clGetDeviceInfo(device, CL_DEVICE_MAX_CONSTANT_ARGS) == 8


def test_program_scope_constant_up_to_64KiB_builds_and_reads(context, queue, device):
    src = """
    __constant uchar table[65520] = {3, 1, 4, 1, 5};
    __constant int tail[4] = {10, 20, 30, 40};
    __kernel void k(__global int *o) {
        int i = get_global_id(0);
        o[i] = table[i] + tail[i % 4] + table[65519];
    }"""
    k = clCreateKernel(build(context, src), "k")
    o = guarded(context, queue, 8)
    clSetKernelArg(k, 0, o)
    clEnqueueNDRangeKernel(queue, k, 1, None, [8], [8])
    want = np.array([3, 1, 4, 1, 5, 0, 0, 0]) + np.array([10, 20, 30, 40] * 2)
    assert read(queue, o, 8).tolist() == want.tolist()


def test_program_scope_constant_past_64KiB_fails_the_build(context, device):
    log = build_error(context, device, """
    __constant uchar table[65536] = {1};
    __constant uchar one_more[1] = {2};
    __kernel void k(__global int *o) { o[0] = table[0] + one_more[0]; }""")
    assert "65537 bytes" in log and "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is 65536" in log
    assert "table (65536 bytes)" in log and "one_more (1 bytes)" in log
    # __global program-scope data is not constant memory: no limit
    build(context, "__global uchar big[100000];\n__constant uchar c[65536] = {1};\n"
          "__kernel void k(__global int *o) { big[1] = 2; o[0] = big[1] + c[0]; }")


def _kernel_of_constant_args(n):
    params = ", ".join(f"__constant int *c{i}" for i in range(n))
    body = " + ".join(f"c{i}[0]" for i in range(n))
    return f"__kernel void k(__global int *o, {params}) {{ o[get_global_id(0)] = {body}; }}"


def test_eight_constant_arguments_run(context, queue):
    k = clCreateKernel(build(context, _kernel_of_constant_args(8)), "k")
    o = guarded(context, queue, 4)
    clSetKernelArg(k, 0, o)
    for i in range(8):
        clSetKernelArg(k, 1 + i, buffer_of(context, np.array([1 << i], np.int32)))
    clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])
    assert read(queue, o, 4).tolist() == [255] * 4


def test_nine_constant_arguments_are_out_of_resources(context, queue):
    k = clCreateKernel(build(context, _kernel_of_constant_args(9)), "k")
    o = guarded(context, queue, 4)
    clSetKernelArg(k, 0, o)
    one = buffer_of(context, np.array([1], np.int32))
    for i in range(9):
        clSetKernelArg(k, 1 + i, one)
    for enqueue in (lambda: clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4]),
                    lambda: clEnqueueTask(queue, k)):
        with pytest.raises(CLError) as e:
            enqueue()
        assert e.value.code == CL_OUT_OF_RESOURCES
        msg = str(e.value)
        assert "k has 9 __constant pointer arguments" in msg
        assert "CL_DEVICE_MAX_CONSTANT_ARGS is 8" in msg and "(c8: int*)" in msg
    clFinish(queue)
    assert read(queue, o, 4).tolist() == [-7] * 4        # nothing ran


SUM2 = """
__constant int t[1024] = {100};
__kernel void k(__global int *o, __constant int *a, __constant int *b) {
    int i = get_global_id(0);
    o[i] = t[0] + a[i] + (b ? b[i] : 0);
}"""


def test_kernel_scope_constants_count_in_the_64KiB(context, queue, device):
    """A __constant variable at a kernel's outermost scope is constant memory
    of the program too (OpenCL C 6.5.3): it counts once, although the block
    function holds a second copy of the kernel's body."""
    src = """
    __constant uchar table[32768] = {1};
    __kernel void k(__global int *o) {
        __constant int tail[4] = {10, 20, 30, 40};
        int i = get_global_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        o[i] = tail[i % 4] + table[0];
    }
    __kernel void j(__global int *o) {
        __constant uchar more[SIZE] = {7};
        o[get_global_id(0)] = more[0];
    }"""
    k = clCreateKernel(build(context, src.replace("SIZE", "32752")), "k")     # 65536 - 16: fits exactly
    o = guarded(context, queue, 8)
    clSetKernelArg(k, 0, o)
    clEnqueueNDRangeKernel(queue, k, 1, None, [8], [8])
    assert read(queue, o, 8).tolist() == [11, 21, 31, 41] * 2
    # the kept count is the enqueue's too: one constant argument byte over
    arg = """
    __kernel void c(__global int *o, __constant uchar *a) {
        __constant uchar big[65535] = {5};
        o[0] = big[0] + a[0];
    }"""
    kc = clCreateKernel(build(context, arg), "c")
    clSetKernelArg(kc, 0, o)
    clSetKernelArg(kc, 1, buffer_of(context, np.ones(2, np.uint8)))
    with pytest.raises(CLError) as e:
        clEnqueueNDRangeKernel(queue, kc, 1, None, [1], [1])
    assert e.value.code == CL_OUT_OF_RESOURCES
    log = build_error(context, device, src.replace("SIZE", "32753"))
    assert "65537 bytes" in log and "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is 65536" in log
    assert "more (32753 bytes)" in log and "tail (16 bytes)" in log


def test_constant_buffers_and_program_constants_share_64KiB(context, queue):
    k = clCreateKernel(build(context, SUM2), "k")
    o = guarded(context, queue, 4)
    clSetKernelArg(k, 0, o)
    # 4096 bytes of t, then the two buffers: exactly 64 KiB in all runs
    a = buffer_of(context, np.arange(30720 // 4, dtype=np.int32))
    b = buffer_of(context, np.full(30720 // 4, 5, np.int32))
    clSetKernelArg(k, 1, a)
    clSetKernelArg(k, 2, b)
    clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])
    assert read(queue, o, 4).tolist() == [105, 106, 107, 108]
    clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])      # the kept launch: again
    # four bytes more in b: out of resources, on the kept path as on the first
    o2 = guarded(context, queue, 4)
    clSetKernelArg(k, 0, o2)
    big = buffer_of(context, np.full(30720 // 4 + 1, 9, np.int32))
    clSetKernelArg(k, 2, big)
    for _ in range(2):
        with pytest.raises(CLError) as e:
            clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])
        assert e.value.code == CL_OUT_OF_RESOURCES
        msg = str(e.value)
        assert "argument 2 (b: int*) of k" in msg and "30724 bytes" in msg
        assert "65540 bytes" in msg and "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (65536)" in msg
        assert "a 30720, b 30724" in msg and "variables 4096 bytes" in msg
    with pytest.raises(CLError) as e:
        clEnqueueTask(queue, k)
    assert e.value.code == CL_OUT_OF_RESOURCES
    clFinish(queue)
    assert read(queue, o2, 4).tolist() == [-7] * 4       # nothing ran
    assert read(queue, o, 4).tolist() == [105, 106, 107, 108]
    # a NULL __constant pointer takes nothing
    clSetKernelArg(k, 2, None)
    clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])
    assert read(queue, o2, 4).tolist() == [100, 101, 102, 103]


@pytest.mark.parametrize("src", [
    "__constant int t[2] = {1, 2};\n__kernel void k(__global int *o) { t[0] = o[0]; }",
    "__kernel void k(__global int *o, __constant int *c) { c[0] = o[0]; }",
    "__kernel void k(__global int *o) { __constant int t[2] = {1, 2}; t[1] = o[0]; }",
    "void f(__constant int *c, int v) { *c = v; }\n"
    "__kernel void k(__global int *o, __constant int *c) { f(c, o[0]); }",
], ids=["program_scope", "argument", "kernel_scope", "helper_parameter"])
def test_a_write_to_constant_memory_does_not_compile(context, device, src):
    """OpenCL C: "It is illegal to write to a variable in the constant address
    space and will result in a compilation error"."""
    assert "read-only" in build_error(context, device, src)


def test_reads_of_constant_memory_in_every_form(context, queue):
    src = """
    constant float w[3] = {0.25f, 0.5f, 0.25f};
    float tap(__constant const float *c, __constant float *d, int i) { return c[i] * d[i]; }
    __kernel void k(__global float *o, __constant float *x, constant float4 *v) {
        __constant int offs[2] = {1, 2};
        int i = get_global_id(0);
        o[i] = tap(w, x, i % 3) + v[0].y + offs[i % 2] + vload2(0, x).y;
    }"""
    k = clCreateKernel(build(context, src, "-cl-kernel-arg-info"), "k")
    o = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 16)
    x = np.array([2, 4, 8, 16], np.float32)
    v = np.array([1, 3, 5, 7], np.float32)
    clSetKernelArg(k, 0, o)
    clSetKernelArg(k, 1, buffer_of(context, x))
    clSetKernelArg(k, 2, buffer_of(context, v))
    clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])
    w = np.array([0.25, 0.5, 0.25], np.float32)
    want = [w[i % 3] * x[i % 3] + v[1] + [1, 2][i % 2] + x[1] for i in range(4)]
    assert read(queue, o, 4, np.float32).tolist() == want
    # what the program declared, not the const the compiler adds
    assert clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER) == \
        CL_KERNEL_ARG_ADDRESS_CONSTANT
    assert clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME) == "float*"
    assert clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_TYPE_NAME) == "float4*"


def test_local_pointers_to_constant_memory(context, queue):
    """__constant pointers declared in a kernel or a helper (several in one
    declaration), from an argument and from a program-scope array."""
    src = """
    __constant float tab[4] = {1, 2, 3, 4};
    float pick(__constant float *t, int i) { __constant float *u = t + 1; return u[i]; }
    __kernel void k(__global float *o, __constant float *c) {
        __constant float *q = c + 1, *r = tab;
        int i = get_global_id(0);
        o[i] = q[0] + r[i] + pick(tab, i % 3) + pick(c, 0);
    }"""
    k = clCreateKernel(build(context, src), "k")
    o = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 16)
    clSetKernelArg(k, 0, o)
    clSetKernelArg(k, 1, buffer_of(context, np.array([10, 20, 30, 40], np.float32)))
    clEnqueueNDRangeKernel(queue, k, 1, None, [4], [4])
    tab = np.array([1, 2, 3, 4], np.float32)
    want = [20 + tab[i] + tab[1 + i % 3] + 20 for i in range(4)]
    assert read(queue, o, 4, np.float32).tolist() == want
