"""read_imagef of an unnormalized integer image through a linear sampler:
undefined in OpenCL, yet real programs do it (PyOpenCL's rotation example
reads an UNSIGNED_INT8 image so).  pyemu filters the integer values
themselves, as its nearest reads return them (it used to normalize them in
linear reads only, a factor of 255 between the two).  PoCL is no reference
here: it returns the integers' bit patterns as floats (33 reads as 4.6e-44),
which its write_imagef turns back, so the rotation example agrees with it
within 2 levels of 255 (/tmp port, see the report)."""
import numpy as np

from pyemu.opencl import *  # noqa: F401,F403

SOURCE = r"""
__kernel void rd(__read_only image2d_t im, sampler_t s, __global const float2 *c,
                 __global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}"""


def _bilinear(data, x, y):
    h, w = data.shape[:2]
    fx, fy = np.floor(x - 0.5), np.floor(y - 0.5)
    a, b = x - 0.5 - fx, y - 0.5 - fy
    out = 0.0
    for i, wi in ((int(fx), 1 - a), (int(fx) + 1, a)):
        for j, wj in ((int(fy), 1 - b), (int(fy) + 1, b)):
            out = out + wi * wj * data[np.clip(j, 0, h - 1), np.clip(i, 0, w - 1)].astype(float)
    return out


def test_linear_read_imagef_of_uint8_filters_the_values(context, queue):
    w, h = 7, 5
    data = np.random.default_rng(9).integers(0, 256, (h, w, 4), dtype=np.uint8)
    coords = np.array([[x, y] for x in (0.5, 1.3, 2.75, 6.1) for y in (0.5, 1.6, 4.2)],
                      np.float32)
    p = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(p)
    im = clCreateImage(context, CL_MEM_COPY_HOST_PTR, cl_image_format(CL_RGBA, CL_UNSIGNED_INT8),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE2D, w, h), data)
    mc = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, coords.nbytes, coords)
    mo = clCreateBuffer(context, 0, coords.shape[0] * 16)
    k = clCreateKernel(p, "rd")
    got = {}
    for filt in (CL_FILTER_LINEAR, CL_FILTER_NEAREST):
        for i, a in enumerate([im, clCreateSampler(context, False, CL_ADDRESS_CLAMP_TO_EDGE, filt),
                               mc, mo]):
            clSetKernelArg(k, i, a)
        clEnqueueNDRangeKernel(queue, k, 1, None, [len(coords)], None)
        got[filt] = np.empty((len(coords), 4), np.float32)
        clEnqueueReadBuffer(queue, mo, CL_TRUE, 0, got[filt].nbytes, got[filt])
    want = np.array([_bilinear(data, x, y) for x, y in coords])
    np.testing.assert_allclose(got[CL_FILTER_LINEAR], want, atol=255.0 / 256 + 1e-3)
    near = np.array([data[min(int(y), h - 1), min(int(x), w - 1)] for x, y in coords])
    np.testing.assert_array_equal(got[CL_FILTER_NEAREST], near)
    for m in (im, mc, mo):
        clReleaseMemObject(m)
