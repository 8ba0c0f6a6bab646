"""Rectangular copies: clEnqueueReadBufferRect, clEnqueueWriteBufferRect,
clEnqueueCopyBufferRect.

A rectangle is region = (width in bytes, rows, slices) at origin = (x in
bytes, row, slice) of memory laid out with a row pitch and a slice pitch:
byte (x, y, z) is at z * slice_pitch + y * row_pitch + x.  A pitch of 0 is
the packed one (row_pitch = region[0], slice_pitch = region[1] * row_pitch).
Each is one command of the core's engine (pyemu_enqueue_copy_rect), run by
the workers in runs of rows, as the other copies are.

Every check of the OpenCL 1.2 specification is made before anything is
enqueued, so the copy itself cannot fault: a region with a 0, a row pitch
below region[0] or a slice pitch below region[1] * row_pitch (or not a
multiple of the row pitch; the specification's "and" is read as PoCL reads
it) is CL_INVALID_VALUE, and so is a rectangle that runs past the buffer or
past the host memory (which the C call cannot check: here it is checked).
clEnqueueCopyBufferRect within one memory (the same buffer, or sub-buffers
of one) whose rectangles share a byte is CL_MEM_COPY_OVERLAP (found exactly,
row by row), and one buffer with both pitches different is CL_INVALID_VALUE.
An image is not a buffer: CL_INVALID_MEM_OBJECT.
"""
from __future__ import annotations

import operator

import numpy as np

from ..runtime.core import ffi, lib
from . import _constants as K
from ._base import as_int
from ._errors import CL_INVALID_CONTEXT, CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION, \
    CL_INVALID_VALUE, CL_MEM_COPY_OVERLAP, fail
from .event import enqueue
from .memory import _blocking, _host, _queue_and_mem, check_mem
from .queue import check_queue


def _buffer(m, call):
    """m itself; CL_INVALID_MEM_OBJECT for an image (its bytes are no buffer's)."""
    if getattr(m, "_kind", "") == "image":
        fail(CL_INVALID_MEM_OBJECT, "the memory object is an image, not a buffer", call)
    return m


def _triple(value, call, what) -> tuple:
    """value as 3 non-negative ints (a list or tuple of 3)."""
    if isinstance(value, (str, bytes)) or value is None:
        fail(CL_INVALID_VALUE, f"{what} must be a list of 3 sizes", call)
    try:
        items = list(value)
    except TypeError:
        fail(CL_INVALID_VALUE, f"{what} is {type(value).__name__}, not a list of 3 sizes", call)
    if len(items) != 3:
        fail(CL_INVALID_VALUE, f"{what} has {len(items)} values, not 3", call)
    out = []
    for v in items:
        if isinstance(v, float):
            fail(CL_INVALID_VALUE, f"{what} holds {v!r}, not an int", call)
        try:
            n = operator.index(v)
        except TypeError:
            fail(CL_INVALID_VALUE, f"{what} holds {v!r}, not an int", call)
        if n < 0 or n >= 1 << 64:
            fail(CL_INVALID_VALUE, f"{what} holds {n}, which is not a size_t", call)
        out.append(n)
    return tuple(out)


def _region(region, call) -> tuple:
    r = _triple(region, call, "region")
    if 0 in r:
        fail(CL_INVALID_VALUE, f"region {list(r)} has a 0", call)
    return r


def _pitches(row, slc, region, call, side) -> tuple:
    """(row pitch, slice pitch) with 0 meaning packed, checked against region."""
    row = as_int(row, call, f"{side}_row_pitch")
    slc = as_int(slc, call, f"{side}_slice_pitch")
    if row == 0:
        row = region[0]
    elif row < region[0]:
        fail(CL_INVALID_VALUE, f"{side}_row_pitch {row} is less than region[0] = {region[0]}",
             call)
    if slc == 0:
        slc = region[1] * row
    elif slc < region[1] * row or slc % row:
        fail(CL_INVALID_VALUE, f"{side}_slice_pitch {slc} is less than region[1] * "
             f"{side}_row_pitch = {region[1] * row} or not a multiple of {side}_row_pitch "
             f"({row})", call)
    return row, slc


