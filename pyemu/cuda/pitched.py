"""Pitched, 2-D and 3-D memory: cudaMallocPitch, cudaMalloc3D, cudaMemcpy2D,
cudaMemcpy3D, cudaMemset2D, cudaMemset3D and their Async forms.

A pitched allocation's rows start `pitch` bytes apart; the pitch is what an
H100 with CUDA 13 gives, the width rounded up to 512 bytes
(tests/data/ground_truth/cuda_h100_pitch_symbols.json).  The host side of a
copy is any buffer (a NumPy array, bytes, bytearray) with the pitch given as
in C, or a 2-D NumPy array whose rows are not contiguous with one another
(a slice `a[:, 2:10]`): then the pitch must be its row stride,
`a.strides[0]`, and the rectangle must lie inside it.  Nothing outside the
rectangle is read or written, on either side; a rectangle past the end of
its allocation or host buffer is cudaErrorInvalidValue, a width over the
pitch cudaErrorInvalidPitchValue (copies) or cudaErrorInvalidValue
(memsets), as on the H100.

All these calls wait for the earlier work of their stream, then copy on the
calling thread, so the Async forms return after their copy (CUDA allows an
Async copy of pageable memory to be synchronous); copy_rect and fill_rect
are the one place that moves rectangles.
"""
from __future__ import annotations

import numpy as np

from ..runtime import rect as _rect
from ..runtime.core import CoreError, ffi
from ..runtime.host import host_buffer
from . import _errors as E
from . import runtime as _rt
from ._errors import cudaSuccess
from ._memory import DevicePointer, allocation_of, device_address, is_device_address
from ._pitched_types import cudaExtent, cudaMemcpy3DParms, cudaPitchedPtr, cudaPos
from ._types import cudaMemcpyKind
from .symbols import _count, _queue

PITCH_ALIGNMENT = 512      # cudaMallocPitch's row alignment on an H100 (CUDA 13.0)


# ---- the rectangle: one copy, one fill (the engine's commands, runtime/rect.py) ----

def copy_rect(queue, dst, dpitch, dslice, src, spitch, sslice, width, height, depth, call):
    """Copy `depth` slices of `height` rows of `width` bytes from address src
    (rows spitch apart, slices sslice apart) to dst, after the earlier
    commands of `queue`, and wait for it.  The caller checked the addresses."""
    try:
        _rect.copy_rect(queue, dst, dpitch, dslice, src, spitch, sslice, width, height, depth)
    except CoreError as exc:
        E.raise_core(exc, call)
    _rt._after_wait(call)


def fill_rect(queue, dst, pitch, slice_, value, width, height, depth, call):
    """Set the bytes of the rectangle at dst to `value`, as copy_rect copies."""
    try:
        _rect.fill_rect(queue, dst, pitch, slice_, value, width, height, depth)
    except CoreError as exc:
        E.raise_core(exc, call)
    _rt._after_wait(call)


# ---- one side of a rectangle, checked ----

class _Side:
    """One side of a rectangle: obj, its pitch and rows a slice (ysize), and the
    position of the rectangle in it (x bytes, row y, slice z)."""

    def __init__(self, obj, pitch, ysize=0, pos=(0, 0, 0)):
        self.obj, self.pitch, self.ysize, self.pos = obj, pitch, ysize, pos

    @property
    def slice(self):
        return self.pitch * self.ysize


