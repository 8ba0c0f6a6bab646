/* fma (one rounding) and mad (fma or a*b+c, each rounded). */
__kernel void math_fma_mad(__global const float *a, __global const float *b,
                           __global const float *c, __global float *o_fma,
                           __global float *o_mad, __global float4 *o_fma4)
{
    size_t i = get_global_id(0);
    o_fma[i] = fma(a[i], b[i], c[i]);
    o_mad[i] = mad(fabs(a[i]), fabs(b[i]), fabs(c[i]));
    float4 v = (float4)(a[i], b[i], c[i], 1.0f);
    o_fma4[i] = fma(v, v.yzwx, v.zwxy);
}
