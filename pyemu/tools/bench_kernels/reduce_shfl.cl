// Sum reduction with sub-group shuffles, the same kernel as reduce_shfl.cu:
// sub_group_shuffle_down (cl_khr_subgroup_shuffle_relative) for
// __shfl_down_sync, sub-groups of 32 work-items.  PoCL 3.1 has no
// sub-groups: the bench runs reduce.cl (local memory) there instead.
#ifndef blocksize
#define blocksize 256
#endif

int sub_group_sum(int v)
{
    for (uint offset = 16; offset > 0; offset /= 2)
        v += sub_group_shuffle_down(v, offset);
    return v;
}

__kernel void shfl_reduce(__global const int *input, unsigned int N, __global int *total)
{
    __local int partial[blocksize / 32];
    unsigned int i = get_global_id(0);
    unsigned int lane = get_sub_group_local_id(), sg = get_sub_group_id();
    int v = sub_group_sum(i < N ? input[i] : 0);
    if (lane == 0)
        partial[sg] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        v = lane < blocksize / 32 ? partial[lane] : 0;
        v = sub_group_sum(v);
        if (lane == 0)
            atomic_add(total, v);
    }
}
