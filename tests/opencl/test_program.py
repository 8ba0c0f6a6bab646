"""Programs: the slides' vector-add host code end to end, clCreateProgramWithSource,
clBuildProgram (options, build log with the source's line numbers, status,
errors), clGetProgramInfo / clGetProgramBuildInfo, reference counts."""
import re

import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F403

VADD = r"""
__kernel void vectorAdd(__global const float *A,
                        __global const float *B,
                        __global float *C)
{
    int idx = get_global_id(0);
    C[idx] = A[idx] + B[idx];
}
"""

TWO = r"""
__kernel void second(__global int *o) { o[0] = 2; }
__kernel void first(__global int *o) { o[0] = VALUE; }
"""

# line 4 lacks its ';'
BROKEN = """__kernel void broken(__global int *o)
{
    int i = get_global_id(0);
    o[i] = 1
}
"""


def _built(context, source, options=None):
    p = clCreateProgramWithSource(context, [source])
    clBuildProgram(p, None, options)
    return p


@pytest.fixture(scope="module")
def pocl():
    """(pyopencl, a context on PoCL's device); PoCL is installed by the test command."""
    import pyopencl as cl
    for plat in cl.get_platforms():
        if "Portable Computing Language" in plat.name:
            return cl, cl.Context(plat.get_devices())
    pytest.fail("PoCL is not installed (apt-get install pocl-opencl-icd)")


@pytest.fixture(scope="module")
def two(context):
    return _built(context, TWO, "-DVALUE=7")


def test_vector_add_slides_host_code():
    """The slides' host program, call by call, against NumPy."""
    totalSize, workGroupSize = 1 << 16, 256
    A = np.random.default_rng(1).random(totalSize, dtype=np.float32)
    B = np.random.default_rng(2).random(totalSize, dtype=np.float32)
    C = np.empty(totalSize, dtype=np.float32)

    platform = clGetPlatformIDs()[0]
    context = clCreateContextFromType([CL_CONTEXT_PLATFORM, platform, 0], CL_DEVICE_TYPE_GPU)
    device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT)[0]
    commandQueue = clCreateCommandQueue(context, device, 0)
    program = clCreateProgramWithSource(context, [VADD])
    assert clBuildProgram(program, [device], None) == CL_SUCCESS
    kernel = clCreateKernel(program, "vectorAdd")
    deviceA = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, totalSize * 4, A)
    deviceB = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, totalSize * 4, B)
    deviceC = clCreateBuffer(context, CL_MEM_WRITE_ONLY, totalSize * 4)
    assert clSetKernelArg(kernel, 0, 8, deviceA) == CL_SUCCESS      # the C form
    clSetKernelArg(kernel, 1, deviceB)
    clSetKernelArg(kernel, 2, deviceC)
    ev = clEnqueueNDRangeKernel(commandQueue, kernel, 1, None, [totalSize], [workGroupSize])
    assert isinstance(ev, cl_event)
    clEnqueueReadBuffer(commandQueue, deviceC, CL_TRUE, 0, totalSize * 4, C)
    np.testing.assert_array_equal(C, A + B)
    for call, obj in ((clReleaseKernel, kernel), (clReleaseProgram, program),
                      (clReleaseCommandQueue, commandQueue), (clReleaseMemObject, deviceA),
                      (clReleaseMemObject, deviceB), (clReleaseMemObject, deviceC),
                      (clReleaseContext, context)):
        assert call(obj) == CL_SUCCESS


# ---- clCreateProgramWithSource ----

def test_clCreateProgramWithSource_joins_strings_and_bytes(context):
    parts = ["__kernel void k(__global int *o)", b" { o[0] = 5; }\n"]
    p = clCreateProgramWithSource(context, parts)
    assert clGetProgramInfo(p, CL_PROGRAM_SOURCE) == \
        "__kernel void k(__global int *o) { o[0] = 5; }\n"
    assert clGetProgramBuildInfo(p, clGetProgramInfo(p, CL_PROGRAM_DEVICES)[0],
                                 CL_PROGRAM_BUILD_STATUS) == CL_BUILD_NONE


def test_clCreateProgramWithSource_bad_input(context, code_of):
    assert code_of(clCreateProgramWithSource, context, []) == CL_INVALID_VALUE
    assert code_of(clCreateProgramWithSource, context, None) == CL_INVALID_VALUE
    assert code_of(clCreateProgramWithSource, context, ["ok", None]) == CL_INVALID_VALUE
    # bytes that are not UTF-8 are source as drivers take it (tests/core/test_compiler_bytes.py)
    assert code_of(clCreateProgramWithSource, context, [b"\xff\xfe"]) == 0
    assert code_of(clCreateProgramWithSource, None, [VADD]) == CL_INVALID_CONTEXT


# ---- clBuildProgram ----

