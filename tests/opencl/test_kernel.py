"""Kernels: clCreateKernel(sInProgram), clSetKernelArg in both forms (buffers,
NULL, scalars by declared type with range checks, vectors, structs, __local
sizes) and its error codes, clGetKernelInfo, clGetKernelWorkGroupInfo,
clGetKernelArgInfo (cross-checked with PoCL), reference counts."""
import ctypes

import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F403

SOURCE = r"""
typedef struct { int a; float b; double c; } S;       /* 16 bytes, 8-aligned */

__kernel void scalars(__global long *o, char c, uchar uc, short s, ushort us, int i, uint u,
                      long l, ulong ul, float f, double d) {
    o[0] = c; o[1] = uc; o[2] = s; o[3] = us; o[4] = i; o[5] = u; o[6] = l; o[7] = (long)ul;
    o[8] = (long)(f * 1000.0f); o[9] = (long)(d * 1000.0);
}

__kernel void vectors(__global float *o, float4 v, int2 w, float3 t, uchar16 u) {
    o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    o[4] = w.x; o[5] = w.y;
    o[6] = t.x; o[7] = t.y; o[8] = t.z;
    o[9] = u.s0; o[10] = u.sF;
}

__kernel void by_value(__global double *o, S s) { o[0] = s.a; o[1] = s.b; o[2] = s.c; }

__kernel void is_null(__global int *o, __global const int *p, __constant int *c) {
    o[0] = p == 0; o[1] = c == 0;
}

__kernel __attribute__((reqd_work_group_size(8, 2, 1)))
void quals(__global const float * restrict a, __local float *s, __constant int *c, int n,
           float4 v, volatile __global uint *u) { }
"""


@pytest.fixture(scope="module")
def program(context):
    p = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(p, None, "-cl-kernel-arg-info")
    return p


@pytest.fixture(scope="module")
def out(context):
    return clCreateBuffer(context, CL_MEM_READ_WRITE, 256)


@pytest.fixture(scope="module")
def pocl():
    """(pyopencl, a context on PoCL's device); PoCL is installed by the test command."""
    import pyopencl as cl
    for plat in cl.get_platforms():
        if "Portable Computing Language" in plat.name:
            return cl, cl.Context(plat.get_devices())
    pytest.fail("PoCL is not installed (apt-get install pocl-opencl-icd)")


def _run(queue, k, out, dtype, n):
    clEnqueueTask(queue, k)
    got = np.zeros(n, dtype)
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, got.nbytes, got)
    return got


# ---- clCreateKernel / clCreateKernelsInProgram ----

def test_clCreateKernel_errors(context, program, code_of):
    unbuilt = clCreateProgramWithSource(context, [SOURCE])
    assert code_of(clCreateKernel, unbuilt, "scalars") == CL_INVALID_PROGRAM_EXECUTABLE
    assert code_of(clCreateKernel, program, "absent") == CL_INVALID_KERNEL_NAME
    assert code_of(clCreateKernel, program, None) == CL_INVALID_VALUE
    assert code_of(clCreateKernel, None, "scalars") == CL_INVALID_PROGRAM
    assert code_of(clCreateKernelsInProgram, unbuilt) == CL_INVALID_PROGRAM_EXECUTABLE


def test_clCreateKernelsInProgram(program):
    ks = clCreateKernelsInProgram(program)
    assert [clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME) for k in ks] == \
        ["scalars", "vectors", "by_value", "is_null", "quals"]
    assert clGetKernelInfo(ks[0], CL_KERNEL_NUM_ARGS) == 11


# ---- clSetKernelArg: scalars ----

def test_clSetKernelArg_scalars_by_declared_type(queue, program, out):
    k = clCreateKernel(program, "scalars")
    clSetKernelArg(k, 0, out)
    values = [-128, 255, -32768, 65535, np.int64(-2**31), 2**32 - 1, -2**63, 2**64 - 1,
              np.float64(1.5), 2]           # numpy scalars of other widths, an int for a float
    for i, v in enumerate(values, 1):
        assert clSetKernelArg(k, i, v) == CL_SUCCESS
    got = _run(queue, k, out, np.int64, 10)
    assert got.tolist() == [-128, 255, -32768, 65535, -2**31, 2**32 - 1, -2**63, -1, 1500, 2000]


