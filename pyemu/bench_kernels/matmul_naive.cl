// Naive square matrix multiply C = A * B (row-major, N x N): one output
// element per work-item, operands read straight from global memory.
// Work-group 16x16.
__kernel void matmulNaive(__global const float *A, __global const float *B,
                          __global float *C, int N)
{
    int row = get_group_id(1) * get_local_size(1) + get_local_id(1);
    int col = get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (row < N && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < N; ++k)
            sum += A[row * N + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}
