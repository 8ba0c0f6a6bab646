// Tiled matrix multiply in OpenCL C, the same kernel as matmul_tiled.cu:
// tiles of Md and Nd staged in local memory.  Work-groups of TILE_WIDTH x
// TILE_WIDTH (-DTILE_WIDTH=16); Width is a multiple of TILE_WIDTH.
#ifndef TILE_WIDTH
#define TILE_WIDTH 16
#endif

__kernel void MatrixMulKernel(__global const float *Md, __global const float *Nd,
                              __global float *Pd, int Width)
{
    __local float Mds[TILE_WIDTH][TILE_WIDTH];
    __local float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = get_group_id(0); int by = get_group_id(1);
    int tx = get_local_id(0); int ty = get_local_id(1);

    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int m = 0; m < Width / TILE_WIDTH; ++m) {
        Mds[ty][tx] = Md[Row * Width + (m * TILE_WIDTH + tx)];
        Nds[ty][tx] = Nd[(m * TILE_WIDTH + ty) * Width + Col];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    Pd[Row * Width + Col] = Pvalue;
}
