"""Images: clCreateImage (1-D, 2-D, 3-D), clCreateImage2D/3D (OpenCL 1.1),
clGetSupportedImageFormats, clGetImageInfo, clEnqueueRead/Write/Copy/FillImage,
clEnqueueCopyImageToBuffer, clEnqueueCopyBufferToImage, clEnqueueMapImage.

An image is one device allocation: its 128-byte descriptor (the
pyemu_image of include/pyemu/detail/sampler.h, the layout a CUDA texture
object has) and, 256 bytes on, the elements row after row without padding.
A kernel's image2d_t argument is the descriptor's address: a cl_image is a
cl_mem whose address is the descriptor, so clSetKernelArg takes it as it
takes a buffer.  Reads sample through the sampler CUDA textures use.

The image commands wait for their wait list and every command before them
in the queue, then copy on the host (one function, runtime.image.copy_rect):
each returns a complete event, whatever its blocking flag says.
CL_MEM_USE_HOST_PTR copies host_ptr in at creation (as buffers do) and does
not write back.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..runtime import core as _core
from ..runtime import image as _img
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from ..runtime.host import host_buffer
from . import _constants as K
from ._base import as_int, info
from ._errors import (CL_IMAGE_FORMAT_MISMATCH, CL_IMAGE_FORMAT_NOT_SUPPORTED, CL_INVALID_CONTEXT,
                      CL_INVALID_HOST_PTR,
                      CL_INVALID_IMAGE_DESCRIPTOR, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                      CL_INVALID_IMAGE_SIZE, CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION,
                      CL_INVALID_VALUE, CL_MEM_COPY_OVERLAP, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                      fail, raise_core)
from .event import _marker, _raise_failed
from .memory import _flags, check_mem, cl_mem
from .platform import check_context
from ..runtime.sync import flush_printf
from .queue import check_queue


class cl_channel_order(IntEnum):
    CL_R = 0x10B0
    CL_A = 0x10B1
    CL_RG = 0x10B2
    CL_RA = 0x10B3
    CL_RGB = 0x10B4
    CL_RGBA = 0x10B5
    CL_BGRA = 0x10B6
    CL_ARGB = 0x10B7
    CL_INTENSITY = 0x10B8
    CL_LUMINANCE = 0x10B9


class cl_channel_type(IntEnum):
    CL_SNORM_INT8 = 0x10D0
    CL_SNORM_INT16 = 0x10D1
    CL_UNORM_INT8 = 0x10D2
    CL_UNORM_INT16 = 0x10D3
    CL_UNORM_SHORT_565 = 0x10D4
    CL_UNORM_SHORT_555 = 0x10D5
    CL_UNORM_INT_101010 = 0x10D6
    CL_SIGNED_INT8 = 0x10D7
    CL_SIGNED_INT16 = 0x10D8
    CL_SIGNED_INT32 = 0x10D9
    CL_UNSIGNED_INT8 = 0x10DA
    CL_UNSIGNED_INT16 = 0x10DB
    CL_UNSIGNED_INT32 = 0x10DC
    CL_HALF_FLOAT = 0x10DD
    CL_FLOAT = 0x10DE


class cl_image_info(IntEnum):
    CL_IMAGE_FORMAT = 0x1110
    CL_IMAGE_ELEMENT_SIZE = 0x1111
    CL_IMAGE_ROW_PITCH = 0x1112
    CL_IMAGE_SLICE_PITCH = 0x1113
    CL_IMAGE_WIDTH = 0x1114
    CL_IMAGE_HEIGHT = 0x1115
    CL_IMAGE_DEPTH = 0x1116
    CL_IMAGE_ARRAY_SIZE = 0x1117
    CL_IMAGE_BUFFER = 0x1118
    CL_IMAGE_NUM_MIP_LEVELS = 0x1119
    CL_IMAGE_NUM_SAMPLES = 0x111A


# channel type -> (kind, bytes, normalized)
_TYPES = {
    cl_channel_type.CL_SNORM_INT8: (_img.KIND_SIGNED, 1, True),
    cl_channel_type.CL_SNORM_INT16: (_img.KIND_SIGNED, 2, True),
    cl_channel_type.CL_UNORM_INT8: (_img.KIND_UNSIGNED, 1, True),
    cl_channel_type.CL_UNORM_INT16: (_img.KIND_UNSIGNED, 2, True),
    cl_channel_type.CL_SIGNED_INT8: (_img.KIND_SIGNED, 1, False),
    cl_channel_type.CL_SIGNED_INT16: (_img.KIND_SIGNED, 2, False),
    cl_channel_type.CL_SIGNED_INT32: (_img.KIND_SIGNED, 4, False),
    cl_channel_type.CL_UNSIGNED_INT8: (_img.KIND_UNSIGNED, 1, False),
    cl_channel_type.CL_UNSIGNED_INT16: (_img.KIND_UNSIGNED, 2, False),
    cl_channel_type.CL_UNSIGNED_INT32: (_img.KIND_UNSIGNED, 4, False),
    cl_channel_type.CL_HALF_FLOAT: (_img.KIND_FLOAT, 2, False),
    cl_channel_type.CL_FLOAT: (_img.KIND_FLOAT, 4, False),
}
_ORDERS = {cl_channel_order.CL_R: 1, cl_channel_order.CL_RG: 2, cl_channel_order.CL_RGBA: 4,
           cl_channel_order.CL_BGRA: 4}
_BGRA_TYPES = (cl_channel_type.CL_UNORM_INT8, cl_channel_type.CL_SNORM_INT8,
               cl_channel_type.CL_SIGNED_INT8, cl_channel_type.CL_UNSIGNED_INT8)
# the device's limits (CL_DEVICE_IMAGE2D_MAX_WIDTH, ...; an H100's OpenCL values)
MAX_2D = (32768, 32768)
MAX_3D = (16384, 16384, 16384)
MAX_BUFFER = 268435456
MAX_SAMPLERS = 32
MAX_READ_IMAGE_ARGS, MAX_WRITE_IMAGE_ARGS = 256, 32
MAX_ARRAY_SIZE = 2048
DATA_OFFSET = 256                  # the elements start this far after the descriptor


@dataclass
class cl_image_format:
    """cl_image_format: image_channel_order and image_channel_data_type."""
    image_channel_order: int = cl_channel_order.CL_RGBA
    image_channel_data_type: int = cl_channel_type.CL_FLOAT


@dataclass
class cl_image_desc:
    """cl_image_desc, with OpenCL's field names."""
    image_type: int = K.CL_MEM_OBJECT_IMAGE2D
    image_width: int = 0
    image_height: int = 0
    image_depth: int = 0
    image_array_size: int = 0
    image_row_pitch: int = 0
    image_slice_pitch: int = 0
    num_mip_levels: int = 0
    num_samples: int = 0
    buffer: object = None


