"""The CUDA runtime API: device management, memory, synchronisation, errors.

One rule turns the C signatures into Python: output parameters become return
values (several become a tuple in C order), every other argument keeps its C
position, and a failing call raises CudaError (and becomes the thread's last
error).  Calls with no output return cudaSuccess, so `err = cudaMemcpy(...)`
ported from C still reads right.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ..runtime import core as _core
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.host import cpu_name as _cpu_name, l2_bytes as _l2_bytes

DEVICE_CLOCK_KHZ = 1000000     # the device clock of clock() and clock64(): 1 GHz
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import devices as _dev
from ._errors import CudaError, cudaError_t, cudaSuccess
from ._memory import (DevicePointer, ManagedArray, allocation_of, device_address,
                      host_buffer, is_device_address, managed_bytes)
from ._types import (cudaDeviceAttr, cudaDeviceProp, cudaMemcpyKind, cudaMemcpyDefault,
                     cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice,
                     cudaMemcpyHostToHost)

cudaMemAttachGlobal = 0x01
cudaMemAttachHost = 0x02
cudaMemAttachSingle = 0x04

_lock = threading.Lock()
_default_queue = None
_sticky_reported = False


def default_queue():
    """The queue of stream 0: CUDA's legacy default stream, or this host
    thread's per-thread default stream when pyemu.cuda.set_default_stream
    ("per-thread") or PYEMU_DEFAULT_STREAM=per-thread (nvcc's
    --default-stream per-thread) chose it."""
    if _per_thread_default[0]:
        return per_thread_queue()
    return legacy_queue()


_per_thread_default = [False]
_per_thread = threading.local()


def per_thread_queue():
    """This host thread's per-thread default stream (cudaStreamPerThread) of
    the current device: a blocking queue, so it still synchronises with the
    legacy default stream."""
    if _dev.MULTI:
        qs = getattr(_per_thread, "queues", None)
        if qs is None:
            qs = _per_thread.queues = {}
        q = qs.get(_dev.current())
        if q is None:
            q = qs[_dev.current()] = _new_queue(
                lib.PYEMU_QUEUE_BLOCKING, f"per-thread stream ({threading.current_thread().name}, "
                f"device {_dev.current()})")
        return q
    q = getattr(_per_thread, "queue", None)
    if q is None:
        q = _per_thread.queue = _new_queue(
            lib.PYEMU_QUEUE_BLOCKING, f"per-thread stream ({threading.current_thread().name})")
    return q


def _new_queue(flags, name):
    _core.ensure_started()
    out = ffi.new("pyemu_queue **")
    _core.check(lib.pyemu_queue_create(flags | _dev.queue_flags(), out))
    from ..runtime import trace
    trace.name_queue(out[0], name)
    return out[0]


_legacy_of = {}     # device -> its legacy default stream, with several devices


def legacy_queue():
    """CUDA's legacy default stream (cudaStreamLegacy) of the current device:
    a queue of the command engine."""
    global _default_queue
    if _dev.MULTI and _dev.current():
        d = _dev.current()
        if d not in _legacy_of:
            with _lock:
                if d not in _legacy_of:
                    _legacy_of[d] = _new_queue(lib.PYEMU_QUEUE_LEGACY_DEFAULT,
                                               f"legacy default stream (device {d})")
        return _legacy_of[d]
    if _default_queue is None:
        with _lock:
            if _default_queue is None:
                _default_queue = _new_queue(lib.PYEMU_QUEUE_LEGACY_DEFAULT,
                                            "legacy default stream")
    return _default_queue


_host_fn = threading.local()     # .on: this thread is running a host function


def no_wait_in_host_function(call: str) -> None:
    """A host function (cudaLaunchHostFunc, cudaStreamAddCallback) that waits for
    the device would wait for itself: cudaErrorNotPermitted instead of a hang
    (CUDA forbids CUDA calls there)."""
    if getattr(_host_fn, "on", False):
        E.fail(E.cudaErrorNotPermitted, "a host function must not wait for the device "
               "(it would wait for itself)", call)


def flush_printf() -> None:
    """Write device printf output of finished launches to sys.stdout."""
    text = _core.take_printf()
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


def _after_wait(call: str) -> None:
    """What every synchronising call does after waiting: printf, then the sticky error."""
    flush_printf()
    E.check_sticky(call)


# ---- errors ----

def cudaGetLastError() -> cudaError_t:
    """cudaGetLastError: the last error of this host thread, which it resets.

    A fault in a kernel is returned once here; it stays sticky for every other
    call until cudaDeviceReset."""
    global _sticky_reported
    code = E.take_last()
    if code == cudaSuccess and not _sticky_reported:
        sticky, _ = E.sticky()
        if sticky:
            _sticky_reported = True
            return sticky
    if code != cudaSuccess and E.sticky()[0] == code:
        _sticky_reported = True
    return code


def cudaPeekAtLastError() -> cudaError_t:
    """cudaPeekAtLastError: the last error of this host thread, left in place."""
    code = E.peek_last()
    if code == cudaSuccess and not _sticky_reported:
        return E.sticky()[0]
    return code


# ---- devices ----

def cudaGetDeviceCount() -> int:
    """cudaGetDeviceCount: PYEMU_DEVICE_COUNT virtual devices (default 1;
    pyemu/cuda/devices.py)."""
    return _dev.COUNT


def _check_device(device, call):
    return _dev.check(device, call)


def cudaGetDevice() -> int:
    """cudaGetDevice: the current device of this host thread (0 until cudaSetDevice)."""
    return _dev.current()


def cudaSetDevice(device) -> cudaError_t:
    """cudaSetDevice(device): the current device of this host thread; a device
    that does not exist gives cudaErrorInvalidDevice."""
    _dev.set_current(_check_device(device, "cudaSetDevice"))
    return cudaSuccess


def _mem_total():
    _core.ensure_started()
    free = ffi.new("unsigned long long *")
    total = ffi.new("unsigned long long *")
    lib.pyemu_mem_info(free, total)
    return free[0], total[0]


def cudaMemGetInfo() -> tuple:
    """cudaMemGetInfo: (free, total) bytes of the current device's memory
    (with several devices, each has its share of PYEMU_DEVICE_MEMORY)."""
    E.check_sticky("cudaMemGetInfo")
    free, total = _mem_total()
    if _dev.MULTI:
        lim = _dev.limit(total)
        return max(0, min(free, lim - _dev.used(_dev.current()))), lim
    return free, total


_PROPS = {}


def cudaGetDeviceProperties(device=0) -> cudaDeviceProp:
    """cudaGetDeviceProperties: the emulated device, compute capability 9.0,
    one multiprocessor per worker thread; with several devices (they share
    the cores) each reports its share of the workers and of the memory."""
    d = _check_device(device, "cudaGetDeviceProperties")
    if d not in _PROPS:
        _, total = _mem_total()     # not cudaMemGetInfo: no sticky error here
        _PROPS[d] = cudaDeviceProp(
            name=f"pyemu SIMT emulator on {_cpu_name()}",
            uuid=f"pyemu-dev-{d:06d}".encode(),
            pciBusID=d,
            totalGlobalMem=_dev.limit(total),
            sharedMemPerBlock=lib.PYEMU_MAX_SHARED_PER_BLOCK,
            maxThreadsPerBlock=lib.PYEMU_MAX_THREADS_PER_BLOCK,
            maxThreadsDim=(lib.PYEMU_MAX_BLOCK_X, lib.PYEMU_MAX_BLOCK_Y, lib.PYEMU_MAX_BLOCK_Z),
            maxGridSize=(lib.PYEMU_MAX_GRID_X, lib.PYEMU_MAX_GRID_Y, lib.PYEMU_MAX_GRID_Z),
            clockRate=DEVICE_CLOCK_KHZ,    # clock()/clock64() tick at 1 GHz (cuda_math.h)
            multiProcessorCount=max(1, lib.pyemu_num_workers() // _dev.COUNT),
            l2CacheSize=_l2_bytes(),
            sharedMemPerBlockOptin=lib.PYEMU_MAX_SHARED_OPTIN,
        )
    return _PROPS[d]


def cudaDeviceGetAttribute(attr, device=0) -> int:
    """cudaDeviceGetAttribute(attr, device): one property of the device."""
    _check_device(device, "cudaDeviceGetAttribute")
    try:
        a = cudaDeviceAttr(int(attr))
    except (ValueError, TypeError):
        E.fail(E.cudaErrorInvalidValue, f"unknown device attribute {attr!r}", "cudaDeviceGetAttribute")
    p = cudaGetDeviceProperties(device)
    A = cudaDeviceAttr
    table = {
        A.cudaDevAttrMaxThreadsPerBlock: p.maxThreadsPerBlock,
        A.cudaDevAttrMaxBlockDimX: p.maxThreadsDim[0],
        A.cudaDevAttrMaxBlockDimY: p.maxThreadsDim[1],
        A.cudaDevAttrMaxBlockDimZ: p.maxThreadsDim[2],
        A.cudaDevAttrMaxGridDimX: p.maxGridSize[0],
        A.cudaDevAttrMaxGridDimY: p.maxGridSize[1],
        A.cudaDevAttrMaxGridDimZ: p.maxGridSize[2],
        A.cudaDevAttrMaxSharedMemoryPerBlock: p.sharedMemPerBlock,
        A.cudaDevAttrTotalConstantMemory: p.totalConstMem,
        A.cudaDevAttrWarpSize: p.warpSize,
        A.cudaDevAttrMaxPitch: p.memPitch,
        A.cudaDevAttrMaxRegistersPerBlock: p.regsPerBlock,
        A.cudaDevAttrClockRate: p.clockRate,
        A.cudaDevAttrTextureAlignment: p.textureAlignment,
        A.cudaDevAttrGpuOverlap: p.deviceOverlap,
        A.cudaDevAttrMultiProcessorCount: p.multiProcessorCount,
        A.cudaDevAttrKernelExecTimeout: p.kernelExecTimeoutEnabled,
        A.cudaDevAttrIntegrated: p.integrated,
        A.cudaDevAttrCanMapHostMemory: p.canMapHostMemory,
        A.cudaDevAttrComputeMode: p.computeMode,
        A.cudaDevAttrConcurrentKernels: p.concurrentKernels,
        A.cudaDevAttrEccEnabled: p.ECCEnabled,
        A.cudaDevAttrPciBusId: p.pciBusID,
        A.cudaDevAttrPciDeviceId: p.pciDeviceID,
        A.cudaDevAttrMemoryClockRate: p.memoryClockRate,
        A.cudaDevAttrGlobalMemoryBusWidth: p.memoryBusWidth,
        A.cudaDevAttrL2CacheSize: p.l2CacheSize,
        A.cudaDevAttrMaxThreadsPerMultiProcessor: p.maxThreadsPerMultiProcessor,
        A.cudaDevAttrAsyncEngineCount: p.asyncEngineCount,
        A.cudaDevAttrUnifiedAddressing: p.unifiedAddressing,
        A.cudaDevAttrComputeCapabilityMajor: p.major,
        A.cudaDevAttrComputeCapabilityMinor: p.minor,
        A.cudaDevAttrMaxSharedMemoryPerMultiprocessor: p.sharedMemPerMultiprocessor,
        A.cudaDevAttrMaxRegistersPerMultiprocessor: p.regsPerMultiprocessor,
        A.cudaDevAttrManagedMemory: p.managedMemory,
        A.cudaDevAttrIsMultiGpuBoard: p.isMultiGpuBoard,
        A.cudaDevAttrConcurrentManagedAccess: p.concurrentManagedAccess,
        A.cudaDevAttrMaxSharedMemoryPerBlockOptin: p.sharedMemPerBlockOptin,
        A.cudaDevAttrCooperativeLaunch: p.cooperativeLaunch,
        A.cudaDevAttrCooperativeMultiDeviceLaunch: p.cooperativeMultiDeviceLaunch,
        A.cudaDevAttrMaxBlocksPerMultiprocessor: p.maxBlocksPerMultiProcessor,
    }
    return int(table[a])


def cudaRuntimeGetVersion() -> int:
    """cudaRuntimeGetVersion: the CUDA version pyemu follows (13.0 = 13000), the
    one its error table and launch checks were taken from."""
    return 13000


def cudaDriverGetVersion() -> int:
    """cudaDriverGetVersion: as cudaRuntimeGetVersion."""
    return 13000


# ---- synchronisation ----

def cudaDeviceSynchronize() -> cudaError_t:
    """cudaDeviceSynchronize: wait for the current device's work (with several
    devices, another device's is not waited for); a kernel fault is reported here."""
    no_wait_in_host_function("cudaDeviceSynchronize")
    if _default_queue is None:
        _core.ensure_started()
    if _dev.MULTI:
        _sync.wait_device_one(_dev.current())
    else:
        _sync.wait_device()
    _after_wait("cudaDeviceSynchronize")
    return cudaSuccess


