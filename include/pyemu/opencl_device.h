/* pyemu/opencl_device.h - what an OpenCL C kernel source compiles against.
 *
 * pyemu's compiler includes this file before the user's source (g++ -include)
 * and compiles OpenCL C 1.2 as C++17, so kernels written for a GPU compile
 * unchanged.  Each concept lives in its own detail header; this file only
 * puts them in order.  Every name the headers add that OpenCL C does not
 * have starts with pyemu_ / PYEMU_ (template parameters and locals too):
 * the user's -D macros are defined before this file is read.
 */
#ifndef PYEMU_OPENCL_DEVICE_H
#define PYEMU_OPENCL_DEVICE_H

#ifndef __cplusplus
#error "pyemu compiles OpenCL C as C++ (g++)"
#endif

#define PYEMU_DETAIL_INSIDE 1
/* Every system header first: the macros below (abs, printf, local, ...)
 * must not reach them. */
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include <float.h>
/* <math.h> has them with the same values; OpenCL C's definitions follow. */
#undef MAXFLOAT
#undef HUGE_VALF

/* Names that pyemu's headers use as members and parameters, out of the
 * way of the user's -D macros (`-D width=64` is common in OpenCL hosts)
 * while the headers are read; the user's definitions come back after. */
#pragma push_macro("width")
#undef width
#pragma push_macro("height")
#undef height
#pragma push_macro("depth")
#undef depth
#include "abi.h"
#include "detail/cl_qualifiers.h"    /* __kernel, __global, __local, uint, ... */
#include "detail/smem.h"             /* kernel-scope __local in the block's arena */
#include "detail/cl_workitem.h"      /* get_global_id, barrier, mem_fence */
#include "detail/cl_vector_ops.h"    /* what float4 and friends are made of */
#include "detail/cl_convert.h"       /* half; the rules of convert_T, as_T, vloadn */
#include "detail/cl_vectors_gen.h"   /* float4, swizzles, convert_T, as_T, vloadn (generated) */
#include "detail/cl_common.h"        /* the helpers of the built-in function headers */
#include "detail/cl_math.h"          /* math, common and geometric functions */
#include "detail/cl_integer.h"       /* integer functions */
#include "detail/cl_relational.h"    /* isequal, isnan, any, all, select, ... */
#include "detail/cl_misc.h"          /* vec_step, shuffle, shuffle2 */
#include "detail/cl_atomics.h"       /* atomic_add, atom_cmpxchg, ... */
#include "detail/cl_async.h"         /* async_work_group_copy, wait_group_events */
#include "detail/cl_printf.h"        /* printf, with vector formats */
#include "detail/cl_image.h"         /* images and samplers (detail/sampler.h) */
#include "detail/cl_subgroup.h"      /* sub-groups of 32: sub_group_reduce_add, ... */

#pragma pop_macro("depth")
#pragma pop_macro("height")
#pragma pop_macro("width")

/* The spellings without underscores come last: the headers above are read
 * with the C++ meaning of `private`. */
#define kernel __kernel
#define global __global
#define local __local
#define constant __constant
#define private __private
#define read_only __read_only
#define write_only __write_only
#define read_write __read_write
#undef PYEMU_DETAIL_INSIDE

#endif /* PYEMU_OPENCL_DEVICE_H */
