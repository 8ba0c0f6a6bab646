/* warp.c - warp collectives: shuffles, votes, match, reduce and __syncwarp.
 *
 * One implementation shared by the CUDA intrinsics (detail/cuda_warp.h),
 * cooperative groups (cooperative_groups.h) and OpenCL sub-groups
 * (detail/cl_subgroup.h).  A collective is a rendezvous of the lanes its
 * mask names: none gets its result before all of them are there.
 *
 * It runs on the block's fibers (block.c), which take turns in index order
 * between barriers.  A lane that reaches a collective records its value and
 * hands the worker to the next lane of the mask that is not there yet (it
 * always has a higher index: lower lanes had their turn first); the last
 * lane to arrive computes every lane's result and hands back to the lowest
 * waiting lane, so the lanes of the warp then go on in index order, and
 * the block's turn order (block.c) is kept.  Only one collective can be
 * pending at a time (the lanes it waits for are the ones that run), so its
 * state is one per worker.  A lane named in the pending collective that
 * reaches another collective, a barrier or its end instead fails the
 * launch: on a GPU that program hangs or reads garbage.
 *
 * A kernel unit that uses collectives runs its blocks on fibers: after
 * thread 0 (plain, on the worker's stack) returns, the others become fibers
 * (pyemu_first_thread_done_warp), and the first collective thread 0 reaches
 * turns the block into fibers as a barrier does.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARP 32u

/* the pending collective of this worker (one at a time, see above) */
typedef struct warp_pending {
    unsigned int want, arrived; /* lanes named / lanes there */
    unsigned int warp;          /* which warp of the block */
    int op, width;
    int partial;                /* over the lanes that reach it (sub_group_ballot) */
    unsigned int asked;         /* the mask as the lanes gave it */
    const char *file;
    unsigned int line, col;
    unsigned long long val[WARP];
    int arg[WARP];
} warp_pending;

typedef struct warp_state {
    warp_pending pend;
    unsigned long long res[PYEMU_MAX_THREADS_PER_BLOCK]; /* each thread's last result */
    unsigned int exited_lanes[PYEMU_MAX_THREADS_PER_BLOCK / WARP];
} warp_state;

/* per worker; small TLS only (the core is dlopened: static TLS is scarce) */
__thread int pyemu_warp_busy;                        /* a collective is pending */
static __thread warp_state *ws;
#define pend (ws->pend)
#define res (ws->res)
#define exited_lanes (ws->exited_lanes)

/* CUDA's names, each after PYEMU_T_OP: OpenCL's words say "a sub-group
 * function" instead (pyemu/runtime/faults.py) */
static const char *const op_names[] = {
    [PYEMU_WARP_SHFL] = PYEMU_T_OP "__shfl_sync",
    [PYEMU_WARP_SHFL_UP] = PYEMU_T_OP "__shfl_up_sync",
    [PYEMU_WARP_SHFL_DOWN] = PYEMU_T_OP "__shfl_down_sync",
    [PYEMU_WARP_SHFL_XOR] = PYEMU_T_OP "__shfl_xor_sync",
    [PYEMU_WARP_BALLOT] = PYEMU_T_OP "__ballot_sync",
    [PYEMU_WARP_ANY] = PYEMU_T_OP "__any_sync",
    [PYEMU_WARP_ALL] = PYEMU_T_OP "__all_sync",
    [PYEMU_WARP_MATCH_ANY] = PYEMU_T_OP "__match_any_sync",
    [PYEMU_WARP_MATCH_ALL] = PYEMU_T_OP "__match_all_sync",
    [PYEMU_WARP_ADD] = PYEMU_T_OP "__reduce_add_sync",
    [PYEMU_WARP_MIN] = PYEMU_T_OP "__reduce_min_sync",
    [PYEMU_WARP_MAX] = PYEMU_T_OP "__reduce_max_sync",
    [PYEMU_WARP_UMIN] = PYEMU_T_OP "__reduce_min_sync",
    [PYEMU_WARP_UMAX] = PYEMU_T_OP "__reduce_max_sync",
    [PYEMU_WARP_AND] = PYEMU_T_OP "__reduce_and_sync",
    [PYEMU_WARP_OR] = PYEMU_T_OP "__reduce_or_sync",
    [PYEMU_WARP_XOR] = PYEMU_T_OP "__reduce_xor_sync",
    [PYEMU_WARP_SYNC] = PYEMU_T_OP "__syncwarp",
};

