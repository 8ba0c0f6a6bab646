/* block.c - running one thread block: a plain loop, or fibers once a barrier is hit.
 *
 * Every block starts as a plain loop on the worker's own stack (the kernel's
 * run_block, see include/pyemu/detail/kernel_entry.hpp).  Thread 0 runs
 * first; if it returns without a barrier, the others run one after another
 * with no switch at all.  If thread 0 reaches __syncthreads(), the block
 * becomes fibers: thread 0 keeps the worker's stack, threads 1..n-1 get
 * their own, and each barrier passes control round-robin 0, 1, ..., n-1.
 * A barrier that only part of the block reaches fails the launch instead
 * of hanging.  A barrier is told by its site string, which the device
 * headers make unique per barrier written in the source ("file:line#n",
 * see PYEMU_SITE); messages show its "file:line".
 */
#include "core.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__thread pyemu_thread_ctx pyemu_tctx __attribute__((tls_model("initial-exec"))) PYEMU_API;

/* warp collectives (warp.c) */
extern __thread int pyemu_warp_busy;
void pyemu_warp_reset(void);
void pyemu_warp_leave(pyemu_worker *w, const char *site);
void pyemu_warp_exit(pyemu_worker *w);

/* cooperative launches (grid.c) */
void pyemu_grid_run(pyemu_worker *w, uint64_t linear);
int pyemu_grid_launch(const pyemu_cmd *cmd);

void pyemu_fmt_dim(char *buf, size_t len, pyemu_uint3 v)
{
    snprintf(buf, len, "(%u,%u,%u)", v.x, v.y, v.z);
}

static pyemu_uint3 tid_of(unsigned int linear)
{
    pyemu_uint3 t;
    const pyemu_uint3 d = pyemu_tctx.blockDim;
    t.x = linear % d.x;
    t.y = (linear / d.x) % d.y;
    t.z = linear / (d.x * d.y);
    return t;
}

/* how much of a site to show: "file:line", without the "#n" that tells
 * barriers on one line apart */
static int site_len(const char *site)
{
    const char *hash = strrchr(site, '#');
    return hash ? (int)(hash - site) : (int)strlen(site);
}

static int kind_of(int code)
{
    return code == PYEMU_E_ASSERT ? PYEMU_FAULT_ASSERT
         : code == PYEMU_E_BARRIER ? PYEMU_FAULT_BARRIER : PYEMU_FAULT_OTHER;
}

/* Fail the launch from kernel code (a barrier, assert, __trap, device
 * malloc) with a fault record (fault.c), and leave the block. */
static __attribute__((noreturn)) void kernel_vfail(pyemu_worker *w, int code, const char *site,
                                                   const char *fmt, va_list ap)
{
    char at[128];
    if (site)
        snprintf(at, sizeof at, "%.*s", site_len(site), site);
    pyemu_fault_vfail(w, code, kind_of(code), pyemu_tctx.blockIdx, pyemu_tctx.threadIdx, 0, NULL,
                      site ? at : NULL, fmt, ap);
    w->fault_sig = -1; /* not a signal: the message is already written */
    siglongjmp(w->recover, 1);
}

void pyemu_kernel_fail(pyemu_worker *w, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kernel_vfail(w, code, NULL, fmt, ap);
}

/* a barrier's failure, its site kept in the record */
static __attribute__((noreturn, format(printf, 3, 4))) void
barrier_fail(pyemu_worker *w, const char *site, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kernel_vfail(w, PYEMU_E_BARRIER, site, fmt, ap);
}

/* ---- fiber stacks: one mapping per worker, a guard page below each stack ----
 * Where Linux has guard regions (6.13+), the mapping is read-write and each
 * guard page is installed with MADV_GUARD_INSTALL, so the stacks stay one
 * mapping however many are in use; elsewhere the mapping starts PROT_NONE
 * and each stack is made writable (two mappings a stack). */

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