def cudaThreadSynchronize() -> cudaError_t:
    """cudaThreadSynchronize: the deprecated name of cudaDeviceSynchronize."""
    return cudaDeviceSynchronize()


def cudaDeviceReset() -> cudaError_t:
    """cudaDeviceReset: wait for all work, free all device memory, clear the
    sticky error.  Pointers from before are invalid afterwards (as in CUDA);
    the calling thread's last error is left as it was (as CUDA 13 does).
    With several devices (PYEMU_DEVICE_COUNT), the current device's only:
    another device's memory, streams, events and work are left alone
    (pyemu/cuda/devices.py says what is reset)."""
    global _sticky_reported
    _core.ensure_started()
    no_wait_in_host_function("cudaDeviceReset")
    if _dev.MULTI:
        _dev.reset_current()
        _sticky_reported = False
        return cudaSuccess
    _views.reset_device()      # NumPy views of unified memory may outlive the reset
    _sticky_reported = False   # the thread's last error stays, as on an H100
    for hook in _reset_hooks:  # page-locked memory is gone too (pyemu/cuda/host_memory.py)
        hook()
    return cudaSuccess


# called after each cudaDeviceReset; streams and events check views.generation()
_reset_hooks = [_dev.forget_all]


def cudaThreadExit() -> cudaError_t:
    """cudaThreadExit: the deprecated name of cudaDeviceReset."""
    return cudaDeviceReset()


