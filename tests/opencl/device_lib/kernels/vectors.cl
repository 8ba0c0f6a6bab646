// Vector types, literals, swizzles on both sides, conversions, vload/vstore.
__constant float4 k_scale = (float4)(1.0f, 2.0f, 3.0f, 4.0f);

__kernel void vectors(__global const float4 *in, __global float4 *out, __global int4 *masks,
                      __global uchar4 *bytes, __global float *flat, __local float4 *scratch)
{
    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);
    float4 v = in[gid];
    float4 w = (float4)(v.xy, 0.5f, v.w) * k_scale + 2.0f;
    w.xy = v.zw;
    w.s13 = (float2)(w.s0, 1.0f);
    w.even += w.odd;
    float8 e = (float8)(v, w);
    float4 f = e.lo + e.hi;
    f.hi = f.lo.yx;
    float16 big = (float16)(e, e.s76543210);
    f += big.hi.lo + (float4)(big.sF);
    scratch[lid] = f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 g = scratch[(lid + 1) % get_local_size(0)];
    int4 m = g > f;
    masks[gid] = select(m, (int4)(-1), isnan(g));
    float4 h = select(f, g, m);
    out[gid] = h * 0.5f - 1.0f / (1.0f + fabs(h));
    bytes[gid] = convert_uchar4_sat_rte(h * 255.0f);
    vstore4(vload4(gid, flat) + (float4)(1), gid, flat);
    int3 i3 = convert_int3_rtz(h.xyz);
    i3.zx = i3.xz << 1;
    if (any(i3 < 0) || all(as_int4(h) == 0))
        masks[gid].w = vec_step(i3) + i3.y;
    double2 d = convert_double2(h.lo);
    masks[gid].x += (int)(d.x > d.y);
}
