"""Buffers: creation rules, sub-buffers, read/write/copy/fill, map/unmap, release."""
import gc

import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F403

N = 256


def _read(queue, buf, n=None, dtype=np.int32):
    n = n or clGetMemObjectInfo(buf, CL_MEM_SIZE)
    out = np.zeros(n // np.dtype(dtype).itemsize, dtype)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, n, out)
    return out


# ---- clCreateBuffer ----

def test_clCreateBuffer_copy_host_ptr(context, queue):
    a = np.arange(N, dtype=np.int32)
    b = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.nbytes, a)
    a[:] = 0                          # copied at creation: later changes do not count
    assert (_read(queue, b) == np.arange(N)).all()
    assert clGetMemObjectInfo(b, CL_MEM_HOST_PTR) is None
    clReleaseMemObject(b)


def test_clCreateBuffer_info(context):
    b = clCreateBuffer(context, 0, 100)
    assert clGetMemObjectInfo(b, CL_MEM_FLAGS) == CL_MEM_READ_WRITE
    assert clGetMemObjectInfo(b, CL_MEM_SIZE) == 100
    assert clGetMemObjectInfo(b, CL_MEM_TYPE) == CL_MEM_OBJECT_BUFFER
    assert clGetMemObjectInfo(b, CL_MEM_CONTEXT) is context
    assert clGetMemObjectInfo(b, CL_MEM_ASSOCIATED_MEMOBJECT) is None
    assert clGetMemObjectInfo(b, CL_MEM_OFFSET) == 0
    assert clGetMemObjectInfo(b, CL_MEM_MAP_COUNT) == 0
    assert clGetMemObjectInfo(b, CL_MEM_REFERENCE_COUNT) == 1
    clRetainMemObject(b)
    assert clGetMemObjectInfo(b, CL_MEM_REFERENCE_COUNT) == 2
    clReleaseMemObject(b)
    clReleaseMemObject(b)


def test_clCreateBuffer_starts_zeroed_alloc_host_ptr(context, queue):
    b = clCreateBuffer(context, CL_MEM_ALLOC_HOST_PTR, 64)
    assert (_read(queue, b) == 0).all()


def test_clCreateBuffer_copy_host_ptr_without_pointer(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_COPY_HOST_PTR, 16) == CL_INVALID_HOST_PTR


def test_clCreateBuffer_use_host_ptr_without_pointer(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_USE_HOST_PTR, 16) == CL_INVALID_HOST_PTR


def test_clCreateBuffer_pointer_without_host_ptr_flag(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_READ_WRITE, 16, bytearray(16)) == \
        CL_INVALID_HOST_PTR


def test_clCreateBuffer_host_ptr_too_small(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_COPY_HOST_PTR, 16, bytearray(8)) == \
        CL_INVALID_HOST_PTR


def test_clCreateBuffer_use_host_ptr_read_only_memory(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_USE_HOST_PTR, 4, b"abcd") == \
        CL_INVALID_HOST_PTR


def test_clCreateBuffer_use_with_copy_host_ptr(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 16,
                   bytearray(16)) == CL_INVALID_VALUE


def test_clCreateBuffer_use_with_alloc_host_ptr(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 16,
                   bytearray(16)) == CL_INVALID_VALUE


def test_clCreateBuffer_two_access_flags(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16) == \
        CL_INVALID_VALUE


def test_clCreateBuffer_two_host_access_flags(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
                   16) == CL_INVALID_VALUE


def test_clCreateBuffer_unknown_flag(context, code_of):
    assert code_of(clCreateBuffer, context, 1 << 6, 16) == CL_INVALID_VALUE


def test_clCreateBuffer_size_zero(context, code_of):
    assert code_of(clCreateBuffer, context, CL_MEM_READ_WRITE, 0) == CL_INVALID_BUFFER_SIZE


def test_clCreateBuffer_size_over_max_alloc(context, device, code_of):
    big = clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE) + 1
    assert code_of(clCreateBuffer, context, CL_MEM_READ_WRITE, big) == CL_INVALID_BUFFER_SIZE


def test_clCreateBuffer_bad_context(code_of):
    assert code_of(clCreateBuffer, None, CL_MEM_READ_WRITE, 16) == CL_INVALID_CONTEXT


def test_clReleaseMemObject_twice(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 16)
    clReleaseMemObject(b)
    assert code_of(clReleaseMemObject, b) == CL_INVALID_MEM_OBJECT
    assert code_of(clGetMemObjectInfo, b, CL_MEM_SIZE) == CL_INVALID_MEM_OBJECT