def _resolve(side, kind_side, w, h, d, writable, call, what):
    """The address of the rectangle's first byte, and what keeps a host buffer alive."""
    x, y, z = side.pos
    first = z * side.slice + y * side.pitch + x
    end = first + (d - 1) * side.slice + (h - 1) * side.pitch + w
    obj = side.obj
    addr = device_address(obj)
    if addr is not None and addr != 0 and is_device_address(addr):
        alloc = allocation_of(addr)
        if alloc is None:
            E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is not inside a device allocation",
                   call)
        start, size = alloc
        if addr + end > start + size:
            E.fail(E.cudaErrorInvalidValue,
                   f"the rectangle at {what} ({d} x {h} rows of {w} bytes, pitch {side.pitch}, "
                   f"from byte {first}) runs {addr + end - start - size} bytes past the end of its "
                   f"{size}-byte allocation", call)
        return addr + first, None
    if kind_side == "device":
        E.fail(E.cudaErrorInvalidValue, f"{what} is not device memory, but the copy kind says "
               "device", call)
    if addr is not None:
        E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is neither device memory nor a host "
               "buffer", call)
    if isinstance(obj, np.ndarray) and obj.ndim == 2 and not obj.flags.c_contiguous \
            and obj.strides[1] == obj.itemsize and obj.strides[0] > 0:
        # a 2-D array whose rows are apart: its own pitch, and its own bounds
        rows, row_bytes = obj.shape[0], obj.shape[1] * obj.itemsize
        last_row = (z + d - 1) * side.ysize + y + h - 1 if d > 1 else y + h - 1
        if side.pitch != obj.strides[0]:
            E.fail(E.cudaErrorInvalidValue, f"{what}: the pitch is {side.pitch} bytes but the "
                   f"array's rows are {obj.strides[0]} bytes apart", call)
        if x + w > row_bytes or last_row >= rows:
            E.fail(E.cudaErrorInvalidValue, f"{what}: the rectangle ({h} rows of {w} bytes from "
                   f"row {y}, byte {x}) does not fit the {rows} x {row_bytes}-byte array", call)
        if writable and not obj.flags.writeable:
            E.fail(E.cudaErrorInvalidValue, f"{what}: the array is read-only", call)
        return obj.__array_interface__["data"][0] + first, obj
    try:
        ptr, nbytes = host_buffer(obj, writable)
    except (TypeError, ValueError) as exc:
        E.fail(E.cudaErrorInvalidValue, f"{what}: {exc}", call)
    if end > nbytes:
        E.fail(E.cudaErrorInvalidValue,
               f"the rectangle at {what} ({d} x {h} rows of {w} bytes, pitch {side.pitch}) needs "
               f"{end} bytes but the host buffer holds {nbytes}", call)
    return int(ffi.cast("uintptr_t", ptr)) + first, ptr


def _sides(dst, src, kind, call):
    return _rt.memcpy_sides(dst, src, kind, call)


# ---- allocation ----

def _round_pitch(width):
    return -(-width // PITCH_ALIGNMENT) * PITCH_ALIGNMENT


def cudaMallocPitch(width, height) -> tuple:
    """cudaMallocPitch(width, height): (devPtr, pitch), `height` rows of at least
    `width` bytes, each row starting `pitch` bytes after the one before; the
    pitch is width rounded up to 512, as on an H100.  A zero width or
    height gives (0, 0), as there."""
    call = "cudaMallocPitch"
    w, h = _count(width, call, "width"), _count(height, call, "height")
    E.check_sticky(call)
    if w == 0 or h == 0:
        return DevicePointer(0), 0
    pitch = _round_pitch(w)
    ptr = _alloc(pitch * h, call)
    return ptr, pitch


def _alloc(n, call):
    try:
        return _rt.cudaMalloc(n)
    except E.CudaError as exc:
        E.fail(exc.code, exc.detail, call)


def cudaMalloc3D(extent) -> cudaPitchedPtr:
    """cudaMalloc3D(extent): a cudaPitchedPtr (the C output pitchedDevPtr) to
    extent.depth slices of extent.height rows of extent.width bytes, rows
    pitched as cudaMallocPitch's.  A zero extent gives a null pointer and
    pitch 0, with xsize and ysize the extent's, as on an H100."""
    call = "cudaMalloc3D"
    w, h, d = _extent(extent, call)
    E.check_sticky(call)
    if w == 0 or h == 0 or d == 0:
        return cudaPitchedPtr(DevicePointer(0), 0, w, h)
    pitch = _round_pitch(w)
    return cudaPitchedPtr(_alloc(pitch * h * d, call), pitch, w, h)


def _extent(extent, call):
    if not isinstance(extent, cudaExtent):
        E.fail(E.cudaErrorInvalidValue, f"extent must be a cudaExtent (make_cudaExtent), not "
               f"{type(extent).__name__}", call)
    return (_count(extent.width, call, "extent.width"), _count(extent.height, call, "extent.height"),
            _count(extent.depth, call, "extent.depth"))


# ---- 2-D ----

def _memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, call):
    dp, sp = _count(dpitch, call, "dpitch"), _count(spitch, call, "spitch")
    w, h = _count(width, call, "width"), _count(height, call, "height")
    dside, sside = _sides(dst, src, kind, call)
    if h > 1 and (w > dp or w > sp):
        E.fail(E.cudaErrorInvalidPitchValue, f"width {w} is more than the pitch "
               f"(dpitch {dp}, spitch {sp})", call)
    queue = _queue(stream, call)
    E.check_sticky(call)
    if w == 0 or h == 0:
        return cudaSuccess
    d_addr, dkeep = _resolve(_Side(dst, dp), dside, w, h, 1, True, call, "dst")
    s_addr, skeep = _resolve(_Side(src, sp), sside, w, h, 1, False, call, "src")
    copy_rect(queue, d_addr, dp, 0, s_addr, sp, 0, w, h, 1, call)
    del dkeep, skeep
    return cudaSuccess


def cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind):
    """cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind): `height` rows
    of `width` bytes, rows dpitch/spitch bytes apart.  Waits, as cudaMemcpy.

    width over a pitch (height > 1) gives cudaErrorInvalidPitchValue; a bad
    kind cudaErrorInvalidMemcpyDirection; a rectangle past its allocation or
    host buffer cudaErrorInvalidValue."""
    return _memcpy2d(dst, dpitch, src, spitch, width, height, kind, None, "cudaMemcpy2D")


def cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream=0):
    """cudaMemcpy2DAsync(..., kind, stream=0): cudaMemcpy2D in stream order.
    Returns once the copy is done (see the module's doc)."""
    return _memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, "cudaMemcpy2DAsync")


def _byte(value, call):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        E.fail(E.cudaErrorInvalidValue, f"value must be an int, not {type(value).__name__}", call)
    return int(value) & 0xFF     # as C's conversion to unsigned char


def _device_only(obj, call, what):
    addr = device_address(obj)
    if addr is None or addr == 0 or not is_device_address(addr):
        E.fail(E.cudaErrorInvalidValue, f"{what} is not device memory", call)


def _memset2d(devPtr, pitch, value, width, height, stream, call):
    p, w, h = _count(pitch, call, "pitch"), _count(width, call, "width"), _count(height, call, "height")
    v = _byte(value, call)
    if h > 1 and w > p:
        E.fail(E.cudaErrorInvalidValue, f"width {w} is more than the pitch {p}", call)
    queue = _queue(stream, call)
    E.check_sticky(call)
    if w == 0 or h == 0:
        return cudaSuccess
    _device_only(devPtr, call, "devPtr")
    addr, _ = _resolve(_Side(devPtr, p), "device", w, h, 1, True, call, "devPtr")
    fill_rect(queue, addr, p, 0, v, w, h, 1, call)
    return cudaSuccess


def cudaMemset2D(devPtr, pitch, value, width, height):
    """cudaMemset2D(devPtr, pitch, value, width, height): set `height` rows of
    `width` bytes to the byte `value`; the bytes between rows are left alone.
    width over the pitch (height > 1) gives cudaErrorInvalidValue, as on an H100."""
    return _memset2d(devPtr, pitch, value, width, height, None, "cudaMemset2D")


def cudaMemset2DAsync(devPtr, pitch, value, width, height, stream=0):
    """cudaMemset2DAsync(devPtr, pitch, value, width, height, stream=0)."""
    return _memset2d(devPtr, pitch, value, width, height, stream, "cudaMemset2DAsync")


# ---- 3-D ----

def _pitched(pp, call, what):
    if not isinstance(pp, cudaPitchedPtr):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be a cudaPitchedPtr, not {type(pp).__name__}",
               call)
    return _count(pp.pitch, call, f"{what}.pitch"), _count(pp.ysize, call, f"{what}.ysize")


def _pos(pos, call, what):
    if not isinstance(pos, cudaPos):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be a cudaPos, not {type(pos).__name__}", call)
    return (_count(pos.x, call, f"{what}.x"), _count(pos.y, call, f"{what}.y"),
            _count(pos.z, call, f"{what}.z"))