static int ensure_stacks(pyemu_worker *w, unsigned int n)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (!w->stacks) {
        size_t stack = (pyemu_pool_stack_size() + page - 1) & ~(page - 1);
        size_t total;
        w->stack_stride = stack + page;
        total = w->stack_stride * PYEMU_MAX_THREADS_PER_BLOCK;
        w->stacks = mmap(NULL, total, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (w->stacks == MAP_FAILED) {
            w->stacks = NULL;
            return -1;
        }
        w->stack_guards = madvise(w->stacks, page, MADV_GUARD_INSTALL) == 0;
        if (!w->stack_guards && mprotect(w->stacks, total, PROT_NONE) != 0) {
            munmap(w->stacks, total);
            w->stacks = NULL;
            return -1;
        }
    }
    /* stack i lies at [i*stride + page, (i+1)*stride), its guard page below */
    for (unsigned int i = w->stacks_ready; i < n; i++) {
        char *guard = w->stacks + (size_t)i * w->stack_stride;
        if (w->stack_guards ? madvise(guard, page, MADV_GUARD_INSTALL) != 0
                            : mprotect(guard + page, w->stack_stride - page, PROT_READ | PROT_WRITE) != 0)
            return -1;
        w->stacks_ready = i + 1;
    }
    return 0;
}

/* ---- switching between the threads of a block ---- */

static inline void switch_to(pyemu_worker *w, unsigned int next)
{
    unsigned int prev = w->cur;
    w->cur = next;
    pyemu_tctx.threadIdx = w->fibers[next].tid;
    pyemu_ctx_switch(&w->fibers[prev].sp, w->fibers[next].sp);
}

/* ---- fiber variants: a kernel run with soft (implicit) barriers ----
 *
 * A kernel that takes the fiber path gets a variant from
 * pyemu/compiler/regions/ (variant.py): its body with a soft barrier at each
 * place where its block function would start a new region (before and after
 * a branch or loop that holds a barrier, at the start and end of such a
 * loop's body), so that both paths interleave the threads of a block the
 * same way.  Its block function hands the core the variant's thread entry
 * (barrier_reduce with op PYEMU_OP_FIBERS; abi.h has no entry of its own
 * for it yet), and the block runs on fibers from its first instruction,
 * scheduled by soft_schedule below instead of the strict round robin of
 * arrive(): a soft barrier (op PYEMU_OP_SOFT) waits until no thread of the
 * block can run (each has exited or waits at a barrier), then the threads at
 * soft barriers go on, lowest first; a hard barrier releases once every
 * thread waits at it.  A soft barrier never reports divergence: only a hard
 * one that part of the block really reaches does. */
#define PYEMU_OP_SOFT 3
#define PYEMU_OP_FIBERS 4
enum { ST_RUN = 0, ST_HARD = 1, ST_SOFT = 2, ST_EXIT = 3, ST_TILE = 4 };
static __thread int soft_mode;               /* the block runs a variant */
static __thread void (*soft_fn)(const void *);
static __thread unsigned int soft_waiting;   /* threads at soft barriers */
static __thread unsigned char *soft_state; /* per thread: ST_*, malloc'd once a worker */
static __thread int block_steps;             /* a warp step ran in this fiber block */
/* the tile sync (thread_block_tile<64..1024>::sync) some threads wait at */
static __thread unsigned int tile_waiting, tile_base, tile_n, tile_line;
static __thread const char *tile_file;

static PYEMU_KSUPPORT void fiber_main(void *arg)
{
    pyemu_worker *w = arg;
    if (soft_mode)
        soft_fn(w->args);
    else
        w->desc->run_thread(w->args);
    pyemu_first_thread_done(); /* the same bookkeeping as thread 0: never returns here */
    __builtin_unreachable();
}

