"""Rectangles of bytes: the engine's 3-D copy and fill (pyemu_enqueue_copy_rect,
pyemu_enqueue_fill_rect) for the calls that wait for them: CUDA's
cudaMemcpy2D/3D and cudaMemset2D/3D, array copies, OpenCL image commands.
(OpenCL's clEnqueue*BufferRect enqueue the same commands themselves.)

Both run on the workers like the other copies, after the earlier commands of
their queue, and never count as kernel code: a fault in them is a host bug,
not a device error.  Callers check every bound first; the core checks the
pitches again."""
from __future__ import annotations

import threading

from . import core as _core
from . import sync as _sync
from .core import CoreError, ffi, lib

_lock = threading.Lock()
_own_queue = []         # the queue of callers that have none: made once


def private_queue():
    """An in-order engine queue of the runtime's own (for copies that follow
    a wait for the whole device)."""
    if not _own_queue:
        with _lock:
            if not _own_queue:
                _core.ensure_started()
                q = ffi.new("pyemu_queue **")
                _core.check(lib.pyemu_queue_create(0, q))
                _own_queue.append(q[0])
    return _own_queue[0]


def _run(submit) -> None:
    """Enqueue with submit(event_out), wait for the command, raise CoreError
    if it or a command before it failed."""
    ev = ffi.new("pyemu_cmd **")
    _core.check(submit(ev))
    try:
        _sync.wait_command(ev[0])
        status = lib.pyemu_cmd_error(ev[0], ffi.NULL, 0)
        if status:
            buf = ffi.new("char[]", 1024)
            lib.pyemu_cmd_error(ev[0], buf, 1024)
            raise CoreError(status, ffi.string(buf).decode("utf-8", "replace"))
    finally:
        lib.pyemu_cmd_release(ev[0])


def copy_rect(queue, dst: int, dpitch: int, dslice: int, src: int, spitch: int, sslice: int,
              width: int, height: int, depth: int = 1) -> None:
    """Copy depth slices of height rows of width bytes from address src (rows
    spitch apart, slices sslice apart) to dst, after the earlier commands of
    `queue`, and wait for it."""
    if width <= 0 or height <= 0 or depth <= 0:
        return
    _run(lambda ev: lib.pyemu_enqueue_copy_rect(
        queue, ffi.cast("void *", dst), dpitch, dslice, ffi.cast("void *", src), spitch, sslice,
        width, height, depth, ffi.NULL, 0, ev))


def fill_rect(queue, dst: int, pitch: int, slice_: int, value: int, width: int, height: int,
              depth: int = 1) -> None:
    """Set every byte of the rectangle at dst to value (0..255), as copy_rect copies."""
    if width <= 0 or height <= 0 or depth <= 0:
        return
    pattern = ffi.new("unsigned char[1]", [value & 0xFF])
    _run(lambda ev: lib.pyemu_enqueue_fill_rect(
        queue, ffi.cast("void *", dst), pitch, slice_, pattern, 1, width, height, depth,
        ffi.NULL, 0, ev))


__all__ = ["private_queue", "copy_rect", "fill_rect"]
