/* Geometric built-ins on float, float2, float3 and float4. */
__kernel void geometric(__global const float4 *p, __global const float4 *q,
                        __global float *o_dot, __global float4 *o_cross4,
                        __global float *o_cross3, __global float *o_length,
                        __global float *o_distance, __global float4 *o_normalize,
                        __global float *o_fast_length, __global float *o_fast_distance,
                        __global float4 *o_fast_normalize)
{
    size_t i = get_global_id(0);
    float4 a = p[i], b = q[i];
    o_dot[4 * i + 0] = dot(a.x, b.x);
    o_dot[4 * i + 1] = dot(a.xy, b.xy);
    o_dot[4 * i + 2] = dot(a.xyz, b.xyz);
    o_dot[4 * i + 3] = dot(a, b);
    o_cross4[i] = cross(a, b);
    vstore3(cross(a.xyz, b.zxy), i, o_cross3);
    o_length[4 * i + 0] = length(a.x);
    o_length[4 * i + 1] = length(a.xy);
    o_length[4 * i + 2] = length(a.xyz);
    o_length[4 * i + 3] = length(a);
    o_distance[4 * i + 0] = distance(a.x, b.x);
    o_distance[4 * i + 1] = distance(a.xy, b.xy);
    o_distance[4 * i + 2] = distance(a.xyz, b.xyz);
    o_distance[4 * i + 3] = distance(a, b);
    o_normalize[i] = normalize(a);
    o_fast_length[i] = fast_length(a);
    o_fast_distance[i] = fast_distance(a, b);
    o_fast_normalize[i] = fast_normalize(a);
}
