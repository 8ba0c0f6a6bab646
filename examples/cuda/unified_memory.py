"""Vector addition with Unified Memory.

Ports the Unified Memory slide (NVIDIA, "Unified Memory in CUDA 6" and the
CUDA 6 course slides): the same vector add as vector_add.py, but with one
allocation per array that both the host and the device use, so the explicit
cudaMemcpy calls disappear.

What it shows:
  * cudaMallocManaged gives one pointer valid on host and device; in pyemu it
    is both a device pointer and a NumPy array, so the host writes a[i] directly;
  * launches are asynchronous: the host must cudaDeviceSynchronize() before it
    reads what the kernel wrote.

Run:  python unified_memory.py [N]    (default N = 2^16 ints)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void add(int *a, int *b, int *c, int n) {
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    if (index < n)
        c[index] = a[index] + b[index];
}
""")
add = mod.get_function("add")

# ------------------------------------------------------------------ host code
THREADS_PER_BLOCK = 1024


def main(N=1 << 16):
    size = N * np.dtype(np.int32).itemsize      # int size = N * sizeof(int);

    # One allocation each, visible to host and device
    a = cudaMallocManaged(size, dtype=np.int32)
    b = cudaMallocManaged(size, dtype=np.int32)
    c = cudaMallocManaged(size, dtype=np.int32)

    # The host initialises the arrays in place: no cudaMemcpy
    for i in range(N):
        a[i] = i
        b[i] = 2 * i

    add[(N + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, THREADS_PER_BLOCK](a, b, c, N)

    # Wait for the GPU to finish before touching c on the host
    cudaDeviceSynchronize()

    # The host reads the result in place, and checks it against NumPy
    expected = 3 * np.arange(N, dtype=np.int32)
    ok = np.array_equal(c, expected)
    if not ok:
        bad = np.flatnonzero(c != expected)[0]
        print(f"Result verification failed at element {bad}: {c[bad]} != {expected[bad]}")

    cudaFree(a); cudaFree(b); cudaFree(c)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
