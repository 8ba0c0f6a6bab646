/* grid.c - cooperative launches: every block resident at once, and grid.sync().
 *
 * cudaLaunchCooperativeKernel marks its launch (PYEMU_LAUNCH_COOPERATIVE in
 * the launch's flags, pyemu_core.h).  A worker that takes a block of such a
 * launch becomes its *host*: instead of running the block to its end, it
 * runs it as a fiber group whose thread 0 has a stack of its own (stack 0
 * of the worker's fiber stacks, which no other thread uses), so that the
 * block can be set aside at cooperative_groups::this_grid().sync() and
 * another block of the grid can run on the same worker.
 *
 * grid.sync() is first a barrier of the block (__syncthreads, block.c);
 * thread 0 then arrives at the grid barrier and hands the worker back to
 * the host, with the block's other threads still waiting inside that
 * block barrier.  The host runs its other blocks; when all of them wait,
 * it claims another block of the grid that no worker has taken yet (so
 * that every block gets resident even when the other workers are busy) or
 * else waits for the barrier's generation to move.  The last block to
 * arrive (on any worker) moves it, under one lock: what every block wrote
 * before the barrier is visible after it.
 *
 * The blocks of one host share the worker's fiber stacks and shared
 * memory: a block set aside has its live stack bytes, its shared memory
 * and block.c's state of it copied out when another block needs them, and
 * back when it runs again (at the same addresses, so pointers into them
 * stay valid).  A grid barrier costs those copies; nothing else of the
 * launch pays for it.
 *
 * Failures: a block that returns while others wait at grid.sync() (or
 * reaches grid.sync() after another block returned) fails the launch, as
 * the GPU would hang; a fault or the watchdog's stop in one block fails the
 * launch, and the hosts waiting at the barrier see the launch aborted and
 * leave their blocks behind.  grid.sync() in a kernel launched the
 * ordinary way fails the launch (cudaErrorLaunchFailure): an ordinary
 * launch does not keep its blocks resident.
 */
#include "core.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* block.c */
char *pyemu_block_stack0(pyemu_worker *w);
void pyemu_block_start(pyemu_worker *w, uint64_t linear);
/* warp.c */
void pyemu_warp_reset(void);

/* One cooperative launch: its grid barrier, shared by the hosts. */
typedef struct grid {
    struct grid *next;
    const pyemu_cmd *cmd;
    uint64_t seq;
    int hosts;                  /* workers hosting its blocks now */
    int aborted;
    uint64_t nblocks;
    uint64_t arrived;           /* blocks waiting at the current barrier */
    uint64_t exited;            /* blocks that returned */
    _Atomic uint64_t gen;       /* barriers passed */
    const char *site;           /* where the first waiting block waits */
    pyemu_uint3 waiter, quitter; /* a waiting block, the first block that returned */
} grid;

enum { S_FRESH, S_PARKED, S_DONE };

/* One block of a host. */
typedef struct slot {
    uint64_t linear;
    int state;
    uint64_t gen;               /* parked: runs again once the grid's gen reaches it */
    void *sp;                   /* thread 0's context */
    int saved;                  /* its stacks and shared memory are in buf, not in place */
    char *buf;
    size_t cap;
    /* block.c's state of the block, kept while it is set aside */
    int fiber_mode;
    unsigned int cur, arrived, exited;
    const char *site;
    int reduce_op, reduce_acc, reduce_result;
    pyemu_uint3 bid;
} slot;

/* A worker's hosting of one launch (reused from launch to launch). */
typedef struct host {
    grid *g;                    /* non-NULL while hosting (or left by a fault) */
    const pyemu_cmd *cmd;
    uint64_t seq;
    slot *slots;
    unsigned int nslots, cap;
    unsigned int running;       /* the slot whose thread 0 has the worker */
    int resident;               /* the slot whose stacks are in place, -1 none */
    void *host_sp;
    char *t0_top;
} host;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the grids and their counters */
static grid *grids;
static __thread host *hs;

#define THREAD PYEMU_T_THREAD
#define BLOCK PYEMU_T_BLOCK
#define BLOCKS BLOCK "s"

/* ---- the grids, found by their command ---- */

static grid *join(const pyemu_cmd *cmd)
{
    pthread_mutex_lock(&lock);
    grid *g = grids;
    while (g && !(g->cmd == cmd && g->seq == cmd->seq))
        g = g->next;
    if (!g && (g = calloc(1, sizeof *g))) {
        g->cmd = cmd;
        g->seq = cmd->seq;
        g->nblocks = cmd->nitems;
        g->next = grids;
        grids = g;
    }
    if (g)
        g->hosts++;
    pthread_mutex_unlock(&lock);
    return g;
}

