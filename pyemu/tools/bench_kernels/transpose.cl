// Coalesced matrix transpose with a padded tile in OpenCL C, the same kernel
// as transpose.cu (transposeNoBankConflicts of Ruetsch & Micikevicius 2009):
// the tile goes through local memory.  Work-groups of TILE_DIM x BLOCK_ROWS
// (32 x 8); sizes are multiples of TILE_DIM.  Pass nreps = 1.  Line for line
// the .cu: threadIdx.x/y -> get_local_id(0/1), blockIdx -> get_group_id.
#ifndef TILE_DIM
#define TILE_DIM 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__kernel void transposeNoBankConflicts(__global float *odata,
                                       __global const float *idata,
                                       int width, int height, int nreps)
{
    __local float tile[TILE_DIM][TILE_DIM + 1];

    int xIndex = get_group_id(0) * TILE_DIM + get_local_id(0);
    int yIndex = get_group_id(1) * TILE_DIM + get_local_id(1);
    int index_in = xIndex + (yIndex) * width;

    xIndex = get_group_id(1) * TILE_DIM + get_local_id(0);
    yIndex = get_group_id(0) * TILE_DIM + get_local_id(1);
    int index_out = xIndex + (yIndex) * height;

    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            tile[get_local_id(1) + i][get_local_id(0)] = idata[index_in + i * width];

        barrier(CLK_LOCAL_MEM_FENCE);

        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            odata[index_out + i * height] = tile[get_local_id(0)][get_local_id(1) + i];
    }
}
