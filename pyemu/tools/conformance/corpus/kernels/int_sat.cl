/* Integer built-ins with saturation and averaging, on every integer type
 * (as 4-component vectors, and scalars): abs, abs_diff, add_sat, sub_sat,
 * hadd, rhadd, mad_sat, clamp, max, min. */
#define INT_SAT(T, UT, in_a, in_b, in_c, out, uout)                         \
    {                                                                       \
        T##4 a = vload4(i, in_a), b = vload4(i, in_b), c = vload4(i, in_c); \
        __global T *o = out + 36 * i;                                       \
        vstore4(add_sat(a, b), 0, o);                                       \
        vstore4(sub_sat(a, b), 1, o);                                       \
        vstore4(hadd(a, b), 2, o);                                          \
        vstore4(rhadd(a, b), 3, o);                                         \
        vstore4(mad_sat(a, b, c), 4, o);                                    \
        vstore4(clamp(a, min(b, c), max(b, c)), 5, o);                      \
        vstore4(max(a, b), 6, o);                                           \
        vstore4(min(a, c.s0), 7, o);                                        \
        o[32] = add_sat(a.s0, b.s0);                                        \
        o[33] = sub_sat(a.s1, c.s1);                                        \
        o[34] = mad_sat(a.s2, b.s2, c.s2);                                  \
        o[35] = clamp(a.s3, (T)5, (T)100);                                  \
        vstore4(abs(a), i, uout);                                           \
        vstore4(abs_diff(a, b), i, uout + 4 * get_global_size(0));          \
    }

__kernel void int_sat(__global const char *c_a, __global const char *c_b, __global const char *c_c,
                      __global char *c_o, __global uchar *c_u,
                      __global const uchar *uc_a, __global const uchar *uc_b,
                      __global const uchar *uc_c, __global uchar *uc_o, __global uchar *uc_u,
                      __global const short *s_a, __global const short *s_b,
                      __global const short *s_c, __global short *s_o, __global ushort *s_u,
                      __global const ushort *us_a, __global const ushort *us_b,
                      __global const ushort *us_c, __global ushort *us_o, __global ushort *us_u,
                      __global const int *i_a, __global const int *i_b, __global const int *i_c,
                      __global int *i_o, __global uint *i_u,
                      __global const uint *ui_a, __global const uint *ui_b,
                      __global const uint *ui_c, __global uint *ui_o, __global uint *ui_u,
                      __global const long *l_a, __global const long *l_b,
                      __global const long *l_c, __global long *l_o, __global ulong *l_u,
                      __global const ulong *ul_a, __global const ulong *ul_b,
                      __global const ulong *ul_c, __global ulong *ul_o, __global ulong *ul_u)
{
    size_t i = get_global_id(0);
    INT_SAT(char, uchar, c_a, c_b, c_c, c_o, c_u)
    INT_SAT(uchar, uchar, uc_a, uc_b, uc_c, uc_o, uc_u)
    INT_SAT(short, ushort, s_a, s_b, s_c, s_o, s_u)
    INT_SAT(ushort, ushort, us_a, us_b, us_c, us_o, us_u)
    INT_SAT(int, uint, i_a, i_b, i_c, i_o, i_u)
    INT_SAT(uint, uint, ui_a, ui_b, ui_c, ui_o, ui_u)
    INT_SAT(long, ulong, l_a, l_b, l_c, l_o, l_u)
    INT_SAT(ulong, ulong, ul_a, ul_b, ul_c, ul_o, ul_u)
}
