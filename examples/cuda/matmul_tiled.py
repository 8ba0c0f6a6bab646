"""Tiled matrix multiplication with shared memory.

Ports the tiled MatrixMulKernel of D. Kirk & W. Hwu's CUDA course slides
(ECE 498AL, "CUDA Memories"; "Programming Massively Parallel Processors",
ch. 5), with its host function MatrixMulOnDevice.  TILE_WIDTH is 16, given to
the compiler as -DTILE_WIDTH=16; the matrices are Width x Width floats.

What it shows:
  * each block computes a TILE_WIDTH x TILE_WIDTH tile of Pd and walks along
    a row of tiles of Md and a column of tiles of Nd, one phase per tile;
  * the threads of a block load a tile of each input into __shared__ arrays
    (Mds, Nds) together, each thread one element, then all of them read it:
    global memory traffic falls by a factor TILE_WIDTH;
  * __syncthreads() twice per phase: after loading (everyone's element is
    there before anyone reads) and after computing (nobody overwrites a tile
    another thread still reads).

Run:  python matmul_tiled.py [Width]  (default Width = 1024; a multiple of 16)
"""
import sys

import numpy as np
from pyemu.cuda import *

TILE_WIDTH = 16

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void MatrixMulKernel(float* Md, float* Nd, float* Pd, int Width)
{
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

  int bx = blockIdx.x;  int by = blockIdx.y;
  int tx = threadIdx.x; int ty = threadIdx.y;

  // Identify the row and column of the Pd element to work on
  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;

  float Pvalue = 0;
  // Loop over the Md and Nd tiles required to compute the Pd element
  for (int m = 0; m < Width/TILE_WIDTH; ++m) {
    // Collaborative loading of Md and Nd tiles into shared memory
    Mds[ty][tx] = Md[Row*Width + (m*TILE_WIDTH + tx)];
    Nds[ty][tx] = Nd[(m*TILE_WIDTH + ty)*Width + Col];
    __syncthreads();

    for (int k = 0; k < TILE_WIDTH; ++k)
      Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  Pd[Row*Width + Col] = Pvalue;
}
""", options=[f"-DTILE_WIDTH={TILE_WIDTH}"])
MatrixMulKernel = mod.get_function("MatrixMulKernel")


# ------------------------------------------------------------------ host code
def MatrixMulOnDevice(M, N, P, Width):
    size = Width * Width * np.dtype(np.float32).itemsize

    # 1. Allocate and Load M, N to device memory
    Md = cudaMalloc(size)
    cudaMemcpy(Md, M, size, cudaMemcpyHostToDevice)
    Nd = cudaMalloc(size)
    cudaMemcpy(Nd, N, size, cudaMemcpyHostToDevice)

    # Allocate P on the device
    Pd = cudaMalloc(size)

    # 2. Kernel invocation code
    dimGrid = dim3(Width // TILE_WIDTH, Width // TILE_WIDTH)
    dimBlock = dim3(TILE_WIDTH, TILE_WIDTH)
    MatrixMulKernel[dimGrid, dimBlock](Md, Nd, Pd, Width)

    # 3. Read P from the device
    cudaMemcpy(P, Pd, size, cudaMemcpyDeviceToHost)

    # Free device matrices
    cudaFree(Md); cudaFree(Nd); cudaFree(Pd)


def main(Width=1024):
    if Width % TILE_WIDTH != 0:
        print(f"Width must be a multiple of TILE_WIDTH ({TILE_WIDTH})")
        return 2
    M = np.random.rand(Width, Width).astype(np.float32)
    N = np.random.rand(Width, Width).astype(np.float32)
    P = np.empty((Width, Width), dtype=np.float32)

    MatrixMulOnDevice(M, N, P, Width)

    # Compare with NumPy in double precision; the kernel sums in float, in a
    # different order, so allow float32 rounding.
    reference = M.astype(np.float64) @ N.astype(np.float64)
    ok = np.allclose(P, reference, rtol=1e-4, atol=1e-4)
    if not ok:
        r, c = np.argwhere(~np.isclose(P, reference, rtol=1e-4, atol=1e-4))[0]
        print(f"Result verification failed at P[{r}][{c}]: {P[r, c]} != {reference[r, c]}")

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