# ---- memory ----

def _size(value, call, what="size"):
    """value as a size_t: an int, a NumPy integer, or a float (C converts it,
    truncating); a string, inf or NaN is cudaErrorInvalidValue."""
    if isinstance(value, (str, bytes, bytearray)):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {type(value).__name__}", call)
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {value!r}", call)
    if n < 0:
        E.fail(E.cudaErrorInvalidValue, f"{what} {n} is negative", call)
    return n


def cudaMalloc(size) -> DevicePointer:
    """cudaMalloc(size): a device pointer to `size` bytes (256-byte aligned).

    Differs from CUDA: the memory starts zeroed, and unmapped gaps around it
    make out-of-bounds accesses fault (cudaErrorIllegalAddress)."""
    n = _size(size, "cudaMalloc")
    E.check_sticky("cudaMalloc")
    if n >= 1 << 64:    # no size_t holds it: no device has it (as 1 << 50 on an H100)
        E.fail(E.cudaErrorMemoryAllocation, f"{n} bytes is more than any device has",
               "cudaMalloc")
    _core.ensure_started()
    if _dev.MULTI:      # the current device's share (pyemu/cuda/devices.py)
        d = _dev.reserve(n, _mem_total()[1], "cudaMalloc")
    addr = ffi.new("unsigned long long *")
    try:
        _core.check(lib.pyemu_mem_alloc(n, addr))
    except CoreError as exc:
        if _dev.MULTI:
            _dev.unreserve(d, n)
        E.raise_core(exc, "cudaMalloc")
    if _dev.MULTI:
        _dev.record(addr[0], d, n)
    return DevicePointer(addr[0])


