/* <cooperative_groups/reduce.h>: cg::reduce(tile, value, op) over a
 * thread_block_tile<N>: every thread of the tile gets op over the tile's
 * values (one collective for 32-bit integers with cg's operators, else a
 * butterfly of shuffles, log2(N) steps). */
#ifndef PYEMU_CG_REDUCE_H
#define PYEMU_CG_REDUCE_H
#include "functional.h"

namespace cooperative_groups {
/* 32-bit integers with cg's own operators reduce in one collective, as
 * redux.sync does on sm_80 and later (lanes past a partial warp left out) */
template <class pyemu_T, class pyemu_Op> struct pyemu_redux { static const int op = -1; };
#define PYEMU_REDUX(F, T, OP) template <> struct pyemu_redux<T, F<T> > { static const int op = OP; };
PYEMU_REDUX(plus, int, PYEMU_WARP_ADD) PYEMU_REDUX(plus, unsigned, PYEMU_WARP_ADD)
PYEMU_REDUX(less, int, PYEMU_WARP_MIN) PYEMU_REDUX(less, unsigned, PYEMU_WARP_UMIN)
PYEMU_REDUX(greater, int, PYEMU_WARP_MAX) PYEMU_REDUX(greater, unsigned, PYEMU_WARP_UMAX)
PYEMU_REDUX(bit_and, int, PYEMU_WARP_AND) PYEMU_REDUX(bit_and, unsigned, PYEMU_WARP_AND)
PYEMU_REDUX(bit_or, int, PYEMU_WARP_OR) PYEMU_REDUX(bit_or, unsigned, PYEMU_WARP_OR)
PYEMU_REDUX(bit_xor, int, PYEMU_WARP_XOR) PYEMU_REDUX(bit_xor, unsigned, PYEMU_WARP_XOR)
#undef PYEMU_REDUX

/* a tile of more than 32 threads (whole warps): each warp reduces, lane 0
 * of each puts its value in the block_tile_memory, and after a barrier of
 * the block every thread combines its tile's warps in order */
template <unsigned pyemu_N, bool pyemu_multi = (pyemu_N > 32)> struct pyemu_tile_reduce {
    template <class pyemu_G, class pyemu_T, class pyemu_Op>
    static pyemu_T run(const pyemu_G &, pyemu_T value, pyemu_Op, const char *, unsigned) { return value; }
};
template <unsigned pyemu_N> struct pyemu_tile_reduce<pyemu_N, true> {
    template <class pyemu_G, class pyemu_T, class pyemu_Op>
    static pyemu_T run(const pyemu_G &g, pyemu_T value, pyemu_Op op, const char *pyemu_f, unsigned pyemu_l) {
        static_assert(sizeof(pyemu_T) <= 8, "pyemu: cg::reduce over more than 32 threads moves values of up to 8 bytes");
        if (!g.pyemu_scratch)
            pyemu_assert_fail("tiles of more than 32 threads need cg::block_tile_memory given to "
                              "this_thread_block(scratch) in pyemu", pyemu_f, pyemu_l, "cg::reduce");
        const unsigned t = pyemu_detail::linear_tid(), wid = t / 32, per = pyemu_N / 32;
        const unsigned nwarps = (pyemu_detail::block_threads() + 31) / 32;
        thread_block_tile<32, void> warp(wid, nwarps);
        pyemu_T w = reduce(warp, value, op, pyemu_f, pyemu_l); /* found at instantiation */
        if ((t & 31u) == 0)
            __builtin_memcpy(&g.pyemu_scratch[wid], &w, sizeof w);
        pyemu_warp_op(PYEMU_TILE_SYNC, pyemu_N, 0, 0, 32, "cooperative_groups/reduce.h: cg::reduce", 1, 0u);
        const unsigned first = wid / per * per;
        pyemu_T r;
        __builtin_memcpy(&r, &g.pyemu_scratch[first], sizeof r);
        for (unsigned k = 1; k < per && first + k < nwarps; k++) {
            pyemu_T x;
            __builtin_memcpy(&x, &g.pyemu_scratch[first + k], sizeof x);
            r = op(r, x);
        }
        pyemu_warp_op(PYEMU_TILE_SYNC, pyemu_N, 0, 0, 32, "cooperative_groups/reduce.h: cg::reduce", 2, 0u);
        return r;
    }
};

template <unsigned pyemu_N, class pyemu_P, class pyemu_T, class pyemu_Op>
static inline pyemu_T reduce(const thread_block_tile<pyemu_N, pyemu_P> &g, pyemu_T value, pyemu_Op op, PYEMU_WLOC) {
    if (pyemu_N > 32)
        return pyemu_tile_reduce<pyemu_N>::run(g, value, op, pyemu_f, pyemu_l);
    if (pyemu_redux<pyemu_T, pyemu_Op>::op >= 0)
        return (pyemu_T)(unsigned)pyemu_warp_op(pyemu_redux<pyemu_T, pyemu_Op>::op, g.pyemu_tile_mask(),
                                          (unsigned)value, 0, 32, PYEMU_WARGS);
    /* other types and operators: a butterfly of shuffles, as the GPU's;
     * a lane past the end of a partial warp gives 0, as an H100's does */
    for (unsigned m = (pyemu_N > 32 ? 32 : pyemu_N) / 2; m > 0; m /= 2)
        value = op(value, g.shfl_xor(value, m, pyemu_f, pyemu_l));
    return value;
}
}  // namespace cooperative_groups
#endif