def supported_formats():
    return [cl_image_format(o, t) for o in _ORDERS for t in _TYPES
            if o != cl_channel_order.CL_BGRA or t in _BGRA_TYPES]


class cl_image(cl_mem):
    """An image: a cl_mem whose address is its descriptor (what a kernel gets)."""

    _kind = "image"

    def __init__(self, context, flags, fmt, image_type, dims, w, h, d, addr, handle, nbytes,
                 host_ptr):
        super().__init__(context, flags, DATA_OFFSET + nbytes, addr, handle)
        self.format = fmt
        self.image_type = image_type
        self.dims = dims
        self.width, self.height, self.depth = w, h, d
        kind, self.bytes, self.normalized = _TYPES[fmt.image_channel_data_type]
        self.channels = _ORDERS[fmt.image_channel_order]
        self.elem = self.bytes * self.channels
        self.row_pitch = w * self.elem
        self.slice_pitch = self.row_pitch * max(h, 1)
        self.data = addr + DATA_OFFSET
        self.nbytes = nbytes
        self.user_host_ptr = host_ptr
        blob = _img.pack(dims=dims, kind=kind, channels=self.channels, nbytes=self.bytes,
                         flags=_img.OPENCL | (_img.NORM_FORMAT if self.normalized else 0),
                         data=self.data, width=w, height=max(h, 1), depth=max(d, 1),
                         pitch=self.row_pitch, slice_=self.slice_pitch, size=nbytes,
                         cl_order=int(fmt.image_channel_order),
                         cl_type=int(fmt.image_channel_data_type))
        _img.write(addr, blob)

    @property
    def size3(self):
        return (self.width, max(self.height, 1), max(self.depth, 1))


def check_image(image, call) -> cl_image:
    m = check_mem(image, call)
    if not isinstance(m, cl_image):
        fail(CL_INVALID_MEM_OBJECT, "the memory object is a buffer, not an image", call)
    return m


