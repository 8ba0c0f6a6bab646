"""What a conformance case is.

A case names a kernel file under kernels/, the kernel, its build options,
its arguments in order, and the NDRange (global size, local size or None,
global offset or None).  Arguments:

    Buf(name, data, cmp=None, ref=None, readonly=False, mask=None)
        a __global or __constant buffer, created with a copy of `data` (a flat
        NumPy array: a float4 buffer is a float32 array of 4n elements).  With
        `cmp` it is an output, read back after the kernel and compared by
        `cmp` (compare.py); `ref`, a function of the inputs (a dict of every
        argument's initial value by name), gives NumPy's answer, which both
        sides must also match; `mask` limits the comparison to some elements
        (the undefined 4th component of a stored float3).
    Scalar(name, value)
        a value argument: a NumPy scalar, or a NumPy array for a vector type
        passed by value (a float4 is np.float32 x 4).
    Local(name, nbytes)
        a __local pointer argument: clSetKernelArg(kernel, i, nbytes, NULL).

Cases are functions of a seeded NumPy Generator (seed: the CRC-32 of the
case's name), registered with @case, so their inputs are the same on every
run and both sides get the same bytes.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from .compare import Compare


@dataclass
class Buf:
    name: str
    data: np.ndarray
    cmp: Optional[Compare] = None
    ref: Optional[Callable[[dict], np.ndarray]] = None
    readonly: bool = False
    mask: Optional[np.ndarray] = None   # compare only these elements

    def __post_init__(self):
        self.data = np.ascontiguousarray(self.data).reshape(-1)

    @property
    def is_output(self) -> bool:
        return self.cmp is not None


@dataclass
class Scalar:
    name: str
    value: object


@dataclass
class Local:
    name: str
    nbytes: int


@dataclass
class Case:
    name: str
    file: str                       # under kernels/
    kernel: str
    args: list
    global_size: tuple
    local_size: Optional[tuple] = None
    offset: Optional[tuple] = None
    options: str = ""
    printf: Optional[Compare] = None    # compare the captured stdout with this
    printf_ref: Optional[str] = None    # the text both sides must print, if known
    doc: str = ""
    features: tuple = ()

    def inputs(self) -> dict:
        """Every argument's initial value by name (what `ref` functions take)."""
        out = {}
        for a in self.args:
            if isinstance(a, Buf):
                out[a.name] = a.data
            elif isinstance(a, Scalar):
                out[a.name] = a.value
            elif isinstance(a, Local):
                out[a.name] = a.nbytes
        return out

    def outputs(self) -> list:
        return [a for a in self.args if isinstance(a, Buf) and a.is_output]


REGISTRY: dict = {}


def case(fn: Callable[[np.random.Generator], Case]) -> Callable:
    """Register a case builder under its function name."""
    if fn.__name__ in REGISTRY:
        raise ValueError(f"two conformance cases named {fn.__name__}")
    REGISTRY[fn.__name__] = fn
    return fn


def build(name: str) -> Case:
    """The case `name`, with its deterministic inputs."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    c = REGISTRY[name](rng)
    if c.name != name:
        raise ValueError(f"case builder {name} made a case named {c.name}")
    return c


# helpers for writing cases ------------------------------------------------

def In(name, data, readonly=True) -> Buf:
    return Buf(name, data, readonly=readonly)


def Out(name, dtype, n, cmp, ref=None, fill=0, mask=None) -> Buf:
    return Buf(name, np.full(n, fill, dtype), cmp, ref, mask=mask)


def pad3_mask(n_vectors: int) -> np.ndarray:
    """Elements to compare in a buffer of n T3 vectors stored through a T3
    pointer: each takes 4 elements' room and the 4th is not defined."""
    m = np.ones((n_vectors, 4), bool)
    m[:, 3] = False
    return m.reshape(-1)


def InOut(name, data, cmp, ref=None) -> Buf:
    return Buf(name, data, cmp, ref)


def uniform(rng, lo, hi, n, dtype=np.float32) -> np.ndarray:
    return rng.uniform(lo, hi, n).astype(dtype)


def random_bits(rng, dtype, n) -> np.ndarray:
    """n values of an integer dtype, every bit pattern equally likely."""
    dt = np.dtype(dtype)
    raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    return raw.view(dt).copy()


def with_specials(x: np.ndarray, specials) -> np.ndarray:
    """x with its first values replaced by `specials` (inf, NaN, -0, ...)."""
    x = x.copy()
    s = np.asarray(specials, x.dtype)
    x[: s.size] = s
    return x


def f64(a) -> np.ndarray:
    return np.asarray(a, np.float64)
