#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Vector and scalar kernel arguments passed by value. */
__kernel void vector_args(__global const float4 *in, __global float4 *out,
                          __global int2 *iout, const float4 scale, const int2 shift,
                          const uchar k, const short s, const ulong big, const double d)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * scale + (float4)((float)k, (float)s, (float)(big >> 40), (float)d);
    iout[i] = shift * (int)i + (int2)((int)(big & 0xffff), (int)k);
}
