"""Samplers: clCreateSampler, clCreateSamplerWithProperties, clGetSamplerInfo,
clRetainSampler, clReleaseSampler.

A sampler argument of a kernel is a sampler_t, the bits OpenCL C spells
CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR
(include/pyemu/detail/cl_image.h): a cl_sampler converts to them (int()),
so clSetKernelArg(kernel, i, sampler) sets it as the 4-byte value it is.
Sampling itself is the sampler CUDA textures use (detail/sampler.h).
"""
from __future__ import annotations

from enum import IntEnum

from ._base import CLObject, as_int, check, info, release, retain
from ._errors import CL_INVALID_SAMPLER, CL_INVALID_VALUE, fail
from .platform import check_context


class cl_addressing_mode(IntEnum):
    CL_ADDRESS_NONE = 0x1130
    CL_ADDRESS_CLAMP_TO_EDGE = 0x1131
    CL_ADDRESS_CLAMP = 0x1132
    CL_ADDRESS_REPEAT = 0x1133
    CL_ADDRESS_MIRRORED_REPEAT = 0x1134


class cl_filter_mode(IntEnum):
    CL_FILTER_NEAREST = 0x1140
    CL_FILTER_LINEAR = 0x1141


class cl_sampler_info(IntEnum):
    CL_SAMPLER_REFERENCE_COUNT = 0x1150
    CL_SAMPLER_CONTEXT = 0x1151
    CL_SAMPLER_NORMALIZED_COORDS = 0x1152
    CL_SAMPLER_ADDRESSING_MODE = 0x1153
    CL_SAMPLER_FILTER_MODE = 0x1154
    CL_SAMPLER_MIP_FILTER_MODE = 0x1155
    CL_SAMPLER_LOD_MIN = 0x1156
    CL_SAMPLER_LOD_MAX = 0x1157
    CL_SAMPLER_PROPERTIES = 0x1158


# the device-side bits of each mode (OpenCL C's CLK_* values)
_ADDR_BITS = {0x1130: 0x0, 0x1131: 0x2, 0x1132: 0x4, 0x1133: 0x6, 0x1134: 0x8}
_FILTER_BITS = {0x1140: 0x10, 0x1141: 0x20}


class cl_sampler(CLObject):
    """A sampler: normalized coordinates, an addressing mode, a filter mode."""

    _kind = "sampler"

    def __init__(self, context, normalized, addressing, filtering, properties):
        super().__init__()
        self.context = context
        self.normalized = normalized
        self.addressing = cl_addressing_mode(addressing)
        self.filtering = cl_filter_mode(filtering)
        self.properties = properties

    @property
    def bits(self) -> int:
        """The sampler_t a kernel sees."""
        return (1 if self.normalized else 0) | _ADDR_BITS[self.addressing] | \
            _FILTER_BITS[self.filtering]

    def __int__(self):
        return self.bits

    def pyemu_kernel_arg(self) -> int:
        """What clSetKernelArg stores for a sampler_t argument (pyemu/opencl/kernel.py)."""
        check_sampler(self, "clSetKernelArg")
        return self.bits


def check_sampler(sampler, call) -> cl_sampler:
    return check(sampler, cl_sampler, CL_INVALID_SAMPLER, call)


def _make(context, normalized, addressing, filtering, properties, call):
    ctx = check_context(context, call)
    a = as_int(addressing, call, "addressing_mode")
    f = as_int(filtering, call, "filter_mode")
    if a not in _ADDR_BITS:
        fail(CL_INVALID_VALUE, f"addressing_mode 0x{a:x} is not a cl_addressing_mode", call)
    if f not in _FILTER_BITS:
        fail(CL_INVALID_VALUE, f"filter_mode 0x{f:x} is not a cl_filter_mode", call)
    if normalized not in (0, 1, True, False):
        fail(CL_INVALID_VALUE, f"normalized_coords must be CL_TRUE or CL_FALSE, not {normalized!r}",
             call)
    if not normalized and a in (0x1133, 0x1134):
        # OpenCL: repeat and mirrored repeat need normalized coordinates
        fail(CL_INVALID_VALUE, "CL_ADDRESS_REPEAT and CL_ADDRESS_MIRRORED_REPEAT need "
             "normalized coordinates", call)
    return cl_sampler(ctx, bool(normalized), a, f, properties)


def clCreateSampler(context, normalized_coords, addressing_mode, filter_mode) -> cl_sampler:
    """clCreateSampler(context, normalized_coords, addressing_mode, filter_mode)
    (OpenCL 1.2; deprecated in 2.0)."""
    return _make(context, normalized_coords, addressing_mode, filter_mode, None, "clCreateSampler")


def clCreateSamplerWithProperties(context, sampler_properties=None) -> cl_sampler:
    """clCreateSamplerWithProperties(context, [name, value, ..., 0]) (OpenCL 2.0):
    CL_SAMPLER_NORMALIZED_COORDS (default CL_TRUE), CL_SAMPLER_ADDRESSING_MODE
    (default CL_ADDRESS_CLAMP), CL_SAMPLER_FILTER_MODE (default CL_FILTER_NEAREST)."""
    call = "clCreateSamplerWithProperties"
    props = list(sampler_properties or [])
    if props and props[-1] == 0:
        props = props[:-1]
    if len(props) % 2:
        fail(CL_INVALID_VALUE, "sampler_properties is a list of name, value pairs ending in 0",
             call)
    values = {0x1152: True, 0x1153: 0x1132, 0x1154: 0x1140}
    seen = set()
    for name, value in zip(props[::2], props[1::2]):
        n = as_int(name, call, "a property name")
        if n not in values or n in seen:
            fail(CL_INVALID_VALUE, f"property 0x{n:x} is unknown or given twice", call)
        seen.add(n)
        values[n] = value
    return _make(context, values[0x1152], values[0x1153], values[0x1154],
                 list(sampler_properties or []), call)


def clGetSamplerInfo(sampler, param_name):
    """clGetSamplerInfo(sampler, param_name)."""
    s = check_sampler(sampler, "clGetSamplerInfo")
    return info({
        cl_sampler_info.CL_SAMPLER_REFERENCE_COUNT: lambda: s._refs,
        cl_sampler_info.CL_SAMPLER_CONTEXT: lambda: s.context,
        cl_sampler_info.CL_SAMPLER_NORMALIZED_COORDS: lambda: s.normalized,
        cl_sampler_info.CL_SAMPLER_ADDRESSING_MODE: lambda: s.addressing,
        cl_sampler_info.CL_SAMPLER_FILTER_MODE: lambda: s.filtering,
        cl_sampler_info.CL_SAMPLER_PROPERTIES: lambda: s.properties or [],
    }, param_name, "clGetSamplerInfo", "cl_sampler_info")


def clRetainSampler(sampler):
    """clRetainSampler: one more reference."""
    return retain(sampler, cl_sampler, CL_INVALID_SAMPLER, "clRetainSampler")


def clReleaseSampler(sampler):
    """clReleaseSampler: one reference less."""
    return release(sampler, cl_sampler, CL_INVALID_SAMPLER, "clReleaseSampler")


_ENUMS = (cl_addressing_mode, cl_filter_mode, cl_sampler_info)
for _e in _ENUMS:
    globals().update(_e.__members__)

__all__ = ["cl_sampler", "clCreateSampler", "clCreateSamplerWithProperties", "clGetSamplerInfo",
           "clRetainSampler", "clReleaseSampler", "cl_addressing_mode", "cl_filter_mode",
           "cl_sampler_info"] + [n for _e in _ENUMS for n in _e.__members__]