/* The host is done with g (aborted: it left blocks behind). */
static void leave(grid *g, int aborted)
{
    pthread_mutex_lock(&lock);
    g->aborted |= aborted;
    if (--g->hosts == 0 && (g->exited == g->nblocks || g->aborted)) {
        grid **p = &grids;
        while (*p != g)
            p = &(*p)->next;
        *p = g->next;
        free(g);
    }
    pthread_mutex_unlock(&lock);
}

/* "file:line" of a grid.sync() call, kept for the life of the process (one
 * string per call site, so that block.c's barrier tells sites apart). */
static __attribute__((noinline)) const char *site_of(const char *file, unsigned int line)
{
    static struct site { struct site *next; const char *file; unsigned int line; char s[]; } *sites;
    pthread_mutex_lock(&lock);
    struct site *s = sites;
    while (s && !(s->file == file && s->line == line))
        s = s->next;
    if (!s) {
        size_t n = strlen(file) + 24;
        if ((s = malloc(sizeof *s + n))) {
            s->file = file;
            s->line = line;
            snprintf(s->s, n, "%s:%u#grid", file, line);
            s->next = sites;
            sites = s;
        }
    }
    pthread_mutex_unlock(&lock);
    return s ? s->s : "this_grid().sync()";
}

static int site_len(const char *site)
{
    const char *hash = strrchr(site, '#');
    return hash ? (int)(hash - site) : (int)strlen(site);
}

/* ---- the grid barrier ---- */

static __attribute__((noinline, cold, noreturn)) void
returned_fail(pyemu_worker *w, uint64_t waiting, const char *site, pyemu_uint3 quitter)
{
    char q[48];
    pyemu_fmt_dim(q, sizeof q, quitter);
    pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                      "this_grid().sync() at %.*s is reached by %llu " BLOCK "(s) of the grid, "
                      "but " BLOCK " %s returned without reaching it; every " BLOCK " of a "
                      "cooperative launch must reach each grid.sync() (on a GPU this hangs)",
                      site_len(site), site, (unsigned long long)waiting, q);
}

/* Thread 0 of slot s brings its block to the barrier at site.  Not inlined
 * into pyemu_grid_op (kernel-support code, where the watchdog's stop may
 * jump out): the lock must never be left held. */
static __attribute__((noinline)) void arrive(pyemu_worker *w, grid *g, slot *s, const char *site)
{
    pthread_mutex_lock(&lock);
    if (g->exited) {
        uint64_t n = g->arrived + 1;
        pyemu_uint3 q = g->quitter;
        pthread_mutex_unlock(&lock);
        returned_fail(w, n, site, q);
    }
    uint64_t gen = atomic_load_explicit(&g->gen, memory_order_relaxed);
    if (g->arrived == 0) {
        g->site = site;
        g->waiter = s->bid;
    }
    s->gen = gen + 1;
    if (++g->arrived == g->nblocks) {
        g->arrived = 0;
        atomic_store_explicit(&g->gen, gen + 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
}

/* Slot s's block returned. */
static __attribute__((noinline)) void block_exit(pyemu_worker *w, grid *g, slot *s)
{
    pthread_mutex_lock(&lock);
    if (g->arrived) {
        uint64_t n = g->arrived;
        const char *site = g->site;
        pthread_mutex_unlock(&lock);
        returned_fail(w, n, site, s->bid);
    }
    if (g->exited++ == 0)
        g->quitter = s->bid;
    pthread_mutex_unlock(&lock);
}

/* ---- the blocks of a host ---- */

static slot *add_slot(pyemu_worker *w, host *h, uint64_t linear)
{
    if (h->nslots == h->cap) {
        unsigned int cap = h->cap ? 2 * h->cap : 8;
        slot *n = realloc(h->slots, cap * sizeof *n);
        if (!n)
            pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                              "out of host memory for the " BLOCKS " of a cooperative launch");
        memset(n + h->cap, 0, (cap - h->cap) * sizeof *n);
        h->slots = n;
        h->cap = cap;
    }
    slot *s = &h->slots[h->nslots++];
    s->linear = linear;
    s->state = S_FRESH;
    s->saved = 0;
    return s;
}

/* Another block of the launch that no worker has taken, or 0.  Its item
 * retires now: the host's own item, retired by pool.c after the host is
 * done, keeps the command from completing before its blocks do. */
static int claim(pyemu_worker *w, host *h)
{
    pyemu_cmd *cmd = w->cmd;
    uint64_t n = atomic_load(&cmd->next);
    while (n < cmd->nitems) {
        if (atomic_compare_exchange_weak(&cmd->next, &n, n + 1)) {
            atomic_fetch_add(&cmd->retired, 1);
            add_slot(w, h, n);
            return 1;
        }
    }
    return 0;
}

static size_t smem_bytes(const pyemu_worker *w)
{
    return (size_t)(w->dyn_smem_end - w->dyn_smem_lo);
}

/* the bytes of fiber stack i in use: from its saved sp to the end of its
 * region (block.c staggers the tops below that end) */
static char *stack_end(const pyemu_worker *w, unsigned int i)
{
    return w->stacks + (size_t)(i + 1) * w->stack_stride;
}

/* Copy slot s's stacks, shared memory and fibers out of their places. */
static void save(pyemu_worker *w, host *h, slot *s)
{
    const unsigned int n = s->fiber_mode ? w->nthreads : 1;
    size_t need = n * sizeof(pyemu_fiber) + smem_bytes(w) + (size_t)(h->t0_top - (char *)s->sp);
    for (unsigned int i = 1; i < n; i++)
        need += (size_t)(stack_end(w, i) - (char *)w->fibers[i].sp);
    if (need > s->cap) {
        char *b = realloc(s->buf, need);
        if (!b)
            pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "out of host memory to set a " BLOCK
                              " of a cooperative launch aside at grid.sync()");
        s->buf = b;
        s->cap = need;
    }
    char *at = s->buf;
    memcpy(at, w->fibers, n * sizeof(pyemu_fiber));
    at += n * sizeof(pyemu_fiber);
    memcpy(at, w->dyn_smem_lo, smem_bytes(w));
    at += smem_bytes(w);
    size_t k = (size_t)(h->t0_top - (char *)s->sp);
    memcpy(at, s->sp, k);
    at += k;
    for (unsigned int i = 1; i < n; i++) {
        k = (size_t)(stack_end(w, i) - (char *)w->fibers[i].sp);
        memcpy(at, w->fibers[i].sp, k);
        at += k;
    }
    s->saved = 1;
}

