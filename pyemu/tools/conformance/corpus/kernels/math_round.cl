/* Rounding, sign and decomposition built-ins, float: all exact. */
__kernel void math_round(__global const float *x, __global const float *y, __global const int *k,
                         __global float *o_ceil, __global float *o_floor, __global float *o_round,
                         __global float *o_rint, __global float *o_trunc, __global float *o_fabs,
                         __global float *o_copysign, __global float *o_fract,
                         __global float *o_fract_i, __global float *o_modf,
                         __global float *o_modf_i, __global float *o_frexp,
                         __global int *o_frexp_e, __global float *o_ldexp, __global float *o_nan)
{
    size_t i = get_global_id(0);
    float a = x[i];
    o_ceil[i] = ceil(a);
    o_floor[i] = floor(a);
    o_round[i] = round(a);
    o_rint[i] = rint(a);
    o_trunc[i] = trunc(a);
    o_fabs[i] = fabs(a);
    o_copysign[i] = copysign(a, y[i]);
    float ip;
    o_fract[i] = fract(a, &ip);
    o_fract_i[i] = ip;
    o_modf[i] = modf(a, &o_modf_i[i]);
    int e;
    o_frexp[i] = frexp(a, &e);
    o_frexp_e[i] = e;
    o_ldexp[i] = ldexp(a, k[i]);
    o_nan[i] = isnan(nan((uint)i)) ? 1.0f : 0.0f;
}
