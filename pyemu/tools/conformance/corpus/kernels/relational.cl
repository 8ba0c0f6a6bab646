/* Relational built-ins: scalars give 1 or 0, vectors -1 or 0 per
 * component; any and all look at the most significant bit. */
__kernel void relational(__global const float *x, __global const float *y,
                         __global int *o_s, __global int4 *o_v, __global int *o_anyall)
{
    size_t i = get_global_id(0);
    float a = x[i], b = y[i];
    __global int *s = o_s + 14 * i;
    s[0] = isequal(a, b);
    s[1] = isnotequal(a, b);
    s[2] = isgreater(a, b);
    s[3] = isgreaterequal(a, b);
    s[4] = isless(a, b);
    s[5] = islessequal(a, b);
    s[6] = islessgreater(a, b);
    s[7] = isfinite(a);
    s[8] = isinf(a);
    s[9] = isnan(a);
    s[10] = isnormal(a);
    s[11] = isordered(a, b);
    s[12] = isunordered(a, b);
    s[13] = signbit(a);
    float4 v = (float4)(a, b, -a, a * b);
    float4 w = (float4)(b, a, b, 1.0f);
    o_v[4 * i + 0] = isless(v, w) ^ isgreater(v, w);
    o_v[4 * i + 1] = isnan(v) | (isinf(v) << 1);
    o_v[4 * i + 2] = signbit(v) + isnormal(w);
    o_v[4 * i + 3] = isunordered(v, w) - isequal(v, w);
    int4 m = as_int4(v);
    short8 sh = as_short8(w);
    char16 c = as_char16(v);
    __global int *o = o_anyall + 8 * i;
    o[0] = any(m);
    o[1] = all(m);
    o[2] = any(sh);
    o[3] = all(sh);
    o[4] = any(c);
    o[5] = all(c);
    o[6] = any(m.x);
    o[7] = all(isless(v, (float4)(100.0f)));
}
