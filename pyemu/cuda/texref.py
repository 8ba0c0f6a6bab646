"""Texture references (removed from CUDA 12, kept for the course's slides and
Rodinia): mod.get_texref(name), cudaBindTexture, cudaBindTexture2D,
cudaBindTextureToArray, cudaUnbindTexture.

A file-scope `texture<T, dim, readMode> texRef;` in a kernel source is a
128-byte pyemu_image in the loaded module (include/pyemu/detail/cuda_texture.h);
SourceModule.get_texref finds it in that module instance's symbol table
(csrc/symbols.c), so every module instance has references of its own.  Binding writes the descriptor there (after
the device finished its work), with the reference's addressMode, filterMode,
normalized and channelDesc as they are at that moment; changing one of them
on a bound reference writes the descriptor again.  A kernel that fetches
from a reference that is not bound fails with cudaErrorLaunchFailure (GPUs
of that era reported cudaErrorTextureNotBound).
"""
from __future__ import annotations

import struct

from ..runtime import image as _img
from ..runtime import sync as _sync
from ..runtime.core import ffi
from . import _errors as E
from ._errors import cudaSuccess
from ._memory import allocation_of, device_address, is_device_address
from .array import channel_format, check_array, cudaChannelFormatDesc
from .symbols import _symbols_of
from .texture import PITCH_ALIGNMENT, cudaTextureAddressMode, cudaTextureFilterMode


class textureReference:
    """A texture reference of a module (CUDA's textureReference): normalized,
    filterMode, addressMode[3], channelDesc, set before binding as in C."""

    def __init__(self, module, name, addr):
        object.__setattr__(self, "_module", module)     # keeps the module loaded
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_addr", addr)
        object.__setattr__(self, "_bound", None)
        self.normalized = 0
        self.filterMode = cudaTextureFilterMode.cudaFilterModePoint
        self.addressMode = [cudaTextureAddressMode.cudaAddressModeClamp] * 3
        self.channelDesc = _declared_format(addr)

    def __setattr__(self, key, value):
        object.__setattr__(self, key, value)
        if self._bound is not None and key in ("normalized", "filterMode", "addressMode"):
            self._write(self._bound)

    def __repr__(self):
        return f"<textureReference {self._name} {'bound' if self._bound else 'unbound'}>"

    def _write(self, layout):
        call = "cudaBindTexture"
        try:
            modes = [int(cudaTextureAddressMode(int(m))) for m in list(self.addressMode)[:3]]
            filt = int(cudaTextureFilterMode(int(self.filterMode)))
        except (TypeError, ValueError):
            E.fail(E.cudaErrorInvalidValue, "addressMode / filterMode of the reference", call)
        flags = layout.pop("flags", 0)
        flags |= (_img.NORM_COORDS if self.normalized else 0) | \
            (_img.FILTER_LINEAR if filt and not flags & _img.LINEAR_MEMORY else 0)
        blob = _img.pack(flags=flags, address=tuple(modes), **layout)
        layout["flags"] = flags & _img.LINEAR_MEMORY
        _sync.wait_device()
        _img.write(self._addr, blob)
        object.__setattr__(self, "_bound", layout)


def _declared_format(addr) -> cudaChannelFormatDesc:
    """The channel format of the reference's declared element type T, which
    the unbound descriptor holds (cudaCreateChannelDesc<T>(), as a
    texture<T, ...> is constructed with in CUDA); empty for an unknown T."""
    kind, n, nbytes = struct.unpack_from("<3I", ffi.buffer(ffi.cast("char *", addr + 8), 12))
    if n not in (1, 2, 4) or nbytes not in (1, 2, 4) or kind > 2:
        return cudaChannelFormatDesc()
    bits = [nbytes * 8 if i < n else 0 for i in range(4)]
    return cudaChannelFormatDesc(*bits, kind)


def texref_of(module, name) -> textureReference:
    """The module's `texture<...> name;` (SourceModule.get_texref): found in this
    module instance's symbol table (csrc/symbols.c), so two modules of one
    source have two references; cudaErrorInvalidTexture when there is none."""
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    if not isinstance(name, str):
        E.fail(E.cudaErrorInvalidTexture, f"a texture reference name is a str, not "
               f"{type(name).__name__}", "get_texref")
    table = _symbols_of(module)
    entry = table.by_name.get(name) or table.by_name.get(name.strip().lstrip(":"))
    if entry is None or entry[2] != _img.SIZE:
        E.fail(E.cudaErrorInvalidTexture, f"no texture reference '{name}' in the module",
               "get_texref")
    return textureReference(module, name, entry[1])


