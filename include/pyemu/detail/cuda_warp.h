/* Warp intrinsics: __shfl*_sync, __ballot_sync, __any/__all_sync, __match_*_sync,
 * __reduce_*_sync, __syncwarp, __activemask, __lanemask_*, __fns.
 * Each is a rendezvous of the lanes its mask names, run by the core
 * (csrc/warp.c, pyemu_warp_op in abi.h); the call site (file, line)
 * tells collectives apart, so every intrinsic is a function whose last
 * default arguments are g++'s __builtin_FILE/LINE at the caller. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

#define PYEMU_WLOC const char *pyemu_f = __builtin_FILE(), unsigned pyemu_l = __builtin_LINE()
#define PYEMU_WARGS pyemu_f, pyemu_l, 0u   /* pyemu_warp_op's file, line, column */
#define PYEMU_WFL pyemu_f, pyemu_l          /* pyemu_wshfl's */

/* the raw bits of a value of up to 8 bytes, and back */
template <class pyemu_T> static inline unsigned long long pyemu_wbits(pyemu_T pyemu_v)
{
    static_assert(sizeof(pyemu_T) <= 8, "pyemu: warp collectives move values of up to 8 bytes");
    unsigned long long pyemu_r = 0;
    __builtin_memcpy(&pyemu_r, &pyemu_v, sizeof pyemu_v);
    return pyemu_r;
}
template <class pyemu_T> static inline pyemu_T pyemu_wfrom(unsigned long long pyemu_b)
{
    pyemu_T pyemu_r;
    __builtin_memcpy(&pyemu_r, &pyemu_b, sizeof pyemu_r);
    return pyemu_r;
}
template <class pyemu_T>
static inline pyemu_T pyemu_wshfl(int pyemu_op, unsigned pyemu_m, pyemu_T pyemu_v, int pyemu_a,
                                  int pyemu_w, const char *pyemu_f, unsigned pyemu_l)
{
    return pyemu_wfrom<pyemu_T>(
        pyemu_warp_op(pyemu_op, pyemu_m, pyemu_wbits(pyemu_v), pyemu_a, pyemu_w, PYEMU_WARGS));
}

/* __shfl_sync and friends, for the types CUDA declares them for */
#define PYEMU_WSHFL(T)                                                                           \
    static inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32, PYEMU_WLOC)   \
    { return pyemu_wshfl<T>(PYEMU_WARP_SHFL, mask, var, srcLane, width, PYEMU_WFL); }          \
    static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32,         \
                                   PYEMU_WLOC)                                                   \
    { return pyemu_wshfl<T>(PYEMU_WARP_SHFL_UP, mask, var, (int)delta, width, PYEMU_WFL); }    \
    static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32,       \
                                     PYEMU_WLOC)                                                 \
    { return pyemu_wshfl<T>(PYEMU_WARP_SHFL_DOWN, mask, var, (int)delta, width, PYEMU_WFL); }  \
    static inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32,          \
                                    PYEMU_WLOC)                                                  \
    { return pyemu_wshfl<T>(PYEMU_WARP_SHFL_XOR, mask, var, laneMask, width, PYEMU_WFL); }
PYEMU_WSHFL(int)
PYEMU_WSHFL(unsigned int)
PYEMU_WSHFL(long)
PYEMU_WSHFL(unsigned long)
PYEMU_WSHFL(long long)
PYEMU_WSHFL(unsigned long long)
PYEMU_WSHFL(float)
PYEMU_WSHFL(double)
#undef PYEMU_WSHFL

/* The type a shuffle moves when a block function does it inline
 * (pyemu/compiler/regions/warpcut.py's fast form): the parameter type that
 * overload resolution picks above for a value of type pyemu_X, by the same
 * resolution over the same types (declarations only: decltype uses them). */
template <class pyemu_X> pyemu_X pyemu_wdecl(void) noexcept;
int pyemu_wsel(int);
unsigned int pyemu_wsel(unsigned int);
long pyemu_wsel(long);
unsigned long pyemu_wsel(unsigned long);
long long pyemu_wsel(long long);
unsigned long long pyemu_wsel(unsigned long long);
float pyemu_wsel(float);
double pyemu_wsel(double);
template <class pyemu_X> using pyemu_wt_shfl = decltype(pyemu_wsel(pyemu_wdecl<pyemu_X>()));

