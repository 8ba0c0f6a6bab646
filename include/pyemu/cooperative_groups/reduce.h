/* <cooperative_groups/reduce.h>: cg::reduce(tile, value, op) over a
 * thread_block_tile<N>: every thread of the tile gets op over the tile's
 * values (a butterfly of shuffles, log2(N) steps; in rank order when a
 * partial warp cuts the tile short). */
#ifndef PYEMU_CG_REDUCE_H
#define PYEMU_CG_REDUCE_H
#include "functional.h"

namespace cooperative_groups {
template <unsigned N, class P, class T, class Op>
static inline T reduce(const thread_block_tile<N, P> &g, T value, Op op, PYEMU_WLOC) {
    const unsigned full = N >= 32 ? 0xffffffffu : (1u << N) - 1u;
    const unsigned live = (__activemask() >> g.pyemu_base()) & full;
    if (live == full) {
        for (unsigned m = N / 2; m > 0; m /= 2)
            value = op(value, g.shfl_xor(value, m, pyemu_f, pyemu_l));
        return value;
    }
    /* the tile is cut short by a partial warp: fold its threads in rank order */
    T acc = g.shfl(value, 0, pyemu_f, pyemu_l);
    for (unsigned r = 1; r < N && (live >> r & 1u); r++)
        acc = op(acc, g.shfl(value, (int)r, pyemu_f, pyemu_l));
    return acc;
}
}  // namespace cooperative_groups
#endif
