"""Page-locked host memory: cudaMallocHost, cudaHostAlloc, cudaFreeHost,
cudaHostRegister, cudaHostUnregister, cudaHostGetDevicePointer,
cudaPointerGetAttributes.

On a CPU every byte is "mapped": cudaMallocHost/cudaHostAlloc memory is
carved from the device's address range (csrc/memory.c), so, as with CUDA's
unified addressing, its device pointer is its host address, kernels may
read and write it (zero copy), and an access past its end faults and is
reported like one past a cudaMalloc allocation.  Differs from CUDA: it
counts against the device memory (cudaMemGetInfo).  cudaHostRegister marks
an existing buffer page-locked (asynchronous copies then return at once) and
maps it for kernels (csrc/hostreg.c): as on an H100, its device pointer is
its own address; the launch check admits it and a fault near it names it.
An access past its end is not caught by a guard page (the buffer is the
caller's memory): it reads or writes whatever follows it, as on a GPU.

What "page-locked" changes is the copies (pyemu/cuda/async_copy.py):
cudaMemcpyAsync from or to page-locked memory returns at once.
"""
from __future__ import annotations

import bisect
import operator
import threading
from dataclasses import dataclass

import numpy as np

from ..runtime import core as _core
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from ..runtime.host import host_buffer
from ..runtime import trace as _trace
from . import _errors as E
from . import runtime as _rt
from ._errors import cudaSuccess
from ._memory import DevicePointer, ManagedArray, allocation_of, device_address, is_device_address

cudaHostAllocDefault = 0x00
cudaHostAllocPortable = 0x01
cudaHostAllocMapped = 0x02
cudaHostAllocWriteCombined = 0x04
cudaHostRegisterDefault = 0x00
cudaHostRegisterPortable = 0x01
cudaHostRegisterMapped = 0x02
cudaHostRegisterIoMemory = 0x04
cudaHostRegisterReadOnly = 0x08

cudaMemoryTypeUnregistered = 0
cudaMemoryTypeHost = 1
cudaMemoryTypeDevice = 2
cudaMemoryTypeManaged = 3


@dataclass
class cudaPointerAttributes:
    """What cudaPointerGetAttributes reports (driver_types.h)."""
    type: int = cudaMemoryTypeUnregistered
    device: int = 0
    devicePointer: int = 0
    hostPointer: int = 0


_lock = threading.Lock()
_starts = []        # sorted start addresses of page-locked ranges
_ranges = {}        # start -> (size, kind "alloc" | "registered", keep-alive)


def _address(obj, call, what="ptr"):
    addr = device_address(obj)
    if addr is not None:
        return addr
    try:
        return np.asarray(memoryview(obj)).__array_interface__["data"][0] if not \
            isinstance(obj, np.ndarray) else obj.__array_interface__["data"][0]
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"{what}: {type(obj).__name__} is neither a pointer nor "
               "a host buffer", call)


def _find(addr):
    """(start, size, kind) of the page-locked range holding addr, or None."""
    with _lock:
        i = bisect.bisect_right(_starts, addr) - 1
        if i >= 0:
            start = _starts[i]
            size, kind, _ = _ranges[start]
            if addr < start + max(size, 1):
                return start, size, kind
    return None


def is_page_locked(addr: int, nbytes: int) -> bool:
    """Whether [addr, addr + nbytes) lies in one page-locked range."""
    if not _starts:         # none at all: no lock to take (pageable copies' common case)
        return False
    r = _find(addr)
    return r is not None and addr + nbytes <= r[0] + r[1]


def _add(start, size, kind, keep):
    with _lock:
        bisect.insort(_starts, start)
        _ranges[start] = (size, kind, keep)


def _remove(start):
    with _lock:
        _starts.remove(start)
        return _ranges.pop(start)


def _forget_allocations():
    """After cudaDeviceReset: cudaMallocHost memory was freed with the device's."""
    with _lock:
        for start in [a for a in _starts if _ranges[a][1] == "alloc"]:
            _starts.remove(start)
            del _ranges[start]


_rt._reset_hooks.append(_forget_allocations)


