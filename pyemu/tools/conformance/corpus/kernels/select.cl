/* select(a, b, c) and bitselect(a, b, c).  For a vector c, select takes b's
 * component where c's component has its most significant bit set; for a
 * scalar c, where c is non-zero.  bitselect takes each bit from b where c's
 * bit is 1. */
__kernel void select_bits(__global const float4 *fa, __global const float4 *fb,
                          __global const int4 *mask, __global float4 *of,
                          __global int4 *oi, __global uchar16 *ouc, __global float *os,
                          __global long2 *ol)
{
    size_t i = get_global_id(0);
    float4 x = fa[i], y = fb[i];
    int4 m = mask[i];
    of[3 * i + 0] = select(x, y, m);
    of[3 * i + 1] = select(x, y, x < y);
    of[3 * i + 2] = bitselect(x, y, as_float4(m));
    oi[2 * i + 0] = select(m, ~m, as_uint4(m) >> 1);
    oi[2 * i + 1] = bitselect(m, (int4)(0x0f0f0f0f), m >> 3);
    uchar16 u = as_uchar16(m);
    ouc[i] = select(u, (uchar16)(0xAA), as_char16(u ^ (uchar)0x80));
    os[2 * i + 0] = select(x.x, y.x, m.x);
    os[2 * i + 1] = bitselect(x.y, y.y, as_float(m.y));
    long2 l = as_long2(m);
    ol[i] = select(l, (long2)(-7, 7), l);
}
