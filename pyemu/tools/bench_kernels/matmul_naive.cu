// Naive matrix multiply, as examples/cuda/matmul.py on floats (the simple
// MatrixMulKernel of Kirk & Hwu): one element of c per thread, a whole row
// of a and column of b read from global memory.  Blocks of 32 x 32; N is a
// multiple of 32.
__global__ void matrixMul(const float *a, const float *b, float *c, int N)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    float sum = 0.0f;
    for (int k = 0; k < N; k++)
        sum += a[row * N + k] * b[k * N + col];
    c[row * N + col] = sum;
}
