/* Trigonometric built-ins, float.  One output buffer per function. */
__kernel void math_trig(__global const float *x, __global const float *u,
                        __global const float *y, __global const float *p,
                        __global float *o_sin, __global float *o_cos, __global float *o_tan,
                        __global float *o_asin, __global float *o_acos, __global float *o_atan,
                        __global float *o_atan2, __global float *o_sinpi,
                        __global float *o_cospi, __global float *o_tanpi,
                        __global float *o_asinpi, __global float *o_acospi,
                        __global float *o_atanpi, __global float *o_atan2pi,
                        __global float *o_sincos_s, __global float *o_sincos_c)
{
    size_t i = get_global_id(0);
    float a = x[i], v = u[i], b = y[i], q = p[i];
    o_sin[i] = sin(a);
    o_cos[i] = cos(a);
    o_tan[i] = tan(a);
    o_asin[i] = asin(v);
    o_acos[i] = acos(v);
    o_atan[i] = atan(a);
    o_atan2[i] = atan2(a, b);
    o_sinpi[i] = sinpi(q);
    o_cospi[i] = cospi(q);
    o_tanpi[i] = tanpi(q);
    o_asinpi[i] = asinpi(v);
    o_acospi[i] = acospi(v);
    o_atanpi[i] = atanpi(a);
    o_atan2pi[i] = atan2pi(a, b);
    o_sincos_s[i] = sincos(a, &o_sincos_c[i]);     /* the __global pointer overload */
}
