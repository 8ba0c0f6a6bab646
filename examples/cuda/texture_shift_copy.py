"""Misaligned reads through a texture: shiftCopy and textureShiftCopy.

Ports the two kernels of the "Textured fetch" example of NVIDIA's CUDA C
Best Practices Guide (section on texture memory): a copy whose reads are
shifted by `shift` elements, once from global memory and once through
tex1Dfetch on a texture bound to the same linear memory: first as the
guide has it, a texture reference (texture<float, 1> texRef and
cudaBindTexture; removed in CUDA 12), then with the texture object that
replaced it (cudaCreateTextureObject on a cudaResourceTypeLinear resource).

What it shows:
  * a texture over linear memory read with tex1Dfetch: element i, no
    filtering; the reference is bound with cudaBindTexture (its offset output
    returned), the object made from cudaResourceDesc.res.linear (devPtr, desc,
    sizeInBytes);
  * the texture path tolerates misaligned, shifted reads (on a GPU they go
    through the texture cache);
  * a fetch past the end of the texture returns 0 instead of reading past the
    buffer: with the buffer exactly N floats, the last `shift` outputs of
    textureShiftCopy are 0, while shiftCopy needs N + shift floats allocated.

Run:  python texture_shift_copy.py [n]      (default 1 << 20; a multiple of 256)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
texture<float, 1, cudaReadModeElementType> texRef;

__global__ void shiftCopy(float *odata, float *idata, int shift)
{
    int xid = blockIdx.x * blockDim.x + threadIdx.x;
    odata[xid] = idata[xid + shift];
}

__global__ void textureShiftCopy(float *odata, float *idata, int shift)
{
    int xid = blockIdx.x * blockDim.x + threadIdx.x;
    odata[xid] = tex1Dfetch(texRef, xid + shift);
}

__global__ void textureObjectShiftCopy(float *odata, cudaTextureObject_t texObj, int shift)
{
    int xid = blockIdx.x * blockDim.x + threadIdx.x;
    odata[xid] = tex1Dfetch<float>(texObj, xid + shift);
}
""")
shiftCopy = mod.get_function("shiftCopy")
textureShiftCopy = mod.get_function("textureShiftCopy")
textureObjectShiftCopy = mod.get_function("textureObjectShiftCopy")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    block = 256
    ok = True
    h_idata = np.random.default_rng(0).random(n + 32, dtype=np.float32)

    # global memory: n + 32 floats, so that every shifted read stays inside
    d_idata = cudaMalloc((n + 32) * 4)
    d_odata = cudaMalloc(n * 4)
    cudaMemcpy(d_idata, h_idata, (n + 32) * 4, cudaMemcpyHostToDevice)

    # the texture reference, bound to the first n floats of the same memory
    texRef = mod.get_texref("texRef")
    offset = cudaBindTexture(texRef, d_idata, cudaCreateChannelDesc(np.float32), n * 4)
    assert offset == 0

    # the texture object over the same n floats
    resDesc = cudaResourceDesc()
    resDesc.resType = cudaResourceTypeLinear
    resDesc.res.linear.devPtr = d_idata
    resDesc.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat)
    resDesc.res.linear.sizeInBytes = n * 4
    texDesc = cudaTextureDesc()
    texDesc.readMode = cudaReadModeElementType
    texObj = cudaCreateTextureObject(resDesc, texDesc, None)

    h_odata = np.empty(n, np.float32)
    for shift in (0, 1, 7, 16, 31):
        shiftCopy[n // block, block](d_odata, d_idata, shift)
        cudaMemcpy(h_odata, d_odata, n * 4, cudaMemcpyDeviceToHost)
        good = bool(np.array_equal(h_odata, h_idata[shift:shift + n]))

        want = np.concatenate([h_idata[shift:n], np.zeros(shift, np.float32)])
        textureShiftCopy[n // block, block](d_odata, d_idata, shift)
        cudaMemcpy(h_odata, d_odata, n * 4, cudaMemcpyDeviceToHost)
        good &= bool(np.array_equal(h_odata, want))
        textureObjectShiftCopy[n // block, block](d_odata, texObj, shift)
        cudaMemcpy(h_odata, d_odata, n * 4, cudaMemcpyDeviceToHost)
        good &= bool(np.array_equal(h_odata, want))
        ok &= good
        print(f"shift {shift:2d}: " + ("shiftCopy and both textureShiftCopy correct; the "
              f"textures' last {shift} outputs are 0 (fetched past its end)" if good else "MISMATCH"))

    cudaUnbindTexture(texRef)
    cudaDestroyTextureObject(texObj)
    cudaFree(d_idata)
    cudaFree(d_odata)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
