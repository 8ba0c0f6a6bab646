/* Two-argument built-ins, float: all exact. */
__kernel void math_binary(__global const float *x, __global const float *y,
                          __global float *o_fdim, __global float *o_fmax, __global float *o_fmin,
                          __global float *o_fmod, __global float *o_nextafter,
                          __global float *o_remainder, __global float *o_remquo,
                          __global int *o_remquo_q, __global float *o_maxmag,
                          __global float *o_minmag)
{
    size_t i = get_global_id(0);
    float a = x[i], b = y[i];
    o_fdim[i] = fdim(a, b);
    o_fmax[i] = fmax(a, b);
    o_fmin[i] = fmin(a, b);
    o_fmod[i] = fmod(a, b);
    o_nextafter[i] = nextafter(a, b);
    o_remainder[i] = remainder(a, b);
    int q;
    float r = remquo(a, b, &q);
    o_remquo[i] = r;
    /* the quotient's sign and its 7 low bits are specified (more may be
     * given); nothing is when the result is NaN */
    o_remquo_q[i] = isnan(r) ? 0 : q < 0 ? -((-q) & 127) : q & 127;
    o_maxmag[i] = maxmag(a, b);
    o_minmag[i] = minmag(a, b);
}
