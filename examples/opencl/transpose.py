"""Matrix transpose in OpenCL: naive, coalesced through a local tile, padded.

The OpenCL form of examples/cuda/transpose.py: transposeNaive,
transposeCoalesced and transposeNoBankConflicts of G. Ruetsch & P.
Micikevicius, "Optimizing Matrix Transpose in CUDA" (NVIDIA, 2009), with the
same harness in OpenCL terms (2048 x 2048 floats, TILE_DIM 32, BLOCK_ROWS 8,
work-groups of TILE_DIM x BLOCK_ROWS, nreps = 1).

What changes from CUDA:
  * __shared__ float tile[TILE_DIM][TILE_DIM+1] -> __local float tile[...];
  * blockIdx.x/y -> get_group_id(0/1), threadIdx.x/y -> get_local_id(0/1);
  * __syncthreads() -> barrier(CLK_LOCAL_MEM_FENCE);
  * the grid of size_x/TILE_DIM x size_y/TILE_DIM blocks becomes a global
    size of size_x x size_y/(TILE_DIM/BLOCK_ROWS) work-items;
  * cudaMemset(d_odata, 0, ...) -> clEnqueueFillBuffer with a zero pattern.

Run:  python transpose.py [size]      (default 2048; a multiple of 32)
"""
import sys

import numpy as np
from pyemu.opencl import *

TILE_DIM = 32
BLOCK_ROWS = 8

# ---------------------------------------------------------------- device code
programSource = r"""
#define TILE_DIM    32
#define BLOCK_ROWS  8

__kernel void transposeNaive(__global float *odata, __global float* idata,
                             int width, int height, int nreps)
{
  int xIndex = get_group_id(0)*TILE_DIM + get_local_id(0);
  int yIndex = get_group_id(1)*TILE_DIM + get_local_id(1);
  int index_in  = xIndex + width * yIndex;
  int index_out = yIndex + height * xIndex;
  for (int r=0; r < nreps; r++) {
    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      odata[index_out+i] = idata[index_in+i*width];
    }
  }
}

__kernel void transposeCoalesced(__global float *odata, __global float *idata,
                                 int width, int height, int nreps)
{
  __local float tile[TILE_DIM][TILE_DIM];

  int xIndex = get_group_id(0)*TILE_DIM + get_local_id(0);
  int yIndex = get_group_id(1)*TILE_DIM + get_local_id(1);
  int index_in = xIndex + (yIndex)*width;

  xIndex = get_group_id(1) * TILE_DIM + get_local_id(0);
  yIndex = get_group_id(0) * TILE_DIM + get_local_id(1);
  int index_out = xIndex + (yIndex)*height;

  for (int r=0; r < nreps; r++) {
    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      tile[get_local_id(1)+i][get_local_id(0)] =
        idata[index_in+i*width];
    }

    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      odata[index_out+i*height] =
        tile[get_local_id(0)][get_local_id(1)+i];
    }
  }
}

__kernel void transposeNoBankConflicts(__global float *odata, __global float *idata,
                                       int width, int height, int nreps)
{
  __local float tile[TILE_DIM][TILE_DIM+1];

  int xIndex = get_group_id(0)*TILE_DIM + get_local_id(0);
  int yIndex = get_group_id(1)*TILE_DIM + get_local_id(1);
  int index_in = xIndex + (yIndex)*width;

  xIndex = get_group_id(1) * TILE_DIM + get_local_id(0);
  yIndex = get_group_id(0) * TILE_DIM + get_local_id(1);
  int index_out = xIndex + (yIndex)*height;

  for (int r=0; r < nreps; r++) {
    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      tile[get_local_id(1)+i][get_local_id(0)] =
        idata[index_in+i*width];
    }

    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS) {
      odata[index_out+i*height] =
        tile[get_local_id(0)][get_local_id(1)+i];
    }
  }
}
"""

# -------------------------------- set-up that CUDA does implicitly, done once
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
context = clCreateContext(None, [device])
commandQueue = clCreateCommandQueue(context, device, 0)
program = clCreateProgramWithSource(context, [programSource])
clBuildProgram(program)
kernels = [("naive transpose", clCreateKernel(program, "transposeNaive")),
           ("coalesced transpose", clCreateKernel(program, "transposeCoalesced")),
           ("no bank conflict trans", clCreateKernel(program, "transposeNoBankConflicts"))]


# ------------------------------------------------------------------ host code
def computeTransposeGold(h_idata, size_x, size_y):
    return np.ascontiguousarray(h_idata.reshape(size_y, size_x).T).reshape(-1)


def run_transpose(kernel, d_odata, d_idata, size_x, size_y, mem_size):
    """Zero the output, then transpose over size_x x size_y/4 work-items."""
    zero = np.zeros(1, dtype=np.float32)
    clEnqueueFillBuffer(commandQueue, d_odata, zero, zero.nbytes, 0, mem_size)
    clSetKernelArg(kernel, 0, d_odata)
    clSetKernelArg(kernel, 1, d_idata)
    clSetKernelArg(kernel, 2, np.int32(size_x))
    clSetKernelArg(kernel, 3, np.int32(size_y))
    clSetKernelArg(kernel, 4, np.int32(1))
    # execution configuration: grid (size_x/TILE_DIM, size_y/TILE_DIM) of
    # (TILE_DIM, BLOCK_ROWS) blocks, as global and local sizes in work-items
    globalSize = [size_x, size_y // TILE_DIM * BLOCK_ROWS]
    localSize = [TILE_DIM, BLOCK_ROWS]
    clEnqueueNDRangeKernel(commandQueue, kernel, 2, None, globalSize, localSize)


def main(size=2048):
    # set matrix size
    size_x = size_y = size
    if size % TILE_DIM != 0:
        print(f"size must be a multiple of TILE_DIM ({TILE_DIM})")
        return 2

    # size of memory required to store the matrix
    mem_size = 4 * size_x * size_y                  # sizeof(float) * size_x*size_y

    # allocate host memory
    h_idata = np.arange(size_x * size_y, dtype=np.float32)   # h_idata[i] = (float) i
    h_odata = np.empty(size_x * size_y, dtype=np.float32)

    # allocate device memory, copying the input in
    d_idata = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, mem_size, h_idata)
    d_odata = clCreateBuffer(context, CL_MEM_WRITE_ONLY, mem_size)

    # Compute reference transpose solution
    transposeGold = computeTransposeGold(h_idata, size_x, size_y)

    print(f"\nMatrix size: {size_x}x{size_y}, tile: {TILE_DIM}x{TILE_DIM}, "
          f"work-group: {TILE_DIM}x{BLOCK_ROWS}\n")

    ok = True
    for kernelName, kernel in kernels:
        run_transpose(kernel, d_odata, d_idata, size_x, size_y, mem_size)
        clEnqueueReadBuffer(commandQueue, d_odata, CL_TRUE, 0, mem_size, h_odata)

        res = np.array_equal(transposeGold, h_odata)
        if not res:
            print(f"*** {kernelName} kernel FAILED ***")
            ok = False
        else:
            print(f"{kernelName:24s} ok")

    # cleanup
    clReleaseMemObject(d_idata)
    clReleaseMemObject(d_odata)

    print("\nTest passed" if ok else "\nTest failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
