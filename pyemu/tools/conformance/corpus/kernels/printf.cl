/* printf: conversions, flags, widths, precisions, string literals, and the
 * vector specifier %vn with its length modifiers (hh, h, hl, l). */
__kernel void printf_formats(__global const int *ints, __global const float *floats,
                             __global int *ret)
{
    int i = get_global_id(0);
    int k = ints[i];
    float f = floats[i];
    ret[i] = printf("wi %d: d=%d i=%i u=%u x=%x X=%X o=%o c=%c s=%s %%\n", i, k, -k,
                    (uint)k, k, (uint)k * 3u, k & 0777, 'a' + i % 26, "literal");
    printf("wi %d: f=%f .2f=%.2f e=%e E=%.3E g=%g G=%G a=%a\n", i, f, f, f, f, f * 1e-5f,
           f * 1e10f, 1.0f);
    printf("wi %d: |%5d|%-5d|%05d|%+d|% d|%8.3f|%-8.2f|%10s|%-10s|\n", i, k % 1000, k % 1000,
           k % 1000, k % 1000, k % 1000, f, f, "right", "left");
    printf("wi %d: ld=%ld lu=%lu lx=%lx hd=%hd hhd=%hhd\n", i, (long)k * 100000L,
           (ulong)k * 3000000000UL, (ulong)k << 20, (short)k, (char)k);
}

__kernel void printf_vectors(__global const float4 *v, __global const int4 *w)
{
    int i = get_global_id(0);
    float4 a = v[i];
    int4 b = w[i];
    printf("wi %d: v4hlf=%v4hlf v2hlf=%v2hlf v4hld=%v4hld v2hlx=%v2hlx\n", i, a, a.xy, b,
           as_uint2(b.zw));
    printf("wi %d: v4hhd=%v4hhd v8hd=%v8hd v2ld=%v2ld v3hlf=%.1v3hlf\n", i,
           convert_char4(b & 127), convert_short8((int8)(b, b * 2)), convert_long2(b.xy) * 1000000L,
           a.xyz);
}