def test_clReleaseMemObject_never_blocks_and_frees_after_pending_commands(context, queue):
    """As in C: a release at count 0 returns at once, even while commands that
    use the buffer wait on a user event nobody has set yet; the memory is
    freed by the core once they are complete."""
    from pyemu.cuda._memory import allocation_of
    u = clCreateUserEvent(context)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * N)
    addr = b.addr
    src = np.arange(N, dtype=np.int32)
    w = clEnqueueWriteBuffer(queue, b, CL_FALSE, 0, 4 * N, src, [u])
    out = np.zeros(N, np.int32)
    r = clEnqueueReadBuffer(queue, b, CL_FALSE, 0, 4 * N, out)
    clReleaseMemObject(b)       # returns at once: the write still waits for u
    assert clGetEventInfo(r, CL_EVENT_COMMAND_EXECUTION_STATUS) != CL_COMPLETE
    assert allocation_of(addr) is not None          # not freed under the commands
    clSetUserEventStatus(u, CL_COMPLETE)
    clFinish(queue)
    assert clGetEventInfo(r, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE
    assert (out == src).all()
    assert allocation_of(addr) is None              # freed once they were done
    del w


def test_use_host_ptr_bytearray_cannot_be_resized_while_the_buffer_lives(context, queue):
    """The buffer holds an export of host_ptr: resizing the bytearray under it
    (which would leave the buffer a dangling pointer) raises BufferError; after
    the release it can be resized again."""
    host = bytearray(range(64))
    b = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 64, host)
    with pytest.raises(BufferError):
        host.extend(b"x" * 4096)
    m, ev = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ, 0, 64)
    assert bytes(m) == bytes(range(64))
    clEnqueueUnmapMemObject(queue, b, m)
    clFinish(queue)
    del m
    clReleaseMemObject(b)
    clFinish(queue)
    host.extend(b"x" * 4096)    # the buffer is gone: the host memory is the user's again
    assert len(host) == 64 + 4096


# ---- USE_HOST_PTR ----

def test_clCreateBuffer_use_host_ptr_map_reads_back_into_host_memory(context, queue):
    host = np.arange(N, dtype=np.int32)
    b = clCreateBuffer(context, CL_MEM_USE_HOST_PTR, host.nbytes, host)
    assert clGetMemObjectInfo(b, CL_MEM_HOST_PTR) is host
    clEnqueueFillBuffer(queue, b, np.int32(9), 4, 0, host.nbytes)
    mapped, ev = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                    host.nbytes)
    assert (host == 9).all()                                     # copied back at the map
    assert mapped.ctypes.data == host.ctypes.data                # a pointer into host_ptr
    mapped.view(np.int32)[:4] = [1, 2, 3, 4]
    clEnqueueUnmapMemObject(queue, b, mapped)
    assert _read(queue, b)[:5].tolist() == [1, 2, 3, 4, 9]       # copied in at the unmap


# ---- sub-buffers ----

def test_clCreateSubBuffer_reads_and_writes_the_parent_region(context, queue):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    s = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, (256, 128))
    assert clGetMemObjectInfo(s, CL_MEM_SIZE) == 128
    assert clGetMemObjectInfo(s, CL_MEM_OFFSET) == 256
    assert clGetMemObjectInfo(s, CL_MEM_ASSOCIATED_MEMOBJECT) is b
    assert clGetMemObjectInfo(s, CL_MEM_FLAGS) == CL_MEM_READ_WRITE
    clEnqueueWriteBuffer(queue, s, CL_TRUE, 0, 128, np.full(32, 5, np.int32))
    whole = _read(queue, b)
    assert (whole[64:96] == 5).all() and whole[:64].sum() == 0 and whole[96:].sum() == 0
    clReleaseMemObject(b)                   # the sub-buffer keeps the memory
    assert (_read(queue, s) == 5).all()
    clReleaseMemObject(s)


