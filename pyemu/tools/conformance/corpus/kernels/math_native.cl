/* native_* built-ins: implementation-defined accuracy (see bounds.py). */
__kernel void math_native(__global const float *x, __global const float *p,
                          __global const float *y,
                          __global float *o_sin, __global float *o_cos, __global float *o_tan,
                          __global float *o_exp, __global float *o_exp2, __global float *o_exp10,
                          __global float *o_log, __global float *o_log2, __global float *o_log10,
                          __global float *o_sqrt, __global float *o_rsqrt, __global float *o_recip,
                          __global float *o_divide, __global float *o_powr)
{
    size_t i = get_global_id(0);
    float a = x[i], b = p[i], c = y[i];
    o_sin[i] = native_sin(a);
    o_cos[i] = native_cos(a);
    o_tan[i] = native_tan(a * 0.125f);
    o_exp[i] = native_exp(a * 0.5f);
    o_exp2[i] = native_exp2(a);
    o_exp10[i] = native_exp10(a * 0.25f);
    o_log[i] = native_log(b);
    o_log2[i] = native_log2(b);
    o_log10[i] = native_log10(b);
    o_sqrt[i] = native_sqrt(b);
    o_rsqrt[i] = native_rsqrt(b);
    o_recip[i] = native_recip(c);
    o_divide[i] = native_divide(a, c);
    o_powr[i] = native_powr(b, a * 0.1f);
}
