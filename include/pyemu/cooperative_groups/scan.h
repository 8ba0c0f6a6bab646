/* <cooperative_groups/scan.h>: cg::inclusive_scan / cg::exclusive_scan over a
 * thread_block_tile<N> (op defaults to cg::plus); the thread of rank 0 gets
 * T() from exclusive_scan (CUDA leaves it undefined). */
#ifndef PYEMU_CG_SCAN_H
#define PYEMU_CG_SCAN_H
#include "functional.h"

namespace cooperative_groups {
template <unsigned pyemu_N, class pyemu_P, class pyemu_T, class pyemu_Op>
static inline pyemu_T inclusive_scan(const thread_block_tile<pyemu_N, pyemu_P> &g, pyemu_T value, pyemu_Op op, PYEMU_WLOC) {
    const unsigned r = (unsigned)g.thread_rank();
    for (unsigned d = 1; d < pyemu_N; d *= 2) {
        pyemu_T y = g.shfl_up(value, d, pyemu_f, pyemu_l);
        if (r >= d)
            value = op(y, value);
    }
    return value;
}
template <unsigned pyemu_N, class pyemu_P, class pyemu_T>
static inline pyemu_T inclusive_scan(const thread_block_tile<pyemu_N, pyemu_P> &g, pyemu_T value, PYEMU_WLOC) {
    return inclusive_scan(g, value, plus<pyemu_T>(), pyemu_f, pyemu_l);
}
template <unsigned pyemu_N, class pyemu_P, class pyemu_T, class pyemu_Op>
static inline pyemu_T exclusive_scan(const thread_block_tile<pyemu_N, pyemu_P> &g, pyemu_T value, pyemu_Op op, PYEMU_WLOC) {
    pyemu_T inc = inclusive_scan(g, value, op, pyemu_f, pyemu_l);
    pyemu_T ex = g.shfl_up(inc, 1, pyemu_f, pyemu_l);
    return g.thread_rank() == 0 ? pyemu_T() : ex;
}
template <unsigned pyemu_N, class pyemu_P, class pyemu_T>
static inline pyemu_T exclusive_scan(const thread_block_tile<pyemu_N, pyemu_P> &g, pyemu_T value, PYEMU_WLOC) {
    return exclusive_scan(g, value, plus<pyemu_T>(), pyemu_f, pyemu_l);
}
}  // namespace cooperative_groups
#endif
