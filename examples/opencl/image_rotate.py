"""Rotating an image in OpenCL: an image2d_t and a sampler, compared with CUDA.

The OpenCL form of examples/cuda/texture_rotate.py (the transformKernel of
NVIDIA's simpleTexture sample): the same picture, angle and coordinates,
read through an OpenCL image with a sampler instead of a CUDA texture
object; then the CUDA version runs too and the two results must be the
same bits, since both facades sample through one sampler.  The CUDA kernel
samples at the coordinates the OpenCL kernel computed (the two compilers may
fuse u*cos - v*sin differently, a last-bit difference in the coordinates).

What changes from CUDA:
  * cudaMallocArray + cudaMemcpy2DToArray -> clCreateImage with a
    cl_image_format (CL_R, CL_FLOAT) and CL_MEM_COPY_HOST_PTR;
  * the texture object's cudaTextureDesc -> a sampler, here written in the
    kernel source: CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT |
    CLK_FILTER_LINEAR (clCreateSampler makes the same from the host);
  * tex2D<float>(tex, u, v) -> read_imagef(image, sampler, (float2)(u, v)).x;
  * blockIdx/threadIdx -> get_global_id(0/1).

Run:  python image_rotate.py [size]      (default 512; a multiple of 8)
"""
import sys

import numpy as np
import pyemu.cuda as cu
from pyemu.opencl import *

# ---------------------------------------------------------------- device code
programSource = r"""
const sampler_t smp = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

__kernel void transformKernel(__global float *outputData, int width, int height,
                              float theta, __read_only image2d_t image,
                              __global float2 *coords)
{
    unsigned int x = get_global_id(0);
    unsigned int y = get_global_id(1);
    float u = (float)x - (float)width / 2;
    float v = (float)y - (float)height / 2;
    float tu = u * cos(theta) - v * sin(theta);
    float tv = v * cos(theta) + u * sin(theta);
    tu /= (float)width;
    tv /= (float)height;
    float2 c = (float2)(tu + 0.5f, tv + 0.5f);
    outputData[y * width + x] = read_imagef(image, smp, c).x;
    coords[y * width + x] = c;      /* for the comparison with CUDA */
}
"""

CUDA_SOURCE = r"""
// the texture fetch of transformKernel, at the coordinates the OpenCL kernel used
__global__ void sampleAt(float *outputData, const float2 *coords, int n, cudaTextureObject_t tex)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) outputData[i] = tex2D<float>(tex, coords[i].x, coords[i].y);
}
"""


def make_image(n):
    """The picture of texture_rotate.py: rings and a diagonal ramp in [0, 1]."""
    y, x = np.mgrid[0:n, 0:n].astype(np.float32) / n
    r = np.hypot(x - 0.5, y - 0.5)
    return (0.5 + 0.35 * np.cos(40 * r) * (r < 0.45) + 0.15 * (x - y)).astype(np.float32)


def rotate_opencl(img, angle):
    height, width = img.shape
    platform = clGetPlatformIDs()[0]
    device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
    assert clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT)
    context = clCreateContext(None, [device])
    commandQueue = clCreateCommandQueue(context, device, 0)
    program = clCreateProgramWithSource(context, [programSource])
    clBuildProgram(program)
    kernel = clCreateKernel(program, "transformKernel")

    image = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          cl_image_format(CL_R, CL_FLOAT),
                          cl_image_desc(CL_MEM_OBJECT_IMAGE2D, width, height), img)
    output = clCreateBuffer(context, CL_MEM_WRITE_ONLY, img.nbytes)
    coordBuf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, img.nbytes * 2)
    clSetKernelArg(kernel, 0, output)
    clSetKernelArg(kernel, 1, np.int32(width))
    clSetKernelArg(kernel, 2, np.int32(height))
    clSetKernelArg(kernel, 3, np.float32(angle))
    clSetKernelArg(kernel, 4, image)
    clSetKernelArg(kernel, 5, coordBuf)
    clEnqueueNDRangeKernel(commandQueue, kernel, 2, None, [width, height], [8, 8])
    result = np.empty_like(img)
    coords = np.empty((height * width, 2), np.float32)
    clEnqueueReadBuffer(commandQueue, output, CL_TRUE, 0, img.nbytes, result)
    clEnqueueReadBuffer(commandQueue, coordBuf, CL_TRUE, 0, coords.nbytes, coords)
    for m in (image, output, coordBuf):
        clReleaseMemObject(m)
    return result, coords


def sample_cuda(img, coords):
    height, width = img.shape
    mod = cu.SourceModule(CUDA_SOURCE)
    arr = cu.cudaMallocArray(cu.cudaCreateChannelDesc(np.float32), width, height)
    cu.cudaMemcpy2DToArray(arr, 0, 0, img, width * 4, width * 4, height, cu.cudaMemcpyHostToDevice)
    res = cu.cudaResourceDesc()
    res.resType = cu.cudaResourceTypeArray
    res.res.array.array = arr
    desc = cu.cudaTextureDesc()
    desc.normalizedCoords = True
    desc.filterMode = cu.cudaFilterModeLinear
    desc.addressMode = [cu.cudaAddressModeWrap] * 3
    tex = cu.cudaCreateTextureObject(res, desc, None)
    n = width * height
    d = cu.cudaMalloc(img.nbytes)
    dc = cu.cudaMalloc(coords.nbytes)
    cu.cudaMemcpy(dc, coords, coords.nbytes, cu.cudaMemcpyHostToDevice)
    mod.sampleAt[(n + 255) // 256, 256](d, dc, n, tex)
    out = np.empty_like(img)
    cu.cudaMemcpy(out, d, img.nbytes, cu.cudaMemcpyDeviceToHost)
    cu.cudaDestroyTextureObject(tex)
    cu.cudaFreeArray(arr)
    cu.cudaFree(d)
    cu.cudaFree(dc)
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    angle = 0.5
    img = make_image(n)
    cl_out, coords = rotate_opencl(img, angle)
    cuda_out = sample_cuda(img, coords)
    same = np.array_equal(cl_out.view(np.uint32), cuda_out.view(np.uint32))
    print(f"OpenCL image and CUDA texture results are {'identical' if same else 'DIFFERENT'} "
          f"({n} x {n} pixels)")
    print("Test PASSED" if same else "Test FAILED")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
