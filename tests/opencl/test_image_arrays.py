"""Image arrays and 1-D buffer images: image1d_array_t, image2d_array_t and
image1d_buffer_t kernels on pyemu and on PoCL (through PyOpenCL), the results
compared, and the layer rule checked against the specification.

OpenCL C (8.4, "Selecting an image from an image array"): a read through a
sampler takes layer clamp(rint(coord), 0, layers - 1), rint rounding half to
even.  PoCL rounds half away from zero (layer 0.5 reads layer 1, 2.5 layer 3):
at half-integer layers the expected values come from the specification's
formula, elsewhere from PoCL.  With normalized coordinates PoCL normalizes
the layer too (layer 0.49 of 4 layers reads layer 2); the Khronos conformance
tests (test_common/harness/imageHelpers.cpp, calculate_array_index) never
do, nor does pyemu: PoCL is given the layer divided by the layer count there.
PyOpenCL's shape= form makes a 1-D array of
one layer; the PoCL images here are made from descriptors."""
import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

import pyopencl as cl  # the test command installs it: never skipped

SOURCE = r"""
__kernel void rd1(__read_only image1d_array_t im, sampler_t s, __global const float2 *c,
                  __global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}
__kernel void rd2(__read_only image2d_array_t im, sampler_t s, __global const float4 *c,
                  __global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}
__kernel void rd2i(__read_only image2d_array_t im, __global uint4 *out) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                        CLK_FILTER_NEAREST;
    int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);
    int w = get_image_width(im), h = get_image_height(im);
    out[(l * h + y) * w + x] = read_imageui(im, s, (int4)(x, y, l, 0));
}
__kernel void rd1i(__read_only image1d_array_t im, __global int4 *out) {
    int x = get_global_id(0), l = get_global_id(1);
    out[l * get_image_width(im) + x] = read_imagei(im, (int2)(x, l));
}
__kernel void wr2(__write_only image2d_array_t im) {
    int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);
    write_imagef(im, (int4)(x, y, l, 0), (float4)(x * 0.125f, y * 0.25f, l * 0.0625f, 1.0f));
}
__kernel void wr1(__write_only image1d_array_t im) {
    int x = get_global_id(0), l = get_global_id(1);
    write_imageui(im, (int2)(x, l), (uint4)(x, l, x + l, 7));
}
__kernel void dims(__read_only image2d_array_t a, __read_only image1d_array_t b,
                   __global int *out) {
    out[0] = get_image_width(a);
    out[1] = get_image_height(a);
    out[2] = (int)get_image_array_size(a);
    int2 d = get_image_dim(a);
    out[3] = d.x;
    out[4] = d.y;
    out[5] = get_image_width(b);
    out[6] = (int)get_image_array_size(b);
    out[7] = get_image_channel_order(b);
}
/* pyemu only: PoCL has no get_image_* for image1d_buffer_t (the kernel fails to load) */
__kernel void bdims(__read_only image1d_buffer_t c, __global int *out) {
    out[0] = get_image_width(c);
    out[1] = get_image_channel_order(c);
    out[2] = get_image_channel_data_type(c);
}
__kernel void twice(__read_only image1d_buffer_t a, __write_only image1d_buffer_t b) {
    int i = get_global_id(0);
    write_imageui(b, i, read_imageui(a, i) * 2u + (uint4)(0, 1, 2, 3));
}
"""

RGBA_F = (CL_RGBA, CL_FLOAT)
_PFMT = {RGBA_F: (cl.channel_order.RGBA, cl.channel_type.FLOAT),
         (CL_RGBA, CL_UNSIGNED_INT8): (cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8),
         (CL_RGBA, CL_SIGNED_INT16): (cl.channel_order.RGBA, cl.channel_type.SIGNED_INT16),
         (CL_RGBA, CL_UNSIGNED_INT32): (cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT32)}
_PMODE = {CL_ADDRESS_CLAMP_TO_EDGE: cl.addressing_mode.CLAMP_TO_EDGE,
          CL_ADDRESS_CLAMP: cl.addressing_mode.CLAMP, CL_ADDRESS_REPEAT: cl.addressing_mode.REPEAT,
          CL_ADDRESS_MIRRORED_REPEAT: cl.addressing_mode.MIRRORED_REPEAT}
