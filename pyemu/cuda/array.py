"""CUDA arrays: channel descriptors, cudaMallocArray, cudaMalloc3DArray,
cudaFreeArray, cudaArrayGetInfo and the copies to and from arrays.

An array is device memory laid out row after row (no padding), element
(0, 0, 0) first; textures and surfaces read it through the shared sampler
(include/pyemu/detail/sampler.h).  The copies run synchronously (the device
finishes its work first), through one function, pyemu.runtime.image.copy_rect.
Error codes follow CUDA 13.0 on an H100 (tests/data/ground_truth/texture_h100.json).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..runtime import image as _img
from ..runtime.core import CoreError
from . import _errors as E
from ._errors import cudaSuccess
from ._memory import allocation_of, device_address, host_buffer, is_device_address
from ._types import cudaMemcpyKind


class cudaChannelFormatKind(IntEnum):
    cudaChannelFormatKindSigned = 0
    cudaChannelFormatKindUnsigned = 1
    cudaChannelFormatKindFloat = 2
    cudaChannelFormatKindNone = 3


cudaArrayDefault = 0x00
cudaArrayLayered = 0x01
cudaArraySurfaceLoadStore = 0x02
cudaArrayCubemap = 0x04
cudaArrayTextureGather = 0x08
_KNOWN_FLAGS = 0x0F

# the H100's limits (cudaDeviceProp maxTexture1D, maxTexture2D, maxTexture3D)
MAX_1D, MAX_2D, MAX_3D = 131072, (131072, 65536), 16384
MAX_LAYERED = (32768, 32768, 2048)          # maxTexture2DLayered (1-D layered: width, layers)
MAX_CUBEMAP, MAX_CUBEMAP_LAYERS = 32768, 2046


@dataclass
class cudaChannelFormatDesc:
    """cudaChannelFormatDesc: bits of each channel x, y, z, w and their kind f."""
    x: int = 0
    y: int = 0
    z: int = 0
    w: int = 0
    f: int = cudaChannelFormatKind.cudaChannelFormatKindNone


@dataclass
class cudaArrayExtent:
    """What cudaArrayGetInfo returns for the extent (the fields of cudaExtent)."""
    width: int = 0
    height: int = 0
    depth: int = 0


_DTYPE_KIND = {"i": cudaChannelFormatKind.cudaChannelFormatKindSigned,
               "u": cudaChannelFormatKind.cudaChannelFormatKindUnsigned,
               "f": cudaChannelFormatKind.cudaChannelFormatKindFloat}


def cudaCreateChannelDesc(x, y=None, z=0, w=0, f=None) -> cudaChannelFormatDesc:
    """cudaCreateChannelDesc(x, y, z, w, f): a channel descriptor, as in C.

    pyemu's form of the C++ template cudaCreateChannelDesc<T>(): a NumPy
    element type and a channel count, cudaCreateChannelDesc(np.float32) for
    float, cudaCreateChannelDesc(np.uint8, 4) for uchar4."""
    if f is None and not isinstance(x, (int, np.integer)):
        try:
            dt = np.dtype(x)
        except TypeError:
            E.fail(E.cudaErrorInvalidValue, f"{x!r} is neither a bit count nor a NumPy type",
                   "cudaCreateChannelDesc")
        n = 1 if y is None else y
        if dt.kind not in _DTYPE_KIND or n not in (1, 2, 4):
            E.fail(E.cudaErrorInvalidChannelDescriptor, f"no channel format for {n} x {dt}",
                   "cudaCreateChannelDesc")
        bits = dt.itemsize * 8
        b = [bits if i < n else 0 for i in range(4)]
        return cudaChannelFormatDesc(*b, _DTYPE_KIND[dt.kind])
    if f is None:
        E.fail(E.cudaErrorInvalidValue, "cudaCreateChannelDesc(x, y, z, w, f) needs the kind f",
               "cudaCreateChannelDesc")
    vals = []
    for name, v in (("x", x), ("y", 0 if y is None else y), ("z", z), ("w", w), ("f", f)):
        try:
            vals.append(operator.index(v))
        except TypeError:
            E.fail(E.cudaErrorInvalidValue, f"{name} must be an int, not {type(v).__name__}",
                   "cudaCreateChannelDesc")
    return cudaChannelFormatDesc(*vals)


def channel_format(desc, call):
    """(kind, channels, bytes a channel) of a valid descriptor;
    cudaErrorInvalidChannelDescriptor otherwise (as an H100 answers)."""
    try:
        bits = [operator.index(desc.x), operator.index(desc.y), operator.index(desc.z),
                operator.index(desc.w)]
        kind = operator.index(desc.f)
    except (AttributeError, TypeError):
        E.fail(E.cudaErrorInvalidValue, f"{desc!r} is not a cudaChannelFormatDesc", call)
    n = 0
    while n < 4 and bits[n]:
        n += 1
    ok = (n in (1, 2, 4) and all(b == 0 for b in bits[n:]) and all(b == bits[0] for b in bits[:n])
          and kind in (0, 1, 2)
          and (bits[0] in (8, 16, 32) if kind != 2 else bits[0] in (16, 32)))
    if not ok:
        E.fail(E.cudaErrorInvalidChannelDescriptor,
               f"channels of {bits} bits, kind {kind}: a format has 1, 2 or 4 channels of one "
               "size (8, 16 or 32 bits; 16 or 32 for float)", call)
    return kind, n, bits[0] // 8


class cudaArray:
    """A CUDA array (cudaArray_t): width x height x depth elements of one format."""

    def __init__(self, desc, width, height, depth, flags, addr):
        self.desc = cudaChannelFormatDesc(desc.x, desc.y, desc.z, desc.w, desc.f)
        self.kind, self.channels, self.bytes = channel_format(desc, "cudaMallocArray")
        self.elem = self.channels * self.bytes
        self.width, self.height, self.depth = width, height, depth   # as given (0 = unused)
        self.flags = flags
        self.addr = addr
        self.pitch = width * self.elem
        self.rows = max(height, 1)
        self.slice = self.pitch * self.rows
        self.nbytes = self.slice * max(depth, 1)
        self.alive = True

    @property
    def layered(self) -> bool:
        """Layered or cubemap: depth counts layers (faces), not a third dimension."""
        return bool(self.flags & (cudaArrayLayered | cudaArrayCubemap))

    @property
    def dims(self) -> int:
        if self.layered:
            return 2 if self.height else 1
        return 3 if self.depth else (2 if self.height else 1)

    def __repr__(self):
        return f"<cudaArray {self.width}x{self.height}x{self.depth} at 0x{self.addr:x}>"


def _int(v, call, what):
    try:
        n = operator.index(v)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {type(v).__name__}", call)
    if n < 0:
        E.fail(E.cudaErrorInvalidValue, f"{what} {n} is negative", call)
    return n


def _alloc_array(desc, w, h, d, flags, call) -> cudaArray:
    channel_format(desc, call)
    if flags & ~_KNOWN_FLAGS:
        E.fail(E.cudaErrorInvalidValue, f"flags 0x{flags:x} has unknown bits", call)
    if flags & (cudaArrayLayered | cudaArrayCubemap):
        _check_layered(w, h, d, flags, call)
    elif w == 0 or (d and not h):
        E.fail(E.cudaErrorInvalidValue, f"extent ({w}, {h}, {d}): the width (and, in 3-D, the "
               "height) must be at least 1", call)
    if flags & cudaArrayCubemap:
        over = w > MAX_CUBEMAP or d > 6 * MAX_CUBEMAP_LAYERS
    elif flags & cudaArrayLayered:
        over = (w > MAX_LAYERED[0] or h > MAX_LAYERED[1] or d > MAX_LAYERED[2])
    elif d:
        over = max(w, h, d) > MAX_3D
    elif h:
        over = w > MAX_2D[0] or h > MAX_2D[1]
    else:
        over = w > MAX_1D
    if over:
        E.fail(E.cudaErrorInvalidValue, f"extent ({w}, {h}, {d}) is over the device's array limits",
               call)
    E.check_sticky(call)
    arr = cudaArray(desc, w, h, d, flags, 0)
    try:
        arr.addr = _img.alloc(arr.nbytes)
    except CoreError as exc:
        E.raise_core(exc, call)
    return arr


def _check_layered(w, h, d, flags, call):
    """The extent of a layered or cubemap array, as an H100 checks it."""
    if w == 0 or d == 0:
        E.fail(E.cudaErrorInvalidValue, f"extent ({w}, {h}, {d}): a layered or cubemap array "
               "needs a width and a depth (its layers) of at least 1", call)
    if flags & cudaArrayCubemap:
        faces = "a multiple of 6" if flags & cudaArrayLayered else "6"
        if w != h or d % 6 or (not flags & cudaArrayLayered and d != 6):
            E.fail(E.cudaErrorInvalidValue, f"extent ({w}, {h}, {d}): a cubemap's faces are "
                   f"square (width == height) and its depth is {faces}", call)


def cudaMallocArray(desc, width, height=0, flags=0) -> cudaArray:
    """cudaMallocArray(desc, width, height=0, flags=0): a 1-D (height 0) or 2-D array.

    The memory starts zeroed.  Layered and cubemap arrays are made by
    cudaMalloc3DArray; those flags here are cudaErrorInvalidValue (as CUDA)."""
    call = "cudaMallocArray"
    f = _int(flags, call, "flags")
    if f & (cudaArrayLayered | cudaArrayCubemap):
        E.fail(E.cudaErrorInvalidValue, "cudaArrayLayered and cudaArrayCubemap arrays are made "
               "by cudaMalloc3DArray", call)
    return _alloc_array(desc, _int(width, call, "width"), _int(height, call, "height"), 0, f, call)


def _extent(extent, call):
    if isinstance(extent, (tuple, list)) and len(extent) == 3:
        w, h, d = extent
    else:
        try:
            w, h, d = extent.width, extent.height, extent.depth
        except AttributeError:
            E.fail(E.cudaErrorInvalidValue, f"{extent!r} is not a cudaExtent", call)
    return _int(w, call, "extent.width"), _int(h, call, "extent.height"), _int(d, call, "extent.depth")


def cudaMalloc3DArray(desc, extent, flags=0) -> cudaArray:
    """cudaMalloc3DArray(desc, extent, flags=0): extent is a cudaExtent (or a
    (width, height, depth) tuple); height 0 and depth 0 make a 1-D array,
    depth 0 a 2-D one.  With cudaArrayLayered the depth is the number of
    layers (height 0: layers of 1-D arrays); with cudaArrayCubemap the six
    faces (width == height, depth 6, or a multiple of 6 with
    cudaArrayLayered), in the order +x, -x, +y, -y, +z, -z."""
    call = "cudaMalloc3DArray"
    w, h, d = _extent(extent, call)
    return _alloc_array(desc, w, h, d, _int(flags, call, "flags"), call)


def check_array(arr, call) -> cudaArray:
    if not isinstance(arr, cudaArray):
        E.fail(E.cudaErrorInvalidResourceHandle, f"{arr!r} is not a cudaArray_t", call)
    if not arr.alive:
        E.fail(E.cudaErrorInvalidResourceHandle, "the array was freed (cudaFreeArray)", call)
    return arr


def cudaFreeArray(array):
    """cudaFreeArray(array): waits for the device, then frees; None does nothing.
    Textures still made from it read freed memory (a use-after-free fault)."""
    call = "cudaFreeArray"
    if array is None or (isinstance(array, int) and array == 0):
        return cudaSuccess
    arr = check_array(array, call)
    E.check_sticky(call)
    arr.alive = False
    try:
        _img.free(arr.addr, b"cudaFreeArray")
    except CoreError as exc:
        E.raise_core(exc, call)
    return cudaSuccess


def cudaArrayGetInfo(array) -> tuple:
    """cudaArrayGetInfo(array) -> (desc, extent, flags), as C fills them."""
    arr = check_array(array, "cudaArrayGetInfo")
    d = arr.desc
    return (cudaChannelFormatDesc(d.x, d.y, d.z, d.w, d.f),
            cudaArrayExtent(arr.width, arr.height, arr.depth), arr.flags)


# ---- copies ----

def _kind(kind, call, to_array):
    try:
        k = cudaMemcpyKind(operator.index(kind))
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidMemcpyDirection, f"kind {kind!r} is not a cudaMemcpyKind", call)
    ok = ((cudaMemcpyKind.cudaMemcpyHostToDevice, cudaMemcpyKind.cudaMemcpyDeviceToDevice,
           cudaMemcpyKind.cudaMemcpyDefault) if to_array else
          (cudaMemcpyKind.cudaMemcpyDeviceToHost, cudaMemcpyKind.cudaMemcpyDeviceToDevice,
           cudaMemcpyKind.cudaMemcpyDefault))
    if k not in ok:
        E.fail(E.cudaErrorInvalidMemcpyDirection, f"{k.name} cannot copy {'to' if to_array else 'from'} "
               "an array", call)
    return k


def _linear_side(obj, kind, nbytes, writable, call, what):
    """The address of the linear (non-array) side of a copy, nbytes of it checked."""
    addr = device_address(obj)
    device = addr is not None and addr != 0 and is_device_address(addr)
    host_kinds = (cudaMemcpyKind.cudaMemcpyHostToDevice, cudaMemcpyKind.cudaMemcpyDeviceToHost)
    if device:
        alloc = allocation_of(addr)
        if alloc is None or addr + nbytes > alloc[0] + alloc[1]:
            E.fail(E.cudaErrorInvalidValue, f"{what}: {nbytes} bytes at 0x{addr:x} run past its "
                   "allocation", call)
        return addr, None
    if kind not in host_kinds and kind != cudaMemcpyKind.cudaMemcpyDefault:
        E.fail(E.cudaErrorInvalidValue, f"{what} is not device memory but the kind says device", call)
    if addr is not None:
        E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is neither device memory nor a host buffer",
               call)
    try:
        ptr, size = host_buffer(obj, writable)
    except (TypeError, ValueError) as exc:
        E.fail(E.cudaErrorInvalidValue, f"{what}: {exc}", call)
    if nbytes > size:
        E.fail(E.cudaErrorInvalidValue, f"{what} holds {size} bytes; the copy spans {nbytes}", call)
    return _img.address_of(ptr), ptr


def _span(pitch, width, height):
    return 0 if height == 0 or width == 0 else pitch * (height - 1) + width


def _array_box(arr, w_off, h_off, width, height, call):
    if w_off + width > arr.pitch or h_off + height > arr.rows:
        E.fail(E.cudaErrorInvalidValue,
               f"{width} bytes x {height} rows at byte {w_off}, row {h_off} run past the array's "
               f"{arr.pitch} bytes x {arr.rows} rows", call)
    return arr.addr + h_off * arr.pitch + w_off


def array_copy(call, arr, w_off, h_off, other, opitch, width, height, kind, to_array):
    """The one function behind every copy to or from an array (2-D boxes)."""
    arr = check_array(arr, call)
    vals = [_int(v, call, n) for v, n in ((w_off, "wOffset"), (h_off, "hOffset"),
                                         (opitch, "pitch"), (width, "width"), (height, "height"))]
    w_off, h_off, opitch, width, height = vals
    k = _kind(kind, call, to_array)
    if height > 1 and opitch < width:
        E.fail(E.cudaErrorInvalidPitchValue, f"pitch {opitch} is less than the width {width}", call)
    E.check_sticky(call)
    a = _array_box(arr, w_off, h_off, width, height, call)
    o, keep = _linear_side(other, k, _span(opitch, width, height), not to_array, call,
                           "src" if to_array else "dst")
    if to_array:
        _img.copy_rect(a, arr.pitch, o, opitch, width, height)
    else:
        _img.copy_rect(o, opitch, a, arr.pitch, width, height)
    del keep
    return cudaSuccess


def cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind):
    """cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind):
    width and wOffset in bytes.  Synchronous (the device finishes first)."""
    return array_copy("cudaMemcpy2DToArray", dst, wOffset, hOffset, src, spitch, width, height,
                      kind, True)


def cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind):
    """cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind)."""
    return array_copy("cudaMemcpy2DFromArray", src, wOffset, hOffset, dst, dpitch, width, height,
                      kind, False)


def _linear_copy(call, arr, w_off, h_off, other, count, kind, to_array):
    """cudaMemcpyToArray/FromArray: count bytes from (wOffset, hOffset), row after row."""
    arr = check_array(arr, call)
    w_off, h_off, count = (_int(w_off, call, "wOffset"), _int(h_off, call, "hOffset"),
                           _int(count, call, "count"))
    k = _kind(kind, call, to_array)
    E.check_sticky(call)
    start = h_off * arr.pitch + w_off
    if w_off > arr.pitch or start + count > arr.pitch * arr.rows:
        E.fail(E.cudaErrorInvalidValue, f"{count} bytes from byte {w_off} of row {h_off} run past "
               f"the array's {arr.pitch * arr.rows} bytes", call)
    if count == 0:
        return cudaSuccess
    o, keep = _linear_side(other, k, count, not to_array, call, "src" if to_array else "dst")
    if to_array:
        _img.copy_rect(arr.addr + start, count, o, count, count, 1)
    else:
        _img.copy_rect(o, count, arr.addr + start, count, count, 1)
    del keep
    return cudaSuccess


def cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind):
    """cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind) (deprecated in CUDA):
    count bytes into the array from byte wOffset of row hOffset on, row after row."""
    return _linear_copy("cudaMemcpyToArray", dst, wOffset, hOffset, src, count, kind, True)


def cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind):
    """cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind) (deprecated in CUDA)."""
    return _linear_copy("cudaMemcpyFromArray", src, wOffset, hOffset, dst, count, kind, False)


def array_copy_3d(call, arr, pos, other, opitch, oheight, extent, kind, to_array):
    """A box of a 3-D array to or from pitched linear memory (for cudaMemcpy3D):
    pos and extent in elements of the array, except extent.width, in bytes
    when the other side is linear memory (as cudaMemcpy3D has it)."""
    arr = check_array(arr, call)
    k = _kind(kind, call, to_array)
    x, y, z = pos
    wb, h, d = extent
    if x * arr.elem + wb > arr.pitch or y + h > arr.rows or z + d > max(arr.depth, 1):
        E.fail(E.cudaErrorInvalidValue, "the box runs past the array", call)
    if h > 1 and opitch < wb:
        E.fail(E.cudaErrorInvalidPitchValue, f"pitch {opitch} is less than the width {wb}", call)
    E.check_sticky(call)
    oslice = opitch * max(oheight, h)
    span = 0 if not (wb and h and d) else oslice * (d - 1) + _span(opitch, wb, h)
    o, keep = _linear_side(other, k, span, not to_array, call, "src" if to_array else "dst")
    a = arr.addr + z * arr.slice + y * arr.pitch + x * arr.elem
    if to_array:
        _img.copy_rect(a, arr.pitch, o, opitch, wb, h, d, arr.slice, oslice)
    else:
        _img.copy_rect(o, opitch, a, arr.pitch, wb, h, d, oslice, arr.slice)
    del keep
    return cudaSuccess


globals().update(cudaChannelFormatKind.__members__)

__all__ = ["cudaChannelFormatKind", "cudaChannelFormatDesc", "cudaCreateChannelDesc", "cudaArray",
           "cudaMallocArray", "cudaMalloc3DArray", "cudaFreeArray", "cudaArrayGetInfo",
           "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray", "cudaMemcpyToArray",
           "cudaMemcpyFromArray", "cudaArrayDefault", "cudaArrayLayered",
           "cudaArraySurfaceLoadStore", "cudaArrayCubemap", "cudaArrayTextureGather"] + list(
    cudaChannelFormatKind.__members__)
