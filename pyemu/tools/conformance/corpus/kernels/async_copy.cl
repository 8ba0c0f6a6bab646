/* async_work_group_copy and async_work_group_strided_copy between __global
 * and __local memory, wait_group_events, prefetch. */
__kernel void async_copy(__global const float4 *in, __global float4 *out,
                         __global const float *matrix, __global float *columns,
                         __local float4 *tile, __local float *col, const int stride)
{
    size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
    event_t e = async_work_group_copy(tile, in + g * n, n, 0);
    prefetch(matrix + g, n);
    event_t s = async_work_group_strided_copy(col, matrix + g, n, stride, 0);
    wait_group_events(1, &e);
    float4 v = tile[n - 1 - l] * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[l] = v;
    wait_group_events(1, &s);
    col[l] = col[l] + (float)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t both[2];
    both[0] = async_work_group_copy(out + g * n, tile, n, 0);
    both[1] = async_work_group_strided_copy(columns + g, col, n, stride, 0);
    wait_group_events(2, both);
}

/* One event for two copies: the second call joins the first's event. */
__kernel void async_copy_chain(__global const int *a, __global const int *b,
                               __global int *out, __local int *la, __local int *lb)
{
    size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
    event_t e = async_work_group_copy(la, a + g * n, n, 0);
    e = async_work_group_copy(lb, b + g * n, n, e);
    wait_group_events(1, &e);
    out[get_global_id(0)] = la[l] * lb[n - 1 - l];
}