def test_clSetKernelArg_c_form_scalars(queue, program, out):
    k = clCreateKernel(program, "scalars")
    clSetKernelArg(k, 0, 8, out)
    sizes = [1, 1, 2, 2, 4, 4, 8, 8, 4, 8]
    for i, (size, v) in enumerate(zip(sizes, [1, 2, 3, 4, 5, 6, 7, 8, 0.25, 0.5]), 1):
        clSetKernelArg(k, i, size, v)
    clSetKernelArg(k, 5, 4, np.int32(-9).tobytes())       # raw bytes of the right size
    clSetKernelArg(k, 6, 4, ctypes.c_uint(77))            # a ctypes value
    got = _run(queue, k, out, np.int64, 10)
    assert got.tolist() == [1, 2, 3, 4, -9, 77, 7, 8, 250, 500]


@pytest.mark.parametrize("index, value", [
    (1, 128), (1, -129), (2, -1), (2, 256), (5, 2**31), (6, -1), (7, 2**63), (8, -1),
    (5, 1.5), (5, np.float32(2)), (5, "3"), (9, 1e300), (9, "1.0"), (10, None)])
def test_clSetKernelArg_value_that_does_not_fit(program, code_of, index, value):
    k = clCreateKernel(program, "scalars")
    assert code_of(clSetKernelArg, k, index, value) == CL_INVALID_ARG_VALUE == -50


def test_clSetKernelArg_c_form_wrong_size(program, out, code_of):
    k = clCreateKernel(program, "scalars")
    assert code_of(clSetKernelArg, k, 5, 8, 1) == CL_INVALID_ARG_SIZE == -51   # int is 4 bytes
    assert code_of(clSetKernelArg, k, 5, 0, 1) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 5, 4, b"abc") == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 0, 4, out) == CL_INVALID_ARG_SIZE       # sizeof(cl_mem)


def test_clSetKernelArg_bad_index(program, out, code_of):
    k = clCreateKernel(program, "scalars")
    assert code_of(clSetKernelArg, k, 11, 1) == CL_INVALID_ARG_INDEX == -49
    assert code_of(clSetKernelArg, k, -1, 1) == CL_INVALID_ARG_INDEX
    assert code_of(clSetKernelArg, k, 11, 4, 1) == CL_INVALID_ARG_INDEX
    assert code_of(clSetKernelArg, "k", 0, out) == CL_INVALID_KERNEL
    assert code_of(clSetKernelArg, k, 0) == CL_INVALID_VALUE


def test_clSetKernelArg_memory_object_for_a_value(program, out, code_of):
    k = clCreateKernel(program, "scalars")
    assert code_of(clSetKernelArg, k, 5, out) == CL_INVALID_ARG_VALUE


# ---- vectors and structs ----

def test_clSetKernelArg_vectors(queue, program, out):
    k = clCreateKernel(program, "vectors")
    clSetKernelArg(k, 0, out)
    clSetKernelArg(k, 1, (1.5, 2.5, 3.5, 4.5))
    clSetKernelArg(k, 2, np.array([-7, 8], np.int32))
    clSetKernelArg(k, 3, 16, np.array([10, 11, 12], np.float32))   # float3 is 16 bytes
    clSetKernelArg(k, 4, bytes(range(100, 116)))
    got = _run(queue, k, out, np.float32, 11)
    assert got.tolist() == [1.5, 2.5, 3.5, 4.5, -7, 8, 10, 11, 12, 100, 115]


def test_clSetKernelArg_vector_errors(program, code_of):
    k = clCreateKernel(program, "vectors")
    assert code_of(clSetKernelArg, k, 1, (1.0, 2.0, 3.0)) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, b"x" * 12) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, 8, (1, 2, 3, 4)) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, 1.0) == CL_INVALID_ARG_VALUE
    assert code_of(clSetKernelArg, k, 2, (2**31, 0)) == CL_INVALID_ARG_VALUE
    assert code_of(clSetKernelArg, k, 4, [256] + [0] * 15) == CL_INVALID_ARG_VALUE


def test_clSetKernelArg_struct(queue, program, out):
    k = clCreateKernel(program, "by_value")
    clSetKernelArg(k, 0, out)
    dt = np.dtype([("a", np.int32), ("b", np.float32), ("c", np.float64)], align=True)
    clSetKernelArg(k, 1, np.array((3, 0.5, -2.25), dt)[()])
    assert _run(queue, k, out, np.float64, 3).tolist() == [3, 0.5, -2.25]

    class S(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_float), ("c", ctypes.c_double)]
    clSetKernelArg(k, 1, 16, S(4, 1.5, 8.0))
    assert _run(queue, k, out, np.float64, 3).tolist() == [4, 1.5, 8.0]


