"""OpenCL images and samplers on the host: each call with valid and bad
arguments and the specification's codes; copies with guard values round the
region; the device reports images."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

F32_R = cl_image_format(CL_R, CL_FLOAT)
U8_RGBA = cl_image_format(CL_RGBA, CL_UNORM_INT8)


def desc2d(w, h):
    return cl_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h)


@pytest.fixture
def img(context):
    data = np.arange(20, dtype=np.float32)
    im = clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, F32_R, desc2d(5, 4), data)
    yield im
    clReleaseMemObject(im)


def test_device_reports_images(device):
    assert clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT) is True
    assert clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_WIDTH) == 32768
    assert clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_DEPTH) == 16384
    assert clGetDeviceInfo(device, CL_DEVICE_MAX_SAMPLERS) >= 16          # the 1.2 minimum
    assert clGetDeviceInfo(device, CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128
    assert clGetDeviceInfo(device, CL_DEVICE_MAX_WRITE_IMAGE_ARGS) >= 8


def test_clGetSupportedImageFormats(context, code_of):
    fmts = clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D)
    pairs = {(f.image_channel_order, f.image_channel_data_type) for f in fmts}
    # the formats OpenCL 1.2 requires of every device with images (table 5.8)
    for req in [(CL_RGBA, CL_UNORM_INT8), (CL_RGBA, CL_UNORM_INT16), (CL_RGBA, CL_SIGNED_INT8),
                (CL_RGBA, CL_SIGNED_INT16), (CL_RGBA, CL_SIGNED_INT32), (CL_RGBA, CL_UNSIGNED_INT8),
                (CL_RGBA, CL_UNSIGNED_INT16), (CL_RGBA, CL_UNSIGNED_INT32), (CL_RGBA, CL_HALF_FLOAT),
                (CL_RGBA, CL_FLOAT), (CL_BGRA, CL_UNORM_INT8)]:
        assert req in pairs
    for t in (CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE1D_ARRAY,
              CL_MEM_OBJECT_IMAGE2D_ARRAY):
        assert clGetSupportedImageFormats(context, 0, t) == fmts
    assert code_of(clGetSupportedImageFormats, context, 0, CL_MEM_OBJECT_BUFFER) == CL_INVALID_VALUE
    assert code_of(clGetSupportedImageFormats, context, 1 << 40, CL_MEM_OBJECT_IMAGE2D) == CL_INVALID_VALUE
    assert code_of(clGetSupportedImageFormats, "ctx", 0, CL_MEM_OBJECT_IMAGE2D) == CL_INVALID_CONTEXT


def test_clCreateImage_bad_arguments(context, code_of):
    rw = CL_MEM_READ_WRITE
    assert code_of(clCreateImage, context, rw, (0x1234, CL_FLOAT), desc2d(4, 4)) == \
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    assert code_of(clCreateImage, context, rw, "rgba", desc2d(4, 4)) == \
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
    assert code_of(clCreateImage, context, rw, (CL_BGRA, CL_FLOAT), desc2d(4, 4)) == \
        CL_IMAGE_FORMAT_NOT_SUPPORTED
    assert code_of(clCreateImage, context, rw, F32_R, None) == CL_INVALID_IMAGE_DESCRIPTOR
    assert code_of(clCreateImage, context, rw, F32_R, desc2d(0, 4)) == CL_INVALID_IMAGE_SIZE
    assert code_of(clCreateImage, context, rw, F32_R, desc2d(32769, 4)) == CL_INVALID_IMAGE_SIZE
    assert code_of(clCreateImage, context, rw, F32_R,
                   cl_image_desc(CL_MEM_OBJECT_BUFFER, 4, 4)) == CL_INVALID_IMAGE_DESCRIPTOR
    assert code_of(clCreateImage, context, rw, F32_R,
                   cl_image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, image_row_pitch=64)) == \
        CL_INVALID_IMAGE_DESCRIPTOR           # a pitch without host_ptr
    assert code_of(clCreateImage, context, rw | CL_MEM_COPY_HOST_PTR, F32_R, desc2d(4, 4)) == \
        CL_INVALID_HOST_PTR
    assert code_of(clCreateImage, context, rw | CL_MEM_COPY_HOST_PTR, F32_R, desc2d(4, 4),
                   np.zeros(15, np.float32)) == CL_INVALID_HOST_PTR
    assert code_of(clCreateImage, context, rw, F32_R, desc2d(4, 4), np.zeros(16, np.float32)) == \
        CL_INVALID_HOST_PTR
    assert code_of(clCreateImage, context, 1 << 40, F32_R, desc2d(4, 4)) == CL_INVALID_VALUE
    assert code_of(clCreateImage, None, rw, F32_R, desc2d(4, 4)) == CL_INVALID_CONTEXT


def test_clCreateImage_with_row_pitch_and_1_1_forms(context, queue):
    host = np.arange(24, dtype=np.float32).reshape(3, 8)      # rows of 8, image 5 wide
    im = clCreateImage2D(context, CL_MEM_COPY_HOST_PTR, F32_R, 5, 3, 32, host)
    out = np.zeros((3, 5), np.float32)
    clEnqueueReadImage(queue, im, CL_TRUE, (0, 0, 0), (5, 3, 1), 0, 0, out)
    assert out.tolist() == host[:, :5].tolist()
    vol = np.arange(2 * 3 * 4, dtype=np.float32)
    im3 = clCreateImage3D(context, CL_MEM_COPY_HOST_PTR, F32_R, 4, 3, 2, 0, 0, vol)
    back = np.zeros(24, np.float32)
    clEnqueueReadImage(queue, im3, CL_TRUE, (0, 0, 0), (4, 3, 2), 0, 0, back)
    assert back.tolist() == vol.tolist()
    assert clGetImageInfo(im3, CL_IMAGE_DEPTH) == 2
    assert clGetImageInfo(im3, CL_IMAGE_SLICE_PITCH) == 48
    clReleaseMemObject(im)
    clReleaseMemObject(im3)


def test_clGetImageInfo(img, code_of, context):
    f = clGetImageInfo(img, CL_IMAGE_FORMAT)
    assert (f.image_channel_order, f.image_channel_data_type) == (CL_R, CL_FLOAT)
    assert clGetImageInfo(img, CL_IMAGE_ELEMENT_SIZE) == 4
    assert clGetImageInfo(img, CL_IMAGE_ROW_PITCH) == 20
    assert (clGetImageInfo(img, CL_IMAGE_WIDTH), clGetImageInfo(img, CL_IMAGE_HEIGHT),
            clGetImageInfo(img, CL_IMAGE_DEPTH)) == (5, 4, 0)
    assert code_of(clGetImageInfo, img, 0x1234) == CL_INVALID_VALUE
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE, 16)
    assert code_of(clGetImageInfo, buf, CL_IMAGE_WIDTH) == CL_INVALID_MEM_OBJECT
    clReleaseMemObject(buf)


def test_read_write_image_region_with_guards(img, queue, code_of):
    out = np.full(10, -1.0, np.float32)
    clEnqueueReadImage(queue, img, CL_TRUE, (1, 2, 0), (3, 2, 1), 0, 0, out[2:8])
    assert out[2:8].tolist() == [11, 12, 13, 16, 17, 18]
    assert out[:2].tolist() == [-1, -1] and out[8:].tolist() == [-1, -1]
    clEnqueueWriteImage(queue, img, CL_TRUE, (2, 1, 0), (2, 1, 1), 0, 0,
                        np.array([100, 101], np.float32))
    full = np.zeros(20, np.float32)
    clEnqueueReadImage(queue, img, CL_TRUE, (0, 0, 0), (5, 4, 1), 0, 0, full)
    want = np.arange(20, dtype=np.float32)
    want[7:9] = [100, 101]
    assert full.tolist() == want.tolist()
    assert code_of(clEnqueueReadImage, queue, img, CL_TRUE, (3, 0, 0), (3, 1, 1), 0, 0,
                   out) == CL_INVALID_VALUE                       # past the width
    assert code_of(clEnqueueReadImage, queue, img, CL_TRUE, (0, 0, 1), (1, 1, 1), 0, 0,
                   out) == CL_INVALID_VALUE                       # z in a 2-D image
    assert code_of(clEnqueueReadImage, queue, img, CL_TRUE, (0, 0, 0), (5, 4, 1), 0, 0,
                   out) == CL_INVALID_VALUE                       # host memory too small
    assert code_of(clEnqueueReadImage, queue, img, CL_TRUE, (0, 0, 0), (0, 1, 1), 0, 0,
                   out) == CL_INVALID_VALUE
    assert code_of(clEnqueueReadImage, queue, img, CL_TRUE, (0, 0, 0), (2, 1, 1), 4, 0,
                   out) == CL_INVALID_VALUE                       # row pitch < row
    assert code_of(clEnqueueReadImage, queue, img, CL_TRUE, (0, 0, 0), (1, 1, 1), 0, 0,
                   None) == CL_INVALID_VALUE


def test_copy_fill_and_buffer_copies(context, queue, img, code_of):
    dst = clCreateImage(context, CL_MEM_READ_WRITE, F32_R, desc2d(5, 4))
    clEnqueueFillImage(queue, dst, (7.5, 0, 0, 0), (0, 0, 0), (5, 4, 1))
    clEnqueueCopyImage(queue, img, dst, (0, 0, 0), (1, 1, 0), (2, 2, 1))
    out = np.zeros(20, np.float32)
    clEnqueueReadImage(queue, dst, CL_TRUE, (0, 0, 0), (5, 4, 1), 0, 0, out)
    want = np.full(20, 7.5, np.float32)
    want[[6, 7, 11, 12]] = [0, 1, 5, 6]
    assert out.tolist() == want.tolist()
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE, 64)
    clEnqueueCopyImageToBuffer(queue, img, buf, (1, 1, 0), (2, 2, 1), 8)
    b = np.zeros(16, np.float32)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 64, b)
    assert b[2:6].tolist() == [6, 7, 11, 12] and b[:2].tolist() == [0, 0]
    clEnqueueCopyBufferToImage(queue, buf, dst, 8, (3, 2, 0), (2, 2, 1))
    clEnqueueReadImage(queue, dst, CL_TRUE, (3, 2, 0), (2, 2, 1), 0, 0, out[:4])
    assert out[:4].tolist() == [6, 7, 11, 12]
    assert code_of(clEnqueueCopyImageToBuffer, queue, img, buf, (0, 0, 0), (5, 4, 1), 0) == \
        CL_INVALID_VALUE                                          # 80 bytes into 64
    assert code_of(clEnqueueCopyImage, queue, img, img, (0, 0, 0), (1, 1, 0), (2, 2, 1)) == \
        CL_MEM_COPY_OVERLAP
    rgba = clCreateImage(context, CL_MEM_READ_WRITE, U8_RGBA, desc2d(2, 2))
    assert code_of(clEnqueueCopyImage, queue, img, rgba, (0, 0, 0), (0, 0, 0), (1, 1, 1)) == \
        CL_IMAGE_FORMAT_MISMATCH
    assert code_of(clEnqueueCopyImageToBuffer, queue, buf, buf, (0, 0, 0), (1, 1, 1), 0) == \
        CL_INVALID_MEM_OBJECT
    clEnqueueFillImage(queue, rgba, (1.0, 0.5, 0.0, 0.25), (0, 0, 0), (2, 2, 1))
    px = np.zeros(16, np.uint8)
    clEnqueueReadImage(queue, rgba, CL_TRUE, (0, 0, 0), (2, 2, 1), 0, 0, px)
    assert px[:4].tolist() == [255, 128, 0, 64]
    for m in (dst, buf, rgba):
        clReleaseMemObject(m)


def test_clEnqueueMapImage(queue, img, code_of):
    mapped, row_pitch, slice_pitch, ev = clEnqueueMapImage(
        queue, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, (1, 1, 0), (2, 2, 1))
    assert (row_pitch, slice_pitch) == (20, 0)
    rows = [mapped[0:8].view(np.float32).tolist(), mapped[20:28].view(np.float32).tolist()]
    assert rows == [[6, 7], [11, 12]]
    mapped[0:4] = np.array([42], np.float32).view(np.uint8)
    clEnqueueUnmapMemObject(queue, img, mapped)
    out = np.zeros(1, np.float32)
    clEnqueueReadImage(queue, img, CL_TRUE, (1, 1, 0), (1, 1, 1), 0, 0, out)
    assert out[0] == 42
    assert code_of(clEnqueueMapImage, queue, img, CL_TRUE, 1 << 8, (0, 0, 0), (1, 1, 1)) == \
        CL_INVALID_VALUE


def test_samplers(context, code_of):
    s = clCreateSampler(context, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR)
    assert clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS) is True
    assert clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE) == CL_ADDRESS_REPEAT
    assert clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE) == CL_FILTER_LINEAR
    assert clGetSamplerInfo(s, CL_SAMPLER_CONTEXT) is context
    assert int(s) == 0x1 | 0x6 | 0x20          # CLK_NORMALIZED_COORDS_TRUE | REPEAT | LINEAR
    clRetainSampler(s)
    assert clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT) == 2
    clReleaseSampler(s)
    clReleaseSampler(s)
    assert code_of(clGetSamplerInfo, s, CL_SAMPLER_FILTER_MODE) == CL_INVALID_SAMPLER
    assert code_of(clCreateSampler, context, CL_TRUE, 0x1999, CL_FILTER_LINEAR) == CL_INVALID_VALUE
    assert code_of(clCreateSampler, context, CL_TRUE, CL_ADDRESS_CLAMP, 7) == CL_INVALID_VALUE
    assert code_of(clCreateSampler, context, CL_FALSE, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST) == \
        CL_INVALID_VALUE
    assert code_of(clCreateSampler, None, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR) == \
        CL_INVALID_CONTEXT
    p = clCreateSamplerWithProperties(context, [CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0])
    assert clGetSamplerInfo(p, CL_SAMPLER_ADDRESSING_MODE) == CL_ADDRESS_CLAMP
    assert int(p) == 0x1 | 0x4 | 0x20
    assert code_of(clCreateSamplerWithProperties, context, [0x9999, 1, 0]) == CL_INVALID_VALUE
    assert code_of(clCreateSamplerWithProperties, context, [CL_SAMPLER_FILTER_MODE]) == \
        CL_INVALID_VALUE


def test_sampler_and_image_kernel_arguments(context, queue, img, code_of):
    prog = clCreateProgramWithSource(context, [r"""
    __kernel void k(__read_only image2d_t im, sampler_t s, __global float *out) {
        out[0] = read_imagef(im, s, (float2)(1.5f, 0.5f)).x;
        out[1] = get_image_width(im);
        out[2] = get_image_channel_data_type(im);
        out[3] = get_image_channel_order(im);
    }"""])
    clBuildProgram(prog)
    k = clCreateKernel(prog, "k")
    s = clCreateSampler(context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST)
    buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 16)
    clSetKernelArg(k, 0, img)
    clSetKernelArg(k, 1, s)
    clSetKernelArg(k, 2, buf)
    clEnqueueNDRangeKernel(queue, k, 1, None, [1], [1])
    out = np.zeros(4, np.float32)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, out)
    assert out.tolist() == [1.0, 5.0, CL_FLOAT, CL_R]
    # a sampler_t takes a valid sampler object, else CL_INVALID_SAMPLER (OpenCL 3.0,
    # clSetKernelArg: "for an argument declared to be of type sampler_t when the
    # specified arg_value is not a valid sampler object"), the argument left as it was
    assert code_of(clSetKernelArg, k, 1, img) == CL_INVALID_SAMPLER
    assert code_of(clSetKernelArg, k, 1, None) == CL_INVALID_SAMPLER
    assert code_of(clSetKernelArg, k, 1, 0x14) == CL_INVALID_SAMPLER
    assert code_of(clSetKernelArg, k, 1, 8, img) == CL_INVALID_SAMPLER
    # and a sampler is no value of another type
    assert code_of(clSetKernelArg, k, 2, s) == CL_INVALID_MEM_OBJECT
    # the C form: a sampler_t takes arg_size = sizeof(cl_sampler) (a pointer), not
    # sizeof(sampler_t) as the kernel sees it (OpenCL 1.2, clSetKernelArg)
    assert clSetKernelArg(k, 1, 8, s) == CL_SUCCESS
    clEnqueueNDRangeKernel(queue, k, 1, None, [1], [1])
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, out)
    assert out[0] == 1.0
    assert code_of(clSetKernelArg, k, 1, 4, s) == CL_INVALID_ARG_SIZE
    clReleaseSampler(s)
    assert code_of(clSetKernelArg, k, 1, s) == CL_INVALID_SAMPLER
    clReleaseMemObject(buf)


def _many(context, n, param, use):
    args = ", ".join(param.format(i=i) for i in range(n))
    body = " ".join(use.format(i=i) for i in range(n))
    p = clCreateProgramWithSource(context, [f"__kernel void k(__global float *o, {args}) "
                                            f"{{ o[0] = 0; {body} }}"])
    clBuildProgram(p)
    return clCreateKernel(p, "k")


@pytest.mark.parametrize("what, param, use, limit_name", [
    ("write-only image", "__write_only image2d_t w{i}",
     "write_imagef(w{i}, (int2)(0, 0), (float4)(o[0]));", "CL_DEVICE_MAX_WRITE_IMAGE_ARGS"),
    ("sampler_t", "sampler_t s{i}", "o[0] += (float)(s{i} == 0);", "CL_DEVICE_MAX_SAMPLERS"),
])
def test_image_and_sampler_argument_limits(context, queue, device, what, param, use, limit_name):
    """clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES for more write-only image
    arguments than CL_DEVICE_MAX_WRITE_IMAGE_ARGS, or sampler arguments than
    CL_DEVICE_MAX_SAMPLERS (the spec's examples)."""
    limit = clGetDeviceInfo(device, getattr(__import__("pyemu.opencl", fromlist=["x"]),
                                            limit_name))
    assert limit == 32
    o = clCreateBuffer(context, CL_MEM_READ_WRITE, 4)
    # the limit itself runs (samplers: a kernel of 32 write-only images is slow to build)
    for n in ((limit, limit + 1) if what == "sampler_t" else (limit + 1,)):
        k = _many(context, n, param, use)
        clSetKernelArg(k, 0, o)
        for i in range(n):
            if what == "sampler_t":
                clSetKernelArg(k, 1 + i, clCreateSampler(context, CL_FALSE, CL_ADDRESS_NONE,
                                                         CL_FILTER_NEAREST))
            else:
                clSetKernelArg(k, 1 + i, clCreateImage(context, CL_MEM_WRITE_ONLY, F32_R,
                                                       desc2d(1, 1)))
        if n == limit:
            clEnqueueNDRangeKernel(queue, k, 1, None, [1], [1])
            clFinish(queue)
            continue
        with pytest.raises(CLError) as e:
            clEnqueueNDRangeKernel(queue, k, 1, None, [1], [1])
        assert e.value.code == CL_OUT_OF_RESOURCES
        assert f"k has {n} {what} arguments; {limit_name} is {limit}" in str(e.value)
