/* Common built-ins: clamp, degrees, max, min, mix, radians, step,
 * smoothstep, sign; vector forms with scalar limits too. */
__kernel void common_fns(__global const float *x, __global const float *y,
                         __global const float *t, __global float *o_clamp,
                         __global float *o_degrees, __global float *o_radians,
                         __global float *o_max, __global float *o_min, __global float *o_mix,
                         __global float *o_step, __global float *o_smoothstep,
                         __global float *o_sign, __global float4 *o_vec)
{
    size_t i = get_global_id(0);
    float a = x[i], b = y[i], c = t[i];
    o_clamp[i] = clamp(a, -0.5f, 0.75f);
    o_degrees[i] = degrees(a);
    o_radians[i] = radians(a * 100.0f);
    o_max[i] = max(a, b);
    o_min[i] = min(a, b);
    o_mix[i] = mix(a, b, c);
    o_step[i] = step(b, a);
    o_smoothstep[i] = smoothstep(-0.5f, 0.5f, a);
    o_sign[i] = sign(a);
    float4 v = (float4)(a, b, c, -a);
    float4 w = (float4)(b, c, a, 0.25f);
    o_vec[i] = clamp(v, -0.25f, 0.25f) + step(0.1f, w) + max(v, 0.0f) + min(v, w);
}
