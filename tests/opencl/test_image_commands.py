"""The image commands are engine commands: they wait for their event wait
list, run out of order in an out-of-order queue, honour the blocking flag,
have profiling times and keep the host memory of a non-blocking read or write
alive until they complete; and they copy and fill the right bytes."""
import gc
import weakref

import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

F4 = cl_image_format(CL_RGBA, CL_FLOAT)
U8 = cl_image_format(CL_RGBA, CL_UNSIGNED_INT8)


def image2d(context, fmt, w, h, data=None):
    flags = CL_MEM_READ_WRITE | (CL_MEM_COPY_HOST_PTR if data is not None else 0)
    return clCreateImage(context, flags, fmt, cl_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h), data)


@pytest.fixture(scope="module")
def ooo(context, device):
    q = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                             CL_QUEUE_PROFILING_ENABLE)
    yield q
    clReleaseCommandQueue(q)


def status(ev):
    return clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS)


def test_nonblocking_read_waits_for_its_user_event(context, queue):
    data = np.random.default_rng(1).random((8, 16, 4), dtype=np.float32)
    im = image2d(context, F4, 16, 8, data)
    host = np.full_like(data, -7.0)
    user = clCreateUserEvent(context)
    ev = clEnqueueReadImage(queue, im, CL_FALSE, (0, 0, 0), (16, 8, 1), 0, 0, host, [user])
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_READ_IMAGE
    clFlush(queue)
    assert status(ev) > CL_COMPLETE
    assert (host == -7.0).all()                  # not touched before the event is set
    clSetUserEventStatus(user, CL_COMPLETE)
    clWaitForEvents([ev])
    np.testing.assert_array_equal(host, data)
    clReleaseMemObject(im)


def test_nonblocking_write_reads_host_memory_when_it_runs_and_keeps_it(context, queue):
    im = image2d(context, U8, 8, 4)
    src = np.arange(8 * 4 * 4, dtype=np.uint8).reshape(4, 8, 4)
    alive = weakref.ref(src)
    user = clCreateUserEvent(context)
    ev = clEnqueueWriteImage(queue, im, CL_FALSE, (0, 0, 0), (8, 4, 1), 0, 0, src, [user])
    src[0, 0] = [200, 201, 202, 203]            # still the host's: the command reads it later
    del src
    gc.collect()
    assert alive() is not None                  # the command holds it
    clSetUserEventStatus(user, CL_COMPLETE)
    clWaitForEvents([ev])
    out = np.empty((4, 8, 4), np.uint8)
    clEnqueueReadImage(queue, im, CL_TRUE, (0, 0, 0), (8, 4, 1), 0, 0, out)
    want = np.arange(8 * 4 * 4, dtype=np.uint8).reshape(4, 8, 4)
    want[0, 0] = [200, 201, 202, 203]
    np.testing.assert_array_equal(out, want)
    clFinish(queue)
    gc.collect()
    assert alive() is None                      # let go once complete
    clReleaseMemObject(im)


def test_failed_wait_list(context, queue, code_of):
    im = image2d(context, F4, 4, 4, np.ones((4, 4, 4), np.float32))
    host = np.zeros((4, 4, 4), np.float32)
    user = clCreateUserEvent(context)
    clSetUserEventStatus(user, -5)
    assert code_of(clEnqueueReadImage, queue, im, CL_TRUE, (0, 0, 0), (4, 4, 1), 0, 0, host,
                   [user]) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert (host == 0).all()
    clReleaseMemObject(im)


