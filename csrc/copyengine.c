/* copyengine.c - the copy engine: one thread beside the workers for copies.
 *
 * A GPU copies through copy engines while its SMs run kernels
 * (cudaDevAttrAsyncEngineCount, 1 here).  Every large copy (1 MiB or more,
 * engine.c: make_ready) comes here, as a GPU's DMA transfers go to its copy
 * engine: it is written with non-temporal stores (engine.c: copy_slice), so
 * that one thread copies about as fast as the memory goes, and the workers
 * stay with the kernels, so that a copy of one stream overlaps another
 * stream's kernel.  A smaller copy comes here when the workers have
 * unclaimed items; else the workers take it (and one of a few KiB with
 * nothing to wait for runs on the thread that enqueues it: engine.c, submit).
 * Commands here run in the order they became ready, one at a time.  While
 * a large copy is queued or runs, a worker that would share a core with
 * this thread steps aside (pyemu_copyengine_busy), and this thread stays on
 * a core that the workers that keep running stay off (pin_here).
 */
#include "core.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pyemu_cmd *head, *tail;     /* linked through run_next */
    pthread_t thread;
    pyemu_worker self;          /* for the timeline: lane = the pool's size */
    int started;
    pthread_cond_t idle_cv;     /* workers set aside while it copies (pyemu_copyengine_wait) */
    int large;                  /* large copies queued or running, under lock */
    int pinned;                 /* this thread on one core, the kept workers off it */
    pyemu_cmd *cur;             /* the copy whose slices others may claim, under lock */
} ce = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, {0}, 0,
        PTHREAD_COND_INITIALIZER, 0, 0, NULL};

/* ce.cur is set, read without the lock by the workers */
static atomic_int help_open;
/* PYEMU_COPY_HELPERS, read when this thread starts: 1 (the default) the
 * workers that are awake and have no block take slices; 2 sleeping workers
 * are woken for them too; 0 this thread copies alone (for A/B measurements).
 * Waking the sleepers made the 4-stream loop slower in some runs (a woken
 * worker put on this thread's core, which it is pinned to, preempts it for
 * a scheduler tick), so they are woken only for a copy with none queued
 * behind it; the awake workers help any copy (the loop's copies queue
 * behind each other).  The default stays 1.  Measured on the 2-core
 * machine under load (session 10, bench streams_4x, alternated runs): the
 * help makes a lone copy after a kernel 12-17% faster (the serial D2H:
 * 0.94 ms with 0, 0.83 with 1, 0.78 with 2, 50 runs each); in the
 * 4-stream loop 0 and 1 are within the noise (3.31 and 3.54 ms, 0 faster
 * in 51 of 90 pairs) and 2 is the slowest (3.62 ms). */
static int helpers_on = 1;

/* ce.large, read without the lock by the workers */
static atomic_int large_busy;

/* commands in ce's list, read without the lock while this thread spins */
static atomic_int queued;

/* How long this thread spins (yielding) for the next command before it
 * sleeps: in the 4-stream loop a copy often becomes ready a few tens of
 * microseconds after the last one ended (a kernel completes), and a wake
 * of a sleeping thread costs 20-80 us on the 2-core machine (a virtual
 * one: an idle vCPU is woken through the hypervisor), plus moving it back
 * to its core (pin_here).  The same as the workers' spin (pool.c). */
#define CE_SPIN_NS 50000ull

static int is_large(const pyemu_cmd *cmd)
{
    return cmd->nitems > 0 && cmd->u.copy.size >= PYEMU_NT_COPY_MIN;
}

/* A run of large copies begins: this thread goes to a core of its own, the
 * process's last, and the workers that keep running stay off it, until the
 * run ends (pool.c: pyemu_pool_place_copy_engine says why).  Always the same
 * core, so that the workers are not moved about from one run to the next.
 * This thread's alone. */
static void pin_here(void)
{
    if (pyemu_pool_place_copy_engine(pyemu_pool_last_cpu()) == 0)
        ce.pinned = 1;
}

static void unpin(void)
{
    if (ce.pinned) {
        ce.pinned = 0;
        pyemu_pool_place_copy_engine(-1);
    }
}

