// Sum reduction in OpenCL C, the same kernel as reduce.cu (plus_reduce of
// Nickolls et al. 2008): a tree in local memory per work-group, then
// work-item 0 adds the group's sum with atomic_add.
// Work-groups of blocksize (-Dblocksize=256, a power of 2).
#ifndef blocksize
#define blocksize 256
#endif

__kernel void plus_reduce(__global const int *input, unsigned int N,
                          __global int *total)
{
    unsigned int tid = get_local_id(0);
    unsigned int i = get_group_id(0) * get_local_size(0) + get_local_id(0);

    __local int x[blocksize];
    x[tid] = (i < N) ? input[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = get_local_size(0) / 2; s > 0; s = s / 2) {
        if (tid < s)
            x[tid] += x[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (tid == 0)
        atomic_add(total, x[tid]);
}
