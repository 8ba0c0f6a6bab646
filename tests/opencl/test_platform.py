"""Platforms, devices, contexts, queues and the error and constant tables."""
import numpy as np
import pytest

import pyemu.opencl as cl_mod
from pyemu.runtime.core import lib
from pyemu.opencl import *  # noqa: F403
from pyemu.opencl import _constants


def test_error_codes_have_their_real_values():
    assert CL_SUCCESS == 0 and CL_DEVICE_NOT_FOUND == -1 and CL_BUILD_PROGRAM_FAILURE == -11
    assert CL_INVALID_VALUE == -30 and CL_INVALID_WORK_GROUP_SIZE == -54
    assert CL_INVALID_EVENT_WAIT_LIST == -57 and CL_INVALID_BUFFER_SIZE == -61
    assert CL_MAX_SIZE_RESTRICTION_EXCEEDED == -72


def test_CLError_carries_code_name_and_call():
    e = CLError(-54, "local size 7 does not divide 100", "clEnqueueNDRangeKernel")
    assert e.code == CL_INVALID_WORK_GROUP_SIZE and e.name == "CL_INVALID_WORK_GROUP_SIZE"
    assert str(e) == ("clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE: "
                      "local size 7 does not divide 100")


def test_constants_and_error_codes_agree_with_pyopencl():
    cl = pytest.importorskip("pyopencl")
    checked = 0
    for group in _constants._GROUPS:
        theirs = getattr(cl, group.__name__[3:], None)
        if theirs is None:
            continue
        names = [n for n in dir(theirs) if not n.startswith("_") and n != "to_string"]
        for m in group:
            hits = sorted((n for n in names if m.name.endswith("_" + n)), key=len)
            if hits:
                assert getattr(theirs, hits[-1]) == int(m), m.name
                checked += 1
    for code in cl_error:
        if hasattr(cl.status_code, code.name[3:]):
            assert getattr(cl.status_code, code.name[3:]) == int(code), code.name
            checked += 1
    assert checked > 300


def test_star_import_gives_calls_constants_and_errors():
    for name in ("clGetPlatformIDs", "clCreateBuffer", "CL_MEM_READ_ONLY", "CL_INVALID_VALUE",
                 "CLError", "CL_TRUE", "clEnqueueMarkerWithWaitList"):
        assert name in cl_mod.__all__


def test_clGetPlatformIDs_returns_one_platform(platform):
    assert clGetPlatformIDs() == [platform]


def test_clGetPlatformInfo_strings(platform):
    assert clGetPlatformInfo(platform, CL_PLATFORM_NAME) == "pyemu"
    assert clGetPlatformInfo(platform, CL_PLATFORM_PROFILE) == "FULL_PROFILE"
    assert clGetPlatformInfo(platform, CL_PLATFORM_VERSION).startswith("OpenCL 3.0 ")
    assert clGetPlatformInfo(platform, CL_PLATFORM_NUMERIC_VERSION) == CL_MAKE_VERSION(3, 0, 0)


def test_platform_extensions_are_the_devices_and_the_compilers(platform, device, context):
    """CL_PLATFORM_EXTENSIONS lists what every device has (pyemu has one),
    and each reported extension's macro is defined for kernels, as the
    OpenCL C spec asks (6.1), and no other cl_khr_ macro is."""
    plat = clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS).split()
    dev = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS).split()
    assert plat == dev and "cl_khr_int64_base_atomics" in dev
    versioned = clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION)
    assert [name for _, name in versioned] == dev
    checks = "".join(f"#ifndef {e}\n#error {e} is reported but not defined\n#endif\n" for e in dev)
    prog = clCreateProgramWithSource(context, checks + "__kernel void k(__global int *a) { a[0] = 1; }")
    clBuildProgram(prog, [device])
    import pathlib
    import re
    include = pathlib.Path(__file__).resolve().parents[2] / "include" / "pyemu"
    defined = {m for f in include.rglob("cl_*.h")
               for m in re.findall(r"^#define (cl_khr_\w+) 1", f.read_text(), re.M)}
    assert defined == set(dev)


def test_clGetPlatformInfo_bad_param(platform, code_of):
    assert code_of(clGetPlatformInfo, platform, 0x1234) == CL_INVALID_VALUE


def test_clGetPlatformInfo_bad_platform(code_of):
    assert code_of(clGetPlatformInfo, "nvidia", CL_PLATFORM_NAME) == CL_INVALID_PLATFORM


def test_clGetDeviceIDs_gpu_default_and_all(platform, device):
    for t in (CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL):
        assert clGetDeviceIDs(platform, t) == [device]


def test_clGetDeviceIDs_cpu_not_found(platform, code_of):
    assert code_of(clGetDeviceIDs, platform, CL_DEVICE_TYPE_CPU) == CL_DEVICE_NOT_FOUND