def test_clSetKernelArg_struct_errors(program, code_of):
    k = clCreateKernel(program, "by_value")
    assert code_of(clSetKernelArg, k, 1, b"x" * 12) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, 12, b"x" * 16) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, 5) == CL_INVALID_ARG_VALUE
    assert code_of(clSetKernelArg, k, 1, None) == CL_INVALID_ARG_VALUE


# ---- buffers and NULL ----

def test_clSetKernelArg_null_buffers(queue, context, program, out):
    k = clCreateKernel(program, "is_null")
    clSetKernelArg(k, 0, out)
    clSetKernelArg(k, 1, None)
    clSetKernelArg(k, 2, 8, 0)
    assert _run(queue, k, out, np.int32, 2).tolist() == [1, 1]
    b = clCreateBuffer(context, CL_MEM_READ_ONLY, 16)
    clSetKernelArg(k, 1, b)
    clSetKernelArg(k, 2, 8, b)
    assert _run(queue, k, out, np.int32, 2).tolist() == [0, 0]


def test_clSetKernelArg_buffer_errors(context, device, program, code_of):
    k = clCreateKernel(program, "is_null")
    assert code_of(clSetKernelArg, k, 1, np.zeros(4, np.int32)) == CL_INVALID_MEM_OBJECT
    assert code_of(clSetKernelArg, k, 1, 12345) == CL_INVALID_MEM_OBJECT
    gone = clCreateBuffer(context, CL_MEM_READ_ONLY, 16)
    clReleaseMemObject(gone)
    assert code_of(clSetKernelArg, k, 1, gone) == CL_INVALID_MEM_OBJECT
    other = clCreateContext(None, [device])
    assert code_of(clSetKernelArg, k, 1, clCreateBuffer(other, 0, 16)) == CL_INVALID_MEM_OBJECT


# ---- __local pointers ----

def test_clSetKernelArg_local(program, out, code_of):
    k = clCreateKernel(program, "quals")
    assert clSetKernelArg(k, 1, LocalMemory(64)) == CL_SUCCESS
    assert clSetKernelArg(k, 1, 128, None) == CL_SUCCESS
    assert clGetKernelWorkGroupInfo(k, None, CL_KERNEL_LOCAL_MEM_SIZE) == 128
    assert code_of(clSetKernelArg, k, 1, LocalMemory(0)) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, 0, None) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, None) == CL_INVALID_ARG_SIZE
    assert code_of(clSetKernelArg, k, 1, out) == CL_INVALID_ARG_VALUE
    assert code_of(clSetKernelArg, k, 1, 8, out) == CL_INVALID_ARG_VALUE
    assert code_of(clSetKernelArg, k, 1, 64, b"x" * 64) == CL_INVALID_ARG_VALUE
    assert code_of(clSetKernelArg, k, 1, 64) == CL_INVALID_ARG_VALUE
    # LocalMemory(16) is C's (16, NULL): the wrong size for a memory object
    assert code_of(clSetKernelArg, k, 0, LocalMemory(16)) == CL_INVALID_ARG_SIZE


# ---- clGetKernelInfo / clGetKernelWorkGroupInfo ----

def test_clGetKernelInfo(context, program, code_of):
    k = clCreateKernel(program, "quals")
    assert clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME) == "quals"
    assert clGetKernelInfo(k, CL_KERNEL_NUM_ARGS) == 6
    assert clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT) == 1
    assert clGetKernelInfo(k, CL_KERNEL_CONTEXT) is context
    assert clGetKernelInfo(k, CL_KERNEL_PROGRAM) is program
    assert clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES).replace(" ", "") == \
        "reqd_work_group_size(8,2,1)"
    assert clGetKernelInfo(clCreateKernel(program, "scalars"), CL_KERNEL_ATTRIBUTES) == ""
    assert code_of(clGetKernelInfo, k, 0x1234) == CL_INVALID_VALUE
    assert code_of(clGetKernelInfo, program, CL_KERNEL_NUM_ARGS) == CL_INVALID_KERNEL


