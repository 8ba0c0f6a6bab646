"""Commands on images: clEnqueueReadImage, clEnqueueWriteImage,
clEnqueueCopyImage, clEnqueueFillImage, clEnqueueCopyImageToBuffer,
clEnqueueCopyBufferToImage, clEnqueueMapImage.

Each is one command of the core's engine (the copy-rect and fill-rect
commands clEnqueue*BufferRect use), so it waits for its event wait list,
runs out of order in an out-of-order queue, honours its blocking flag and
has profiling times like a buffer command.  A non-blocking read or write
keeps its host memory alive (runtime/holds.py) and touches it only when the
command runs.  Every bound is checked before anything is enqueued.

Origins and regions index an image's storage box (image.py): for a 1-D
array origin[1] / region[1] are layers, for a 2-D array origin[2] / region[2],
as OpenCL has them.  A 1-D array's host slice_pitch is the bytes from one
layer to the next (row_pitch is unused, as the specification says).
"""
from __future__ import annotations

import struct

import numpy as np

from ..runtime import views as _views
from ..runtime.core import ffi, lib
from . import _constants as K
from ._base import as_int
from ._errors import (CL_IMAGE_FORMAT_MISMATCH, CL_INVALID_CONTEXT, CL_INVALID_MEM_OBJECT,
                      CL_INVALID_OPERATION, CL_INVALID_VALUE, CL_MEM_COPY_OVERLAP, fail)
from .event import enqueue
from .memory import _blocking, check_mem, map_flags_for
from .queue import check_queue


def _images():
    from . import image
    return image


def _triple(v, call, what, fill_with):
    if v is None or isinstance(v, (str, bytes)):
        fail(CL_INVALID_VALUE, f"{what} must be a list of up to 3 ints", call)
    try:
        t = [as_int(x, call, what) for x in v]
    except TypeError:
        fail(CL_INVALID_VALUE, f"{what} must be a list of up to 3 ints", call)
    if not 1 <= len(t) <= 3:
        fail(CL_INVALID_VALUE, f"{what} has 1 to 3 values", call)
    return tuple(t + [fill_with] * (3 - len(t)))


def _box(img, origin, region, call, what=""):
    o = _triple(origin, call, what + "origin", 0)
    r = _triple(region, call, what + "region", 1)
    if 0 in r:
        fail(CL_INVALID_VALUE, f"{what}region {r} has a 0", call)
    if img.dims < 3 and (o[2] or r[2] != 1) or img.dims < 2 and (o[1] or r[1] != 1):
        fail(CL_INVALID_VALUE, f"this image takes origin[k] = 0 and region[k] = 1 beyond its "
             f"{img.dims} dimensions (origin {o}, region {r})", call)
    if any(a + b > s for a, b, s in zip(o, r, img.size3)):
        fail(CL_INVALID_VALUE, f"{what}origin {o} + region {r} runs past the image's "
             f"{img.size3}", call)
    return o, r


def _at(img, o):
    return img.data + o[2] * img.slice_pitch + o[1] * img.row_pitch + o[0] * img.elem


def _queue_image(command_queue, image, call):
    q = check_queue(command_queue, call)
    m = _images().check_image(image, call)
    if m.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the image are of different contexts", call)
    return q, m


def _host_pitches(img, r, row_pitch, slice_pitch, call):
    """(row bytes, host row stride, host slice stride, bytes needed) of the
    host side of a read or write, in the storage box's terms."""
    row = r[0] * img.elem
    rp = as_int(row_pitch, call, "row_pitch") or row
    if rp < row:
        fail(CL_INVALID_VALUE, f"row_pitch {rp} is less than a row of the region ({row})", call)
    if img.image_type == K.CL_MEM_OBJECT_IMAGE1D_ARRAY:
        sp = as_int(slice_pitch, call, "slice_pitch") or rp
        if sp < rp:
            fail(CL_INVALID_VALUE, f"slice_pitch {sp} is less than row_pitch {rp}", call)
        return row, sp, sp, sp * (r[1] - 1) + row
    sp = as_int(slice_pitch, call, "slice_pitch") or rp * r[1]
    if sp < rp * r[1]:
        fail(CL_INVALID_VALUE, f"slice_pitch {sp} is less than row_pitch x region[1] "
             f"({rp * r[1]})", call)
    return row, rp, sp, sp * (r[2] - 1) + rp * (r[1] - 1) + row


def _host(ptr, need, writable, call):
    from ..runtime.host import host_buffer
    if ptr is None:
        fail(CL_INVALID_VALUE, "ptr is NULL", call)
    try:
        p, have = host_buffer(ptr, writable)
    except (TypeError, ValueError) as exc:
        fail(CL_INVALID_VALUE, f"ptr: {exc}", call)
    if have < need:
        fail(CL_INVALID_VALUE, f"ptr holds {have} bytes; the region needs {need}", call)
    return p


