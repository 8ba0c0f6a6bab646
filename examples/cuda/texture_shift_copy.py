"""Misaligned reads through a texture: shiftCopy and textureShiftCopy.

Ports the two kernels of the "Textured fetch" example of NVIDIA's CUDA C
Best Practices Guide (section on texture memory): a copy whose reads are
shifted by `shift` elements, once from global memory and once through
tex1Dfetch on a texture bound to the same linear memory.  The guide's
version binds a texture reference (texture<float, 1> texRef and
cudaBindTexture); this port uses the texture object that replaced it
(cudaCreateTextureObject on a cudaResourceTypeLinear resource).

What it shows:
  * a texture over linear memory (cudaResourceDesc.res.linear: devPtr, desc,
    sizeInBytes) read with tex1Dfetch(tex, i): element i, no filtering;
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
__global__ void shiftCopy(float *odata, float *idata, int shift)
{
    int xid = blockIdx.x * blockDim.x + threadIdx.x;
    odata[xid] = idata[xid + shift];
}

__global__ void textureShiftCopy(float *odata, cudaTextureObject_t texObj, int shift)
{
    int xid = blockIdx.x * blockDim.x + threadIdx.x;
    odata[xid] = tex1Dfetch<float>(texObj, xid + shift);
}
""")
shiftCopy = mod.get_function("shiftCopy")
textureShiftCopy = mod.get_function("textureShiftCopy")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    block = 256
    ok = True
    h_idata = np.random.default_rng(0).random(n + 32, dtype=np.float32)

    # global memory: n + 32 floats, so that every shifted read stays inside
    d_idata = cudaMalloc((n + 32) * 4)
    d_odata = cudaMalloc(n * 4)
    cudaMemcpy(d_idata, h_idata, (n + 32) * 4, cudaMemcpyHostToDevice)

    # the texture: the first n floats of the same memory
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

        textureShiftCopy[n // block, block](d_odata, texObj, shift)
        cudaMemcpy(h_odata, d_odata, n * 4, cudaMemcpyDeviceToHost)
        want = np.concatenate([h_idata[shift:n], np.zeros(shift, np.float32)])
        good &= bool(np.array_equal(h_odata, want))
        ok &= good
        print(f"shift {shift:2d}: " + ("shiftCopy and textureShiftCopy correct; the texture's "
              f"last {shift} outputs are 0 (fetched past its end)" if good else "MISMATCH"))

    cudaDestroyTextureObject(texObj)
    cudaFree(d_idata)
    cudaFree(d_odata)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
