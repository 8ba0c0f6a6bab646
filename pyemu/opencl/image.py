"""Images: clCreateImage (1-D, 1-D buffer, 1-D array, 2-D, 2-D array, 3-D),
clCreateImage2D/3D (OpenCL 1.1), clGetSupportedImageFormats, clGetImageInfo;
the commands on images are in image_cmd.py.

An image is one device allocation: its 128-byte descriptor (the
pyemu_image of include/pyemu/detail/sampler.h, the layout a CUDA texture
object has) and, 256 bytes on, the elements row after row without padding.
A 1-D buffer image is a descriptor of its own over its buffer's bytes, so a
write through either is seen through the other.  An array is stored as the
box one dimension up (a 1-D array's layers are rows, a 2-D array's slices).
A kernel's image argument is the descriptor's address: a cl_image is a
cl_mem whose address is the descriptor, so clSetKernelArg takes it as it
takes a buffer.  Reads sample through the sampler CUDA textures use.
CL_MEM_USE_HOST_PTR copies host_ptr in at creation and, as buffers do, keeps
host_ptr coherent at the points the specification names: clEnqueueMapImage
copies the region into host_ptr (in the host's own row and slice pitch) and
returns a view of host_ptr there, and clEnqueueUnmapMemObject after a map for
writing copies it back into the image.  Between those points the device copy
is the image (clEnqueueReadImage reads it).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ..runtime import core as _core
from ..runtime import image as _img
from ..runtime.core import CoreError, ffi, lib
from ..runtime.host import host_buffer
from . import _constants as K
from ._base import as_int, info
from ._errors import (CL_IMAGE_FORMAT_NOT_SUPPORTED, CL_INVALID_CONTEXT, CL_INVALID_HOST_PTR,
                      CL_INVALID_IMAGE_DESCRIPTOR, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                      CL_INVALID_IMAGE_SIZE, CL_INVALID_MEM_OBJECT, CL_INVALID_VALUE,
                      CL_MEM_OBJECT_ALLOCATION_FAILURE, fail, raise_core)
from .memory import _flags, check_mem, cl_mem, clReleaseMemObject, clRetainMemObject
from .platform import check_context


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


# image type -> dimensions of the storage (an array's layers are its last dimension)
_STORAGE = {K.CL_MEM_OBJECT_IMAGE1D: 1, K.CL_MEM_OBJECT_IMAGE1D_BUFFER: 1,
            K.CL_MEM_OBJECT_IMAGE1D_ARRAY: 2, K.CL_MEM_OBJECT_IMAGE2D: 2,
            K.CL_MEM_OBJECT_IMAGE2D_ARRAY: 3, K.CL_MEM_OBJECT_IMAGE3D: 3}
_ARRAYS = (K.CL_MEM_OBJECT_IMAGE1D_ARRAY, K.CL_MEM_OBJECT_IMAGE2D_ARRAY)


class cl_image(cl_mem):
    """An image: a cl_mem whose address is its descriptor (what a kernel gets).

    Stored as a 1-, 2- or 3-D box of elements (`dims`, `size3`, `row_pitch`,
    `slice_pitch`): a 1-D array is a 2-D box of one row a layer, a 2-D array
    a 3-D box of one slice a layer; origins and regions of the commands index
    that box, as OpenCL's do.  A 1-D buffer image's elements are its buffer's
    bytes (`buffer`): its descriptor is an allocation of its own."""

    _kind = "image"

    def __init__(self, context, flags, fmt, image_type, size3, array_size, addr, handle,
                 host_ptr, buffer=None):
        kind, self.bytes, self.normalized = _TYPES[fmt.image_channel_data_type]
        self.channels = _ORDERS[fmt.image_channel_order]
        self.elem = self.bytes * self.channels
        w, h, d = size3
        self.size3 = size3
        self.row_pitch = w * self.elem
        self.slice_pitch = self.row_pitch * h
        self.nbytes = self.slice_pitch * d
        if buffer is None:
            super().__init__(context, flags, DATA_OFFSET + self.nbytes, addr, handle)
            self.data = addr + DATA_OFFSET
        else:
            super().__init__(context, flags, buffer.size, addr, buffer.handle, parent=buffer)
            self.origin = 0
            self.data = buffer.addr
        self.buffer = buffer
        self.format = fmt
        self.image_type = image_type
        self.dims = _STORAGE[image_type]
        self.array_size = array_size
        self.width = w
        self.height = h if image_type in (K.CL_MEM_OBJECT_IMAGE2D, K.CL_MEM_OBJECT_IMAGE3D,
                                          K.CL_MEM_OBJECT_IMAGE2D_ARRAY) else 0
        self.depth = d if image_type == K.CL_MEM_OBJECT_IMAGE3D else 0
        self.user_host_ptr = host_ptr
        # CL_MEM_USE_HOST_PTR: the host's bytes (an export, so they stay put), its row and
        # slice strides in the storage box's terms, and the live maps of it
        self.host_export = None
        self.host_pitches = (0, 0)
        self.host_maps = {}
        blob = _img.pack(dims=self.dims, kind=kind, channels=self.channels, nbytes=self.bytes,
                         flags=_img.OPENCL | (_img.NORM_FORMAT if self.normalized else 0),
                         data=self.data, width=w, height=h, depth=d, pitch=self.row_pitch,
                         slice_=self.slice_pitch, size=self.nbytes,
                         cl_order=int(fmt.image_channel_order),
                         cl_type=int(fmt.image_channel_data_type))
        _img.write(addr, blob)

    def _destroy(self):
        desc = self.addr if self.buffer is not None and self.handle is not None else None
        super()._destroy()
        if desc is not None and lib is not None:
            _graveyard.append(desc)
            _bury()
            clReleaseMemObject(self.buffer)

    @property
    def info_slice_pitch(self):
        """CL_IMAGE_SLICE_PITCH: a 3-D image's or 2-D array's slice, a 1-D array's row."""
        if self.image_type in (K.CL_MEM_OBJECT_IMAGE3D, K.CL_MEM_OBJECT_IMAGE2D_ARRAY):
            return self.slice_pitch
        return self.row_pitch if self.image_type == K.CL_MEM_OBJECT_IMAGE1D_ARRAY else 0


