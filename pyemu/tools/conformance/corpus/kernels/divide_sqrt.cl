/* Division, reciprocal and square root: 2.5, 2.5 and 3 ulp by default;
 * correctly rounded with -cl-fp32-correctly-rounded-divide-sqrt. */
__kernel void divide_sqrt(__global const float *x, __global const float *y,
                          __global float *o_div, __global float *o_recip,
                          __global float *o_sqrt, __global float4 *o_div4)
{
    size_t i = get_global_id(0);
    float a = x[i], b = y[i];
    o_div[i] = a / b;
    o_recip[i] = 1.0f / b;
    o_sqrt[i] = sqrt(fabs(a));
    o_div4[i] = (float4)(a, b, -a, 1.0f) / (float4)(b, a, 3.0f, b);
}
