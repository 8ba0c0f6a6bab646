/* half-precision storage: vload_half / vstore_half convert between float and
 * the 16-bit format in memory; vstore_half rounds to nearest even by
 * default, or as its _rte/_rtz/_rtp/_rtn suffix says. */
__kernel void half_storage(__global const half *h, __global const float *f,
                         __global float *loaded, __global half *stored)
{
    size_t i = get_global_id(0);
    loaded[i] = vload_half(i, h);
    float4 v = vload_half4(i, h + 1);
    loaded[get_global_size(0) + i] = v.w;
    float x = f[i];
    vstore_half(x, 6 * i + 0, stored);
    vstore_half_rte(x, 6 * i + 1, stored);
    vstore_half_rtz(x, 6 * i + 2, stored);
    vstore_half_rtp(x, 6 * i + 3, stored);
    vstore_half_rtn(x, 6 * i + 4, stored);
    vstore_half(vload_half(i, h) * 2.0f, 6 * i + 5, stored);
}
