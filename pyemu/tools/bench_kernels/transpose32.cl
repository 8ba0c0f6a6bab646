// Matrix transpose as the course writes it, in OpenCL C: the same kernel as
// transpose32.cu.  Work-groups of 32x32 work-items, one element each, the
// tile in local memory padded by one column.  Sizes are multiples of 32.
// Line for line the .cu: threadIdx.x/y -> get_local_id(0/1), blockIdx ->
// get_group_id, __syncthreads() -> barrier(CLK_LOCAL_MEM_FENCE).
__kernel void transpose32(__global float *odata, __global const float *idata,
                          int width, int height)
{
    __local float tile[32][33];

    int xIndex = get_group_id(0) * 32 + get_local_id(0);
    int yIndex = get_group_id(1) * 32 + get_local_id(1);
    int index_in = xIndex + yIndex * width;

    xIndex = get_group_id(1) * 32 + get_local_id(0);
    yIndex = get_group_id(0) * 32 + get_local_id(1);
    int index_out = xIndex + yIndex * height;

    tile[get_local_id(1)][get_local_id(0)] = idata[index_in];

    barrier(CLK_LOCAL_MEM_FENCE);

    odata[index_out] = tile[get_local_id(0)][get_local_id(1)];
}
