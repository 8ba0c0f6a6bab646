"""Buffers: clCreateBuffer, clCreateSubBuffer, read/write/copy/fill, map/unmap.

A buffer is a core device allocation (pyemu_mem_alloc), so kernels see it
with the same out-of-bounds faults as cudaMalloc memory.  Host memory is any
object with the buffer protocol (NumPy arrays, bytearray, ...); reads and
writes never touch it past its end, and asynchronous commands keep it alive
until they are complete.

CL_MEM_USE_HOST_PTR copies, it does not alias: the host memory is copied in
at creation, copied back into it by clEnqueueMapBuffer (which returns a view
of the host memory, as the C call returns a pointer into host_ptr) and out of
it again by clEnqueueUnmapMemObject after a map for writing.  Between those
points the device copy is the buffer (clEnqueueReadBuffer reads it).  Other
buffers map as a view of the device memory itself (zero copy).

The memory of a buffer is a reference-counted buffer of the core
(pyemu_buffer, csrc/buffer.c): the buffer object holds one reference, each
live sub-buffer one, and each command that uses it one from its enqueue to
its completion (taken and dropped by the core).  So clReleaseMemObject never
blocks, as in C, and the memory goes when the last of them does, on
whichever thread that is; Python keeps no list of commands per buffer.  A
CL_MEM_USE_HOST_PTR buffer holds a buffer-protocol export of host_ptr until
it and its sub-buffers are released, so a bytearray cannot be resized under
it.
"""
from __future__ import annotations

import numpy as np

from ..runtime import core as _core
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from ..runtime.host import host_buffer
from . import _constants as K
from ._base import CLObject, as_int, check, info, release, retain
from ._errors import (CL_INVALID_BUFFER_SIZE, CL_INVALID_CONTEXT, CL_INVALID_HOST_PTR,
                      CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION, CL_INVALID_VALUE,
                      CL_MEM_COPY_OVERLAP, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                      CL_MISALIGNED_SUB_BUFFER_OFFSET, fail, raise_core)
from .event import enqueue
from .platform import MEM_BASE_ADDR_ALIGN_BITS, check_context, max_alloc
from .queue import check_queue

_ACCESS = K.CL_MEM_READ_WRITE | K.CL_MEM_WRITE_ONLY | K.CL_MEM_READ_ONLY
_HOSTPTR = K.CL_MEM_USE_HOST_PTR | K.CL_MEM_ALLOC_HOST_PTR | K.CL_MEM_COPY_HOST_PTR
_HOSTACC = K.CL_MEM_HOST_WRITE_ONLY | K.CL_MEM_HOST_READ_ONLY | K.CL_MEM_HOST_NO_ACCESS
_ALL = int(_ACCESS | _HOSTPTR | _HOSTACC)


class cl_mem(CLObject):
    """A buffer (or sub-buffer): a range of a reference-counted core buffer."""

    _kind = "memory object"

    def __init__(self, context, flags, size, addr, handle, host_ptr=None, parent=None,
                 origin=0):
        super().__init__()
        self.context = context
        self.flags = K.cl_mem_flags(flags or K.CL_MEM_READ_WRITE)
        self.size = size
        self.addr = addr             # device address of byte 0
        self.handle = handle         # pyemu_buffer * (the parent's for a sub-buffer)
        self.host_ptr = host_ptr     # USE_HOST_PTR: the user's object (parent's for a sub)
        # an export of host_ptr pins its memory (a bytearray cannot be resized)
        self._export = memoryview(host_ptr) if host_ptr is not None and parent is None else None
        self.parent = parent
        self.origin = origin
        self.root = parent.root if parent is not None else self
        self.maps = []               # [address, size, flags] of each live mapping
        if parent is None:
            self._holds = 1          # this object and each live sub-buffer (the export's)
        else:
            lib.pyemu_buffer_retain(handle)     # the sub-buffer's reference on the memory
            with CLObject._lock:
                self.root._holds += 1

    def use(self, cmd):
        """Note a command that uses the memory: it is freed only after it completes."""
        use_buffers(cmd, (self,))

    def _destroy(self):
        _views.invalidate()          # enqueues check their memory objects again
        handle, self.handle = self.handle, None
        if handle is not None and lib is not None:
            # the root's release names the call in later use-after-free reports
            lib.pyemu_buffer_release(handle, b"clReleaseMemObject" if self.parent is None
                                     else ffi.NULL)
        r = self.root
        with CLObject._lock:
            r._holds -= 1
            last = r._holds == 0
        if last and r._export is not None:
            r._export.release()
            r._export = None

    def __del__(self):
        if getattr(self, "_refs", 0) > 0 and getattr(self, "handle", None) is not None:
            self._refs = 0
            self._destroy()