/* votes */
static inline unsigned __ballot_sync(unsigned mask, int predicate, PYEMU_WLOC)
{
    return (unsigned)pyemu_warp_op(PYEMU_WARP_BALLOT, mask, predicate != 0, 0, 32, PYEMU_WARGS);
}
static inline int __any_sync(unsigned mask, int predicate, PYEMU_WLOC)
{
    return (int)pyemu_warp_op(PYEMU_WARP_ANY, mask, predicate != 0, 0, 32, PYEMU_WARGS);
}
static inline int __all_sync(unsigned mask, int predicate, PYEMU_WLOC)
{
    return (int)pyemu_warp_op(PYEMU_WARP_ALL, mask, predicate != 0, 0, 32, PYEMU_WARGS);
}
static inline int __uni_sync(unsigned mask, int predicate, PYEMU_WLOC)
{
    unsigned pyemu_b =
        (unsigned)pyemu_warp_op(PYEMU_WARP_BALLOT, mask, predicate != 0, 0, 32, PYEMU_WARGS);
    return pyemu_b == 0 || pyemu_b == (mask & pyemu_warp_active());
}

/* __activemask(): the lanes of the warp that exist and have not returned
 * (pyemu runs lanes one after another, so it cannot see a branch's lanes) */
static inline unsigned __activemask(void) { return pyemu_warp_active(); }

/* __syncwarp(mask): any two __syncwarp calls meet, as on Volta and later */
#undef __syncwarp
static inline void __syncwarp(unsigned mask = 0xffffffffu, PYEMU_WLOC)
{
    pyemu_warp_op(PYEMU_WARP_SYNC, mask, 0, 0, 32, PYEMU_WARGS);
}

/* __match_any_sync / __match_all_sync (int, unsigned, long long, ..., float, double) */
#define PYEMU_WMATCH(T)                                                                          \
    static inline unsigned __match_any_sync(unsigned mask, T value, PYEMU_WLOC)                  \
    {                                                                                            \
        return (unsigned)pyemu_warp_op(PYEMU_WARP_MATCH_ANY, mask, pyemu_wbits(value), 0, 32,    \
                                       PYEMU_WARGS);                                             \
    }                                                                                            \
    static inline unsigned __match_all_sync(unsigned mask, T value, int *pred, PYEMU_WLOC)       \
    {                                                                                            \
        unsigned pyemu_r = (unsigned)pyemu_warp_op(PYEMU_WARP_MATCH_ALL, mask,                   \
                                                   pyemu_wbits(value), 0, 32, PYEMU_WARGS);      \
        *pred = pyemu_r != 0;                                                                    \
        return pyemu_r;                                                                          \
    }
PYEMU_WMATCH(int)
PYEMU_WMATCH(unsigned int)
PYEMU_WMATCH(long)
PYEMU_WMATCH(unsigned long)
PYEMU_WMATCH(long long)
PYEMU_WMATCH(unsigned long long)
PYEMU_WMATCH(float)
PYEMU_WMATCH(double)
#undef PYEMU_WMATCH