_PTYPE = {CL_MEM_OBJECT_IMAGE1D_ARRAY: cl.mem_object_type.IMAGE1D_ARRAY,
          CL_MEM_OBJECT_IMAGE2D_ARRAY: cl.mem_object_type.IMAGE2D_ARRAY,
          CL_MEM_OBJECT_IMAGE1D_BUFFER: cl.mem_object_type.IMAGE1D_BUFFER}


@pytest.fixture(scope="module")
def pocl():
    ctx = cl.Context(cl.get_platforms()[0].get_devices()[:1])
    return ctx, cl.CommandQueue(ctx), cl.Program(ctx, SOURCE).build()


@pytest.fixture(scope="module")
def prog(context):
    p = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(p)
    return p


def pocl_image(ctx, itype, fmt, w, h, layers, data=None, buffer=None, flags=None):
    d = cl.ImageDescriptor()
    d.image_type = _PTYPE[itype]
    d.shape = (w, h, 1)            # before array_size: the shape setter resets it
    d.array_size = layers
    d.pitches = (0, 0)
    if buffer is not None:
        d.buffer = buffer
    mf = cl.mem_flags
    if flags is None:
        flags = mf.READ_WRITE | (mf.COPY_HOST_PTR if data is not None else 0)
    return cl.Image(ctx, flags, cl.ImageFormat(*_PFMT[fmt]), hostbuf=data, desc=d)


def my_image(context, itype, fmt, w, h, layers, data=None, buffer=None):
    flags = CL_MEM_READ_WRITE | (CL_MEM_COPY_HOST_PTR if data is not None else 0)
    return clCreateImage(context, flags if buffer is None else 0, cl_image_format(*fmt),
                         cl_image_desc(itype, w, h, 0, layers, buffer=buffer), data)


def run_mine(context, queue, prog, name, args, gsize):
    k = clCreateKernel(prog, name)
    for i, a in enumerate(args):
        clSetKernelArg(k, i, a)
    clEnqueueNDRangeKernel(queue, k, len(gsize), None, list(gsize), None)
    clFinish(queue)


def read_buf(queue, b, out):
    clEnqueueReadBuffer(queue, b, CL_TRUE, 0, out.nbytes, out)
    return out


def spec_layer(v, n):
    """clamp(rint(v), 0, n - 1): NumPy's rint rounds half to even, as C's."""
    return int(np.clip(np.rint(np.nan_to_num(v, nan=0.0)), 0, n - 1))


W, H, L = 6, 5, 4
DATA2 = np.random.default_rng(3).random((L, H, W, 4), dtype=np.float32)
DATA1 = np.random.default_rng(4).random((L, W, 4), dtype=np.float32)
LAYERS = [-3.0, -0.4, 0.0, 0.49, 0.51, 1.0, 1.7, 2.2, 2.9, 3.0, 3.3, 7.0, 1e9]
HALVES = [0.5, 1.5, 2.5, -0.5, 3.5]


def _sample(context, queue, prog, pocl, kernel, itype, data, coords, smp):
    pctx, pq, pprog = pocl
    mf = cl.mem_flags
    h = data.shape[1] if itype == CL_MEM_OBJECT_IMAGE2D_ARRAY else 1
    pim = pocl_image(pctx, itype, RGBA_F, W, h, L, data)
    theirs_c = coords.copy()
    if smp[0]:                                  # PoCL's normalized layer (see above)
        theirs_c[:, 1 if itype == CL_MEM_OBJECT_IMAGE1D_ARRAY else 2] /= L
    pc = cl.Buffer(pctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=theirs_c)
    po = cl.Buffer(pctx, mf.WRITE_ONLY, len(coords) * 16)
    # The sampler is held until the queue is finished: PoCL does not retain a
    # sampler argument for the enqueued command, and one released as soon as
    # the call returns left the output unwritten (CI, 2026-12-03).
    psmp = cl.Sampler(pctx, smp[0], _PMODE[smp[1]], cl.filter_mode.LINEAR
                      if smp[2] == CL_FILTER_LINEAR else cl.filter_mode.NEAREST)
    getattr(pprog, kernel)(pq, (len(coords),), None, pim, psmp, pc, po)
    theirs = np.empty((len(coords), 4), np.float32)
    cl.enqueue_copy(pq, theirs, po)
    pq.finish()
    del psmp
    im = my_image(context, itype, RGBA_F, W, h, L, data)
    mc = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, coords.nbytes, coords)
    mo = clCreateBuffer(context, 0, len(coords) * 16)
    run_mine(context, queue, prog, kernel, [im, clCreateSampler(context, *smp), mc, mo],
             (len(coords),))
    return theirs, read_buf(queue, mo, np.empty((len(coords), 4), np.float32))


