/* OpenCL sub-groups (cl_khr_subgroups, OpenCL 2.1/3.0): sub-groups of 32
 * work-items, the warps of pyemu's executor, in linear local id order.
 * get_sub_group_size/id/local_id, get_num_sub_groups, get_max_sub_group_size,
 * sub_group_barrier, sub_group_all/any/broadcast, sub_group_reduce_* and
 * sub_group_scan_{inclusive,exclusive}_{add,min,max}, and the shuffles of
 * cl_khr_subgroup_shuffle / _shuffle_relative (sub_group_shuffle, _xor,
 * _up, _down: a source work-item outside the sub-group, which the
 * specification leaves undefined, gives 0 past the end of a short last
 * sub-group and the caller's own value below 0).  Each is a warp
 * collective of the core (csrc/warp.c): every work-item of the sub-group
 * must reach it, or the launch fails. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* the extensions this header implements, as a compiler defines them */
#define cl_khr_subgroups 1
#define cl_khr_subgroup_ballot 1
#define cl_khr_subgroup_shuffle 1
#define cl_khr_subgroup_shuffle_relative 1

#define PYEMU_SGLOC const char *pyemu_f = __builtin_FILE(), unsigned pyemu_l = __builtin_LINE()
#define PYEMU_SGARGS pyemu_f, pyemu_l, 0u

static inline unsigned pyemu_sg_linear(void)
{
    return pyemu_tctx.threadIdx.x +
           pyemu_tctx.blockDim.x * (pyemu_tctx.threadIdx.y + pyemu_tctx.blockDim.y * pyemu_tctx.threadIdx.z);
}
static inline uint get_sub_group_local_id(void) { return pyemu_sg_linear() & 31u; }
static inline uint get_sub_group_id(void) { return pyemu_sg_linear() >> 5; }
/* The two as the work-item functions are (cl_workitem.h): expressions of the
 * work-item's indices, which the block functions (pyemu/compiler/regions/)
 * read as such: `lane == 0` runs every 32nd work-item there (ranges.py),
 * and a variable set from them is recomputed, not copied per work-item. */
#define PYEMU_SG_LINEAR                                                        \
    ((pyemu_tctx.threadIdx).x +                                                \
     (pyemu_tctx.blockDim).x * ((pyemu_tctx.threadIdx).y + (pyemu_tctx.blockDim).y * (pyemu_tctx.threadIdx).z))
#define get_sub_group_local_id() (PYEMU_SG_LINEAR & 31u)
#define get_sub_group_id() (PYEMU_SG_LINEAR >> 5)
/* The other queries too: functions of the work-group's size (uniform) and of
 * the work-item's index, no collective, so a kernel that asks them keeps its
 * block function (the last sub-group of a work-group of 48 has 16). */
#define PYEMU_SG_WG_SIZE                                                       \
    ((pyemu_tctx.blockDim).x * (pyemu_tctx.blockDim).y * (pyemu_tctx.blockDim).z)
#define get_num_sub_groups() ((uint)((PYEMU_SG_WG_SIZE + 31u) >> 5))
#define get_enqueued_num_sub_groups() get_num_sub_groups()
#define get_max_sub_group_size() ((uint)(PYEMU_SG_WG_SIZE < 32u ? PYEMU_SG_WG_SIZE : 32u))
#define get_sub_group_size()                                                   \
    ((uint)(PYEMU_SG_WG_SIZE - (get_sub_group_id() << 5) < 32u                 \
                ? PYEMU_SG_WG_SIZE - (get_sub_group_id() << 5) : 32u))

static inline void sub_group_barrier(int pyemu_flags = 0, int pyemu_scope = 0, PYEMU_SGLOC)
{
    (void)pyemu_flags;
    (void)pyemu_scope;
    pyemu_warp_op(PYEMU_WARP_SYNC, 0xffffffffu, 0, 0, 32, PYEMU_SGARGS);
}
static inline int sub_group_all(int predicate, PYEMU_SGLOC)
{
    return (int)pyemu_warp_op(PYEMU_WARP_ALL, 0xffffffffu, predicate != 0, 0, 32, PYEMU_SGARGS);
}
static inline int sub_group_any(int predicate, PYEMU_SGLOC)
{
    return (int)pyemu_warp_op(PYEMU_WARP_ANY, 0xffffffffu, predicate != 0, 0, 32, PYEMU_SGARGS);
}