def _format(fmt, call):
    try:
        if isinstance(fmt, (tuple, list)):
            o, t = fmt
        else:
            o, t = fmt.image_channel_order, fmt.image_channel_data_type
        o, t = int(o), int(t)
    except (TypeError, ValueError, AttributeError):
        fail(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, f"{fmt!r} is not a cl_image_format", call)
    if o not in set(map(int, cl_channel_order)) or t not in set(map(int, cl_channel_type)):
        fail(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, f"order 0x{o:x}, type 0x{t:x}: not a valid "
             "cl_image_format", call)
    if o not in set(map(int, _ORDERS)) or t not in set(map(int, _TYPES)) or (
            o == cl_channel_order.CL_BGRA and t not in set(map(int, _BGRA_TYPES))):
        fail(CL_IMAGE_FORMAT_NOT_SUPPORTED, f"{cl_channel_order(o).name} / "
             f"{cl_channel_type(t).name} is not supported (clGetSupportedImageFormats)", call)
    return cl_image_format(cl_channel_order(o), cl_channel_type(t))


def _create(context, flags, fmt, desc, host_ptr, call) -> cl_image:
    ctx = check_context(context, call)
    f = _flags(flags, call)
    fmt = _format(fmt, call)
    if desc is None:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_desc is NULL", call)
    try:
        itype = int(desc.image_type)
        w, h, d = (as_int(desc.image_width, call, "image_width"),
                   as_int(desc.image_height, call, "image_height"),
                   as_int(desc.image_depth, call, "image_depth"))
        rp, sp = (as_int(desc.image_row_pitch, call, "image_row_pitch"),
                  as_int(desc.image_slice_pitch, call, "image_slice_pitch"))
        mips, samples = int(desc.num_mip_levels), int(desc.num_samples)
    except (AttributeError, TypeError, ValueError):
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"{desc!r} is not a cl_image_desc", call)
    dims = {K.CL_MEM_OBJECT_IMAGE1D: 1, K.CL_MEM_OBJECT_IMAGE2D: 2, K.CL_MEM_OBJECT_IMAGE3D: 3}
    if itype not in dims:
        if itype in (K.CL_MEM_OBJECT_IMAGE1D_BUFFER, K.CL_MEM_OBJECT_IMAGE1D_ARRAY,
                     K.CL_MEM_OBJECT_IMAGE2D_ARRAY):
            fail(CL_INVALID_IMAGE_DESCRIPTOR, "image arrays and 1-D buffer images are not "
                 "supported by pyemu", call)
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"image_type 0x{itype:x} is not an image type", call)
    n = dims[itype]
    if mips or samples or desc.buffer is not None:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, "num_mip_levels and num_samples must be 0 and buffer "
             "NULL", call)
    h = h if n >= 2 else 1
    d = d if n >= 3 else 1
    limits = (MAX_2D[0], 1, 1) if n == 1 else (MAX_2D + (1,) if n == 2 else MAX_3D)
    if not (w and h and d) or w > limits[0] or h > limits[1] or d > limits[2]:
        fail(CL_INVALID_IMAGE_SIZE, f"{w} x {h} x {d} is not within 1 and the device's "
             f"limits {limits}", call)
    elem = _ORDERS[fmt.image_channel_order] * _TYPES[fmt.image_channel_data_type][1]
    row, sl = w * elem, w * elem * h
    if host_ptr is None and (rp or sp):
        fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_row_pitch and image_slice_pitch must be 0 "
             "without host_ptr", call)
    rp = rp or row
    sp = sp or rp * h
    if rp < row or rp % elem or (n == 3 and (sp < rp * h or sp % rp)):
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"row pitch {rp} / slice pitch {sp} are smaller "
             "than a row / slice or not multiples of the element and row", call)
    wants = f & (K.CL_MEM_USE_HOST_PTR | K.CL_MEM_COPY_HOST_PTR)
    if bool(wants) != (host_ptr is not None):
        fail(CL_INVALID_HOST_PTR, "host_ptr goes with CL_MEM_USE_HOST_PTR or "
             "CL_MEM_COPY_HOST_PTR, and only with them", call)
    nbytes = sl * d
    src = None
    if host_ptr is not None:
        try:
            src, have = host_buffer(host_ptr, False)
        except (TypeError, ValueError) as exc:
            fail(CL_INVALID_HOST_PTR, str(exc), call)
        need = sp * (d - 1) + rp * (h - 1) + row
        if have < need:
            fail(CL_INVALID_HOST_PTR, f"host_ptr holds {have} bytes; the image needs {need}",
                 call)
    addr = ffi.new("unsigned long long *")
    handle = ffi.new("pyemu_buffer **")     # a reference-counted core buffer, as a cl_mem's
    try:
        _core.ensure_started()
        _core.check(lib.pyemu_buffer_alloc(DATA_OFFSET + nbytes, handle, addr))
    except CoreError as exc:
        raise_core(exc, call, {lib.PYEMU_E_OUT_OF_MEMORY: CL_MEM_OBJECT_ALLOCATION_FAILURE})
    img = cl_image(ctx, f, fmt, itype, n, w, h if n >= 2 else 0, d if n >= 3 else 0, addr[0],
                   handle[0], nbytes, host_ptr)
    if src is not None:
        _img.copy_rect(img.data, row, _img.address_of(src), rp, row, h, d, sl, sp)
    return img