def _host_access(m, write, call):
    denied = (K.CL_MEM_HOST_READ_ONLY if write else K.CL_MEM_HOST_WRITE_ONLY) | \
        K.CL_MEM_HOST_NO_ACCESS
    if m.flags & denied:
        fail(CL_INVALID_OPERATION, f"the image is {m.flags!r}: the host may not "
             f"{'write' if write else 'read'} it", call)


def _copy(q, call, ctype, wait, dst, drow, dslc, src, srow, sslc, w, h, d, mems, keep=(),
          blocking=False):
    dp, sp = ffi.cast("char *", dst), ffi.cast("char *", src)
    return enqueue(q, call, ctype,
                   lambda arr, n, out: lib.pyemu_enqueue_copy_rect(
                       q.handle, dp, drow, dslc, sp, srow, sslc, w, h, d, arr, n, out),
                   wait, keep=keep, blocking=blocking, mems=mems)


def clEnqueueReadImage(command_queue, image, blocking_read, origin, region, row_pitch,
                       slice_pitch, ptr, event_wait_list=None):
    """clEnqueueReadImage(command_queue, image, blocking_read, origin, region, row_pitch,
    slice_pitch, ptr, event_wait_list=None) -> event: the region into ptr (a
    writable buffer-protocol object), rows row_pitch apart and slices
    slice_pitch apart (0: packed).  Non-blocking, ptr is written when the
    command runs and is kept alive until then."""
    call = "clEnqueueReadImage"
    q, m = _queue_image(command_queue, image, call)
    block = _blocking(blocking_read, call, "blocking_read")
    o, r = _box(m, origin, region, call)
    row, rp, sp, need = _host_pitches(m, r, row_pitch, slice_pitch, call)
    _host_access(m, False, call)
    p = _host(ptr, need, True, call)
    return _copy(q, call, K.CL_COMMAND_READ_IMAGE, event_wait_list, p, rp, sp, _at(m, o),
                 m.row_pitch, m.slice_pitch, row, r[1], r[2], (m,), (ptr, p), block)


def clEnqueueWriteImage(command_queue, image, blocking_write, origin, region, input_row_pitch,
                        input_slice_pitch, ptr, event_wait_list=None):
    """clEnqueueWriteImage(command_queue, image, blocking_write, origin, region,
    input_row_pitch, input_slice_pitch, ptr, event_wait_list=None) -> event.
    Non-blocking, ptr is read when the command runs (kept alive until then)."""
    call = "clEnqueueWriteImage"
    q, m = _queue_image(command_queue, image, call)
    block = _blocking(blocking_write, call, "blocking_write")
    o, r = _box(m, origin, region, call)
    row, rp, sp, need = _host_pitches(m, r, input_row_pitch, input_slice_pitch, call)
    _host_access(m, True, call)
    p = _host(ptr, need, False, call)
    return _copy(q, call, K.CL_COMMAND_WRITE_IMAGE, event_wait_list, _at(m, o), m.row_pitch,
                 m.slice_pitch, p, rp, sp, row, r[1], r[2], (m,), (ptr, p), block)


def _overlap(s, so, d, do, r):
    """Whether two boxes of images share bytes: the same storage (one image, or
    1-D buffer images over one buffer) and intersecting byte ranges row by row."""
    if s.root is not d.root:
        return False
    if s is d:
        return all(a < b + n and b < a + n for a, b, n in zip(so, do, r))
    a, b = _at(s, so), _at(d, do)
    return a < b + r[0] * d.elem and b < a + r[0] * s.elem


def clEnqueueCopyImage(command_queue, src_image, dst_image, src_origin, dst_origin, region,
                       event_wait_list=None):
    """clEnqueueCopyImage(command_queue, src_image, dst_image, src_origin, dst_origin, region,
    event_wait_list=None) -> event: the formats must be the same; the image
    types may differ (a 2-D region into a slice of a 3-D image or a layer of an array)."""
    call = "clEnqueueCopyImage"
    q, s = _queue_image(command_queue, src_image, call)
    _, d = _queue_image(command_queue, dst_image, call)
    if s.format != d.format:
        fail(CL_IMAGE_FORMAT_MISMATCH, "the two images have different formats", call)
    so, r = _box(s, src_origin, region, call, "src_")
    do, _ = _box(d, dst_origin, region, call, "dst_")
    if _overlap(s, so, d, do, r):
        fail(CL_MEM_COPY_OVERLAP, "the source and destination regions overlap", call)
    return _copy(q, call, K.CL_COMMAND_COPY_IMAGE, event_wait_list, _at(d, do), d.row_pitch,
                 d.slice_pitch, _at(s, so), s.row_pitch, s.slice_pitch, r[0] * s.elem, r[1],
                 r[2], (s, d))