template <class pyemu_T>
static inline pyemu_T pyemu_sg_shfl(int pyemu_op, pyemu_T pyemu_x, unsigned pyemu_a,
                                    const char *pyemu_f, unsigned pyemu_l)
{
    unsigned long long pyemu_b = 0;
    __builtin_memcpy(&pyemu_b, &pyemu_x, sizeof pyemu_x);
    pyemu_b = pyemu_warp_op(pyemu_op, 0xffffffffu, pyemu_b, (int)pyemu_a, 32, PYEMU_SGARGS);
    pyemu_T pyemu_r;
    __builtin_memcpy(&pyemu_r, &pyemu_b, sizeof pyemu_r);
    return pyemu_r;
}

template <class pyemu_T> struct pyemu_sg_id;
#define PYEMU_SG_ID(pyemu_T, MIN_ID, MAX_ID)                                                           \
    template <> struct pyemu_sg_id<pyemu_T> {                                                          \
        static pyemu_T add() { return (pyemu_T)0; }                                                          \
        static pyemu_T min() { return MIN_ID; }                                                        \
        static pyemu_T max() { return MAX_ID; }                                                        \
    };
PYEMU_SG_ID(int, INT_MAX, INT_MIN)
PYEMU_SG_ID(uint, UINT_MAX, 0u)
PYEMU_SG_ID(long, (long)LLONG_MAX, (long)LLONG_MIN)
PYEMU_SG_ID(ulong, (ulong)ULLONG_MAX, (ulong)0)
PYEMU_SG_ID(float, __builtin_inff(), -__builtin_inff())
PYEMU_SG_ID(double, __builtin_inf(), -__builtin_inf())
#undef PYEMU_SG_ID

/* the operators, each with its identity (the exclusive scan's first value) */
struct pyemu_sg_add { template <class pyemu_T> static pyemu_T pyemu_op(pyemu_T pyemu_a2, pyemu_T pyemu_b2) { return pyemu_a2 + pyemu_b2; } template <class pyemu_T> static pyemu_T pyemu_id() { return pyemu_sg_id<pyemu_T>::add(); } };
struct pyemu_sg_min { template <class pyemu_T> static pyemu_T pyemu_op(pyemu_T pyemu_a2, pyemu_T pyemu_b2) { return pyemu_b2 < pyemu_a2 ? pyemu_b2 : pyemu_a2; } template <class pyemu_T> static pyemu_T pyemu_id() { return pyemu_sg_id<pyemu_T>::min(); } };
struct pyemu_sg_max { template <class pyemu_T> static pyemu_T pyemu_op(pyemu_T pyemu_a2, pyemu_T pyemu_b2) { return pyemu_a2 < pyemu_b2 ? pyemu_b2 : pyemu_a2; } template <class pyemu_T> static pyemu_T pyemu_id() { return pyemu_sg_id<pyemu_T>::max(); } };

/* a reduction in lane order, each lane's value broadcast in turn: exact for
 * any size of sub-group, the last one included */
