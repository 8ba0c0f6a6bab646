#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Every integer scalar type: +, -, *, /, %, bitwise operators, comparisons,
 * negation and conversions between them.  Signed overflow is undefined in
 * OpenCL C as in C, so signed +, -, * and negation go through the unsigned
 * type (which wraps); division avoids x / 0 and MIN / -1. */
#define OPS(T, U, out)                                                      \
    {                                                                       \
        T a = (T)x, b = (T)y;                                               \
        T d = b == (T)0 ? (T)1 : b;                                         \
        if (d == (T)-1) d = (T)3;                                           \
        __global T *o = out + 10 * i;                                       \
        o[0] = (T)((U)a + (U)b);                                            \
        o[1] = (T)((U)a - (U)b);                                            \
        o[2] = (T)((U)a * (U)b);                                            \
        o[3] = a / d;                                                       \
        o[4] = a % d;                                                       \
        o[5] = (a & b) | (~a ^ b);                                          \
        o[6] = (T)((a < b) + 2 * (a >= b) + 4 * (a == b) + 8 * (a != 0));   \
        o[7] = (T)(0 - (U)a);                                               \
        o[8] = (T)(!a + 2 * (a && b) + 4 * (a || b));                       \
        o[9] = (T)(a > (T)0 ? a : b);                                       \
    }

__kernel void scalar_types(__global const long *xs, __global const long *ys,
                           __global char *oc, __global uchar *ouc,
                           __global short *os, __global ushort *ous,
                           __global int *oi, __global uint *oui,
                           __global long *ol, __global ulong *oul,
                           __global float *of, __global double *od)
{
    size_t i = get_global_id(0);
    long x = xs[i], y = ys[i];
    OPS(char, uchar, oc)
    OPS(uchar, uchar, ouc)
    OPS(short, ushort, os)
    OPS(ushort, ushort, ous)
    OPS(int, uint, oi)
    OPS(uint, uint, oui)
    OPS(long, ulong, ol)
    OPS(ulong, ulong, oul)
    /* conversions between scalar types (C rules: integer to float rounds to
     * nearest, float to integer truncates; in range here) */
    int small = (int)(x & 0xFFFFF) - 0x80000;
    of[4 * i + 0] = (float)small;
    of[4 * i + 1] = (float)(uchar)x;
    of[4 * i + 2] = (float)(short)y / 4.0f;
    of[4 * i + 3] = (float)(int)((float)small * 0.5f);
    od[2 * i + 0] = (double)x;
    od[2 * i + 1] = (double)(float)small + (double)(ulong)y;
}