static void enter_fiber_mode(pyemu_worker *w)
{
    unsigned int n = w->nthreads;
    if (ensure_stacks(w, n) != 0)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                          "cannot map stacks for the %u " PYEMU_T_THREADS " of the " PYEMU_T_BLOCK,
                          n);
    if (!soft_state && !(soft_state = malloc(PYEMU_MAX_THREADS_PER_BLOCK)))
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "out of host memory for the " PYEMU_T_BLOCK);
    memset(soft_state, ST_RUN, n);
    block_steps = 0;
    tile_waiting = 0;
    w->fiber_mode = 1;
    w->cur = 0;
    pyemu_warp_reset();
    w->arrived = 0;
    w->exited = 0;
    w->fibers[0].tid = pyemu_tctx.threadIdx;
    const pyemu_uint3 d = pyemu_tctx.blockDim;
    pyemu_uint3 t = {0, 0, 0};
    for (unsigned int i = 1; i < n; i++) {
        if (++t.x == d.x) {
            t.x = 0;
            if (++t.y == d.y) {
                t.y = 0;
                t.z++;
            }
        }
        /* stagger the tops so that the stacks do not all fall in one cache set */
        char *top = w->stacks + (size_t)(i + 1) * w->stack_stride - (i % 61) * 192;
        w->fibers[i].tid = t;
        w->fibers[i].sp = pyemu_fiber_prepare(top, fiber_main, w);
    }
}

#define SITE(s) site_len(s), (s)

static void describe_thread(const pyemu_worker *w, unsigned int i, char *buf, size_t len)
{
    pyemu_fmt_dim(buf, len, tid_of(i));
}

/* The ways a barrier goes wrong; kept out of line so the barrier stays small.
 * The terms each API words its own way are PYEMU_T_* (fault.c). */
#define SYNC PYEMU_T_SYNC
#define THREADS PYEMU_T_THREADS
#define THREAD PYEMU_T_THREAD
#define BLOCK PYEMU_T_BLOCK
#define EVERY "; every " THREAD " of a " BLOCK " must reach the same barrier"

static __attribute__((noinline, cold, noreturn)) void
barrier_after_return_plain(pyemu_worker *w, const char *site, unsigned int me)
{
    char a[48];
    describe_thread(w, me - 1, a, sizeof a);
    barrier_fail(w, site, SYNC " at %.*s is reached by this " THREAD ", but " THREADS " (0,0,0) "
                 "to %s of the " BLOCK " returned without reaching it" EVERY, SITE(site), a);
}

static __attribute__((noinline, cold, noreturn)) void
barrier_after_return(pyemu_worker *w, const char *site)
{
    char a[48];
    describe_thread(w, 0, a, sizeof a);
    barrier_fail(w, site, SYNC " at %.*s is reached by this " THREAD ", but %u " THREAD "(s) of "
                 "the " BLOCK ", the first %s, returned without reaching it" EVERY, SITE(site),
                 w->exited, a);
}

static __attribute__((noinline, cold, noreturn)) void
barrier_mismatch(pyemu_worker *w, const char *site)
{
    char a[48], b[48];
    describe_thread(w, 0, a, sizeof a);
    describe_thread(w, w->cur - 1, b, sizeof b);
    barrier_fail(w, site, "this " THREAD " reached " SYNC " at %.*s while " THREADS " %s to %s "
                 "of the " BLOCK " wait at %s one at %.*s" EVERY, SITE(site), a, b,
                 site_len(site) == site_len(w->site) &&
                         strncmp(site, w->site, (size_t)site_len(site)) == 0
                     ? "another"
                     : "the",
                 SITE(w->site));
}

static __attribute__((noinline, cold, noreturn)) void return_while_waiting(pyemu_worker *w)
{
    char a[48];
    describe_thread(w, 0, a, sizeof a);
    barrier_fail(w, w->site, "this " THREAD " returned while %u " THREAD "(s) of the " BLOCK
                 ", the first %s, wait at " SYNC " at %.*s" EVERY, w->arrived, a,
                 SITE(w->site));
}

/* A block function (a kernel run region by region, see abi.h) found the block
 * split at a barrier. */
