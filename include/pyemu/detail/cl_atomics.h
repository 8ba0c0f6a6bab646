/* OpenCL C atomic functions (OpenCL 1.2, 6.12.11): atomic_add ... atomic_xor
 * on int and uint (atomic_xchg on float too), and the atom_* spellings of
 * the cl_khr_{global,local}_int32_{base,extended}_atomics and
 * cl_khr_int64_{base,extended}_atomics extensions, on int, uint, long and
 * ulong.  Each returns the old value.
 *
 * __global and __local pointers are plain pointers here, so one overload
 * serves both.  Work-groups run in parallel on worker threads, so these are
 * real atomic operations (GCC's __atomic builtins); OpenCL 1.2 only
 * promises relaxed ordering, sequentially consistent costs nothing more on
 * x86-64 and keeps hand-made spin locks correct on weaker CPUs too.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

#define PYEMU_CL_ATOMIC_ORDER __ATOMIC_SEQ_CST

/* Replaces *p by f(*p) atomically (a compare-and-swap loop). */
template <class pyemu_T, class pyemu_F>
inline pyemu_T pyemu_cl_atomic_update(volatile pyemu_T *pyemu_p, pyemu_F pyemu_f)
{
    pyemu_T pyemu_old = __atomic_load_n(pyemu_p, __ATOMIC_RELAXED), pyemu_want;
    do
        pyemu_want = pyemu_f(pyemu_old);
    while (!__atomic_compare_exchange_n(pyemu_p, &pyemu_old, pyemu_want, true, PYEMU_CL_ATOMIC_ORDER,
                                        __ATOMIC_RELAXED));
    return pyemu_old;
}

#define PYEMU_CL_ATOMICS(P, T)                                                         \
    static inline T P##_add(volatile T *pyemu_p, T pyemu_v)                            \
    { return __atomic_fetch_add(pyemu_p, pyemu_v, PYEMU_CL_ATOMIC_ORDER); }            \
    static inline T P##_sub(volatile T *pyemu_p, T pyemu_v)                            \
    { return __atomic_fetch_sub(pyemu_p, pyemu_v, PYEMU_CL_ATOMIC_ORDER); }            \
    static inline T P##_xchg(volatile T *pyemu_p, T pyemu_v)                           \
    { return __atomic_exchange_n(pyemu_p, pyemu_v, PYEMU_CL_ATOMIC_ORDER); }           \
    static inline T P##_inc(volatile T *pyemu_p)                                       \
    { return __atomic_fetch_add(pyemu_p, (T)1, PYEMU_CL_ATOMIC_ORDER); }               \
    static inline T P##_dec(volatile T *pyemu_p)                                       \
    { return __atomic_fetch_sub(pyemu_p, (T)1, PYEMU_CL_ATOMIC_ORDER); }               \
    static inline T P##_cmpxchg(volatile T *pyemu_p, T pyemu_cmp, T pyemu_v)          \
    {                                                                                  \
        __atomic_compare_exchange_n(pyemu_p, &pyemu_cmp, pyemu_v, false, PYEMU_CL_ATOMIC_ORDER, \
                                    PYEMU_CL_ATOMIC_ORDER);                            \
        return pyemu_cmp;                                                              \
    }                                                                                  \
    static inline T P##_min(volatile T *pyemu_p, T pyemu_v)                            \
    {                                                                                  \
        return pyemu_cl_atomic_update(pyemu_p, [pyemu_v](T pyemu_o) { return pyemu_v < pyemu_o ? pyemu_v : pyemu_o; }); \
    }                                                                                  \
    static inline T P##_max(volatile T *pyemu_p, T pyemu_v)                            \
    {                                                                                  \
        return pyemu_cl_atomic_update(pyemu_p, [pyemu_v](T pyemu_o) { return pyemu_v > pyemu_o ? pyemu_v : pyemu_o; }); \
    }                                                                                  \
    static inline T P##_and(volatile T *pyemu_p, T pyemu_v)                            \
    { return __atomic_fetch_and(pyemu_p, pyemu_v, PYEMU_CL_ATOMIC_ORDER); }            \
    static inline T P##_or(volatile T *pyemu_p, T pyemu_v)                             \
    { return __atomic_fetch_or(pyemu_p, pyemu_v, PYEMU_CL_ATOMIC_ORDER); }             \
    static inline T P##_xor(volatile T *pyemu_p, T pyemu_v)                            \
    { return __atomic_fetch_xor(pyemu_p, pyemu_v, PYEMU_CL_ATOMIC_ORDER); }
PYEMU_CL_ATOMICS(atomic, int)
PYEMU_CL_ATOMICS(atomic, unsigned int)
PYEMU_CL_ATOMICS(atom, int)
PYEMU_CL_ATOMICS(atom, unsigned int)
PYEMU_CL_ATOMICS(atom, long)
PYEMU_CL_ATOMICS(atom, unsigned long)
#undef PYEMU_CL_ATOMICS

/* xchg of a float: the same bits, swapped whole. */
static inline float atomic_xchg(volatile float *pyemu_p, float pyemu_v)
{
    float pyemu_old;
    __atomic_exchange((float *)pyemu_p, &pyemu_v, &pyemu_old, PYEMU_CL_ATOMIC_ORDER);
    return pyemu_old;
}
static inline float atom_xchg(volatile float *pyemu_p, float pyemu_v) { return atomic_xchg(pyemu_p, pyemu_v); }