# Descriptors of released 1-D buffer images, freed once the device is idle: a
# kernel still queued may read one (it holds the buffer's memory, not the
# descriptor's), and a release must not wait for the device (the kernel may
# wait on a user event the caller sets later).  Freed at the next buffer
# image's creation or release that finds the device idle.
_graveyard = []


def _bury():
    if _graveyard and lib.pyemu_device_synchronize(0) == 0:
        from ..runtime import views as _views
        while _graveyard:
            _views.free(_graveyard.pop(), b"clReleaseMemObject")


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


def _read_desc(desc, call):
    """The fields of a cl_image_desc, checked to be integers."""
    if desc is None:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_desc is NULL", call)
    try:
        itype = int(desc.image_type)
        vals = [as_int(getattr(desc, f), call, f, CL_INVALID_IMAGE_DESCRIPTOR) for f in
                ("image_width", "image_height", "image_depth", "image_array_size",
                 "image_row_pitch", "image_slice_pitch", "num_mip_levels", "num_samples")]
        buf = desc.buffer
    except (AttributeError, TypeError, ValueError):
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"{desc!r} is not a cl_image_desc", call)
    if itype not in _STORAGE:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"image_type 0x{itype:x} is not an image type", call)
    return (itype, *vals, buf)


def _buffer_flags(f, buf, call):
    """clCreateImage's flags for a 1-D buffer image: checked against the
    buffer's, the missing ones inherited from it (OpenCL 1.2, 5.3.1)."""
    from .memory import _ACCESS, _HOSTACC, _HOSTPTR
    if f & _HOSTPTR:
        fail(CL_INVALID_VALUE, "a 1-D buffer image takes none of CL_MEM_USE_HOST_PTR, "
             "CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR", call)
    bf = int(buf.flags)
    acc, bacc = f & int(_ACCESS), bf & int(_ACCESS)
    if (bacc == K.CL_MEM_WRITE_ONLY and acc in (K.CL_MEM_READ_WRITE, K.CL_MEM_READ_ONLY) or
            bacc == K.CL_MEM_READ_ONLY and acc in (K.CL_MEM_READ_WRITE, K.CL_MEM_WRITE_ONLY)):
        fail(CL_INVALID_VALUE, f"flags {K.cl_mem_flags(acc)!r} are not allowed on a buffer "
             f"created {K.cl_mem_flags(bacc)!r}", call)
    hacc, bhacc = f & int(_HOSTACC), bf & int(_HOSTACC)
    if (bhacc == K.CL_MEM_HOST_WRITE_ONLY and hacc == K.CL_MEM_HOST_READ_ONLY or
            bhacc == K.CL_MEM_HOST_READ_ONLY and hacc == K.CL_MEM_HOST_WRITE_ONLY or
            bhacc == K.CL_MEM_HOST_NO_ACCESS and hacc in (K.CL_MEM_HOST_READ_ONLY,
                                                          K.CL_MEM_HOST_WRITE_ONLY)):
        fail(CL_INVALID_VALUE, f"host access {K.cl_mem_flags(hacc)!r} is not allowed on a "
             f"buffer created {K.cl_mem_flags(bhacc)!r}", call)
    return (acc or bacc) | (hacc or bhacc)


