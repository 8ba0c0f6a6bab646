"""Matrix transpose: naive, coalesced through a shared tile, and padded.

Ports transposeNaive, transposeCoalesced and transposeNoBankConflicts from
G. Ruetsch & P. Micikevicius, "Optimizing Matrix Transpose in CUDA" (NVIDIA,
2009), with its host harness (2048 x 2048 floats, TILE_DIM 32, BLOCK_ROWS 8,
grid size_x/TILE_DIM x size_y/TILE_DIM, blocks of TILE_DIM x BLOCK_ROWS).
The kernels keep the paper's nreps argument (repeat count for timing);
this harness passes 1.

What it shows:
  * a block of 32 x 8 threads handles a 32 x 32 tile: each thread copies
    TILE_DIM/BLOCK_ROWS = 4 elements, rows i apart;
  * transposeNaive reads rows and writes columns: its writes are strided, not
    coalesced;
  * transposeCoalesced reads a tile row by row into __shared__ memory, waits
    at __syncthreads(), and writes the transposed tile row by row: both global
    accesses are coalesced, but the column reads of the tile hit one shared
    memory bank 32 times;
  * transposeNoBankConflicts pads the tile to TILE_DIM+1 columns, which puts
    the elements of a column in 32 different banks.

Run:  python transpose.py [size]      (default 2048; a multiple of 32)
"""
import sys

import numpy as np
from pyemu.cuda import *

TILE_DIM = 32
BLOCK_ROWS = 8

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
#define TILE_DIM    32
#define BLOCK_ROWS  8

__global__ void transposeNaive(float *odata, float* idata,
                               int width, int height, int nreps)
{
  int xIndex = blockIdx.x*TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y*TILE_DIM + threadIdx.y;
  int index_in  = xIndex + width * yIndex;
  int index_out = yIndex + height * xIndex;
  for (int r=0; r < nreps; r++) {
    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      odata[index_out+i] = idata[index_in+i*width];
    }
  }
}

__global__ void transposeCoalesced(float *odata, float *idata,
                                   int width, int height, int nreps)
{
  __shared__ float tile[TILE_DIM][TILE_DIM];

  int xIndex = blockIdx.x*TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y*TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;

  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;

  for (int r=0; r < nreps; r++) {
    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      tile[threadIdx.y+i][threadIdx.x] =
        idata[index_in+i*width];
    }

    __syncthreads();

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      odata[index_out+i*height] =
        tile[threadIdx.x][threadIdx.y+i];
    }
  }
}

__global__ void transposeNoBankConflicts(float *odata, float *idata,
                                         int width, int height, int nreps)
{
  __shared__ float tile[TILE_DIM][TILE_DIM+1];

  int xIndex = blockIdx.x*TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y*TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;

  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;

  for (int r=0; r < nreps; r++) {
    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      tile[threadIdx.y+i][threadIdx.x] =
        idata[index_in+i*width];
    }

    __syncthreads();

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      odata[index_out+i*height] =
        tile[threadIdx.x][threadIdx.y+i];
    }
  }
}
""")
kernels = [("naive transpose", mod.get_function("transposeNaive")),
           ("coalesced transpose", mod.get_function("transposeCoalesced")),
           ("no bank conflict trans", mod.get_function("transposeNoBankConflicts"))]


# ------------------------------------------------------------------ host code
def computeTransposeGold(h_idata, size_x, size_y):
    return np.ascontiguousarray(h_idata.reshape(size_y, size_x).T).reshape(-1)


def main(size=2048):
    # set matrix size
    size_x = size_y = size
    if size % TILE_DIM != 0:
        print(f"size must be a multiple of TILE_DIM ({TILE_DIM})")
        return 2

    # execution configuration parameters
    grid = dim3(size_x // TILE_DIM, size_y // TILE_DIM)
    threads = dim3(TILE_DIM, BLOCK_ROWS)

    # size of memory required to store the matrix
    mem_size = 4 * size_x * size_y                  # sizeof(float) * size_x*size_y

    # allocate host memory
    h_idata = np.arange(size_x * size_y, dtype=np.float32)   # h_idata[i] = (float) i
    h_odata = np.empty(size_x * size_y, dtype=np.float32)

    # allocate device memory
    d_idata = cudaMalloc(mem_size)
    d_odata = cudaMalloc(mem_size)

    # copy host data to device
    cudaMemcpy(d_idata, h_idata, mem_size, cudaMemcpyHostToDevice)

    # Compute reference transpose solution
    transposeGold = computeTransposeGold(h_idata, size_x, size_y)

    print(f"\nMatrix size: {size_x}x{size_y}, tile: {TILE_DIM}x{TILE_DIM}, "
          f"block: {TILE_DIM}x{BLOCK_ROWS}\n")

    ok = True
    for kernelName, kernel in kernels:
        cudaMemset(d_odata, 0, mem_size)
        kernel[grid, threads](d_odata, d_idata, size_x, size_y, 1)
        cudaMemcpy(h_odata, d_odata, mem_size, cudaMemcpyDeviceToHost)

        res = np.array_equal(transposeGold, h_odata)
        if not res:
            print(f"*** {kernelName} kernel FAILED ***")
            ok = False
        else:
            print(f"{kernelName:24s} ok")

    # cleanup
    cudaFree(d_idata)
    cudaFree(d_odata)

    print("\nTest passed" if ok else "\nTest failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
