/* Operators on vectors, and between vectors and scalars (the scalar is
 * widened).  Comparisons and logical operators give -1 (all bits set) for
 * true and 0 for false in each component, as a signed integer vector of the
 * operands' element size. */
__kernel void vector_operators(__global const int4 *a4, __global const int4 *b4,
                               __global int4 *oi, __global const float4 *fa,
                               __global const float4 *fb, __global int4 *ocmp,
                               __global float4 *of, __global uchar16 *ouc,
                               __global short8 *os, __global long2 *ol)
{
    size_t i = get_global_id(0);
    int4 a = a4[i] & 0xffff, b = (b4[i] & 0xff) | 1;   /* small: no overflow; b odd, > 0 */
    oi[8 * i + 0] = a + b * 3 - (int4)(1, 2, 3, 4);
    oi[8 * i + 1] = a / b + a % b;
    oi[8 * i + 2] = (a & b) | (a ^ ~b);
    oi[8 * i + 3] = (a << 3) >> 2;
    oi[8 * i + 4] = -a + (+b);
    int4 c = a;
    c += b; c *= 2; c -= 1; c /= 3; c %= 7; c <<= 1; c >>= 1; c &= 0xff; c |= 0x100; c ^= b;
    oi[8 * i + 5] = c;
    int4 d = a;
    d++; ++d; d--;
    int4 e = d++;
    --d;
    oi[8 * i + 6] = e * 2 + d;
    oi[8 * i + 7] = 10 - a + 2 * b;

    float4 x = fa[i], y = fb[i];
    ocmp[8 * i + 0] = x < y;
    ocmp[8 * i + 1] = x <= y;
    ocmp[8 * i + 2] = x == y;
    ocmp[8 * i + 3] = x != y;
    ocmp[8 * i + 4] = x > 0.5f;
    ocmp[8 * i + 5] = !a;
    ocmp[8 * i + 6] = (a > b) && (x < y);
    ocmp[8 * i + 7] = (a > b) || (a == 0);
    of[2 * i + 0] = -x + y / 4.0f - 1.0f;
    of[2 * i + 1] = 2.0f * x - y;

    uchar16 u = as_uchar16(a4[i]);
    ouc[i] = u + u * (uchar)3 - (uchar)7 + as_uchar16(u > (uchar)128);
    short8 s = as_short8(b4[i]);
    os[i] = as_short8(as_ushort8(s) * (ushort)5) ^ (s >= (short)0);
    long2 l = (long2)((long)a.x * 100000, (long)b.y << 40);
    ol[i] = (l / (long)3) + (l == (long2)(0, 0)) + (l > 0);
}
