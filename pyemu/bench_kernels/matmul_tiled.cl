// Tiled square matrix multiply C = A * B (row-major, N x N): each work-group
// stages TILE x TILE tiles of A and B in local memory.  Work-group TILE x TILE.
#ifndef TILE
#define TILE 16
#endif

__kernel void matmulTiled(__global const float *A, __global const float *B,
                          __global float *C, int N)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty;
    int col = get_group_id(0) * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + tx, br = t * TILE + ty;
        As[ty][tx] = (row < N && ac < N) ? A[row * N + ac] : 0.0f;
        Bs[ty][tx] = (br < N && col < N) ? B[br * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < N && col < N)
        C[row * N + col] = sum;
}