def test_clBuildProgram_options_reach_the_source(context, queue, two):
    k = clCreateKernel(two, "first")
    out = clCreateBuffer(context, CL_MEM_READ_WRITE, 4)
    clSetKernelArg(k, 0, out)
    clEnqueueTask(queue, k)
    got = np.zeros(1, np.int32)
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 4, got)
    assert got[0] == 7
    device = clGetProgramInfo(two, CL_PROGRAM_DEVICES)[0]
    assert clGetProgramBuildInfo(two, device, CL_PROGRAM_BUILD_OPTIONS) == "-DVALUE=7"
    assert clGetProgramBuildInfo(two, device, CL_PROGRAM_BUILD_STATUS) == CL_BUILD_SUCCESS
    assert clGetProgramBuildInfo(two, device, CL_PROGRAM_BINARY_TYPE) == \
        CL_PROGRAM_BINARY_TYPE_EXECUTABLE


def test_clBuildProgram_options_named_like_header_members(context, queue):
    # -D width=... is common in OpenCL hosts (Rodinia's leukocyte); pyemu's own
    # headers use width/height/depth as member and parameter names
    p = _built(context, "__kernel void k(__global int *o, image2d_t im)"
               "{ o[0] = width * 100 + height * 10 + depth; }",
               "-D width=4 -D height=3 -Ddepth=2")
    k = clCreateKernel(p, "k")
    out = clCreateBuffer(context, CL_MEM_READ_WRITE, 4)
    im = clCreateImage(context, 0, cl_image_format(CL_R, CL_FLOAT),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE2D, 2, 2))
    clSetKernelArg(k, 0, out)
    clSetKernelArg(k, 1, im)
    clEnqueueTask(queue, k)
    got = np.zeros(1, np.int32)
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 4, got)
    assert got[0] == 432


def test_clBuildProgram_syntax_error_log_has_the_line(context, device):
    p = clCreateProgramWithSource(context, [BROKEN])
    with pytest.raises(CLError) as info:
        clBuildProgram(p)
    assert info.value.code == CL_BUILD_PROGRAM_FAILURE == -11
    assert clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS) == CL_BUILD_ERROR
    log = clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG)
    assert "program.cl:4:" in log and "error" in log, log
    assert re.search(r"program\.cl:4:\d+: error: expected .;.", log), log
    assert "program.cl:4:" in str(info.value)
    assert clGetProgramBuildInfo(p, device, CL_PROGRAM_BINARY_TYPE) == CL_PROGRAM_BINARY_TYPE_NONE
    assert code_of_create(p, "broken") == CL_INVALID_PROGRAM_EXECUTABLE


def code_of_create(p, name):
    try:
        clCreateKernel(p, name)
    except CLError as exc:
        return exc.code
    return 0


def test_clBuildProgram_failed_then_fixed_source_is_a_new_program(context, device):
    bad = clCreateProgramWithSource(context, [BROKEN])
    with pytest.raises(CLError):
        clBuildProgram(bad)
    good = _built(context, BROKEN.replace("o[i] = 1", "o[i] = 1;"))
    assert clGetProgramBuildInfo(good, device, CL_PROGRAM_BUILD_STATUS) == CL_BUILD_SUCCESS


def test_clBuildProgram_invalid_options(context, device, code_of):
    p = clCreateProgramWithSource(context, [VADD])
    assert code_of(clBuildProgram, p, None, "-cl-no-such-option") == CL_INVALID_BUILD_OPTIONS == -43
    assert clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS) == CL_BUILD_ERROR
    assert code_of(clBuildProgram, p, None, "-D 'unbalanced") == CL_INVALID_BUILD_OPTIONS
    assert clBuildProgram(p, None, "-cl-mad-enable -cl-std=CL1.2") == CL_SUCCESS
    assert clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS) == CL_BUILD_SUCCESS


def test_clBuildProgram_with_kernels_attached(context, code_of):
    p = _built(context, VADD)
    k = clCreateKernel(p, "vectorAdd")
    assert code_of(clBuildProgram, p) == CL_INVALID_OPERATION
    clReleaseKernel(k)
    assert clBuildProgram(p) == CL_SUCCESS


def test_clBuildProgram_bad_arguments(context, device, code_of):
    p = clCreateProgramWithSource(context, [VADD])
    assert code_of(clBuildProgram, None) == CL_INVALID_PROGRAM
    assert code_of(clBuildProgram, context) == CL_INVALID_PROGRAM
    assert code_of(clBuildProgram, p, ["not a device"]) == CL_INVALID_DEVICE
    assert code_of(clBuildProgram, p, None, None, None, "data") == CL_INVALID_VALUE
    assert code_of(clBuildProgram, p, None, None, "not callable") == CL_INVALID_VALUE