def _memcpy3d(p, stream, call):
    if not isinstance(p, cudaMemcpy3DParms):
        E.fail(E.cudaErrorInvalidValue, f"p must be a cudaMemcpy3DParms, not {type(p).__name__}",
               call)
    if p.srcArray is not None or p.dstArray is not None:
        return _memcpy3d_arrays(p, stream, call)
    w, h, d = _extent(p.extent, call)
    spitch, sys_ = _pitched(p.srcPtr, call, "srcPtr")
    dpitch, dys = _pitched(p.dstPtr, call, "dstPtr")
    spos, dpos = _pos(p.srcPos, call, "srcPos"), _pos(p.dstPos, call, "dstPos")
    dside, sside = _sides(p.dstPtr.ptr, p.srcPtr.ptr, p.kind, call)
    queue = _queue(stream, call)
    E.check_sticky(call)
    if w == 0 or h == 0 or d == 0:
        return cudaSuccess
    # the H100's codes: the source's pitch and height are "invalid pitch", the
    # destination's width "invalid value"
    if (h > 1 or d > 1) and spos[0] + w > spitch:
        E.fail(E.cudaErrorInvalidPitchValue, f"width {w} from byte {spos[0]} is more than the "
               f"source's pitch {spitch}", call)
    if d > 1 and spos[1] + h > sys_:
        E.fail(E.cudaErrorInvalidPitchValue, f"{h} rows from row {spos[1]} are more than the "
               f"source's ysize {sys_}", call)
    if dpos[0] + w > dpitch:
        E.fail(E.cudaErrorInvalidValue, f"width {w} from byte {dpos[0]} is more than the "
               f"destination's pitch {dpitch}", call)
    if d > 1 and dpos[1] + h > dys:
        E.fail(E.cudaErrorInvalidValue, f"{h} rows from row {dpos[1]} are more than the "
               f"destination's ysize {dys}", call)
    for what, obj in (("srcPtr.ptr", p.srcPtr.ptr), ("dstPtr.ptr", p.dstPtr.ptr)):
        if device_address(obj) == 0:
            E.fail(E.cudaErrorInvalidValue, f"{what} is NULL", call)
    dst = _Side(p.dstPtr.ptr, dpitch, dys, dpos)
    src = _Side(p.srcPtr.ptr, spitch, sys_, spos)
    d_addr, dkeep = _resolve(dst, dside, w, h, d, True, call, "dstPtr.ptr")
    s_addr, skeep = _resolve(src, sside, w, h, d, False, call, "srcPtr.ptr")
    copy_rect(queue, d_addr, dpitch, dst.slice, s_addr, spitch, src.slice, w, h, d, call)
    del dkeep, skeep
    return cudaSuccess


def _ptr_given(pp) -> bool:
    return isinstance(pp, cudaPitchedPtr) and pp.ptr is not None and device_address(pp.ptr) != 0


def _memcpy3d_arrays(p, stream, call):
    """cudaMemcpy3D with a CUDA array on one side or both: the extent and an
    array's position in elements of the array, a pointer's position in bytes
    (as CUDA); codes as an H100 answers (tests/data/ground_truth/array3d_h100.json)."""
    from .array import check_array
    sides = {}
    for what, arr, pp in (("src", p.srcArray, p.srcPtr), ("dst", p.dstArray, p.dstPtr)):
        if arr is not None and _ptr_given(pp):
            E.fail(E.cudaErrorInvalidValue, f"{what}Array and {what}Ptr are both set: one side is "
                   "an array or a pointer, not both", call)
        if arr is None and not _ptr_given(pp):
            E.fail(E.cudaErrorInvalidValue, f"neither {what}Array nor {what}Ptr is set", call)
        sides[what] = check_array(arr, call) if arr is not None else None
    try:
        kind = cudaMemcpyKind(int(p.kind))
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidMemcpyDirection, f"kind {p.kind!r} is not a cudaMemcpyKind", call)
    w, h, d = _extent(p.extent, call)
    sa, da = sides["src"], sides["dst"]
    elem = (sa or da).elem
    if sa is not None and da is not None and sa.elem != da.elem:
        E.fail(E.cudaErrorInvalidValue, f"the arrays' elements differ ({sa.elem} and {da.elem} "
               "bytes)", call)
    is_dev = {"src": sa is not None or _is_dev(p.srcPtr.ptr),
              "dst": da is not None or _is_dev(p.dstPtr.ptr)}
    want = {(True, True): cudaMemcpyKind.cudaMemcpyDeviceToDevice,
            (False, True): cudaMemcpyKind.cudaMemcpyHostToDevice,
            (True, False): cudaMemcpyKind.cudaMemcpyDeviceToHost,
            (False, False): cudaMemcpyKind.cudaMemcpyHostToHost}[(is_dev["src"], is_dev["dst"])]
    if kind not in (want, cudaMemcpyKind.cudaMemcpyDefault):
        E.fail(E.cudaErrorInvalidValue, f"{kind.name} does not match the sides of the copy "
               f"({want.name})", call)
    queue = _queue(stream, call)
    E.check_sticky(call)
    if w == 0 or h == 0 or d == 0:
        return cudaSuccess
    wb = w * elem
    where = {}
    keep = []
    for what, arr, pp, pos in (("src", sa, p.srcPtr, p.srcPos), ("dst", da, p.dstPtr, p.dstPos)):
        x, y, z = _pos(pos, call, f"{what}Pos")
        if arr is not None:
            layers = max(arr.depth, 1)
            if x + w > arr.width or y + h > arr.rows or z + d > layers:
                E.fail(E.cudaErrorInvalidValue,
                       f"{w} x {h} x {d} elements from ({x}, {y}, {z}) run past the "
                       f"{arr.width} x {arr.rows} x {layers} {what} array", call)
            where[what] = (arr.addr + z * arr.slice + y * arr.pitch + x * elem, arr.pitch,
                           arr.slice)
            continue
        pitch, ysize = _pitched(pp, call, f"{what}Ptr")
        if x + wb > pitch:
            E.fail(E.cudaErrorInvalidValue, f"{w} elements ({wb} bytes) from byte {x} are more "
                   f"than {what}Ptr's pitch {pitch}", call)
        if d > 1 and y + h > ysize:
            E.fail(E.cudaErrorInvalidPitchValue if what == "src" else E.cudaErrorInvalidValue,
                   f"{h} rows from row {y} are more than {what}Ptr's ysize {ysize}", call)
        side = _Side(pp.ptr, pitch, ysize, (x, y, z))
        addr, k = _resolve(side, "device" if is_dev[what] else "host", wb, h, d, what == "dst",
                           call, f"{what}Ptr.ptr")
        keep.append(k)
        where[what] = (addr, pitch, side.slice)
    (s_addr, spitch, sslice), (d_addr, dpitch, dslice) = where["src"], where["dst"]
    copy_rect(queue, d_addr, dpitch, dslice, s_addr, spitch, sslice, wb, h, d, call)
    del keep
    return cudaSuccess


