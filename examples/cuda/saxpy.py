"""SAXPY: serial C code and the parallel CUDA kernel side by side.

Ports Figure 1 of J. Nickolls, I. Buck, M. Garland, K. Skadron, "Scalable
Parallel Programming with CUDA", ACM Queue 6(2), 2008: y = a*x + y computed
by a serial loop (saxpy_serial) and by a CUDA kernel with one thread per
element (saxpy_parallel, launched with 256 threads per block).

What it shows:
  * the body of the serial loop becomes the body of the kernel; the loop
    index becomes the thread's global index;
  * the kernel guards `i < n` because the grid is rounded up to whole blocks;
  * scalar kernel arguments (n, a) are passed by value, converted to the
    kernel's declared types (int, float).

Run:  python saxpy.py [n]             (default n = 2^20 floats)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__
void saxpy_parallel(int n, float a, float *x, float *y)
{
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if( i<n )  y[i] = a*x[i] + y[i];
}
""")
saxpy_parallel = mod.get_function("saxpy_parallel")


# ------------------------------------------------------------------ host code
def saxpy_serial(n, a, x, y):
    """The figure's serial C code:  for (int i = 0; i < n; ++i) y[i] = a*x[i] + y[i];
    written with NumPy, in float32 like the C floats."""
    y[:n] = np.float32(a) * x[:n] + y[:n]


def main(n=1 << 20):
    size = n * np.dtype(np.float32).itemsize
    x = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)

    # Device copies of x and y
    d_x = cudaMalloc(size)
    d_y = cudaMalloc(size)
    cudaMemcpy(d_x, x, size, cudaMemcpyHostToDevice)
    cudaMemcpy(d_y, y, size, cudaMemcpyHostToDevice)

    # Invoke serial SAXPY kernel (the reference)
    y_serial = y.copy()
    saxpy_serial(n, 2.0, x, y_serial)

    # Invoke parallel SAXPY kernel with 256 threads/block
    nblocks = (n + 255) // 256
    saxpy_parallel[nblocks, 256](n, 2.0, d_x, d_y)

    cudaMemcpy(y, d_y, size, cudaMemcpyDeviceToHost)

    # The kernel may contract a*x + y into one fused multiply-add, as nvcc does,
    # so compare with a float32 rounding tolerance.
    ok = np.allclose(y, y_serial, rtol=1e-6, atol=1e-6)
    if not ok:
        bad = np.flatnonzero(~np.isclose(y, y_serial, rtol=1e-6, atol=1e-6))[0]
        print(f"Result verification failed at element {bad}: {y[bad]} != {y_serial[bad]}")

    cudaFree(d_x)
    cudaFree(d_y)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
