"""OpenCL error codes with their real values (CL/cl.h), CLError, and the
translation of core statuses (PYEMU_E_*) into them.

Every failing call raises CLError; `.code` is the cl_int the C call would
have returned (or stored through errcode_ret), `.name` its CL_* name, and
str() reads "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE: ...".
"""
from __future__ import annotations

from enum import IntEnum

from ..runtime import faults as _faults
from ..runtime import sticky as _sticky
from ..runtime.core import CoreError, lib
from ..runtime.errors import APIError

_CODES = [
    ("CL_SUCCESS", 0),
    ("CL_DEVICE_NOT_FOUND", -1),
    ("CL_DEVICE_NOT_AVAILABLE", -2),
    ("CL_COMPILER_NOT_AVAILABLE", -3),
    ("CL_MEM_OBJECT_ALLOCATION_FAILURE", -4),
    ("CL_OUT_OF_RESOURCES", -5),
    ("CL_OUT_OF_HOST_MEMORY", -6),
    ("CL_PROFILING_INFO_NOT_AVAILABLE", -7),
    ("CL_MEM_COPY_OVERLAP", -8),
    ("CL_IMAGE_FORMAT_MISMATCH", -9),
    ("CL_IMAGE_FORMAT_NOT_SUPPORTED", -10),
    ("CL_BUILD_PROGRAM_FAILURE", -11),
    ("CL_MAP_FAILURE", -12),
    ("CL_MISALIGNED_SUB_BUFFER_OFFSET", -13),
    ("CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", -14),
    ("CL_COMPILE_PROGRAM_FAILURE", -15),
    ("CL_LINKER_NOT_AVAILABLE", -16),
    ("CL_LINK_PROGRAM_FAILURE", -17),
    ("CL_DEVICE_PARTITION_FAILED", -18),
    ("CL_KERNEL_ARG_INFO_NOT_AVAILABLE", -19),
    ("CL_INVALID_VALUE", -30),
    ("CL_INVALID_DEVICE_TYPE", -31),
    ("CL_INVALID_PLATFORM", -32),
    ("CL_INVALID_DEVICE", -33),
    ("CL_INVALID_CONTEXT", -34),
    ("CL_INVALID_QUEUE_PROPERTIES", -35),
    ("CL_INVALID_COMMAND_QUEUE", -36),
    ("CL_INVALID_HOST_PTR", -37),
    ("CL_INVALID_MEM_OBJECT", -38),
    ("CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", -39),
    ("CL_INVALID_IMAGE_SIZE", -40),
    ("CL_INVALID_SAMPLER", -41),
    ("CL_INVALID_BINARY", -42),
    ("CL_INVALID_BUILD_OPTIONS", -43),
    ("CL_INVALID_PROGRAM", -44),
    ("CL_INVALID_PROGRAM_EXECUTABLE", -45),
    ("CL_INVALID_KERNEL_NAME", -46),
    ("CL_INVALID_KERNEL_DEFINITION", -47),
    ("CL_INVALID_KERNEL", -48),
    ("CL_INVALID_ARG_INDEX", -49),
    ("CL_INVALID_ARG_VALUE", -50),
    ("CL_INVALID_ARG_SIZE", -51),
    ("CL_INVALID_KERNEL_ARGS", -52),
    ("CL_INVALID_WORK_DIMENSION", -53),
    ("CL_INVALID_WORK_GROUP_SIZE", -54),
    ("CL_INVALID_WORK_ITEM_SIZE", -55),
    ("CL_INVALID_GLOBAL_OFFSET", -56),
    ("CL_INVALID_EVENT_WAIT_LIST", -57),
    ("CL_INVALID_EVENT", -58),
    ("CL_INVALID_OPERATION", -59),
    ("CL_INVALID_GL_OBJECT", -60),
    ("CL_INVALID_BUFFER_SIZE", -61),
    ("CL_INVALID_MIP_LEVEL", -62),
    ("CL_INVALID_GLOBAL_WORK_SIZE", -63),
    ("CL_INVALID_PROPERTY", -64),
    ("CL_INVALID_IMAGE_DESCRIPTOR", -65),
    ("CL_INVALID_COMPILER_OPTIONS", -66),
    ("CL_INVALID_LINKER_OPTIONS", -67),
    ("CL_INVALID_DEVICE_PARTITION_COUNT", -68),
    ("CL_INVALID_PIPE_SIZE", -69),
    ("CL_INVALID_DEVICE_QUEUE", -70),
    ("CL_INVALID_SPEC_ID", -71),
    ("CL_MAX_SIZE_RESTRICTION_EXCEEDED", -72),
    # cl_khr_icd: what the ICD loader answers when it finds no platform
    ("CL_PLATFORM_NOT_FOUND_KHR", -1001),
]

