"""CUDA texture and surface objects: cudaCreateTextureObject with
cudaResourceDesc / cudaTextureDesc / cudaResourceViewDesc,
cudaDestroyTextureObject, cudaGetTextureObjectResourceDesc and
TextureDesc, cudaCreateSurfaceObject, cudaDestroySurfaceObject.

A texture or surface object (cudaTextureObject_t, an int) is the device
address of a 128-byte descriptor (pyemu/runtime/image.py) that the device
functions tex2D<T>, surf2Dwrite, ... read (include/pyemu/detail/cuda_texture.h);
sampling is the shared sampler's (detail/sampler.h).  The descriptors
copy the resource's layout when the object is made; destroying the object
frees its descriptor, so a kernel that still uses it faults (use after free).
Error codes follow CUDA 13.0 on an H100 (tests/data/ground_truth/texture_h100.json).
"""
from __future__ import annotations

import copy
import operator
import threading
from enum import IntEnum

from ..runtime import image as _img
from ..runtime.core import CoreError
from . import _errors as E
from ._errors import cudaSuccess
from ._memory import allocation_of, device_address, is_device_address
from .array import (channel_format, check_array, cudaArrayCubemap, cudaArrayLayered,
                    cudaArraySurfaceLoadStore, cudaChannelFormatDesc)


class cudaResourceType(IntEnum):
    cudaResourceTypeArray = 0
    cudaResourceTypeMipmappedArray = 1
    cudaResourceTypeLinear = 2
    cudaResourceTypePitch2D = 3


class cudaTextureAddressMode(IntEnum):
    cudaAddressModeWrap = 0
    cudaAddressModeClamp = 1
    cudaAddressModeMirror = 2
    cudaAddressModeBorder = 3


class cudaTextureFilterMode(IntEnum):
    cudaFilterModePoint = 0
    cudaFilterModeLinear = 1


class cudaTextureReadMode(IntEnum):
    cudaReadModeElementType = 0
    cudaReadModeNormalizedFloat = 1


class cudaSurfaceBoundaryMode(IntEnum):
    cudaBoundaryModeZero = 0
    cudaBoundaryModeClamp = 1
    cudaBoundaryModeTrap = 2


cudaResViewFormatNone = 0
# the H100's limits: texturePitchAlignment, maxTexture1DLinear
PITCH_ALIGNMENT = 32
MAX_1D_LINEAR = 1 << 28
# pyemu's allocations start 256-byte aligned: a linear or pitch2D resource must too
TEXTURE_ALIGNMENT = 256


class _Array:
    __slots__ = ("array",)

    def __init__(self):
        self.array = None


class _Linear:
    __slots__ = ("devPtr", "desc", "sizeInBytes")

    def __init__(self):
        self.devPtr, self.desc, self.sizeInBytes = 0, cudaChannelFormatDesc(), 0


class _Pitch2D:
    __slots__ = ("devPtr", "desc", "width", "height", "pitchInBytes")

    def __init__(self):
        self.devPtr, self.desc = 0, cudaChannelFormatDesc()
        self.width = self.height = self.pitchInBytes = 0


class _Res:
    __slots__ = ("array", "linear", "pitch2D")

    def __init__(self):
        self.array, self.linear, self.pitch2D = _Array(), _Linear(), _Pitch2D()


class cudaResourceDesc:
    """cudaResourceDesc: resType and the union res (res.array.array,
    res.linear.devPtr/desc/sizeInBytes, res.pitch2D.devPtr/desc/width/height/
    pitchInBytes), filled field by field as in C."""

    def __init__(self, resType=cudaResourceType.cudaResourceTypeArray):
        self.resType = resType
        self.res = _Res()
        self.flags = 0

    def __repr__(self):
        return f"cudaResourceDesc(resType={self.resType!r})"


class cudaTextureDesc:
    """cudaTextureDesc with CUDA's fields and defaults (all zero)."""

    def __init__(self):
        self.addressMode = [0, 0, 0]
        self.filterMode = 0
        self.readMode = 0
        self.sRGB = 0
        self.borderColor = [0.0, 0.0, 0.0, 0.0]
        self.normalizedCoords = 0
        self.maxAnisotropy = 0
        self.mipmapFilterMode = 0
        self.mipmapLevelBias = 0.0
        self.minMipmapLevelClamp = 0.0
        self.maxMipmapLevelClamp = 0.0
        self.disableTrilinearOptimization = 0
        self.seamlessCubemap = 0