/* the CUDA name of a collective, for messages (warp_block.c too) */
const char *pyemu_warp_name(int op)
{
    return op >= 0 && op < PYEMU_WARP_NOPS && op_names[op] ? op_names[op] : "a warp collective";
}

static unsigned int lanes_in(const pyemu_worker *w, unsigned int warp)
{
    unsigned int n = w->nthreads - warp * WARP;
    return n >= WARP ? 0xffffffffu : (1u << n) - 1u;
}

static unsigned int linear_of(void)
{
    const pyemu_thread_ctx *c = &pyemu_tctx;
    return c->threadIdx.x + c->blockDim.x * (c->threadIdx.y + c->blockDim.y * c->threadIdx.z);
}

/* "0,3,5": the lanes of mask m, for messages (warp_block.c too) */
void pyemu_warp_lanes_text(unsigned int m, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (unsigned int l = 0; l < WARP && at + 4 < len; l++)
        if (m >> l & 1u)
            at += (size_t)snprintf(buf + at, len - at, "%s%u", at ? "," : "", l);
}

static __attribute__((noinline, cold, noreturn)) void
warp_fail(pyemu_worker *w, unsigned int warp, unsigned int lanes, const char *why)
{
    char l[128], a[128];
    pyemu_warp_lanes_text(lanes, l, sizeof l);
    pyemu_warp_lanes_text(pend.arrived, a, sizeof a);
    pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                      PYEMU_T_WARP " %u: %s at %s:%u" PYEMU_T_CUDA " (mask 0x%08x) is reached by "
                      PYEMU_T_LANES " %s, but " PYEMU_T_LANES " %s %s; " PYEMU_T_RULE,
                      warp, pyemu_warp_name(pend.op), pend.file, pend.line, pend.want, a, l, why);
}

void pyemu_block_reorder(void); /* block.c */
void pyemu_block_tile_sync(pyemu_worker *w, unsigned int n, const char *file, unsigned int line);
static void complete(pyemu_worker *w);

/* Clear the per-block state: called when a block becomes fibers. */
void pyemu_warp_reset(void)
{
    pyemu_warp_busy = 0;
    if (!ws && !(ws = calloc(1, sizeof *ws)))
        pyemu_kernel_fail(pyemu_self, PYEMU_E_LAUNCH_FAILURE,
                          "out of host memory for the warp state of a worker");
    memset(exited_lanes, 0, sizeof exited_lanes);
}

/* The running lane leaves the warp's collectives behind: it reached a
 * barrier (site) or returned (site NULL) while a collective waits for it. */
PYEMU_KSUPPORT void pyemu_warp_leave(pyemu_worker *w, const char *site)
{
    if (!pyemu_warp_busy)
        return;
    unsigned int lane = w->cur % WARP;
    if (pend.partial && pend.warp == w->cur / WARP) {
        /* not one of the lanes that reach it: the others' result leaves it
         * out; the lanes then no longer stop in index order (block.c) */
        pend.want &= ~(1u << lane);
        pyemu_block_reorder();
        if (!(pend.want & ~pend.arrived)) {
            complete(w);
            pyemu_warp_busy = 0;
        }
        return;
    }
    char why[200], l[128];
    pyemu_warp_lanes_text(pend.arrived, l, sizeof l);
    if (site)
        snprintf(why, sizeof why, "reaches a barrier at %.*s instead",
                 (int)(strchr(site, '#') ? strchr(site, '#') - site : (long)strlen(site)), site);
    else
        snprintf(why, sizeof why, "returns without reaching it");
    pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                      PYEMU_T_WARP " %u: " PYEMU_T_LANE " %u %s, while " PYEMU_T_LANES
                      " %s wait for it at %s at %s:%u; " PYEMU_T_RULE,
                      pend.warp, lane, why, l, pyemu_warp_name(pend.op), pend.file, pend.line);
}