def test_clGetKernelWorkGroupInfo(device, program, code_of):
    k = clCreateKernel(program, "quals")
    s = clCreateKernel(program, "scalars")
    wg = clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE)
    assert wg == clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE) == 1024
    assert clGetKernelWorkGroupInfo(k, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE) == [8, 2, 1]
    assert clGetKernelWorkGroupInfo(s, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE) == [0, 0, 0]
    assert clGetKernelWorkGroupInfo(s, device, CL_KERNEL_LOCAL_MEM_SIZE) == 0
    assert clGetKernelWorkGroupInfo(k, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE) == \
        clGetDeviceInfo(device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
    assert clGetKernelWorkGroupInfo(k, device, CL_KERNEL_PRIVATE_MEM_SIZE) >= 0
    assert code_of(clGetKernelWorkGroupInfo, k, device, CL_KERNEL_GLOBAL_WORK_SIZE) == \
        CL_INVALID_VALUE
    assert code_of(clGetKernelWorkGroupInfo, k, device, 0x1234) == CL_INVALID_VALUE
    assert code_of(clGetKernelWorkGroupInfo, k, "device", CL_KERNEL_WORK_GROUP_SIZE) == \
        CL_INVALID_DEVICE


# ---- clGetKernelArgInfo ----

QUALS_INFO = [
    # address, access, type name, type qualifier, name (CL/cl.h values)
    (0x119B, 0x11A3, "float*", 1 | 2, "a"),        # GLOBAL, NONE, CONST | RESTRICT
    (0x119C, 0x11A3, "float*", 0, "s"),            # LOCAL
    (0x119D, 0x11A3, "int*", 1, "c"),              # CONSTANT: CONST
    (0x119E, 0x11A3, "int", 0, "n"),               # PRIVATE
    (0x119E, 0x11A3, "float4", 0, "v"),
    (0x119B, 0x11A3, "uint*", 4, "u"),             # VOLATILE
]
_ARG_PARAMS = (CL_KERNEL_ARG_ADDRESS_QUALIFIER, CL_KERNEL_ARG_ACCESS_QUALIFIER,
               CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_TYPE_QUALIFIER, CL_KERNEL_ARG_NAME)


def test_clGetKernelArgInfo_values(program):
    k = clCreateKernel(program, "quals")
    got = [tuple(clGetKernelArgInfo(k, i, p) for p in _ARG_PARAMS) for i in range(6)]
    assert got == QUALS_INFO


def test_clGetKernelArgInfo_matches_pocl(pocl, program):
    cl, ctx = pocl
    prog = cl.Program(ctx, SOURCE).build(options=["-cl-kernel-arg-info"])
    theirs_k = cl.Kernel(prog, "quals")
    names = ("ADDRESS_QUALIFIER", "ACCESS_QUALIFIER", "TYPE_NAME", "TYPE_QUALIFIER", "NAME")
    theirs = [tuple(theirs_k.get_arg_info(i, getattr(cl.kernel_arg_info, n)) for n in names)
              for i in range(6)]
    k = clCreateKernel(program, "quals")
    ours = [tuple(clGetKernelArgInfo(k, i, p) for p in _ARG_PARAMS) for i in range(6)]
    assert ours == theirs


def test_clGetKernelArgInfo_errors(context, program, code_of):
    k = clCreateKernel(program, "quals")
    assert code_of(clGetKernelArgInfo, k, 6, CL_KERNEL_ARG_NAME) == CL_INVALID_ARG_INDEX
    assert code_of(clGetKernelArgInfo, k, 0, 0x1234) == CL_INVALID_VALUE
    plain = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(plain)
    k2 = clCreateKernel(plain, "quals")
    assert code_of(clGetKernelArgInfo, k2, 0, CL_KERNEL_ARG_NAME) == \
        CL_KERNEL_ARG_INFO_NOT_AVAILABLE == -19


# ---- reference counts ----

def test_clRetainKernel_clReleaseKernel(program, code_of):
    k = clCreateKernel(program, "scalars")
    clRetainKernel(k)
    assert clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT) == 2
    clReleaseKernel(k)
    clReleaseKernel(k)
    assert code_of(clGetKernelInfo, k, CL_KERNEL_NUM_ARGS) == \
        CL_INVALID_KERNEL
    assert code_of(clReleaseKernel, k) == CL_INVALID_KERNEL
    assert code_of(clSetKernelArg, k, 1, 1) == CL_INVALID_KERNEL