cl_error = IntEnum("cl_error", _CODES)
cl_error.__doc__ = "OpenCL error codes (CL/cl.h), with their real values."
globals().update({n: cl_error(v) for n, v in _CODES})


class CLError(APIError):
    """A failed OpenCL call.  `.code` is the CL error (an int), `.name` its
    CL_* name, `.call` the function, `.detail` what was wrong."""

    def __init__(self, code, detail: str = "", call: str = ""):
        try:
            code = cl_error(int(code))
            self.name = code.name
        except ValueError:
            code = int(code)
            self.name = f"CL error {code}"
        super().__init__(code, self.name, detail, call)


def fail(code, detail: str = "", call: str = "") -> "NoReturn":  # noqa: F821
    raise CLError(code, detail, call)


# core status -> CL error; where a status means something else per call, the
# caller passes its own table to from_core().
_FROM_CORE = {
    lib.PYEMU_E_INVALID_VALUE: CL_INVALID_VALUE,
    lib.PYEMU_E_OUT_OF_MEMORY: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_INVALID_HANDLE: CL_INVALID_EVENT_WAIT_LIST,
    lib.PYEMU_E_NOT_READY: CL_PROFILING_INFO_NOT_AVAILABLE,
    lib.PYEMU_E_BLOCK_TOO_LARGE: CL_INVALID_WORK_GROUP_SIZE,
    lib.PYEMU_E_BAD_DIMS: CL_INVALID_GLOBAL_WORK_SIZE,
    lib.PYEMU_E_SMEM_TOO_LARGE: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_SYSTEM: CL_OUT_OF_HOST_MEMORY,
    lib.PYEMU_E_MODULE: CL_BUILD_PROGRAM_FAILURE,
    lib.PYEMU_E_DEP_FAILED: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
    lib.PYEMU_E_BAD_POINTER: CL_INVALID_KERNEL_ARGS,
    # a fault in a kernel: GPU drivers report CL_OUT_OF_RESOURCES for these
    lib.PYEMU_E_ILLEGAL_ADDRESS: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_LAUNCH_FAILURE: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_ASSERT: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_BARRIER: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_MISALIGNED: CL_OUT_OF_RESOURCES,
    lib.PYEMU_E_ILLEGAL_INSTRUCTION: CL_OUT_OF_RESOURCES,
}


def from_core(status: int, overrides: dict | None = None) -> cl_error:
    if overrides and status in overrides:
        return overrides[status]
    return _FROM_CORE.get(status, CL_OUT_OF_RESOURCES)


def in_opencl_words(message: str) -> str:
    """A core message in OpenCL's terms: a kernel fault's record
    (pyemu/runtime/faults.py) worded with work-group, work-item and barrier();
    any other message as it is."""
    return _faults.word(message, _faults.OPENCL_TERMS)


def raise_core(exc: CoreError, call: str, overrides: dict | None = None) -> "NoReturn":  # noqa: F821
    fail(from_core(exc.status, overrides), in_opencl_words(str(exc)), call)


def check_sticky(call: str, what: str = _sticky.DEVICE_WORK) -> None:
    """After a kernel fault, a call of `what` fails as runtime/sticky.py says
    (device work: CL_OUT_OF_RESOURCES; host objects: no error)."""
    _sticky.check(_sticky.OPENCL, what,
                  lambda status, message: fail(from_core(status), in_opencl_words(message), call))


__all__ = ["CLError", "cl_error", "in_opencl_words"] + [n for n, _ in _CODES]
