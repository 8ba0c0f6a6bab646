/* CUDA's atomic functions (atomicAdd, atomicCAS, ...) on GCC's __atomic builtins; each returns the old value. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

/* Global memory is shared by worker threads that run blocks in parallel, so
 * these are real atomic operations.  CUDA only promises relaxed ordering;
 * sequentially consistent costs nothing more on x86-64 and keeps the
 * hand-made spin locks of course code correct on weaker CPUs too.
 *
 * With one worker (pyemu_tctx.solo, PYEMU_NUM_THREADS=1) no other thread
 * runs kernel code meanwhile, and the threads of a block take turns only at
 * barriers and warp collectives, never inside one of these functions: a
 * plain read-modify-write is then atomic to every thread of the device, at
 * a fraction of a locked instruction's cost.  The _system forms (the host
 * may take part) stay locked. */
#define PYEMU_ATOMIC_ORDER __ATOMIC_SEQ_CST
#define PYEMU_ATOMIC_SOLO (pyemu_tctx.solo)

/* Replaces *p by f(*p) atomically (a compare-and-swap loop on the bits).
 * (Template parameters carry the pyemu_ prefix so that a -DT=... cannot reach them.) */
template <class pyemu_T, class pyemu_F>
static inline pyemu_T pyemu_atomic_update(pyemu_T *p, pyemu_F f)
{
    pyemu_T old, want;
    if (PYEMU_ATOMIC_SOLO) {
        old = *p;
        *p = f(old);
        return old;
    }
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        want = f(old);
    while (!__atomic_compare_exchange(p, &old, &want, true, PYEMU_ATOMIC_ORDER, __ATOMIC_RELAXED));
    return old;
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

/* The integer operations that GCC has built in; NEW is the value stored,
 * from the old value o and the operand v. */
#define PYEMU_ATOMIC_FETCH(NAME, BUILTIN, NEW, T)                              \
    static inline T NAME(T *p, T v)                                            \
    {                                                                          \
        if (PYEMU_ATOMIC_SOLO) {                                               \
            T o = *p;                                                          \
            *p = (NEW);                                                        \
            return o;                                                          \
        }                                                                      \
        return BUILTIN(p, v, PYEMU_ATOMIC_ORDER);                              \
    }
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, pyemu_wrap_add(o, v), int)
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, pyemu_wrap_add(o, v), unsigned int)
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, pyemu_wrap_add(o, v), unsigned long long)
PYEMU_ATOMIC_FETCH(atomicSub, __atomic_fetch_sub, pyemu_wrap_sub(o, v), int)
PYEMU_ATOMIC_FETCH(atomicSub, __atomic_fetch_sub, pyemu_wrap_sub(o, v), unsigned int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, v, int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, v, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, o & v, int)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, o & v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, o & v, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, o | v, int)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, o | v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, o | v, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, o ^ v, int)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, o ^ v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, o ^ v, unsigned long long)
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
    if (PYEMU_ATOMIC_SOLO) {
        old = *p;
        *p = v;
        return old;
    }
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
        if (PYEMU_ATOMIC_SOLO) {                                               \
            T o = *p;                                                          \
            if (o == cmp)                                                      \
                *p = v;                                                        \
            return o;                                                          \
        }                                                                      \
        __atomic_compare_exchange_n(p, &cmp, v, false, PYEMU_ATOMIC_ORDER, PYEMU_ATOMIC_ORDER); \
        return cmp;                                                            \
    }
PYEMU_ATOMIC_CAS(int)
PYEMU_ATOMIC_CAS(unsigned int)
PYEMU_ATOMIC_CAS(unsigned long long)
PYEMU_ATOMIC_CAS(unsigned short)
#undef PYEMU_ATOMIC_CAS

/* Scoped forms (atomicAdd_block, atomicAdd_system, ...): a block's scope is
 * the plain function's; the system's takes the locked form even with one
 * worker, since host threads may update the same (mapped or managed) memory. */
struct pyemu_atomic_locked {
    bool pyemu_was;
    pyemu_atomic_locked() : pyemu_was(pyemu_tctx.solo) { pyemu_tctx.solo = false; }
    ~pyemu_atomic_locked() { pyemu_tctx.solo = pyemu_was; }
};
#define PYEMU_ATOMIC_SCOPES(NAME)                                              \
    template <class... pyemu_A>                                                \
    static inline auto NAME##_block(pyemu_A... a) -> decltype(NAME(a...)) { return NAME(a...); } \
    template <class... pyemu_A>                                                \
    static inline auto NAME##_system(pyemu_A... a) -> decltype(NAME(a...))    \
    {                                                                          \
        pyemu_atomic_locked pyemu_scope;                                       \
        return NAME(a...);                                                     \
    }
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
