// Sum reduction, the plus_reduce of Nickolls et al. 2008 in OpenCL C: each
// work-group sums its BLOCK elements with a tree in local memory, then
// work-item 0 adds the group's sum to the total with atomic_add.
// Work-group BLOCK (a power of 2).
#ifndef BLOCK
#define BLOCK 256
#endif

__kernel void plusReduce(__global const int *input, unsigned int N,
                         __global int *total)
{
    unsigned int tid = get_local_id(0);
    unsigned int i = get_group_id(0) * get_local_size(0) + get_local_id(0);

    __local int x[BLOCK];
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