def clCreateImage(context, flags, image_format, image_desc, host_ptr=None) -> cl_image:
    """clCreateImage(context, flags, image_format, image_desc, host_ptr=None) (OpenCL 1.2):
    1-D, 2-D and 3-D images of the formats clGetSupportedImageFormats lists."""
    return _create(context, flags, image_format, image_desc, host_ptr, "clCreateImage")


def clCreateImage2D(context, flags, image_format, image_width, image_height, image_row_pitch=0,
                    host_ptr=None) -> cl_image:
    """clCreateImage2D (OpenCL 1.1, deprecated in 1.2)."""
    desc = cl_image_desc(K.CL_MEM_OBJECT_IMAGE2D, image_width, image_height, 0, 0,
                         image_row_pitch)
    return _create(context, flags, image_format, desc, host_ptr, "clCreateImage2D")


def clCreateImage3D(context, flags, image_format, image_width, image_height, image_depth,
                    image_row_pitch=0, image_slice_pitch=0, host_ptr=None) -> cl_image:
    """clCreateImage3D (OpenCL 1.1, deprecated in 1.2)."""
    desc = cl_image_desc(K.CL_MEM_OBJECT_IMAGE3D, image_width, image_height, image_depth, 0,
                         image_row_pitch, image_slice_pitch)
    return _create(context, flags, image_format, desc, host_ptr, "clCreateImage3D")


def clGetSupportedImageFormats(context, flags, image_type) -> list:
    """clGetSupportedImageFormats(context, flags, image_type) -> [cl_image_format, ...]."""
    call = "clGetSupportedImageFormats"
    check_context(context, call)
    _flags(flags, call)
    t = as_int(image_type, call, "image_type")
    if t not in (K.CL_MEM_OBJECT_IMAGE1D, K.CL_MEM_OBJECT_IMAGE2D, K.CL_MEM_OBJECT_IMAGE3D,
                 K.CL_MEM_OBJECT_IMAGE1D_BUFFER, K.CL_MEM_OBJECT_IMAGE1D_ARRAY,
                 K.CL_MEM_OBJECT_IMAGE2D_ARRAY):
        fail(CL_INVALID_VALUE, f"image_type 0x{t:x} is not an image type", call)
    if t not in (K.CL_MEM_OBJECT_IMAGE1D, K.CL_MEM_OBJECT_IMAGE2D, K.CL_MEM_OBJECT_IMAGE3D):
        return []
    return supported_formats()


def clGetImageInfo(image, param_name):
    """clGetImageInfo(image, param_name)."""
    call = "clGetImageInfo"
    m = check_image(image, call)
    return info({
        cl_image_info.CL_IMAGE_FORMAT: lambda: cl_image_format(m.format.image_channel_order,
                                                               m.format.image_channel_data_type),
        cl_image_info.CL_IMAGE_ELEMENT_SIZE: lambda: m.elem,
        cl_image_info.CL_IMAGE_ROW_PITCH: lambda: m.row_pitch,
        cl_image_info.CL_IMAGE_SLICE_PITCH: lambda: m.slice_pitch if m.dims == 3 else 0,
        cl_image_info.CL_IMAGE_WIDTH: lambda: m.width,
        cl_image_info.CL_IMAGE_HEIGHT: lambda: m.height,
        cl_image_info.CL_IMAGE_DEPTH: lambda: m.depth,
        cl_image_info.CL_IMAGE_ARRAY_SIZE: lambda: 0,
        cl_image_info.CL_IMAGE_BUFFER: lambda: None,
        cl_image_info.CL_IMAGE_NUM_MIP_LEVELS: lambda: 0,
        cl_image_info.CL_IMAGE_NUM_SAMPLES: lambda: 0,
    }, param_name, call, "cl_image_info")


