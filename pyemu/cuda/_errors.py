"""cudaError_t with the real values and texts, CudaError, and the last-error state.

CUDA keeps two kinds of error: the *last error* of each host thread, which
cudaGetLastError returns and clears, and a *sticky* error after a fault in a
kernel, which every later call returns until cudaDeviceReset.
"""
from __future__ import annotations

import operator

import threading
from enum import IntEnum

from ..runtime import faults as _faults
from ..runtime import sticky as _sticky
from ..runtime.core import CoreError, lib
from ..runtime.errors import APIError

_ERRORS = [
    # (name, value, cudaGetErrorString text), as CUDA 13.0 on an H100 prints them
    # (tests/data/ground_truth/cuda_h100.json)
    ("cudaSuccess", 0, "no error"),
    ("cudaErrorInvalidValue", 1, "invalid argument"),
    ("cudaErrorMemoryAllocation", 2, "out of memory"),
    ("cudaErrorInitializationError", 3, "initialization error"),
    ("cudaErrorCudartUnloading", 4, "driver shutting down"),
    ("cudaErrorProfilerDisabled", 5, "profiler disabled while using external profiling tool"),
    ("cudaErrorProfilerNotInitialized", 6, "profiler not initialized: call cudaProfilerInitialize()"),
    ("cudaErrorProfilerAlreadyStarted", 7, "profiler already started"),
    ("cudaErrorProfilerAlreadyStopped", 8, "profiler already stopped"),
    ("cudaErrorInvalidConfiguration", 9, "invalid configuration argument"),
    ("cudaErrorInvalidPitchValue", 12, "invalid pitch argument"),
    ("cudaErrorInvalidSymbol", 13, "invalid device symbol"),
    ("cudaErrorInvalidHostPointer", 16, "invalid host pointer"),
    ("cudaErrorInvalidDevicePointer", 17, "invalid device pointer"),
    ("cudaErrorInvalidTexture", 18, "invalid texture reference"),
    ("cudaErrorInvalidTextureBinding", 19, "texture is not bound to a pointer"),
    ("cudaErrorInvalidChannelDescriptor", 20, "invalid channel descriptor"),
    ("cudaErrorInvalidMemcpyDirection", 21, "invalid copy direction for memcpy"),
    ("cudaErrorAddressOfConstant", 22, "invalid address of constant"),
    ("cudaErrorTextureFetchFailed", 23, "fetch from texture failed"),
    ("cudaErrorTextureNotBound", 24, "cannot fetch from a texture that is not bound"),
    ("cudaErrorSynchronizationError", 25, "incorrect use of __syncthreads()"),
    ("cudaErrorInvalidFilterSetting", 26, "linear filtering not supported for non-float type"),
    ("cudaErrorInvalidNormSetting", 27, "read as normalized float not supported for data type"),
    ("cudaErrorMixedDeviceExecution", 28, "device emulation mode and device execution mode cannot be mixed"),
    ("cudaErrorNotYetImplemented", 31, "feature not yet implemented"),
    ("cudaErrorMemoryValueTooLarge", 32, "memory size or pointer value too large to fit in 32 bit"),
    ("cudaErrorStubLibrary", 34, "CUDA driver is a stub library"),
    ("cudaErrorInsufficientDriver", 35, "CUDA driver version is insufficient for CUDA runtime version"),
    ("cudaErrorCallRequiresNewerDriver", 36, "API call is not supported in the installed CUDA driver"),
    ("cudaErrorInvalidSurface", 37, "invalid surface reference"),
    ("cudaErrorDuplicateVariableName", 43, "duplicate global variable looked up by string name"),
    ("cudaErrorDuplicateTextureName", 44, "duplicate texture looked up by string name"),
    ("cudaErrorDuplicateSurfaceName", 45, "duplicate surface looked up by string name"),
    ("cudaErrorDevicesUnavailable", 46, "CUDA-capable device(s) is/are busy or unavailable"),
    ("cudaErrorIncompatibleDriverContext", 49, "incompatible driver context"),
    ("cudaErrorMissingConfiguration", 52, "__global__ function call is not configured"),
    ("cudaErrorPriorLaunchFailure", 53, "unspecified launch failure in prior launch"),
    ("cudaErrorLaunchMaxDepthExceeded", 65, "launch would exceed maximum depth of nested launches"),
    ("cudaErrorLaunchFileScopedTex", 66, "launch failed because kernel uses unsupported, file-scoped textures (texture objects are supported)"),
    ("cudaErrorLaunchFileScopedSurf", 67, "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are supported)"),
    ("cudaErrorSyncDepthExceeded", 68, "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth"),
    ("cudaErrorLaunchPendingCountExceeded", 69, "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"),
    ("cudaErrorInvalidDeviceFunction", 98, "invalid device function"),
    ("cudaErrorNoDevice", 100, "no CUDA-capable device is detected"),
    ("cudaErrorInvalidDevice", 101, "invalid device ordinal"),
    ("cudaErrorDeviceNotLicensed", 102, "device doesn't have valid Grid license"),
    ("cudaErrorSoftwareValidityNotEstablished", 103, "integrity checks failed"),
    ("cudaErrorStartupFailure", 127, "startup failure in cuda runtime"),
    ("cudaErrorInvalidKernelImage", 200, "device kernel image is invalid"),
    ("cudaErrorDeviceUninitialized", 201, "invalid device context"),
    ("cudaErrorMapBufferObjectFailed", 205, "mapping of buffer object failed"),
    ("cudaErrorUnmapBufferObjectFailed", 206, "unmapping of buffer object failed"),
    ("cudaErrorArrayIsMapped", 207, "array is mapped"),
    ("cudaErrorAlreadyMapped", 208, "resource already mapped"),
    ("cudaErrorNoKernelImageForDevice", 209, "no kernel image is available for execution on the device"),
    ("cudaErrorAlreadyAcquired", 210, "resource already acquired"),
    ("cudaErrorNotMapped", 211, "resource not mapped"),
    ("cudaErrorNotMappedAsArray", 212, "resource not mapped as array"),
    ("cudaErrorNotMappedAsPointer", 213, "resource not mapped as pointer"),
    ("cudaErrorECCUncorrectable", 214, "uncorrectable ECC error encountered"),
    ("cudaErrorUnsupportedLimit", 215, "limit is not supported on this architecture"),
    ("cudaErrorDeviceAlreadyInUse", 216, "exclusive-thread device already in use by a different thread"),
    ("cudaErrorPeerAccessUnsupported", 217, "peer access is not supported between these two devices"),
    ("cudaErrorInvalidPtx", 218, "a PTX JIT compilation failed"),
    ("cudaErrorInvalidGraphicsContext", 219, "invalid OpenGL or DirectX context"),
    ("cudaErrorNvlinkUncorrectable", 220, "uncorrectable NVLink error detected during the execution"),
    ("cudaErrorJitCompilerNotFound", 221, "PTX JIT compiler library not found"),
    ("cudaErrorUnsupportedPtxVersion", 222, "the provided PTX was compiled with an unsupported toolchain."),
    ("cudaErrorJitCompilationDisabled", 223, "PTX JIT compilation was disabled"),
    ("cudaErrorUnsupportedExecAffinity", 224, "the provided execution affinity is not supported"),
    ("cudaErrorUnsupportedDevSideSync", 225, "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
    ("cudaErrorContained", 226, "Invalid access of peer GPU memory over nvlink or a hardware error"),
    ("cudaErrorInvalidSource", 300, "device kernel image is invalid"),
    ("cudaErrorFileNotFound", 301, "file not found"),
    ("cudaErrorSharedObjectSymbolNotFound", 302, "shared object symbol not found"),
    ("cudaErrorSharedObjectInitFailed", 303, "shared object initialization failed"),
    ("cudaErrorOperatingSystem", 304, "OS call failed or operation not supported on this OS"),
    ("cudaErrorInvalidResourceHandle", 400, "invalid resource handle"),
    ("cudaErrorIllegalState", 401, "the operation cannot be performed in the present state"),
    ("cudaErrorLossyQuery", 402, "attempted introspection would be semantically lossy"),
    ("cudaErrorSymbolNotFound", 500, "named symbol not found"),
    ("cudaErrorNotReady", 600, "device not ready"),
    ("cudaErrorIllegalAddress", 700, "an illegal memory access was encountered"),
    ("cudaErrorLaunchOutOfResources", 701, "too many resources requested for launch"),
    ("cudaErrorLaunchTimeout", 702, "the launch timed out and was terminated"),
    ("cudaErrorLaunchIncompatibleTexturing", 703, "launch uses incompatible texturing mode"),
    ("cudaErrorPeerAccessAlreadyEnabled", 704, "peer access is already enabled"),
    ("cudaErrorPeerAccessNotEnabled", 705, "peer access has not been enabled"),
    ("cudaErrorSetOnActiveProcess", 708, "cannot set while device is active in this process"),
    ("cudaErrorContextIsDestroyed", 709, "context is destroyed"),
    ("cudaErrorAssert", 710, "device-side assert triggered"),
    ("cudaErrorTooManyPeers", 711, "peer mapping resources exhausted"),
    ("cudaErrorHostMemoryAlreadyRegistered", 712, "part or all of the requested memory range is already mapped"),
    ("cudaErrorHostMemoryNotRegistered", 713, "pointer does not correspond to a registered memory region"),
    ("cudaErrorHardwareStackError", 714, "hardware stack error"),
    ("cudaErrorIllegalInstruction", 715, "an illegal instruction was encountered"),
    ("cudaErrorMisalignedAddress", 716, "misaligned address"),
    ("cudaErrorInvalidAddressSpace", 717, "operation not supported on global/shared address space"),
    ("cudaErrorInvalidPc", 718, "invalid program counter"),
    ("cudaErrorLaunchFailure", 719, "unspecified launch failure"),
    ("cudaErrorCooperativeLaunchTooLarge", 720, "too many blocks in cooperative launch"),
    ("cudaErrorTensorMemoryLeak", 721, "tensor memory not completely freed"),
    ("cudaErrorNotPermitted", 800, "operation not permitted"),
    ("cudaErrorNotSupported", 801, "operation not supported"),
    ("cudaErrorSystemNotReady", 802, "system not yet initialized"),
    ("cudaErrorSystemDriverMismatch", 803, "system has unsupported display driver / cuda driver combination"),
    ("cudaErrorCompatNotSupportedOnDevice", 804, "forward compatibility was attempted on non supported HW"),
    ("cudaErrorMpsConnectionFailed", 805, "MPS client failed to connect to the MPS control daemon or the MPS server"),
    ("cudaErrorMpsRpcFailure", 806, "the remote procedural call between the MPS server and the MPS client failed"),
    ("cudaErrorMpsServerNotReady", 807, "MPS server is not ready to accept new MPS client requests"),
    ("cudaErrorMpsMaxClientsReached", 808, "the hardware resources required to create MPS client have been exhausted"),
    ("cudaErrorMpsMaxConnectionsReached", 809, "the hardware resources required to support device connections have been exhausted"),
    ("cudaErrorMpsClientTerminated", 810, "the MPS client has been terminated by the server"),
    ("cudaErrorCdpNotSupported", 811, "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"),
    ("cudaErrorCdpVersionMismatch", 812, "unsupported interaction between different versions of CUDA Dynamic Parallelism"),
    ("cudaErrorStreamCaptureUnsupported", 900, "operation not permitted when stream is capturing"),
    ("cudaErrorStreamCaptureInvalidated", 901, "operation failed due to a previous error during capture"),
    ("cudaErrorStreamCaptureMerge", 902, "operation would result in a merge of separate capture sequences"),
    ("cudaErrorStreamCaptureUnmatched", 903, "capture was not ended in the same stream as it began"),
    ("cudaErrorStreamCaptureUnjoined", 904, "capturing stream has unjoined work"),
    ("cudaErrorStreamCaptureIsolation", 905, "dependency created on uncaptured work in another stream"),
    ("cudaErrorStreamCaptureImplicit", 906, "operation would make the legacy stream depend on a capturing blocking stream"),
    ("cudaErrorCapturedEvent", 907, "operation not permitted on an event last recorded in a capturing stream"),
    ("cudaErrorStreamCaptureWrongThread", 908, "attempt to terminate a thread-local capture sequence from another thread"),
    ("cudaErrorTimeout", 909, "wait operation timed out"),
    ("cudaErrorGraphExecUpdateFailure", 910, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    ("cudaErrorExternalDevice", 911, "an async error has occured in external entity outside of CUDA"),
    ("cudaErrorInvalidClusterSize", 912, "a kernel launch error has occurred due to cluster misconfiguration"),
    ("cudaErrorFunctionNotLoaded", 913, "the function handle is not loaded when calling an API that requires a loaded function"),
    ("cudaErrorInvalidResourceType", 914, "one or more resources passed in are not valid resource types for the operation"),
    ("cudaErrorInvalidResourceConfiguration", 915, "one or more resources are insufficient or non-applicable for the operation"),
    ("cudaErrorUnknown", 999, "unknown error"),
    ("cudaErrorApiFailureBase", 10000, "api failure base"),
]

cudaError_t = IntEnum("cudaError_t", [(n, v) for n, v, _ in _ERRORS])
cudaError_t.__doc__ = "CUDA runtime error codes (driver_types.h), with their real values."
cudaError = cudaError_t
_STRINGS = {v: s for _, v, s in _ERRORS}
globals().update({n: cudaError_t(v) for n, v, _ in _ERRORS})


def cudaGetErrorString(error) -> str:
    """cudaGetErrorString: the description of an error code.

    As CUDA 12, an unknown code gives "unrecognized error code", and so does
    anything that is not an integer (C would take its bits; Python has none)."""
    code = _code_of(error)
    return "unrecognized error code" if code is None else \
        _STRINGS.get(code, "unrecognized error code")


def cudaGetErrorName(error) -> str:
    """cudaGetErrorName: the enum name of an error code ("cudaErrorInvalidValue");
    "unrecognized error code" for an unknown code or a non-integer."""
    code = _code_of(error)
    try:
        return cudaError_t(code).name
    except ValueError:
        return "unrecognized error code"


def _code_of(error):
    """error as an int (an IntEnum, int or NumPy integer), else None."""
    if not hasattr(error, "__index__"):
        return None
    return operator.index(error)


class CudaError(APIError):
    """A failed CUDA runtime call.  `.code` is the cudaError_t; str() reads
    like "cudaMalloc failed: cudaErrorMemoryAllocation (out of memory): ..."."""

    def __init__(self, code, detail: str = "", call: str = ""):
        code = cudaError_t(int(code))
        super().__init__(code, f"{code.name} ({cudaGetErrorString(code)})", detail, call)


# core status -> cudaError_t
_FROM_CORE = {
    lib.PYEMU_E_INVALID_VALUE: cudaErrorInvalidValue,
    lib.PYEMU_E_OUT_OF_MEMORY: cudaErrorMemoryAllocation,
    lib.PYEMU_E_INVALID_HANDLE: cudaErrorInvalidResourceHandle,
    lib.PYEMU_E_NOT_READY: cudaErrorNotReady,
    # CUDA 13 on an H100 answers every bad launch configuration with
    # cudaErrorInvalidValue (tests/data/ground_truth/cuda_h100.json)
    lib.PYEMU_E_BLOCK_TOO_LARGE: cudaErrorInvalidValue,
    lib.PYEMU_E_BAD_DIMS: cudaErrorInvalidValue,
    lib.PYEMU_E_SMEM_TOO_LARGE: cudaErrorInvalidValue,
    lib.PYEMU_E_SYSTEM: cudaErrorOperatingSystem,
    lib.PYEMU_E_MODULE: cudaErrorInvalidKernelImage,
    lib.PYEMU_E_DEP_FAILED: cudaErrorLaunchFailure,
    lib.PYEMU_E_BAD_POINTER: cudaErrorInvalidValue,
    lib.PYEMU_E_ILLEGAL_ADDRESS: cudaErrorIllegalAddress,
    lib.PYEMU_E_LAUNCH_FAILURE: cudaErrorLaunchFailure,
    lib.PYEMU_E_ASSERT: cudaErrorAssert,
    lib.PYEMU_E_BARRIER: cudaErrorLaunchFailure,
    lib.PYEMU_E_MISALIGNED: cudaErrorMisalignedAddress,
    lib.PYEMU_E_ILLEGAL_INSTRUCTION: cudaErrorIllegalInstruction,
    lib.PYEMU_E_LAUNCH_TIMEOUT: cudaErrorLaunchTimeout,
}


def from_core(status: int) -> cudaError_t:
    return _FROM_CORE.get(status, cudaErrorUnknown)


# ---- the last error (per host thread) and the sticky error (per device) ----

_tls = threading.local()


def set_last(code) -> None:
    if int(code):
        _tls.last = cudaError_t(int(code))


def take_last() -> cudaError_t:
    code = getattr(_tls, "last", cudaSuccess)
    _tls.last = cudaSuccess
    return code


def peek_last() -> cudaError_t:
    return getattr(_tls, "last", cudaSuccess)


def fail(code, detail: str = "", call: str = "") -> "NoReturn":  # noqa: F821
    """Record `code` as the thread's last error and raise CudaError."""
    set_last(code)
    raise CudaError(code, detail, call)


def raise_core(exc: CoreError, call: str) -> "NoReturn":  # noqa: F821
    fail(from_core(exc.status), in_cuda_words(str(exc)), call)


def in_cuda_words(message: str) -> str:
    """A core message in CUDA's terms (a kernel fault's record, runtime/faults.py)."""
    return _faults.word(message, _faults.CUDA_TERMS)


def sticky() -> tuple:
    """(cudaError_t, message) of a kernel fault that poisons the device, or (cudaSuccess, '')."""
    status, message = _sticky.current()
    if not status:
        return cudaSuccess, ""
    return from_core(status), in_cuda_words(message)


def check_sticky(call: str) -> None:
    """Every call but a few fails with the sticky error once a kernel faulted
    (runtime/sticky.py states the rule for both facades)."""
    _sticky.check(_sticky.CUDA, _sticky.DEVICE_WORK,
                  lambda status, message: fail(from_core(status), in_cuda_words(message), call))


__all__ = ["cudaError_t", "cudaError", "CudaError", "cudaGetErrorString", "cudaGetErrorName"] + [
    n for n, _, _ in _ERRORS]