def cudaHostAlloc(size, flags=cudaHostAllocDefault, dtype=np.uint8):
    """cudaHostAlloc(size, flags, dtype=np.uint8): page-locked host memory as a
    NumPy array of `dtype` (a pyemu extension: C returns a pointer).  flags:
    cudaHostAllocDefault, Portable, Mapped, WriteCombined (or'ed); all of it
    is mapped (cudaHostGetDevicePointer).  Starts zeroed."""
    call = "cudaHostAlloc"
    try:
        n = operator.index(size)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"size must be an int, not {type(size).__name__}", call)
    if n < 0:
        E.fail(E.cudaErrorInvalidValue, f"size {n} is negative", call)
    if type(flags) is bool or not isinstance(flags, int) or flags & ~0x7:
        E.fail(E.cudaErrorInvalidValue, f"unknown cudaHostAlloc flags {flags!r}", call)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"{dtype!r} is not a NumPy dtype", call)
    if dt.itemsize == 0 or n % dt.itemsize:
        E.fail(E.cudaErrorInvalidValue, f"{n} bytes is not a whole number of {dt} items", call)
    E.check_sticky(call)
    if n == 0:
        return np.empty(0, dt)
    if n >= 1 << 64:
        E.fail(E.cudaErrorMemoryAllocation, f"{n} bytes is more than the host has", call)
    _core.ensure_started()
    out = ffi.new("unsigned long long *")
    try:
        _core.check(lib.pyemu_mem_alloc(n, out))
    except CoreError as exc:
        E.raise_core(exc, call)
    addr = out[0]
    lib.pyemu_host_populate(addr, n)     # page-locked: resident from the start
    arr = np.frombuffer(ffi.buffer(ffi.cast("char *", addr), n), dtype=dt)
    _views.add_view(addr, arr)       # a reset or cudaFreeHost keeps the pages while it lives
    _add(addr, n, "alloc", int(flags))
    return arr


def cudaMallocHost(size, dtype=np.uint8):
    """cudaMallocHost(size, dtype=np.uint8): page-locked host memory as a NumPy
    array (cudaHostAlloc with cudaHostAllocDefault)."""
    return cudaHostAlloc(size, cudaHostAllocDefault, dtype)


def cudaFreeHost(ptr) -> cudaError_t:  # noqa: F821
    """cudaFreeHost(ptr): free memory of cudaMallocHost/cudaHostAlloc (the
    array, or its address); waits for the device first, as CUDA does.  Any
    other pointer (device memory, a plain array, a view into the middle)
    gives cudaErrorInvalidValue.  The array stays readable (zeros), never a
    crash, but is no longer page-locked."""
    call = "cudaFreeHost"
    addr = _address(ptr, call)
    if addr == 0:
        return cudaSuccess
    r = _find(addr)
    if r is None or r[0] != addr or r[2] != "alloc":
        E.fail(E.cudaErrorInvalidValue, f"0x{addr:x} was not returned by cudaMallocHost or "
               "cudaHostAlloc", call)
    E.check_sticky(call)
    _rt.no_wait_in_host_function(call)
    _sync.wait_device()
    _trace.drain()          # the timeline tells its copies' direction while it is known
    _remove(addr)
    try:
        _core.check(_views.free(addr, b"cudaFreeHost"))
    except CoreError as exc:
        E.raise_core(exc, call)
    return cudaSuccess


def cudaHostRegister(ptr, size, flags=cudaHostRegisterDefault) -> cudaError_t:  # noqa: F821
    """cudaHostRegister(ptr, size, flags): page-lock `size` bytes of an
    existing host buffer (a NumPy array...) from its start.  Asynchronous
    copies from or to it then return at once.  A range that overlaps one
    registered already gives cudaErrorHostMemoryAlreadyRegistered; size 0,
    more than the buffer holds, device memory or unknown flags
    cudaErrorInvalidValue.  The buffer is kept alive until unregistered."""
    call = "cudaHostRegister"
    try:
        n = operator.index(size)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"size must be an int, not {type(size).__name__}", call)
    if type(flags) is bool or not isinstance(flags, int) or flags & ~0xF:
        E.fail(E.cudaErrorInvalidValue, f"unknown cudaHostRegister flags {flags!r}", call)
    if device_address(ptr) is not None:
        E.fail(E.cudaErrorInvalidValue, "ptr is a device pointer, not host memory", call)
    try:
        p, nbytes = host_buffer(ptr, False)
    except (TypeError, ValueError) as exc:
        E.fail(E.cudaErrorInvalidValue, f"ptr: {exc}", call)
    addr = int(ffi.cast("uintptr_t", p))
    if n <= 0 or n > nbytes:
        E.fail(E.cudaErrorInvalidValue, f"size {n} is not between 1 and the buffer's {nbytes} "
               "bytes", call)
    if is_device_address(addr):
        E.fail(E.cudaErrorHostMemoryAlreadyRegistered, "the memory is page-locked already "
               "(cudaMallocHost) or device memory", call)
    with _lock:
        i = bisect.bisect_right(_starts, addr + n - 1) - 1
        if i >= 0 and _starts[i] + _ranges[_starts[i]][0] > addr:
            E.fail(E.cudaErrorHostMemoryAlreadyRegistered,
                   f"[0x{addr:x}, +{n}) overlaps a registered range", call)
    E.check_sticky(call)
    try:
        _core.check(lib.pyemu_hostreg_add(addr, n))
    except CoreError as exc:
        E.raise_core(exc, call)
    lib.pyemu_host_populate(addr, n)     # page-locked: resident (a read-only buffer stays as is)
    _add(addr, n, "registered", (int(flags), memoryview(ptr)))
    return cudaSuccess


