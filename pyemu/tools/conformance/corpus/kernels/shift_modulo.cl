/* Shift counts: OpenCL C takes the count modulo the bit width of the
 * (promoted) left operand: 32 for char, short and int scalars (promoted to
 * int), 64 for long, and the element width for vectors (so a char4 shifts
 * by count % 8).  C leaves counts >= the width undefined. */
__kernel void shift_modulo(__global const int *xs, __global const uint *counts,
                           __global int *oi, __global long *ol, __global char4 *oc4,
                           __global short2 *os2, __global int4 *oi4, __global ulong2 *oul2)
{
    size_t i = get_global_id(0);
    int x = xs[i];
    uint c = counts[i];
    oi[6 * i + 0] = x << c;
    oi[6 * i + 1] = x >> c;
    oi[6 * i + 2] = (int)((uint)x >> c);
    oi[6 * i + 3] = (char)x << (c & 7);           /* char promoted: in range */
    oi[6 * i + 4] = (short)x >> c;
    oi[6 * i + 5] = (uchar)x << c;
    long lx = ((long)x << 32) | (uint)(x * 7);
    ol[2 * i + 0] = lx << c;
    ol[2 * i + 1] = lx >> c;
    char4 v = as_char4(x);
    oc4[2 * i + 0] = v << (char4)((char)c, (char)(c + 1), (char)(c + 2), (char)(c + 3));
    oc4[2 * i + 1] = v >> (char)c;
    short2 s = as_short2(x);
    os2[i] = (s << (short2)((short)c, (short)(c * 3))) ^ (s >> (short)c);
    int4 w = (int4)(x, ~x, x ^ 0x5555, -x);
    oi4[i] = (w << (int)c) ^ (w >> (int4)(c, c + 5, c + 17, c + 33));
    ulong2 u = (ulong2)((ulong)lx, ~(ulong)lx);
    oul2[i] = (u << (ulong)c) | (u >> (ulong2)(c, c + 40));
}
