/* __local pointer arguments whose sizes the host sets (clSetKernelArg with a
 * size and no value): two of them, of different types, and a kernel-scope
 * __local array beside them. */
__kernel void local_args(__global const float *in, __global float *out_f,
                         __global int *out_i, __local float *lf, __local int *li,
                         const int chunk)
{
    __local int count;
    int lid = get_local_id(0);
    int n = get_local_size(0);
    if (lid == 0)
        count = 0;
    for (int k = 0; k < chunk; ++k)
        lf[lid * chunk + k] = in[get_group_id(0) * n * chunk + lid * chunk + k];
    li[lid] = lid * lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 0; k < chunk; ++k)
        acc += lf[((lid + 1) % n) * chunk + k];
    out_f[get_global_id(0)] = acc;
    atomic_add(&count, li[n - 1 - lid]);
    barrier(CLK_LOCAL_MEM_FENCE);
    out_i[get_global_id(0)] = count + li[lid];
}
