/* OpenCL C qualifiers, kernel attributes, scalar type names and the
 * predefined macros, as g++ understands them.
 *
 * All memory is host memory here, so address spaces vanish.  A __local
 * variable of a kernel becomes `static __thread` (pyemu's compiler rewrites
 * the declaration, pyemu/compiler/opencl.py): the worker runs one work-group
 * at a time, so each group in flight gets its own copy.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

#ifdef __PYEMU_SCAN__
/* pyemu's compiler preprocesses once with __PYEMU_SCAN__ defined and finds
 * the kernels, the address spaces and access qualifiers of their parameters
 * and their attributes by these markers (pyemu/compiler/opencl.py); that text
 * never gets compiled. */
#define __kernel __pyemu_kernel__
#define __global __pyemu_as_global__
#define __local __pyemu_as_local__
#define __constant __pyemu_as_constant__
#define __private __pyemu_as_private__
#define __read_only __pyemu_acc_read_only__
#define __write_only __pyemu_acc_write_only__
#define __read_write __pyemu_acc_read_write__
#define reqd_work_group_size(...) reqd_work_group_size(__VA_ARGS__)
#define work_group_size_hint(...) work_group_size_hint(__VA_ARGS__)
#define vec_type_hint(...) vec_type_hint(__VA_ARGS__)
#else
#define __kernel
#define __global
#define __local
#define __constant
#define __private
#define __read_only
#define __write_only
#define __read_write
#define reqd_work_group_size(...)
#define work_group_size_hint(...)
#define vec_type_hint(...)
/* The block functions of pyemu/compiler/regions/ are written from the scan's text,
 * markers included: outside the scan they mean nothing. */
#define __pyemu_kernel__
#define __pyemu_as_global__
#define __pyemu_as_local__
#define __pyemu_as_constant__
#define __pyemu_as_private__
#define __pyemu_acc_read_only__
#define __pyemu_acc_write_only__
#define __pyemu_acc_read_write__
#endif
#define intel_reqd_sub_group_size(...)
#define nosvm
#define restrict __restrict__

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef unsigned int cl_mem_fence_flags;

#define __OPENCL_VERSION__ 120
#ifndef __OPENCL_C_VERSION__
#define __OPENCL_C_VERSION__ 120
#endif
#define CL_VERSION_1_0 100
#define CL_VERSION_1_1 110
#define CL_VERSION_1_2 120
#define __ENDIAN_LITTLE__ 1
#define __EMBEDDED_PROFILE__ 0
#define cl_khr_fp64 1
#define cl_khr_int64_base_atomics 1
#define cl_khr_int64_extended_atomics 1
#define cl_khr_global_int32_base_atomics 1
#define cl_khr_global_int32_extended_atomics 1
#define cl_khr_local_int32_base_atomics 1
#define cl_khr_local_int32_extended_atomics 1
#define cl_khr_byte_addressable_store 1
#define cl_khr_3d_image_writes 1      /* write_image* of image3d_t (detail/cl_image.h) */
#define __PYEMU__ 1

#ifndef MAXFLOAT
#define MAXFLOAT FLT_MAX
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __builtin_huge_valf()
#endif
#define M_E_F 2.71828182845904523536f
#define M_LOG2E_F 1.44269504088896340736f
#define M_LOG10E_F 0.434294481903251827651f
#define M_LN2_F 0.693147180559945309417f
#define M_LN10_F 2.30258509299404568402f
#define M_PI_F 3.14159265358979323846f
#define M_PI_2_F 1.57079632679489661923f
#define M_PI_4_F 0.785398163397448309616f
#define M_1_PI_F 0.318309886183790671538f
#define M_2_PI_F 0.636619772367581343076f
#define M_2_SQRTPI_F 1.12837916709551257390f
#define M_SQRT2_F 1.41421356237309504880f
#define M_SQRT1_2_F 0.707106781186547524401f