template <class pyemu_O, class pyemu_T>
static inline pyemu_T pyemu_sg_reduce(pyemu_T pyemu_x, const char *pyemu_f, unsigned pyemu_l)
{
    const unsigned pyemu_n = get_sub_group_size();
    pyemu_T pyemu_acc = pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, 0, pyemu_f, pyemu_l);
    for (unsigned pyemu_i = 1; pyemu_i < pyemu_n; pyemu_i++)
        pyemu_acc = pyemu_O::pyemu_op(pyemu_acc, pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, pyemu_i, pyemu_f, pyemu_l));
    return pyemu_acc;
}
template <class pyemu_O, class pyemu_T>
static inline pyemu_T pyemu_sg_scan(pyemu_T pyemu_x, bool pyemu_incl, const char *pyemu_f, unsigned pyemu_l)
{
    const unsigned pyemu_me = get_sub_group_local_id(), pyemu_n = get_sub_group_size();
    pyemu_T pyemu_acc = pyemu_O::template pyemu_id<pyemu_T>();
    pyemu_T pyemu_r = pyemu_acc;
    for (unsigned pyemu_i = 0; pyemu_i < pyemu_n; pyemu_i++) {
        pyemu_T pyemu_v = pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, pyemu_i, pyemu_f, pyemu_l);
        if (pyemu_i == pyemu_me && !pyemu_incl)
            pyemu_r = pyemu_acc;
        pyemu_acc = pyemu_i == 0 ? pyemu_v : pyemu_O::pyemu_op(pyemu_acc, pyemu_v);
        if (pyemu_i == pyemu_me && pyemu_incl)
            pyemu_r = pyemu_acc;
    }
    return pyemu_r;
}

