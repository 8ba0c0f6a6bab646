/* pyemu/cuda_device.h - what a CUDA C++ kernel source compiles against.
 *
 * pyemu's compiler includes this file before the user's source (g++ -include),
 * so kernels written for nvcc compile unchanged.  Each concept lives in its
 * own detail header; this file only puts them in order.
 */
#ifndef PYEMU_CUDA_DEVICE_H
#define PYEMU_CUDA_DEVICE_H

#ifndef __cplusplus
#error "CUDA kernels are C++: pyemu compiles them with g++"
#endif

#define PYEMU_DETAIL_INSIDE 1
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include <float.h>

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
#include "detail/cuda_qualifiers.h"   /* __global__, __device__, __shared__, ... */
#include "detail/smem.h"             /* static __shared__ in the block's arena */
#include "detail/cuda_vector_types.h" /* uint3, dim3, float4, make_float4, ... */
#include "detail/cuda_builtins.h"     /* threadIdx, __syncthreads, printf, assert */
#include "detail/cuda_math.h"         /* the math library and fast intrinsics */
#include "detail/cuda_atomics.h"      /* atomicAdd and friends */
#include "detail/cuda_ldst.h"         /* __ldg and the cache-hinted loads and stores */
#include "detail/cuda_texture.h"      /* texture and surface objects (detail/sampler.h) */
#include "detail/cuda_warp.h"         /* __shfl_sync, __ballot_sync, __syncwarp, ... */
#pragma pop_macro("depth")
#pragma pop_macro("height")
#pragma pop_macro("width")
#undef PYEMU_DETAIL_INSIDE

#endif /* PYEMU_CUDA_DEVICE_H */
