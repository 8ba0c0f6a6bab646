#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Vector types of every width (2, 3, 4, 8, 16) through pointers to them:
 * a T3 occupies the space of a T4 in memory (sizeof(float3) == 16). */
#define ROW(T, n, in, out)                                                  \
    {                                                                       \
        __global const T##n *src = (__global const T##n *)in;               \
        __global T##n *dst = (__global T##n *)out;                          \
        T##n a = src[2 * i], b = src[2 * i + 1];                            \
        dst[i] = a + b * (T)2;                                              \
    }

__kernel void vector_types(__global const float *fin, __global float *f2, __global float *f3,
                           __global float *f4, __global float *f8, __global float *f16,
                           __global const int *iin, __global int *i2, __global int *i3,
                           __global int *i4, __global int *i8, __global int *i16)
{
    size_t i = get_global_id(0);
    ROW(float, 2, fin, f2)
    ROW(float, 3, fin, f3)
    ROW(float, 4, fin, f4)
    ROW(float, 8, fin, f8)
    ROW(float, 16, fin, f16)
    ROW(int, 2, iin, i2)
    ROW(int, 3, iin, i3)
    ROW(int, 4, iin, i4)
    ROW(int, 8, iin, i8)
    ROW(int, 16, iin, i16)
}

/* The other integer element types at every width, through vloadn/vstoren
 * on a record of 2+3+4+8+16 elements per work-item. */
#define ALL(T, in, out)                                                     \
    {                                                                       \
        __global const T *s = in + 33 * i;                                  \
        __global T *d = out + 33 * i;                                       \
        T##2 v2 = vload2(0, s);                                             \
        T##3 v3 = vload3(0, s + 2);                                         \
        T##4 v4 = vload4(0, s + 5);                                         \
        T##8 v8 = vload8(0, s + 9);                                         \
        T##16 v16 = vload16(0, s + 17);                                     \
        vstore2((v2 & (T)15) * (T)3 + (v2 & (T)15), 0, d);                  \
        vstore3(v3 ^ (T)0x21, 0, d + 2);                                    \
        vstore4(v4 ^ (T)0x5a, 0, d + 5);                                    \
        vstore8(v8 | v8.s76543210, 0, d + 9);                               \
        vstore16(v16 & (T)0x3c, 0, d + 17);                                 \
    }

__kernel void vector_types_int(__global const char *c_in, __global char *c_out,
                               __global const uchar *uc_in, __global uchar *uc_out,
                               __global const short *s_in, __global short *s_out,
                               __global const ushort *us_in, __global ushort *us_out,
                               __global const uint *ui_in, __global uint *ui_out,
                               __global const long *l_in, __global long *l_out,
                               __global const ulong *ul_in, __global ulong *ul_out,
                               __global const double *d_in, __global double *d_out)
{
    size_t i = get_global_id(0);
    ALL(char, c_in, c_out)
    ALL(uchar, uc_in, uc_out)
    ALL(short, s_in, s_out)
    ALL(ushort, us_in, us_out)
    ALL(uint, ui_in, ui_out)
    ALL(long, l_in, l_out)
    ALL(ulong, ul_in, ul_out)
    {
        __global const double *s = d_in + 33 * i;
        __global double *d = d_out + 33 * i;
        vstore2(vload2(0, s) * 2.0, 0, d);
        vstore3(vload3(0, s + 2) + 1.0, 0, d + 2);
        vstore4(-vload4(0, s + 5), 0, d + 5);
        vstore8(vload8(0, s + 9).s76543210, 0, d + 9);
        vstore16(vload16(0, s + 17) - 0.5, 0, d + 17);
    }
}

/* sizeof and vec_step of every vector type; alignment of vectors. */
#define SZ(T) sizeof(T), sizeof(T##2), sizeof(T##3), sizeof(T##4), sizeof(T##8), sizeof(T##16)
#define VS(T) vec_step(T), vec_step(T##2), vec_step(T##3), vec_step(T##4), vec_step(T##8), \
              vec_step(T##16)
__constant uint sizes[] = {SZ(char), SZ(uchar), SZ(short), SZ(ushort), SZ(int), SZ(uint),
                           SZ(long), SZ(ulong), SZ(float), SZ(double)};
__constant uint steps[] = {VS(char), VS(uchar), VS(short), VS(ushort), VS(int), VS(uint),
                           VS(long), VS(ulong), VS(float), VS(double)};

__kernel void vector_sizeof(__global uint *out)
{
    size_t i = get_global_id(0);
    if (i < 60) {
        out[i] = sizes[i];
        out[60 + i] = steps[i];
    }
    if (i == 0) {
        out[120] = __alignof__(float3);
        out[121] = __alignof__(int16);
        out[122] = __alignof__(char2);
        out[123] = vec_step((float4)(1.0f));
    }
}
