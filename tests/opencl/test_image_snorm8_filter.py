"""read_imagef of a CL_SNORM_INT8 image through a CLK_FILTER_LINEAR sampler:
the same sampler as CUDA's textures (detail/sampler.h), so every 1-D lerp of
the H200's signed 8-bit table (tests/data/ground_truth/texture_snorm8_h200.bin,
texture_probe_snorm8.cu) comes out bit for bit through an OpenCL 1-D image
and a sampler declared in the kernel (unnormalized, clamp to edge), and
through a sampler made with clCreateSampler."""
from pathlib import Path

import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F401,F403

RAW = (Path(__file__).resolve().parents[1] / "data" / "ground_truth" /
       "texture_snorm8_h200.bin").read_bytes()
TEXELS = np.frombuffer(RAW[:512], np.int8).reshape(2, 256)
SAMPLES = np.frombuffer(RAW[512:], "<f4").reshape(2, 255 * 256)
N = 255 * 256

SOURCE = r"""
const sampler_t lin = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
__kernel void in_source(__read_only image1d_t im, __global float *o) {
    int i = get_global_id(0), c = i >> 8, a = i & 255;
    o[i] = read_imagef(im, lin, c + 0.5f + a / 256.0f).x;
}
__kernel void from_host(__read_only image1d_t im, sampler_t s, __global float *o) {
    int i = get_global_id(0), c = i >> 8, a = i & 255;
    o[i] = read_imagef(im, s, c + 0.5f + a / 256.0f).x;
}"""


@pytest.mark.parametrize("kernel", ["in_source", "from_host"])
@pytest.mark.parametrize("which", [0, 1], ids=["ascending", "lcg"])
def test_snorm_int8_linear_matches_the_h200(context, queue, kernel, which):
    p = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(p)
    k = clCreateKernel(p, kernel)
    im = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                       cl_image_format(CL_R, CL_SNORM_INT8),
                       cl_image_desc(CL_MEM_OBJECT_IMAGE1D, 256), TEXELS[which].copy())
    out = np.zeros(N, np.float32)
    ob = clCreateBuffer(context, CL_MEM_WRITE_ONLY, out.nbytes)
    args = [im, ob]
    smp = None
    if kernel == "from_host":
        smp = clCreateSampler(context, False, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR)
        args = [im, smp, ob]
    for i, a in enumerate(args):
        clSetKernelArg(k, i, a)
    clEnqueueNDRangeKernel(queue, k, 1, None, [N], [256])
    clEnqueueReadBuffer(queue, ob, CL_TRUE, 0, out.nbytes, out)
    clReleaseMemObject(im)
    clReleaseMemObject(ob)
    if smp is not None:
        clReleaseSampler(smp)
    want = SAMPLES[which]
    off = np.flatnonzero(out.view(np.uint32) != want.view(np.uint32))
    assert len(off) == 0, (len(off), [(int(i) >> 8, int(i) & 255, float(out[i]) * 32767,
                                       float(want[i]) * 32767) for i in off[:6]])
