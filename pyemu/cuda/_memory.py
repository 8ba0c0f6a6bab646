"""Device pointers and host buffers: what the CUDA calls accept where C takes a pointer.

A device pointer is a DevicePointer (an int with byte arithmetic), a plain
int address, or managed memory (cudaMallocManaged).  A host buffer is any
object with the buffer protocol (NumPy arrays, bytes, bytearray, memoryview).
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..runtime.core import ffi, lib, region
from ..runtime.host import host_buffer  # noqa: F401 (the CUDA calls take it from here)


class DevicePointer(int):
    """What cudaMalloc returns: a device address that adds and subtracts bytes.

    `p + 16` is 16 bytes further on (as `(char*)p + 16` in C); `p - q` of two
    pointers is their distance in bytes."""

    __slots__ = ()

    def __add__(self, n):
        return DevicePointer(int(self) + int(n))

    __radd__ = __add__

    def __sub__(self, n):
        if isinstance(n, DevicePointer):
            return int(self) - int(n)
        return DevicePointer(int(self) - int(n))

    def __repr__(self):
        return f"DevicePointer(0x{int(self):x})"

    __str__ = __repr__


class ManagedArray(np.ndarray):
    """cudaMallocManaged(..., dtype=...): a NumPy array over unified memory,
    usable as a device pointer too (pass it to kernels, cudaMemcpy, cudaFree)."""

    _pyemu_devptr: int = 0

    def __array_finalize__(self, obj):
        self._pyemu_devptr = getattr(obj, "_pyemu_devptr", 0)

    @property
    def device_ptr(self) -> DevicePointer:
        """The device address of element 0 of this view."""
        return DevicePointer(self.__array_interface__["data"][0])


def managed_bytes(addr: int, size: int):
    """The bytes of unified memory at addr as a ctypes array: it has the buffer
    protocol (np.frombuffer(m, np.int32)) and converts to its device address."""
    base = ctypes.c_ubyte * size

    def _int(self):
        return addr

    cls = type("ManagedMemory", (base,), {
        "__int__": _int, "__index__": _int,
        "device_ptr": property(lambda self: DevicePointer(addr)),
        "__add__": lambda self, n: DevicePointer(addr + int(n)),
        "__repr__": lambda self: f"ManagedMemory(0x{addr:x}, {size} bytes)",
        "_pyemu_devptr": addr,
    })
    return cls.from_address(addr)


_REGION = None


def device_region() -> tuple:
    global _REGION
    if _REGION is None:
        _REGION = region()
    return _REGION


def device_address(obj):
    """The device address obj stands for, or None when obj is not a device pointer."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        return int(obj)
    addr = getattr(obj, "_pyemu_devptr", None)
    if addr is not None and (addr or isinstance(obj, ManagedArray)):
        if isinstance(obj, np.ndarray):
            return obj.__array_interface__["data"][0] if addr else 0
        return int(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    return None


def is_device_address(addr: int) -> bool:
    lo, hi = device_region()
    return lo <= addr < hi


def allocation_of(addr: int):
    """(start, size) of the allocation that holds addr, or None."""
    out = getattr(_found, "out", None)
    if out is None:             # one pair a thread: cffi lets other threads run during the call
        out = _found.out = ffi.new("unsigned long long[2]")
    if lib.pyemu_mem_find(addr, out, out + 1) != 0:
        return None
    return out[0], out[1]


_found = threading.local()
