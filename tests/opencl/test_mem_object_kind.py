"""An image is no buffer: clGetMemObjectInfo(CL_MEM_TYPE) names its type, and the
buffer calls refuse it with CL_INVALID_MEM_OBJECT (OpenCL 1.2, 5.2.1 and 5.4.5)."""
import numpy as np
import pytest

from pyemu.opencl import *


@pytest.fixture()
def ctx_queue_image():
    d = clGetDeviceIDs(clGetPlatformIDs()[0], CL_DEVICE_TYPE_ALL)[0]
    c = clCreateContext(None, [d])
    q = clCreateCommandQueue(c, d, 0)
    im = clCreateImage(c, 0, cl_image_format(CL_R, CL_FLOAT), cl_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4))
    yield c, q, im
    clReleaseMemObject(im)
    clReleaseCommandQueue(q)
    clReleaseContext(c)


def test_mem_type_of_image_and_buffer(ctx_queue_image):
    c, q, im = ctx_queue_image
    assert clGetMemObjectInfo(im, CL_MEM_TYPE) == CL_MEM_OBJECT_IMAGE2D
    b = clCreateBuffer(c, 0, 64)
    assert clGetMemObjectInfo(b, CL_MEM_TYPE) == CL_MEM_OBJECT_BUFFER
    clReleaseMemObject(b)


def _code(fn, *args):
    with pytest.raises(CLError) as e:
        fn(*args)
    return e.value.code


def test_buffer_calls_refuse_an_image(ctx_queue_image):
    c, q, im = ctx_queue_image
    h = np.full(64, 7, np.uint8)
    b = clCreateBuffer(c, 0, 64)
    assert _code(clEnqueueReadBuffer, q, im, CL_TRUE, 0, 64, h) == CL_INVALID_MEM_OBJECT
    assert (h == 7).all()                      # nothing written into the host array
    assert _code(clEnqueueWriteBuffer, q, im, CL_TRUE, 0, 64, h) == CL_INVALID_MEM_OBJECT
    assert _code(clEnqueueCopyBuffer, q, im, b, 0, 0, 64) == CL_INVALID_MEM_OBJECT
    assert _code(clEnqueueCopyBuffer, q, b, im, 0, 0, 64) == CL_INVALID_MEM_OBJECT
    assert _code(clEnqueueFillBuffer, q, im, np.float32(1), 4, 0, 64) == CL_INVALID_MEM_OBJECT
    assert _code(clEnqueueMapBuffer, q, im, CL_TRUE, CL_MAP_READ, 0, 64) == CL_INVALID_MEM_OBJECT
    assert _code(clCreateSubBuffer, im, 0, CL_BUFFER_CREATE_TYPE_REGION, (0, 64)) == CL_INVALID_MEM_OBJECT
    clReleaseMemObject(b)
