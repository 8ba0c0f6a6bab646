/* half_* built-ins: implementation-defined accuracy (see bounds.py). */
__kernel void math_half(__global const float *x, __global const float *p,
                          __global const float *y,
                          __global float *o_sin, __global float *o_cos, __global float *o_tan,
                          __global float *o_exp, __global float *o_exp2, __global float *o_exp10,
                          __global float *o_log, __global float *o_log2, __global float *o_log10,
                          __global float *o_sqrt, __global float *o_rsqrt, __global float *o_recip,
                          __global float *o_divide, __global float *o_powr)
{
    size_t i = get_global_id(0);
    float a = x[i], b = p[i], c = y[i];
    o_sin[i] = half_sin(a);
    o_cos[i] = half_cos(a);
    o_tan[i] = half_tan(a * 0.125f);
    o_exp[i] = half_exp(a * 0.5f);
    o_exp2[i] = half_exp2(a);
    o_exp10[i] = half_exp10(a * 0.25f);
    o_log[i] = half_log(b);
    o_log2[i] = half_log2(b);
    o_log10[i] = half_log10(b);
    o_sqrt[i] = half_sqrt(b);
    o_rsqrt[i] = half_rsqrt(b);
    o_recip[i] = half_recip(c);
    o_divide[i] = half_divide(a, c);
    o_powr[i] = half_powr(b, a * 0.1f);
}
