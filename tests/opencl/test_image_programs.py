"""What real image programs do, in kernels of our own that reproduce it:
PyOpenCL's examples/image_filters_using_image2d_t.py (const-qualified image
and sampler parameters, read_imageui/write_imageui of an RGBA UNSIGNED_INT8
image, a second small image read as filter weights, a short argument, the
vector select that clamps to 255), PyOpenCL's test_wrapper.py image tests
(a CL_RG float 3-D image read with float4 coordinates; a 2-D array image of
one layer read back, copied to an image and to a buffer) and Rodinia's
particlefilter particle_single.cl (a helper function, not a kernel, taking
an image2d_t and declaring its own const sampler_t, reading a float4 image
as a flat array with CLK_ADDRESS_CLAMP past the end).  The ports of those
programs ran on pyemu with their kernels unchanged (the session report says
how they compared with PoCL); these tests keep the constructs checked
against NumPy and, where PoCL computes the same, against PoCL."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

import pyopencl as cl  # the test command installs it: never skipped

FILTERS = r"""
__kernel void luma(read_only const image2d_t src, write_only image2d_t dst,
                   const sampler_t smp) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    uint4 c = read_imageui(src, smp, p);
    uint g = c.x * 3 / 10 + c.y * 6 / 10 + c.z / 10;
    write_imageui(dst, p, (uint4)(g, g, g, 255));
}
__kernel void weighted(read_only const image2d_t src, write_only image2d_t dst,
                       const sampler_t smp, read_only const image2d_t wts, const short n) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    uint4 acc = (uint4)0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            float4 s = convert_float4(read_imageui(src, smp, p + (int2)(i - n / 2, j - n / 2)));
            float4 w = convert_float4(read_imageui(wts, smp, (int2)(i, j))) / (float4)255;
            acc = acc + convert_uint4(s * w);
        }
    uint4 over = convert_uint4(acc > (uint4)255);
    write_imageui(dst, p, select(acc, (uint4)255, over));
}
"""


def _run_filters_pyemu(context, queue, img, wts, n):
    h, w = img.shape[:2]
    fmt = cl_image_format(CL_RGBA, CL_UNSIGNED_INT8)
    src = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, fmt,
                        cl_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h), img)
    wim = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, fmt,
                        cl_image_desc(CL_MEM_OBJECT_IMAGE2D, n, n), wts)
    dst = clCreateImage(context, CL_MEM_WRITE_ONLY, fmt, cl_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h))
    smp = clCreateSampler(context, False, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST)
    p = clCreateProgramWithSource(context, [FILTERS])
    clBuildProgram(p)
    out = []
    for name, args in (("luma", [src, dst, smp]), ("weighted", [src, dst, smp, wim, np.int16(n)])):
        k = clCreateKernel(p, name)
        for i, a in enumerate(args):
            clSetKernelArg(k, i, a)
        clEnqueueNDRangeKernel(queue, k, 2, None, [w, h], None)
        o = np.zeros_like(img)
        clEnqueueReadImage(queue, dst, CL_TRUE, (0, 0, 0), (w, h, 1), 0, 0, o)
        out.append(o)
    for m in (src, wim, dst):
        clReleaseMemObject(m)
    clReleaseSampler(smp)
    return out


def _run_filters_pocl(img, wts, n):
    h, w = img.shape[:2]
    ctx = cl.Context(cl.get_platforms()[0].get_devices()[:1])
    q = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    src = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=img)
    wim = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(n, n), hostbuf=wts)
    dst = cl.create_image(ctx, mf.WRITE_ONLY, fmt, shape=(w, h))
    smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    prg = cl.Program(ctx, FILTERS).build()
    out = []
    for name, args in (("luma", [src, dst, smp]), ("weighted", [src, dst, smp, wim, np.int16(n)])):
        cl.Kernel(prg, name)(q, (w, h), None, *args)
        o = np.zeros_like(img)
        cl.enqueue_copy(q, o, dst, origin=(0, 0), region=(w, h))
        out.append(o)
    return out


def _filters_numpy(img, wts, n):
    h, w = img.shape[:2]
    c = img.astype(np.uint32)
    g = c[..., 0] * 3 // 10 + c[..., 1] * 6 // 10 + c[..., 2] // 10
    luma = np.stack([g, g, g, np.full_like(g, 255)], axis=-1).astype(np.uint8)
    acc = np.zeros((h, w, 4), np.uint32)
    wf = wts.astype(np.float32) / np.float32(255)
    ys, xs = np.mgrid[0:h, 0:w]
    for j in range(n):
        for i in range(n):
            sy = np.clip(ys + j - n // 2, 0, h - 1)
            sx = np.clip(xs + i - n // 2, 0, w - 1)
            acc += (img[sy, sx].astype(np.float32) * wf[j, i]).astype(np.uint32)
    return luma, np.minimum(acc, 255).astype(np.uint8)


def test_filters_with_const_image_and_sampler_parameters(context, queue):
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (13, 17, 4), dtype=np.uint8)
    n = 5
    wts = rng.integers(0, 90, (n, n, 4), dtype=np.uint8)
    mine = _run_filters_pyemu(context, queue, img, wts, n)
    want = _filters_numpy(img, wts, n)
    theirs = _run_filters_pocl(img, wts, n)
    for m, w, t in zip(mine, want, theirs):
        assert np.array_equal(m, w)
        assert np.array_equal(m, t)
    assert (want[1] == 255).any() and (want[1] < 255).any()   # the select clamps some, not all


HELPER = r"""
/* a helper, not a kernel, with a sampler of its own: a float4 image read as a
 * flat float array, 8192 texels a column, zero past either end */