def use_buffers(cmd, mems) -> None:
    """`cmd` (just enqueued) holds the memory of each of `mems` until it completes."""
    arr = ffi.new("pyemu_buffer *[]", [m.handle for m in mems])
    if lib.pyemu_cmd_use_buffers(cmd, arr, len(mems)):
        _sync.wait_command(cmd)         # out of host memory: hold them by waiting


def check_mem(memobj, call) -> cl_mem:
    return check(memobj, cl_mem, CL_INVALID_MEM_OBJECT, call)


def check_buffer(memobj, call) -> cl_mem:
    """A buffer or sub-buffer; an image is CL_INVALID_MEM_OBJECT (the buffer
    calls would otherwise read or write its descriptor)."""
    m = check(memobj, cl_mem, CL_INVALID_MEM_OBJECT, call)
    if m._kind == "image":
        fail(CL_INVALID_MEM_OBJECT, "the memory object is an image, not a buffer", call)
    return m


def _flags(flags, call):
    f = as_int(flags, call, "flags")
    if f & ~_ALL:
        fail(CL_INVALID_VALUE, f"0x{f:x} has bits that are not cl_mem_flags", call)
    if bin(f & int(_ACCESS)).count("1") > 1:
        fail(CL_INVALID_VALUE, "more than one of CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, "
             "CL_MEM_READ_ONLY", call)
    if bin(f & int(_HOSTACC)).count("1") > 1:
        fail(CL_INVALID_VALUE, "more than one of CL_MEM_HOST_WRITE_ONLY, "
             "CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS", call)
    if f & K.CL_MEM_USE_HOST_PTR and f & (K.CL_MEM_ALLOC_HOST_PTR | K.CL_MEM_COPY_HOST_PTR):
        fail(CL_INVALID_VALUE, "CL_MEM_USE_HOST_PTR goes with neither CL_MEM_ALLOC_HOST_PTR "
             "nor CL_MEM_COPY_HOST_PTR", call)
    return f


def clCreateBuffer(context, flags, size, host_ptr=None) -> cl_mem:
    """clCreateBuffer(context, flags, size, host_ptr=None): a buffer of `size` bytes."""
    call = "clCreateBuffer"
    ctx = check_context(context, call)
    f = _flags(flags, call)
    n = as_int(size, call, "size", CL_INVALID_BUFFER_SIZE)
    if n == 0 or n > max_alloc():
        fail(CL_INVALID_BUFFER_SIZE, f"size {n} is not 1 to CL_DEVICE_MAX_MEM_ALLOC_SIZE "
             f"({max_alloc()})", call)
    wants = f & (K.CL_MEM_USE_HOST_PTR | K.CL_MEM_COPY_HOST_PTR)
    if wants and host_ptr is None:
        fail(CL_INVALID_HOST_PTR, "CL_MEM_USE_HOST_PTR and CL_MEM_COPY_HOST_PTR need host_ptr",
             call)
    if not wants and host_ptr is not None:
        fail(CL_INVALID_HOST_PTR, "host_ptr is given without CL_MEM_USE_HOST_PTR or "
             "CL_MEM_COPY_HOST_PTR", call)
    src = None
    if host_ptr is not None:
        try:
            src, nbytes = host_buffer(host_ptr, bool(f & K.CL_MEM_USE_HOST_PTR))
        except (TypeError, ValueError) as exc:
            fail(CL_INVALID_HOST_PTR, str(exc), call)
        if nbytes < n:
            fail(CL_INVALID_HOST_PTR, f"host_ptr holds {nbytes} bytes; the buffer is {n}", call)
    addr = ffi.new("unsigned long long *")
    handle = ffi.new("pyemu_buffer **")
    try:
        _core.check(lib.pyemu_buffer_alloc(n, handle, addr))
    except CoreError as exc:
        raise_core(exc, call, {lib.PYEMU_E_OUT_OF_MEMORY: CL_MEM_OBJECT_ALLOCATION_FAILURE})
    if src is not None:
        ffi.memmove(ffi.cast("void *", addr[0]), src, n)
    return cl_mem(ctx, f, n, addr[0], handle[0],
                  host_ptr if f & K.CL_MEM_USE_HOST_PTR else None)


