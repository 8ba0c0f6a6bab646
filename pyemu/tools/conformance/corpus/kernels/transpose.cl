/* Slide: matrix transpose, three ways: naive (uncoalesced writes), through a
 * __local tile, and through a tile padded by one column to avoid bank
 * conflicts.  TILE is the work-group's side. */
#define TILE 16

__kernel void transpose_naive(__global float *out, __global const float *in,
                              const int width, const int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}

__kernel void transpose_tiled(__global float *out, __global const float *in,
                              const int width, const int height)
{
    __local float tile[TILE][TILE];
    int x = get_group_id(0) * TILE + get_local_id(0);
    int y = get_group_id(1) * TILE + get_local_id(1);
    if (x < width && y < height)
        tile[get_local_id(1)][get_local_id(0)] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * TILE + get_local_id(0);
    y = get_group_id(0) * TILE + get_local_id(1);
    if (x < height && y < width)
        out[y * height + x] = tile[get_local_id(0)][get_local_id(1)];
}

__kernel void transpose_padded(__global float *out, __global const float *in,
                               const int width, const int height)
{
    __local float tile[TILE][TILE + 1];
    int x = get_group_id(0) * TILE + get_local_id(0);
    int y = get_group_id(1) * TILE + get_local_id(1);
    if (x < width && y < height)
        tile[get_local_id(1)][get_local_id(0)] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * TILE + get_local_id(0);
    y = get_group_id(0) * TILE + get_local_id(1);
    if (x < height && y < width)
        out[y * height + x] = tile[get_local_id(0)][get_local_id(1)];
}