static void restore(pyemu_worker *w, host *h, slot *s)
{
    const unsigned int n = s->fiber_mode ? w->nthreads : 1;
    const char *at = s->buf;
    memcpy(w->fibers, at, n * sizeof(pyemu_fiber));
    at += n * sizeof(pyemu_fiber);
    memcpy(w->dyn_smem_lo, at, smem_bytes(w));
    at += smem_bytes(w);
    size_t k = (size_t)(h->t0_top - (char *)s->sp);
    memcpy(s->sp, at, k);
    at += k;
    for (unsigned int i = 1; i < n; i++) {
        k = (size_t)(stack_end(w, i) - (char *)w->fibers[i].sp);
        memcpy(w->fibers[i].sp, at, k);
        at += k;
    }
    s->saved = 0;
}

/* A block's thread 0, on stack 0: the whole block, then back to the host. */
static void slot_main(void *arg)
{
    pyemu_worker *w = arg;
    host *h = hs;
    pyemu_block_start(w, h->slots[h->running].linear);
    slot *s = &h->slots[h->running];
    s->bid = pyemu_tctx.blockIdx;
    s->state = S_DONE;
    block_exit(w, h->g, s);
    pyemu_ctx_switch(&s->sp, h->host_sp);
    __builtin_unreachable();
}

/* Give the worker to slot s until its block waits at the grid barrier or returns. */
static void run_slot(pyemu_worker *w, host *h, unsigned int i)
{
    slot *s = &h->slots[i];
    if (h->resident >= 0 && (unsigned int)h->resident != i) {
        slot *r = &h->slots[h->resident];
        if (r->state == S_PARKED && !r->saved)
            save(w, h, r);
    }
    if (s->state == S_PARKED) {
        if (s->saved)
            restore(w, h, s);
        w->fiber_mode = s->fiber_mode;
        w->cur = s->cur;
        w->arrived = s->arrived;
        w->exited = s->exited;
        w->site = s->site;
        w->reduce_op = s->reduce_op;
        w->reduce_acc = s->reduce_acc;
        w->reduce_result = s->reduce_result;
        pyemu_tctx.blockIdx = s->bid;
        pyemu_tctx.threadIdx = (pyemu_uint3){0, 0, 0};
        pyemu_warp_reset(); /* no collective is pending at a barrier; no lane has returned */
    } else {
        s->sp = pyemu_fiber_prepare(h->t0_top, slot_main, w);
    }
    h->resident = (int)i;
    h->running = i;
    pyemu_ctx_switch(&h->host_sp, s->sp);
}

/* Stop here if the watchdog (or Ctrl-C) asks: as fault.c's handler would
 * at an instruction of kernel code. */
static void stop_if_asked(pyemu_worker *w)
{
    if (w->stop_seq && w->stop_seq == w->run_seq) {
        w->in_kernel = 0;
        w->fault_sig = PYEMU_STOP_SIGNAL;
        w->fault_addr = NULL;
        w->fault_tid = pyemu_tctx.threadIdx;
        w->fault_bid = pyemu_tctx.blockIdx;
        siglongjmp(w->recover, 1);
    }
}