SAMPLERS = [(False, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST),
            (False, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
            (True, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST),
            (True, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST)]


@pytest.mark.parametrize("smp", SAMPLERS)
def test_2d_array_read_matches_pocl(context, queue, prog, pocl, smp):
    xs = [-1.3, 0.2, 2.6, 5.9, 7.5] if not smp[0] else [-0.3, 0.04, 0.45, 0.97, 1.6]
    ys = [-0.7, 1.2, 4.6, 6.2] if not smp[0] else [-0.23, 0.33, 0.93, 1.27]
    coords = np.array([[x, y, v, 0] for x in xs for y in ys for v in LAYERS], np.float32)
    theirs, mine = _sample(context, queue, prog, pocl, "rd2", CL_MEM_OBJECT_IMAGE2D_ARRAY,
                           DATA2, coords, smp)
    np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("smp", SAMPLERS)
def test_1d_array_read_matches_pocl(context, queue, prog, pocl, smp):
    xs = [-1.3, 0.2, 2.6, 5.9, 7.5] if not smp[0] else [-0.3, 0.04, 0.45, 0.97, 1.6]
    coords = np.array([[x, v] for x in xs for v in LAYERS], np.float32)
    theirs, mine = _sample(context, queue, prog, pocl, "rd1", CL_MEM_OBJECT_IMAGE1D_ARRAY,
                           DATA1, coords, smp)
    np.testing.assert_array_equal(mine, theirs)


def test_array_layer_rounds_half_to_even(context, queue, prog, pocl):
    """(Coordinates keep away from texel edges, where pyemu cuts a normalized
    coordinate to 20 fractional bits as an NVIDIA GPU does and PoCL does not.)
    At x.5 the specification's rint (to even) decides; PoCL rounds away."""
    smp = (False, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST)
    coords = np.array([[2.2, 1.7, v, 0] for v in HALVES], np.float32)
    _, mine = _sample(context, queue, prog, pocl, "rd2", CL_MEM_OBJECT_IMAGE2D_ARRAY, DATA2,
                      coords, smp)
    want = np.array([DATA2[spec_layer(v, L), 1, 2] for v in HALVES])
    np.testing.assert_array_equal(mine, want)
    assert [spec_layer(v, L) for v in HALVES] == [0, 2, 2, 0, 3]
    coords = np.array([[4.0, v] for v in HALVES], np.float32)
    _, mine = _sample(context, queue, prog, pocl, "rd1", CL_MEM_OBJECT_IMAGE1D_ARRAY, DATA1,
                      coords, smp)
    np.testing.assert_array_equal(mine, [DATA1[spec_layer(v, L), 4] for v in HALVES])


def _lin(i, a, n):
    """The two texel indices and weights of a linear fetch at clamp-to-edge."""
    return [(np.clip(i, 0, n - 1), 1 - a), (np.clip(i + 1, 0, n - 1), a)]


def test_array_linear_filter_stays_in_its_layer(context, queue, prog, pocl):
    """Linear filtering blends within the layer only: within one 1/256 weight
    step of the specification's float formula, and of PoCL (float weights)."""
    smp = (False, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR)
    coords = np.array([[x, y, v, 0] for x in (0.7, 2.3, 5.2) for y in (1.1, 3.6)
                       for v in (0.2, 1.2, 2.8)], np.float32)
    theirs, mine = _sample(context, queue, prog, pocl, "rd2", CL_MEM_OBJECT_IMAGE2D_ARRAY,
                           DATA2, coords, smp)
    np.testing.assert_allclose(mine, theirs, atol=1.0 / 256)
    want = []
    for x, y, v, _ in coords:
        fx, fy = np.floor(x - 0.5), np.floor(y - 0.5)
        img = DATA2[spec_layer(v, L)]
        want.append(sum(wi * wj * img[j, i] for i, wi in _lin(int(fx), x - 0.5 - fx, W)
                        for j, wj in _lin(int(fy), y - 0.5 - fy, H)))
    np.testing.assert_allclose(mine, want, atol=1.0 / 256)
    coords = np.array([[x, v] for x in (0.7, 2.3, 5.2) for v in (0.2, 1.2, 2.8)], np.float32)
    theirs, mine = _sample(context, queue, prog, pocl, "rd1", CL_MEM_OBJECT_IMAGE1D_ARRAY,
                           DATA1, coords, smp)
    np.testing.assert_allclose(mine, theirs, atol=1.0 / 256)
    want = []
    for x, v in coords:
        fx = np.floor(x - 0.5)
        want.append(sum(wi * DATA1[spec_layer(v, L), i]
                        for i, wi in _lin(int(fx), x - 0.5 - fx, W)))
    np.testing.assert_allclose(mine, want, atol=1.0 / 256)


def test_integer_reads_of_arrays(context, queue, prog, pocl):
    pctx, pq, pprog = pocl
    u8 = np.random.default_rng(5).integers(0, 256, (L, H, W, 4), dtype=np.uint8)
    pim = pocl_image(pctx, CL_MEM_OBJECT_IMAGE2D_ARRAY, (CL_RGBA, CL_UNSIGNED_INT8), W, H, L,
                     u8)
    po = cl.Buffer(pctx, cl.mem_flags.WRITE_ONLY, u8.size * 4)
    pprog.rd2i(pq, (W, H, L), None, pim, po)
    theirs = np.empty((L, H, W, 4), np.uint32)
    cl.enqueue_copy(pq, theirs, po)
    im = my_image(context, CL_MEM_OBJECT_IMAGE2D_ARRAY, (CL_RGBA, CL_UNSIGNED_INT8), W, H, L, u8)
    mo = clCreateBuffer(context, 0, u8.size * 4)
    run_mine(context, queue, prog, "rd2i", [im, mo], (W, H, L))
    mine = read_buf(queue, mo, np.empty((L, H, W, 4), np.uint32))
    np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(mine, u8)
    i16 = np.random.default_rng(6).integers(-32768, 32768, (L, W, 4), dtype=np.int16)
    im1 = my_image(context, CL_MEM_OBJECT_IMAGE1D_ARRAY, (CL_RGBA, CL_SIGNED_INT16), W, 0, L, i16)
    mo1 = clCreateBuffer(context, 0, i16.size * 4)
    run_mine(context, queue, prog, "rd1i", [im1, mo1], (W, L))
    np.testing.assert_array_equal(read_buf(queue, mo1, np.empty((L, W, 4), np.int32)), i16)


def test_write_arrays_matches_pocl(context, queue, prog, pocl):
    pctx, pq, pprog = pocl
    pim = pocl_image(pctx, CL_MEM_OBJECT_IMAGE2D_ARRAY, RGBA_F, W, H, L)
    pprog.wr2(pq, (W, H, L), None, pim)
    theirs = np.empty((L, H, W, 4), np.float32)
    cl._cl._enqueue_read_image(pq, pim, (0, 0, 0), (W, H, L), theirs)   # enqueue_copy
    pq.finish()                                     # rejects array images
    im = my_image(context, CL_MEM_OBJECT_IMAGE2D_ARRAY, RGBA_F, W, H, L)
    run_mine(context, queue, prog, "wr2", [im], (W, H, L))
    mine = np.empty_like(theirs)
    clEnqueueReadImage(queue, im, CL_TRUE, (0, 0, 0), (W, H, L), 0, 0, mine)
    np.testing.assert_array_equal(mine, theirs)
    assert mine[2, 3, 4, 2] == 2 * 0.0625 and mine[1, 2, 5, 0] == 5 * 0.125
    # a 1-D array of uint32
    fmt = (CL_RGBA, CL_UNSIGNED_INT32)
    pim1 = pocl_image(pctx, CL_MEM_OBJECT_IMAGE1D_ARRAY, fmt, W, 1, L)
    pprog.wr1(pq, (W, L), None, pim1)
    theirs1 = np.empty((L, W, 4), np.uint32)
    cl._cl._enqueue_read_image(pq, pim1, (0, 0, 0), (W, L, 1), theirs1)
    pq.finish()
    im1 = my_image(context, CL_MEM_OBJECT_IMAGE1D_ARRAY, fmt, W, 0, L)
    run_mine(context, queue, prog, "wr1", [im1], (W, L))
    mine1 = np.empty_like(theirs1)
    clEnqueueReadImage(queue, im1, CL_TRUE, (0, 0, 0), (W, L, 1), 0, 0, mine1)
    np.testing.assert_array_equal(mine1, theirs1)
    assert mine1[3, 5].tolist() == [5, 3, 8, 7]


def test_queries_match_pocl(context, queue, prog, pocl):
    pctx, pq, pprog = pocl
    fmt = RGBA_F
    pa = pocl_image(pctx, CL_MEM_OBJECT_IMAGE2D_ARRAY, fmt, W, H, L)
    pb = pocl_image(pctx, CL_MEM_OBJECT_IMAGE1D_ARRAY, fmt, 7, 1, 3)
    pbuf = cl.Buffer(pctx, cl.mem_flags.READ_WRITE, 16 * 9)
    pc = pocl_image(pctx, CL_MEM_OBJECT_IMAGE1D_BUFFER, fmt, 9, 1, 0, buffer=pbuf,
                    flags=cl.mem_flags.READ_WRITE)
    po = cl.Buffer(pctx, cl.mem_flags.WRITE_ONLY, 8 * 4)
    pprog.dims(pq, (1,), None, pa, pb, po)
    theirs = np.empty(8, np.int32)
    cl.enqueue_copy(pq, theirs, po)
    a = my_image(context, CL_MEM_OBJECT_IMAGE2D_ARRAY, fmt, W, H, L)
    b = my_image(context, CL_MEM_OBJECT_IMAGE1D_ARRAY, fmt, 7, 0, 3)
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE, 16 * 9)
    c = my_image(context, CL_MEM_OBJECT_IMAGE1D_BUFFER, fmt, 9, 0, 0, buffer=buf)
    mo = clCreateBuffer(context, 0, 8 * 4)
    run_mine(context, queue, prog, "dims", [a, b, mo], (1,))
    mine = read_buf(queue, mo, np.empty(8, np.int32))
    np.testing.assert_array_equal(mine, theirs)
    assert mine.tolist() == [W, H, L, W, H, 7, 3, CL_RGBA]
    run_mine(context, queue, prog, "bdims", [c, mo], (1,))
    assert read_buf(queue, mo, np.empty(8, np.int32))[:3].tolist() == [9, CL_RGBA, CL_FLOAT]
    # clGetImageInfo, field by field, as PoCL answers
    info = cl.image_info
    for mineobj, theirobj in ((a, pa), (b, pb), (c, pc)):
        for name, param in (("WIDTH", CL_IMAGE_WIDTH), ("HEIGHT", CL_IMAGE_HEIGHT),
                            ("DEPTH", CL_IMAGE_DEPTH), ("ARRAY_SIZE", CL_IMAGE_ARRAY_SIZE),
                            ("ELEMENT_SIZE", CL_IMAGE_ELEMENT_SIZE),
                            ("ROW_PITCH", CL_IMAGE_ROW_PITCH),
                            ("SLICE_PITCH", CL_IMAGE_SLICE_PITCH)):
            assert clGetImageInfo(mineobj, param) == theirobj.get_image_info(
                getattr(info, name)), name
    assert clGetImageInfo(c, CL_IMAGE_BUFFER) is buf
    assert clGetImageInfo(a, CL_IMAGE_BUFFER) is None


