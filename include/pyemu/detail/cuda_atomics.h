/* CUDA's atomic functions (atomicAdd, atomicCAS, ...) on GCC's __atomic builtins; each returns the old value. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

/* Global memory is shared by worker threads that run blocks in parallel, so
 * these are real atomic operations.  CUDA only promises relaxed ordering;
 * sequentially consistent costs nothing more on x86-64 and keeps the
 * hand-made spin locks of course code correct on weaker CPUs too. */
#define PYEMU_ATOMIC_ORDER __ATOMIC_SEQ_CST

/* Replaces *p by f(*p) atomically (a compare-and-swap loop on the bits).
 * (Template parameters carry the pyemu_ prefix so that a -DT=... cannot reach them.) */
template <class pyemu_T, class pyemu_F>
static inline pyemu_T pyemu_atomic_update(pyemu_T *p, pyemu_F f)
{
    pyemu_T old, want;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        want = f(old);
    while (!__atomic_compare_exchange(p, &old, &want, true, PYEMU_ATOMIC_ORDER, __ATOMIC_RELAXED));
    return old;
}

/* The integer operations that GCC has built in. */
#define PYEMU_ATOMIC_FETCH(NAME, BUILTIN, T)                                   \
    static inline T NAME(T *p, T v) { return BUILTIN(p, v, PYEMU_ATOMIC_ORDER); }
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, int)
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, unsigned int)
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicSub, __atomic_fetch_sub, int)
PYEMU_ATOMIC_FETCH(atomicSub, __atomic_fetch_sub, unsigned int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, unsigned int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, int)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, unsigned int)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, int)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, unsigned int)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, int)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, unsigned int)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, unsigned long long)
#undef PYEMU_ATOMIC_FETCH

/* Floating point: compare-and-swap loops. */
static inline float atomicAdd(float *p, float v)
{
    return pyemu_atomic_update(p, [v](float old) { return old + v; });
}
static inline double atomicAdd(double *p, double v)
{
    return pyemu_atomic_update(p, [v](double old) { return old + v; });
}
/* sm_90: atomic per component, not as a whole. */
static inline float2 atomicAdd(float2 *p, float2 v)
{
    return make_float2(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y));
}
static inline float4 atomicAdd(float4 *p, float4 v)
{
    return make_float4(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y),
                       atomicAdd(&p->z, v.z), atomicAdd(&p->w, v.w));
}
static inline float atomicExch(float *p, float v)
{
    float old;
    __atomic_exchange(p, &v, &old, PYEMU_ATOMIC_ORDER);
    return old;
}

#define PYEMU_ATOMIC_MINMAX(T)                                                 \
    static inline T atomicMin(T *p, T v)                                       \
    { return pyemu_atomic_update(p, [v](T old) { return v < old ? v : old; }); } \
    static inline T atomicMax(T *p, T v)                                       \
    { return pyemu_atomic_update(p, [v](T old) { return v > old ? v : old; }); }
PYEMU_ATOMIC_MINMAX(int)
PYEMU_ATOMIC_MINMAX(unsigned int)
PYEMU_ATOMIC_MINMAX(long long)
PYEMU_ATOMIC_MINMAX(unsigned long long)
#undef PYEMU_ATOMIC_MINMAX

/* Counters that wrap: Inc stores (old >= v) ? 0 : old + 1,
 * Dec stores (old == 0 || old > v) ? v : old - 1. */
static inline unsigned int atomicInc(unsigned int *p, unsigned int v)
{
    return pyemu_atomic_update(p, [v](unsigned int old) { return old >= v ? 0u : old + 1u; });
}
static inline unsigned int atomicDec(unsigned int *p, unsigned int v)
{
    return pyemu_atomic_update(p, [v](unsigned int old) { return (old == 0u || old > v) ? v : old - 1u; });
}

/* Stores v if *p == cmp; returns the old *p either way. */
#define PYEMU_ATOMIC_CAS(T)                                                    \
    static inline T atomicCAS(T *p, T cmp, T v)                                \
    {                                                                          \
        __atomic_compare_exchange_n(p, &cmp, v, false, PYEMU_ATOMIC_ORDER, PYEMU_ATOMIC_ORDER); \
        return cmp;                                                            \
    }
PYEMU_ATOMIC_CAS(int)
PYEMU_ATOMIC_CAS(unsigned int)
PYEMU_ATOMIC_CAS(unsigned long long)
PYEMU_ATOMIC_CAS(unsigned short)
#undef PYEMU_ATOMIC_CAS

/* Scoped forms (atomicAdd_block, atomicAdd_system, ...): the CPU has a single
 * scope, so they are the plain functions. */
#define PYEMU_ATOMIC_SCOPES(NAME)                                              \
    template <class... pyemu_A>                                                \
    static inline auto NAME##_block(pyemu_A... a) -> decltype(NAME(a...)) { return NAME(a...); } \
    template <class... pyemu_A>                                                \
    static inline auto NAME##_system(pyemu_A... a) -> decltype(NAME(a...)) { return NAME(a...); }
PYEMU_ATOMIC_SCOPES(atomicAdd)
PYEMU_ATOMIC_SCOPES(atomicSub)
PYEMU_ATOMIC_SCOPES(atomicExch)
PYEMU_ATOMIC_SCOPES(atomicMin)
PYEMU_ATOMIC_SCOPES(atomicMax)
PYEMU_ATOMIC_SCOPES(atomicInc)
PYEMU_ATOMIC_SCOPES(atomicDec)
PYEMU_ATOMIC_SCOPES(atomicCAS)
PYEMU_ATOMIC_SCOPES(atomicAnd)
PYEMU_ATOMIC_SCOPES(atomicOr)
PYEMU_ATOMIC_SCOPES(atomicXor)
#undef PYEMU_ATOMIC_SCOPES