def _create(context, flags, fmt, desc, host_ptr, call) -> cl_image:
    ctx = check_context(context, call)
    f = _flags(flags, call)
    fmt = _format(fmt, call)
    itype, w, h, d, n_arr, rp, sp, mips, samples, buf = _read_desc(desc, call)
    n = _STORAGE[itype]
    if mips or samples:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"num_mip_levels ({mips}) and num_samples "
             f"({samples}) must be 0", call)
    if itype == K.CL_MEM_OBJECT_IMAGE1D_BUFFER:
        if buf is None:
            fail(CL_INVALID_IMAGE_DESCRIPTOR, "a CL_MEM_OBJECT_IMAGE1D_BUFFER image needs "
                 "image_desc.buffer", call)
        buf = check_mem(buf, call)
        if isinstance(buf, cl_image):
            fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_desc.buffer is an image, not a buffer",
                 call)
        if buf.context is not ctx:
            fail(CL_INVALID_CONTEXT, "image_desc.buffer is of another context", call)
        f = _buffer_flags(f, buf, call)
    elif buf is not None:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_desc.buffer must be NULL except for a "
             "CL_MEM_OBJECT_IMAGE1D_BUFFER image", call)
    # the storage box: (width, height or layers, depth or layers)
    layers = n_arr if itype in _ARRAYS else 1
    size3 = {K.CL_MEM_OBJECT_IMAGE1D: (w, 1, 1), K.CL_MEM_OBJECT_IMAGE1D_BUFFER: (w, 1, 1),
             K.CL_MEM_OBJECT_IMAGE1D_ARRAY: (w, layers, 1), K.CL_MEM_OBJECT_IMAGE2D: (w, h, 1),
             K.CL_MEM_OBJECT_IMAGE2D_ARRAY: (w, h, layers),
             K.CL_MEM_OBJECT_IMAGE3D: (w, h, d)}[itype]
    wmax = MAX_BUFFER if itype == K.CL_MEM_OBJECT_IMAGE1D_BUFFER else \
        MAX_3D[0] if itype == K.CL_MEM_OBJECT_IMAGE3D else MAX_2D[0]
    hmax = MAX_3D[1] if itype == K.CL_MEM_OBJECT_IMAGE3D else MAX_2D[1]
    if not 1 <= w <= wmax:
        fail(CL_INVALID_IMAGE_SIZE, f"image_width {w} is not 1 to {wmax}", call)
    if itype in (K.CL_MEM_OBJECT_IMAGE2D, K.CL_MEM_OBJECT_IMAGE3D,
                 K.CL_MEM_OBJECT_IMAGE2D_ARRAY) and not 1 <= h <= hmax:
        fail(CL_INVALID_IMAGE_SIZE, f"image_height {h} is not 1 to {hmax}", call)
    if itype == K.CL_MEM_OBJECT_IMAGE3D and not 1 <= d <= MAX_3D[2]:
        fail(CL_INVALID_IMAGE_SIZE, f"image_depth {d} is not 1 to {MAX_3D[2]}", call)
    if itype in _ARRAYS and not 1 <= n_arr <= MAX_ARRAY_SIZE:
        fail(CL_INVALID_IMAGE_SIZE, f"image_array_size {n_arr} is not 1 to "
             f"CL_DEVICE_IMAGE_MAX_ARRAY_SIZE ({MAX_ARRAY_SIZE})", call)
    elem = _ORDERS[fmt.image_channel_order] * _TYPES[fmt.image_channel_data_type][1]
    row = w * elem
    if buf is not None and row > buf.size:
        fail(CL_INVALID_IMAGE_SIZE, f"{w} elements of {elem} bytes do not fit the "
             f"{buf.size}-byte buffer", call)
    if host_ptr is None and (rp or sp):
        fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_row_pitch and image_slice_pitch must be 0 "
             "without host_ptr", call)
    # the host's layout: rows rp apart, slices (a 1-D array's rows too) sp apart
    rp = rp or row
    if rp < row or rp % elem:
        fail(CL_INVALID_IMAGE_DESCRIPTOR, f"image_row_pitch {rp} is less than a row ({row} "
             f"bytes) or not a multiple of the element size {elem}", call)
    if itype in (K.CL_MEM_OBJECT_IMAGE3D, K.CL_MEM_OBJECT_IMAGE2D_ARRAY,
                 K.CL_MEM_OBJECT_IMAGE1D_ARRAY):
        rows = 1 if itype == K.CL_MEM_OBJECT_IMAGE1D_ARRAY else h
        sp = sp or rp * rows
        if sp < rp * rows or sp % rp:
            fail(CL_INVALID_IMAGE_DESCRIPTOR, f"image_slice_pitch {sp} is less than "
                 f"{rp * rows} (image_row_pitch x the rows of a slice) or not a multiple of "
                 "image_row_pitch", call)
    wants = f & (K.CL_MEM_USE_HOST_PTR | K.CL_MEM_COPY_HOST_PTR)
    if bool(wants) != (host_ptr is not None):
        fail(CL_INVALID_HOST_PTR, "host_ptr goes with CL_MEM_USE_HOST_PTR or "
             "CL_MEM_COPY_HOST_PTR, and only with them", call)
    src, hrow, hslice = None, rp, sp
    if itype == K.CL_MEM_OBJECT_IMAGE1D_ARRAY:
        hrow, hslice = sp, sp       # a layer is a row of the storage
    if host_ptr is not None:
        try:
            # USE_HOST_PTR maps write into host_ptr: it must be writable, as a buffer's is
            src, have = host_buffer(host_ptr, bool(f & K.CL_MEM_USE_HOST_PTR))
        except (TypeError, ValueError) as exc:
            fail(CL_INVALID_HOST_PTR, str(exc), call)
        need = hslice * (size3[2] - 1) + hrow * (size3[1] - 1) + row
        if have < need:
            fail(CL_INVALID_HOST_PTR, f"host_ptr holds {have} bytes; the image needs {need}",
                 call)
    nbytes = row * size3[1] * size3[2]
    addr = ffi.new("unsigned long long *")
    handle = ffi.new("pyemu_buffer **")     # a reference-counted core buffer, as a cl_mem's
    try:
        _core.ensure_started()
        if buf is None:
            _core.check(lib.pyemu_buffer_alloc(DATA_OFFSET + nbytes, handle, addr))
        else:
            _bury()
            addr[0] = _img.alloc(_img.SIZE)
    except CoreError as exc:
        raise_core(exc, call, {lib.PYEMU_E_OUT_OF_MEMORY: CL_MEM_OBJECT_ALLOCATION_FAILURE})
    if buf is not None:
        clRetainMemObject(buf)               # the image holds its buffer, as drivers do
    img = cl_image(ctx, f, fmt, itype, size3, n_arr if itype in _ARRAYS else 0, addr[0],
                   handle[0], host_ptr, buf)
    if src is not None:
        _img.copy_rect(img.data, img.row_pitch, _img.address_of(src), hrow, row, size3[1],
                       size3[2], img.slice_pitch, hslice)
        if f & K.CL_MEM_USE_HOST_PTR:
            img.host_export = src
            img.host_pitches = (hrow, hslice)
    return img