#define PYEMU_SG_TYPE(pyemu_T)                                                                          \
    static inline pyemu_T sub_group_broadcast(pyemu_T pyemu_x, uint pyemu_lane, PYEMU_SGLOC)             \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, pyemu_lane, pyemu_f, pyemu_l); }        \
    static inline pyemu_T sub_group_reduce_add(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_reduce<pyemu_sg_add>(x, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_reduce_min(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_reduce<pyemu_sg_min>(x, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_reduce_max(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_reduce<pyemu_sg_max>(x, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_scan_inclusive_add(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_scan<pyemu_sg_add>(x, true, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_scan_inclusive_min(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_scan<pyemu_sg_min>(x, true, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_scan_inclusive_max(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_scan<pyemu_sg_max>(x, true, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_scan_exclusive_add(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_scan<pyemu_sg_add>(x, false, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_scan_exclusive_min(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_scan<pyemu_sg_min>(x, false, pyemu_f, pyemu_l); } \
    static inline pyemu_T sub_group_scan_exclusive_max(pyemu_T x, PYEMU_SGLOC) { return pyemu_sg_scan<pyemu_sg_max>(x, false, pyemu_f, pyemu_l); }
PYEMU_SG_TYPE(int)
PYEMU_SG_TYPE(uint)
PYEMU_SG_TYPE(long)
PYEMU_SG_TYPE(ulong)
PYEMU_SG_TYPE(float)
PYEMU_SG_TYPE(double)
#undef PYEMU_SG_TYPE

/* cl_khr_subgroup_shuffle and cl_khr_subgroup_shuffle_relative */
#define PYEMU_SG_SHUFFLE(pyemu_T)                                                                          \
    static inline pyemu_T sub_group_shuffle(pyemu_T pyemu_x, uint pyemu_lane, PYEMU_SGLOC)             \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, pyemu_lane, pyemu_f, pyemu_l); }         \
    static inline pyemu_T sub_group_shuffle_xor(pyemu_T pyemu_x, uint pyemu_m, PYEMU_SGLOC)                       \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL_XOR, pyemu_x, pyemu_m, pyemu_f, pyemu_l); }                    \
    static inline pyemu_T sub_group_shuffle_up(pyemu_T pyemu_x, uint pyemu_d, PYEMU_SGLOC)                       \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL_UP, pyemu_x, pyemu_d, pyemu_f, pyemu_l); }                    \
    static inline pyemu_T sub_group_shuffle_down(pyemu_T pyemu_x, uint pyemu_d, PYEMU_SGLOC)                     \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL_DOWN, pyemu_x, pyemu_d, pyemu_f, pyemu_l); }
PYEMU_SG_SHUFFLE(char)
PYEMU_SG_SHUFFLE(uchar)
PYEMU_SG_SHUFFLE(short)
PYEMU_SG_SHUFFLE(ushort)
PYEMU_SG_SHUFFLE(int)
PYEMU_SG_SHUFFLE(uint)
PYEMU_SG_SHUFFLE(long)
PYEMU_SG_SHUFFLE(ulong)
PYEMU_SG_SHUFFLE(float)
PYEMU_SG_SHUFFLE(double)
#undef PYEMU_SG_SHUFFLE

/* The type sub_group_shuffle* and sub_group_broadcast move when a block
 * function does them inline (pyemu/compiler/regions/warpcut.py's fast
 * form): the parameter type overload resolution picks above, by the same
 * resolution over the same types (declarations only: decltype uses them). */
template <class pyemu_X> pyemu_X pyemu_wdecl(void) noexcept;
#define PYEMU_SG_SEL(pyemu_T) pyemu_T pyemu_wsel_sg(pyemu_T);
PYEMU_SG_SEL(char) PYEMU_SG_SEL(uchar) PYEMU_SG_SEL(short) PYEMU_SG_SEL(ushort)
PYEMU_SG_SEL(int) PYEMU_SG_SEL(uint) PYEMU_SG_SEL(long) PYEMU_SG_SEL(ulong)
PYEMU_SG_SEL(float) PYEMU_SG_SEL(double)
#undef PYEMU_SG_SEL
#define PYEMU_SG_SEL(pyemu_T) pyemu_T pyemu_wsel_bc(pyemu_T);
PYEMU_SG_SEL(int) PYEMU_SG_SEL(uint) PYEMU_SG_SEL(long) PYEMU_SG_SEL(ulong)
PYEMU_SG_SEL(float) PYEMU_SG_SEL(double)
#undef PYEMU_SG_SEL
template <class pyemu_X> using pyemu_wt_sg = decltype(pyemu_wsel_sg(pyemu_wdecl<pyemu_X>()));
template <class pyemu_X> using pyemu_wt_bc = decltype(pyemu_wsel_bc(pyemu_wdecl<pyemu_X>()));

/* cl_khr_subgroup_ballot.  A sub-group has 32 work-items, so a ballot's bits
 * are all in its first component (the other three are 0).  sub_group_ballot
 * need not be reached by the whole sub-group: its bits are those of the
 * work-items that reach it (arg 1 of the core's ballot), the others being
 * the ones that reach a barrier or return instead; one that reaches another
 * sub-group function first still fails the launch.  The non-uniform
 * broadcasts are rendezvous of the whole sub-group: in a branch that only
 * part of it takes, the launch fails naming the work-items that never
 * arrived (never a wrong value).  The functions are templates
 * over the ballot type (uint4) so that a kernel that uses none of them
 * instantiates no vector class. */
static inline uint pyemu_sg_below(uint pyemu_n)   /* the bits of lanes below n (n <= 32) */
{
    return pyemu_n >= 32u ? 0xffffffffu : (1u << pyemu_n) - 1u;
}
template <class pyemu_U = uint4>
static inline pyemu_U pyemu_sg_mask4(uint pyemu_b) { return pyemu_U(pyemu_b, 0u, 0u, 0u); }

template <class pyemu_U = uint4>
static inline pyemu_U sub_group_ballot(int pyemu_pred, PYEMU_SGLOC)
{
    return pyemu_sg_mask4<pyemu_U>((uint)pyemu_warp_op(PYEMU_WARP_BALLOT, 0xffffffffu, pyemu_pred != 0, 1, 32, PYEMU_SGARGS));
}
template <class pyemu_U>
static inline int sub_group_inverse_ballot(const pyemu_U &pyemu_v)
{
    return (int)((pyemu_v[0] >> get_sub_group_local_id()) & 1u);
}
template <class pyemu_U>
static inline int sub_group_ballot_bit_extract(const pyemu_U &pyemu_v, uint pyemu_i)
{
    return pyemu_i < 128u ? (int)((pyemu_v[(int)(pyemu_i >> 5)] >> (pyemu_i & 31u)) & 1u) : 0;
}
template <class pyemu_U>
static inline uint sub_group_ballot_bit_count(const pyemu_U &pyemu_v)
{
    return (uint)__builtin_popcount(pyemu_v[0] & pyemu_sg_below(get_sub_group_size()));
}
template <class pyemu_U>
static inline uint sub_group_ballot_inclusive_scan(const pyemu_U &pyemu_v)
{
    return (uint)__builtin_popcount(pyemu_v[0] & pyemu_sg_below(get_sub_group_local_id() + 1u));
}
template <class pyemu_U>
static inline uint sub_group_ballot_exclusive_scan(const pyemu_U &pyemu_v)
{
    return (uint)__builtin_popcount(pyemu_v[0] & pyemu_sg_below(get_sub_group_local_id()));
}
/* find_lsb / find_msb of a ballot without a bit in the sub-group are
 * undefined in the extension; pyemu answers 0xffffffff. */
template <class pyemu_U>
static inline uint sub_group_ballot_find_lsb(const pyemu_U &pyemu_v)
{
    uint pyemu_m = pyemu_v[0] & pyemu_sg_below(get_sub_group_size());
    return pyemu_m ? (uint)__builtin_ctz(pyemu_m) : 0xffffffffu;
}
template <class pyemu_U>
static inline uint sub_group_ballot_find_msb(const pyemu_U &pyemu_v)
{
    uint pyemu_m = pyemu_v[0] & pyemu_sg_below(get_sub_group_size());
    return pyemu_m ? 31u - (uint)__builtin_clz(pyemu_m) : 0xffffffffu;
}
template <class pyemu_U = uint4> static inline pyemu_U get_sub_group_eq_mask(void) { return pyemu_sg_mask4<pyemu_U>(1u << get_sub_group_local_id()); }
template <class pyemu_U = uint4> static inline pyemu_U get_sub_group_ge_mask(void) { return pyemu_sg_mask4<pyemu_U>(pyemu_sg_below(get_sub_group_size()) & ~pyemu_sg_below(get_sub_group_local_id())); }
template <class pyemu_U = uint4> static inline pyemu_U get_sub_group_gt_mask(void) { return pyemu_sg_mask4<pyemu_U>(pyemu_sg_below(get_sub_group_size()) & ~pyemu_sg_below(get_sub_group_local_id() + 1u)); }
template <class pyemu_U = uint4> static inline pyemu_U get_sub_group_le_mask(void) { return pyemu_sg_mask4<pyemu_U>(pyemu_sg_below(get_sub_group_local_id() + 1u)); }
template <class pyemu_U = uint4> static inline pyemu_U get_sub_group_lt_mask(void) { return pyemu_sg_mask4<pyemu_U>(pyemu_sg_below(get_sub_group_local_id())); }

#define PYEMU_SG_NU_BROADCAST(pyemu_T)                                                                    \
    static inline pyemu_T sub_group_non_uniform_broadcast(pyemu_T pyemu_x, uint pyemu_lane, PYEMU_SGLOC) \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, pyemu_lane, pyemu_f, pyemu_l); }         \
    static inline pyemu_T sub_group_broadcast_first(pyemu_T pyemu_x, PYEMU_SGLOC)                               \
    { return pyemu_sg_shfl<pyemu_T>(PYEMU_WARP_SHFL, pyemu_x, 0u, pyemu_f, pyemu_l); }
PYEMU_SG_NU_BROADCAST(char)
PYEMU_SG_NU_BROADCAST(uchar)
PYEMU_SG_NU_BROADCAST(short)
PYEMU_SG_NU_BROADCAST(ushort)
PYEMU_SG_NU_BROADCAST(int)
PYEMU_SG_NU_BROADCAST(uint)
PYEMU_SG_NU_BROADCAST(long)
PYEMU_SG_NU_BROADCAST(ulong)
PYEMU_SG_NU_BROADCAST(float)
PYEMU_SG_NU_BROADCAST(double)
#undef PYEMU_SG_NU_BROADCAST