PYEMU_API PYEMU_KSUPPORT void pyemu_barrier_diverged(const char *site, unsigned int other, unsigned int exited)
{
    pyemu_worker *w = pyemu_self;
    char a[48];
    describe_thread(w, other, a, sizeof a);
    if (exited)
        barrier_fail(w, site, SYNC " at %.*s is reached by this " THREAD ", but %u " THREAD "(s) "
                     "of the " BLOCK ", the first %s, returned without reaching it" EVERY,
                     SITE(site), exited, a);
    barrier_fail(w, site, "this " THREAD " and " THREAD " %s of the " BLOCK " take different "
                 "ways at a branch or loop around " SYNC " at %.*s" EVERY, a, SITE(site));
}

/* The first barrier of a block, reached by thread 0 in plain mode: from now
 * on the block runs as fibers.  Returns 1 if the block has a single thread. */
static __attribute__((noinline)) int first_barrier(pyemu_worker *w, const char *site)
{
    unsigned int me = pyemu_tctx.threadIdx.x +
                      pyemu_tctx.blockDim.x *
                          (pyemu_tctx.threadIdx.y + pyemu_tctx.blockDim.y * pyemu_tctx.threadIdx.z);
    if (me != 0)
        barrier_after_return_plain(w, site, me);
    if (w->nthreads == 1)
        return 1;
    enter_fiber_mode(w);
    return 0;
}

/* ---- warp steps: warp-synchronous code without __syncwarp ----
 *
 * The front end puts pyemu_warp_step() after each statement that stores
 * through a volatile lvalue (the unrolled last-warp reduction); there the
 * running lane hands the worker to the next lane of its warp that can run
 * (not waiting at a block barrier, not returned), and after the warp's
 * last such lane back to its lowest, so each statement is run by every
 * lane of the warp still running before any lane runs the next one, as
 * the lanes of a warp that move together do.  A lane that reaches a block
 * barrier or returns instead is not waited for, and nothing here fails.
 * Once a block has stepped, its threads no longer stop in index order, so
 * a thread that stops picks the next one by its state (soft_state, kept
 * for every fiber block) instead of taking cur + 1: the lanes of its warp
 * after it, then the lowest of its warp (they wait at a step), then the
 * threads after its warp, then those before. */

static unsigned int step_next(pyemu_worker *w, int cur_runs)
{
    const unsigned int n = w->nthreads, cur = w->cur;
    const unsigned int lo = cur & ~31u, hi = lo + 32 < n ? lo + 32 : n;
    for (unsigned int i = cur + 1; i < hi; i++)
        if (soft_state[i] == ST_RUN)
            return i;
    for (unsigned int i = lo; i < cur; i++)
        if (soft_state[i] == ST_RUN)
            return i;
    if (cur_runs)
        return cur;
    for (unsigned int k = 1; k < n; k++) {
        unsigned int i = hi - 1 + k < n ? hi - 1 + k : hi - 1 + k - n;
        if (soft_state[i] == ST_RUN)
            return i;
    }
    pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "pyemu: no " THREAD " of the " BLOCK " can "
                      "run after a warp step (a bug of pyemu, please report it)");
}

/* ---- thread_block_tile<64..1024>::sync: a barrier of one tile ----
 * The tile is the caller's N consecutive threads (the last one may be
 * short).  Its threads wait in state ST_TILE while the others run on (by
 * state, as after a warp step); the last to arrive releases the tile, its
 * lowest thread first.  A thread of the tile that reaches a block barrier
 * or returns while the others wait, or a sync() at another place, fails
 * the launch, as a block barrier does. */

static __attribute__((noinline, cold, noreturn)) void tile_fail(pyemu_worker *w, const char *what)
{
    char a[48], b[48];
    describe_thread(w, tile_base, a, sizeof a);
    describe_thread(w, tile_base + tile_n - 1, b, sizeof b);
    pyemu_kernel_fail(w, PYEMU_E_BARRIER, "this " THREAD " %s, while %u " THREAD "(s) of its tile "
                      "(" THREADS " %s to %s) wait at a tile's sync() at %s:%u; every " THREAD
                      " of a tile must reach the same sync()", what, tile_waiting, a, b,
                      tile_file, tile_line);
}