def test_clGetDeviceIDs_bad_type(platform, code_of):
    assert code_of(clGetDeviceIDs, platform, 1 << 20) == CL_INVALID_DEVICE_TYPE
    assert code_of(clGetDeviceIDs, platform, 0) == CL_INVALID_DEVICE_TYPE


def test_clGetDeviceIDs_bad_platform(code_of):
    assert code_of(clGetDeviceIDs, object(), CL_DEVICE_TYPE_GPU) == CL_INVALID_PLATFORM


def test_clGetDeviceInfo_values(device, platform):
    g = lambda p: clGetDeviceInfo(device, p)  # noqa: E731
    assert g(CL_DEVICE_TYPE) == CL_DEVICE_TYPE_GPU
    assert g(CL_DEVICE_MAX_COMPUTE_UNITS) == lib.pyemu_num_workers()
    assert g(CL_DEVICE_MAX_WORK_GROUP_SIZE) == 1024
    assert g(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS) == 3
    assert g(CL_DEVICE_MAX_WORK_ITEM_SIZES) == [1024, 1024, 64]
    assert g(CL_DEVICE_LOCAL_MEM_SIZE) == 49152 and g(CL_DEVICE_LOCAL_MEM_TYPE) == CL_LOCAL
    assert g(CL_DEVICE_GLOBAL_MEM_SIZE) >= g(CL_DEVICE_MAX_MEM_ALLOC_SIZE) > 0
    assert g(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) == 65536
    assert g(CL_DEVICE_ADDRESS_BITS) == 64
    assert g(CL_DEVICE_ENDIAN_LITTLE) is True and g(CL_DEVICE_AVAILABLE) is True
    assert g(CL_DEVICE_COMPILER_AVAILABLE) is True
    assert g(CL_DEVICE_PROFILING_TIMER_RESOLUTION) == 1
    assert g(CL_DEVICE_QUEUE_PROPERTIES) == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                             CL_QUEUE_PROFILING_ENABLE)
    assert g(CL_DEVICE_VERSION).startswith("OpenCL 3.0 ")
    assert g(CL_DEVICE_OPENCL_C_VERSION).startswith("OpenCL C 1.2")
    assert "cl_khr_fp64" in g(CL_DEVICE_EXTENSIONS).split()
    assert isinstance(g(CL_DEVICE_NAME), str) and g(CL_DEVICE_VENDOR) == "pyemu"
    assert isinstance(g(CL_DRIVER_VERSION), str)
    assert g(CL_DEVICE_PLATFORM) is platform
    assert g(CL_DEVICE_SVM_CAPABILITIES) == 0 and g(CL_DEVICE_PIPE_SUPPORT) is False
    assert g(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT) is False
    assert g(CL_DEVICE_IMAGE_SUPPORT) is True      # images: pyemu/opencl/image.py


def test_clGetDeviceInfo_every_parameter_answers(device):
    for p in cl_device_info:
        clGetDeviceInfo(device, p)


def test_clGetDeviceInfo_bad_param(device, code_of):
    assert code_of(clGetDeviceInfo, device, 0x2000) == CL_INVALID_VALUE


def test_clGetDeviceInfo_bad_device(code_of):
    assert code_of(clGetDeviceInfo, None, CL_DEVICE_NAME) == CL_INVALID_DEVICE


def test_clCreateContext_and_info(device, platform):
    ctx = clCreateContext([CL_CONTEXT_PLATFORM, platform, 0], [device])
    assert clGetContextInfo(ctx, CL_CONTEXT_DEVICES) == [device]
    assert clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES) == 1
    assert clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES) == [CL_CONTEXT_PLATFORM, platform, 0]
    assert clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT) == 1
    clRetainContext(ctx)
    assert clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT) == 2
    clReleaseContext(ctx)
    clReleaseContext(ctx)


def test_clCreateContext_without_properties(device):
    ctx = clCreateContext(None, [device])
    assert clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES) == []


def test_clCreateContext_empty_devices(code_of):
    assert code_of(clCreateContext, None, []) == CL_INVALID_VALUE
    assert code_of(clCreateContext, None, None) == CL_INVALID_VALUE


def test_clCreateContext_bad_device(code_of):
    assert code_of(clCreateContext, None, ["gpu0"]) == CL_INVALID_DEVICE


def test_clCreateContext_bad_property(device, code_of):
    assert code_of(clCreateContext, [0x9999, 1, 0], [device]) == CL_INVALID_PROPERTY


def test_clCreateContext_duplicate_property(device, platform, code_of):
    props = [CL_CONTEXT_PLATFORM, platform, CL_CONTEXT_PLATFORM, platform, 0]
    assert code_of(clCreateContext, props, [device]) == CL_INVALID_PROPERTY


