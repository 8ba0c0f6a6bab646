/* CUDA function and variable qualifiers, as g++ understands them.
 * All memory is host memory here, so most qualifiers vanish; __shared__
 * becomes thread-local storage of the worker, which runs one block at a time,
 * so each block in flight gets its own copy. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

#ifdef __PYEMU_SCAN__
/* pyemu's compiler preprocesses once with __PYEMU_SCAN__ defined and finds
 * the kernels by this marker (pyemu/compiler/driver.py); it never gets compiled. */
#define __global__ __pyemu_global__
#else
#define __global__
#endif
#define __device__
#define __host__
/* __constant__: each variable in a section of its own, "pyemu_const.N", so
 * that the core finds their total size at load (64 KiB at most, as on a
 * GPU) and knows which variables are constant memory (csrc/symbols.c);
 * `used` keeps g++ from folding the reads of a static one that only the host
 * writes (cudaMemcpyToSymbol).  Templates (a variable template, a static
 * member of a class template) are not placed by g++: they work, but are not
 * counted in the 64 KiB.  __device__ variables need nothing: they are the
 * module's globals. */
#define __PYEMU_STR2(x) #x
#define __PYEMU_STR(x) __PYEMU_STR2(x)
#define __constant__ __attribute__((used, section("pyemu_const." __PYEMU_STR(__COUNTER__))))
#define __managed__
#define __shared__ static __thread
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#ifdef __PYEMU_SCAN__
#define __launch_bounds__(...) __launch_bounds__(__VA_ARGS__) /* read by the kernel scan */
#else
#define __launch_bounds__(...)
#endif
#define __grid_constant__
#define __cudart_builtin__

#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH__ 900
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define CUDART_VERSION 13000
#define __PYEMU__ 1