static void *copy_engine_main(void *arg)
{
    (void)arg;
    sigset_t all; /* like a worker, it takes no signal meant for the process */
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        if (!atomic_load_explicit(&queued, memory_order_acquire)) {
            const uint64_t end = pyemu_clock_ns() + CE_SPIN_NS;
            while (!atomic_load_explicit(&queued, memory_order_acquire) && pyemu_clock_ns() < end)
                sched_yield();
        }
        pthread_mutex_lock(&ce.lock);
        /* going to sleep: the workers get this thread's core back (it stays
         * pinned across the short gaps between copies, so that a run of
         * copies with kernels between them moves nobody about) */
        if (!ce.head && ce.pinned && !ce.large) {
            pthread_mutex_unlock(&ce.lock);
            unpin();
            pthread_mutex_lock(&ce.lock);
        }
        while (!ce.head)
            pthread_cond_wait(&ce.cv, &ce.lock);
        pyemu_cmd *cmd = ce.head;
        ce.head = cmd->run_next;
        if (!ce.head)
            ce.tail = NULL;
        atomic_fetch_sub_explicit(&queued, 1, memory_order_relaxed);
        const int alone = !ce.head; /* no other copy queued behind this one */
        pthread_mutex_unlock(&ce.lock);
        if (!ce.pinned && is_large(cmd))
            pin_here();
        if (atomic_exchange(&cmd->started, 1) == 0)
            cmd->t_start = pyemu_clock_ns();
        /* the idle workers may claim slices too: the awake ones of any
         * copy (one with copies queued behind it too: a worker that has no
         * block to run would only spin, and the backlog is the copy
         * engine's); sleepers are woken (PYEMU_COPY_HELPERS=2) only for a
         * copy alone, as a wake may put a worker on this thread's core */
        const int shared = helpers_on && cmd->nitems > 1;
        if (shared) {
            pthread_mutex_lock(&ce.lock);
            ce.cur = cmd;
            atomic_store_explicit(&help_open, 1, memory_order_release);
            pthread_mutex_unlock(&ce.lock);
            if (helpers_on > 1 && alone)
                pyemu_pool_wake_helpers();
        }
        const int large = is_large(cmd);
        for (;;) {
            uint64_t i = atomic_fetch_add(&cmd->next, 1);
            if (i >= cmd->nitems)
                break;
            pyemu_run_item(&ce.self, cmd, i);
            if (atomic_fetch_add(&cmd->retired, 1) + 1 == cmd->nitems)
                pyemu_cmd_complete(cmd);
        }
        if (shared) {
            pthread_mutex_lock(&ce.lock);
            ce.cur = NULL;
            atomic_store_explicit(&help_open, 0, memory_order_release);
            pthread_mutex_unlock(&ce.lock);
        }
        pyemu_cmd_release(cmd); /* the copy engine's reference */
        if (large) {
            pthread_mutex_lock(&ce.lock);
            const int last = --ce.large == 0;
            if (last) { /* the workers set aside get their core back */
                atomic_store_explicit(&large_busy, 0, memory_order_release);
                pthread_cond_broadcast(&ce.idle_cv);
            }
            pthread_mutex_unlock(&ce.lock);
        }
    }
    return NULL;
}

/* Engine lock held.  0: queued on the copy engine; -1: no copy engine (no
 * thread could be started), the caller hands the command to the pool. */
int pyemu_copyengine_submit(pyemu_cmd *cmd)
{
    pthread_mutex_lock(&ce.lock);
    if (!ce.started) {
        ce.self.index = pyemu_pool_size();
        const char *h = getenv("PYEMU_COPY_HELPERS");
        helpers_on = h && h[0] >= '0' && h[0] <= '2' && h[1] == 0 ? h[0] - '0' : 1;
        if (pthread_create(&ce.thread, NULL, copy_engine_main, NULL) != 0) {
            pthread_mutex_unlock(&ce.lock);
            return -1;
        }
        pthread_detach(ce.thread);
        ce.started = 1;
    }
    atomic_fetch_add(&cmd->refs, 1); /* the copy engine's reference */
    if (is_large(cmd) && ce.large++ == 0)
        atomic_store_explicit(&large_busy, 1, memory_order_release);
    cmd->run_next = NULL;
    if (ce.tail)
        ce.tail->run_next = cmd;
    else
        ce.head = cmd;
    ce.tail = cmd;
    atomic_fetch_add_explicit(&queued, 1, memory_order_release);
    pthread_cond_signal(&ce.cv);
    pthread_mutex_unlock(&ce.lock);
    return 0;
}

/* A CPU has no copy engine of its own: this thread takes a core while it
 * copies.  When the workers already use every core, a large copy would
 * share one with a worker, the two running by turns of the scheduler's
 * slices (milliseconds, on the copy's critical path: the 4-stream loop's
 * copies are).  So while a large copy is queued or runs, the workers from
 * index `keep` on step aside between two chunks (pool.c), holding no item
 * (the others run the kernel's blocks meanwhile), until the copy engine has
 * none left.  Whether worker `index` should step aside now: */
int pyemu_copyengine_busy(int index, int keep)
{
    return index >= keep && atomic_load_explicit(&large_busy, memory_order_acquire);
}

/* ... and the wait, until no large copy is queued or runs */
void pyemu_copyengine_wait(void)
{
    pthread_mutex_lock(&ce.lock);
    while (ce.large)
        pthread_cond_wait(&ce.idle_cv, &ce.lock);
    pthread_mutex_unlock(&ce.lock);
}

/* Whether worker `index` could help a copy now: one is open, and the
 * worker is one of those kept off this thread's core while it is pinned
 * (the others would only share its core with it). */
int pyemu_copyengine_helpable(int index, int keep)
{
    return index < keep && atomic_load_explicit(&help_open, memory_order_acquire);
}

/* The copy whose slices a worker may claim, with a reference for it
 * (pyemu_cmd_release after), or NULL. */
pyemu_cmd *pyemu_copyengine_take(void)
{
    pthread_mutex_lock(&ce.lock);
    pyemu_cmd *cmd = ce.cur;
    if (cmd && atomic_load_explicit(&cmd->next, memory_order_relaxed) < cmd->nitems)
        atomic_fetch_add(&cmd->refs, 1);
    else { /* all claimed: the workers need not look again */
        atomic_store_explicit(&help_open, 0, memory_order_release);
        cmd = NULL;
    }
    pthread_mutex_unlock(&ce.lock);
    return cmd;
}