/* Wait until the grid's barrier moves past what slot `s` waits for; 0 if
 * the launch was aborted (a fault in another block) instead. */
static int wait_barrier(pyemu_worker *w, host *h, uint64_t want)
{
    grid *g = h->g;
    const pyemu_cmd *cmd = w->cmd;
    for (unsigned int spins = 0;; spins++) {
        if (atomic_load_explicit(&g->gen, memory_order_acquire) >= want)
            return 1;
        if (atomic_load_explicit(&cmd->abort, memory_order_relaxed))
            return 0;
        stop_if_asked(w);
        if (spins < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
}

/* pyemu_run_block's hook for a cooperative launch: host block `linear`,
 * and whatever other blocks of the grid it takes while its blocks wait. */
void pyemu_grid_run(pyemu_worker *w, uint64_t linear)
{
    if (!hs && !(hs = calloc(1, sizeof *hs)))
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "out of host memory for a cooperative launch");
    host *h = hs;
    if (h->g) { /* the last launch it hosted failed under it */
        leave(h->g, 1);
        h->g = NULL;
    }
    pyemu_cmd *cmd = w->cmd;
    if (cmd->chunk != 1)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "a cooperative launch of %llu blocks was "
                          "handed out %llu at a time (pyemu bug)",
                          (unsigned long long)cmd->nitems, (unsigned long long)cmd->chunk);
    if (!(h->t0_top = pyemu_block_stack0(w)))
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "cannot map a stack for a cooperative launch");
    if (!(h->g = join(cmd)))
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "out of host memory for a cooperative launch");
    h->cmd = cmd;
    h->seq = cmd->seq;
    h->nslots = 0;
    h->resident = -1;
    add_slot(w, h, linear);
    int aborted = 0;
    for (;;) {
        int live = 0, ran = 0;
        uint64_t want = 0;
        for (unsigned int i = 0; i < h->nslots; i++) {
            slot *s = &h->slots[i];
            if (s->state == S_DONE)
                continue;
            live = 1;
            if (s->state == S_FRESH ||
                atomic_load_explicit(&h->g->gen, memory_order_acquire) >= s->gen) {
                run_slot(w, h, i);
                ran = 1;
            } else if (!want || s->gen < want) {
                want = s->gen;
            }
        }
        if (!live)
            break;
        if (ran || claim(w, h))
            continue;
        if (!wait_barrier(w, h, want)) {
            aborted = 1;
            break;
        }
    }
    leave(h->g, aborted || atomic_load(&cmd->abort));
    h->g = NULL;
}

/* Is cmd a cooperative launch (block.c: no precise rerun of its blocks)? */
int pyemu_grid_launch(const pyemu_cmd *cmd)
{
    return cmd && cmd->type == CMD_KERNEL && cmd->u.k.cooperative;
}

static __attribute__((noinline, cold, noreturn)) void
not_cooperative(pyemu_worker *w, const char *file, unsigned int line)
{
    pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                      "this_grid().sync() at %s:%u in a kernel not launched with "
                      "cudaLaunchCooperativeKernel: only a cooperative launch keeps every "
                      BLOCK " of the grid resident (an ordinary launch on a GPU runs it while "
                      "the " BLOCKS " happen to fit, and hangs when they do not)", file, line);
}

/* cooperative_groups::this_grid().sync(), reached by a thread (warp.c
 * passes PYEMU_GRID_SYNC here). */
PYEMU_KSUPPORT unsigned long long pyemu_grid_op(int op, const char *file, unsigned int line)
{
    pyemu_worker *w = pyemu_self;
    host *h = hs;
    if (op != PYEMU_GRID_SYNC)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "unknown grid operation %d", op);
    if (!h || !h->g || h->cmd != w->cmd || h->seq != w->cmd->seq || pyemu_tctx.precise)
        not_cooperative(w, file, line);
    const char *site = site_of(file, line);
    pyemu_barrier(site); /* the whole block first */
    if (w->fiber_mode && w->cur != 0)
        return 0; /* thread 0 took the block through the grid barrier */
    slot *s = &h->slots[h->running];
    s->bid = pyemu_tctx.blockIdx;
    arrive(w, h->g, s, site);
    s->fiber_mode = w->fiber_mode;
    s->cur = w->cur;
    s->arrived = w->arrived;
    s->exited = w->exited;
    s->site = w->site;
    s->reduce_op = w->reduce_op;
    s->reduce_acc = w->reduce_acc;
    s->reduce_result = w->reduce_result;
    s->state = S_PARKED;
    pyemu_ctx_switch(&s->sp, h->host_sp);
    return 0;
}
