/* convert_T_sat: out-of-range values clamp to the type's range, NaN becomes
 * 0; without _sat, integer to integer conversion wraps (keeps the low bits). */
__kernel void convert_sat(__global const float *f, __global const int *n, __global const long *l,
                          __global uchar *ouc, __global char *oc, __global ushort *ous,
                          __global short *os, __global int *oi, __global uint *oui,
                          __global long *ol, __global ulong *oul, __global uchar *wrap)
{
    size_t i = get_global_id(0);
    float x = f[i];
    int k = n[i];
    long m = l[i];
    ouc[3 * i + 0] = convert_uchar_sat(x);
    ouc[3 * i + 1] = convert_uchar_sat(k);
    ouc[3 * i + 2] = convert_uchar_sat(m);
    oc[3 * i + 0] = convert_char_sat(x);
    oc[3 * i + 1] = convert_char_sat(k);
    oc[3 * i + 2] = convert_char_sat((uint)k);
    ous[2 * i + 0] = convert_ushort_sat(x);
    ous[2 * i + 1] = convert_ushort_sat(k);
    os[2 * i + 0] = convert_short_sat(x);
    os[2 * i + 1] = convert_short_sat(m);
    oi[3 * i + 0] = convert_int_sat(x);
    oi[3 * i + 1] = convert_int_sat(m);
    oi[3 * i + 2] = convert_int_sat((uint)k);
    oui[3 * i + 0] = convert_uint_sat(x);
    oui[3 * i + 1] = convert_uint_sat(k);
    oui[3 * i + 2] = convert_uint_sat(m);
    ol[2 * i + 0] = convert_long_sat(x);
    ol[2 * i + 1] = convert_long_sat((ulong)m);
    oul[2 * i + 0] = convert_ulong_sat(x);
    oul[2 * i + 1] = convert_ulong_sat(m);
    /* vectors, and wrapping without _sat */
    int4 k4 = (int4)(k, -k, k >> 8, k >> 20);
    vstore4(convert_uchar4_sat(k4), 0, wrap + 16 * i);
    vstore4(convert_uchar4(k4), 0, wrap + 16 * i + 4);
    vstore8(as_uchar8(convert_char8_sat((float8)(x, -x, x * 0.01f, 1e10f, -1e10f, 127.5f, -128.5f, x + 0.5f))),
            0, wrap + 16 * i + 8);
}