static int soft_arrive(pyemu_worker *w, const char *site, int hard, int pred, int op);
int pyemu_block_fibers_for_warp(pyemu_worker *w);

static void tile_left(pyemu_worker *w, const char *site)
{
    if (w->cur < tile_base || w->cur >= tile_base + tile_n)
        return;
    char what[200];
    if (site)
        snprintf(what, sizeof what, "reached " SYNC " at %.*s", SITE(site));
    else
        snprintf(what, sizeof what, "returned");
    tile_fail(w, what);
}

void pyemu_block_tile_sync(pyemu_worker *w, unsigned int n, const char *file, unsigned int line)
{
    if (!w->fiber_mode) {
        if (w->nthreads == 1 || pyemu_block_fibers_for_warp(w))
            return; /* a tile of one thread */
    }
    if (soft_mode) { /* a variant block (none has tiles today): a block barrier */
        soft_arrive(w, "cooperative_groups: a tile's sync()#tile", 1, 0, -1);
        return;
    }
    if (pyemu_warp_busy)
        pyemu_warp_leave(w, "cooperative_groups: a tile's sync()");
    const unsigned int me = w->cur, base = me / n * n;
    const unsigned int cnt = w->nthreads - base < n ? w->nthreads - base : n;
    if (!tile_waiting) {
        for (unsigned int i = base; i < base + cnt; i++)
            if (soft_state[i] == ST_EXIT || soft_state[i] == ST_HARD) {
                char what[160], a[48];
                describe_thread(w, i, a, sizeof a);
                snprintf(what, sizeof what, "reached a tile's sync() at %s:%u, but " THREAD
                         " %s of its tile %s", file, line, a,
                         soft_state[i] == ST_EXIT ? "returned" : "waits at a " BLOCK " barrier");
                pyemu_kernel_fail(w, PYEMU_E_BARRIER, "this " THREAD " %s; every " THREAD
                                  " of a tile must reach the same sync()", what);
            }
        tile_base = base;
        tile_n = cnt;
        tile_file = file;
        tile_line = line;
    } else if (base != tile_base || line != tile_line || strcmp(file, tile_file) != 0) {
        char what[200];
        snprintf(what, sizeof what, "reached a tile's sync() at %s:%u", file, line);
        tile_fail(w, what);
    }
    soft_state[me] = ST_TILE;
    block_steps = 1;
    unsigned int next;
    if (++tile_waiting == cnt) {
        for (unsigned int i = base; i < base + cnt; i++)
            soft_state[i] = ST_RUN;
        tile_waiting = 0;
        next = base;
    } else {
        next = step_next(w, 0);
    }
    if (next != me)
        switch_to(w, next);
}

/* For warp.c: a partial collective (sub_group_ballot) let a lane go to a
 * barrier or its end before lower lanes: pick threads by state from now on. */
void pyemu_block_reorder(void)
{
    block_steps = 1;
}

/* For warp.c: the running lane reached pyemu_warp_step (PYEMU_WARP_STEP). */
void pyemu_block_step(pyemu_worker *w)
{
    block_steps = 1;
    unsigned int next = step_next(w, 1);
    if (next != w->cur)
        switch_to(w, next);
}

/* For warp.c: the lanes of warp `warp` waiting at a block barrier (found only
 * when `always` or once the block's threads stop out of index order, which
 * *stepped says). */
unsigned int pyemu_block_lanes_at_barrier(pyemu_worker *w, unsigned int warp, int *stepped,
                                          int always)
{
    unsigned int m = 0;
    *stepped = block_steps;
    if (!block_steps && !always)
        return 0; /* in index order, no lane of a warp waits there before a lower one */
    for (unsigned int l = 0; l < 32 && warp * 32 + l < w->nthreads; l++)
        if (soft_state[warp * 32 + l] == ST_HARD || soft_state[warp * 32 + l] == ST_SOFT)
            m |= 1u << l;
    return m;
}