/* A fiber's kernel function returned (block.c, fiber mode). */
PYEMU_KSUPPORT void pyemu_warp_exit(pyemu_worker *w)
{
    if (pyemu_warp_busy)
        pyemu_warp_leave(w, NULL);
    exited_lanes[w->cur / WARP] |= 1u << (w->cur % WARP);
}

/* Every lane's result of collective `op` (see abi.h) of the lanes `m` of
 * one warp, from their values val[] and arguments arg[], into out[] (lane
 * indexed).  The one implementation of each collective's semantics: the
 * fiber path (below) and the block functions (warp_block.c) both call it. */
void pyemu_warp_compute(int op, unsigned int width, unsigned int m,
                        const unsigned long long *val, const int *arg, unsigned long long *out)
{
#define pick(live, src) ((src) < WARP && ((live) >> (src) & 1u) ? val[src] : 0ull)
#define EACH_LANE for (unsigned int l = 0; l < WARP; l++) if (m >> l & 1u)
    switch (op) {
    case PYEMU_WARP_SHFL:
        EACH_LANE {
            const unsigned int a = (unsigned int)arg[l] & 31u; /* b[4:0], as the GPU */
            out[l] = pick(m, (l & ~(width - 1u)) | (a & (width - 1u)));
        }
        return;
    case PYEMU_WARP_SHFL_UP:
        EACH_LANE {
            const unsigned int a = (unsigned int)arg[l] & 31u, lo = l & ~(width - 1u);
            const long long j = (long long)l - a;
            out[l] = j >= (long long)lo ? pick(m, (unsigned int)j) : val[l];
        }
        return;
    case PYEMU_WARP_SHFL_DOWN:
        EACH_LANE {
            const unsigned int a = (unsigned int)arg[l] & 31u, hi = (l & ~(width - 1u)) + width - 1u;
            const unsigned int j = l + a;
            out[l] = j <= hi ? pick(m, j) : val[l];
        }
        return;
    case PYEMU_WARP_SHFL_XOR:
        EACH_LANE {
            const unsigned int a = (unsigned int)arg[l] & 31u, hi = (l & ~(width - 1u)) + width - 1u;
            const unsigned int j = l ^ a;
            out[l] = j <= hi ? pick(m, j) : val[l];
        }
        return;
    case PYEMU_WARP_SYNC:
        EACH_LANE out[l] = 0;
        return;
    case PYEMU_WARP_MATCH_ANY:
        EACH_LANE {
            unsigned long long r = 0;
            for (unsigned int k = 0; k < WARP; k++)
                if ((m >> k & 1u) && val[k] == val[l])
                    r |= 1ull << k;
            out[l] = r;
        }
        return;
    case PYEMU_WARP_MATCH_ALL: {
        int all_equal = 1;
        EACH_LANE if (val[l] != val[__builtin_ctz(m)]) all_equal = 0;
        EACH_LANE out[l] = all_equal ? m : 0;
        return;
    }
    case PYEMU_WARP_BALLOT: case PYEMU_WARP_ANY: case PYEMU_WARP_ALL: {
        unsigned int bal = 0;
        EACH_LANE bal |= (unsigned int)(val[l] != 0) << l;
        const unsigned long long r = op == PYEMU_WARP_BALLOT ? bal
                                     : op == PYEMU_WARP_ANY ? bal != 0 : bal == m;
        EACH_LANE out[l] = r;
        return;
    }
    default: break;
    }
    /* the reductions (sm_80 __reduce_*_sync): 32-bit */
    unsigned long long acc = 0;
    int first = 1;
    EACH_LANE {
        const unsigned long long v = val[l];
        switch (op) {
        case PYEMU_WARP_ADD: acc = first ? v : (unsigned int)(acc + v); break;
        case PYEMU_WARP_MIN: acc = first || (int)v < (int)acc ? v : acc; break;
        case PYEMU_WARP_MAX: acc = first || (int)v > (int)acc ? v : acc; break;
        case PYEMU_WARP_UMIN: acc = first || (unsigned)v < (unsigned)acc ? v : acc; break;
        case PYEMU_WARP_UMAX: acc = first || (unsigned)v > (unsigned)acc ? v : acc; break;
        case PYEMU_WARP_AND: acc = first ? v : acc & v; break;
        case PYEMU_WARP_OR: acc = first ? v : acc | v; break;
        case PYEMU_WARP_XOR: acc = first ? v : acc ^ v; break;
        default: break;
        }
        first = 0;
    }
    EACH_LANE out[l] = acc;
#undef EACH_LANE
#undef pick
}

