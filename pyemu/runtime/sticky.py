"""The sticky error: what a fault in a kernel does to later calls, one rule
for both facades.

A kernel that faults (an illegal address, a division by zero, a barrier
only part of a block reaches, a failed assert, a stopped kernel: core
statuses PYEMU_E_ILLEGAL_ADDRESS and above) leaves the device in error
until `pyemu.cuda.cudaDeviceReset()`:

* Device work.  The core refuses every later enqueue (kernel, copy, fill,
  marker) with the fault's status, and every wait for the device returns
  it.  CUDA: cudaMemcpy, `k[grid, block](...)`, cudaDeviceSynchronize, ...
  fail with the fault's code (cudaErrorIllegalAddress, ...).  OpenCL:
  clEnqueue*, clFinish and a blocking read fail with CL_OUT_OF_RESOURCES,
  what GPU drivers answer once a kernel has crashed their context.
* Everything else.  CUDA: every runtime call fails with the sticky code too
  (cudaMalloc, cudaMemGetInfo, ...), as CUDA does: the context is lost; only
  the error queries (cudaGetLastError, cudaPeekAtLastError,
  cudaGetErrorString/Name) and cudaDeviceReset work.  OpenCL: calls that
  make, set or describe objects on the host (clCreateBuffer, clSetKernelArg,
  clGet*Info, clRelease*) still succeed, as they do on real drivers, where
  they need no working device; the first device work that uses them fails.

`applies(api, what)` is this rule; `current()` reads the error once, with
its message (the same look under the engine's lock).
"""
from __future__ import annotations

from .core import ffi, lib

CUDA, OPENCL = "cuda", "opencl"
DEVICE_WORK, HOST_OBJECT = "device work", "host object"


def applies(api: str, what: str) -> bool:
    """Whether a call of `what` (DEVICE_WORK or HOST_OBJECT) fails with the
    sticky error in `api` (CUDA or OPENCL)."""
    return api == CUDA or what == DEVICE_WORK


def current() -> tuple:
    """(core status, message) of the fault that poisons the device, or (0, '')."""
    if not lib.pyemu_sticky_error(ffi.NULL, 0):
        return 0, ""
    # read again with the message: a cudaDeviceReset on another thread may
    # have cleared the error in between, and then there is none
    buf = ffi.new("char[]", 1024)
    status = lib.pyemu_sticky_error(buf, 1024)
    if not status:
        return 0, ""
    return status, ffi.string(buf).decode("utf-8", "replace")


def check(api: str, what: str, fail) -> None:
    """fail(status, message) when the rule says this call fails now."""
    if applies(api, what):
        status, message = current()
        if status:
            fail(status, message)


__all__ = ["CUDA", "OPENCL", "DEVICE_WORK", "HOST_OBJECT", "applies", "current", "check"]
