"""Platforms, devices and contexts: clGetPlatformIDs, clGetDeviceIDs,
clCreateContext and their Info calls.

There is one platform ("pyemu") with one device: the CPU, presented as an
OpenCL 3.0 GPU (the programs it runs ask for CL_DEVICE_TYPE_GPU) whose
compute units are the core's worker threads.  OpenCL 3.0's optional features
are reported absent (no SVM, pipes, device-side enqueue, generic address
space, sub-groups, images, program-scope globals, non-uniform work-groups);
the OpenCL C version is 1.2, as 3.0 asks of such devices.  Doubles run
natively, so cl_khr_fp64 is there.
"""
from __future__ import annotations

import sys

from ..runtime import core as _core
from ..runtime.core import ffi, lib
from ..runtime.host import clock_khz, cpu_name
from . import _constants as K
from ._base import CLObject, check, info, release, retain
from ._errors import (CL_DEVICE_NOT_FOUND, CL_INVALID_CONTEXT, CL_INVALID_DEVICE,
                      CL_INVALID_DEVICE_TYPE, CL_INVALID_PLATFORM, CL_INVALID_PROPERTY,
                      CL_INVALID_VALUE, fail)

try:
    from importlib.metadata import version as _pkg_version
    PYEMU_VERSION = _pkg_version("pyemu")
except Exception:  # pragma: no cover - not installed
    PYEMU_VERSION = "0.1.0"

_V = K.CL_MAKE_VERSION
EXTENSIONS = ("cl_khr_byte_addressable_store", "cl_khr_fp64", "cl_khr_3d_image_writes",
              "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
              "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
              "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",   # atom_* on long
              "cl_khr_subgroups", "cl_khr_subgroup_ballot", "cl_khr_subgroup_shuffle",
              "cl_khr_subgroup_shuffle_relative")   # sub-groups of 32 (detail/cl_subgroup.h)
MEM_BASE_ADDR_ALIGN_BITS = 1024     # sub-buffer origins are multiples of 128 bytes
MAX_PARAMETER_SIZE = 4352
# the constant memory of a launch: program-scope __constant variables and the
# buffers of __constant arguments, 64 KiB as on a GPU (pyemu/opencl/kernel.py's
# constant_limits enforces both at the enqueue, csrc/symbols.c at the build)
MAX_CONSTANT_BUFFER_SIZE = 65536
MAX_CONSTANT_ARGS = 8


class cl_platform_id(CLObject):
    """The one platform, pyemu."""

    _kind = "platform"
    _survives_reset = True

    def __repr__(self):
        return "<cl_platform_id pyemu>"


class cl_device_id(CLObject):
    """The one device: the CPU as an OpenCL 3.0 GPU."""

    _kind = "device"
    _survives_reset = True

    def __init__(self, platform):
        super().__init__()
        self.platform = platform

    def __repr__(self):
        return "<cl_device_id pyemu>"

    def _release(self):     # a root device: retain and release do nothing
        with CLObject._lock:
            self._refs += 1
        return False


PLATFORM = cl_platform_id()
DEVICE = cl_device_id(PLATFORM)


def clGetPlatformIDs() -> list:
    """clGetPlatformIDs: the platforms (one: pyemu)."""
    _core.ensure_started()
    return [PLATFORM]


def _platform(platform, call):
    if platform is None:    # implementation-defined in C: the one platform
        return PLATFORM
    return check(platform, cl_platform_id, CL_INVALID_PLATFORM, call)


def clGetPlatformInfo(platform, param_name):
    """clGetPlatformInfo(platform, param_name): str for the strings, int for the rest."""
    _platform(platform, "clGetPlatformInfo")
    return info({
        K.CL_PLATFORM_PROFILE: lambda: "FULL_PROFILE",
        K.CL_PLATFORM_VERSION: lambda: f"OpenCL 3.0 pyemu {PYEMU_VERSION}",
        K.CL_PLATFORM_NAME: lambda: "pyemu",
        K.CL_PLATFORM_VENDOR: lambda: "pyemu",
        # the extensions every device of the platform has (its one device's)
        K.CL_PLATFORM_EXTENSIONS: lambda: " ".join(EXTENSIONS),
        K.CL_PLATFORM_HOST_TIMER_RESOLUTION: lambda: 0,
        K.CL_PLATFORM_NUMERIC_VERSION: lambda: _V(3, 0, 0),
        K.CL_PLATFORM_EXTENSIONS_WITH_VERSION: lambda: [(_V(1, 0, 0), e) for e in EXTENSIONS],
    }, param_name, "clGetPlatformInfo", "cl_platform_info")