def fill_bytes(img, color, call):
    """The bytes of one element of img holding `color` (4 values, converted
    as write_image* converts: round to nearest even, saturate)."""
    im = _images()
    from ..runtime import image as _img
    kind, nb, norm = im._TYPES[img.format.image_channel_data_type]
    if color is None or isinstance(color, (str, bytes)):
        fail(CL_INVALID_VALUE, "fill_color is 4 numbers (float4, int4 or uint4)", call)
    try:
        vals = [float(v) if kind == _img.KIND_FLOAT or norm else int(v) for v in list(color)]
    except (TypeError, ValueError, OverflowError):
        fail(CL_INVALID_VALUE, "fill_color is 4 numbers (float4, int4 or uint4)", call)
    if len(vals) != 4:
        fail(CL_INVALID_VALUE, f"fill_color has {len(vals)} values, not 4", call)
    if img.format.image_channel_order == im.cl_channel_order.CL_BGRA:
        vals = [vals[2], vals[1], vals[0], vals[3]]
    out = b""
    for c in range(img.channels):
        v = vals[c]
        if kind == _img.KIND_FLOAT:
            out += struct.pack("<f", v) if nb == 4 else np.float16(v).tobytes()
            continue
        bits = nb * 8
        lo, hi = ((-(1 << bits - 1), (1 << bits - 1) - 1) if kind == _img.KIND_SIGNED
                  else (0, (1 << bits) - 1))
        if norm:
            f = float(np.float32(v) * np.float32(hi))
            v = 0 if f != f else int(np.clip(np.rint(f), lo, hi))
        v = min(max(int(v), lo), hi)
        out += int(v).to_bytes(nb, "little", signed=kind == _img.KIND_SIGNED)
    return out


def clEnqueueFillImage(command_queue, image, fill_color, origin, region, event_wait_list=None):
    """clEnqueueFillImage(command_queue, image, fill_color, origin, region,
    event_wait_list=None) -> event: fill_color is 4 numbers (a float4 for
    float and normalized formats, an int4 / uint4 for integer ones), converted
    to the image's format when enqueued."""
    call = "clEnqueueFillImage"
    q, m = _queue_image(command_queue, image, call)
    o, r = _box(m, origin, region, call)
    elem = fill_bytes(m, fill_color, call)
    pat = ffi.new("char[]", elem)
    dst = ffi.cast("char *", _at(m, o))
    return enqueue(q, call, K.CL_COMMAND_FILL_IMAGE,
                   lambda arr, n, out: lib.pyemu_enqueue_fill_rect(
                       q.handle, dst, m.row_pitch, m.slice_pitch, pat, len(elem),
                       r[0] * m.elem, r[1], r[2], arr, n, out),
                   event_wait_list, mems=(m,))


def _buffer(buf, image, call):
    b = check_mem(buf, call)
    if isinstance(b, _images().cl_image):
        fail(CL_INVALID_MEM_OBJECT, "the memory object is an image, not a buffer", call)
    if image.buffer is not None and image.root is b.root:
        fail(CL_INVALID_MEM_OBJECT, "the image is a 1-D buffer image over this buffer", call)
    return b


def _buffer_range(b, off, r, elem, call, what):
    off = as_int(off, call, what)
    n = r[0] * elem * r[1] * r[2]
    if off + n > b.size:
        fail(CL_INVALID_VALUE, f"{what} {off} + the region's {n} bytes run past the end of the "
             f"{b.size}-byte buffer", call)
    return off


def clEnqueueCopyImageToBuffer(command_queue, src_image, dst_buffer, src_origin, region,
                               dst_offset, event_wait_list=None):
    """clEnqueueCopyImageToBuffer(command_queue, src_image, dst_buffer, src_origin, region,
    dst_offset, event_wait_list=None) -> event: the region, packed, at dst_offset."""
    call = "clEnqueueCopyImageToBuffer"
    q, s = _queue_image(command_queue, src_image, call)
    b = _buffer(dst_buffer, s, call)
    if b.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the buffer are of different contexts", call)
    o, r = _box(s, src_origin, region, call)
    off = _buffer_range(b, dst_offset, r, s.elem, call, "dst_offset")
    row = r[0] * s.elem
    return _copy(q, call, K.CL_COMMAND_COPY_IMAGE_TO_BUFFER, event_wait_list, b.addr + off, row,
                 row * r[1], _at(s, o), s.row_pitch, s.slice_pitch, row, r[1], r[2], (s, b))


