"""Misaligned and strided global memory accesses.

Ports the offset and stride kernels and the host code (runTest) of M. Harris,
"How to Access Global Memory Efficiently in CUDA C/C++ Kernels" (NVIDIA
Developer Blog, 2013).  Each thread reads one element, adds 1 and writes it
back: a copy of the array onto itself.  The blog times them with CUDA events
to show how bandwidth falls with misaligned (offset) and strided accesses;
on pyemu the timings are CPU timings, so this port checks the results
instead: after each launch, exactly the elements the kernel should touch are
1 and the rest are still 0.

What it shows:
  * offset s: thread i touches a[i + s], so a warp's 32 accesses start s
    elements past an aligned segment (coalesced, but straddling segments);
  * stride s: thread i touches a[i * s], so a warp's accesses spread over
    s times as much memory (no longer coalesced for s > 1);
  * template kernels: the blog runs them for float (or double with fp64);
    nvcc instantiates them where runTest<T> launches them, here the host is
    Python, so SourceModule's name_expressions name the instantiations.

Run:  python offset_stride_copy.py [nMB] [fp64]   (default nMB = 4, float)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
template <typename T>
__global__ void offset(T* a, int s)
{
  int i = blockDim.x * blockIdx.x + threadIdx.x + s;
  a[i] = a[i] + 1;
}

template <typename T>
__global__ void stride(T* a, int s)
{
  int i = (blockDim.x * blockIdx.x + threadIdx.x) * s;
  a[i] = a[i] + 1;
}
""", name_expressions=["offset<float>", "stride<float>",     # runTest<float>
                      "offset<double>", "stride<double>"])  # runTest<double>


# ------------------------------------------------------------------ host code
def runTest(T, nMB):
    blockSize = 256
    c_type = {np.float32: "float", np.float64: "double"}[T]
    offset = mod.get_function(f"offset<{c_type}>")
    stride = mod.get_function(f"stride<{c_type}>")
    sizeof_T = np.dtype(T).itemsize

    n = nMB * 1024 * 1024 // sizeof_T

    # NB:  d_a(33*nMB) for stride case
    d_a = cudaMalloc(n * 33 * sizeof_T)

    def check(s, first, end, step):
        """Elements first, first+step, ... below end must be 1, the rest 0."""
        h_a = np.empty(min(end + 64, n * 33), dtype=T)   # what was touched, and a margin
        cudaMemcpy(h_a, d_a, h_a.nbytes, cudaMemcpyDeviceToHost)
        expected = np.zeros_like(h_a)
        expected[first:end:step] = 1
        good = np.array_equal(h_a, expected)
        print(f"{s}, {'ok' if good else 'MISMATCH'}")
        return good

    ok = True
    print("Offset, result:")
    offset[n // blockSize, blockSize](d_a, 0)      # warm up
    for i in range(0, 33):
        cudaMemset(d_a, 0, n * 33 * sizeof_T)
        offset[n // blockSize, blockSize](d_a, i)
        ok &= check(i, i, i + n, 1)

    print()
    print("Stride, result:")
    stride[n // blockSize, blockSize](d_a, 1)      # warm up
    for i in range(1, 33):
        cudaMemset(d_a, 0, n * 33 * sizeof_T)
        stride[n // blockSize, blockSize](d_a, i)
        ok &= check(i, 0, n * i, i)

    cudaFree(d_a)
    return ok


def main(nMB=4, precision="fp32"):
    if precision == "fp64":
        print("Type of device memory access: double")
        ok = runTest(np.float64, nMB)
    else:
        print("Type of device memory access: float")
        ok = runTest(np.float32, nMB)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    precision = "fp64" if "fp64" in args else "fp32"
    sizes = [int(a) for a in args if a != "fp64"]
    sys.exit(main(*sizes[:1], precision=precision))