class cudaResourceViewDesc:
    """cudaResourceViewDesc; pyemu takes only format cudaResViewFormatNone."""

    def __init__(self):
        self.format = cudaResViewFormatNone
        self.width = self.height = self.depth = 0
        self.firstMipmapLevel = self.lastMipmapLevel = 0
        self.firstLayer = self.lastLayer = 0


_lock = threading.Lock()
_objects = {}       # handle -> (kind, resDesc copy, texDesc copy, keep)


def _index(v, call, what):
    try:
        return operator.index(v)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {type(v).__name__}", call)


def _linear_memory(ptr, nbytes, call, what):
    addr = device_address(ptr)
    if addr is None or addr == 0 or not is_device_address(addr):
        E.fail(E.cudaErrorInvalidValue, f"{what} is not device memory", call)
    if addr % TEXTURE_ALIGNMENT:
        E.fail(E.cudaErrorInvalidValue, f"{what} 0x{addr:x} is not {TEXTURE_ALIGNMENT}-byte "
               "aligned", call)
    alloc = allocation_of(addr)
    if alloc is None or addr + nbytes > alloc[0] + alloc[1]:
        E.fail(E.cudaErrorInvalidValue, f"{nbytes} bytes at {what} 0x{addr:x} run past its "
               "allocation", call)
    return addr


def _array_flags(arr) -> int:
    """The descriptor flags a layered or cubemap array gives its textures and surfaces."""
    return ((_img.LAYERED if arr.flags & cudaArrayLayered else 0) |
            (_img.CUBEMAP if arr.flags & cudaArrayCubemap else 0))


def _resource(res, call, surface=False):
    """The layout a resource describes: dict for runtime.image.pack, and what it keeps alive."""
    if res is None:
        E.fail(E.cudaErrorInvalidValue, "pResDesc is NULL", call)
    try:
        rtype = cudaResourceType(_index(res.resType, call, "resType"))
    except (ValueError, AttributeError):
        E.fail(E.cudaErrorInvalidValue, f"resType {getattr(res, 'resType', None)!r} is not a "
               "cudaResourceType", call)
    if rtype == cudaResourceType.cudaResourceTypeArray:
        arr = res.res.array.array
        if arr is None or (isinstance(arr, int) and arr == 0):
            E.fail(E.cudaErrorInvalidResourceHandle, "res.array.array is NULL", call)
        arr = check_array(arr, call)
        if surface and not arr.flags & cudaArraySurfaceLoadStore:
            E.fail(E.cudaErrorInvalidResourceHandle, "the array was not made with "
                   "cudaArraySurfaceLoadStore", call)
        return dict(dims=arr.dims, kind=arr.kind, channels=arr.channels, nbytes=arr.bytes,
                    data=arr.addr, width=arr.width, height=max(arr.height, 1),
                    depth=max(arr.depth, 1), pitch=arr.pitch, slice_=arr.slice,
                    size=arr.nbytes), _array_flags(arr), arr
    if surface:
        E.fail(E.cudaErrorInvalidValue, "a surface object is made from a CUDA array", call)
    if rtype == cudaResourceType.cudaResourceTypeLinear:
        lin = res.res.linear
        kind, n, b = channel_format(lin.desc, call)
        size = _index(lin.sizeInBytes, call, "res.linear.sizeInBytes")
        if size < 0 or size // (n * b) > MAX_1D_LINEAR:
            E.fail(E.cudaErrorInvalidValue, f"sizeInBytes {size} is over the device's limit of "
                   f"{MAX_1D_LINEAR} elements", call)
        addr = _linear_memory(lin.devPtr, size, call, "res.linear.devPtr")
        return dict(dims=1, kind=kind, channels=n, nbytes=b, data=addr, width=size // (n * b),
                    height=1, depth=1, pitch=size, slice_=size, size=size), _img.LINEAR_MEMORY, None
    if rtype == cudaResourceType.cudaResourceTypePitch2D:
        p = res.res.pitch2D
        kind, n, b = channel_format(p.desc, call)
        w, h = _index(p.width, call, "width"), _index(p.height, call, "height")
        pitch = _index(p.pitchInBytes, call, "pitchInBytes")
        if w < 0 or h < 0 or pitch % PITCH_ALIGNMENT or pitch < w * n * b:
            E.fail(E.cudaErrorInvalidValue, f"pitch {pitch} must be a multiple of "
                   f"{PITCH_ALIGNMENT} and at least the row's {w * n * b} bytes", call)
        span = pitch * (h - 1) + w * n * b if w and h else 0
        addr = _linear_memory(p.devPtr, span, call, "res.pitch2D.devPtr")
        return dict(dims=2, kind=kind, channels=n, nbytes=b, data=addr, width=w, height=h,
                    depth=1, pitch=pitch, slice_=pitch * h, size=span), 0, None
    E.fail(E.cudaErrorNotSupported, "mipmapped arrays are not supported by pyemu", call)


