/* vloadn / vstoren from and to every address space: the element address is
 * p + n * offset, aligned to the element type only (vload3 reads 3
 * elements, unlike a float3 pointer). */
__constant float ctab[40] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39};

__kernel void vload_vstore(__global const float *in, __global float *out,
                           __constant int *cin, __global int *iout)
{
    __local float lbuf[64 * 33];
    size_t i = get_global_id(0);
    size_t lid = get_local_id(0);
    __global const float *p = in + 33 * i;
    float2 a = vload2(0, p);
    float3 b = vload3(0, p + 2);
    float3 b1 = vload3(1, p + 2);     /* elements 5..7 */
    float4 c = vload4(2, p + 1);      /* elements 9..12 */
    float8 d = vload8(0, p + 13);
    float16 e = vload16(1, p + 1);    /* elements 17..32 */

    vstore16(e, lid, lbuf);
    vstore8(d, 0, lbuf + 64 * 16 + 8 * lid);
    barrier(CLK_LOCAL_MEM_FENCE);
    float16 le = vload16(lid, lbuf);
    float8 ld = vload8(lid, lbuf + 64 * 16);

    float pm[12];
    vstore4(c, 0, pm);
    vstore3(b, 0, pm + 4);
    vstore3(b1, 1, pm + 4);          /* pm[7..9] */
    vstore2(a, 5, pm);               /* pm[10..11] */
    float4 pc = vload4(1, pm);
    float2 pa = vload2(5, pm);

    float3 k = vload3(i % 13, ctab);
    float4 k4 = vload4(0, ctab + (i % 9));

    __global float *q = out + 40 * i;
    vstore2(a + pa, 0, q);
    vstore3(b + b1 + k, 0, q + 2);
    vstore4(c + pc + k4, 0, q + 5);
    vstore8(d + ld, 0, q + 9);
    vstore16(e + le, 0, q + 17);
    vstore3(vload3(0, pm + 4), 1, q + 30);   /* q[33..35] */
    vstore4((float4)(pm[7], pm[8], pm[9], pm[10]), 0, q + 36);

    int4 t = vload4(i % 4, cin) + vload4(0, cin + 1);
    vstore4(t, i, iout);
}