def clCreateSubBuffer(buffer, flags, buffer_create_type, buffer_create_info) -> cl_mem:
    """clCreateSubBuffer(buffer, flags, CL_BUFFER_CREATE_TYPE_REGION, (origin, size)).

    origin is a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN bits (128 bytes);
    flags left out of `flags` are the parent's."""
    call = "clCreateSubBuffer"
    b = check_buffer(buffer, call)
    if b.parent is not None:
        fail(CL_INVALID_MEM_OBJECT, "a sub-buffer cannot have sub-buffers", call)
    f = _flags(flags, call)
    if f & _HOSTPTR:
        fail(CL_INVALID_VALUE, "a sub-buffer takes no host pointer flags", call)
    pf = int(b.flags)
    if (pf & K.CL_MEM_WRITE_ONLY and f & (K.CL_MEM_READ_WRITE | K.CL_MEM_READ_ONLY) or
            pf & K.CL_MEM_READ_ONLY and f & (K.CL_MEM_READ_WRITE | K.CL_MEM_WRITE_ONLY)):
        fail(CL_INVALID_VALUE, f"{K.cl_mem_flags(f)!r} asks for more device access than the "
             f"parent's {b.flags!r}", call)
    if (pf & K.CL_MEM_HOST_WRITE_ONLY and f & K.CL_MEM_HOST_READ_ONLY or
            pf & K.CL_MEM_HOST_READ_ONLY and f & K.CL_MEM_HOST_WRITE_ONLY or
            pf & K.CL_MEM_HOST_NO_ACCESS and f & (K.CL_MEM_HOST_READ_ONLY |
                                                  K.CL_MEM_HOST_WRITE_ONLY)):
        fail(CL_INVALID_VALUE, f"{K.cl_mem_flags(f)!r} asks for more host access than the "
             f"parent's {b.flags!r}", call)
    if not f & _ACCESS:
        f |= pf & int(_ACCESS)
    if not f & _HOSTACC:
        f |= pf & int(_HOSTACC)
    f |= pf & int(_HOSTPTR)
    try:
        t = int(buffer_create_type)
    except (TypeError, ValueError):
        t = None
    if t != K.CL_BUFFER_CREATE_TYPE_REGION:
        fail(CL_INVALID_VALUE, f"buffer_create_type {buffer_create_type!r} is not "
             "CL_BUFFER_CREATE_TYPE_REGION", call)
    try:
        origin, size = buffer_create_info
    except (TypeError, ValueError):
        fail(CL_INVALID_VALUE, "buffer_create_info must be (origin, size)", call)
    origin = as_int(origin, call, "origin")
    size = as_int(size, call, "size")
    if size == 0:
        fail(CL_INVALID_BUFFER_SIZE, "the region is 0 bytes", call)
    if origin + size > b.size:
        fail(CL_INVALID_VALUE, f"region ({origin}, {size}) runs past the {b.size}-byte buffer",
             call)
    if origin % (MEM_BASE_ADDR_ALIGN_BITS // 8):
        fail(CL_MISALIGNED_SUB_BUFFER_OFFSET, f"origin {origin} is not a multiple of "
             f"{MEM_BASE_ADDR_ALIGN_BITS // 8} bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN)", call)
    return cl_mem(b.context, f, size, b.addr + origin, b.handle, b.host_ptr, parent=b,
                  origin=origin)


def clGetMemObjectInfo(memobj, param_name):
    """clGetMemObjectInfo(memobj, param_name)."""
    m = check_mem(memobj, "clGetMemObjectInfo")
    return info({
        K.CL_MEM_TYPE: lambda: getattr(m, "image_type", K.CL_MEM_OBJECT_BUFFER),
        K.CL_MEM_FLAGS: lambda: m.flags,
        K.CL_MEM_SIZE: lambda: m.size,
        K.CL_MEM_HOST_PTR: lambda: m.host_ptr,
        K.CL_MEM_MAP_COUNT: lambda: len(m.maps),
        K.CL_MEM_REFERENCE_COUNT: lambda: m._refs,
        K.CL_MEM_CONTEXT: lambda: m.context,
        K.CL_MEM_ASSOCIATED_MEMOBJECT: lambda: m.parent,
        K.CL_MEM_OFFSET: lambda: m.origin,
        K.CL_MEM_USES_SVM_POINTER: lambda: False,
        K.CL_MEM_PROPERTIES: lambda: [],
    }, param_name, "clGetMemObjectInfo", "cl_mem_info")


def clRetainMemObject(memobj):
    """clRetainMemObject: one more reference."""
    return retain(memobj, cl_mem, CL_INVALID_MEM_OBJECT, "clRetainMemObject")


def clReleaseMemObject(memobj):
    """clReleaseMemObject: one reference less; at 0 (and no live sub-buffer) the memory
    is freed once the commands that use it are complete."""
    return release(memobj, cl_mem, CL_INVALID_MEM_OBJECT, "clReleaseMemObject")


# ---- commands ----

def _queue_and_mem(command_queue, memobj, call, buffer=True):
    q = check_queue(command_queue, call)
    m = check_buffer(memobj, call) if buffer else check_mem(memobj, call)
    if m.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the buffer are of different contexts", call)
    return q, m


def _range(m, offset, size, call, what="region"):
    off = as_int(offset, call, "offset")
    n = as_int(size, call, "size")
    if n == 0:
        fail(CL_INVALID_VALUE, "size is 0", call)
    if off + n > m.size:
        fail(CL_INVALID_VALUE, f"{what} ({off}, {n}) runs {off + n - m.size} bytes past the end "
             f"of the {m.size}-byte buffer", call)
    return off, n


def _host(ptr, n, writable, call):
    if ptr is None:
        fail(CL_INVALID_VALUE, "ptr is NULL", call)
    try:
        p, nbytes = host_buffer(ptr, writable)
    except (TypeError, ValueError) as exc:
        fail(CL_INVALID_VALUE, f"ptr: {exc}", call)
    if nbytes < n:
        fail(CL_INVALID_VALUE, f"size is {n} bytes but the host memory holds only {nbytes}",
             call)
    return p


def _copy_cmd(q, mems, call, ctype, dst, src, n, wait, keep, blocking):
    return enqueue(q, call, ctype,
                   lambda arr, k, out: lib.pyemu_enqueue_copy(q.handle, dst, src, n, arr, k, out),
                   wait, keep=keep, blocking=blocking, mems=mems)


def _blocking(value, call, what):
    try:
        return bool(int(value))
    except (TypeError, ValueError):
        fail(CL_INVALID_VALUE, f"{what} must be CL_TRUE or CL_FALSE", call)


def clEnqueueReadBuffer(command_queue, buffer, blocking_read, offset, size, ptr,
                        event_wait_list=None):
    """clEnqueueReadBuffer(command_queue, buffer, blocking_read, offset, size, ptr,
    event_wait_list=None) -> event: copy `size` bytes at `offset` into ptr."""
    call = "clEnqueueReadBuffer"
    q, m = _queue_and_mem(command_queue, buffer, call)
    blocking = _blocking(blocking_read, call, "blocking_read")
    off, n = _range(m, offset, size, call)
    if m.flags & (K.CL_MEM_HOST_WRITE_ONLY | K.CL_MEM_HOST_NO_ACCESS):
        fail(CL_INVALID_OPERATION, f"the buffer is {m.flags!r}: the host may not read it", call)
    dst = _host(ptr, n, True, call)
    src = ffi.cast("char *", m.addr + off)
    return _copy_cmd(q, (m,), call, K.CL_COMMAND_READ_BUFFER, dst, src, n, event_wait_list,
                     (ptr, dst), blocking)


def clEnqueueWriteBuffer(command_queue, buffer, blocking_write, offset, size, ptr,
                         event_wait_list=None):
    """clEnqueueWriteBuffer(command_queue, buffer, blocking_write, offset, size, ptr,
    event_wait_list=None) -> event: copy `size` bytes of ptr to `offset`.  A
    non-blocking write reads ptr when it runs: do not change it before."""
    call = "clEnqueueWriteBuffer"
    q, m = _queue_and_mem(command_queue, buffer, call)
    blocking = _blocking(blocking_write, call, "blocking_write")
    off, n = _range(m, offset, size, call)
    if m.flags & (K.CL_MEM_HOST_READ_ONLY | K.CL_MEM_HOST_NO_ACCESS):
        fail(CL_INVALID_OPERATION, f"the buffer is {m.flags!r}: the host may not write it", call)
    src = _host(ptr, n, False, call)
    dst = ffi.cast("char *", m.addr + off)
    return _copy_cmd(q, (m,), call, K.CL_COMMAND_WRITE_BUFFER, dst, src, n, event_wait_list,
                     (ptr, src), blocking)


def clEnqueueCopyBuffer(command_queue, src_buffer, dst_buffer, src_offset, dst_offset, size,
                        event_wait_list=None):
    """clEnqueueCopyBuffer(command_queue, src_buffer, dst_buffer, src_offset, dst_offset,
    size, event_wait_list=None) -> event."""
    call = "clEnqueueCopyBuffer"
    q = check_queue(command_queue, call)
    s = check_buffer(src_buffer, call)
    d = check_buffer(dst_buffer, call)
    if s.context is not q.context or d.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the queue and the buffers are of different contexts", call)
    so, n = _range(s, src_offset, size, call, "source region")
    do, _ = _range(d, dst_offset, size, call, "destination region")
    if s.root is d.root:
        a, b = s.origin + so, d.origin + do
        if a < b + n and b < a + n:
            fail(CL_MEM_COPY_OVERLAP, f"source ({a}, {n}) and destination ({b}, {n}) overlap "
                 "in the same memory", call)
    return _copy_cmd(q, (s, d), call, K.CL_COMMAND_COPY_BUFFER, ffi.cast("char *", d.addr + do),
                     ffi.cast("char *", s.addr + so), n, event_wait_list, (), False)


def clEnqueueFillBuffer(command_queue, buffer, pattern, pattern_size, offset, size,
                        event_wait_list=None):
    """clEnqueueFillBuffer(command_queue, buffer, pattern, pattern_size, offset, size,
    event_wait_list=None) -> event: `pattern` (bytes, a NumPy scalar or array of
    pattern_size bytes) repeated over the region."""
    call = "clEnqueueFillBuffer"
    q, m = _queue_and_mem(command_queue, buffer, call)
    ps = as_int(pattern_size, call, "pattern_size")
    if pattern is None:
        fail(CL_INVALID_VALUE, "pattern is NULL", call)
    if ps not in (1, 2, 4, 8, 16, 32, 64, 128):
        fail(CL_INVALID_VALUE, f"pattern_size {ps} is not 1, 2, 4, ..., 128", call)
    if isinstance(pattern, (np.generic, np.ndarray)):
        data = np.ascontiguousarray(pattern).tobytes()
    else:
        try:
            data = bytes(memoryview(pattern))
        except TypeError:
            fail(CL_INVALID_VALUE, f"pattern is {type(pattern).__name__}, not bytes or a NumPy "
                 "value", call)
    if len(data) < ps:
        fail(CL_INVALID_VALUE, f"pattern holds {len(data)} bytes; pattern_size is {ps}", call)
    off = as_int(offset, call, "offset")
    n = as_int(size, call, "size")
    if off % ps or n % ps:
        fail(CL_INVALID_VALUE, f"offset {off} and size {n} must be multiples of pattern_size {ps}",
             call)
    off, n = _range(m, off, n, call)
    pat = ffi.new("char[]", data[:ps])
    dst = ffi.cast("char *", m.addr + off)
    ev = enqueue(q, call, K.CL_COMMAND_FILL_BUFFER,
                 lambda arr, k, out: lib.pyemu_enqueue_fill(q.handle, dst, pat, ps, n, arr, k,
                                                            out),
                 event_wait_list, mems=(m,))
    return ev


def map_flags_for(m, map_flags, call, what) -> int:
    """The cl_map_flags of clEnqueueMapBuffer/MapImage, checked against the
    memory object's host-access flags (CL_INVALID_VALUE, CL_INVALID_OPERATION)."""
    f = as_int(map_flags, call, "map_flags")
    if f & ~int(K.CL_MAP_READ | K.CL_MAP_WRITE | K.CL_MAP_WRITE_INVALIDATE_REGION):
        fail(CL_INVALID_VALUE, f"0x{f:x} has bits that are not cl_map_flags", call)
    if f & K.CL_MAP_WRITE_INVALIDATE_REGION and f & (K.CL_MAP_READ | K.CL_MAP_WRITE):
        fail(CL_INVALID_VALUE, "CL_MAP_WRITE_INVALIDATE_REGION goes with neither CL_MAP_READ "
             "nor CL_MAP_WRITE", call)
    hf = m.flags
    if (f & K.CL_MAP_READ and hf & (K.CL_MEM_HOST_WRITE_ONLY | K.CL_MEM_HOST_NO_ACCESS) or
            f & (K.CL_MAP_WRITE | K.CL_MAP_WRITE_INVALIDATE_REGION) and
            hf & (K.CL_MEM_HOST_READ_ONLY | K.CL_MEM_HOST_NO_ACCESS)):
        fail(CL_INVALID_OPERATION, f"{K.cl_map_flags(f)!r} is not allowed on a {hf!r} {what}",
             call)
    return f


def clEnqueueMapBuffer(command_queue, buffer, blocking_map, map_flags, offset, size,
                       event_wait_list=None):
    """clEnqueueMapBuffer(command_queue, buffer, blocking_map, map_flags, offset, size,
    event_wait_list=None) -> (mapped, event): `mapped` is a writable NumPy uint8 array
    of `size` bytes (.view(np.float32) to type it), valid until unmapped."""
    call = "clEnqueueMapBuffer"
    q, m = _queue_and_mem(command_queue, buffer, call)
    blocking = _blocking(blocking_map, call, "blocking_map")
    f = map_flags_for(m, map_flags, call, "buffer")
    off, n = _range(m, offset, size, call)
    if m.host_ptr is not None:
        # USE_HOST_PTR: bring the host memory up to date, and map it
        host = np.frombuffer(m.host_ptr, np.uint8) if not isinstance(m.host_ptr, np.ndarray) \
            else m.host_ptr.reshape(-1).view(np.uint8)
        mapped = host[m.origin + off:m.origin + off + n]
        dst = ffi.from_buffer(mapped, require_writable=True)
        src = ffi.cast("char *", m.addr + off)
        if f & K.CL_MAP_WRITE_INVALIDATE_REGION:
            ev = enqueue(q, call, K.CL_COMMAND_MAP_BUFFER,
                         lambda arr, k, out: lib.pyemu_enqueue_marker(q.handle, 0, arr, k, out),
                         event_wait_list, blocking=blocking, mems=(m,))
        else:
            ev = enqueue(q, call, K.CL_COMMAND_MAP_BUFFER,
                         lambda arr, k, out: lib.pyemu_enqueue_copy(q.handle, dst, src, n, arr, k,
                                                                    out),
                         event_wait_list, keep=(mapped, dst), blocking=blocking, mems=(m,))
        addr = int(ffi.cast("uintptr_t", dst))
    else:
        addr = m.addr + off
        ev = enqueue(q, call, K.CL_COMMAND_MAP_BUFFER,
                     lambda arr, k, out: lib.pyemu_enqueue_marker(q.handle, 0, arr, k, out),
                     event_wait_list, blocking=blocking, mems=(m,))
        mapped = np.frombuffer(ffi.buffer(ffi.cast("char *", addr), n), np.uint8)
        _views.add_view(m.root.addr, mapped)
    m.maps.append([addr, n, f, off])
    return mapped, ev


def _address_of(obj):
    try:
        return int(ffi.cast("uintptr_t", ffi.from_buffer(obj)))
    except TypeError:
        return None


def clEnqueueUnmapMemObject(command_queue, memobj, mapped_ptr, event_wait_list=None):
    """clEnqueueUnmapMemObject(command_queue, memobj, mapped_ptr, event_wait_list=None)
    -> event.  mapped_ptr is what clEnqueueMapBuffer returned for memobj."""
    call = "clEnqueueUnmapMemObject"
    q, m = _queue_and_mem(command_queue, memobj, call, buffer=False)
    addr = _address_of(mapped_ptr) if mapped_ptr is not None else None
    entry = next((e for e in m.maps if e[0] == addr), None)
    if entry is None:
        fail(CL_INVALID_VALUE, "mapped_ptr is not a mapping of this memory object", call)
    _, n, f, off = entry
    host_maps = getattr(m, "host_maps", None)     # a CL_MEM_USE_HOST_PTR image's (image_cmd.py)
    if host_maps and addr in host_maps:
        from .image_cmd import unmap_host
        if f & (K.CL_MAP_WRITE | K.CL_MAP_WRITE_INVALIDATE_REGION):
            ev = unmap_host(q, m, addr, event_wait_list, (mapped_ptr,), call)
        else:
            host_maps[addr].pop()
            if not host_maps[addr]:
                del host_maps[addr]
            ev = enqueue(q, call, K.CL_COMMAND_UNMAP_MEM_OBJECT,
                         lambda arr, k, out: lib.pyemu_enqueue_marker(q.handle, 0, arr, k, out),
                         event_wait_list, mems=(m,))
    elif m.host_ptr is not None and f & (K.CL_MAP_WRITE | K.CL_MAP_WRITE_INVALIDATE_REGION):
        src = ffi.cast("char *", addr)
        dst = ffi.cast("char *", m.addr + off)
        ev = enqueue(q, call, K.CL_COMMAND_UNMAP_MEM_OBJECT,
                     lambda arr, k, out: lib.pyemu_enqueue_copy(q.handle, dst, src, n, arr, k,
                                                                out),
                     event_wait_list, keep=(mapped_ptr,), mems=(m,))
    else:
        ev = enqueue(q, call, K.CL_COMMAND_UNMAP_MEM_OBJECT,
                     lambda arr, k, out: lib.pyemu_enqueue_marker(q.handle, 0, arr, k, out),
                     event_wait_list, mems=(m,))
    m.maps.remove(entry)
    return ev


# the rectangular copies live in rect.py, which builds on the helpers above
from .rect import *  # noqa: E402,F401,F403
from .rect import __all__ as _rect  # noqa: E402

__all__ = ["cl_mem", "clCreateBuffer", "clCreateSubBuffer", "clGetMemObjectInfo",
           "clRetainMemObject", "clReleaseMemObject", "clEnqueueReadBuffer",
           "clEnqueueWriteBuffer", "clEnqueueCopyBuffer", "clEnqueueFillBuffer",
           "clEnqueueMapBuffer", "clEnqueueUnmapMemObject"] + _rect