def test_clCreateContext_bad_platform_property(device, code_of):
    assert code_of(clCreateContext, [CL_CONTEXT_PLATFORM, 7, 0], [device]) == CL_INVALID_PLATFORM


def test_clCreateContext_user_data_without_notify(device, code_of):
    assert code_of(clCreateContext, None, [device], None, 42) == CL_INVALID_VALUE


def test_clCreateContextFromType_cpu_not_found(platform, code_of):
    assert code_of(clCreateContextFromType, [CL_CONTEXT_PLATFORM, platform, 0],
                   CL_DEVICE_TYPE_CPU) == CL_DEVICE_NOT_FOUND


def test_clCreateContextFromType_bad_type(code_of):
    assert code_of(clCreateContextFromType, None, 1 << 30) == CL_INVALID_DEVICE_TYPE


def test_clReleaseContext_twice(device, code_of):
    ctx = clCreateContext(None, [device])
    clReleaseContext(ctx)
    assert code_of(clReleaseContext, ctx) == CL_INVALID_CONTEXT
    assert code_of(clGetContextInfo, ctx, CL_CONTEXT_DEVICES) == CL_INVALID_CONTEXT


def test_clRetainDevice_root_device_count_stays(device):
    clRetainDevice(device)
    clReleaseDevice(device)
    clReleaseDevice(device)
    assert clGetDeviceInfo(device, CL_DEVICE_REFERENCE_COUNT) == 1


# ---- queues ----

def test_clCreateCommandQueue_info(context, device):
    q = clCreateCommandQueue(context, device, 0)
    assert clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT) is context
    assert clGetCommandQueueInfo(q, CL_QUEUE_DEVICE) is device
    assert clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES) == 0
    assert clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT) == 1
    clRetainCommandQueue(q)
    assert clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT) == 2
    clReleaseCommandQueue(q)
    clReleaseCommandQueue(q)


def test_clCreateCommandQueue_bad_context(device, code_of):
    assert code_of(clCreateCommandQueue, None, device, 0) == CL_INVALID_CONTEXT


def test_clCreateCommandQueue_bad_device(context, code_of):
    assert code_of(clCreateCommandQueue, context, "gpu", 0) == CL_INVALID_DEVICE


def test_clCreateCommandQueue_unknown_property_bits(context, device, code_of):
    assert code_of(clCreateCommandQueue, context, device, 1 << 10) == CL_INVALID_VALUE


def test_clCreateCommandQueue_on_device_unsupported(context, device, code_of):
    assert code_of(clCreateCommandQueue, context, device,
                   CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == \
        CL_INVALID_QUEUE_PROPERTIES


def test_clCreateCommandQueueWithProperties_profiling_out_of_order(context, device):
    bits = CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    q = clCreateCommandQueueWithProperties(context, device, [CL_QUEUE_PROPERTIES, bits, 0])
    assert clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES) == bits
    assert clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY) == [CL_QUEUE_PROPERTIES, bits, 0]
    q2 = clCreateCommandQueueWithProperties(context, device, None)
    assert clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES) == 0


def test_clCreateCommandQueueWithProperties_unknown_property(context, device, code_of):
    assert code_of(clCreateCommandQueueWithProperties, context, device,
                   [0x7777, 1, 0]) == CL_INVALID_VALUE


def test_clCreateCommandQueueWithProperties_queue_size_without_on_device(context, device,
                                                                         code_of):
    assert code_of(clCreateCommandQueueWithProperties, context, device,
                   [CL_QUEUE_SIZE, 1024, 0]) == CL_INVALID_VALUE


def test_clFinish_and_clFlush_bad_queue(code_of):
    assert code_of(clFinish, None) == CL_INVALID_COMMAND_QUEUE
    assert code_of(clFlush, 3) == CL_INVALID_COMMAND_QUEUE


def test_clReleaseCommandQueue_twice(context, device, code_of):
    q = clCreateCommandQueue(context, device, 0)
    clReleaseCommandQueue(q)
    assert code_of(clReleaseCommandQueue, q) == CL_INVALID_COMMAND_QUEUE
    assert code_of(clFinish, q) == CL_INVALID_COMMAND_QUEUE


def test_clReleaseCommandQueue_queued_work_still_runs(context, device):
    q = clCreateCommandQueue(context, device, 0)
    u = clCreateUserEvent(context)
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE, 16)
    out = np.zeros(4, np.int32)
    ev = clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, 16, np.arange(4, dtype=np.int32), [u])
    ev2 = clEnqueueReadBuffer(q, buf, CL_FALSE, 0, 16, out)
    clReleaseCommandQueue(q)
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev, ev2])
    assert out.tolist() == [0, 1, 2, 3]
