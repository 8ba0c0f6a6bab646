"""Stream-ordered allocation: cudaMallocAsync, cudaFreeAsync.

cudaMallocAsync gives the memory at once (it may be used by the stream's
later work, and by any work after a synchronisation); cudaFreeAsync puts a
free command on the stream (pyemu_enqueue_free), which frees the memory when
the stream reaches it: work queued on the stream before the free still uses
it safely, it is never reused before that point, and a synchronisation
after it finds it freed.  Differs
from CUDA: there are no memory pools (cudaMemPool_t); every allocation is
the device's own, with cudaMalloc's guard gaps.
"""
from __future__ import annotations

import threading

from ..runtime import core as _core
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import devices as _devices
from . import runtime as _rt
from ._errors import cudaSuccess
from ._memory import DevicePointer, allocation_of, device_address, is_device_address
from .stream import queue_of

_lock = threading.Lock()
_pending = {}       # address -> its free command (a reference we hold) until it has run


def _prune() -> None:
    """Forget the free commands that have run (call with _lock held)."""
    for addr in [a for a, cmd in _pending.items() if lib.pyemu_cmd_status(cmd) <= 0]:
        lib.pyemu_cmd_release(_pending.pop(addr))


def being_freed(addr: int) -> bool:
    """Whether a cudaFreeAsync of the allocation at addr is queued and has not
    run yet (the allocation is still there, but belongs to nobody)."""
    if not _pending:        # the common case, on every copy's path: no lock
        return False
    with _lock:
        _prune()
        return addr in _pending


def cudaMallocAsync(size, hStream=0) -> DevicePointer:
    """cudaMallocAsync(size, hStream): `size` bytes of device memory, usable in
    stream order from now on (as cudaMalloc's: zeroed, guarded)."""
    call = "cudaMallocAsync"
    queue_of(hStream, call)
    return _rt.cudaMalloc(size) if _rt._size(size, call) else DevicePointer(0)


def cudaFreeAsync(devPtr, hStream=0) -> cudaError_t:  # noqa: F821
    """cudaFreeAsync(devPtr, hStream): free once the stream reaches this
    point; returns at once.  A pointer that is not the start of an allocation
    gives cudaErrorInvalidValue; 0 does nothing."""
    call = "cudaFreeAsync"
    q = queue_of(hStream, call)
    addr = device_address(devPtr)
    if addr is None:
        E.fail(E.cudaErrorInvalidValue, f"{type(devPtr).__name__} is not a device pointer", call)
    E.check_sticky(call)
    if addr == 0:
        return cudaSuccess
    with _lock:     # one check-and-enqueue at a time: two frees of one pointer cannot both pass
        _prune()
        if addr in _pending:
            # a second free would run after the first, and could free whatever
            # allocation has taken the address by then
            E.fail(E.cudaErrorInvalidValue, f"0x{addr:x} is already freed by an earlier "
                   "cudaFreeAsync (still queued)", call)
        alloc = allocation_of(addr) if 0 < addr < 1 << 64 and is_device_address(addr) else None
        if alloc is None or alloc[0] != addr:
            E.fail(E.cudaErrorInvalidValue, f"0x{addr:x} is not the start of a device allocation",
                   call)
        with _views._lock:          # a host view (unified memory) keeps the pages mapped
            keep = addr in _views._viewed
            if keep:
                _views._kept.add(addr)
        ev = ffi.new("pyemu_cmd **")
        try:
            _core.check(lib.pyemu_enqueue_free(q, addr, 1 if keep else 0, ffi.NULL, 0, ev))
        except CoreError as exc:
            E.raise_core(exc, call)
        _pending[addr] = ev[0]
    _devices.release(addr)      # its device's share counts it free (pyemu/cuda/devices.py)
    return cudaSuccess


__all__ = ["cudaMallocAsync", "cudaFreeAsync"]   # being_freed: for cudaFree