def test_clBuildProgram_notify(context, device):
    p = clCreateProgramWithSource(context, [VADD])
    seen = []
    clBuildProgram(p, [device], None, lambda prog, data: seen.append((prog, data)), "u")
    assert seen == [(p, "u")]
    bad = clCreateProgramWithSource(context, [BROKEN])
    with pytest.raises(CLError):
        clBuildProgram(bad, None, None, lambda prog, data: seen.append(
            clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_STATUS)))
    assert seen[-1] == CL_BUILD_ERROR


# ---- clGetProgramInfo / clGetProgramBuildInfo ----

def test_clGetProgramInfo(context, device, two):
    assert clGetProgramInfo(two, CL_PROGRAM_CONTEXT) is context
    assert clGetProgramInfo(two, CL_PROGRAM_NUM_DEVICES) == 1
    assert clGetProgramInfo(two, CL_PROGRAM_DEVICES) == [device]
    assert clGetProgramInfo(two, CL_PROGRAM_SOURCE) == TWO
    assert clGetProgramInfo(two, CL_PROGRAM_NUM_KERNELS) == 2
    assert clGetProgramInfo(two, CL_PROGRAM_KERNEL_NAMES) == "second;first"   # source order
    sizes = clGetProgramInfo(two, CL_PROGRAM_BINARY_SIZES)
    binaries = clGetProgramInfo(two, CL_PROGRAM_BINARIES)
    assert len(binaries) == 1 and sizes == [len(binaries[0])] and binaries[0][:4] == b"\x7fELF"


def test_clGetProgramInfo_errors(context, device, code_of):
    p = clCreateProgramWithSource(context, [VADD])
    assert code_of(clGetProgramInfo, p, CL_PROGRAM_NUM_KERNELS) == CL_INVALID_PROGRAM_EXECUTABLE
    assert code_of(clGetProgramInfo, p, CL_PROGRAM_KERNEL_NAMES) == CL_INVALID_PROGRAM_EXECUTABLE
    assert clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES) == [0]
    assert code_of(clGetProgramInfo, p, 0x1234) == CL_INVALID_VALUE
    assert code_of(clGetProgramInfo, None, CL_PROGRAM_SOURCE) == CL_INVALID_PROGRAM
    assert code_of(clGetProgramBuildInfo, p, None, CL_PROGRAM_BUILD_LOG) == CL_INVALID_DEVICE
    assert code_of(clGetProgramBuildInfo, p, device, 0x1234) == CL_INVALID_VALUE
    assert clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG) == ""


def test_kernel_names_match_pocl(pocl):
    cl, ctx = pocl
    prog = cl.Program(ctx, TWO).build(options=["-DVALUE=7"])
    assert prog.get_info(cl.program_info.KERNEL_NAMES) == "second;first"


# ---- reference counts ----

def test_clRetainProgram_clReleaseProgram(context, code_of):
    p = clCreateProgramWithSource(context, [VADD])
    assert clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT) == 1
    clRetainProgram(p)
    assert clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT) == 2
    clReleaseProgram(p)
    clReleaseProgram(p)
    assert code_of(clGetProgramInfo, p, CL_PROGRAM_SOURCE) == CL_INVALID_PROGRAM
    assert code_of(clReleaseProgram, p) == CL_INVALID_PROGRAM
    assert code_of(clRetainProgram, "p") == CL_INVALID_PROGRAM


def test_kernel_keeps_its_program(context, queue, code_of):
    """As PoCL does, each kernel holds a reference to its program."""
    p = _built(context, TWO, "-DVALUE=3")
    k = clCreateKernel(p, "first")
    assert clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT) == 2
    clReleaseProgram(p)
    assert clGetKernelInfo(k, CL_KERNEL_PROGRAM) is p
    assert clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT) == 1
    out = clCreateBuffer(context, CL_MEM_READ_WRITE, 4)
    clSetKernelArg(k, 0, out)
    clEnqueueTask(queue, k)
    got = np.zeros(1, np.int32)
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 4, got)
    assert got[0] == 3
    clReleaseKernel(k)
    assert code_of(clGetProgramInfo, p, CL_PROGRAM_SOURCE) == CL_INVALID_PROGRAM


def test_reference_counts_match_pocl(pocl, context):
    cl, ctx = pocl
    prog = cl.Program(ctx, VADD).build()
    theirs = [prog.get_info(cl.program_info.REFERENCE_COUNT)]
    k = cl.Kernel(prog, "vectorAdd")
    theirs.append(prog.get_info(cl.program_info.REFERENCE_COUNT))
    ours_p = _built(context, VADD)
    ours = [clGetProgramInfo(ours_p, CL_PROGRAM_REFERENCE_COUNT)]
    ours_k = clCreateKernel(ours_p, "vectorAdd")
    ours.append(clGetProgramInfo(ours_p, CL_PROGRAM_REFERENCE_COUNT))
    assert ours == theirs == [1, 2]
    del k, ours_k
