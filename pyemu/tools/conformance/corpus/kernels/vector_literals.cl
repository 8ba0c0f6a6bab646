/* Vector literals: one scalar for every component, and any mix of scalars
 * and vectors that adds up to the width. */
__kernel void vector_literals(__global const float4 *in, __global float4 *out4,
                              __global float8 *out8, __global float16 *out16,
                              __global int8 *outi8, __global uchar4 *outc, __global float3 *out3)
{
    size_t i = get_global_id(0);
    float4 a = in[i];
    float x = (float)i;
    out4[3 * i + 0] = (float4)(x);
    out4[3 * i + 1] = (float4)(a.xy, 3.0f, a.w);
    out4[3 * i + 2] = (float4)(x, (float2)(a.z, -x), 0.5f) * (float4)(2.0f);
    out8[i] = (float8)(a, a.wzyx);
    out16[i] = (float16)(a, (float4)(1.0f, 2.0f, 3.0f, 4.0f), (float8)(x));
    int4 iv = (int4)((int)i, 2, 3, -4);
    outi8[i] = (int8)(iv, iv.wzyx) + (int8)(1, 1, 1, 1, 2, 2, 2, 2);
    outc[i] = (uchar4)(1, 2, (uchar)i, 255);
    out3[i] = (float3)(a.x, (float2)(x)) + (float3)(1.0f);
}
