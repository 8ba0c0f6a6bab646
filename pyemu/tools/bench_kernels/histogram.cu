// 256-bin histogram of bytes, as examples/cuda/histogram.py: histo_kernel of
// Sanders & Kandrot, "CUDA by Example", ch. 9 (global-memory atomics).  A
// fixed grid walks the buffer with a grid-stride loop; every byte is counted
// with atomicAdd on its bin in global memory.  Blocks of 256 threads.
__global__ void histo_kernel(const unsigned char *buffer, long size,
                             unsigned int *histo)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&(histo[buffer[i]]), 1);
        i += offset;
    }
}
