// Tiled square matrix multiply C = A * B (row-major, N x N): each block
// stages TILE x TILE tiles of A and B in shared memory.  Block TILE x TILE.
#ifndef TILE
#define TILE 16
#endif

__global__ void matmulTiled(const float *A, const float *B, float *C, int N)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + tx, br = t * TILE + ty;
        As[ty][tx] = (row < N && ac < N) ? A[row * N + ac] : 0.0f;
        Bs[ty][tx] = (br < N && col < N) ? B[br * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < N && col < N)
        C[row * N + col] = sum;
}