static __attribute__((noinline, cold, noreturn)) void
soft_mismatch(pyemu_worker *w, const char *site)
{
    barrier_fail(w, site, "this " THREAD " reached " SYNC " at %.*s while %u " THREAD "(s) of "
                 "the " BLOCK " wait at %s one at %.*s" EVERY, SITE(site), w->arrived,
                 site_len(site) == site_len(w->site) &&
                         strncmp(site, w->site, (size_t)site_len(site)) == 0
                     ? "another"
                     : "the",
                 SITE(w->site));
}

/* The current thread of a variant block stopped (it waits at a barrier or
 * exited): run the next thread that can, else release the soft barriers,
 * else the hard one, else (all exited) go back to thread 0's stack. */
static void soft_schedule(pyemu_worker *w)
{
    const unsigned int n = w->nthreads, cur = w->cur;
    for (unsigned int k = 1; k <= n; k++) {
        unsigned int i = cur + k < n ? cur + k : cur + k - n;
        if (soft_state[i] == ST_RUN) {
            if (i != cur)
                switch_to(w, i);
            return;
        }
    }
    unsigned int first = n;
    if (soft_waiting) {
        for (unsigned int i = 0; i < n; i++)
            if (soft_state[i] == ST_SOFT) {
                soft_state[i] = ST_RUN;
                if (first == n)
                    first = i;
            }
        soft_waiting = 0;
    } else if (w->arrived) {
        /* every thread waits at the hard barrier (one that returned while
         * others waited failed the launch already) */
        for (unsigned int i = 0; i < n; i++)
            soft_state[i] = ST_RUN;
        w->arrived = 0;
        w->reduce_result = w->reduce_acc;
        first = 0;
    } else {
        first = 0; /* all exited: thread 0's first_thread_done returns */
    }
    if (first != cur)
        switch_to(w, first);
}

static int soft_arrive(pyemu_worker *w, const char *site, int hard, int pred, int op)
{
    if (hard) {
        if (__builtin_expect(w->exited != 0, 0))
            barrier_after_return(w, site);
        if (w->arrived == 0) {
            w->site = site;
            w->reduce_op = op;
            w->reduce_acc = op == 1 ? 1 : 0;
        } else if (site != w->site && strcmp(site, w->site) != 0) {
            soft_mismatch(w, site);
        }
        switch (op) { /* __syncthreads_count/_and/_or */
        case 0: w->reduce_acc += pred != 0; break;
        case 1: w->reduce_acc = w->reduce_acc && pred; break;
        case 2: w->reduce_acc = w->reduce_acc || pred; break;
        default: break;
        }
        w->arrived++;
        soft_state[w->cur] = ST_HARD;
    } else {
        soft_state[w->cur] = ST_SOFT;
        soft_waiting++;
    }
    soft_schedule(w);
    return w->reduce_result;
}

/* A thread of a variant block returned. */
static int soft_exit(pyemu_worker *w)
{
    if (w->arrived)
        return_while_waiting(w);
    w->exited++;
    soft_state[w->cur] = ST_EXIT;
    soft_schedule(w);
    /* only thread 0 comes back here, once every thread has exited */
    return 0;
}

/* Runs the block as fibers with `fn` as every thread's entry (a variant). */
static int soft_run_block(pyemu_worker *w, void (*fn)(const void *))
{
    if (w->fiber_mode || soft_mode)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "pyemu: a fiber variant started twice "
                          "in one " BLOCK " (a bug of pyemu, please report it)");
    if (w->nthreads == 1) {
        fn(w->args); /* its barriers are its own: arrive() lets one thread pass */
        return 1;
    }
    enter_fiber_mode(w);
    soft_fn = fn;
    soft_waiting = 0;
    soft_mode = 1;
    fn(w->args); /* thread 0, on the worker's stack */
    soft_exit(w);
    soft_mode = 0;
    return 1;
}

