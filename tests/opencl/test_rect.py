"""Rectangular copies (clEnqueueReadBufferRect, clEnqueueWriteBufferRect,
clEnqueueCopyBufferRect) against NumPy slicing, with guard values around each
rectangle, and every CL_INVALID_VALUE / CL_MEM_COPY_OVERLAP rule of OpenCL 1.2."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F403

GUARD = -7


def _buffer(context, queue, host):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, host.nbytes)
    clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, host.nbytes, host)
    return b


def _read(queue, buf, shape, dtype=np.int32):
    out = np.zeros(shape, dtype)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, out.nbytes, out)
    return out


@pytest.mark.parametrize("blocking", [CL_TRUE, CL_FALSE])
def test_clEnqueueReadBufferRect_3d_with_pitches(context, queue, blocking):
    """A 3x4x2 box of int32 out of a 6x8x5 volume into a 5x7x3 host volume."""
    dev = np.arange(5 * 8 * 6, dtype=np.int32).reshape(5, 8, 6)     # z, y, x
    b = _buffer(context, queue, dev)
    host = np.full((3, 7, 5), GUARD, np.int32)
    ev = clEnqueueReadBufferRect(queue, b, blocking, [4 * 2, 3, 1], [4 * 1, 2, 1],
                                 [4 * 3, 4, 2], 4 * 6, 4 * 6 * 8, 4 * 5, 4 * 5 * 7, host)
    clWaitForEvents([ev])
    want = np.full((3, 7, 5), GUARD, np.int32)
    want[1:3, 2:6, 1:4] = dev[1:3, 3:7, 2:5]
    np.testing.assert_array_equal(host, want)


def test_clEnqueueWriteBufferRect_2d_packed_host(context, queue):
    """Pitches of 0 are the packed ones: the host rectangle is 4 rows of 12 bytes."""
    dev = np.full((10, 16), GUARD, np.int32)
    b = _buffer(context, queue, dev)
    src = np.arange(4 * 3, dtype=np.int32).reshape(4, 3)
    clEnqueueWriteBufferRect(queue, b, CL_TRUE, [4 * 5, 2, 0], [0, 0, 0], [4 * 3, 4, 1],
                             4 * 16, 0, 0, 0, src)
    want = dev.copy()
    want[2:6, 5:8] = src
    np.testing.assert_array_equal(_read(queue, b, (10, 16)), want)


def test_clEnqueueWriteBufferRect_non_blocking_keeps_host_memory(context, queue):
    u = clCreateUserEvent(context)
    b = _buffer(context, queue, np.zeros(64, np.int32))
    src = np.arange(64, dtype=np.int32)
    ev = clEnqueueWriteBufferRect(queue, b, CL_FALSE, [0, 0, 0], [0, 0, 0], [256, 1, 1],
                                  0, 0, 0, 0, src, [u])
    del src
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])
    np.testing.assert_array_equal(_read(queue, b, 64), np.arange(64))


def test_clEnqueueCopyBufferRect_between_buffers(context, queue):
    a = np.arange(4 * 9 * 7, dtype=np.int32).reshape(4, 9, 7)
    sa = _buffer(context, queue, a)
    d = np.full((3, 6, 10), GUARD, np.int32)
    sd = _buffer(context, queue, d)
    clEnqueueCopyBufferRect(queue, sa, sd, [4 * 1, 2, 1], [4 * 6, 1, 0], [4 * 4, 5, 3],
                            4 * 7, 4 * 7 * 9, 4 * 10, 4 * 10 * 6)
    clFinish(queue)
    want = d.copy()
    want[0:3, 1:6, 6:10] = a[1:4, 2:7, 1:5]
    np.testing.assert_array_equal(_read(queue, sd, (3, 6, 10)), want)


def test_clEnqueueCopyBufferRect_within_one_buffer_disjoint_rows(context, queue):
    """Interleaved rows of the same buffer that share no byte are not an overlap."""
    a = np.arange(8 * 16, dtype=np.int32).reshape(8, 16)
    b = _buffer(context, queue, a)
    # rows 0, 2, 4, 6 (bytes 0..15) to rows 1, 3, 5, 7 (bytes 16..31): a pitch of two
    # rows, the destination 64 + 16 bytes on
    clEnqueueCopyBufferRect(queue, b, b, [0, 0, 0], [80, 0, 0], [16, 4, 1], 128, 0, 128, 0)
    clFinish(queue)
    want = a.copy()
    want[1::2, 4:8] = a[0::2, 0:4]
    np.testing.assert_array_equal(_read(queue, b, (8, 16)), want)


def test_clEnqueueCopyBufferRect_overlap(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(256, np.int32))
    assert code_of(clEnqueueCopyBufferRect, queue, b, b, [0, 0, 0], [8, 1, 0], [16, 4, 1],
                   64, 0, 64, 0) == CL_MEM_COPY_OVERLAP


def test_clEnqueueCopyBufferRect_overlap_between_sub_buffers(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(256, np.int32))
    s1 = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, (0, 512))
    s2 = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, (256, 512))
    # s1's bytes 256.. are s2's bytes 0..: one row each, the same bytes
    assert code_of(clEnqueueCopyBufferRect, queue, s1, s2, [256, 0, 0], [0, 0, 0],
                   [64, 1, 1], 0, 0, 0, 0) == CL_MEM_COPY_OVERLAP
    # s1's first 64 bytes to s2's first 64: no byte shared
    clEnqueueCopyBufferRect(queue, s1, s2, [0, 0, 0], [0, 0, 0], [64, 1, 1], 0, 0, 0, 0)
    clFinish(queue)


def test_clEnqueueCopyBufferRect_same_buffer_both_pitches_differ(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(1024, np.int32))
    assert code_of(clEnqueueCopyBufferRect, queue, b, b, [0, 0, 0], [0, 0, 2], [8, 2, 2],
                   16, 64, 32, 128) == CL_INVALID_VALUE


@pytest.mark.parametrize("region", [[0, 1, 1], [4, 0, 1], [4, 1, 0]])
def test_rect_region_with_a_zero(context, queue, code_of, region):
    b = _buffer(context, queue, np.zeros(64, np.int32))
    host = np.zeros(64, np.int32)
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0], region,
                   0, 0, 0, 0, host) == CL_INVALID_VALUE
    assert code_of(clEnqueueCopyBufferRect, queue, b, b, [0, 0, 0], [128, 0, 0], region,
                   0, 0, 0, 0) == CL_INVALID_VALUE


@pytest.mark.parametrize("pitches", [(8, 0, 0, 0), (0, 0, 8, 0), (16, 16, 0, 0),
                                     (0, 0, 16, 24), (16, 40, 0, 0)])
def test_rect_pitches_smaller_than_the_region(context, queue, code_of, pitches):
    """Row pitch < region[0]; slice pitch < region[1] * row pitch or not a multiple of it."""
    b = _buffer(context, queue, np.zeros(256, np.int32))
    host = np.zeros(256, np.int32)
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0],
                   [16, 2, 2], *pitches, host) == CL_INVALID_VALUE
    assert code_of(clEnqueueWriteBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0],
                   [16, 2, 2], *pitches, host) == CL_INVALID_VALUE


def test_rect_out_of_the_buffer(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(64, np.int32))        # 256 bytes
    host = np.zeros(1024, np.int32)
    # 4 rows of 64 bytes from row 1 of a 64-byte pitch: ends at byte 320
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 1, 0], [0, 0, 0],
                   [64, 4, 1], 64, 0, 0, 0, host) == CL_INVALID_VALUE
    # the last byte exactly: fine
    clEnqueueReadBufferRect(queue, b, CL_TRUE, [0, 1, 0], [0, 0, 0], [64, 3, 1], 64, 0, 0, 0,
                            host)
    other = _buffer(context, queue, np.zeros(1024, np.int32))
    assert code_of(clEnqueueCopyBufferRect, queue, other, b, [0, 0, 0], [4, 0, 0],
                   [64, 4, 1], 0, 0, 64, 0) == CL_INVALID_VALUE


def test_rect_host_memory_too_small(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(256, np.int32))
    host = np.zeros(16 * 4 - 1, np.int32)     # 252 bytes; 4 rows of 64 need 256
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0],
                   [64, 4, 1], 0, 0, 0, 0, host) == CL_INVALID_VALUE
    assert code_of(clEnqueueWriteBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0],
                   [64, 4, 1], 0, 0, 0, 0, host) == CL_INVALID_VALUE
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0],
                   [4, 1, 1], 0, 0, 0, 0, None) == CL_INVALID_VALUE


def test_rect_bad_arguments(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(64, np.int32))
    host = np.zeros(64, np.int32)
    args = [[0, 0, 0], [0, 0, 0], [4, 1, 1], 0, 0, 0, 0, host]
    assert code_of(clEnqueueReadBufferRect, queue, b, "yes", *args) == CL_INVALID_VALUE
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 0], *args[1:]) == \
        CL_INVALID_VALUE
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0.0, 0, 0], *args[1:]) == \
        CL_INVALID_VALUE
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [-1, 0, 0], *args[1:]) == \
        CL_INVALID_VALUE
    assert code_of(clEnqueueReadBufferRect, None, b, CL_TRUE, *args) == CL_INVALID_COMMAND_QUEUE
    assert code_of(clEnqueueReadBufferRect, queue, None, CL_TRUE, *args) == \
        CL_INVALID_MEM_OBJECT
    ro = clCreateBuffer(context, CL_MEM_HOST_NO_ACCESS, 256)
    assert code_of(clEnqueueReadBufferRect, queue, ro, CL_TRUE, *args) == CL_INVALID_OPERATION
    assert code_of(clEnqueueWriteBufferRect, queue, ro, CL_TRUE, *args) == CL_INVALID_OPERATION
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, *args[:-1],
                   np.zeros(64, np.int32)[::2]) == CL_INVALID_VALUE   # not contiguous


def test_rect_blocking_after_failed_event(context, queue, code_of):
    b = _buffer(context, queue, np.zeros(64, np.int32))
    u = clCreateUserEvent(context)
    clSetUserEventStatus(u, -5)
    host = np.zeros(64, np.int32)
    assert code_of(clEnqueueReadBufferRect, queue, b, CL_TRUE, [0, 0, 0], [0, 0, 0],
                   [16, 1, 1], 0, 0, 0, 0, host, [u]) == \
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST


def test_rect_large_rows_are_cut_into_items(context, queue):
    """More rows than one worker item takes (about 1 MiB a run): every row lands."""
    rows, width = 3000, 1024
    a = np.random.default_rng(1).integers(0, 1 << 30, size=(rows, width // 4 + 8),
                                          dtype=np.int32)
    b = _buffer(context, queue, a)
    host = np.full((rows, width // 4 + 1), GUARD, np.int32)
    clEnqueueReadBufferRect(queue, b, CL_TRUE, [16, 0, 0], [4, 0, 0], [width, rows, 1],
                            a.shape[1] * 4, 0, host.shape[1] * 4, 0, host)
    want = np.full_like(host, GUARD)
    want[:, 1:] = a[:, 4:4 + width // 4]
    np.testing.assert_array_equal(host, want)
