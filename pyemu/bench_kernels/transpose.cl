// Coalesced matrix transpose (row-major width x height -> height x width):
// a TILE_DIM x TILE_DIM tile goes through local memory, padded by one column;
// each work-item moves TILE_DIM / BLOCK_ROWS elements.
// Work-group TILE_DIM x BLOCK_ROWS (32 x 8).
#ifndef TILE_DIM
#define TILE_DIM 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__kernel void transposeCoalesced(__global float *odata,
                                 __global const float *idata,
                                 int width, int height)
{
    __local float tile[TILE_DIM][TILE_DIM + 1];
    int lx = get_local_id(0), ly = get_local_id(1);

    int x = get_group_id(0) * TILE_DIM + lx;
    int y = get_group_id(1) * TILE_DIM + ly;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[ly + j][lx] = idata[(y + j) * width + x];

    barrier(CLK_LOCAL_MEM_FENCE);

    x = get_group_id(1) * TILE_DIM + lx;
    y = get_group_id(0) * TILE_DIM + ly;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            odata[(y + j) * height + x] = tile[lx][ly + j];
}
