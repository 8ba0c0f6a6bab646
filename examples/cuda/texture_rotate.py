"""Rotating an image through a 2-D texture with linear filtering and wrap.

Ports the transformKernel of NVIDIA's simpleTexture sample (cuda-samples,
0_Introduction/simpleTexture), with its host steps: a CUDA array of floats,
cudaMemcpy2DToArray, a texture object (normalized coordinates, wrap
addressing, linear filtering), one thread per output pixel, and the result
compared with a reference computed on the host.  Input and output are saved
as PNG files.

What it shows:
  * cudaMallocArray + cudaMemcpy2DToArray: an image in a CUDA array;
  * cudaCreateTextureObject with cudaResourceDesc / cudaTextureDesc: the
    sampling state travels with the texture object, a kernel argument;
  * tex2D<float>(tex, u, v) with normalized coordinates: u, v in [0, 1)
    cover the image, and with cudaAddressModeWrap the rotated corners wrap
    round instead of reading outside it;
  * cudaFilterModeLinear: the texture unit blends the four nearest texels
    with weights of 1/256 steps (so the host reference agrees to about 1e-2,
    not to the last bit).

Run:  python texture_rotate.py [size] [output_dir]      (default 512, the temp dir)
"""
import math
import os
import struct
import sys
import tempfile
import zlib

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void transformKernel(float *outputData, int width, int height,
                                float theta, cudaTextureObject_t tex)
{
    // normalized texture coordinates of this pixel
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    float u = (float)x - (float)width / 2;
    float v = (float)y - (float)height / 2;
    float tu = u * cosf(theta) - v * sinf(theta);
    float tv = v * cosf(theta) + u * sinf(theta);
    tu /= (float)width;
    tv /= (float)height;
    // read from the texture and write to global memory
    outputData[y * width + x] = tex2D<float>(tex, tu + 0.5f, tv + 0.5f);
}
""")
transformKernel = mod.get_function("transformKernel")


def make_image(n):
    """A test picture: rings and a diagonal ramp, values in [0, 1]."""
    y, x = np.mgrid[0:n, 0:n].astype(np.float32) / n
    r = np.hypot(x - 0.5, y - 0.5)
    return (0.5 + 0.35 * np.cos(40 * r) * (r < 0.45) + 0.15 * (x - y)).astype(np.float32)


def reference(img, theta):
    """What the kernel computes, in float64 with exact bilinear weights (wrap)."""
    h, w = img.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = x - w / 2, y - h / 2
    tu = (u * math.cos(theta) - v * math.sin(theta)) / w + 0.5
    tv = (v * math.cos(theta) + u * math.sin(theta)) / h + 0.5
    fx, fy = tu * w - 0.5, tv * h - 0.5
    i, j = np.floor(fx).astype(int), np.floor(fy).astype(int)
    a, b = fx - i, fy - j
    t = lambda jj, ii: img[jj % h, ii % w]
    return ((1 - a) * (1 - b) * t(j, i) + a * (1 - b) * t(j, i + 1) +
            (1 - a) * b * t(j + 1, i) + a * b * t(j + 1, i + 1))


def save_png(path, img):
    """An 8-bit grayscale PNG of img (values in [0, 1])."""
    g = (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)
    raw = b"".join(b"\x00" + row.tobytes() for row in g)
    chunk = lambda tag, data: (struct.pack(">I", len(data)) + tag + data +
                               struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", g.shape[1],
                g.shape[0], 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    outdir = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
    width = height = n
    angle = 0.5                                   # radians
    hData = make_image(n)
    size = width * height * 4

    # the image in a CUDA array
    channelDesc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat)
    cuArray = cudaMallocArray(channelDesc, width, height)
    cudaMemcpy2DToArray(cuArray, 0, 0, hData, width * 4, width * 4, height, cudaMemcpyHostToDevice)

    # the texture object: wrap, linear filtering, normalized coordinates
    texRes = cudaResourceDesc()
    texRes.resType = cudaResourceTypeArray
    texRes.res.array.array = cuArray
    texDescr = cudaTextureDesc()
    texDescr.normalizedCoords = True
    texDescr.filterMode = cudaFilterModeLinear
    texDescr.addressMode = [cudaAddressModeWrap, cudaAddressModeWrap, cudaAddressModeWrap]
    texDescr.readMode = cudaReadModeElementType
    tex = cudaCreateTextureObject(texRes, texDescr, None)

    dData = cudaMalloc(size)
    dimBlock = dim3(8, 8, 1)
    dimGrid = dim3(width // dimBlock.x, height // dimBlock.y, 1)
    transformKernel[dimGrid, dimBlock, 0](dData, width, height, angle, tex)
    cudaDeviceSynchronize()

    hOutputData = np.empty((height, width), np.float32)
    cudaMemcpy(hOutputData, dData, size, cudaMemcpyDeviceToHost)

    ref = reference(hData, angle)
    err = float(np.max(np.abs(hOutputData - ref)))
    save_png(os.path.join(outdir, "texture_rotate_input.png"), hData)
    save_png(os.path.join(outdir, "texture_rotate_output.png"), hOutputData)
    print(f"Wrote texture_rotate_input.png and texture_rotate_output.png to {outdir}")
    print(f"max difference from the exact bilinear reference: {err:.2e}")

    cudaDestroyTextureObject(tex)
    cudaFree(dData)
    cudaFreeArray(cuArray)
    # the weights are 1/256 steps: half a step over the image's range at most
    ok = err < 4.0 / 256
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
