// Coalesced matrix transpose with a padded tile, as examples/cuda/transpose.py:
// transposeNoBankConflicts of Ruetsch & Micikevicius, "Optimizing Matrix
// Transpose in CUDA" (NVIDIA, 2009).  A TILE_DIM x TILE_DIM tile goes through
// shared memory, padded by one column; each thread moves TILE_DIM/BLOCK_ROWS
// elements.  Blocks of TILE_DIM x BLOCK_ROWS (32 x 8); sizes are multiples
// of TILE_DIM.  nreps repeats the copy (the paper's timing loop): pass 1.
#ifndef TILE_DIM
#define TILE_DIM 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__global__ void transposeNoBankConflicts(float *odata, const float *idata,
                                         int width, int height, int nreps)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + (yIndex) * width;

    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + (yIndex) * height;

    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];

        __syncthreads();

        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}
