// 256-bin histogram: one input value per thread, counted with atomicAdd on
// the bins in global memory.  Block 256.
__global__ void histogram(const unsigned int *data, int n, unsigned int *bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i] & 255u], 1u);
}
