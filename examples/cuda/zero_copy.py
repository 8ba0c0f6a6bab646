"""Zero copy: a kernel reads and writes mapped page-locked host memory.

After the CUDA C Programming Guide, "Mapped Memory", and cuda-samples'
`simpleZeroCopy`: the arrays are allocated with
cudaHostAlloc(..., cudaHostAllocMapped), their device pointers come from
cudaHostGetDevicePointer, and a vector add runs on them with no cudaMemcpy:

    cudaSetDeviceFlags(cudaDeviceMapHost);
    cudaHostAlloc((void **)&a, bytes, cudaHostAllocMapped);
    cudaHostGetDevicePointer((void **)&d_a, (void *)a, 0);
    vectorAddGPU<<<grid, block>>>(d_a, d_b, d_c, nelem);
    cudaDeviceSynchronize();

What it shows:
  * mapped host memory has a device pointer (here, as with unified
    addressing, the same address);
  * the kernel's writes land in the host array: after cudaDeviceSynchronize
    the host reads them without a copy;
  * cudaPointerGetAttributes tells page-locked host memory from device memory.

Run:  python zero_copy.py [n]          (default n = 1,048,576 floats)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void vectorAddGPU(float *a, float *b, float *c, int N)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) c[idx] = a[idx] + b[idx];
}
""")
vectorAddGPU = mod.get_function("vectorAddGPU")


# ------------------------------------------------------------------ host code
def main(nelem=1 << 20):
    cudaSetDeviceFlags(cudaDeviceMapHost)
    if not cudaGetDeviceProperties(0).canMapHostMemory:
        print("Device cannot map host memory")
        return 1
    nbytes = nelem * 4
    a = cudaHostAlloc(nbytes, cudaHostAllocMapped, dtype=np.float32)
    b = cudaHostAlloc(nbytes, cudaHostAllocMapped, dtype=np.float32)
    c = cudaHostAlloc(nbytes, cudaHostAllocMapped, dtype=np.float32)
    a[:] = np.random.rand(nelem)
    b[:] = np.random.rand(nelem)

    d_a = cudaHostGetDevicePointer(a, 0)
    d_b = cudaHostGetDevicePointer(b, 0)
    d_c = cudaHostGetDevicePointer(c, 0)
    attr = cudaPointerGetAttributes(a)
    print(f"a: memory type {attr.type} (cudaMemoryTypeHost = {cudaMemoryTypeHost}), "
          f"device pointer 0x{d_a:x}")

    block = 256
    grid = (nelem + block - 1) // block
    vectorAddGPU[grid, block](d_a, d_b, d_c, nelem)
    cudaDeviceSynchronize()

    ok = bool(np.array_equal(c, a + b)) and attr.type == cudaMemoryTypeHost
    cudaFreeHost(a)
    cudaFreeHost(b)
    cudaFreeHost(c)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
