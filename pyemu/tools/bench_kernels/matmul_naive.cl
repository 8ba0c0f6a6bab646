// Naive matrix multiply in OpenCL C, the same kernel as matmul_naive.cu.
// Work-groups of 32 x 32; N is a multiple of 32.
__kernel void matrixMul(__global const float *a, __global const float *b,
                        __global float *c, int N)
{
    int row = get_group_id(1) * get_local_size(1) + get_local_id(1);
    int col = get_group_id(0) * get_local_size(0) + get_local_id(0);

    float sum = 0.0f;
    for (int k = 0; k < N; k++)
        sum += a[row * N + k] * b[k * N + col];
    c[row * N + col] = sum;
}