def test_out_of_order_with_kernels(context, ooo):
    """kernel -> fill (behind a user event) -> kernel -> copy to buffer -> read,
    each waiting only on its wait list in an out-of-order queue."""
    src = r"""
    __kernel void bump(__read_only image2d_t a, __write_only image2d_t b) {
        int x = get_global_id(0), y = get_global_id(1);
        write_imageui(b, (int2)(x, y), read_imageui(a, (int2)(x, y)) + (uint4)(1, 2, 3, 4));
    }"""
    prog = clCreateProgramWithSource(context, [src])
    clBuildProgram(prog)
    k = clCreateKernel(prog, "bump")
    w, h = 16, 8
    start = np.random.default_rng(2).integers(0, 100, (h, w, 4), dtype=np.uint8)
    a, b = image2d(context, U8, w, h, start), image2d(context, U8, w, h)
    buf = clCreateBuffer(context, 0, start.nbytes)
    user = clCreateUserEvent(context)
    clSetKernelArg(k, 0, a)
    clSetKernelArg(k, 1, b)
    e1 = clEnqueueNDRangeKernel(ooo, k, 2, None, [w, h], None)            # b = a + d
    e2 = clEnqueueFillImage(ooo, a, (10, 20, 30, 40), (2, 1, 0), (5, 3, 1), [e1, user])
    clSetKernelArg(k, 0, b)
    clSetKernelArg(k, 1, a)
    e3 = clEnqueueNDRangeKernel(ooo, k, 2, None, [w, h], None, [e2])      # a = b + d
    e4 = clEnqueueCopyImageToBuffer(ooo, a, buf, (0, 0, 0), (w, h, 1), 0, [e3])
    host = np.zeros_like(start)
    e5 = clEnqueueReadBuffer(ooo, buf, CL_FALSE, 0, host.nbytes, host, [e4])
    clFlush(ooo)
    assert status(e2) > CL_COMPLETE and status(e5) > CL_COMPLETE
    assert (host == 0).all()
    clSetUserEventStatus(user, CL_COMPLETE)
    clWaitForEvents([e5])
    d = np.array([1, 2, 3, 4], np.uint8)
    np.testing.assert_array_equal(host, start + 2 * d)     # the fill was overwritten by e3
    for e, t in ((e2, CL_COMMAND_FILL_IMAGE), (e4, CL_COMMAND_COPY_IMAGE_TO_BUFFER)):
        assert clGetEventInfo(e, CL_EVENT_COMMAND_TYPE) == t
        t0 = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START)
        t1 = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END)
        assert 0 < t0 <= t1
    # the fill itself, on a fresh image, with the others waiting on it
    c = image2d(context, U8, w, h, start)
    e6 = clEnqueueFillImage(ooo, c, (10, 20, 300, -4), (2, 1, 0), (5, 3, 1))
    out = np.empty_like(start)
    clEnqueueReadImage(ooo, c, CL_TRUE, (0, 0, 0), (w, h, 1), 0, 0, out, [e6])
    want = start.copy()
    want[1:4, 2:7] = [10, 20, 255, 0]              # uint8 saturates, as write_imageui
    np.testing.assert_array_equal(out, want)
    for m in (a, b, c, buf):
        clReleaseMemObject(m)


def test_map_image_waits(context, queue):
    data = np.arange(4 * 4 * 4, dtype=np.float32).reshape(4, 4, 4)
    im = image2d(context, F4, 4, 4, data)
    user = clCreateUserEvent(context)
    mapped, rp, sp, ev = clEnqueueMapImage(queue, im, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE,
                                           (1, 1, 0), (2, 2, 1), [user])
    assert rp == 64 and sp == 0
    clFlush(queue)
    assert status(ev) > CL_COMPLETE
    clSetUserEventStatus(user, CL_COMPLETE)
    clWaitForEvents([ev])
    view = mapped[:rp + 32].view(np.float32)
    np.testing.assert_array_equal(view[:8], data[1, 1:3].ravel())
    np.testing.assert_array_equal(view[16:24], data[2, 1:3].ravel())
    view[0] = 99.0
    clWaitForEvents([clEnqueueUnmapMemObject(queue, im, mapped)])
    out = np.empty_like(data)
    clEnqueueReadImage(queue, im, CL_TRUE, (0, 0, 0), (4, 4, 1), 0, 0, out)
    assert out[1, 1, 0] == 99.0
    clReleaseMemObject(im)


def test_copies_between_image_types(context, queue):
    w, h, n = 6, 5, 3
    data = np.random.default_rng(3).random((n, h, w, 4), dtype=np.float32)
    arr = clCreateImage(context, CL_MEM_COPY_HOST_PTR, F4,
                        cl_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, w, h, 0, n), data)
    vol = clCreateImage(context, 0, F4, cl_image_desc(CL_MEM_OBJECT_IMAGE3D, w, h, 4))
    flat = image2d(context, F4, w, h)
    clEnqueueFillImage(queue, vol, (0.5, 0.5, 0.5, 0.5), (0, 0, 0), (w, h, 4))
    clEnqueueCopyImage(queue, arr, vol, (0, 0, 1), (0, 0, 2), (w, h, 2))      # layers 1-2
    clEnqueueCopyImage(queue, arr, flat, (1, 1, 2), (0, 0, 0), (4, 3, 1))     # part of layer 2
    out = np.empty((4, h, w, 4), np.float32)
    clEnqueueReadImage(queue, vol, CL_TRUE, (0, 0, 0), (w, h, 4), 0, 0, out)
    np.testing.assert_array_equal(out[2:], data[1:])
    assert (out[:2] == 0.5).all()
    part = np.empty((3, 4, 4), np.float32)
    clEnqueueReadImage(queue, flat, CL_TRUE, (0, 0, 0), (4, 3, 1), 0, 0, part)
    np.testing.assert_array_equal(part, data[2, 1:4, 1:5])
    # buffer <-> 1-D array, through layers
    a1 = clCreateImage(context, 0, F4, cl_image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, w, 0, 0, 4))
    buf = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, data.nbytes, data)
    clEnqueueCopyBufferToImage(queue, buf, a1, 16 * w, (0, 1, 0), (w, 3, 1))
    back = clCreateBuffer(context, 0, 4 * w * 16)
    clEnqueueCopyImageToBuffer(queue, a1, back, (0, 1, 0), (w, 3, 1), 0)
    got = np.empty((3, w, 4), np.float32)
    clEnqueueReadBuffer(queue, back, CL_TRUE, 0, got.nbytes, got)
    np.testing.assert_array_equal(got, data.reshape(-1, w, 4)[1:4])
    for m in (arr, vol, flat, a1, buf, back):
        clReleaseMemObject(m)