# ---- commands ----

def _triple(v, call, what, fill_with):
    try:
        t = [as_int(x, call, what) for x in v]
    except TypeError:
        fail(CL_INVALID_VALUE, f"{what} must be a list of up to 3 ints", call)
    if not 1 <= len(t) <= 3:
        fail(CL_INVALID_VALUE, f"{what} has 1 to 3 values", call)
    return tuple(t + [fill_with] * (3 - len(t)))


def _box(img, origin, region, call, what=""):
    o = _triple(origin, call, what + "origin", 0)
    r = _triple(region, call, what + "region", 1)
    if 0 in r:
        fail(CL_INVALID_VALUE, f"{what}region {r} has a 0", call)
    if img.dims < 3 and (o[2] or r[2] != 1) or img.dims < 2 and (o[1] or r[1] != 1):
        fail(CL_INVALID_VALUE, f"a {img.dims}-D image takes origin[k] = 0 and region[k] = 1 "
             f"beyond its dimensions (origin {o}, region {r})", call)
    if any(a + b > s for a, b, s in zip(o, r, img.size3)):
        fail(CL_INVALID_VALUE, f"{what}origin {o} + region {r} runs past the image's {img.size3}",
             call)
    return o, r


def _at(img, o):
    return img.data + o[2] * img.slice_pitch + o[1] * img.row_pitch + o[0] * img.elem


def _run(q, wait, call, ctype, work):
    """Wait for the wait list and everything before in the queue, do the copy, return the event."""
    ev = _marker(q, wait, 1, call, ctype)
    _sync.wait_command(ev._cmd)
    flush_printf()
    _raise_failed(ev, call)
    work()
    return ev


def _queue_image(command_queue, image, call):
    q = check_queue(command_queue, call)
    m = check_image(image, call)
    if m.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the image are of different contexts", call)
    return q, m


def _host_pitches(img, r, row_pitch, slice_pitch, call):
    row = r[0] * img.elem
    rp = as_int(row_pitch, call, "row_pitch") or row
    sp = as_int(slice_pitch, call, "slice_pitch") or rp * r[1]
    if rp < row or sp < rp * r[1]:
        fail(CL_INVALID_VALUE, f"row_pitch {rp} / slice_pitch {sp} are smaller than a row "
             f"({row}) / slice", call)
    return row, rp, sp, sp * (r[2] - 1) + rp * (r[1] - 1) + row


def _host(ptr, need, writable, call):
    if ptr is None:
        fail(CL_INVALID_VALUE, "ptr is NULL", call)
    try:
        p, have = host_buffer(ptr, writable)
    except (TypeError, ValueError) as exc:
        fail(CL_INVALID_VALUE, f"ptr: {exc}", call)
    if have < need:
        fail(CL_INVALID_VALUE, f"ptr holds {have} bytes; the region needs {need}", call)
    return p


def clEnqueueReadImage(command_queue, image, blocking_read, origin, region, row_pitch,
                       slice_pitch, ptr, event_wait_list=None):
    """clEnqueueReadImage(command_queue, image, blocking_read, origin, region, row_pitch,
    slice_pitch, ptr, event_wait_list=None) -> event (complete: see the module's note)."""
    call = "clEnqueueReadImage"
    q, m = _queue_image(command_queue, image, call)
    o, r = _box(m, origin, region, call)
    row, rp, sp, need = _host_pitches(m, r, row_pitch, slice_pitch, call)
    p = _host(ptr, need, True, call)
    return _run(q, event_wait_list, call, K.CL_COMMAND_READ_IMAGE, lambda: _img.copy_rect(
        _img.address_of(p), rp, _at(m, o), m.row_pitch, row, r[1], r[2], sp, m.slice_pitch))


