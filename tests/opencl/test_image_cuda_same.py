"""One sampler underneath: the same image sampled through a CUDA texture
object and through an OpenCL image and sampler gives the same bits (2-D,
every address mode, point and linear, normalized coordinates or not;
float data and 8-bit normalized data)."""
import numpy as np
import pytest

import pyemu.cuda as cu
import pyemu.opencl as ocl

CUDA_SRC = r"""
__global__ void s(cudaTextureObject_t t, const float *c, float4 *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = tex2D<float4>(t, c[2 * i], c[2 * i + 1]);
}"""
CL_SRC = r"""
__kernel void s(__read_only image2d_t im, sampler_t smp, __global const float2 *c,
                __global float4 *o) {
    int i = get_global_id(0);
    o[i] = read_imagef(im, smp, c[i]);
}"""
# CUDA address mode -> OpenCL's (border: CLK_ADDRESS_CLAMP, transparent black for RGBA)
MODES = {cu.cudaAddressModeWrap: ocl.CL_ADDRESS_REPEAT, cu.cudaAddressModeClamp:
         ocl.CL_ADDRESS_CLAMP_TO_EDGE, cu.cudaAddressModeMirror: ocl.CL_ADDRESS_MIRRORED_REPEAT,
         cu.cudaAddressModeBorder: ocl.CL_ADDRESS_CLAMP}


@pytest.fixture(scope="module")
def kernels(context):
    prog = ocl.clCreateProgramWithSource(context, [CL_SRC])
    ocl.clBuildProgram(prog)
    return cu.SourceModule(CUDA_SRC), ocl.clCreateKernel(prog, "s")


def cuda_sample(mod, data, dt, mode, filt, norm, coords):
    h, w = data.shape[:2]
    arr = cu.cudaMallocArray(cu.cudaCreateChannelDesc(dt, 4), w, h)
    cu.cudaMemcpy2DToArray(arr, 0, 0, data, w * data.itemsize * 4, w * data.itemsize * 4, h,
                           cu.cudaMemcpyHostToDevice)
    r = cu.cudaResourceDesc()
    r.resType = cu.cudaResourceTypeArray
    r.res.array.array = arr
    td = cu.cudaTextureDesc()
    td.addressMode = [mode] * 3
    td.filterMode = filt
    td.normalizedCoords = norm
    td.readMode = cu.cudaReadModeElementType if dt == np.float32 else cu.cudaReadModeNormalizedFloat
    t = cu.cudaCreateTextureObject(r, td, None)
    n = len(coords)
    dc = cu.cudaMalloc(coords.nbytes)
    cu.cudaMemcpy(dc, coords, coords.nbytes, cu.cudaMemcpyHostToDevice)
    out = np.zeros((n, 4), np.float32)
    do = cu.cudaMalloc(out.nbytes)
    mod.s[(n + 63) // 64, 64](t, dc, do, n)
    cu.cudaMemcpy(out, do, out.nbytes, cu.cudaMemcpyDeviceToHost)
    cu.cudaDestroyTextureObject(t)
    cu.cudaFreeArray(arr)
    cu.cudaFree(dc)
    cu.cudaFree(do)
    return out


def cl_sample(context, queue, k, data, dt, mode, filt, norm, coords):
    h, w = data.shape[:2]
    fmt = ocl.cl_image_format(ocl.CL_RGBA, ocl.CL_FLOAT if dt == np.float32 else ocl.CL_UNORM_INT8)
    im = ocl.clCreateImage(context, ocl.CL_MEM_READ_ONLY | ocl.CL_MEM_COPY_HOST_PTR, fmt,
                           ocl.cl_image_desc(ocl.CL_MEM_OBJECT_IMAGE2D, w, h), data)
    smp = ocl.clCreateSampler(context, bool(norm), MODES[mode],
                              ocl.CL_FILTER_LINEAR if filt else ocl.CL_FILTER_NEAREST)
    cb = ocl.clCreateBuffer(context, ocl.CL_MEM_READ_ONLY | ocl.CL_MEM_COPY_HOST_PTR,
                            coords.nbytes, coords)
    out = np.zeros((len(coords), 4), np.float32)
    ob = ocl.clCreateBuffer(context, ocl.CL_MEM_WRITE_ONLY, out.nbytes)
    for i, a in enumerate([im, smp, cb, ob]):
        ocl.clSetKernelArg(k, i, a)
    ocl.clEnqueueNDRangeKernel(queue, k, 1, None, [len(coords)], None)
    ocl.clEnqueueReadBuffer(queue, ob, ocl.CL_TRUE, 0, out.nbytes, out)
    for m in (im, cb, ob):
        ocl.clReleaseMemObject(m)
    ocl.clReleaseSampler(smp)
    return out


# OpenCL has no repeat or mirror with unnormalized coordinates: those pairs are left out
_MODE_NORM = [(mode, norm) for mode in MODES for norm in (0, 1)
              if norm or mode not in (cu.cudaAddressModeWrap, cu.cudaAddressModeMirror)]


@pytest.mark.parametrize("dt", [np.float32, np.uint8])
@pytest.mark.parametrize("mode,norm", _MODE_NORM)
@pytest.mark.parametrize("filt", [0, 1])
def test_cuda_texture_and_opencl_image_agree(kernels, context, queue, dt, mode, filt, norm):
    rng = np.random.default_rng(3)
    w, h = 7, 5
    data = (rng.uniform(-4, 4, (h, w, 4)).astype(np.float32) if dt == np.float32
            else rng.integers(0, 256, (h, w, 4)).astype(np.uint8))
    coords = (rng.uniform(-1.2, 2.2, (96, 2)) if norm else rng.uniform(-2, 9, (96, 2)))
    coords = coords.astype(np.float32)
    mod, k = kernels
    a = cuda_sample(mod, data, dt, mode, filt, norm, coords)
    b = cl_sample(context, queue, k, data, dt, mode, filt, norm, coords)
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
