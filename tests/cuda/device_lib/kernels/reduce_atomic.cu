// Course kernel: shared-memory tree reduction, block results combined with atomicAdd.
#include <cuda_runtime.h>

__global__ void reduceSum(const float *in, float *out, unsigned int n)
{
    __shared__ float sdata[256]; // extern __shared__ is rewritten by pyemu's compiler, not the headers
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

__global__ void dotProduct(const double *a, const double *b, double *result, int n)
{
    __shared__ double cache[256];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    double temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[threadIdx.x] = temp;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (threadIdx.x < i)
            cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
        i /= 2;
    }
    if (threadIdx.x == 0)
        atomicAdd(result, cache[0]);
}

__global__ void countPositive(const int *x, int n, unsigned long long *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pos = i < n && x[i] > 0;
    int block_count = __syncthreads_count(pos);
    if (threadIdx.x == 0)
        atomicAdd(count, (unsigned long long)block_count);
}