def _texref(texref, call) -> textureReference:
    if not isinstance(texref, textureReference):
        E.fail(E.cudaErrorInvalidTexture, f"{texref!r} is not a texture reference", call)
    return texref


def _linear(devPtr, nbytes, call):
    addr = device_address(devPtr)
    if addr is None or not addr or not is_device_address(addr):
        E.fail(E.cudaErrorInvalidValue, "devPtr is not device memory", call)
    alloc = allocation_of(addr)
    if alloc is None:
        E.fail(E.cudaErrorInvalidValue, "devPtr is not inside an allocation", call)
    return addr, alloc[0] + alloc[1] - addr


def cudaBindTexture(texref, devPtr, desc=None, size=0xFFFFFFFF) -> int:
    """cudaBindTexture(texref, devPtr, desc=None, size=UINT_MAX) -> offset (always 0:
    any address can be a texture's base here).  desc defaults to texref.channelDesc;
    the bound size is at most what is left of devPtr's allocation."""
    call = "cudaBindTexture"
    t = _texref(texref, call)
    addr, avail = _linear(devPtr, 0, call)
    desc = desc if desc is not None else t.channelDesc
    kind, n, b = channel_format(desc, call)
    size = min(int(size), avail)
    t.channelDesc = cudaChannelFormatDesc(desc.x, desc.y, desc.z, desc.w, desc.f)
    t._write(dict(dims=1, kind=kind, channels=n, nbytes=b, data=addr, width=size // (n * b),
                  height=1, depth=1, pitch=size, slice_=size, size=size,
                  flags=_img.LINEAR_MEMORY))
    return 0


def cudaBindTexture2D(texref, devPtr, desc, width, height, pitch) -> int:
    """cudaBindTexture2D(texref, devPtr, desc, width, height, pitch) -> offset (0)."""
    call = "cudaBindTexture2D"
    t = _texref(texref, call)
    kind, n, b = channel_format(desc, call)
    w, h, p = int(width), int(height), int(pitch)
    if w <= 0 or h <= 0 or p % PITCH_ALIGNMENT or p < w * n * b:
        E.fail(E.cudaErrorInvalidValue, f"{w} x {h} with pitch {p}: the pitch must be a multiple "
               f"of {PITCH_ALIGNMENT} and hold a row", call)
    addr, avail = _linear(devPtr, 0, call)
    if p * (h - 1) + w * n * b > avail:
        E.fail(E.cudaErrorInvalidValue, "the 2-D region runs past devPtr's allocation", call)
    t.channelDesc = cudaChannelFormatDesc(desc.x, desc.y, desc.z, desc.w, desc.f)
    t._write(dict(dims=2, kind=kind, channels=n, nbytes=b, data=addr, width=w, height=h,
                  depth=1, pitch=p, slice_=p * h, size=p * h))
    return 0


def cudaBindTextureToArray(texref, array, desc=None):
    """cudaBindTextureToArray(texref, array, desc=None)."""
    call = "cudaBindTextureToArray"
    t = _texref(texref, call)
    arr = check_array(array, call)
    t.channelDesc = cudaChannelFormatDesc(arr.desc.x, arr.desc.y, arr.desc.z, arr.desc.w,
                                          arr.desc.f)
    t._write(dict(dims=arr.dims, kind=arr.kind, channels=arr.channels, nbytes=arr.bytes,
                  data=arr.addr, width=arr.width, height=max(arr.height, 1),
                  depth=max(arr.depth, 1), pitch=arr.pitch, slice_=arr.slice, size=arr.nbytes))
    return cudaSuccess


def cudaUnbindTexture(texref):
    """cudaUnbindTexture(texref): later fetches fail the launch.  The
    reference keeps its dimension and channel format (its channelDesc)."""
    t = _texref(texref, "cudaUnbindTexture")
    _sync.wait_device()
    keep = bytes(ffi.buffer(ffi.cast("char *", t._addr + 4), 16))    # dims kind channels bytes
    ffi.memmove(ffi.cast("char *", t._addr), bytes(4) + keep + bytes(_img.SIZE - 20), _img.SIZE)
    object.__setattr__(t, "_bound", None)
    return cudaSuccess


__all__ = ["textureReference", "cudaBindTexture", "cudaBindTexture2D", "cudaBindTextureToArray",
           "cudaUnbindTexture"]
