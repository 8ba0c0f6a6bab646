"""Vector addition with blocks and threads.

Ports the "Vector Addition with Blocks and Threads" / "Handling Arbitrary
Vector Sizes" slides of NVIDIA's "CUDA C/C++ Basics" (Supercomputing 2011):
the first complete CUDA program most people see.

What it shows:
  * the host/device split: allocate device memory, copy in, launch, copy out;
  * global thread index = threadIdx.x + blockIdx.x * blockDim.x;
  * rounding the grid up, (N + M - 1) / M blocks, and guarding `index < n`
    in the kernel so the extra threads of the last block do nothing.

Run:  python vector_add.py [N]        (default N = 2^16 ints)
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


def random_ints(x, n):
    x[:n] = np.random.randint(0, 1000, size=n, dtype=np.int32)


def main(N=1 << 16):
    size = N * np.dtype(np.int32).itemsize      # int size = N * sizeof(int);

    # Alloc space for device copies of a, b, c
    d_a = cudaMalloc(size)
    d_b = cudaMalloc(size)
    d_c = cudaMalloc(size)

    # Alloc space for host copies of a, b, c and setup input values
    a = np.empty(N, dtype=np.int32); random_ints(a, N)
    b = np.empty(N, dtype=np.int32); random_ints(b, N)
    c = np.empty(N, dtype=np.int32)

    # Copy inputs to device
    cudaMemcpy(d_a, a, size, cudaMemcpyHostToDevice)
    cudaMemcpy(d_b, b, size, cudaMemcpyHostToDevice)

    # Launch add() kernel on GPU:  add<<<(N + M-1) / M, M>>>(d_a, d_b, d_c, N);
    add[(N + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, THREADS_PER_BLOCK](d_a, d_b, d_c, N)

    # Copy result back to host
    cudaMemcpy(c, d_c, size, cudaMemcpyDeviceToHost)

    # Verify against NumPy
    ok = np.array_equal(c, a + b)
    if not ok:
        bad = np.flatnonzero(c != a + b)[0]
        print(f"Result verification failed at element {bad}: {c[bad]} != {a[bad] + b[bad]}")

    # Cleanup
    cudaFree(d_a); cudaFree(d_b); cudaFree(d_c)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
