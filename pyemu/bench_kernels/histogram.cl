// 256-bin histogram: one input value per work-item, counted with atomic_add
// on the bins in global memory.  Work-group 256.
__kernel void histogram(__global const unsigned int *data, int n,
                        __global unsigned int *bins)
{
    int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (i < n)
        atomic_add(&bins[data[i] & 255u], 1u);
}