def _new_descriptor(blob, call) -> int:
    try:
        addr = _img.alloc(_img.SIZE)
    except CoreError as exc:
        E.raise_core(exc, call)
    _img.write(addr, blob)
    return addr


def cudaCreateTextureObject(pResDesc, pTexDesc, pResViewDesc=None) -> int:
    """cudaCreateTextureObject(pResDesc, pTexDesc, pResViewDesc=None) -> cudaTextureObject_t.

    Differs from CUDA: mipmaps, sRGB, anisotropy and resource views with a
    format are not supported (cudaErrorNotSupported); a linear or pitch2D
    resource must start 256-byte aligned."""
    call = "cudaCreateTextureObject"
    if pTexDesc is None:
        E.fail(E.cudaErrorInvalidResourceHandle, "pTexDesc is NULL", call)
    layout, flags, keep = _resource(pResDesc, call)
    td = pTexDesc
    try:
        modes = [cudaTextureAddressMode(_index(m, call, "addressMode")) for m in list(td.addressMode)[:3]]
        fmode = cudaTextureFilterMode(_index(td.filterMode, call, "filterMode"))
        rmode = cudaTextureReadMode(_index(td.readMode, call, "readMode"))
        border = [float(c) for c in list(td.borderColor)[:4]]
        norm = bool(td.normalizedCoords)
    except (ValueError, TypeError, AttributeError) as exc:
        E.fail(E.cudaErrorInvalidValue, f"pTexDesc: {exc}", call)
    if len(modes) != 3 or len(border) != 4:
        E.fail(E.cudaErrorInvalidValue, "addressMode has 3 entries and borderColor 4", call)
    if getattr(td, "sRGB", 0) or getattr(td, "maxAnisotropy", 0) > 1:
        E.fail(E.cudaErrorNotSupported, "sRGB and anisotropic filtering are not supported", call)
    if pResViewDesc is not None and getattr(pResViewDesc, "format", 0) != cudaResViewFormatNone:
        E.fail(E.cudaErrorNotSupported, "resource views with a format are not supported", call)
    kind, nbytes = layout["kind"], layout["nbytes"]
    if rmode == cudaTextureReadMode.cudaReadModeNormalizedFloat and (kind == _img.KIND_FLOAT or nbytes == 4):
        E.fail(E.cudaErrorInvalidNormSetting, "cudaReadModeNormalizedFloat reads 8- and 16-bit "
               "integer formats only", call)
    if fmode == cudaTextureFilterMode.cudaFilterModeLinear and kind != _img.KIND_FLOAT and \
            rmode == cudaTextureReadMode.cudaReadModeElementType and not flags & _img.LINEAR_MEMORY:
        E.fail(E.cudaErrorInvalidFilterSetting, "linear filtering of an integer format needs "
               "cudaReadModeNormalizedFloat", call)
    E.check_sticky(call)
    flags |= (_img.READ_NORMALIZED if rmode else 0) | (_img.NORM_COORDS if norm else 0) | \
        (_img.FILTER_LINEAR if fmode and not flags & _img.LINEAR_MEMORY else 0)
    blob = _img.pack(flags=flags, address=tuple(int(m) for m in modes), border=border, **layout)
    handle = _new_descriptor(blob, call)
    with _lock:
        _objects[handle] = ("texture", copy.deepcopy(pResDesc) if keep is None else
                            _shallow_res(pResDesc), copy.copy(td), keep)
    return handle