def clCreateImage(context, flags, image_format, image_desc, host_ptr=None) -> cl_image:
    """clCreateImage(context, flags, image_format, image_desc, host_ptr=None) (OpenCL 1.2):
    1-D, 1-D buffer, 1-D array, 2-D, 2-D array and 3-D images of the formats
    clGetSupportedImageFormats lists, with every check of OpenCL 1.2 5.3.1.
    A 1-D buffer image (image_desc.buffer) shares its buffer's memory and
    holds a reference on it, as drivers do."""
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
    """clGetSupportedImageFormats(context, flags, image_type) -> [cl_image_format, ...]:
    the same formats for every image type (1-D, 1-D buffer, 1-D array, 2-D,
    2-D array, 3-D)."""
    call = "clGetSupportedImageFormats"
    check_context(context, call)
    _flags(flags, call)
    t = as_int(image_type, call, "image_type")
    if t not in _STORAGE:
        fail(CL_INVALID_VALUE, f"image_type 0x{t:x} is not an image type", call)
    return supported_formats()


def clGetImageInfo(image, param_name):
    """clGetImageInfo(image, param_name).  CL_IMAGE_BUFFER is the cl_mem of a
    1-D buffer image (None for the others)."""
    call = "clGetImageInfo"
    m = check_image(image, call)
    return info({
        cl_image_info.CL_IMAGE_FORMAT: lambda: cl_image_format(m.format.image_channel_order,
                                                               m.format.image_channel_data_type),
        cl_image_info.CL_IMAGE_ELEMENT_SIZE: lambda: m.elem,
        cl_image_info.CL_IMAGE_ROW_PITCH: lambda: m.row_pitch,
        cl_image_info.CL_IMAGE_SLICE_PITCH: lambda: m.info_slice_pitch,
        cl_image_info.CL_IMAGE_WIDTH: lambda: m.width,
        cl_image_info.CL_IMAGE_HEIGHT: lambda: m.height,
        cl_image_info.CL_IMAGE_DEPTH: lambda: m.depth,
        cl_image_info.CL_IMAGE_ARRAY_SIZE: lambda: m.array_size,
        cl_image_info.CL_IMAGE_BUFFER: lambda: m.buffer,
        cl_image_info.CL_IMAGE_NUM_MIP_LEVELS: lambda: 0,
        cl_image_info.CL_IMAGE_NUM_SAMPLES: lambda: 0,
    }, param_name, call, "cl_image_info")

# the commands live in image_cmd.py, which builds on the objects above
from .image_cmd import *  # noqa: E402,F401,F403
from .image_cmd import __all__ as _cmd_all  # noqa: E402

_ENUMS = (cl_channel_order, cl_channel_type, cl_image_info)
for _e in _ENUMS:
    globals().update(_e.__members__)

__all__ = ["cl_image", "cl_image_format", "cl_image_desc", "clCreateImage", "clCreateImage2D",
           "clCreateImage3D", "clGetSupportedImageFormats", "clGetImageInfo",
           "cl_channel_order", "cl_channel_type", "cl_image_info"] + _cmd_all + [
    n for _e in _ENUMS for n in _e.__members__]
