// Course kernel: vector add, with the includes nvcc programs carry.
#include <cuda_runtime.h>
#include "device_launch_parameters.h"
#include <stdio.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements)
        C[i] = A[i] + B[i] + 0.0f;
}

__global__ void vecAddGridStride(const float *__restrict__ a, const float *__restrict__ b,
                                 float *__restrict__ c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("grid %u x %u, block %u\n", gridDim.x, gridDim.y, blockDim.x);
}
