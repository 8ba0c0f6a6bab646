"""The image descriptor both facades hand to kernels: a CUDA texture or
surface object and an OpenCL image are the device address of one
`pyemu_image` (include/pyemu/detail/sampler.h), 128 bytes this module packs.

Kernels read it like any device memory, so a destroyed object's descriptor
(freed here) faults as a use after free naming the call that freed it.
Copies between host memory and images run synchronously through host views
of device memory: `copy_rect` is the one function that does them.
"""
from __future__ import annotations

import struct

from . import core as _core
from . import rect as _rect
from . import sync as _sync
from . import views as _views
from .core import ffi, lib

MAGIC = 0x54584D31
SIZE = 128
# magic dims kind channels bytes flags address[3] cl_order | data width height depth pitch slice
# | border[4] | cl_type swizzle | size reserved
_FMT = struct.Struct("<6I3II6Q4f2I2Q")
assert _FMT.size == SIZE

KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT = 0, 1, 2
ADDR_WRAP, ADDR_CLAMP, ADDR_MIRROR, ADDR_BORDER = 0, 1, 2, 3
LINEAR_MEMORY, READ_NORMALIZED, NORM_COORDS, FILTER_LINEAR, SURFACE, NORM_FORMAT, OPENCL = \
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40
LAYERED, CUBEMAP = 0x80, 0x100     # depth counts layers (a cubemap's: faces)


def pack(*, dims, kind, channels, nbytes, flags=0, address=(1, 1, 1), data=0, width=1,
         height=1, depth=1, pitch=0, slice_=0, border=(0.0, 0.0, 0.0, 0.0), cl_order=0,
         cl_type=0, swizzle=0, size=0) -> bytes:
    """The 128 bytes of a pyemu_image."""
    return _FMT.pack(MAGIC, dims, kind, channels, nbytes, flags, *address, cl_order, data,
                     width, height, depth, pitch, slice_, *[float(b) for b in border],
                     cl_type, swizzle, size, 0)


def alloc(nbytes: int) -> int:
    """nbytes of zeroed device memory (raises CoreError)."""
    _core.ensure_started()
    addr = ffi.new("unsigned long long *")
    _core.check(lib.pyemu_mem_alloc(max(int(nbytes), 1), addr))
    return addr[0]


def write(addr: int, blob: bytes, offset: int = 0) -> None:
    """Write blob at device address addr + offset (the host's view of device memory)."""
    ffi.memmove(ffi.cast("char *", addr + offset), blob, len(blob))


def free(addr: int, freed_by: bytes) -> int:
    """Free device memory after all work that may use it (the core's status)."""
    _sync.wait_device()
    return _views.free(addr, freed_by)


def copy_rect(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int,
              depth: int = 1, dslice: int = 0, sslice: int = 0) -> None:
    """Copy a width x height x depth box of bytes between two addresses of
    this process (device memory or a host buffer's pointer), after the device
    finished its work: the engine's rectangle copy (runtime/rect.py) on the
    runtime's own queue.  Callers check every bound first (raises CoreError)."""
    _sync.wait_device()
    _rect.copy_rect(_rect.private_queue(), dst, dpitch, dslice, src, spitch, sslice,
                    width, height, depth)


def address_of(cdata) -> int:
    """The integer address of a cffi pointer (a host buffer's)."""
    return int(ffi.cast("uintptr_t", cdata))