float flat_fetch(__read_only image2d_t img, int index) {
    const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    if (index < 0) return 0;
    int t = index >> 2;
    float4 v = read_imagef(img, smp, (int2)(t >> 13, t & 0x1fff));
    int c = index & 3;
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}
__kernel void gather(__read_only image2d_t img, __global const int *idx, __global float *o) {
    int i = get_global_id(0);
    o[i] = flat_fetch(img, idx[i]);
}
"""


def test_helper_function_with_its_own_sampler_reads_a_flat_array(context, queue):
    cols = 3
    n = cols * 8192 * 4
    flat = np.arange(n, dtype=np.float32) * np.float32(0.5) - 7
    # texel t holds flat[4t:4t+4] at x = t >> 13, y = t & 8191
    host = flat.reshape(cols, 8192, 4).transpose(1, 0, 2).copy()
    im = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                       cl_image_format(CL_RGBA, CL_FLOAT),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE2D, cols, 8192), host)
    idx = np.array([-5, -1, 0, 1, 2, 3, 4, 7, 32767, 32768, 32771, 54321, n - 1, n, n + 5,
                    cols * 8192 * 4 * 3], np.int32)
    ib = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, idx.nbytes, idx)
    ob = clCreateBuffer(context, CL_MEM_WRITE_ONLY, idx.nbytes)
    p = clCreateProgramWithSource(context, [HELPER])
    clBuildProgram(p, None, "-cl-fast-relaxed-math")
    k = clCreateKernel(p, "gather")
    for i, a in enumerate([im, ib, ob]):
        clSetKernelArg(k, i, a)
    clEnqueueNDRangeKernel(queue, k, 1, None, [len(idx)], None)
    out = np.zeros(len(idx), np.float32)
    clEnqueueReadBuffer(queue, ob, CL_TRUE, 0, out.nbytes, out)
    want = np.array([flat[i] if 0 <= i < n else 0 for i in idx], np.float32)
    assert np.array_equal(out, want)
    for m in (im, ib, ob):
        clReleaseMemObject(m)


PLANE = r"""
__kernel void plane(__global float2 *dst, __read_only image3d_t src, sampler_t s, int s0, int s1) {
    int a = get_global_id(0), b = get_global_id(1), c = get_global_id(2);
    dst[a * s0 + b * s1 + c] = read_imagef(src, s, (float4)(c, b, a, 0)).xy;
}
"""


def test_rg_float_3d_image_read_back_through_a_kernel(context, queue):
    shape = (3, 4, 5)
    a = np.random.default_rng(3).random((*shape, 2), dtype=np.float32)
    im = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, cl_image_format(CL_RG, CL_FLOAT),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE3D, shape[2], shape[1], shape[0]), a)
    d = clCreateBuffer(context, CL_MEM_READ_WRITE, a.nbytes)
    smp = clCreateSampler(context, False, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST)
    p = clCreateProgramWithSource(context, [PLANE])
    clBuildProgram(p)
    k = clCreateKernel(p, "plane")
    for i, v in enumerate([d, im, smp, np.int32(shape[1] * shape[2]), np.int32(shape[2])]):
        clSetKernelArg(k, i, v)
    clEnqueueNDRangeKernel(queue, k, 3, None, list(shape), None)
    out = np.empty_like(a)
    clEnqueueReadBuffer(queue, d, CL_TRUE, 0, a.nbytes, out)
    assert np.array_equal(out, a)
    assert clGetImageInfo(im, CL_IMAGE_ELEMENT_SIZE) == 8
    clReleaseMemObject(im)
    clReleaseMemObject(d)
    clReleaseSampler(smp)


@pytest.mark.parametrize("with_data", [False, True])
def test_one_layer_2d_array_read_copied_to_image_and_buffer(context, queue, with_data):
    w, h = 16, 12
    fmt = cl_image_format(CL_RGBA, CL_FLOAT)
    data = np.random.default_rng(8).random((h, w, 4), dtype=np.float32)
    desc = cl_image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, w, h, 1, 1)
    if with_data:
        src = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, fmt, desc, data)
    else:
        src = clCreateImage(context, CL_MEM_READ_ONLY, fmt, desc)
        clEnqueueWriteImage(queue, src, CL_TRUE, (0, 0, 0), (w, h, 1), 0, 0, data)
    dst = clCreateImage(context, CL_MEM_WRITE_ONLY, fmt, desc)
    buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, data.nbytes + 64)
    clEnqueueCopyImage(queue, src, dst, (0, 0, 0), (0, 0, 0), (w, h, 1))
    clEnqueueCopyImageToBuffer(queue, src, buf, (0, 0, 0), (w, h, 1), 32)
    back = np.zeros_like(data)
    clEnqueueReadImage(queue, dst, CL_TRUE, (0, 0, 0), (w, h, 1), 0, 0, back)
    flat = np.zeros(data.size + 16, np.float32)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, flat.nbytes, flat)
    assert np.array_equal(back, data)
    assert np.array_equal(flat[8:8 + data.size].reshape(data.shape), data)
    assert clGetImageInfo(src, CL_IMAGE_ARRAY_SIZE) == 1
    for m in (src, dst, buf):
        clReleaseMemObject(m)
