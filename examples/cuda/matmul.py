"""Naive matrix multiplication: one thread per element of C.

Ports the integer matrixMul of the "CUDA Crash Course" (CoffeeBeforeArch,
matrix_mul/baseline), the same algorithm as the simple MatrixMulKernel of
Kirk & Hwu's course slides: 1024 x 1024 ints, 32 x 32 threads per block, a
2D grid of 32 x 32 blocks.

What it shows:
  * 2D blocks and grids (dim3), row = blockIdx.y * blockDim.y + threadIdx.y,
    col = blockIdx.x * blockDim.x + threadIdx.x;
  * row-major indexing of a 2D matrix stored as one array, a[row * N + k];
  * every thread reads a whole row of a and a whole column of b from global
    memory: simple, and slow on a GPU (matmul_tiled.py fixes that).

Run:  python matmul.py [N]            (default N = 1024; N a multiple of 32)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void matrixMul(const int *a, const int *b, int *c, int N) {
  // Compute each thread's global row and column index
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;

  // Iterate over row, and down column
  c[row * N + col] = 0;
  for (int k = 0; k < N; k++) {
    // Accumulate results for a single element
    c[row * N + col] += a[row * N + k] * b[k * N + col];
  }
}
""")
matrixMul = mod.get_function("matrixMul")


# ------------------------------------------------------------------ host code
def verify_result(a, b, c, N):
    """Check the result against NumPy.  The reference is computed in double
    precision (fast BLAS): every partial sum here is an integer far below 2^53,
    so it is exact, and it cannot overflow as an int would."""
    expected = a.reshape(N, N).astype(np.float64) @ b.reshape(N, N).astype(np.float64)
    return np.array_equal(c.reshape(N, N), expected)


def main(N=1 << 10):
    # Size (in bytes) of matrix
    nbytes = N * N * np.dtype(np.int32).itemsize

    # Host vectors, initialised with random numbers (rand() % 100)
    h_a = np.random.randint(0, 100, size=N * N, dtype=np.int32)
    h_b = np.random.randint(0, 100, size=N * N, dtype=np.int32)
    h_c = np.empty(N * N, dtype=np.int32)

    # Allocate device memory
    d_a = cudaMalloc(nbytes)
    d_b = cudaMalloc(nbytes)
    d_c = cudaMalloc(nbytes)

    # Copy data to the device
    cudaMemcpy(d_a, h_a, nbytes, cudaMemcpyHostToDevice)
    cudaMemcpy(d_b, h_b, nbytes, cudaMemcpyHostToDevice)

    # Threads per CTA dimension
    THREADS = 32

    # Blocks per grid dimension (assumes THREADS divides N evenly)
    BLOCKS = N // THREADS

    # Use 3D objects
    threads = dim3(THREADS, THREADS)
    blocks = dim3(BLOCKS, BLOCKS)

    # Launch kernel
    matrixMul[blocks, threads](d_a, d_b, d_c, N)

    # Copy back to the host
    cudaMemcpy(h_c, d_c, nbytes, cudaMemcpyDeviceToHost)

    # Check result
    ok = verify_result(h_a, h_b, h_c, N)

    # Free memory on device
    cudaFree(d_a)
    cudaFree(d_b)
    cudaFree(d_c)

    print("COMPLETED SUCCESSFULLY" if ok else "FAILED: result does not match NumPy")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
