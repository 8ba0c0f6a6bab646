"""clCreateImage for 1-D buffer, 1-D array and 2-D array images: every check
of OpenCL 1.2 (5.3.1) with its code, host layouts with pitches, flags
inherited from the buffer, clGetImageInfo and clGetMemObjectInfo.

PoCL is no reference for these codes: it accepts a row pitch without
host_ptr and a write-only image over a read-only buffer, and answers a too
small buffer with CL_INVALID_MEM_OBJECT and a 0 array size with
CL_INVALID_BUFFER_SIZE; the codes here are the specification's."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

F4 = cl_image_format(CL_RGBA, CL_FLOAT)          # 16-byte elements


def desc(t, w=4, h=0, d=0, n=0, rp=0, sp=0, mips=0, samples=0, buffer=None):
    return cl_image_desc(t, w, h, d, n, rp, sp, mips, samples, buffer)


@pytest.fixture
def buf(context):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 256)
    yield b
    clReleaseMemObject(b)


def test_bad_descriptors(context, code_of, buf):
    A1, A2, B1 = (CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY,
                  CL_MEM_OBJECT_IMAGE1D_BUFFER)
    img = clCreateImage(context, 0, F4, desc(CL_MEM_OBJECT_IMAGE2D, 2, 2))
    cases = [
        (desc(B1), CL_INVALID_IMAGE_DESCRIPTOR),                     # no buffer
        (desc(B1, buffer=img), CL_INVALID_IMAGE_DESCRIPTOR),         # an image as the buffer
        (desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, buffer=buf), CL_INVALID_IMAGE_DESCRIPTOR),
        (desc(A1, 4, n=2, buffer=buf), CL_INVALID_IMAGE_DESCRIPTOR),
        (desc(A2, 4, 4, n=2, mips=1), CL_INVALID_IMAGE_DESCRIPTOR),
        (desc(A1, 4, n=2, samples=1), CL_INVALID_IMAGE_DESCRIPTOR),
        (desc(A1, 4, n=2, rp=64), CL_INVALID_IMAGE_DESCRIPTOR),      # pitch without host_ptr
        (desc(A2, 4, 4, n=2, sp=256), CL_INVALID_IMAGE_DESCRIPTOR),
        (desc(B1, 17, buffer=buf), CL_INVALID_IMAGE_SIZE),           # 272 bytes > 256
        (desc(B1, 0, buffer=buf), CL_INVALID_IMAGE_SIZE),
        (desc(A1, 0, n=2), CL_INVALID_IMAGE_SIZE),
        (desc(A1, 4, n=0), CL_INVALID_IMAGE_SIZE),
        (desc(A1, 4, n=2049), CL_INVALID_IMAGE_SIZE),                # > the device's 2048
        (desc(A2, 4, 0, n=2), CL_INVALID_IMAGE_SIZE),
        (desc(A2, 4, 32769, n=2), CL_INVALID_IMAGE_SIZE),
        (desc(A2, 32769, 4, n=2), CL_INVALID_IMAGE_SIZE),
        (desc(0x10F7), CL_INVALID_IMAGE_DESCRIPTOR),                 # CL_MEM_OBJECT_PIPE
        (desc(A1, 4.0, n=2), CL_INVALID_IMAGE_DESCRIPTOR),
        (desc(A1, 4, n=-1), CL_INVALID_IMAGE_DESCRIPTOR),
        (None, CL_INVALID_IMAGE_DESCRIPTOR),
        ("image", CL_INVALID_IMAGE_DESCRIPTOR),
    ]
    for d, code in cases:
        assert code_of(clCreateImage, context, 0, F4, d) == code, d
    assert clGetDeviceInfo(clGetContextInfo(context, CL_CONTEXT_DEVICES)[0],
                           CL_DEVICE_IMAGE_MAX_ARRAY_SIZE) == 2048
    # formats
    assert code_of(clCreateImage, context, 0, (0x1234, CL_FLOAT), desc(A1, 4, n=2)) == \
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    assert code_of(clCreateImage, context, 0, (CL_RGB, CL_FLOAT), desc(A1, 4, n=2)) == \
        CL_IMAGE_FORMAT_NOT_SUPPORTED
    assert code_of(clCreateImage, context, 0, (CL_RGBA, CL_FLOAT), desc(B1, 4, buffer=0)) == \
        CL_INVALID_MEM_OBJECT
    clReleaseMemObject(img)


def test_host_pitches(context, code_of):
    A1, A2 = CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY
    host = np.zeros(4096, np.float32)
    cp = CL_MEM_COPY_HOST_PTR
    for d, code in [
            (desc(A1, 4, n=3, rp=60), CL_INVALID_IMAGE_DESCRIPTOR),     # < a row
            (desc(A1, 4, n=3, rp=72), CL_INVALID_IMAGE_DESCRIPTOR),     # not a multiple of 16
            (desc(A1, 4, n=3, sp=48), CL_INVALID_IMAGE_DESCRIPTOR),     # slice < row pitch
            (desc(A1, 4, n=3, rp=64, sp=96), CL_INVALID_IMAGE_DESCRIPTOR),  # not k * row pitch
            (desc(A2, 4, 3, n=2, sp=128), CL_INVALID_IMAGE_DESCRIPTOR),  # < 3 rows
            (desc(A2, 4, 3, n=2, rp=80, sp=200), CL_INVALID_IMAGE_DESCRIPTOR)]:
        assert code_of(clCreateImage, context, cp, F4, d, host) == code, d
    assert code_of(clCreateImage, context, cp, F4, desc(A2, 4, 3, n=2)) == CL_INVALID_HOST_PTR
    assert code_of(clCreateImage, context, 0, F4, desc(A2, 4, 3, n=2), host) == \
        CL_INVALID_HOST_PTR
    assert code_of(clCreateImage, context, cp, F4, desc(A2, 4, 3, n=2, rp=128, sp=512),
                   np.zeros(207, np.float32)) == CL_INVALID_HOST_PTR   # 828 < 512 + 256 + 64
    # padded host layouts read back packed
    src = np.arange(2 * 3 * 8 * 4 * 2, dtype=np.float32)    # 2 layers of 6 rows of 8 elements
    im = clCreateImage(context, cp, F4, desc(A2, 4, 3, n=2, rp=128, sp=768), src)
    q = clCreateCommandQueue(context, clGetContextInfo(context, CL_CONTEXT_DEVICES)[0], 0)
    out = np.empty((2, 3, 4, 4), np.float32)
    clEnqueueReadImage(q, im, CL_TRUE, (0, 0, 0), (4, 3, 2), 0, 0, out)
    want = src.reshape(2, 6, 8, 4)[:, :3, :4]
    np.testing.assert_array_equal(out, want)
    im1 = clCreateImage(context, cp, F4, desc(A1, 3, n=4, rp=64, sp=64), src)  # layers 64 B apart
    out1 = np.empty((4, 3, 4), np.float32)
    clEnqueueReadImage(q, im1, CL_TRUE, (0, 0, 0), (3, 4, 1), 0, 0, out1)
    np.testing.assert_array_equal(out1, src[:64].reshape(4, 4, 4)[:, :3])
    # a read into a padded host layout: a 1-D array's slice_pitch is the layer stride
    pad = np.full((4, 5, 4), -1, np.float32)
    clEnqueueReadImage(q, im1, CL_TRUE, (1, 1, 0), (2, 3, 1), 0, 80, pad)
    np.testing.assert_array_equal(pad[:3, :2], out1[1:, 1:])
    assert (pad[:3, 2:] == -1).all() and (pad[3] == -1).all()
    for m in (im, im1):
        clReleaseMemObject(m)
    clReleaseCommandQueue(q)


def test_info(context, buf):
    a1 = clCreateImage(context, 0, F4, desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, n=3))
    a2 = clCreateImage(context, 0, F4, desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 5, 4, n=3))
    b1 = clCreateImage(context, 0, F4, desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, buffer=buf))
    want = {a1: (5, 0, 0, 3, 80, 80, None), a2: (5, 4, 0, 3, 80, 320, None),
            b1: (16, 0, 0, 0, 256, 0, buf)}
    for m, (w, h, d, n, rp, sp, b) in want.items():
        got = [clGetImageInfo(m, p) for p in (CL_IMAGE_WIDTH, CL_IMAGE_HEIGHT, CL_IMAGE_DEPTH,
                                               CL_IMAGE_ARRAY_SIZE, CL_IMAGE_ROW_PITCH,
                                               CL_IMAGE_SLICE_PITCH)]
        assert got == [w, h, d, n, rp, sp]
        assert clGetImageInfo(m, CL_IMAGE_BUFFER) is b
        assert clGetImageInfo(m, CL_IMAGE_ELEMENT_SIZE) == 16
        assert clGetImageInfo(m, CL_IMAGE_NUM_MIP_LEVELS) == 0
    assert clGetMemObjectInfo(b1, CL_MEM_ASSOCIATED_MEMOBJECT) is buf
    assert clGetMemObjectInfo(buf, CL_MEM_REFERENCE_COUNT) == 2      # the image holds it
    for m in (a1, a2, b1):
        clReleaseMemObject(m)
    assert clGetMemObjectInfo(buf, CL_MEM_REFERENCE_COUNT) == 1


def test_buffer_image_flags(context, code_of):
    B1 = CL_MEM_OBJECT_IMAGE1D_BUFFER
    ro = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64)
    wo = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 64)
    for b, flags in [(ro, CL_MEM_WRITE_ONLY), (ro, CL_MEM_READ_WRITE), (wo, CL_MEM_READ_ONLY),
                     (wo, CL_MEM_READ_WRITE), (ro, CL_MEM_HOST_READ_ONLY),
                     (wo, CL_MEM_COPY_HOST_PTR), (wo, CL_MEM_USE_HOST_PTR),
                     (wo, CL_MEM_ALLOC_HOST_PTR)]:
        host = np.zeros(16, np.float32) if flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) \
            else None
        assert code_of(clCreateImage, context, flags, F4, desc(B1, 4, buffer=b), host) == \
            CL_INVALID_VALUE, flags
    # flags left out are the buffer's
    im = clCreateImage(context, 0, F4, desc(B1, 4, buffer=ro))
    f = clGetMemObjectInfo(im, CL_MEM_FLAGS)
    assert f & CL_MEM_READ_ONLY and f & CL_MEM_HOST_NO_ACCESS
    im2 = clCreateImage(context, CL_MEM_READ_ONLY, F4, desc(B1, 4, buffer=ro))
    # an image over another context's buffer
    other = clCreateContext(None, clGetContextInfo(context, CL_CONTEXT_DEVICES))
    assert code_of(clCreateImage, other, 0, F4, desc(B1, 4, buffer=ro)) == CL_INVALID_CONTEXT
    for m in (im, im2, ro, wo):
        clReleaseMemObject(m)
    clReleaseContext(other)


def test_buffer_image_outlives_its_buffer_in_a_kernel(context, queue):
    """Released buffer and image while a kernel reads them: the memory stays
    until the kernel is done (the image holds the buffer's core memory)."""
    src = r"""__kernel void k(__read_only image1d_buffer_t im, __global uint *out) {
        int i = get_global_id(0); out[i] = read_imageui(im, i).x + 1; }"""
    prog = clCreateProgramWithSource(context, [src])
    clBuildProgram(prog)
    k = clCreateKernel(prog, "k")
    data = np.arange(64, dtype=np.uint32)
    b = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, data.nbytes, data)
    im = clCreateImage(context, 0, cl_image_format(CL_R, CL_UNSIGNED_INT32),
                       desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, buffer=b))
    out = clCreateBuffer(context, 0, data.nbytes)
    user = clCreateUserEvent(context)
    clSetKernelArg(k, 0, im)
    clSetKernelArg(k, 1, out)
    ev = clEnqueueNDRangeKernel(queue, k, 1, None, [64], None, [user])
    clReleaseMemObject(b)
    clReleaseMemObject(im)
    clSetUserEventStatus(user, CL_COMPLETE)
    clWaitForEvents([ev])
    got = np.empty_like(data)
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, got.nbytes, got)
    np.testing.assert_array_equal(got, data + 1)
    clReleaseMemObject(out)
