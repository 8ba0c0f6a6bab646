"""Regression tests for kernels the token scans used to get silently wrong
(issue 10): each gives the right result now, or fails to build with an error.
"""
import numpy as np
import pytest

from pyemu.compiler import compile_source


def _cl_run(src, name, gws, lws, nout, dtype=np.int32):
    from pyemu.opencl import (CL_DEVICE_TYPE_DEFAULT, CL_MEM_READ_WRITE, CL_TRUE,
                              clBuildProgram, clCreateBuffer, clCreateCommandQueue,
                              clCreateContext, clCreateKernel, clCreateProgramWithSource,
                              clEnqueueNDRangeKernel, clEnqueueReadBuffer, clGetDeviceIDs,
                              clGetPlatformIDs, clSetKernelArg)
    p = clGetPlatformIDs()[0]
    dev = clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT)[0]
    ctx = clCreateContext(None, [dev])
    q = clCreateCommandQueue(ctx, dev, 0)
    prog = clCreateProgramWithSource(ctx, [src])
    clBuildProgram(prog)
    k = clCreateKernel(prog, name)
    out = np.zeros(nout, dtype)
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, out.nbytes)
    clSetKernelArg(k, 0, b)
    clEnqueueNDRangeKernel(q, k, 1, None, [gws], [lws] if lws else None)
    clEnqueueReadBuffer(q, b, CL_TRUE, 0, out.nbytes, out)
    return out, k, dev, q


def test_typedefd_vector_literal_is_a_literal_not_a_comma_expression():
    src = r"""
typedef float4 vec4;
typedef vec4 v4;
#define MAKE(a) ((v4)(a, 2, 3, 4))
float first(vec4 v) { return v.x; }
__kernel void k(__global float *o) {
    vec4 v = (vec4)(1, 2, 3, 4);
    v4 w = MAKE(5);
    o[0] = v.x; o[1] = v.w; o[2] = w.x; o[3] = w.y;
    o[4] = first((vec4)(7, 8, 9, 10));
}"""
    out, *_ = _cl_run(src, "k", 1, 1, 5, np.float32)
    assert list(out) == [1.0, 4.0, 5.0, 2.0, 7.0]


def test_reqd_work_group_size_through_define_arithmetic():
    from pyemu.opencl import (CL_INVALID_WORK_GROUP_SIZE, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                              CLError, clEnqueueNDRangeKernel, clGetKernelWorkGroupInfo)
    src = r"""
#define BS 4
__kernel __attribute__((reqd_work_group_size(BS*2, 1, 1))) void k(__global int *o) {
    o[get_global_id(0)] = get_local_size(0);
}"""
    out, k, dev, q = _cl_run(src, "k", 64, 8, 64)
    assert list(out) == [8] * 64
    assert clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE) == [8, 1, 1]
    with pytest.raises(CLError) as e:
        clEnqueueNDRangeKernel(q, k, 1, None, [64], [4])
    assert e.value.code == CL_INVALID_WORK_GROUP_SIZE


def test_work_group_size_hint_with_shifts_and_reqd_of_zero_is_refused():
    m = compile_source(r"""
#define BS 4
__kernel __attribute__((work_group_size_hint(BS << 2, (2 > 1) + 1, 1))) void h(__global int *o) {}
""", dialect="opencl")
    assert m.kernel_info["h"]["work_group_size_hint"] == [16, 2, 1]
    assert m.kernel_info["h"]["reqd_work_group_size"] == [0, 0, 0]
    from pyemu.compiler import CompileError
    with pytest.raises(CompileError) as e:
        compile_source("__kernel __attribute__((reqd_work_group_size(4 - 4, 1, 1))) "
                       "void z(__global int *o) {}", dialect="opencl")
    assert "reqd_work_group_size" in str(e.value)


@pytest.mark.parametrize("name", ["div", "abs", "labs"])
def test_kernel_named_like_a_c_library_function(name):
    from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaMallocManaged
    m = SourceModule("__global__ void %s(float *o) { o[threadIdx.x] = 2.0f * threadIdx.x; }"
                     % name)
    o = cudaMallocManaged(4 * 32, dtype=np.float32)
    getattr(m, name)[1, 32](o)
    cudaDeviceSynchronize()
    assert list(o) == [2.0 * i for i in range(32)]


def test_aligned_local_variable_is_one_per_work_group():
    src = r"""
__kernel void k(__global int *o) {
    __attribute__((aligned(16))) __local int tile[4];
    int l = get_local_id(0);
    if (l == 0) { tile[0] = 10; tile[1] = 20; tile[2] = 30; tile[3] = 40; }
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = tile[l] + ((size_t)tile % 16 == 0);
}"""
    out, *_ = _cl_run(src, "k", 8, 4, 8)
    assert list(out) == [11, 21, 31, 41] * 2