def _offset(origin, row, slc) -> int:
    return origin[2] * slc + origin[1] * row + origin[0]


def _extent(region, row, slc) -> int:
    """Bytes from the first byte of the rectangle to one past its last."""
    return (region[2] - 1) * slc + (region[1] - 1) * row + region[0]


def _inside(m, origin, region, row, slc, call, what) -> int:
    """The rectangle's first byte in m; CL_INVALID_VALUE if it runs past m."""
    off = _offset(origin, row, slc)
    end = off + _extent(region, row, slc)
    if end > m.size:
        fail(CL_INVALID_VALUE, f"the {what} rectangle (origin {list(origin)}, region "
             f"{list(region)}, pitches {row}/{slc}) runs {end - m.size} bytes past the end of "
             f"the {m.size}-byte buffer", call)
    return off


def _rows(off, region, row, slc):
    """The first byte of each row of a rectangle, as a NumPy array."""
    z = np.arange(region[2], dtype=np.uint64) * np.uint64(slc)
    y = np.arange(region[1], dtype=np.uint64) * np.uint64(row)
    return (np.add.outer(z, y) + np.uint64(off)).ravel()


def _overlap(a, b, width) -> bool:
    """Whether two rectangles of rows (first bytes a and b, each row `width`
    bytes, the rows of each disjoint) share a byte: two rows of different
    sides overlap only when nothing lies between them in sorted order."""
    starts = np.concatenate([a, b])
    side = np.concatenate([np.zeros(len(a), np.int8), np.ones(len(b), np.int8)])
    order = np.argsort(starts, kind="stable")
    s, t = starts[order], side[order]
    near = (s[1:] - s[:-1]) < np.uint64(width)
    return bool(np.any(near & (t[1:] != t[:-1])))


def _read_or_write(command_queue, buffer, blocking, buffer_origin, host_origin, region,
                   buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr,
                   event_wait_list, call, write):
    q, m = _queue_and_mem(command_queue, buffer, call)
    _buffer(m, call)
    block = _blocking(blocking, call, "blocking_write" if write else "blocking_read")
    borg = _triple(buffer_origin, call, "buffer_origin")
    horg = _triple(host_origin, call, "host_origin")
    reg = _region(region, call)
    brow, bslc = _pitches(buffer_row_pitch, buffer_slice_pitch, reg, call, "buffer")
    hrow, hslc = _pitches(host_row_pitch, host_slice_pitch, reg, call, "host")
    boff = _inside(m, borg, reg, brow, bslc, call, "buffer")
    denied = (K.CL_MEM_HOST_READ_ONLY if write else K.CL_MEM_HOST_WRITE_ONLY) | \
        K.CL_MEM_HOST_NO_ACCESS
    if m.flags & denied:
        fail(CL_INVALID_OPERATION, f"the buffer is {m.flags!r}: the host may not "
             f"{'write' if write else 'read'} it", call)
    hoff = _offset(horg, hrow, hslc)
    need = hoff + _extent(reg, hrow, hslc)
    host = _host(ptr, need, not write, call)     # CL_INVALID_VALUE when too small or NULL
    dev = ffi.cast("char *", m.addr + boff)
    hp = ffi.cast("char *", host) + hoff
    if write:
        args = (dev, brow, bslc, hp, hrow, hslc)
        ctype = K.CL_COMMAND_WRITE_BUFFER_RECT
    else:
        args = (hp, hrow, hslc, dev, brow, bslc)
        ctype = K.CL_COMMAND_READ_BUFFER_RECT
    return enqueue(q, call, ctype,
                   lambda arr, n, out: lib.pyemu_enqueue_copy_rect(q.handle, *args, *reg, arr, n,
                                                                   out),
                   event_wait_list, keep=(ptr, host), blocking=block, mems=(m,))