def _is_dev(obj) -> bool:
    addr = device_address(obj)
    return addr is not None and addr != 0 and is_device_address(addr)


def cudaMemcpy3D(p):
    """cudaMemcpy3D(p): copy p.extent from p.srcPtr or p.srcArray at p.srcPos to
    p.dstPtr or p.dstArray at p.dstPos.  Between pointers the extent's width
    and the positions' x are bytes and a slice is pitch * ysize bytes; where a
    CUDA array takes part, the extent is in elements of the array, an array's
    position in elements and a pointer's in bytes (as CUDA).  A layered array's
    layers (a cubemap's faces) are its depth.  Waits, as cudaMemcpy."""
    return _memcpy3d(p, None, "cudaMemcpy3D")


def cudaMemcpy3DAsync(p, stream=0):
    """cudaMemcpy3DAsync(p, stream=0): cudaMemcpy3D in stream order."""
    return _memcpy3d(p, stream, "cudaMemcpy3DAsync")


def _memset3d(pitchedDevPtr, value, extent, stream, call):
    pitch, ysize = _pitched(pitchedDevPtr, call, "pitchedDevPtr")
    v = _byte(value, call)
    w, h, d = _extent(extent, call)
    queue = _queue(stream, call)
    E.check_sticky(call)
    if w == 0 or h == 0 or d == 0:
        return cudaSuccess
    if (h > 1 or d > 1) and w > pitch:
        E.fail(E.cudaErrorInvalidValue, f"width {w} is more than the pitch {pitch}", call)
    if d > 1 and h > ysize:
        E.fail(E.cudaErrorInvalidValue, f"{h} rows are more than the slice's ysize {ysize}", call)
    _device_only(pitchedDevPtr.ptr, call, "pitchedDevPtr.ptr")
    side = _Side(pitchedDevPtr.ptr, pitch, ysize)
    addr, _ = _resolve(side, "device", w, h, d, True, call, "pitchedDevPtr.ptr")
    fill_rect(queue, addr, pitch, side.slice, v, w, h, d, call)
    return cudaSuccess


def cudaMemset3D(pitchedDevPtr, value, extent):
    """cudaMemset3D(pitchedDevPtr, value, extent): set the box to the byte `value`."""
    return _memset3d(pitchedDevPtr, value, extent, None, "cudaMemset3D")


def cudaMemset3DAsync(pitchedDevPtr, value, extent, stream=0):
    """cudaMemset3DAsync(pitchedDevPtr, value, extent, stream=0)."""
    return _memset3d(pitchedDevPtr, value, extent, stream, "cudaMemset3DAsync")


__all__ = ["cudaMallocPitch", "cudaMalloc3D", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemset2D",
           "cudaMemset2DAsync", "cudaMemcpy3D", "cudaMemcpy3DAsync", "cudaMemset3D",
           "cudaMemset3DAsync"]
