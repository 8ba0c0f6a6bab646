/* <cooperative_groups/scan.h>: cg::inclusive_scan / cg::exclusive_scan over a
 * thread_block_tile<N> (op defaults to cg::plus); the thread of rank 0 gets
 * T() from exclusive_scan (CUDA leaves it undefined). */
#ifndef PYEMU_CG_SCAN_H
#define PYEMU_CG_SCAN_H
#include "functional.h"

namespace cooperative_groups {
template <unsigned N, class P, class T, class Op>
static inline T inclusive_scan(const thread_block_tile<N, P> &g, T value, Op op, PYEMU_WLOC) {
    const unsigned r = (unsigned)g.thread_rank();
    for (unsigned d = 1; d < N; d *= 2) {
        T y = g.shfl_up(value, d, pyemu_f, pyemu_l);
        if (r >= d)
            value = op(y, value);
    }
    return value;
}
template <unsigned N, class P, class T>
static inline T inclusive_scan(const thread_block_tile<N, P> &g, T value, PYEMU_WLOC) {
    return inclusive_scan(g, value, plus<T>(), pyemu_f, pyemu_l);
}
template <unsigned N, class P, class T, class Op>
static inline T exclusive_scan(const thread_block_tile<N, P> &g, T value, Op op, PYEMU_WLOC) {
    T inc = inclusive_scan(g, value, op, pyemu_f, pyemu_l);
    T ex = g.shfl_up(inc, 1, pyemu_f, pyemu_l);
    return g.thread_rank() == 0 ? T() : ex;
}
template <unsigned N, class P, class T>
static inline T exclusive_scan(const thread_block_tile<N, P> &g, T value, PYEMU_WLOC) {
    return exclusive_scan(g, value, plus<T>(), pyemu_f, pyemu_l);
}
}  // namespace cooperative_groups
#endif
