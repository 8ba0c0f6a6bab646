/* Slide: tiled matrix multiply; each work-group stages TILE_WIDTH x TILE_WIDTH
 * tiles of M and N in __local memory.  TILE_WIDTH comes from the build options. */
#ifndef TILE_WIDTH
#error "build with -D TILE_WIDTH=..."
#endif

__kernel void matmul_tiled(__global const float *Md, __global const float *Nd,
                           __global float *Pd, const int Width)
{
    __local float Mds[TILE_WIDTH][TILE_WIDTH];
    __local float Nds[TILE_WIDTH][TILE_WIDTH];
    int bx = get_group_id(0), by = get_group_id(1);
    int tx = get_local_id(0), ty = get_local_id(1);
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0.0f;
    for (int m = 0; m < Width / TILE_WIDTH; ++m) {
        Mds[ty][tx] = Md[Row * Width + (m * TILE_WIDTH + tx)];
        Nds[ty][tx] = Nd[Col + (m * TILE_WIDTH + ty) * Width];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    Pd[Row * Width + Col] = Pvalue;
}
