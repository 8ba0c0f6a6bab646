/* convert_T with rounding modes: _rte (to nearest even), _rtz (toward 0),
 * _rtp (toward +inf), _rtn (toward -inf).  Defaults: float to integer is
 * _rtz, integer or double to float is _rte. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void convert_round(__global const float *f, __global const int *n,
                            __global const long *l, __global const double *d,
                            __global int *oi, __global float *of)
{
    size_t i = get_global_id(0);
    float x = f[i];
    oi[10 * i + 0] = convert_int(x);
    oi[10 * i + 1] = convert_int_rte(x);
    oi[10 * i + 2] = convert_int_rtz(x);
    oi[10 * i + 3] = convert_int_rtp(x);
    oi[10 * i + 4] = convert_int_rtn(x);
    oi[10 * i + 5] = convert_int_sat_rte(x * 1e6f);
    oi[10 * i + 6] = convert_int_sat_rtp(x * 1e8f);
    int4 r = convert_int4_rtn((float4)(x, -x, x * 0.5f, x + 0.5f));
    oi[10 * i + 7] = r.x + 1000 * r.y;
    oi[10 * i + 8] = r.z + 1000 * r.w;
    oi[10 * i + 9] = (int)convert_short_sat_rtn(x * 1000.0f);

    int k = n[i];
    uint u = (uint)k;
    long m = l[i];
    double y = d[i];
    of[16 * i + 0] = convert_float(k);
    of[16 * i + 1] = convert_float_rte(k);
    of[16 * i + 2] = convert_float_rtz(k);
    of[16 * i + 3] = convert_float_rtp(k);
    of[16 * i + 4] = convert_float_rtn(k);
    of[16 * i + 5] = convert_float_rtz(u);
    of[16 * i + 6] = convert_float_rtp(u);
    of[16 * i + 7] = convert_float_rtn(m);
    of[16 * i + 8] = convert_float_rtp(m);
    of[16 * i + 9] = convert_float(y);
    of[16 * i + 10] = convert_float_rtz(y);
    of[16 * i + 11] = convert_float_rtp(y);
    of[16 * i + 12] = convert_float_rtn(y);
    float4 v = convert_float4_rtz((int4)(k, k >> 3, -k, k ^ 0x12345));
    of[16 * i + 13] = v.x + v.y - v.y;
    of[16 * i + 14] = convert_float((ulong)m);
    of[16 * i + 15] = v.w;
}
