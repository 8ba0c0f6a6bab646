/* as_T: the same bits seen as another type of the same size (vectors of 3
 * and 4 components have the same size). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void as_type(__global const uint *in, __global int *oi, __global float *of,
                      __global uchar *ouc, __global ulong *oul)
{
    size_t i = get_global_id(0);
    uint b = in[i];
    float f = as_float(b);
    oi[4 * i + 0] = as_int(f);
    oi[4 * i + 1] = as_int(fabs(as_float(b & 0x7f7fffffu)));
    short2 s = as_short2(b);
    oi[4 * i + 2] = (int)s.x + (int)s.y;
    oi[4 * i + 3] = as_int(as_char4(b).wzyx);
    float4 v = as_float4((uint4)(b, b ^ 0x00ff00ffu, b & 0x3f7fffffu, b >> 1));
    of[4 * i + 0] = v.z;
    of[4 * i + 1] = as_float(as_int(v.w) + 1);
    float3 t = as_float3((int4)(0x3f800000, 0x40000000, (int)(b & 0x3fffffffu), 0));
    of[4 * i + 2] = t.x + t.y;
    of[4 * i + 3] = t.z;
    uchar4 c = as_uchar4(b);
    vstore4(c.wzyx, 0, ouc + 8 * i);
    vstore4(as_uchar4(as_float(b & 0x3f7fffffu) * 2.0f), 0, ouc + 8 * i + 4);
    double dd = as_double((uint2)(b, b & 0x3fefffffu));
    oul[2 * i + 0] = as_ulong(dd * 0.5);
    oul[2 * i + 1] = as_ulong(as_double(as_uint2((double)b)));
}
