/* Exponentials and logarithms, float. */
__kernel void math_exp_log(__global const float *e, __global const float *l,
                           __global const float *m,
                           __global float *o_exp, __global float *o_exp2, __global float *o_exp10,
                           __global float *o_expm1, __global float *o_log, __global float *o_log2,
                           __global float *o_log10, __global float *o_log1p,
                           __global float *o_logb, __global int *o_ilogb)
{
    size_t i = get_global_id(0);
    float a = e[i], b = l[i];
    o_exp[i] = exp(a);
    o_exp2[i] = exp2(a * 1.4f);
    o_exp10[i] = exp10(a * 0.4f);
    o_expm1[i] = expm1(a);
    o_log[i] = log(b);
    o_log2[i] = log2(b);
    o_log10[i] = log10(b);
    o_log1p[i] = log1p(m[i]);
    o_logb[i] = logb(b);
    /* ilogb(0) and ilogb(NaN) are the implementation's FP_ILOGB0 and
     * FP_ILOGBNAN: check that they are */
    int ex = ilogb(b);
    o_ilogb[i] = b == 0.0f ? ex == FP_ILOGB0 : isnan(b) ? ex == FP_ILOGBNAN : ex;
}