def test_buffer_image_shares_the_buffer(context, queue, prog, pocl):
    """Writes through the buffer are seen through the image and the other way."""
    pctx, pq, pprog = pocl
    fmt = (CL_RGBA, CL_UNSIGNED_INT8)
    n = 37
    src = np.random.default_rng(8).integers(0, 120, (n, 4), dtype=np.uint8)
    mf = cl.mem_flags
    pa_buf = cl.Buffer(pctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=src)
    pb_buf = cl.Buffer(pctx, mf.READ_WRITE, src.nbytes)
    pa = pocl_image(pctx, CL_MEM_OBJECT_IMAGE1D_BUFFER, fmt, n, 1, 0, buffer=pa_buf,
                    flags=mf.READ_ONLY)
    pb = pocl_image(pctx, CL_MEM_OBJECT_IMAGE1D_BUFFER, fmt, n, 1, 0, buffer=pb_buf,
                    flags=mf.WRITE_ONLY)
    pprog.twice(pq, (n,), None, pa, pb)
    theirs = np.empty_like(src)
    cl.enqueue_copy(pq, theirs, pb_buf)
    a_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, src.nbytes)
    b_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, src.nbytes + 16)
    a = clCreateImage(context, CL_MEM_READ_ONLY, cl_image_format(*fmt),
                      cl_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, n, buffer=a_buf))
    b = clCreateImage(context, CL_MEM_WRITE_ONLY, cl_image_format(*fmt),
                      cl_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, n, buffer=b_buf))
    clEnqueueWriteBuffer(queue, a_buf, CL_TRUE, 0, src.nbytes, src)     # through the buffer
    run_mine(context, queue, prog, "twice", [a, b], (n,))
    mine = read_buf(queue, b_buf, np.empty((n + 4, 4), np.uint8))       # seen in the buffer
    np.testing.assert_array_equal(mine[:n], theirs)
    np.testing.assert_array_equal(mine[:n], src * 2 + np.array([0, 1, 2, 3], np.uint8))
    back = np.empty_like(src)
    clEnqueueReadImage(queue, a, CL_TRUE, (0, 0, 0), (n, 1, 1), 0, 0, back)
    np.testing.assert_array_equal(back, src)
    # an image write lands in the buffer
    clEnqueueWriteImage(queue, a, CL_TRUE, (5, 0, 0), (2, 1, 1), 0, 0,
                        np.full((2, 4), 250, np.uint8))
    got = read_buf(queue, a_buf, np.empty_like(src))
    assert (got[5:7] == 250).all() and (got[:5] == src[:5]).all() and (got[7:] == src[7:]).all()
    # the image holds its buffer: releasing the buffer first leaves the image working
    refs = clGetMemObjectInfo(a_buf, CL_MEM_REFERENCE_COUNT)
    assert refs == 2
    assert clGetMemObjectInfo(a, CL_MEM_ASSOCIATED_MEMOBJECT) is a_buf
    clReleaseMemObject(a_buf)
    clEnqueueReadImage(queue, a, CL_TRUE, (0, 0, 0), (n, 1, 1), 0, 0, back)
    assert (back[5:7] == 250).all()
    clReleaseMemObject(a)


def test_buffer_image_on_a_sub_buffer(context, queue):
    base = clCreateBuffer(context, CL_MEM_READ_WRITE, 4096)
    data = np.arange(1024, dtype=np.float32)
    clEnqueueWriteBuffer(queue, base, CL_TRUE, 0, data.nbytes, data)
    sub = clCreateSubBuffer(base, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, (1024, 256))
    im = clCreateImage(context, 0, cl_image_format(CL_R, CL_FLOAT),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, buffer=sub))
    out = np.empty(64, np.float32)
    clEnqueueReadImage(queue, im, CL_TRUE, (0, 0, 0), (64, 1, 1), 0, 0, out)
    np.testing.assert_array_equal(out, data[256:320])
