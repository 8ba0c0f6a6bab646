/* Error and gamma functions, float. */
__kernel void math_special(__global const float *x, __global const float *g,
                           __global float *o_erf, __global float *o_erfc,
                           __global float *o_tgamma, __global float *o_lgamma,
                           __global float *o_lgamma_r, __global int *o_lgamma_sign)
{
    size_t i = get_global_id(0);
    float a = x[i], b = g[i];
    o_erf[i] = erf(a);
    o_erfc[i] = erfc(a);
    o_tgamma[i] = tgamma(b);
    o_lgamma[i] = lgamma(b);
    int s;
    o_lgamma_r[i] = lgamma_r(b, &s);
    o_lgamma_sign[i] = s;
}