def _shallow_res(res):
    r = cudaResourceDesc(res.resType)
    r.res.array.array = res.res.array.array
    return r


def _lookup(obj, kind, call):
    h = _index(obj, call, "the object")
    with _lock:
        entry = _objects.get(h)
    if entry is None or entry[0] != kind:
        E.fail(E.cudaErrorInvalidValue, f"0x{h:x} is not a live {kind} object", call)
    return h, entry


def _destroy(obj, kind, call):
    if isinstance(obj, int) and obj == 0:
        return cudaSuccess
    h, _ = _lookup(obj, kind, call)
    with _lock:
        _objects.pop(h, None)
    try:
        _img.free(h, call.encode())
    except CoreError as exc:
        E.raise_core(exc, call)
    return cudaSuccess


def cudaDestroyTextureObject(texObject):
    """cudaDestroyTextureObject(texObject): 0 does nothing, as on the GPU."""
    return _destroy(texObject, "texture", "cudaDestroyTextureObject")


def cudaGetTextureObjectResourceDesc(texObject) -> cudaResourceDesc:
    """cudaGetTextureObjectResourceDesc(texObject) -> the resource it was made from."""
    _, entry = _lookup(texObject, "texture", "cudaGetTextureObjectResourceDesc")
    return _shallow_res(entry[1]) if entry[3] is not None else copy.deepcopy(entry[1])


def cudaGetTextureObjectTextureDesc(texObject) -> cudaTextureDesc:
    """cudaGetTextureObjectTextureDesc(texObject) -> its cudaTextureDesc."""
    _, entry = _lookup(texObject, "texture", "cudaGetTextureObjectTextureDesc")
    return copy.copy(entry[2])


def cudaCreateSurfaceObject(pResDesc) -> int:
    """cudaCreateSurfaceObject(pResDesc) -> cudaSurfaceObject_t, for an array made
    with cudaArraySurfaceLoadStore (else cudaErrorInvalidResourceHandle, as on the GPU)."""
    call = "cudaCreateSurfaceObject"
    layout, flags, keep = _resource(pResDesc, call, surface=True)
    E.check_sticky(call)
    blob = _img.pack(flags=_img.SURFACE | flags, **layout)
    handle = _new_descriptor(blob, call)
    with _lock:
        _objects[handle] = ("surface", _shallow_res(pResDesc), None, keep)
    return handle


def cudaDestroySurfaceObject(surfObject):
    """cudaDestroySurfaceObject(surfObject): 0 does nothing."""
    return _destroy(surfObject, "surface", "cudaDestroySurfaceObject")


def cudaGetSurfaceObjectResourceDesc(surfObject) -> cudaResourceDesc:
    """cudaGetSurfaceObjectResourceDesc(surfObject) -> the resource it was made from."""
    _, entry = _lookup(surfObject, "surface", "cudaGetSurfaceObjectResourceDesc")
    return _shallow_res(entry[1])


for _e in (cudaResourceType, cudaTextureAddressMode, cudaTextureFilterMode, cudaTextureReadMode,
           cudaSurfaceBoundaryMode):
    globals().update(_e.__members__)

__all__ = ["cudaResourceType", "cudaTextureAddressMode", "cudaTextureFilterMode",
           "cudaTextureReadMode", "cudaSurfaceBoundaryMode", "cudaResourceDesc", "cudaTextureDesc",
           "cudaResourceViewDesc", "cudaResViewFormatNone", "cudaCreateTextureObject",
           "cudaDestroyTextureObject", "cudaGetTextureObjectResourceDesc",
           "cudaGetTextureObjectTextureDesc", "cudaCreateSurfaceObject", "cudaDestroySurfaceObject",
           "cudaGetSurfaceObjectResourceDesc"]
for _e in (cudaResourceType, cudaTextureAddressMode, cudaTextureFilterMode, cudaTextureReadMode,
           cudaSurfaceBoundaryMode):
    __all__ += list(_e.__members__)
