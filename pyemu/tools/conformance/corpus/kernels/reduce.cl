/* Slide: reduction.  Each work-group sums its elements as a tree in a __local
 * buffer (passed as a __local pointer argument), stores its partial sum, and
 * adds it to the total with one atomic_add. */
__kernel void reduce(__global const int *in, __global int *partial,
                     __global int *total, __local int *scratch, const uint n)
{
    uint lid = get_local_id(0);
    uint gid = get_global_id(0);
    scratch[lid] = gid < n ? in[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
        atomic_add(total, scratch[0]);
    }
}