def test_clCreateSubBuffer_misaligned_origin(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    assert code_of(clCreateSubBuffer, b, 0, CL_BUFFER_CREATE_TYPE_REGION, (4, 16)) == \
        CL_MISALIGNED_SUB_BUFFER_OFFSET


def test_clCreateSubBuffer_region_out_of_range(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    assert code_of(clCreateSubBuffer, b, 0, CL_BUFFER_CREATE_TYPE_REGION, (896, 256)) == \
        CL_INVALID_VALUE


def test_clCreateSubBuffer_size_zero(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    assert code_of(clCreateSubBuffer, b, 0, CL_BUFFER_CREATE_TYPE_REGION, (0, 0)) == \
        CL_INVALID_BUFFER_SIZE


def test_clCreateSubBuffer_bad_create_type(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    assert code_of(clCreateSubBuffer, b, 0, 0x1221, (0, 16)) == CL_INVALID_VALUE


def test_clCreateSubBuffer_of_a_sub_buffer(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    s = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, (0, 512))
    assert code_of(clCreateSubBuffer, s, 0, CL_BUFFER_CREATE_TYPE_REGION, (0, 16)) == \
        CL_INVALID_MEM_OBJECT


def test_clCreateSubBuffer_more_access_than_parent(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_ONLY, 1024)
    assert code_of(clCreateSubBuffer, b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                   (0, 16)) == CL_INVALID_VALUE
    s = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, (0, 16))
    assert clGetMemObjectInfo(s, CL_MEM_FLAGS) == CL_MEM_READ_ONLY


def test_clCreateSubBuffer_host_ptr_flags(context, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    assert code_of(clCreateSubBuffer, b, CL_MEM_ALLOC_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION,
                   (0, 16)) == CL_INVALID_VALUE


# ---- read / write ----

def test_clEnqueueWriteBuffer_and_read_with_offsets(context, queue):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    ev = clEnqueueWriteBuffer(queue, b, CL_FALSE, 16, 8, np.array([7, 8], np.int32))
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_WRITE_BUFFER
    out = np.zeros(2, np.int32)
    ev2 = clEnqueueReadBuffer(queue, b, CL_FALSE, 16, 8, out)
    clWaitForEvents([ev2])
    assert out.tolist() == [7, 8]
    assert clGetEventInfo(ev2, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_READ_BUFFER


def test_clEnqueueWriteBuffer_non_blocking_keeps_host_memory_alive(context, queue):
    u = clCreateUserEvent(context)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * N)
    ev = clEnqueueWriteBuffer(queue, b, CL_FALSE, 0, 4 * N, np.arange(N, dtype=np.int32), [u])
    gc.collect()                          # the temporary array lives on in the command
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])
    assert (_read(queue, b) == np.arange(N)).all()


def test_clEnqueueReadBuffer_out_of_range(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 60, 8, bytearray(8)) == \
        CL_INVALID_VALUE


def test_clEnqueueReadBuffer_size_zero(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 0, bytearray(8)) == \
        CL_INVALID_VALUE


def test_clEnqueueReadBuffer_null_ptr(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 8, None) == CL_INVALID_VALUE


def test_clEnqueueReadBuffer_host_memory_too_small(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    guard = bytearray(8)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 64, guard) == CL_INVALID_VALUE


def test_clEnqueueReadBuffer_read_only_host_memory(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 8)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 8, b"12345678") == CL_INVALID_VALUE


def test_clEnqueueReadBuffer_host_write_only_buffer(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_HOST_WRITE_ONLY, 8)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 8, bytearray(8)) == \
        CL_INVALID_OPERATION


def test_clEnqueueWriteBuffer_host_read_only_buffer(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_HOST_READ_ONLY, 8)
    assert code_of(clEnqueueWriteBuffer, queue, b, CL_TRUE, 0, 8, bytes(8)) == \
        CL_INVALID_OPERATION


def test_clEnqueueReadBuffer_bad_queue_and_buffer(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 8)
    assert code_of(clEnqueueReadBuffer, None, b, CL_TRUE, 0, 8, bytearray(8)) == \
        CL_INVALID_COMMAND_QUEUE
    assert code_of(clEnqueueReadBuffer, queue, "buf", CL_TRUE, 0, 8, bytearray(8)) == \
        CL_INVALID_MEM_OBJECT


def test_clEnqueueReadBuffer_buffer_of_another_context(device, queue, code_of):
    other = clCreateContext(None, [device])
    b = clCreateBuffer(other, CL_MEM_READ_WRITE, 8)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 8, bytearray(8)) == \
        CL_INVALID_CONTEXT


def test_clEnqueueReadBuffer_bad_wait_list(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 8)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 8, bytearray(8), ["ev"]) == \
        CL_INVALID_EVENT_WAIT_LIST


def test_clEnqueueReadBuffer_blocking_after_failed_event(context, queue, code_of):
    u = clCreateUserEvent(context)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 8)
    clSetUserEventStatus(u, -1000)
    assert code_of(clEnqueueReadBuffer, queue, b, CL_TRUE, 0, 8, bytearray(8), [u]) == \
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST


# ---- copy / fill ----

def test_clEnqueueCopyBuffer(context, queue):
    a = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, 4 * N, np.arange(N, dtype=np.int32))
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * N)
    ev = clEnqueueCopyBuffer(queue, a, b, 8, 0, 16)
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_COPY_BUFFER
    assert _read(queue, b)[:5].tolist() == [2, 3, 4, 5, 0]


