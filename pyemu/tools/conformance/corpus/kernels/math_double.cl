/* Math built-ins in double precision (cl_khr_fp64). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void math_double(__global const double *x, __global const double *y,
                          __global double *o_div, __global double *o_sqrt,
                          __global double *o_sin, __global double *o_cos, __global double *o_exp,
                          __global double *o_log, __global double *o_pow,
                          __global double *o_atan2, __global double *o_fma,
                          __global double *o_floor, __global double4 *o_vec)
{
    size_t i = get_global_id(0);
    double a = x[i], b = y[i];
    o_div[i] = a / b;
    o_sqrt[i] = sqrt(fabs(a));
    o_sin[i] = sin(a);
    o_cos[i] = cos(a);
    o_exp[i] = exp(a * 0.01);
    o_log[i] = log(fabs(a));
    o_pow[i] = pow(fabs(a), b * 0.1);
    o_atan2[i] = atan2(a, b);
    o_fma[i] = fma(a, b, -a);
    o_floor[i] = floor(a) + ceil(b);
    double4 v = (double4)(a, b, a * 0.5, b * 0.25);
    o_vec[i] = fmax(v, v.wzyx) + rint(v);
}
