/* Math built-ins on vectors of 2, 3, 4, 8 and 16 floats, and the overloads
 * that mix a vector with a scalar.  Each work-item takes a record of
 * 2+3+4+8+16 = 33 floats. */
#define EACH_WIDTH(F, src, dst)                                             \
    vstore2(F(vload2(0, src)), 0, dst);                                     \
    vstore3(F(vload3(0, src + 2)), 0, dst + 2);                             \
    vstore4(F(vload4(0, src + 5)), 0, dst + 5);                             \
    vstore8(F(vload8(0, src + 9)), 0, dst + 9);                             \
    vstore16(F(vload16(0, src + 17)), 0, dst + 17);

#define EXP_QUARTER(v) exp((v) * 0.25f)

__kernel void math_vector(__global const float *x, __global const float *y,
                          __global float *o_sin, __global float *o_exp, __global float *o_pow,
                          __global float *o_fmax, __global float *o_ldexp,
                          __global float *o_clamp)
{
    size_t i = get_global_id(0);
    __global const float *r = x + 33 * i;
    EACH_WIDTH(sin, r, o_sin + 33 * i)
    EACH_WIDTH(EXP_QUARTER, r, o_exp + 33 * i)
    float16 a = vload16(i, x), b = vload16(i, y);
    vstore16(pow(fabs(a), b * 0.5f), i, o_pow);
    vstore16(fmax(a, 0.5f), i, o_fmax);
    vstore16(ldexp(a, 3), i, o_ldexp);
    float3 c = clamp(a.s3c5, -1.0f, 1.0f) + clamp(a.s012, b.s012, b.s012 + 1.0f);
    vstore3(c, i, o_clamp);
}