def test_clEnqueueCopyBuffer_overlap(context, queue, code_of):
    a = clCreateBuffer(context, CL_MEM_READ_WRITE, 256)
    assert code_of(clEnqueueCopyBuffer, queue, a, a, 0, 8, 16) == CL_MEM_COPY_OVERLAP
    assert code_of(clEnqueueCopyBuffer, queue, a, a, 0, 16, 16) == 0


def test_clEnqueueCopyBuffer_overlapping_sub_buffers(context, queue, code_of):
    a = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024)
    s = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, (128, 256))
    assert code_of(clEnqueueCopyBuffer, queue, a, s, 100, 0, 64) == CL_MEM_COPY_OVERLAP


def test_clEnqueueCopyBuffer_out_of_range(context, queue, code_of):
    a = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 32)
    assert code_of(clEnqueueCopyBuffer, queue, a, b, 0, 0, 64) == CL_INVALID_VALUE


def test_clEnqueueFillBuffer_patterns(context, queue):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    clEnqueueFillBuffer(queue, b, np.float32(1.5), 4, 0, 64)
    clEnqueueFillBuffer(queue, b, np.array([1, 2], np.int16), 4, 8, 8)
    clEnqueueFillBuffer(queue, b, b"\x07", 1, 60, 4)
    out = _read(queue, b, dtype=np.uint8)
    assert np.frombuffer(out[:8].tobytes(), np.float32).tolist() == [1.5, 1.5]
    assert np.frombuffer(out[8:16].tobytes(), np.int16).tolist() == [1, 2, 1, 2]
    assert out[60:].tolist() == [7, 7, 7, 7]


def test_clEnqueueFillBuffer_bad_pattern_size(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueFillBuffer, queue, b, b"abc", 3, 0, 63) == CL_INVALID_VALUE
    assert code_of(clEnqueueFillBuffer, queue, b, None, 4, 0, 64) == CL_INVALID_VALUE


def test_clEnqueueFillBuffer_offset_not_multiple_of_pattern(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueFillBuffer, queue, b, np.int32(1), 4, 2, 8) == CL_INVALID_VALUE


def test_clEnqueueFillBuffer_out_of_range(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueFillBuffer, queue, b, np.int32(1), 4, 32, 64) == CL_INVALID_VALUE


# ---- map / unmap ----

def test_clEnqueueMapBuffer_is_a_view_of_device_memory(context, queue):
    b = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, 4 * N, np.arange(N, dtype=np.int32))
    mapped, ev = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_WRITE, 16, 16)
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_MAP_BUFFER
    assert clGetMemObjectInfo(b, CL_MEM_MAP_COUNT) == 1
    v = mapped.view(np.int32)
    assert v.tolist() == [4, 5, 6, 7]
    v[:] = -1
    ev = clEnqueueUnmapMemObject(queue, b, mapped)
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_UNMAP_MEM_OBJECT
    assert clGetMemObjectInfo(b, CL_MEM_MAP_COUNT) == 0
    assert _read(queue, b)[3:9].tolist() == [3, -1, -1, -1, -1, 8]


def test_clEnqueueMapBuffer_view_outlives_the_buffer(context, queue):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    mapped, _ = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ, 0, 64)
    clReleaseMemObject(b)
    assert mapped.sum() == 0          # stale zeros, not a crash
    del mapped
    gc.collect()


def test_clEnqueueMapBuffer_invalidate_with_read(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueMapBuffer, queue, b, CL_TRUE,
                   CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 64) == CL_INVALID_VALUE


def test_clEnqueueMapBuffer_out_of_range(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueMapBuffer, queue, b, CL_TRUE, CL_MAP_READ, 32, 64) == \
        CL_INVALID_VALUE


def test_clEnqueueMapBuffer_read_of_host_no_access_buffer(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_HOST_NO_ACCESS, 64)
    assert code_of(clEnqueueMapBuffer, queue, b, CL_TRUE, CL_MAP_READ, 0, 64) == \
        CL_INVALID_OPERATION


def test_clEnqueueUnmapMemObject_not_a_mapping(context, queue, code_of):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    assert code_of(clEnqueueUnmapMemObject, queue, b, np.zeros(4)) == CL_INVALID_VALUE
    mapped, _ = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ, 0, 64)
    clEnqueueUnmapMemObject(queue, b, mapped)
    assert code_of(clEnqueueUnmapMemObject, queue, b, mapped) == CL_INVALID_VALUE