_ALL_TYPES = int(K.CL_DEVICE_TYPE_DEFAULT | K.CL_DEVICE_TYPE_CPU | K.CL_DEVICE_TYPE_GPU |
                 K.CL_DEVICE_TYPE_ACCELERATOR | K.CL_DEVICE_TYPE_CUSTOM)


def _device_type(device_type, call):
    try:
        t = int(device_type)
    except (TypeError, ValueError):
        fail(CL_INVALID_DEVICE_TYPE, f"device_type {device_type!r} is not an int", call)
    if t != K.CL_DEVICE_TYPE_ALL and (t == 0 or t & ~_ALL_TYPES):
        fail(CL_INVALID_DEVICE_TYPE, f"0x{t:x} is not a cl_device_type", call)
    if t & (K.CL_DEVICE_TYPE_GPU | K.CL_DEVICE_TYPE_DEFAULT) == 0:
        fail(CL_DEVICE_NOT_FOUND, f"no device of type {K.cl_device_type(t)!r}; the one device "
             "is CL_DEVICE_TYPE_GPU", call)
    return t


def clGetDeviceIDs(platform, device_type) -> list:
    """clGetDeviceIDs(platform, device_type): the devices of that type (one GPU)."""
    _platform(platform, "clGetDeviceIDs")
    _device_type(device_type, "clGetDeviceIDs")
    _core.ensure_started()
    return [DEVICE]


def _mem_total():
    _core.ensure_started()
    free = ffi.new("unsigned long long *")
    total = ffi.new("unsigned long long *")
    lib.pyemu_mem_info(free, total)
    return total[0]


def max_alloc() -> int:
    return _mem_total()


