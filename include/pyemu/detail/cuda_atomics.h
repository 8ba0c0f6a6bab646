/* CUDA's atomic functions (atomicAdd, atomicCAS, ...) on GCC's __atomic builtins; each returns the old value. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

#include "atomic_common.h"     /* the memory order, the one-worker test, the CAS loop */

/* The integer operations that GCC has built in; NEW is the value stored,
 * from the old value pyemu_o and the operand pyemu_v. */
#define PYEMU_ATOMIC_FETCH(NAME, BUILTIN, NEW, T)                              \
    static inline T NAME(T *pyemu_p, T pyemu_v)                                \
    {                                                                          \
        if (PYEMU_ATOMIC_PLAIN(pyemu_p)) {                                     \
            T pyemu_o = *pyemu_p;                                              \
            *pyemu_p = (NEW);                                                  \
            return pyemu_o;                                                    \
        }                                                                      \
        return BUILTIN(pyemu_p, pyemu_v, PYEMU_ATOMIC_ORDER);                  \
    }
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, pyemu_wrap_add(pyemu_o, pyemu_v), int)
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, pyemu_wrap_add(pyemu_o, pyemu_v), unsigned int)
PYEMU_ATOMIC_FETCH(atomicAdd, __atomic_fetch_add, pyemu_wrap_add(pyemu_o, pyemu_v), unsigned long long)
PYEMU_ATOMIC_FETCH(atomicSub, __atomic_fetch_sub, pyemu_wrap_sub(pyemu_o, pyemu_v), int)
PYEMU_ATOMIC_FETCH(atomicSub, __atomic_fetch_sub, pyemu_wrap_sub(pyemu_o, pyemu_v), unsigned int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, pyemu_v, int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, pyemu_v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicExch, __atomic_exchange_n, pyemu_v, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, pyemu_o & pyemu_v, int)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, pyemu_o & pyemu_v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicAnd, __atomic_fetch_and, pyemu_o & pyemu_v, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, pyemu_o | pyemu_v, int)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, pyemu_o | pyemu_v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicOr, __atomic_fetch_or, pyemu_o | pyemu_v, unsigned long long)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, pyemu_o ^ pyemu_v, int)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, pyemu_o ^ pyemu_v, unsigned int)
PYEMU_ATOMIC_FETCH(atomicXor, __atomic_fetch_xor, pyemu_o ^ pyemu_v, unsigned long long)
#undef PYEMU_ATOMIC_FETCH

/* Floating point: compare-and-swap loops. */
static inline float atomicAdd(float *pyemu_p, float pyemu_v)
{
    return pyemu_atomic_update(pyemu_p, [pyemu_v](float pyemu_o) { return pyemu_o + pyemu_v; });
}
static inline double atomicAdd(double *pyemu_p, double pyemu_v)
{
    return pyemu_atomic_update(pyemu_p, [pyemu_v](double pyemu_o) { return pyemu_o + pyemu_v; });
}
/* sm_90: atomic per component, not as a whole. */
static inline float2 atomicAdd(float2 *pyemu_p, float2 pyemu_v)
{
    return make_float2(atomicAdd(&pyemu_p->x, pyemu_v.x), atomicAdd(&pyemu_p->y, pyemu_v.y));
}
static inline float4 atomicAdd(float4 *pyemu_p, float4 pyemu_v)
{
    return make_float4(atomicAdd(&pyemu_p->x, pyemu_v.x), atomicAdd(&pyemu_p->y, pyemu_v.y),
                       atomicAdd(&pyemu_p->z, pyemu_v.z), atomicAdd(&pyemu_p->w, pyemu_v.w));
}
static inline float atomicExch(float *pyemu_p, float pyemu_v)
{
    float pyemu_old;
    if (PYEMU_ATOMIC_PLAIN(pyemu_p)) {
        pyemu_old = *pyemu_p;
        *pyemu_p = pyemu_v;
        return pyemu_old;
    }
    __atomic_exchange(pyemu_p, &pyemu_v, &pyemu_old, PYEMU_ATOMIC_ORDER);
    return pyemu_old;
}

#define PYEMU_ATOMIC_MINMAX(T)                                                 \
    static inline T atomicMin(T *pyemu_p, T pyemu_v)                           \
    {                                                                          \
        return pyemu_atomic_update(pyemu_p, [pyemu_v](T pyemu_o) {             \
            return pyemu_v < pyemu_o ? pyemu_v : pyemu_o;                      \
        });                                                                    \
    }                                                                          \
    static inline T atomicMax(T *pyemu_p, T pyemu_v)                           \
    {                                                                          \
        return pyemu_atomic_update(pyemu_p, [pyemu_v](T pyemu_o) {             \
            return pyemu_v > pyemu_o ? pyemu_v : pyemu_o;                      \
        });                                                                    \
    }
PYEMU_ATOMIC_MINMAX(int)
PYEMU_ATOMIC_MINMAX(unsigned int)
PYEMU_ATOMIC_MINMAX(long long)
PYEMU_ATOMIC_MINMAX(unsigned long long)
#undef PYEMU_ATOMIC_MINMAX

/* Counters that wrap: Inc stores (old >= v) ? 0 : old + 1,
 * Dec stores (old == 0 || old > v) ? v : old - 1. */
static inline unsigned int atomicInc(unsigned int *pyemu_p, unsigned int pyemu_v)
{
    return pyemu_atomic_update(pyemu_p, [pyemu_v](unsigned int pyemu_o) {
        return pyemu_o >= pyemu_v ? 0u : pyemu_o + 1u;
    });
}
static inline unsigned int atomicDec(unsigned int *pyemu_p, unsigned int pyemu_v)
{
    return pyemu_atomic_update(pyemu_p, [pyemu_v](unsigned int pyemu_o) {
        return (pyemu_o == 0u || pyemu_o > pyemu_v) ? pyemu_v : pyemu_o - 1u;
    });
}

/* Stores v if *p == cmp; returns the old *p either way. */
#define PYEMU_ATOMIC_CAS(T)                                                    \
    static inline T atomicCAS(T *pyemu_p, T pyemu_cmp, T pyemu_v)              \
    {                                                                          \
        if (PYEMU_ATOMIC_PLAIN(pyemu_p)) {                                     \
            T pyemu_o = *pyemu_p;                                              \
            if (pyemu_o == pyemu_cmp)                                          \
                *pyemu_p = pyemu_v;                                            \
            return pyemu_o;                                                    \
        }                                                                      \
        __atomic_compare_exchange_n(pyemu_p, &pyemu_cmp, pyemu_v, false,       \
                                    PYEMU_ATOMIC_ORDER, PYEMU_ATOMIC_ORDER);   \
        return pyemu_cmp;                                                      \
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
    static inline auto NAME##_block(pyemu_A... pyemu_a) -> decltype(NAME(pyemu_a...)) \
    {                                                                          \
        return NAME(pyemu_a...);                                               \
    }                                                                          \
    template <class... pyemu_A>                                                \
    static inline auto NAME##_system(pyemu_A... pyemu_a) -> decltype(NAME(pyemu_a...)) \
    {                                                                          \
        pyemu_atomic_locked pyemu_scope;                                       \
        return NAME(pyemu_a...);                                               \
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