def clEnqueueReadBufferRect(command_queue, buffer, blocking_read, buffer_origin, host_origin,
                            region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                            host_slice_pitch, ptr, event_wait_list=None):
    """clEnqueueReadBufferRect(command_queue, buffer, blocking_read, buffer_origin,
    host_origin, region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
    host_slice_pitch, ptr, event_wait_list=None) -> event: the rectangle of the
    buffer into the rectangle of ptr (a writable buffer-protocol object, NumPy
    array or bytearray; its bytes, whatever its dtype).  Origins and region are
    3 sizes in bytes, rows and slices."""
    return _read_or_write(command_queue, buffer, blocking_read, buffer_origin, host_origin,
                          region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                          host_slice_pitch, ptr, event_wait_list, "clEnqueueReadBufferRect",
                          False)


def clEnqueueWriteBufferRect(command_queue, buffer, blocking_write, buffer_origin, host_origin,
                             region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                             host_slice_pitch, ptr, event_wait_list=None):
    """clEnqueueWriteBufferRect(command_queue, buffer, blocking_write, buffer_origin,
    host_origin, region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
    host_slice_pitch, ptr, event_wait_list=None) -> event: the rectangle of ptr
    into the rectangle of the buffer.  A non-blocking write reads ptr when it
    runs (the command keeps ptr alive until then)."""
    return _read_or_write(command_queue, buffer, blocking_write, buffer_origin, host_origin,
                          region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                          host_slice_pitch, ptr, event_wait_list, "clEnqueueWriteBufferRect",
                          True)


def clEnqueueCopyBufferRect(command_queue, src_buffer, dst_buffer, src_origin, dst_origin,
                            region, src_row_pitch, src_slice_pitch, dst_row_pitch,
                            dst_slice_pitch, event_wait_list=None):
    """clEnqueueCopyBufferRect(command_queue, src_buffer, dst_buffer, src_origin, dst_origin,
    region, src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch,
    event_wait_list=None) -> event: a rectangle of one buffer to a rectangle of
    another (or of the same one, where they do not overlap)."""
    call = "clEnqueueCopyBufferRect"
    q = check_queue(command_queue, call)
    s = _buffer(check_mem(src_buffer, call), call)
    d = _buffer(check_mem(dst_buffer, call), call)
    if s.context is not q.context or d.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the buffers are of different contexts", call)
    sorg = _triple(src_origin, call, "src_origin")
    dorg = _triple(dst_origin, call, "dst_origin")
    reg = _region(region, call)
    srow, sslc = _pitches(src_row_pitch, src_slice_pitch, reg, call, "src")
    drow, dslc = _pitches(dst_row_pitch, dst_slice_pitch, reg, call, "dst")
    soff = _inside(s, sorg, reg, srow, sslc, call, "source")
    doff = _inside(d, dorg, reg, drow, dslc, call, "destination")
    if s is d and srow != drow and sslc != dslc:
        fail(CL_INVALID_VALUE, "src_buffer and dst_buffer are the same buffer and both the "
             "row pitches and the slice pitches differ", call)
    if s.root is d.root:
        a, b = s.origin + soff, d.origin + doff
        if (a < b + _extent(reg, drow, dslc) and b < a + _extent(reg, srow, sslc) and
                _overlap(_rows(a, reg, srow, sslc), _rows(b, reg, drow, dslc), reg[0])):
            fail(CL_MEM_COPY_OVERLAP, f"the source rectangle (origin {list(sorg)}) and the "
                 f"destination rectangle (origin {list(dorg)}) share bytes of the same "
                 "memory", call)
    src = ffi.cast("char *", s.addr + soff)
    dst = ffi.cast("char *", d.addr + doff)
    return enqueue(q, call, K.CL_COMMAND_COPY_BUFFER_RECT,
                   lambda arr, n, out: lib.pyemu_enqueue_copy_rect(
                       q.handle, dst, drow, dslc, src, srow, sslc, *reg, arr, n, out),
                   event_wait_list, mems=(s, d))


__all__ = ["clEnqueueReadBufferRect", "clEnqueueWriteBufferRect", "clEnqueueCopyBufferRect"]
