/* The ternary operator with a vector condition selects per component: the
 * component of the second operand where the condition's component has its
 * most significant bit set (is -1 after a comparison), else the third's. */
__kernel void vector_ternary(__global const float4 *a, __global const float4 *b,
                             __global float4 *out, __global int8 *iout)
{
    size_t i = get_global_id(0);
    float4 x = a[i], y = b[i];
    out[i] = x > y ? x : y + 1.0f;
    int8 u = (int8)((int)i, -1, 2, -3, 4, -5, 6, -7);
    int8 v = (int8)(7);
    iout[i] = (u < (int8)(0)) ? u : v - u;
}