def clEnqueueWriteImage(command_queue, image, blocking_write, origin, region, input_row_pitch,
                        input_slice_pitch, ptr, event_wait_list=None):
    """clEnqueueWriteImage(command_queue, image, blocking_write, origin, region,
    input_row_pitch, input_slice_pitch, ptr, event_wait_list=None) -> event."""
    call = "clEnqueueWriteImage"
    q, m = _queue_image(command_queue, image, call)
    o, r = _box(m, origin, region, call)
    row, rp, sp, need = _host_pitches(m, r, input_row_pitch, input_slice_pitch, call)
    p = _host(ptr, need, False, call)
    return _run(q, event_wait_list, call, K.CL_COMMAND_WRITE_IMAGE, lambda: _img.copy_rect(
        _at(m, o), m.row_pitch, _img.address_of(p), rp, row, r[1], r[2], m.slice_pitch, sp))


def clEnqueueCopyImage(command_queue, src_image, dst_image, src_origin, dst_origin, region,
                       event_wait_list=None):
    """clEnqueueCopyImage(command_queue, src_image, dst_image, src_origin, dst_origin, region,
    event_wait_list=None) -> event: the formats must be the same."""
    call = "clEnqueueCopyImage"
    q, s = _queue_image(command_queue, src_image, call)
    _, d = _queue_image(command_queue, dst_image, call)
    if s.format != d.format:
        fail(CL_IMAGE_FORMAT_MISMATCH, "the two images have different formats", call)
    so, r = _box(s, src_origin, region, call, "src_")
    do, _ = _box(d, dst_origin, region, call, "dst_")
    if s is d and all(a < b + n and b < a + n for a, b, n in zip(so, do, r)):
        fail(CL_MEM_COPY_OVERLAP, "the source and destination regions overlap", call)
    return _run(q, event_wait_list, call, K.CL_COMMAND_COPY_IMAGE, lambda: _img.copy_rect(
        _at(d, do), d.row_pitch, _at(s, so), s.row_pitch, r[0] * s.elem, r[1], r[2],
        d.slice_pitch, s.slice_pitch))


def _fill_bytes(img, color, call):
    """The bytes of one element of img holding `color` (4 values, as write_image* converts)."""
    kind, nb, norm = _TYPES[img.format.image_channel_data_type]
    try:
        vals = [float(v) if kind == _img.KIND_FLOAT or norm else int(v) for v in list(color)[:4]]
    except (TypeError, ValueError):
        fail(CL_INVALID_VALUE, "fill_color is 4 numbers (float4, int4 or uint4)", call)
    if len(vals) != 4:
        fail(CL_INVALID_VALUE, "fill_color is 4 numbers", call)
    if img.format.image_channel_order == cl_channel_order.CL_BGRA:
        vals = [vals[2], vals[1], vals[0], vals[3]]
    out = b""
    for c in range(img.channels):
        v = vals[c]
        if kind == _img.KIND_FLOAT:
            out += struct.pack("<f", v) if nb == 4 else np.float16(v).tobytes()
            continue
        bits = nb * 8
        lo, hi = ((-(1 << bits - 1), (1 << bits - 1) - 1) if kind == _img.KIND_SIGNED
                  else (0, (1 << bits) - 1))
        if norm:
            v = int(np.rint(v * (hi if kind == _img.KIND_UNSIGNED else hi)))
        v = min(max(int(v), lo), hi)
        out += int(v).to_bytes(nb, "little", signed=kind == _img.KIND_SIGNED)
    return out


def clEnqueueFillImage(command_queue, image, fill_color, origin, region, event_wait_list=None):
    """clEnqueueFillImage(command_queue, image, fill_color, origin, region,
    event_wait_list=None) -> event."""
    call = "clEnqueueFillImage"
    q, m = _queue_image(command_queue, image, call)
    o, r = _box(m, origin, region, call)
    elem = _fill_bytes(m, fill_color, call)
    row = np.frombuffer(elem * r[0], np.uint8).copy()
    p = ffi.from_buffer(row)

    def work():
        for z in range(r[2]):
            for y in range(r[1]):
                _img.copy_rect(_at(m, (o[0], o[1] + y, o[2] + z)), row.nbytes,
                               _img.address_of(p), row.nbytes, row.nbytes, 1)
    return _run(q, event_wait_list, call, K.CL_COMMAND_FILL_IMAGE, work)


def _buffer(buf, call):
    b = check_mem(buf, call)
    if isinstance(b, cl_image):
        fail(CL_INVALID_MEM_OBJECT, "the memory object is an image, not a buffer", call)
    return b


