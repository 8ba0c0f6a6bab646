"""Stream-ordered allocation: cudaMallocAsync, cudaFreeAsync.

cudaMallocAsync gives the memory at once (it may be used by the stream's
later work, and by any work after a synchronisation); cudaFreeAsync puts a
free command on the stream (pyemu_enqueue_free), which frees the memory when
the stream reaches it: work queued on the stream before the free still uses
it safely, it is never reused before that point, and a synchronisation
after it finds it freed.  From the cudaFreeAsync on, the core's allocation
table marks the allocation queued (csrc/memory.c: pyemu_mem_queue_free): a
second cudaFreeAsync of it, and a copy or fill given an address inside it
(pyemu_mem_find finds no allocation there), get cudaErrorInvalidValue, as
freed memory does, though the work queued before the free still uses it.
Differs from CUDA: there are no memory pools (cudaMemPool_t); every
allocation is the device's own, with cudaMalloc's guard gaps.
"""
from __future__ import annotations

from ..runtime import core as _core
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import devices as _devices
from . import runtime as _rt
from ._errors import cudaSuccess
from ._memory import DevicePointer, device_address, is_device_address
from .stream import queue_of


def cudaMallocAsync(size, hStream=0) -> DevicePointer:
    """cudaMallocAsync(size, hStream): `size` bytes of device memory, usable in
    stream order from now on (as cudaMalloc's: zeroed, guarded)."""
    call = "cudaMallocAsync"
    queue_of(hStream, call)
    return _rt.cudaMalloc(size) if _rt._size(size, call) else DevicePointer(0)


def cudaFreeAsync(devPtr, hStream=0) -> cudaError_t:  # noqa: F821
    """cudaFreeAsync(devPtr, hStream): free once the stream reaches this
    point; returns at once.  A pointer that is not the start of an allocation,
    or whose cudaFreeAsync is still queued, gives cudaErrorInvalidValue (the
    core's table says which); 0 does nothing."""
    call = "cudaFreeAsync"
    q = queue_of(hStream, call)
    addr = device_address(devPtr)
    if addr is None:
        E.fail(E.cudaErrorInvalidValue, f"{type(devPtr).__name__} is not a device pointer", call)
    E.check_sticky(call)
    if addr == 0:
        return cudaSuccess
    if not (0 < addr < 1 << 64 and is_device_address(addr)):
        E.fail(E.cudaErrorInvalidValue, f"0x{addr:x} is not the start of a device allocation",
               call)
    with _views._lock:          # a host view (unified memory) keeps the pages mapped
        keep = addr in _views._viewed
        fresh = keep and addr not in _views._kept
        if fresh:
            _views._kept.add(addr)
    try:
        # the core checks and marks the allocation (one at a time, under its
        # lock: two frees of one pointer cannot both pass)
        _core.check(lib.pyemu_enqueue_free(q, addr, 1 if keep else 0, ffi.NULL, 0, ffi.NULL))
    except CoreError as exc:
        if fresh:
            with _views._lock:
                _views._kept.discard(addr)
        E.raise_core(exc, call)
    _devices.release(addr)      # its device's share counts it free (pyemu/cuda/devices.py)
    return cudaSuccess


__all__ = ["cudaMallocAsync", "cudaFreeAsync"]
