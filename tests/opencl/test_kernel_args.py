"""clSetKernelArg's values through runtime/args.py: each wrong value gets its
OpenCL code (CL_INVALID_ARG_VALUE for a wrong kind or a value out of range,
CL_INVALID_ARG_SIZE for a wrong byte or component count,
CL_INVALID_MEM_OBJECT for a pointer that is no memory object), never a raw
Python exception."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F403

SOURCE = r"""
__kernel void take(__global float *o, float f, uint u, int i, half h, double d, float4 v) {
    o[0] = f; o[1] = u; o[2] = i; o[3] = d; o[4] = v.x + v.y + v.z + v.w;
}
"""


@pytest.fixture(scope="module")
def kernel(context):
    p = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(p)
    return clCreateKernel(p, "take")


@pytest.mark.parametrize("index, value, code", [
    (1, 1e39, CL_INVALID_ARG_VALUE), (1, 10 ** 400, CL_INVALID_ARG_VALUE),
    (1, "1.0", CL_INVALID_ARG_VALUE), (1, 1j, CL_INVALID_ARG_VALUE),
    (1, b"abc", CL_INVALID_ARG_SIZE), (2, -1, CL_INVALID_ARG_VALUE),
    (2, 2 ** 32, CL_INVALID_ARG_VALUE), (2, 1.5, CL_INVALID_ARG_VALUE),
    (3, "5", CL_INVALID_ARG_VALUE), (3, np.float64(5), CL_INVALID_ARG_VALUE),
    (4, 70000.0, CL_INVALID_ARG_VALUE), (5, object(), CL_INVALID_ARG_VALUE),
    (6, (1, 2), CL_INVALID_ARG_SIZE), (6, (1, 2, 3, 1e39), CL_INVALID_ARG_VALUE),
    (6, 1.0, CL_INVALID_ARG_VALUE), (0, np.zeros(4, np.float32), CL_INVALID_MEM_OBJECT),
    (0, 12345, CL_INVALID_MEM_OBJECT), (1, None, CL_INVALID_ARG_VALUE),
], ids=lambda v: repr(v)[:16])
def test_clSetKernelArg_bad_value_codes(kernel, code_of, index, value, code):
    assert code_of(clSetKernelArg, kernel, index, value) == code


def test_clSetKernelArg_values_reach_the_kernel(context, queue, kernel):
    o = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    for i, v in enumerate([o, 3, np.uint8(9), True, 0.5, np.float32(0.25), [1, 2, 3, 4]]):
        assert clSetKernelArg(kernel, i, v) == 0
    clEnqueueNDRangeKernel(queue, kernel, 1, None, [1], [1])
    res = np.zeros(5, np.float32)
    clEnqueueReadBuffer(queue, o, CL_TRUE, 0, 20, res)
    assert res.tolist() == [3.0, 9.0, 1.0, 0.25, 10.0]
    clReleaseMemObject(o)


def test_LocalMemory_and_work_group_info_hostile_input(kernel, code_of):
    assert code_of(LocalMemory, "x") == CL_INVALID_ARG_SIZE
    assert code_of(LocalMemory, 1.5) == CL_INVALID_ARG_SIZE
    assert code_of(LocalMemory, -1) == CL_INVALID_ARG_SIZE
    assert LocalMemory(16).size == 16
    assert code_of(clGetKernelWorkGroupInfo, kernel, np.array([1, 2]),
                   CL_KERNEL_WORK_GROUP_SIZE) == CL_INVALID_DEVICE