/* __reduce_*_sync (sm_80): add/min/max for int and unsigned, and/or/xor for unsigned */
static inline unsigned __reduce_add_sync(unsigned mask, unsigned value, PYEMU_WLOC)
{ return (unsigned)pyemu_warp_op(PYEMU_WARP_ADD, mask, value, 0, 32, PYEMU_WARGS); }
static inline int __reduce_add_sync(unsigned mask, int value, PYEMU_WLOC)
{ return (int)(unsigned)pyemu_warp_op(PYEMU_WARP_ADD, mask, (unsigned)value, 0, 32, PYEMU_WARGS); }
static inline unsigned __reduce_min_sync(unsigned mask, unsigned value, PYEMU_WLOC)
{ return (unsigned)pyemu_warp_op(PYEMU_WARP_UMIN, mask, value, 0, 32, PYEMU_WARGS); }
static inline int __reduce_min_sync(unsigned mask, int value, PYEMU_WLOC)
{ return (int)(unsigned)pyemu_warp_op(PYEMU_WARP_MIN, mask, (unsigned)value, 0, 32, PYEMU_WARGS); }
static inline unsigned __reduce_max_sync(unsigned mask, unsigned value, PYEMU_WLOC)
{ return (unsigned)pyemu_warp_op(PYEMU_WARP_UMAX, mask, value, 0, 32, PYEMU_WARGS); }
static inline int __reduce_max_sync(unsigned mask, int value, PYEMU_WLOC)
{ return (int)(unsigned)pyemu_warp_op(PYEMU_WARP_MAX, mask, (unsigned)value, 0, 32, PYEMU_WARGS); }
static inline unsigned __reduce_and_sync(unsigned mask, unsigned value, PYEMU_WLOC)
{ return (unsigned)pyemu_warp_op(PYEMU_WARP_AND, mask, value, 0, 32, PYEMU_WARGS); }
static inline unsigned __reduce_or_sync(unsigned mask, unsigned value, PYEMU_WLOC)
{ return (unsigned)pyemu_warp_op(PYEMU_WARP_OR, mask, value, 0, 32, PYEMU_WARGS); }
static inline unsigned __reduce_xor_sync(unsigned mask, unsigned value, PYEMU_WLOC)
{ return (unsigned)pyemu_warp_op(PYEMU_WARP_XOR, mask, value, 0, 32, PYEMU_WARGS); }

/* lane masks (PTX %lanemask_lt, ...) */
static inline unsigned pyemu_laneid(void)
{
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;
}
static inline unsigned __lanemask_eq(void) { return 1u << pyemu_laneid(); }
static inline unsigned __lanemask_lt(void) { return (1u << pyemu_laneid()) - 1u; }
static inline unsigned __lanemask_le(void) { return (2u << pyemu_laneid()) - 1u; }
static inline unsigned __lanemask_gt(void) { return ~__lanemask_le(); }
static inline unsigned __lanemask_ge(void) { return ~__lanemask_lt(); }

/* __fns(mask, base, offset): the position of the offset-th set bit of mask
 * counting from bit base (inclusive; up for offset > 0, down for < 0),
 * 0xffffffff if there is none; offset 0: base if that bit is set. */
static inline unsigned __fns(unsigned mask, unsigned base, int offset)
{
    if (base > 31u)
        return 0xffffffffu;
    if (offset == 0)
        return mask >> base & 1u ? base : 0xffffffffu;
    int pyemu_step = offset > 0 ? 1 : -1;
    int pyemu_n = offset > 0 ? offset : -offset;
    for (int pyemu_i = (int)base; pyemu_i >= 0 && pyemu_i < 32; pyemu_i += pyemu_step)
        if ((mask >> pyemu_i & 1u) && --pyemu_n == 0)
            return (unsigned)pyemu_i;
    return 0xffffffffu;
}

/* The warp-synchronous forms CUDA 9 removed for sm_70 and later: nvcc says
 * the identifier is undefined; pyemu says so with the form to use. */
template <class... pyemu_A> struct pyemu_pre_volta { static const bool pyemu_no = false; };
#define PYEMU_WREMOVED(name, hint)                                                              \
    template <class... pyemu_A> static inline int name(pyemu_A...)                              \
    {                                                                                            \
        static_assert(pyemu_pre_volta<pyemu_A...>::pyemu_no,                                     \
                      "identifier \"" #name "\" is undefined for sm_70 and later (CUDA 9 "     \
                      "removed the warp-synchronous intrinsics): use " hint);                    \
        return 0;                                                                                \
    }
PYEMU_WREMOVED(__shfl, "__shfl_sync(0xffffffff, var, srcLane, width)")
PYEMU_WREMOVED(__shfl_up, "__shfl_up_sync(0xffffffff, var, delta, width)")
PYEMU_WREMOVED(__shfl_down, "__shfl_down_sync(0xffffffff, var, delta, width)")
PYEMU_WREMOVED(__shfl_xor, "__shfl_xor_sync(0xffffffff, var, laneMask, width)")
PYEMU_WREMOVED(__ballot, "__ballot_sync(0xffffffff, predicate)")
PYEMU_WREMOVED(__any, "__any_sync(0xffffffff, predicate)")
PYEMU_WREMOVED(__all, "__all_sync(0xffffffff, predicate)")
#undef PYEMU_WREMOVED