def clEnqueueCopyImageToBuffer(command_queue, src_image, dst_buffer, src_origin, region,
                               dst_offset, event_wait_list=None):
    """clEnqueueCopyImageToBuffer(command_queue, src_image, dst_buffer, src_origin, region,
    dst_offset, event_wait_list=None) -> event: the region, packed, at dst_offset."""
    call = "clEnqueueCopyImageToBuffer"
    q, s = _queue_image(command_queue, src_image, call)
    b = _buffer(dst_buffer, call)
    o, r = _box(s, src_origin, region, call)
    off = as_int(dst_offset, call, "dst_offset")
    row = r[0] * s.elem
    if off + row * r[1] * r[2] > b.size:
        fail(CL_INVALID_VALUE, "the region runs past the end of the buffer", call)
    return _run(q, event_wait_list, call, K.CL_COMMAND_COPY_IMAGE_TO_BUFFER,
                lambda: _img.copy_rect(b.addr + off, row, _at(s, o), s.row_pitch, row, r[1], r[2],
                                       row * r[1], s.slice_pitch))


def clEnqueueCopyBufferToImage(command_queue, src_buffer, dst_image, src_offset, dst_origin,
                               region, event_wait_list=None):
    """clEnqueueCopyBufferToImage(command_queue, src_buffer, dst_image, src_offset,
    dst_origin, region, event_wait_list=None) -> event."""
    call = "clEnqueueCopyBufferToImage"
    q, d = _queue_image(command_queue, dst_image, call)
    b = _buffer(src_buffer, call)
    o, r = _box(d, dst_origin, region, call)
    off = as_int(src_offset, call, "src_offset")
    row = r[0] * d.elem
    if off + row * r[1] * r[2] > b.size:
        fail(CL_INVALID_VALUE, "the region runs past the end of the buffer", call)
    return _run(q, event_wait_list, call, K.CL_COMMAND_COPY_BUFFER_TO_IMAGE,
                lambda: _img.copy_rect(_at(d, o), d.row_pitch, b.addr + off, row, row, r[1], r[2],
                                       d.slice_pitch, row * r[1]))


def clEnqueueMapImage(command_queue, image, blocking_map, map_flags, origin, region,
                      event_wait_list=None):
    """clEnqueueMapImage(command_queue, image, blocking_map, map_flags, origin, region,
    event_wait_list=None) -> (mapped, image_row_pitch, image_slice_pitch, event).

    `mapped` is a writable NumPy uint8 view of the image's memory from the
    origin to the region's last byte (rows image_row_pitch apart); unmap it with
    clEnqueueUnmapMemObject."""
    call = "clEnqueueMapImage"
    q, m = _queue_image(command_queue, image, call)
    f = as_int(map_flags, call, "map_flags")
    if f & ~int(K.CL_MAP_READ | K.CL_MAP_WRITE | K.CL_MAP_WRITE_INVALIDATE_REGION):
        fail(CL_INVALID_VALUE, f"0x{f:x} has bits that are not cl_map_flags", call)
    o, r = _box(m, origin, region, call)
    start = _at(m, o)
    n = (r[2] - 1) * m.slice_pitch + (r[1] - 1) * m.row_pitch + r[0] * m.elem
    ev = _run(q, event_wait_list, call, K.CL_COMMAND_MAP_IMAGE, lambda: None)
    mapped = np.frombuffer(ffi.buffer(ffi.cast("char *", start), n), np.uint8)
    _views.add_view(m.addr, mapped)
    m.maps.append([start, n, f, start - m.addr])
    return mapped, m.row_pitch, m.slice_pitch if m.dims == 3 else 0, ev


_ENUMS = (cl_channel_order, cl_channel_type, cl_image_info)
for _e in _ENUMS:
    globals().update(_e.__members__)

__all__ = ["cl_image", "cl_image_format", "cl_image_desc", "clCreateImage", "clCreateImage2D",
           "clCreateImage3D", "clGetSupportedImageFormats", "clGetImageInfo",
           "clEnqueueReadImage", "clEnqueueWriteImage", "clEnqueueCopyImage",
           "clEnqueueFillImage", "clEnqueueCopyImageToBuffer", "clEnqueueCopyBufferToImage",
           "clEnqueueMapImage", "cl_channel_order", "cl_channel_type", "cl_image_info"] + [
    n for _e in _ENUMS for n in _e.__members__]
