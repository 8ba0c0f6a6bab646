// Vector add, as examples/cuda/vector_add.py, on floats: one element per
// thread, 1024 threads per block.
__global__ void add(const float *a, const float *b, float *c, int n)
{
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    if (index < n)
        c[index] = a[index] + b[index];
}