def test_command_errors(context, queue, code_of):
    im = image2d(context, F4, 4, 4)
    host = np.zeros(64, np.float32)
    no_host = clCreateImage(context, CL_MEM_HOST_NO_ACCESS, F4,
                            cl_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4))
    ro_host = clCreateImage(context, CL_MEM_HOST_READ_ONLY, F4,
                            cl_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4))
    cases = [
        (clEnqueueReadImage, (queue, no_host, CL_TRUE, (0, 0, 0), (4, 4, 1), 0, 0, host),
         CL_INVALID_OPERATION),
        (clEnqueueWriteImage, (queue, ro_host, CL_TRUE, (0, 0, 0), (4, 4, 1), 0, 0, host),
         CL_INVALID_OPERATION),
        (clEnqueueMapImage, (queue, no_host, CL_TRUE, CL_MAP_READ, (0, 0, 0), (4, 4, 1)),
         CL_INVALID_OPERATION),
        (clEnqueueReadImage, (queue, im, CL_TRUE, (0, 0, 0), (4, 4, 1), 0, 0, host[:63]),
         CL_INVALID_VALUE),
        (clEnqueueReadImage, (queue, im, CL_TRUE, (1, 0, 0), (4, 4, 1), 0, 0, host),
         CL_INVALID_VALUE),
        (clEnqueueReadImage, (queue, im, CL_TRUE, (0, 0, 1), (4, 4, 1), 0, 0, host),
         CL_INVALID_VALUE),
        (clEnqueueReadImage, (queue, im, CL_TRUE, (0, 0, 0), (4, 4, 1), 32, 0, host),
         CL_INVALID_VALUE),                                  # row_pitch < 64
        (clEnqueueReadImage, (queue, im, "yes", (0, 0, 0), (4, 4, 1), 0, 0, host),
         CL_INVALID_VALUE),
        (clEnqueueFillImage, (queue, im, (1, 2, 3), (0, 0, 0), (4, 4, 1)), CL_INVALID_VALUE),
        (clEnqueueFillImage, (queue, im, "abcd", (0, 0, 0), (4, 4, 1)), CL_INVALID_VALUE),
        (clEnqueueCopyImage, (queue, im, im, (0, 0, 0), (1, 1, 0), (2, 2, 1)),
         CL_MEM_COPY_OVERLAP),
        (clEnqueueCopyImage, (queue, im, image2d(context, U8, 4, 4), (0, 0, 0), (0, 0, 0),
                              (2, 2, 1)), CL_IMAGE_FORMAT_MISMATCH),
        (clEnqueueReadImage, (queue, im, CL_TRUE, (0, 0, 0), (4, 4, 1), 0, 0, host, [None]),
         CL_INVALID_EVENT_WAIT_LIST),
    ]
    for fn, args, code in cases:
        assert code_of(fn, *args) == code, (fn.__name__, args[1:])
    buf = clCreateBuffer(context, 0, 64)
    assert code_of(clEnqueueCopyImageToBuffer, queue, im, buf, (0, 0, 0), (4, 4, 1), 0) == \
        CL_INVALID_VALUE                                     # 256 bytes into 64
    assert code_of(clEnqueueCopyImageToBuffer, queue, im, im, (0, 0, 0), (1, 1, 1), 0) == \
        CL_INVALID_MEM_OBJECT
    bim = clCreateImage(context, 0, F4, cl_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 4,
                                                      buffer=buf))
    assert code_of(clEnqueueCopyBufferToImage, queue, buf, bim, 0, (0, 0, 0), (1, 1, 1)) == \
        CL_INVALID_MEM_OBJECT                                # the image is over that buffer
    for m in (im, no_host, ro_host, bim, buf):
        clReleaseMemObject(m)


def test_rect_commands_refuse_images(context, queue, code_of):
    im = image2d(context, F4, 4, 4)
    buf = clCreateBuffer(context, 0, 256)
    host = np.zeros(64, np.float32)
    args = ((0, 0, 0), (0, 0, 0), (16, 2, 1), 0, 0, 0, 0)
    assert code_of(clEnqueueReadBufferRect, queue, im, CL_TRUE, *args, host) == \
        CL_INVALID_MEM_OBJECT
    assert code_of(clEnqueueWriteBufferRect, queue, im, CL_TRUE, *args, host) == \
        CL_INVALID_MEM_OBJECT
    assert code_of(clEnqueueCopyBufferRect, queue, buf, im, *args) == CL_INVALID_MEM_OBJECT
    clReleaseMemObject(im)
    clReleaseMemObject(buf)
