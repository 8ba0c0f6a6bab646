// Atomics on global and __local memory, async copies, printf with vector formats.
#define TILE 64

__kernel void histogram(__global const uint *data, __global volatile uint *bins, __global long *total,
                        __global float *last, uint n)
{
    __local uint local_bins[16];
    __local int local_min;
    uint lid = get_local_id(0);
    if (lid < 16)
        local_bins[lid] = 0;
    if (lid == 0)
        local_min = INT_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        atomic_inc(&local_bins[data[i] & 15]);
        atomic_min(&local_min, (int)data[i]);
        atom_add(total, (long)data[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 16)
        atomic_add(&bins[lid], local_bins[lid]);
    if (lid == 0) {
        atomic_max((volatile __global uint *)&bins[16], (uint)local_min);
        atomic_xchg(last, (float)local_min);
        atomic_cmpxchg(&bins[17], 0u, 1u);
        atom_cmpxchg(total, 0L, 0L);
        atomic_or(&bins[18], 1u << (get_group_id(0) & 31));
    }
}

__kernel void tile_copy(__global const float *src, __global float *dst, __global float *gathered)
{
    __local float tile[TILE];
    __local float4 vtile[TILE / 4];
    size_t group = get_group_id(0);
    event_t ev = async_work_group_copy(tile, src + group * TILE, TILE, 0);
    event_t evs[2];
    evs[0] = async_work_group_copy(vtile, (__global const float4 *)(src + group * TILE), TILE / 4, 0);
    evs[1] = async_work_group_strided_copy(tile, src + group * TILE, TILE / 2, 2, ev);
    wait_group_events(1, &ev);
    wait_group_events(2, evs);
    size_t lid = get_local_id(0);
    tile[lid] = tile[lid] * 2.0f + vtile[lid / 4].x;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t out = async_work_group_copy(dst + group * TILE, tile, TILE, 0);
    event_t scatter = async_work_group_strided_copy(gathered + group * TILE, tile, TILE / 2, 2, 0);
    wait_group_events(1, &out);
    wait_group_events(1, &scatter);
    prefetch(src, TILE);
    if (lid == 0 && group == 0)
        printf("group %u: %v4hlf %v2d %s %5.2f %c %ld\n", (uint)group, vtile[0], (int2)(1, 2), "done", tile[0], 'x',
               (long)get_global_size(0));
}
