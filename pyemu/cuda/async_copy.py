"""cudaMemcpyAsync and cudaMemsetAsync: copies and fills on a stream.

The host side follows CUDA's rules for page-locked and pageable memory
(CUDA Runtime API, "API synchronization behavior"):

- page-locked host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister),
  device to device, and fills: the call returns at once; the host must
  synchronise before touching the buffer;
- pageable host memory to the device: the data is staged (copied aside) at
  the call, which returns without waiting for the stream; the caller may
  overwrite its array at once;
- device to pageable host memory, and host to host: the call returns when
  the data has arrived, so a result is never read half-written.

Whatever the caller does with its references, every Python object an
in-flight copy touches stays alive until the copy completes
(pyemu/runtime/holds.py, shared with OpenCL).
"""
from __future__ import annotations

import threading

import numpy as np

from ..runtime import core as _core
from ..runtime import holds as _holds
from ..runtime import sync as _sync
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import runtime as _rt
from ._errors import cudaSuccess
from ._types import cudaMemcpyKind
from ._memory import device_address
from .host_memory import is_page_locked
from .stream import queue_of

_KIND_TYPES = (int, cudaMemcpyKind)


_slot = threading.local()


def _cmd_out():
    """This thread's pyemu_cmd * out-parameter (made once: a call of ~2 us
    cannot afford an allocation it does not need)."""
    ev = getattr(_slot, "ev", None)
    if ev is None:
        ev = _slot.ev = ffi.new("pyemu_cmd **")
    return ev


def _check_sticky(call):
    if lib.pyemu_sticky_error(ffi.NULL, 0):     # no fault: nothing to read (the common case)
        E.check_sticky(call)


def _enqueue(q, d, s, n, call):
    ev = _cmd_out()
    try:
        _core.check(lib.pyemu_enqueue_copy(q, d, s, n, ffi.NULL, 0, ev))
    except CoreError as exc:
        E.raise_core(exc, call)
    return ev[0]


def cudaMemcpyAsync(dst, src, count, kind, stream=0) -> cudaError_t:  # noqa: F821
    """cudaMemcpyAsync(dst, src, count, kind, stream=0): copy `count` bytes on
    `stream`.  When it returns depends on the host memory (see the module's
    text); the checks and error codes are cudaMemcpy's."""
    call = "cudaMemcpyAsync"
    q = queue_of(stream, call)
    n = count if type(count) is int and count >= 0 else _rt._size(count, call, "count")
    sides = _rt._SIDES.get(kind) if type(kind) in _KIND_TYPES else None
    dside, sside = sides or _rt.memcpy_sides(dst, src, kind, call)
    _check_sticky(call)
    da, sa = device_address(dst), device_address(src)
    d = _rt._resolve_at(dst, da, n, dside, True, call, "dst")
    s = _rt._resolve_at(src, sa, n, sside, False, call, "src")
    if n == 0:
        return cudaSuccess
    # a side is host memory when it is no device pointer (_resolve took its buffer)
    host_dst = da is None and dside == "host"
    host_src = sa is None and sside == "host"
    pinned_dst = host_dst and is_page_locked(int(ffi.cast("uintptr_t", d)), n)
    pinned_src = host_src and is_page_locked(int(ffi.cast("uintptr_t", s)), n)
    if (host_dst and not pinned_dst) or (host_dst and host_src):
        # the data must have arrived when the call returns
        _rt.no_wait_in_host_function(call)
        cmd = _enqueue(q, d, s, n, call)
        try:
            _sync.wait_command(cmd)
        finally:
            lib.pyemu_cmd_release(cmd)
        _rt._after_wait(call)
        return cudaSuccess
    keep = (dst, src, d, s)
    if host_src and not pinned_src:
        stage = np.empty(n, np.uint8)           # taken now: the caller may overwrite src
        ps = ffi.from_buffer(stage)
        ffi.memmove(ps, s, n)
        keep, s = (dst, d, stage, ps), ps
    _holds.hold_owned(_enqueue(q, d, s, n, call), keep)    # released once it completed
    return cudaSuccess


def cudaMemsetAsync(devPtr, value, count, stream=0) -> cudaError_t:  # noqa: F821
    """cudaMemsetAsync(devPtr, value, count, stream=0): set `count` bytes to the
    byte `value` on `stream`; returns at once."""
    call = "cudaMemsetAsync"
    q = queue_of(stream, call)
    n = _rt._size(count, call, "count")
    try:
        v = int(value) & 0xFF
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidValue, f"value must be an int, not {type(value).__name__}", call)
    _check_sticky(call)
    if n == 0 and device_address(devPtr) == 0:
        return cudaSuccess
    if not _rt._is_device(devPtr):
        E.fail(E.cudaErrorInvalidValue, f"{type(devPtr).__name__} is not a device pointer", call)
    d = _rt._device_range(devPtr, n, call, "devPtr")
    if n == 0:
        return cudaSuccess
    pat = ffi.new("unsigned char *", v)
    ev = _cmd_out()
    try:
        _core.check(lib.pyemu_enqueue_fill(q, d, pat, 1, n, ffi.NULL, 0, ev))
    except CoreError as exc:
        E.raise_core(exc, call)
    _holds.hold_owned(ev[0], (devPtr,))
    return cudaSuccess


__all__ = ["cudaMemcpyAsync", "cudaMemsetAsync"]