_FP = (K.CL_FP_DENORM | K.CL_FP_INF_NAN | K.CL_FP_ROUND_TO_NEAREST | K.CL_FP_ROUND_TO_ZERO |
       K.CL_FP_ROUND_TO_INF | K.CL_FP_FMA | K.CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
QUEUE_PROPERTIES = K.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | K.CL_QUEUE_PROFILING_ENABLE


def _device_table():
    D = K
    w = {1: 16, 2: 8, 4: 4, 8: 2}
    return {
        D.CL_DEVICE_TYPE: lambda: K.CL_DEVICE_TYPE_GPU,
        D.CL_DEVICE_VENDOR_ID: lambda: 0,
        D.CL_DEVICE_MAX_COMPUTE_UNITS: lambda: lib.pyemu_num_workers(),
        D.CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: lambda: 3,
        D.CL_DEVICE_MAX_WORK_GROUP_SIZE: lambda: lib.PYEMU_MAX_THREADS_PER_BLOCK,
        D.CL_DEVICE_MAX_WORK_ITEM_SIZES: lambda: [lib.PYEMU_MAX_BLOCK_X, lib.PYEMU_MAX_BLOCK_Y,
                                                  lib.PYEMU_MAX_BLOCK_Z],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR: lambda: w[1],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT: lambda: w[2],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT: lambda: w[4],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG: lambda: w[8],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: lambda: w[4],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE: lambda: w[8],
        D.CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF: lambda: 0,
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: lambda: w[1],
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: lambda: w[2],
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_INT: lambda: w[4],
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG: lambda: w[8],
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: lambda: w[4],
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: lambda: w[8],
        D.CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: lambda: 0,
        D.CL_DEVICE_MAX_CLOCK_FREQUENCY: lambda: clock_khz() // 1000,
        D.CL_DEVICE_ADDRESS_BITS: lambda: 64,
        D.CL_DEVICE_MAX_READ_IMAGE_ARGS: lambda: _image_limit("MAX_READ_IMAGE_ARGS"),
        D.CL_DEVICE_MAX_WRITE_IMAGE_ARGS: lambda: _image_limit("MAX_WRITE_IMAGE_ARGS"),
        D.CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS: lambda: 0,
        D.CL_DEVICE_MAX_MEM_ALLOC_SIZE: max_alloc,
        D.CL_DEVICE_IMAGE2D_MAX_WIDTH: lambda: _image_limit("MAX_2D")[0],
        D.CL_DEVICE_IMAGE2D_MAX_HEIGHT: lambda: _image_limit("MAX_2D")[1],
        D.CL_DEVICE_IMAGE3D_MAX_WIDTH: lambda: _image_limit("MAX_3D")[0],
        D.CL_DEVICE_IMAGE3D_MAX_HEIGHT: lambda: _image_limit("MAX_3D")[1],
        D.CL_DEVICE_IMAGE3D_MAX_DEPTH: lambda: _image_limit("MAX_3D")[2],
        D.CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: lambda: _image_limit("MAX_BUFFER"),
        D.CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: lambda: _image_limit("MAX_ARRAY_SIZE"),
        D.CL_DEVICE_IMAGE_SUPPORT: lambda: True,
        D.CL_DEVICE_MAX_PARAMETER_SIZE: lambda: MAX_PARAMETER_SIZE,
        D.CL_DEVICE_MAX_SAMPLERS: lambda: _image_limit("MAX_SAMPLERS"),
        D.CL_DEVICE_MEM_BASE_ADDR_ALIGN: lambda: MEM_BASE_ADDR_ALIGN_BITS,
        D.CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: lambda: 128,
        D.CL_DEVICE_SINGLE_FP_CONFIG: lambda: _FP,
        D.CL_DEVICE_DOUBLE_FP_CONFIG: lambda: _FP,
        D.CL_DEVICE_HALF_FP_CONFIG: lambda: K.cl_device_fp_config(0),
        D.CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: lambda: K.CL_READ_WRITE_CACHE,
        D.CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: lambda: 64,
        D.CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: lambda: _cache_bytes(),
        D.CL_DEVICE_GLOBAL_MEM_SIZE: _mem_total,
        D.CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: lambda: MAX_CONSTANT_BUFFER_SIZE,
        D.CL_DEVICE_MAX_CONSTANT_ARGS: lambda: MAX_CONSTANT_ARGS,
        D.CL_DEVICE_LOCAL_MEM_TYPE: lambda: K.CL_LOCAL,
        D.CL_DEVICE_LOCAL_MEM_SIZE: lambda: lib.PYEMU_MAX_SHARED_PER_BLOCK,
        D.CL_DEVICE_ERROR_CORRECTION_SUPPORT: lambda: False,
        D.CL_DEVICE_HOST_UNIFIED_MEMORY: lambda: True,
        D.CL_DEVICE_PROFILING_TIMER_RESOLUTION: lambda: 1,
        D.CL_DEVICE_ENDIAN_LITTLE: lambda: sys.byteorder == "little",
        D.CL_DEVICE_AVAILABLE: lambda: True,
        D.CL_DEVICE_COMPILER_AVAILABLE: lambda: True,
        D.CL_DEVICE_LINKER_AVAILABLE: lambda: False,
        D.CL_DEVICE_EXECUTION_CAPABILITIES: lambda: K.CL_EXEC_KERNEL,
        D.CL_DEVICE_QUEUE_PROPERTIES: lambda: QUEUE_PROPERTIES,
        D.CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES: lambda: K.cl_command_queue_properties(0),
        D.CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE: lambda: 0,
        D.CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE: lambda: 0,
        D.CL_DEVICE_MAX_ON_DEVICE_QUEUES: lambda: 0,
        D.CL_DEVICE_MAX_ON_DEVICE_EVENTS: lambda: 0,
        D.CL_DEVICE_NAME: lambda: f"pyemu SIMT emulator on {cpu_name()}",
        D.CL_DEVICE_VENDOR: lambda: "pyemu",
        D.CL_DRIVER_VERSION: lambda: PYEMU_VERSION,
        D.CL_DEVICE_PROFILE: lambda: "FULL_PROFILE",
        D.CL_DEVICE_VERSION: lambda: f"OpenCL 3.0 pyemu {PYEMU_VERSION}",
        D.CL_DEVICE_OPENCL_C_VERSION: lambda: "OpenCL C 1.2 pyemu",
        D.CL_DEVICE_EXTENSIONS: lambda: " ".join(EXTENSIONS),
        D.CL_DEVICE_PLATFORM: lambda: PLATFORM,
        D.CL_DEVICE_BUILT_IN_KERNELS: lambda: "",
        D.CL_DEVICE_PARENT_DEVICE: lambda: None,
        D.CL_DEVICE_PARTITION_MAX_SUB_DEVICES: lambda: 0,
        D.CL_DEVICE_PARTITION_PROPERTIES: lambda: [],
        D.CL_DEVICE_PARTITION_AFFINITY_DOMAIN: lambda: 0,
        D.CL_DEVICE_PARTITION_TYPE: lambda: [],
        D.CL_DEVICE_REFERENCE_COUNT: lambda: 1,
        D.CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: lambda: True,
        D.CL_DEVICE_PRINTF_BUFFER_SIZE: lambda: 1 << 20,
        D.CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: lambda: 0,
        D.CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: lambda: 0,
        D.CL_DEVICE_SVM_CAPABILITIES: lambda: 0,
        D.CL_DEVICE_MAX_PIPE_ARGS: lambda: 0,
        D.CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS: lambda: 0,
        D.CL_DEVICE_PIPE_MAX_PACKET_SIZE: lambda: 0,
        D.CL_DEVICE_PIPE_SUPPORT: lambda: False,
        D.CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT: lambda: 0,
        D.CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT: lambda: 0,
        D.CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT: lambda: 0,
        D.CL_DEVICE_IL_VERSION: lambda: "",
        D.CL_DEVICE_ILS_WITH_VERSION: lambda: [],
        D.CL_DEVICE_MAX_NUM_SUB_GROUPS: lambda: lib.PYEMU_MAX_THREADS_PER_BLOCK // 32,  # warps
        D.CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: lambda: False,
        D.CL_DEVICE_NUMERIC_VERSION: lambda: _V(3, 0, 0),
        D.CL_DEVICE_EXTENSIONS_WITH_VERSION: lambda: [(_V(1, 0, 0), e) for e in EXTENSIONS],
        D.CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: lambda: [],
        # the minimum 3.0 asks: relaxed order, work-group scope
        D.CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES: lambda: 0x1 | 0x10,
        D.CL_DEVICE_ATOMIC_FENCE_CAPABILITIES: lambda: 0x1 | 0x2 | 0x4 | 0x10,
        D.CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: lambda: False,
        D.CL_DEVICE_OPENCL_C_ALL_VERSIONS: lambda: [(_V(1, 0, 0), "OpenCL C"),
                                                    (_V(1, 1, 0), "OpenCL C"),
                                                    (_V(1, 2, 0), "OpenCL C"),
                                                    (_V(3, 0, 0), "OpenCL C")],
        D.CL_DEVICE_OPENCL_C_FEATURES: lambda: [(_V(3, 0, 0), "__opencl_c_fp64")],
        D.CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: lambda: 32,
        D.CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: lambda: False,
        D.CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: lambda: False,
        D.CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: lambda: 0,
        D.CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: lambda: "",
    }


def _cache_bytes():
    from ..runtime.host import l2_bytes
    return l2_bytes()


_DEVICE_TABLE = None


def clGetDeviceInfo(device, param_name):
    """clGetDeviceInfo(device, param_name): str, int, bool, a list, an IntFlag or an object."""
    global _DEVICE_TABLE
    check(device, cl_device_id, CL_INVALID_DEVICE, "clGetDeviceInfo")
    if _DEVICE_TABLE is None:
        _DEVICE_TABLE = _device_table()
    return info(_DEVICE_TABLE, param_name, "clGetDeviceInfo", "cl_device_info")


def clRetainDevice(device):
    """clRetainDevice: a root device's count does not move."""
    return retain(device, cl_device_id, CL_INVALID_DEVICE, "clRetainDevice")


def clReleaseDevice(device):
    """clReleaseDevice: a root device's count does not move."""
    return release(device, cl_device_id, CL_INVALID_DEVICE, "clReleaseDevice")


# ---- contexts ----

class cl_context(CLObject):
    """A context of the one device."""

    _kind = "context"

    def __init__(self, devices, properties, pfn_notify, user_data):
        super().__init__()
        self.devices = devices
        self.properties = properties
        self.pfn_notify = pfn_notify
        self.user_data = user_data


def _properties(properties, call):
    """The property list as [name, value, ..., 0]; None stays None."""
    if properties is None:
        return None
    try:
        items = list(properties)
    except TypeError:
        fail(CL_INVALID_PROPERTY, f"properties must be a list, not {type(properties).__name__}",
             call)
    if items and not isinstance(items[-1], CLObject) and items[-1] == 0 and len(items) % 2:
        items = items[:-1]
    if len(items) % 2:
        fail(CL_INVALID_PROPERTY, "properties must be name, value pairs ending in 0", call)
    seen = set()
    for name, value in zip(items[::2], items[1::2]):
        try:
            n = int(name)
        except (TypeError, ValueError):
            fail(CL_INVALID_PROPERTY, f"{name!r} is not a property name", call)
        if n in seen:
            fail(CL_INVALID_PROPERTY, f"property 0x{n:x} is given twice", call)
        seen.add(n)
        if n == K.CL_CONTEXT_PLATFORM:
            if not isinstance(value, cl_platform_id):
                fail(CL_INVALID_PLATFORM, f"CL_CONTEXT_PLATFORM is {value!r}, not a platform",
                     call)
        elif n == K.CL_CONTEXT_INTEROP_USER_SYNC:
            if value not in (0, 1, True, False):
                fail(CL_INVALID_PROPERTY, "CL_CONTEXT_INTEROP_USER_SYNC is CL_TRUE or CL_FALSE",
                     call)
        else:
            fail(CL_INVALID_PROPERTY, f"0x{n:x} is not a context property", call)
    return items + [0]


def _notify(pfn_notify, user_data, call):
    if pfn_notify is None and user_data is not None:
        fail(CL_INVALID_VALUE, "user_data without pfn_notify", call)
    if pfn_notify is not None and not callable(pfn_notify):
        fail(CL_INVALID_VALUE, "pfn_notify is not callable", call)


def clCreateContext(properties, devices, pfn_notify=None, user_data=None) -> cl_context:
    """clCreateContext(properties, devices, pfn_notify=None, user_data=None): devices is
    a list (num_devices is its length); a device given twice counts once, as the
    specification says."""
    call = "clCreateContext"
    props = _properties(properties, call)
    if devices is None or isinstance(devices, (CLObject, str, bytes)):
        fail(CL_INVALID_VALUE, "devices must be a non-empty list of devices", call)
    try:
        given = list(devices)
    except TypeError:
        fail(CL_INVALID_VALUE, f"devices is {type(devices).__name__}, not a list of devices",
             call)
    if not given:
        fail(CL_INVALID_VALUE, "devices is empty", call)
    devs = []
    for d in given:
        check(d, cl_device_id, CL_INVALID_DEVICE, call, "a device")
        if d not in devs:       # "Duplicate devices specified in devices are ignored."
            devs.append(d)
    _notify(pfn_notify, user_data, call)
    _core.ensure_started()
    return cl_context(devs, props, pfn_notify, user_data)


def clCreateContextFromType(properties, device_type, pfn_notify=None,
                            user_data=None) -> cl_context:
    """clCreateContextFromType(properties, device_type, pfn_notify=None, user_data=None)."""
    call = "clCreateContextFromType"
    props = _properties(properties, call)
    _device_type(device_type, call)
    _notify(pfn_notify, user_data, call)
    _core.ensure_started()
    return cl_context([DEVICE], props, pfn_notify, user_data)


def check_context(context, call) -> cl_context:
    return check(context, cl_context, CL_INVALID_CONTEXT, call)


def clGetContextInfo(context, param_name):
    """clGetContextInfo(context, param_name)."""
    c = check_context(context, "clGetContextInfo")
    return info({
        K.CL_CONTEXT_REFERENCE_COUNT: lambda: c._refs,
        K.CL_CONTEXT_DEVICES: lambda: list(c.devices),
        K.CL_CONTEXT_NUM_DEVICES: lambda: len(c.devices),
        K.CL_CONTEXT_PROPERTIES: lambda: list(c.properties) if c.properties else [],
    }, param_name, "clGetContextInfo", "cl_context_info")


def clRetainContext(context):
    """clRetainContext: one more reference."""
    return retain(context, cl_context, CL_INVALID_CONTEXT, "clRetainContext")


def clReleaseContext(context):
    """clReleaseContext: one reference less; at 0 the context is gone."""
    return release(context, cl_context, CL_INVALID_CONTEXT, "clReleaseContext")


def _image_limit(name):
    """An image limit of the device (pyemu/opencl/image.py holds them)."""
    from . import image
    return getattr(image, name)


__all__ = ["cl_platform_id", "cl_device_id", "cl_context", "clGetPlatformIDs",
           "clGetPlatformInfo", "clGetDeviceIDs", "clGetDeviceInfo", "clRetainDevice",
           "clReleaseDevice", "clCreateContext", "clCreateContextFromType", "clGetContextInfo",
           "clRetainContext", "clReleaseContext"]