def clEnqueueCopyBufferToImage(command_queue, src_buffer, dst_image, src_offset, dst_origin,
                               region, event_wait_list=None):
    """clEnqueueCopyBufferToImage(command_queue, src_buffer, dst_image, src_offset,
    dst_origin, region, event_wait_list=None) -> event: packed elements at
    src_offset into the region."""
    call = "clEnqueueCopyBufferToImage"
    q, d = _queue_image(command_queue, dst_image, call)
    b = _buffer(src_buffer, d, call)
    if b.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the buffer are of different contexts", call)
    o, r = _box(d, dst_origin, region, call)
    off = _buffer_range(b, src_offset, r, d.elem, call, "src_offset")
    row = r[0] * d.elem
    return _copy(q, call, K.CL_COMMAND_COPY_BUFFER_TO_IMAGE, event_wait_list, _at(d, o),
                 d.row_pitch, d.slice_pitch, b.addr + off, row, row * r[1], row, r[1], r[2],
                 (b, d))


def clEnqueueMapImage(command_queue, image, blocking_map, map_flags, origin, region,
                      event_wait_list=None):
    """clEnqueueMapImage(command_queue, image, blocking_map, map_flags, origin, region,
    event_wait_list=None) -> (mapped, image_row_pitch, image_slice_pitch, event).

    `mapped` is a writable NumPy uint8 view of the image's memory from the
    origin to the region's last byte (rows image_row_pitch apart); it holds
    the image's data once the event is complete.  Unmap it with
    clEnqueueUnmapMemObject."""
    call = "clEnqueueMapImage"
    q, m = _queue_image(command_queue, image, call)
    block = _blocking(blocking_map, call, "blocking_map")
    f = map_flags_for(m, map_flags, call, "image")
    o, r = _box(m, origin, region, call)
    start = _at(m, o)
    if m.host_export is not None:
        return _map_host(q, m, f, block, o, r, start, event_wait_list, call)
    n = (r[2] - 1) * m.slice_pitch + (r[1] - 1) * m.row_pitch + r[0] * m.elem
    ev = enqueue(q, call, K.CL_COMMAND_MAP_IMAGE,
                 lambda arr, k, out: lib.pyemu_enqueue_marker(q.handle, 0, arr, k, out),
                 event_wait_list, blocking=block, mems=(m,))
    mapped = np.frombuffer(ffi.buffer(ffi.cast("char *", start), n), np.uint8)
    _views.add_view(m.root.addr, mapped)
    m.maps.append([start, n, f, start - m.addr])
    return mapped, m.row_pitch, m.info_slice_pitch, ev


def _map_host(q, m, f, block, o, r, start, wait, call):
    """clEnqueueMapImage of a CL_MEM_USE_HOST_PTR image: the region is copied
    into host_ptr (unless the map invalidates it) and the view returned is of
    host_ptr, with the host's pitches, as a driver returns a pointer into it."""
    hrow, hslice = m.host_pitches
    base = int(ffi.cast("uintptr_t", m.host_export))
    hstart = base + o[2] * hslice + o[1] * hrow + o[0] * m.elem
    n = (r[2] - 1) * hslice + (r[1] - 1) * hrow + r[0] * m.elem
    if f & K.CL_MAP_WRITE_INVALIDATE_REGION:
        ev = enqueue(q, call, K.CL_COMMAND_MAP_IMAGE,
                     lambda arr, k, out: lib.pyemu_enqueue_marker(q.handle, 0, arr, k, out),
                     wait, blocking=block, mems=(m,))
    else:
        ev = _copy(q, call, K.CL_COMMAND_MAP_IMAGE, wait, hstart, hrow, hslice, start,
                   m.row_pitch, m.slice_pitch, r[0] * m.elem, r[1], r[2], (m,),
                   (m.host_export,), block)
    mapped = np.frombuffer(ffi.buffer(ffi.cast("char *", hstart), n), np.uint8)
    m.maps.append([hstart, n, f, start - m.addr])
    m.host_maps.setdefault(hstart, []).append((start, r))
    slice_pitch = hslice if m.info_slice_pitch else 0
    return mapped, hrow, slice_pitch, ev


def unmap_host(q, m, addr, wait, keep, call):
    """clEnqueueUnmapMemObject of a write map of a CL_MEM_USE_HOST_PTR image
    (memory.py calls it): host_ptr's region is copied back into the image."""
    start, r = m.host_maps[addr].pop()
    if not m.host_maps[addr]:
        del m.host_maps[addr]
    hrow, hslice = m.host_pitches
    return _copy(q, call, K.CL_COMMAND_UNMAP_MEM_OBJECT, wait, start, m.row_pitch,
                 m.slice_pitch, addr, hrow, hslice, r[0] * m.elem, r[1], r[2], (m,),
                 (m.host_export,) + tuple(keep))


__all__ = ["clEnqueueReadImage", "clEnqueueWriteImage", "clEnqueueCopyImage",
           "clEnqueueFillImage", "clEnqueueCopyImageToBuffer", "clEnqueueCopyBufferToImage",
           "clEnqueueMapImage"]
