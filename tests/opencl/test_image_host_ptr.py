"""CL_MEM_USE_HOST_PTR images: host_ptr is coherent at map and unmap, as the
OpenCL specification requires (clEnqueueMapImage returns a pointer into
host_ptr with the row and slice pitch given at creation; an unmap after a
write map makes the host's bytes the image's), checked side by side with
PoCL through PyOpenCL."""
import numpy as np
import pyopencl as cl  # the test command installs it: never skipped

from pyemu.opencl import *  # noqa: F401,F403

SOURCE = r"""
__kernel void fill(__write_only image2d_t im) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imageui(im, (int2)(x, y), (uint4)(x + 10 * y, 7, 0, 0));
}
__kernel void copy_out(__read_only image2d_t im, __global uint *out, int w) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
    int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = read_imageui(im, s, (int2)(x, y)).x;
}
"""
W, H, PITCH = 5, 3, 32          # host rows of 32 bytes: 5 texels of 4 bytes and padding
RGBA8 = (CL_RGBA, CL_UNSIGNED_INT8)


def _host():
    h = np.full(PITCH * H, 0xEE, np.uint8)   # the padding must stay as it is
    return h


def _texels(host):
    """The (x, y) -> first channel of a host copy with PITCH-byte rows."""
    return host.reshape(H, PITCH)[:, :W * 4].reshape(H, W, 4)


def _pyemu(context, queue):
    prog = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(prog)
    host = _host()
    im = clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, cl_image_format(*RGBA8),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H, image_row_pitch=PITCH), host)
    k = clCreateKernel(prog, "fill")
    clSetKernelArg(k, 0, im)
    clEnqueueNDRangeKernel(queue, k, 2, None, [W, H], None)
    mapped, rp, sp, _ = clEnqueueMapImage(queue, im, True, CL_MAP_READ | CL_MAP_WRITE,
                                          (0, 0, 0), (W, H, 1))
    after_map = host.copy()
    view = mapped.view(np.uint8)
    # the view is host_ptr itself: writing it and unmapping changes the image
    view[PITCH + 4] = 99
    clEnqueueUnmapMemObject(queue, im, mapped)
    out = np.zeros(W * H, np.uint32)
    ob = clCreateBuffer(context, CL_MEM_WRITE_ONLY, out.nbytes)
    k2 = clCreateKernel(prog, "copy_out")
    clSetKernelArg(k2, 0, im)
    clSetKernelArg(k2, 1, ob)
    clSetKernelArg(k2, 2, np.int32(W))
    clEnqueueNDRangeKernel(queue, k2, 2, None, [W, H], None)
    clEnqueueReadBuffer(queue, ob, True, 0, out.nbytes, out)
    shares = np.shares_memory(mapped, host)
    for m in (ob, im):
        clReleaseMemObject(m)
    return after_map, rp, shares, out


def _pocl():
    ctx = cl.Context(cl.get_platforms()[0].get_devices()[:1])
    q = cl.CommandQueue(ctx)
    prog = cl.Program(ctx, SOURCE).build()
    host = _host()
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    im = cl.create_image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, fmt, shape=(W, H),
                         pitches=(PITCH,), hostbuf=host)
    prog.fill(q, (W, H), None, im)
    mapped = cl.enqueue_map_image(q, im, cl.map_flags.READ | cl.map_flags.WRITE, (0, 0),
                                  (W, H), (H, W, 4), np.uint8, strides=(PITCH, 4, 1))[0]
    after_map = host.copy()
    rp = mapped.strides[0]
    mapped[1, 1, 0] = 99
    mapped.base.release(q)
    out = np.zeros(W * H, np.uint32)
    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prog.copy_out(q, (W, H), None, im, ob, np.int32(W))
    cl.enqueue_copy(q, out, ob)
    q.finish()
    return after_map, rp, out


def test_use_host_ptr_image_is_coherent_at_map_and_unmap(context, queue):
    after_map, rp, shares, out = _pyemu(context, queue)
    p_after_map, p_rp, p_out = _pocl()
    want = (np.arange(W)[None, :] + 10 * np.arange(H)[:, None])
    # the map brought the kernel's writes into host_ptr, padding untouched
    np.testing.assert_array_equal(_texels(after_map)[:, :, 0], want)
    np.testing.assert_array_equal(_texels(after_map)[:, :, 1], 7)
    assert (after_map.reshape(H, PITCH)[:, W * 4:] == 0xEE).all()
    np.testing.assert_array_equal(after_map, p_after_map)
    # the map's pitch is host_ptr's, the view is host_ptr
    assert rp == PITCH == p_rp
    assert shares
    # the write through the map reached the image at unmap
    want = want.reshape(-1).astype(np.uint32)
    want[W + 1] = 99
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(out, p_out)


def test_use_host_ptr_image_needs_writable_host_memory(context):
    ro = np.zeros(W * H * 4, np.uint8)
    ro.flags.writeable = False
    try:
        clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, cl_image_format(*RGBA8),
                      cl_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H), ro)
    except CLError as e:
        assert e.code == CL_INVALID_HOST_PTR
    else:
        raise AssertionError("a read-only host_ptr was taken for CL_MEM_USE_HOST_PTR")
    # CL_MEM_COPY_HOST_PTR only reads it
    im = clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, cl_image_format(*RGBA8),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE2D, W, H), ro)
    clReleaseMemObject(im)
