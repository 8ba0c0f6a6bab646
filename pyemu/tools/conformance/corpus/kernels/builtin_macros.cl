/* Predefined macros and the constants of <float.h>, <limits.h> and the math
 * constants M_*_F, as values (built with -cl-std=CL1.2). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void builtin_macros(__global int *o, __global float *f, __global long *l)
{
    if (get_global_id(0) != 0)
        return;
    int k = 0;
    o[k++] = __OPENCL_C_VERSION__;
    o[k++] = CL_VERSION_1_0;
    o[k++] = CL_VERSION_1_1;
    o[k++] = CL_VERSION_1_2;
    o[k++] = __ENDIAN_LITTLE__;
#ifdef cl_khr_fp64
    o[k++] = 1;
#else
    o[k++] = 0;
#endif
    o[k++] = __LINE__;
    o[k++] = CHAR_BIT;
    o[k++] = CHAR_MAX;
    o[k++] = CHAR_MIN;
    o[k++] = SCHAR_MAX;
    o[k++] = SCHAR_MIN;
    o[k++] = UCHAR_MAX;
    o[k++] = SHRT_MAX;
    o[k++] = SHRT_MIN;
    o[k++] = USHRT_MAX;
    o[k++] = INT_MAX;
    o[k++] = INT_MIN;
    o[k++] = (int)UINT_MAX;
    o[k++] = FLT_DIG;
    o[k++] = FLT_MANT_DIG;
    o[k++] = FLT_MAX_10_EXP;
    o[k++] = FLT_MAX_EXP;
    o[k++] = FLT_MIN_10_EXP;
    o[k++] = FLT_MIN_EXP;
    o[k++] = FLT_RADIX;
    o[k++] = DBL_DIG;
    o[k++] = DBL_MANT_DIG;
    o[k++] = DBL_MAX_EXP;
    o[k++] = DBL_MIN_EXP;
    o[k++] = as_int(FLT_MAX);
    o[k++] = as_int(FLT_MIN);
    o[k++] = as_int(FLT_EPSILON);
    o[k++] = as_int(MAXFLOAT);
    o[k++] = as_int(HUGE_VALF);
    o[k++] = as_int(INFINITY);
    o[k++] = isnan(NAN);
    o[k++] = (int)sizeof(size_t) + 10 * (int)sizeof(ptrdiff_t) + 100 * (int)sizeof(intptr_t)
             + 1000 * (int)sizeof(uintptr_t);
    o[k] = k;
    k = 0;
    f[k++] = M_E_F;
    f[k++] = M_LOG2E_F;
    f[k++] = M_LOG10E_F;
    f[k++] = M_LN2_F;
    f[k++] = M_LN10_F;
    f[k++] = M_PI_F;
    f[k++] = M_PI_2_F;
    f[k++] = M_PI_4_F;
    f[k++] = M_1_PI_F;
    f[k++] = M_2_PI_F;
    f[k++] = M_2_SQRTPI_F;
    f[k++] = M_SQRT2_F;
    f[k++] = M_SQRT1_2_F;
    k = 0;
    l[k++] = LONG_MAX;
    l[k++] = LONG_MIN;
    l[k++] = (long)ULONG_MAX;
    l[k++] = as_long(M_PI);
    l[k++] = as_long(M_E);
    l[k++] = as_long(DBL_MAX);
    l[k++] = as_long(DBL_MIN);
    l[k++] = as_long(DBL_EPSILON);
    l[k++] = as_long(HUGE_VAL);
}