/* Every lane's result of the pending collective, into res[]. */
static void complete(pyemu_worker *w)
{
    pyemu_warp_compute(pend.op, (unsigned int)pend.width, pend.arrived, pend.val, pend.arg,
                       res + pend.warp * WARP);
    (void)w;
}

static int is_shuffle(int op)
{
    return op == PYEMU_WARP_SHFL || op == PYEMU_WARP_SHFL_UP || op == PYEMU_WARP_SHFL_DOWN ||
           op == PYEMU_WARP_SHFL_XOR;
}

static __attribute__((noinline, cold, noreturn)) void
not_named(pyemu_worker *w, int op, unsigned int mask, unsigned int lane, const char *file,
          unsigned int line)
{
    pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                      "%s at %s:%u: the mask 0x%08x does not name the calling lane %u; a lane "
                      "must be named in its own mask", pyemu_warp_name(op), file, line, mask, lane);
}

int pyemu_block_fibers_for_warp(pyemu_worker *w); /* block.c */
void pyemu_block_step(pyemu_worker *w);
unsigned int pyemu_block_lanes_at_barrier(pyemu_worker *w, unsigned int warp, int *stepped,
                                          int always);
unsigned long long pyemu_grid_op(int op, const char *file, unsigned int line); /* grid.c */
void pyemu_block_switch(pyemu_worker *w, unsigned int next);

/* pyemu_warp_step (abi.h, block.c): the lanes of the warp still running
 * take turns.  Inside a pending collective the lanes already go to it (a
 * lane named there that steps first is on its way), so a step is nothing
 * then; nor is it outside a kernel (host code of a CUDA file). */
static void warp_step(pyemu_worker *w)
{
    if (!w || !w->in_kernel || pyemu_warp_busy)
        return;
    if (!w->fiber_mode) {
        if (linear_of() != 0)
            pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                              "a warp step reached outside pyemu's warp mode (a bug of pyemu, "
                              "please report it)");
        if (pyemu_block_fibers_for_warp(w))
            return; /* a block of one thread */
    }
    pyemu_block_step(w);
}

