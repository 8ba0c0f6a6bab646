// Math, common, geometric, integer and relational built-ins on scalars and vectors.
__kernel void builtins(__global float *fo, __global int *io, __global uint *uo, __global const float *x)
{
    int i = (int)get_global_id(0);
    float a = x[i];
    float4 v = (float4)(a, a + 1.0f, a * 2.0f, -a);
    float ip;
    float2 ip2;
    int e;
    int4 e4;
    float c;
    float3 c3;
    int q;
    fo[i] = sin(a) + cos(a) + tan(a) + asin(0.5f) + acos(0.5f) + atan(a) + atan2(a, 2.0f)
          + sinpi(a) + cospi(a) + tanpi(a / 3.0f) + asinpi(0.5f) + acospi(0.5f) + atanpi(a) + atan2pi(a, 1.0f)
          + sinh(a) + cosh(a) + tanh(a) + asinh(a) + acosh(a + 2.0f) + atanh(0.5f)
          + exp(a) + exp2(a) + exp10(a) + expm1(a) + log(a + 2.0f) + log2(a + 2.0f) + log10(a + 2.0f)
          + log1p(a) + logb(a + 2.0f) + sqrt(fabs(a)) + rsqrt(a + 2.0f) + cbrt(a) + pow(2.0f, a)
          + pown(a, 3) + powr(2.0f, a) + rootn(8.0f, 3) + hypot(a, 1.0f) + fmod(a, 0.7f) + remainder(a, 0.7f)
          + remquo(a, 0.7f, &q) + fract(a, &ip) + modf(a, &ip) + frexp(a, &e) + ldexp(a, 2) + (float)ilogb(a + 2.0f)
          + sincos(a, &c) + lgamma(a + 3.0f) + lgamma_r(a + 3.0f, &e) + tgamma(a + 3.0f) + erf(a) + erfc(a)
          + ceil(a) + floor(a) + round(a) + rint(a) + trunc(a) + copysign(a, -1.0f) + fdim(a, 1.0f)
          + fmax(a, 0.0f) + fmin(a, 0.0f) + fma(a, 2.0f, 1.0f) + mad(a, 2.0f, 1.0f) + maxmag(a, -2.0f) + minmag(a, -2.0f)
          + nextafter(a, 0.0f) + nan(0u) * 0.0f + native_sin(a) + native_cos(a) + native_exp(a) + native_log(a + 2.0f)
          + native_sqrt(a + 2.0f) + native_rsqrt(a + 2.0f) + native_divide(a, 3.0f) + native_recip(a + 2.0f)
          + native_powr(2.0f, a) + native_tan(a) + native_exp2(a) + native_exp10(a) + native_log2(a + 2.0f)
          + native_log10(a + 2.0f) + half_sin(a) + half_cos(a) + half_exp(a) + half_log(a + 2.0f) + half_sqrt(a + 2.0f)
          + half_rsqrt(a + 2.0f) + half_divide(a, 3.0f) + half_recip(a + 2.0f) + half_powr(2.0f, a) + half_tan(a)
          + clamp(a, 0.0f, 1.0f) + degrees(a) + radians(a) + max(a, 1.0f) + min(a, 1.0f) + mix(a, 1.0f, 0.5f)
          + step(0.5f, a) + smoothstep(0.0f, 1.0f, a) + sign(a)
          + dot(v, v) + length(v) + distance(v, v.wzyx) + fast_length(v.xy) + fast_distance(a, 1.0f)
          + normalize(v).x + fast_normalize(v.xyz).y + cross(v.xyz, v.zxy).z + cross(v, v.yzxw).x
          + sin(v).x + pow(v, 2.0f).y + fmax(v, 0.5f).z + clamp(v, 0.0f, 1.0f).w + mix(v, v.wzyx, 0.25f).x
          + fract(v.xy, &ip2).x + frexp(v, &e4).y + sincos(v.xyz, &c3).z + ldexp(v, 1).w
          + sqrt(M_PI_F) + MAXFLOAT * 0.0f + HUGE_VALF * 0.0f + (float)(INFINITY > 0) + M_E_F + M_SQRT2_F;
    int b = i - 3;
    uint u = (uint)i * 2654435761u;
    int4 iv = (int4)(b, -b, b * 7, 1 << (i & 31));
    io[i] = (int)abs(b) + (int)abs_diff(b, 5) + add_sat(b, INT_MAX) + sub_sat(b, INT_MIN) + hadd(b, 7) + rhadd(b, 7)
          + clamp(b, -1, 1) + clz(b) + popcount(b) + mad_hi(b, 3, 1) + mad_sat(b, b, 1) + max(b, 0) + min(b, 0)
          + mul_hi(b, 1 << 30) + rotate(b, 3) + mad24(b, 3, 1) + mul24(b, 5) + (int)upsample((short)b, (ushort)3)
          + isequal(a, 1.0f) + isnotequal(a, 1.0f) + isgreater(a, 1.0f) + isless(a, 1.0f) + isnan(a) + isinf(a)
          + isfinite(a) + isnormal(a) + signbit(a) + isordered(a, a) + isunordered(a, a) + islessgreater(a, 0.0f)
          + any(iv) + all(iv) + select(1, 2, b) + bitselect(b, 5, 3)
          + any(isnan(v)) + all(isless(v, 10.0f)) + select(iv, iv.wzyx, iv > 0).x + clz(iv).y + popcount(iv).z
          + abs(iv).w + (int)abs_diff(iv, 3).x + add_sat(iv, 1).y + rotate(iv, (int4)(1)).z + max(iv, 2).w;
    uo[i] = u + clz(u) + popcount(u) + rotate(u, 7u) + mul_hi(u, u) + mad_sat(u, u, u) + add_sat(u, u)
          + (uint)upsample((ushort)u, (ushort)1) + abs(u) + abs_diff(u, 7u) + hadd(u, u) + (uint)ctz(u | 1u);
}