def cudaMallocManaged(size, flags=cudaMemAttachGlobal, dtype=None):
    """cudaMallocManaged(size, flags=cudaMemAttachGlobal): unified memory.

    With `dtype` (a pyemu extension) the result is a NumPy array over the
    memory that is also a device pointer; without it, an object with the
    buffer protocol (np.frombuffer(m, np.int32)) that is a device pointer."""
    n = _size(size, "cudaMallocManaged")
    if type(flags) is bool or not isinstance(flags, (int, np.integer)) or \
            int(flags) not in (cudaMemAttachGlobal, cudaMemAttachHost):
        E.fail(E.cudaErrorInvalidValue, f"flags must be cudaMemAttachGlobal or cudaMemAttachHost, "
               f"not {flags!r}", "cudaMallocManaged")
    if dtype is not None:
        try:
            dt = np.dtype(dtype)
        except (TypeError, ValueError) as exc:
            E.fail(E.cudaErrorInvalidValue, f"dtype {dtype!r} is not a NumPy dtype ({exc})",
                   "cudaMallocManaged")
        if n % dt.itemsize:
            E.fail(E.cudaErrorInvalidValue, f"{n} bytes is not a whole number of {dt} items",
                   "cudaMallocManaged")
    if n == 0:   # success and a null pointer, as CUDA 13 on an H200
        E.check_sticky("cudaMallocManaged")
        return DevicePointer(0) if dtype is None else np.empty(0, dt).view(ManagedArray)
    ptr = cudaMalloc(n)
    if _dev.MULTI:      # every device's kernels may use it (counted on the current one)
        _dev.accessible_to_all(int(ptr))
    if dtype is None:
        host = managed_bytes(int(ptr), n)
        owner = host
    else:
        buf = ffi.buffer(ffi.cast("char *", int(ptr)), n)
        owner = np.frombuffer(buf, dtype=dt)
        host = owner.view(ManagedArray)
        host._pyemu_devptr = int(ptr)
    # cudaFree keeps the pages readable while host views live (runtime/views.py)
    _views.add_view(int(ptr), owner)
    return host


