// Course kernel: privatized histogram, atomicAdd on unsigned int in shared and global memory.
#include <cuda_runtime.h>
#define NUM_BINS 256

__global__ void histo_kernel(unsigned char *buffer, long size, unsigned int *histo)
{
    __shared__ unsigned int histo_private[NUM_BINS];
    if (threadIdx.x < NUM_BINS)
        histo_private[threadIdx.x] = 0;
    __syncthreads();
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&(histo_private[buffer[i]]), 1);
        i += stride;
    }
    __syncthreads();
    if (threadIdx.x < NUM_BINS)
        atomicAdd(&(histo[threadIdx.x]), histo_private[threadIdx.x]);
}

__global__ void textHistogram(const char *text, unsigned int length, unsigned int *histo)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = tid; i < length; i += blockDim.x * gridDim.x) {
        int alphabet_position = text[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26)
            atomicAdd(&histo[alphabet_position / 4], 1u);
    }
}
