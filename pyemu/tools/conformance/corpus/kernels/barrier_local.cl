/* Kernel-scope __local arrays and barriers: reverse each work-group's block,
 * then an inclusive prefix sum (Hillis-Steele, a barrier in a loop), with
 * the fence functions between. */
#define WG 128
__kernel void barrier_local(__global const int *in, __global int *reversed, __global int *scan)
{
    __local int buf[WG];
    __local int sums[2][WG];
    int lid = get_local_id(0);
    int gid = get_global_id(0);
    buf[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    reversed[gid] = buf[WG - 1 - lid];

    int src = 0;
    sums[0][lid] = buf[lid];
    mem_fence(CLK_LOCAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int offset = 1; offset < WG; offset <<= 1) {
        int v = sums[src][lid];
        if (lid >= offset)
            v += sums[src][lid - offset];
        sums[1 - src][lid] = v;
        write_mem_fence(CLK_LOCAL_MEM_FENCE);
        barrier(CLK_LOCAL_MEM_FENCE);
        read_mem_fence(CLK_LOCAL_MEM_FENCE);
        src = 1 - src;
    }
    scan[gid] = sums[src][lid];
}
