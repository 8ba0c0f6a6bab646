/* Vector components: .xyzw, .s0-.sF (either case), .lo/.hi/.even/.odd, and
 * swizzles on both sides of an assignment. */
__kernel void swizzles(__global const float4 *in4, __global const float16 *in16,
                       __global float4 *out4, __global float16 *out16,
                       __global float2 *out2, __global float8 *out8, __global float3 *out3,
                       __global int4 *outi)
{
    size_t i = get_global_id(0);
    float4 v = in4[i];
    float16 w = in16[i];

    float4 r = v.wzyx;
    r.xy = v.zw;
    r.s3 = w.sF;
    r.z = w.sa + w.SB;
    out4[2 * i] = r;
    float4 t = v;
    t.hi = v.lo;
    t.odd = (float2)(w.s7, w.s9);
    t.s20 = v.yy;
    out4[2 * i + 1] = t;

    float16 q = w;
    q.s0123 = v;
    q.hi = w.lo;
    q.odd = w.even * 2.0f;
    q.sCdEf = v.xxyy;
    out16[i] = q;

    out2[4 * i + 0] = v.lo + v.hi;
    out2[4 * i + 1] = v.even - v.odd;
    out2[4 * i + 2] = w.s5a;
    out2[4 * i + 3] = v.lo.yx;

    float8 e = w.s02468ace;
    e.s7 = w.hi.lo.s0;
    e.lo.hi = w.odd.lo.lo;
    out8[2 * i] = e;
    out8[2 * i + 1] = w.hi + w.lo.s76543210;

    float3 p = v.xyz;
    p.zx = v.ww;
    p.y = p.x + p.z;
    out3[i] = p;

    int4 k = (int4)(1, 2, 3, 4);
    k.xw = k.wx;
    k.yz += (int2)(10);
    k.s1 = k.s0 * k.s3;
    k.s23 = k.s32;
    outi[i] = k + (int)i;
}