def cudaFree(devPtr) -> cudaError_t:
    """cudaFree(devPtr): waits for the device, then frees; cudaFree(0) does nothing.

    A pointer that is not the start of an allocation gives cudaErrorInvalidValue."""
    addr = device_address(devPtr)
    if addr is None:
        E.fail(E.cudaErrorInvalidValue, f"{type(devPtr).__name__} is not a device pointer", "cudaFree")
    E.check_sticky("cudaFree")
    if addr == 0:
        return cudaSuccess
    if not 0 < addr < 1 << 64:   # no pointer has that value (a host pointer: invalid value too)
        E.fail(E.cudaErrorInvalidValue, f"{addr} is not a device pointer", "cudaFree")
    no_wait_in_host_function("cudaFree")
    _core.ensure_started()
    _sync.wait_device()
    _after_wait("cudaFree")
    try:
        # unified memory: NumPy views may outlive cudaFree (runtime/views.py)
        _core.check(_views.free(addr, b"cudaFree"))
    except CoreError as exc:
        E.raise_core(exc, "cudaFree")
    _dev.release(addr)
    return cudaSuccess


def _device_range(ptr, count, call, what):
    addr = device_address(ptr)
    if addr is None:
        return None
    if not is_device_address(addr):
        E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is not device memory", call)
    return _allocation_range(addr, count, call, what)


def _allocation_range(addr, count, call, what):
    """addr (in the device region) as a void *, once [addr, addr + count) is
    inside one live allocation; cudaErrorInvalidValue else."""
    alloc = allocation_of(addr)
    if alloc is None:
        if lib.pyemu_mem_queued(addr):  # the copy would run after the free: memory no longer there
            E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is in an allocation that a "
                   "cudaFreeAsync still queued frees", call)
        E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is not inside a device allocation", call)
    start, size = alloc
    if addr + count > start + size:
        E.fail(E.cudaErrorInvalidValue,
               f"{count} bytes at {what} 0x{addr:x} run {addr + count - start - size} bytes past "
               f"the end of its {size}-byte allocation", call)
    return ffi.cast("void *", addr)


def _host_range(obj, count, writable, call, what):
    if type(obj) is np.ndarray:             # the common case, without a memoryview
        flags = obj.flags
        if flags.c_contiguous and (flags.writeable or not writable) and count <= obj.nbytes:
            return ffi.from_buffer(obj, require_writable=writable)
    try:
        ptr, nbytes = host_buffer(obj, writable)
    except (TypeError, ValueError) as exc:
        E.fail(E.cudaErrorInvalidValue, f"{what}: {exc}", call)
    if count > nbytes:
        E.fail(E.cudaErrorInvalidValue,
               f"count is {count} bytes but the host {what} holds only {nbytes}", call)
    return ptr


def _is_device(obj) -> bool:
    addr = device_address(obj)
    return addr is not None and (addr == 0 or is_device_address(addr))


def _resolve(obj, count, kind_side, writable, call, what):
    """The cffi pointer of one side of a copy (NULL for a count-0 copy from or
    to NULL), or cudaErrorInvalidValue."""
    return _resolve_at(obj, device_address(obj), count, kind_side, writable, call, what)


def _resolve_at(obj, addr, count, kind_side, writable, call, what):
    """_resolve with obj's device_address (None: not a device pointer) known."""
    if addr is None:
        if kind_side == "device":
            E.fail(E.cudaErrorInvalidValue, f"{what} is host memory ({type(obj).__name__}) but the "
                   "copy kind says device", call)
        return _host_range(obj, count, writable, call, what)
    if addr == 0 and count == 0:
        return ffi.NULL          # copying nothing from or to NULL is a no-op, as in CUDA
    if addr and is_device_address(addr):
        # on the host side too: unified addressing, CUDA copies from/to device memory given as "host"
        return _allocation_range(addr, count, call, what)
    if kind_side == "device":
        if addr == 0:
            E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is not device memory", call)
        E.fail(E.cudaErrorInvalidValue, f"{what} is host memory ({type(obj).__name__}) but the "
               "copy kind says device", call)
    E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is neither device memory "
           "nor a host buffer", call)


