/* Integer built-ins on bits and wide products: clz, popcount, rotate,
 * upsample, mul_hi, mad_hi, mul24, mad24. */
__kernel void int_bits(__global const uint *a, __global const uint *b, __global const ulong *la,
                       __global const ulong *lb, __global uint *o_u, __global int *o_i,
                       __global ulong *o_ul, __global long *o_l, __global uchar *o_c,
                       __global ushort *o_s)
{
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i];
    int sx = (int)x, sy = (int)y;
    ulong lx = la[i], ly = lb[i];
    __global uint *u = o_u + 8 * i;
    u[0] = clz(x);
    u[1] = popcount(x);
    u[2] = rotate(x, y);
    u[3] = mul_hi(x, y);
    u[4] = mad_hi(x, y, x);
    /* 24-bit operands whose product fits in 32 bits (else implementation-defined) */
    u[5] = mul24(x & 0xffffffu, y & 0xffu);
    u[6] = mad24(x & 0xffffffu, y & 0xffu, y);
    u[7] = upsample((ushort)x, (ushort)y);
    __global int *s = o_i + 8 * i;
    s[0] = clz(sx);
    s[1] = popcount(sx);
    s[2] = rotate(sx, sy);
    s[3] = mul_hi(sx, sy);
    s[4] = mad_hi(sx, sy, sx >> 1);
    int x24 = (int)(x << 8) >> 8, y8 = (int)(y << 24) >> 24;   /* sign-extended */
    s[5] = mul24(x24, y8);
    s[6] = mad24(x24, y8, sx >> 2);
    s[7] = upsample((short)sx, (ushort)sy);
    __global ulong *ul = o_ul + 5 * i;
    ul[0] = clz(lx);
    ul[1] = popcount(lx);
    ul[2] = rotate(lx, ly);
    ul[3] = mul_hi(lx, ly);
    ul[4] = upsample(x, y);
    __global long *l = o_l + 4 * i;
    l[0] = mul_hi((long)lx, (long)ly);
    l[1] = mad_hi((long)lx, (long)ly, (long)lx >> 1);
    l[2] = rotate((long)lx, (long)(ly & 127));
    l[3] = upsample(sx, y);
    uchar4 c = as_uchar4(x);
    uchar4 d = as_uchar4(y);
    vstore4(clz(c), 0, o_c + 16 * i);
    vstore4(popcount(c), 1, o_c + 16 * i);
    vstore4(rotate(c, d), 2, o_c + 16 * i);
    vstore4(mul_hi(c, d), 3, o_c + 16 * i);
    ushort2 e = as_ushort2(x), f = as_ushort2(y);
    vstore2(clz(e), 0, o_s + 8 * i);
    vstore2(rotate(e, f), 1, o_s + 8 * i);
    vstore2(mad_hi(e, f, e), 2, o_s + 8 * i);
    vstore2(upsample(as_uchar4(e).lo, as_uchar4(f).hi), 3, o_s + 8 * i);
}
