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
    Image(name, data, format, image_type="image2d_t", cmp=None, ref=None)
        an image argument (image1d_t, image1d_buffer_t, image1d_array_t,
        image2d_t, image2d_array_t, image3d_t), created with a copy of `data`:
        a NumPy array of the channel type's dtype shaped as the image is
        stored, slowest first, channels last: (w, c), (h, w, c), (d, h, w, c),
        (layers, w, c), (layers, h, w, c).  `format` is (order, type) as
        OpenCL names them: ("CL_RGBA", "CL_UNORM_INT8").  Without `cmp` the
        image is read-only (CL_MEM_READ_ONLY); with it the kernel writes it
        (CL_MEM_WRITE_ONLY, `data` its initial contents, so that texels the
        kernel leaves alone compare too) and it is read back with
        clEnqueueReadImage and compared like a buffer.
    Sampler(name, normalized, addressing, filter)
        a sampler_t argument made by clCreateSampler: addressing one of
        "NONE", "CLAMP_TO_EDGE", "CLAMP", "REPEAT", "MIRRORED_REPEAT",
        filter "NEAREST" or "LINEAR".

A case PoCL cannot run at all (a format or built-in PoCL lacks) says why in
`pocl_skip`: it runs on pyemu alone, every output held to its NumPy
reference (each must have one); --pocl-only passes over it.

An output (Buf or Image) may name, with `pocl_differs` (a function of the
inputs giving a boolean mask over the output), the elements where PoCL is
known to be wrong or legitimately different (behaviour the specification
leaves open); `pocl_note` says which and why.  Those elements are not
compared with PoCL: pyemu is held to the NumPy reference there (a case with
`pocl_differs` must have `ref`), PoCL to it everywhere else.

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
    pocl_differs: Optional[Callable[[dict], np.ndarray]] = None
    pocl_note: str = ""

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


# image type -> (dimensions of the stored box, CL_MEM_OBJECT_* name)
IMAGE_TYPES = {
    "image1d_t": (1, "IMAGE1D"), "image1d_buffer_t": (1, "IMAGE1D_BUFFER"),
    "image1d_array_t": (2, "IMAGE1D_ARRAY"), "image2d_t": (2, "IMAGE2D"),
    "image2d_array_t": (3, "IMAGE2D_ARRAY"), "image3d_t": (3, "IMAGE3D")}
CHANNELS = {"CL_R": 1, "CL_RG": 2, "CL_RGBA": 4, "CL_BGRA": 4}
DTYPES = {"CL_FLOAT": np.float32, "CL_HALF_FLOAT": np.float16,
          "CL_UNORM_INT8": np.uint8, "CL_SNORM_INT8": np.int8,
          "CL_UNORM_INT16": np.uint16, "CL_SNORM_INT16": np.int16,
          "CL_UNSIGNED_INT8": np.uint8, "CL_UNSIGNED_INT16": np.uint16,
          "CL_UNSIGNED_INT32": np.uint32, "CL_SIGNED_INT8": np.int8,
          "CL_SIGNED_INT16": np.int16, "CL_SIGNED_INT32": np.int32}
ADDRESSING = ("NONE", "CLAMP_TO_EDGE", "CLAMP", "REPEAT", "MIRRORED_REPEAT")
FILTERS = ("NEAREST", "LINEAR")


@dataclass
class Image:
    name: str
    data: np.ndarray
    format: tuple                       # ("CL_RGBA", "CL_FLOAT")
    image_type: str = "image2d_t"
    cmp: Optional[Compare] = None
    ref: Optional[Callable[[dict], np.ndarray]] = None
    mask: Optional[np.ndarray] = None
    pocl_differs: Optional[Callable[[dict], np.ndarray]] = None
    pocl_note: str = ""

    def __post_init__(self):
        order, ctype = self.format
        if self.image_type not in IMAGE_TYPES:
            raise ValueError(f"image {self.name}: no image type {self.image_type}")
        if order not in CHANNELS or ctype not in DTYPES:
            raise ValueError(f"image {self.name}: format {self.format} is not in the corpus")
        self.data = np.ascontiguousarray(self.data, DTYPES[ctype])
        dims = IMAGE_TYPES[self.image_type][0]
        if self.data.ndim != dims + 1 or self.data.shape[-1] != CHANNELS[order]:
            raise ValueError(f"image {self.name}: data of shape {self.data.shape} is not a "
                             f"{self.image_type} of {CHANNELS[order]} channels")

    @property
    def shape(self) -> tuple:
        """The stored box's size, fastest first (width, height, depth or layers)."""
        return tuple(self.data.shape[:-1][::-1])

    @property
    def is_output(self) -> bool:
        return self.cmp is not None


@dataclass
class Sampler:
    name: str
    normalized: bool
    addressing: str                     # one of ADDRESSING
    filter: str                         # one of FILTERS

    def __post_init__(self):
        if self.addressing not in ADDRESSING or self.filter not in FILTERS:
            raise ValueError(f"sampler {self.name}: {self.addressing}, {self.filter}?")


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
    pocl_skip: str = ""                 # why PoCL cannot run it: NumPy references only

    def inputs(self) -> dict:
        """Every argument's initial value by name (what `ref` functions take)."""
        out = {}
        for a in self.args:
            if isinstance(a, (Buf, Image)):
                out[a.name] = a.data
            elif isinstance(a, Sampler):
                out[a.name] = (a.normalized, a.addressing, a.filter)
            elif isinstance(a, Scalar):
                out[a.name] = a.value
            elif isinstance(a, Local):
                out[a.name] = a.nbytes
        return out

    def outputs(self) -> list:
        return [a for a in self.args if isinstance(a, (Buf, Image)) and a.is_output]


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
