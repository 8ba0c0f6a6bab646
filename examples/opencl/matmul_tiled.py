"""Tiled matrix multiplication with local memory, in OpenCL.

The OpenCL form of examples/cuda/matmul_tiled.py: the tiled MatrixMulKernel
of D. Kirk & W. Hwu's course slides ("Programming Massively Parallel
Processors", ch. 5) and its host function MatrixMulOnDevice, with the same
algorithm, sizes and steps in OpenCL terms.  TILE_WIDTH is 16, given to the
compiler as the build option -DTILE_WIDTH=16.

What changes from CUDA:
  * __global__ -> __kernel, pointer parameters are __global float *;
  * __shared__ -> __local: the tiles Mds and Nds are shared by a work-group;
  * blockIdx -> get_group_id, threadIdx -> get_local_id;
  * __syncthreads() -> barrier(CLK_LOCAL_MEM_FENCE);
  * the launch gives the global size in work-items, Width x Width, not the
    number of blocks; the local size is TILE_WIDTH x TILE_WIDTH.

Run:  python matmul_tiled.py [Width]  (default Width = 1024; a multiple of 16)
"""
import sys

import numpy as np
from pyemu.opencl import *

TILE_WIDTH = 16

# ---------------------------------------------------------------- device code
programSource = r"""
__kernel void MatrixMulKernel(__global float* Md, __global float* Nd,
                              __global float* Pd, int Width)
{
  __local float Mds[TILE_WIDTH][TILE_WIDTH];
  __local float Nds[TILE_WIDTH][TILE_WIDTH];

  int bx = get_group_id(0);  int by = get_group_id(1);
  int tx = get_local_id(0);  int ty = get_local_id(1);

  // Identify the row and column of the Pd element to work on
  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;

  float Pvalue = 0;
  // Loop over the Md and Nd tiles required to compute the Pd element
  for (int m = 0; m < Width/TILE_WIDTH; ++m) {
    // Collaborative loading of Md and Nd tiles into local memory
    Mds[ty][tx] = Md[Row*Width + (m*TILE_WIDTH + tx)];
    Nds[ty][tx] = Nd[(m*TILE_WIDTH + ty)*Width + Col];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < TILE_WIDTH; ++k)
      Pvalue += Mds[ty][k] * Nds[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  Pd[Row*Width + Col] = Pvalue;
}
"""

# -------------------------------- set-up that CUDA does implicitly, done once
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
context = clCreateContext(None, [device])
commandQueue = clCreateCommandQueue(context, device, 0)
program = clCreateProgramWithSource(context, [programSource])
clBuildProgram(program, [device], f"-DTILE_WIDTH={TILE_WIDTH}")
MatrixMulKernel = clCreateKernel(program, "MatrixMulKernel")


# ------------------------------------------------------------------ host code
def MatrixMulOnDevice(M, N, P, Width):
    size = Width * Width * np.dtype(np.float32).itemsize

    # 1. Allocate and Load M, N to device memory
    Md = clCreateBuffer(context, CL_MEM_READ_ONLY, size)
    clEnqueueWriteBuffer(commandQueue, Md, CL_TRUE, 0, size, M)
    Nd = clCreateBuffer(context, CL_MEM_READ_ONLY, size)
    clEnqueueWriteBuffer(commandQueue, Nd, CL_TRUE, 0, size, N)

    # Allocate P on the device
    Pd = clCreateBuffer(context, CL_MEM_WRITE_ONLY, size)

    # 2. Kernel invocation code: arguments, then an NDRange of Width x Width
    #    work-items in work-groups of TILE_WIDTH x TILE_WIDTH
    clSetKernelArg(MatrixMulKernel, 0, Md)
    clSetKernelArg(MatrixMulKernel, 1, Nd)
    clSetKernelArg(MatrixMulKernel, 2, Pd)
    clSetKernelArg(MatrixMulKernel, 3, np.int32(Width))
    globalSize = [Width, Width]                     # dimGrid * dimBlock
    localSize = [TILE_WIDTH, TILE_WIDTH]            # dimBlock
    clEnqueueNDRangeKernel(commandQueue, MatrixMulKernel, 2, None, globalSize, localSize)

    # 3. Read P from the device (blocking: waits for the kernel)
    clEnqueueReadBuffer(commandQueue, Pd, CL_TRUE, 0, size, P)

    # Free device matrices
    clReleaseMemObject(Md); clReleaseMemObject(Nd); clReleaseMemObject(Pd)


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
