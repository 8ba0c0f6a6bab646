/* threadIdx and friends, barriers, device printf, assert and trap.
 * The indices live in the worker's pyemu_tctx (abi.h); the core updates them
 * as it moves from thread to thread. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

#define threadIdx (pyemu_tctx.threadIdx)
#define blockIdx (pyemu_tctx.blockIdx)
#define blockDim (pyemu_tctx.blockDim)
#define gridDim (pyemu_tctx.gridDim)
#define warpSize 32

#define PYEMU_STR2(x) #x
#define PYEMU_STR(x) PYEMU_STR2(x)
/* "file:line#n": n counts the barriers of the translation unit, so two
 * written on one line (a macro) are two sites; messages show "file:line". */
#define PYEMU_SITE (__FILE__ ":" PYEMU_STR(__LINE__) "#" PYEMU_STR(__COUNTER__))

#define __syncthreads() pyemu_barrier(PYEMU_SITE)
#define __syncthreads_count(p) pyemu_barrier_reduce(PYEMU_SITE, (p) != 0, 0)
#define __syncthreads_and(p) pyemu_barrier_reduce(PYEMU_SITE, (p) != 0, 1)
#define __syncthreads_or(p) pyemu_barrier_reduce(PYEMU_SITE, (p) != 0, 2)
#define __syncwarp(...) pyemu_barrier(PYEMU_SITE)

static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* Device printf: <stdio.h> is already in; later includes of it are no-ops. */
#undef printf
#define printf pyemu_printf

/* Device malloc and free: the core's device heap (cudaLimitMallocHeapSize),
 * per-worker arenas that a fault cannot leave locked.  <stdlib.h> is read
 * first, so later includes of it are no-ops; std::malloc means the same. */
#include <stdlib.h>
#undef malloc
#undef free
#define malloc pyemu_malloc
#define free pyemu_free
namespace std {
using ::pyemu_malloc;
using ::pyemu_free;
}

/* Device assert: fails the launch with cudaErrorAssert, naming block and
 * thread, instead of aborting the process.  include/pyemu/cuda/assert.h
 * keeps a later #include <assert.h> from undoing this. */
/* the text is taken by assert itself, before its argument's macros expand */
#define PYEMU_DEVICE_ASSERT(e, text) ((e) ? (void)0 : pyemu_assert_fail(text, __FILE__, __LINE__, __func__))
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) PYEMU_DEVICE_ASSERT(e, #e)
#endif
#define __trap() pyemu_trap()
#define __brkpt() pyemu_trap()