/* A lane reaches a collective; returns its result (see abi.h). */
PYEMU_API PYEMU_KSUPPORT unsigned long long
pyemu_warp_op(int op, unsigned int mask, unsigned long long value, int arg, int width,
              const char *file, unsigned int line, unsigned int col)
{
    pyemu_worker *w = pyemu_self;
    if (op == PYEMU_WARP_STEP) {
        warp_step(w);
        return 0;
    }
    if (__builtin_expect(op == PYEMU_GRID_SYNC, 0))
        return pyemu_grid_op(op, file, line);
    if (op == PYEMU_TILE_SYNC) {
        pyemu_block_tile_sync(w, mask, file, line);
        return 0;
    }
    if (op < 0 || op >= PYEMU_WARP_NOPS)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "unknown warp collective %d", op);
    if (is_shuffle(op) && (width < 1 || width > 32 || (width & (width - 1))))
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                          "%s at %s:%u: width %d is not a power of 2 from 1 to 32 (warpSize)",
                          pyemu_warp_name(op), file, line, width);
    if (!is_shuffle(op))
        width = 32;
    if (!w->fiber_mode) {
        if (linear_of() != 0)
            pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                              "%s at %s:%u reached outside pyemu's warp mode; build the kernel "
                              "with its collectives visible in the source (pyemu bug)",
                              pyemu_warp_name(op), file, line);
        if (pyemu_block_fibers_for_warp(w)) {
            /* a block of one thread: a warp of one lane */
            pyemu_warp_reset();
            pend.want = pend.arrived = 1;
            pend.warp = 0;
            pend.op = op;
            pend.width = width;
            pend.val[0] = value;
            pend.arg[0] = arg;
            if (!(mask & 1u))
                not_named(w, op, mask, 0, file, line);
            complete(w);
            return res[0];
        }
    }
    const unsigned int me = w->cur, warp = me / WARP, lane = me % WARP;
    const unsigned int live = lanes_in(w, warp) & ~exited_lanes[warp];
    if (!(mask >> lane & 1u))
        not_named(w, op, mask, lane, file, line);
    /* lanes past the end of a partial warp are not there, as on a GPU */
    mask &= lanes_in(w, warp);
    if (pyemu_warp_busy) {
        if (pend.warp != warp || pend.op != op || pend.line != line || pend.col != col ||
            strcmp(pend.file, file) != 0) {
            if (!(op == PYEMU_WARP_SYNC && pend.op == op && pend.warp == warp)) {
                char why[200];
                snprintf(why, sizeof why, "reaches %s at %s:%u instead", pyemu_warp_name(op), file, line);
                warp_fail(w, warp, 1u << lane, why);
            }
        }
        if (pend.asked != mask) {
            char why[200];
            snprintf(why, sizeof why, "reaches it with mask 0x%08x instead", mask);
            warp_fail(w, warp, 1u << lane, why);
        }
    } else {
        pend.want = pend.asked = mask;
        pend.partial = op == PYEMU_WARP_BALLOT && arg == 1;
        pend.arrived = 0;
        pend.warp = warp;
        pend.op = op;
        pend.width = width;
        pend.file = file;
        pend.line = line;
        pend.col = col;
        pyemu_warp_busy = 1;
    }
    pend.val[lane] = value;
    pend.arg[lane] = arg;
    pend.arrived |= 1u << lane;
    unsigned int missing = pend.want & ~pend.arrived;
    int stepped;
    const unsigned int stuck = pyemu_block_lanes_at_barrier(w, warp, &stepped, pend.partial);
    if (pend.partial && (missing & (~live | stuck))) {
        /* lanes that returned or wait at a barrier do not reach it */
        pend.want &= ~(missing & (~live | stuck));
        missing = pend.want & ~pend.arrived;
        pyemu_block_reorder();
    }
    if (missing & ~live) {
        warp_fail(w, warp, missing & ~live, "returned without reaching it");
    }
    /* lanes that wait at a block barrier never come (lower lanes wait
     * there, or at another collective, unless the block stepped: then
     * the lower lanes that run wait at a warp step, see block.c) */
    unsigned int later = missing & ~((2u << lane) - 1u);
    if ((missing & stuck) || ((missing & ~later) && !stepped)) {
        char why[200];
        snprintf(why, sizeof why, "waits at a barrier or another collective");
        warp_fail(w, warp, (missing & stuck) ? missing & stuck : missing & ~later, why);
    }
    if (later || missing) {
        /* the next named lane runs until it is here too (the lower ones
         * wait at a warp step) */
        pyemu_block_switch(w, warp * WARP + (unsigned int)__builtin_ctz(later ? later : missing));
        return res[me];
    }
    complete(w);
    pyemu_warp_busy = 0;
    unsigned int others = pend.arrived & ~(1u << lane);
    if (others)
        pyemu_block_switch(w, warp * WARP + (unsigned int)__builtin_ctz(others));
    return res[me];
}

/* __activemask(): the lanes of this warp that exist and have not returned
 * (without lockstep execution pyemu cannot tell the lanes of a branch). */
PYEMU_API PYEMU_KSUPPORT unsigned int pyemu_warp_active(void)
{
    pyemu_worker *w = pyemu_self;
    unsigned int me = w->fiber_mode ? w->cur : linear_of();
    unsigned int warp = me / WARP;
    return lanes_in(w, warp) & (w->fiber_mode ? ~exited_lanes[warp] : ~0u);
}
