"""The structures of CUDA's pitched and 3-D memory calls: cudaExtent, cudaPos,
cudaPitchedPtr, cudaMemcpy3DParms, and their make_* helpers."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class cudaExtent:
    """cudaExtent: width (bytes, for linear memory), height (rows), depth (slices)."""
    width: int = 0
    height: int = 0
    depth: int = 0


@dataclass
class cudaPos:
    """cudaPos: x (bytes, for linear memory), y (row), z (slice)."""
    x: int = 0
    y: int = 0
    z: int = 0


@dataclass
class cudaPitchedPtr:
    """cudaPitchedPtr: ptr (a device pointer, or a host buffer such as a NumPy
    array), pitch (bytes from one row to the next), xsize (the width in
    bytes), ysize (the rows of one slice: a slice is pitch * ysize bytes)."""
    ptr: object = 0
    pitch: int = 0
    xsize: int = 0
    ysize: int = 0


@dataclass
class cudaMemcpy3DParms:
    """cudaMemcpy3DParms, zero-initialised as `cudaMemcpy3DParms p = {0};` in C.

    One side is an array (srcArray/dstArray, a cudaArray_t) or a pointer
    (srcPtr/dstPtr), not both."""
    srcArray: object = None
    srcPos: cudaPos = field(default_factory=cudaPos)
    srcPtr: cudaPitchedPtr = field(default_factory=cudaPitchedPtr)
    dstArray: object = None
    dstPos: cudaPos = field(default_factory=cudaPos)
    dstPtr: cudaPitchedPtr = field(default_factory=cudaPitchedPtr)
    extent: cudaExtent = field(default_factory=cudaExtent)
    kind: int = 0


def make_cudaExtent(w, h, d) -> cudaExtent:
    """make_cudaExtent(w, h, d)."""
    return cudaExtent(w, h, d)


def make_cudaPos(x, y, z) -> cudaPos:
    """make_cudaPos(x, y, z)."""
    return cudaPos(x, y, z)


def make_cudaPitchedPtr(d, p, xsz, ysz) -> cudaPitchedPtr:
    """make_cudaPitchedPtr(d, p, xsz, ysz): pointer, pitch, width, height."""
    return cudaPitchedPtr(d, p, xsz, ysz)


__all__ = ["cudaExtent", "cudaPos", "cudaPitchedPtr", "cudaMemcpy3DParms", "make_cudaExtent",
           "make_cudaPos", "make_cudaPitchedPtr"]