def cudaHostUnregister(ptr) -> cudaError_t:  # noqa: F821
    """cudaHostUnregister(ptr): undo cudaHostRegister (ptr is the buffer or
    address registered); a pointer into the middle of a registered range
    gives cudaErrorInvalidValue, any other cudaErrorHostMemoryNotRegistered
    (as CUDA 13 on an H100, tests/data/ground_truth/probe_streams_h100.txt)."""
    call = "cudaHostUnregister"
    addr = _address(ptr, call)
    r = _find(addr)
    if r is not None and r[2] == "registered" and r[0] != addr:
        # inside a registered range but not its start: CUDA 13 on an H100 says invalid value
        E.fail(E.cudaErrorInvalidValue, f"0x{addr:x} is inside a registered range that starts "
               f"at 0x{r[0]:x}", call)
    if r is None or r[2] != "registered":
        E.fail(E.cudaErrorHostMemoryNotRegistered, f"0x{addr:x} is not the start of a range "
               "registered with cudaHostRegister", call)
    E.check_sticky(call)
    _rt.no_wait_in_host_function(call)
    _sync.wait_device()         # copies and kernels in flight may still use it
    _remove(addr)
    lib.pyemu_hostreg_remove(addr)
    return cudaSuccess


def cudaHostGetDevicePointer(pHost, flags=0) -> DevicePointer:
    """cudaHostGetDevicePointer(pHost, flags=0): the device pointer of mapped
    page-locked memory (zero copy): its own address, as with unified
    addressing (an H100 answers the same for cudaHostRegister'ed memory);
    kernels read and write the host array through it.  Memory not
    page-locked gives cudaErrorInvalidValue."""
    call = "cudaHostGetDevicePointer"
    if type(flags) is bool or not isinstance(flags, int) or flags != 0:
        E.fail(E.cudaErrorInvalidValue, f"flags must be 0, not {flags!r}", call)
    addr = _address(pHost, call, "pHost")
    r = _find(addr)
    if r is None:
        E.fail(E.cudaErrorInvalidValue, f"0x{addr:x} is not page-locked host memory", call)
    E.check_sticky(call)
    return DevicePointer(addr)


def cudaPointerGetAttributes(ptr) -> cudaPointerAttributes:
    """cudaPointerGetAttributes(ptr): type (cudaMemoryTypeDevice, Managed,
    Host for page-locked memory, Unregistered for other host memory),
    device, devicePointer and hostPointer (0 where there is none)."""
    call = "cudaPointerGetAttributes"
    addr = _address(ptr, call)
    r = _find(addr)
    if r is not None:
        return cudaPointerAttributes(cudaMemoryTypeHost, 0, addr, addr)
    if is_device_address(addr) and allocation_of(addr) is not None:
        start = allocation_of(addr)[0]
        managed = isinstance(ptr, ManagedArray) or hasattr(ptr, "_pyemu_devptr") or \
            start in _views._viewed
        if managed:
            return cudaPointerAttributes(cudaMemoryTypeManaged, 0, addr, addr)
        return cudaPointerAttributes(cudaMemoryTypeDevice, 0, addr, 0)
    return cudaPointerAttributes(cudaMemoryTypeUnregistered, -2, 0, addr)


__all__ = [
    "cudaHostAllocDefault", "cudaHostAllocPortable", "cudaHostAllocMapped",
    "cudaHostAllocWriteCombined", "cudaHostRegisterDefault", "cudaHostRegisterPortable",
    "cudaHostRegisterMapped", "cudaHostRegisterIoMemory", "cudaHostRegisterReadOnly",
    "cudaMemoryTypeUnregistered", "cudaMemoryTypeHost", "cudaMemoryTypeDevice",
    "cudaMemoryTypeManaged", "cudaPointerAttributes", "cudaHostAlloc", "cudaMallocHost",
    "cudaFreeHost", "cudaHostRegister", "cudaHostUnregister", "cudaHostGetDevicePointer",
    "cudaPointerGetAttributes",
]