static inline int arrive(pyemu_worker *w, const char *site, int pred, int op)
{
    if (__builtin_expect(op >= PYEMU_OP_SOFT, 0)) {
        if (op == PYEMU_OP_FIBERS)
            return soft_run_block(w, (void (*)(const void *))(uintptr_t)site);
        if (!soft_mode) /* a soft barrier outside a variant block waits for nothing */
            return 0;
        soft_arrive(w, site, 0, 0, -1);
        return 0;
    }
    if (__builtin_expect(soft_mode, 0))
        return soft_arrive(w, site, 1, pred, op);
    if (__builtin_expect(!w->fiber_mode, 0) && first_barrier(w, site))
        return op < 0 ? 0 : pred != 0; /* one thread: its count, and and or are its own */
    if (__builtin_expect(pyemu_warp_busy, 0))
        pyemu_warp_leave(w, site);
    if (__builtin_expect(tile_waiting != 0, 0))
        tile_left(w, site);
    if (__builtin_expect(w->exited != 0, 0))
        barrier_after_return(w, site);
    if (w->arrived == 0) {
        w->site = site;
        w->reduce_op = op;
        w->reduce_acc = op == 1 ? 1 : 0;
    } else if (__builtin_expect(site != w->site, 0) && strcmp(site, w->site) != 0) {
        barrier_mismatch(w, site);
    }
    switch (op) {
    case 0: w->reduce_acc += pred != 0; break;
    case 1: w->reduce_acc = w->reduce_acc && pred; break;
    case 2: w->reduce_acc = w->reduce_acc || pred; break;
    default: break;
    }
    unsigned int next = w->cur + 1;
    soft_state[w->cur] = ST_HARD;
    if (++w->arrived == w->nthreads) {
        /* the whole block is here: release it, thread 0 goes first */
        w->arrived = 0;
        w->reduce_result = w->reduce_acc;
        memset(soft_state, ST_RUN, w->nthreads);
        next = 0;
    } else if (__builtin_expect(block_steps, 0)) {
        next = step_next(w, 0);
    }
    if (next != w->cur)
        switch_to(w, next);
    return w->reduce_result;
}

PYEMU_API PYEMU_KSUPPORT void pyemu_barrier(const char *site)
{
    arrive(pyemu_self, site, 0, -1);
}

PYEMU_API PYEMU_KSUPPORT int pyemu_barrier_reduce(const char *site, int pred, int op)
{
    return arrive(pyemu_self, site, pred, op);
}

/* Called when a thread's kernel function returned: by run_block for thread 0
 * (on the worker's stack), by fiber_main for the others. */
PYEMU_API PYEMU_KSUPPORT int pyemu_first_thread_done(void)
{
    pyemu_worker *w = pyemu_self;
    if (!w->fiber_mode)
        return 1;
    if (soft_mode)
        return soft_exit(w);
    if (w->arrived)
        return_while_waiting(w);
    pyemu_warp_exit(w);
    if (tile_waiting)
        tile_left(w, NULL);
    w->exited++;
    soft_state[w->cur] = ST_EXIT;
    if (w->exited == w->nthreads) {
        /* the block is done: back to thread 0's stack, which returns 0 */
        if (w->cur != 0)
            switch_to(w, 0);
        return 0;
    }
    switch_to(w, __builtin_expect(block_steps, 0) ? step_next(w, 0) : w->cur + 1);
    /* only thread 0 comes back here, once every thread has exited */
    return 0;
}

/* For warp.c: pass the worker to fiber `next`. */
void pyemu_block_switch(pyemu_worker *w, unsigned int next)
{
    switch_to(w, next);
}

/* For warp.c: thread 0 reached a warp collective in plain mode; the block
 * becomes fibers.  Returns 1 if the block has a single thread. */
int pyemu_block_fibers_for_warp(pyemu_worker *w)
{
    if (w->nthreads == 1)
        return 1;
    enter_fiber_mode(w);
    return 0;
}

