/* Slide: 256-bin histogram.  Each work-group counts into a __local histogram
 * with atomic_inc, then adds it to the global one with atomic_add. */
__kernel void histogram(__global const uchar *data, const uint n, __global uint *hist)
{
    __local uint local_hist[256];
    for (uint i = get_local_id(0); i < 256; i += get_local_size(0))
        local_hist[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_hist[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_local_id(0); i < 256; i += get_local_size(0))
        atomic_add(&hist[i], local_hist[i]);
}
