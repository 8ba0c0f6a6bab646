/* What CUDA's and OpenCL's atomic functions share (detail/cuda_atomics.h,
 * detail/cl_atomics.h): the memory order, the one-worker test and the two
 * helpers below.  Names carry the pyemu_ prefix so that a -DT=... or -Dp=...
 * of the user's options cannot reach them.
 *
 * Global memory is shared by worker threads that run blocks in parallel, so
 * the atomic functions are real atomic operations.  CUDA and OpenCL 1.2
 * only promise relaxed ordering; sequentially consistent costs nothing more
 * on x86-64 and keeps the hand-made spin locks of course code correct on
 * weaker CPUs too.
 *
 * With one worker (pyemu_tctx.solo, PYEMU_NUM_THREADS=1) no other thread
 * runs kernel code meanwhile, and the threads of a block take turns only at
 * barriers and warp collectives, never inside an atomic function: a plain
 * read-modify-write is then atomic to every thread of the device, at a
 * fraction of a locked instruction's cost.  The same holds, with any number
 * of workers, for the block's shared memory: only the worker running the
 * block can reach it (the shared-memory histogram of the course slides). */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h> or <pyemu/opencl_device.h>, not this file"
#endif
#ifndef PYEMU_DETAIL_ATOMIC_COMMON_H
#define PYEMU_DETAIL_ATOMIC_COMMON_H

#define PYEMU_ATOMIC_ORDER __ATOMIC_SEQ_CST
/* PYEMU_ATOMIC_PLAIN(p): true where a plain read-modify-write of *p is
 * atomic: with one worker, and in the running block's shared memory (a
 * __shared__ or __local variable), which only this worker's thread reaches
 * (pyemu_tctx.smem_lo/smem_span, the block's part of the worker's arena). */
#define PYEMU_ATOMIC_PLAIN(p)                                                  \
    (pyemu_tctx.solo ||                                                        \
     (uintptr_t)(p) - pyemu_tctx.smem_lo < pyemu_tctx.smem_span)

/* Replaces *p by f(*p) atomically (a compare-and-swap loop on the bits, so
 * floating-point types work too); returns the old value. */
template <class pyemu_T, class pyemu_F>
static inline pyemu_T pyemu_atomic_update(pyemu_T *pyemu_p, pyemu_F pyemu_f)
{
    pyemu_T pyemu_old, pyemu_want;
    if (PYEMU_ATOMIC_PLAIN(pyemu_p)) {
        pyemu_old = *pyemu_p;
        *pyemu_p = pyemu_f(pyemu_old);
        return pyemu_old;
    }
    __atomic_load(pyemu_p, &pyemu_old, __ATOMIC_RELAXED);
    do
        pyemu_want = pyemu_f(pyemu_old);
    while (!__atomic_compare_exchange(pyemu_p, &pyemu_old, &pyemu_want, true, PYEMU_ATOMIC_ORDER,
                                      __ATOMIC_RELAXED));
    return pyemu_old;
}

/* Sums that wrap as the locked instructions do (a signed overflow of a
 * plain + would be undefined). */
template <class pyemu_T>
static inline pyemu_T pyemu_wrap_add(pyemu_T pyemu_a, pyemu_T pyemu_b)
{
    pyemu_T pyemu_r;
    __builtin_add_overflow(pyemu_a, pyemu_b, &pyemu_r);
    return pyemu_r;
}
template <class pyemu_T>
static inline pyemu_T pyemu_wrap_sub(pyemu_T pyemu_a, pyemu_T pyemu_b)
{
    pyemu_T pyemu_r;
    __builtin_sub_overflow(pyemu_a, pyemu_b, &pyemu_r);
    return pyemu_r;
}

#endif
