/* Powers and roots, float. */
__kernel void math_pow(__global const float *x, __global const float *y, __global const int *k,
                       __global float *o_pow, __global float *o_pown, __global float *o_powr,
                       __global float *o_rootn, __global float *o_sqrt, __global float *o_rsqrt,
                       __global float *o_cbrt, __global float *o_hypot)
{
    size_t i = get_global_id(0);
    float a = x[i], b = y[i];
    int n = k[i];
    o_pow[i] = pow(a, b);
    o_pown[i] = pown(a, n);
    o_powr[i] = powr(fabs(a), b);
    o_rootn[i] = rootn(a, n == 0 ? 3 : n);
    o_sqrt[i] = sqrt(fabs(a));
    o_rsqrt[i] = rsqrt(fabs(a));
    o_cbrt[i] = cbrt(a);
    o_hypot[i] = hypot(a, b);
}