/* pyemu_first_thread_done for a unit with warp collectives: thread 0
 * returned in plain mode; threads 1..n-1 run as fibers, so that they can
 * meet at a collective.  Returns 0 once they all returned. */
PYEMU_API PYEMU_KSUPPORT int pyemu_first_thread_done_warp(void)
{
    pyemu_worker *w = pyemu_self;
    if (w->fiber_mode || w->nthreads == 1)
        return pyemu_first_thread_done();
    enter_fiber_mode(w);
    pyemu_warp_exit(w); /* thread 0 */
    w->exited = 1;
    soft_state[0] = ST_EXIT;
    switch_to(w, 1);
    return 0;
}

static inline pyemu_uint3 block_of(uint64_t linear)
{
    const pyemu_uint3 g = pyemu_tctx.gridDim;
    pyemu_uint3 b;
    b.x = (unsigned int)(linear % g.x);
    b.y = (unsigned int)((linear / g.x) % g.y);
    b.z = (unsigned int)(linear / ((uint64_t)g.x * g.y));
    return b;
}

static void start_block(pyemu_worker *w, pyemu_uint3 b)
{
    pyemu_tctx.blockIdx = b;
    pyemu_tctx.threadIdx.x = pyemu_tctx.threadIdx.y = pyemu_tctx.threadIdx.z = 0;
    w->fiber_mode = 0;
    w->arrived = 0;
    w->exited = 0;
    soft_mode = 0; /* a variant block that faulted left it set */
    w->desc->run_block(w->args);
}

/* A block function (pyemu/compiler/regions/) runs its loops over threads
 * without telling pyemu_tctx which thread runs, so that g++ can vectorize
 * them.  When such a block faults, the worker's recovery point (pool.c
 * run_chunk) runs it again here on the precise path (pyemu_tctx.precise:
 * the plain loop, fibers at the first barrier), where the fault names its
 * thread; the launch has failed anyway, so nothing on the way of a block
 * that does not fault pays for this.  The second run's printf text is
 * dropped; if it does not fault, the first fault is reported as it was. */
void pyemu_block_rerun_precise(pyemu_worker *w, uint64_t linear)
{
    const int sig = w->fault_sig;
    if (pyemu_grid_launch(w->cmd))
        return; /* its blocks wait for each other (grid.c): the fault names its thread already */
    if (w->nthreads < 2 || !(sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL))
        return;
    void *const addr = w->fault_addr;
    const pyemu_uint3 tid = w->fault_tid, bid = w->fault_bid;
    const size_t plen = w->plen;
    if (sigsetjmp(w->recover, 0) == 0) {
        w->in_kernel = 1;
        pyemu_tctx.precise = 1;
        start_block(w, block_of(linear));
        w->in_kernel = 0;
        w->fault_sig = sig; /* no fault this time: report the first */
        w->fault_addr = addr;
        w->fault_tid = tid;
        w->fault_bid = bid;
    }
    w->in_kernel = 0;
    w->in_libc = 0;
    pyemu_tctx.precise = 0;
    if (w->in_heap)
        pyemu_heap_recover(w);
    if (w->plen > plen)
        w->plen = plen;
}

void pyemu_run_block(pyemu_worker *w, uint64_t linear)
{
    if (__builtin_expect(w->cmd->u.k.cooperative, 0)) {
        pyemu_grid_run(w, linear);
        return;
    }
    start_block(w, block_of(linear));
}

/* ---- hooks for cooperative launches (grid.c) ---- */

/* Run block `linear` (thread 0 on the stack the caller is on). */
void pyemu_block_start(pyemu_worker *w, uint64_t linear)
{
    start_block(w, block_of(linear));
}

/* The top of fiber stack 0, which no thread of a block uses (thread 0 runs
 * on the worker's stack): grid.c runs thread 0 of a cooperative launch's
 * blocks there.  NULL if it cannot be mapped. */
char *pyemu_block_stack0(pyemu_worker *w)
{
    if (ensure_stacks(w, 1) != 0)
        return NULL;
    return w->stacks + w->stack_stride;
}