_SIDES = {int(cudaMemcpyHostToHost): ("host", "host"), int(cudaMemcpyHostToDevice): ("device", "host"),
          int(cudaMemcpyDeviceToHost): ("host", "device"),
          int(cudaMemcpyDeviceToDevice): ("device", "device")}


def memcpy_sides(dst, src, kind, call):
    try:
        k = cudaMemcpyKind(int(kind))
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidMemcpyDirection, f"kind {kind!r} is not a cudaMemcpyKind", call)
    if k == cudaMemcpyDefault:
        return ("device" if _is_device(dst) else "host"), ("device" if _is_device(src) else "host")
    return _SIDES[int(k)]


def enqueue_copy(queue, dst, src, count, kind, call, event=ffi.NULL):
    """Validate a copy and put it on `queue`; returns the keep-alive host pointers."""
    n = _size(count, call, "count")
    dside, sside = memcpy_sides(dst, src, kind, call)
    E.check_sticky(call)
    d = _resolve(dst, n, dside, True, call, "dst")
    s = _resolve(src, n, sside, False, call, "src")
    if n == 0:
        return (d, s)
    try:
        _core.check(lib.pyemu_enqueue_copy(queue, d, s, n, ffi.NULL, 0, event))
    except CoreError as exc:
        E.raise_core(exc, call)
    return (d, s)


def cudaMemcpy(dst, src, count, kind) -> cudaError_t:
    """cudaMemcpy(dst, src, count, kind): copy `count` bytes; waits for the device.

    The host side is any buffer-protocol object or NumPy array and is never
    read or written past its end (cudaErrorInvalidValue instead)."""
    no_wait_in_host_function("cudaMemcpy")
    q = default_queue()
    ev = ffi.new("pyemu_cmd **")
    keep = enqueue_copy(q, dst, src, count, kind, "cudaMemcpy", ev)
    if ev[0] != ffi.NULL:
        _sync.wait_command(ev[0])
        lib.pyemu_cmd_release(ev[0])
    del keep
    _after_wait("cudaMemcpy")
    return cudaSuccess


def cudaMemset(devPtr, value, count) -> cudaError_t:
    """cudaMemset(devPtr, value, count): set `count` bytes to the byte `value`.

    Asynchronous with respect to the host, as in CUDA (it runs on stream 0)."""
    n = _size(count, "cudaMemset", "count")
    try:
        v = int(value) & 0xFF
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidValue, f"value must be an int, not {type(value).__name__}", "cudaMemset")
    E.check_sticky("cudaMemset")
    if n == 0 and device_address(devPtr) == 0:
        return cudaSuccess       # setting nothing at NULL is a no-op, as in CUDA
    if not _is_device(devPtr):
        E.fail(E.cudaErrorInvalidValue, f"{type(devPtr).__name__} is not a device pointer", "cudaMemset")
    d = _device_range(devPtr, n, "cudaMemset", "devPtr")
    if n == 0:
        return cudaSuccess
    pat = ffi.new("unsigned char *", v)
    try:
        _core.check(lib.pyemu_enqueue_fill(default_queue(), d, pat, 1, n, ffi.NULL, 0, ffi.NULL))
    except CoreError as exc:
        E.raise_core(exc, "cudaMemset")
    return cudaSuccess


__all__ = [
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetDeviceCount", "cudaGetDevice",
    "cudaSetDevice", "cudaGetDeviceProperties", "cudaDeviceGetAttribute", "cudaMemGetInfo",
    "cudaRuntimeGetVersion", "cudaDriverGetVersion", "cudaDeviceSynchronize",
    "cudaThreadSynchronize", "cudaDeviceReset", "cudaThreadExit", "cudaMalloc",
    "cudaMallocManaged", "cudaFree", "cudaMemcpy", "cudaMemset", "cudaMemAttachGlobal",
    "cudaMemAttachHost", "cudaMemAttachSingle", "DevicePointer", "ManagedArray",
]
