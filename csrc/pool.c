/* pool.c - the worker threads (streaming multiprocessors) and how work reaches them.
 *
 * Ready commands wait in one FIFO run list.  A worker takes the oldest
 * command that still has items (thread blocks, or slices of a copy), claims
 * a chunk of them with one atomic add, runs them, and retires them; whoever
 * retires the last item completes the command.  Several kernels can be in
 * the list at once: their blocks then share the workers.
 *
 * Stream priorities (cudaStreamCreateWithPriority): the list is kept in
 * order of urgency (PYEMU_QUEUE_PRIORITY_MASK of the command's queue), FIFO
 * within one urgency, and a worker that finishes a chunk goes to the head
 * when a more urgent command arrived there meanwhile.  As on a GPU, a
 * running block is never preempted; a more urgent kernel's blocks are
 * dispatched before a less urgent one's when a worker frees up.
 *
 * The copy engine (copyengine.c) needs a core too: while a large copy is
 * queued or runs and the workers use every core, the last workers step
 * aside between two chunks of a kernel (pool.keep run on), so that the copy
 * runs beside the kernel at full speed instead of by turns with a worker.
 */
#include "core.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sched.h>

#define PYEMU_SPIN_NS 50000ull   /* 50 us */
#define SMEM_GUARD (16ull << 30)   /* 4-byte elements at any int index: 8 GiB, twice */

__thread pyemu_worker *pyemu_self __attribute__((tls_model("initial-exec")));

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work_cv;
    pyemu_cmd *head, *tail;     /* the run list */
    pyemu_worker *workers;
    int nworkers;
    int sleepers;               /* workers waiting on work_cv */
    atomic_int pending;         /* commands in the run list, read without the lock */
    atomic_int top;             /* the head's urgency, read without the lock */
    size_t stack_size;
    int started;
    int keep;                   /* workers that keep running while the copy engine copies */
    cpu_set_t cpus;             /* the process's cores when the pool started */
    int ncpus;                  /* how many */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0,
          0, {{0}}, 0};

/* how urgent a command is: its stream's priority (0: CUDA's least, and every
 * OpenCL queue's) */
static inline int urgency(const pyemu_cmd *c)
{
    return c->queue ? (int)(((unsigned)c->queue->flags & PYEMU_QUEUE_PRIORITY_MASK) >>
                            PYEMU_QUEUE_PRIORITY_SHIFT)
                    : 0;
}

int pyemu_pool_size(void) { return pool.nworkers; }
pyemu_worker *pyemu_pool_worker(int index) { return &pool.workers[index]; }
size_t pyemu_pool_stack_size(void) { return pool.stack_size; }

/* The caller holds the engine lock; the run list has its own. */
void pyemu_pool_submit(pyemu_cmd *cmd)
{
    atomic_fetch_add(&cmd->refs, 1); /* the run list's reference */
    pthread_mutex_lock(&pool.lock);
    cmd->run_next = NULL;
    const int u = urgency(cmd);
    if (!pool.tail || urgency(pool.tail) >= u) { /* the usual case: at the end */
        if (pool.tail)
            pool.tail->run_next = cmd;
        else
            pool.head = cmd;
        pool.tail = cmd;
    } else { /* before the first less urgent command */
        pyemu_cmd **at = &pool.head;
        while (urgency(*at) >= u)
            at = &(*at)->run_next;
        cmd->run_next = *at;
        *at = cmd;
    }
    atomic_store_explicit(&pool.top, urgency(pool.head), memory_order_release);
    atomic_fetch_add(&pool.pending, 1);
    /* wake as many sleeping workers as there are items, no more; a worker
     * that has just finished is still spinning and takes it without a wake */
    if (pool.sleepers && cmd->nitems >= (uint64_t)pool.nworkers)
        pthread_cond_broadcast(&pool.work_cv);
    else
        for (uint64_t i = 0; i < cmd->nitems && (int)i < pool.sleepers; i++)
            pthread_cond_signal(&pool.work_cv);
    pthread_mutex_unlock(&pool.lock);
}

/* Engine lock held: do the workers have items nobody has claimed yet?  A
 * copy that becomes ready then goes to the copy engine (copyengine.c). */
int pyemu_pool_has_unclaimed(void)
{
    int busy = 0;
    if (!atomic_load_explicit(&pool.pending, memory_order_acquire))
        return 0;
    pthread_mutex_lock(&pool.lock);
    for (pyemu_cmd *c = pool.head; c && !busy; c = c->run_next)
        busy = atomic_load_explicit(&c->next, memory_order_relaxed) < c->nitems;
    pthread_mutex_unlock(&pool.lock);
    return busy;
}

/* Drop a command whose items are all claimed from the run list. */
static void unlink_cmd(pyemu_cmd *cmd)
{
    pyemu_cmd *prev = NULL, *c;
    int found = 0;
    pthread_mutex_lock(&pool.lock);
    for (c = pool.head; c; prev = c, c = c->run_next) {
        if (c == cmd) {
            if (prev)
                prev->run_next = c->run_next;
            else
                pool.head = c->run_next;
            if (pool.tail == c)
                pool.tail = prev;
            atomic_store_explicit(&pool.top, pool.head ? urgency(pool.head) : 0,
                                  memory_order_release);
            atomic_fetch_sub(&pool.pending, 1);
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&pool.lock);
    if (found)
        pyemu_cmd_release(cmd);
}

/* Set the worker up for a command's items: the grid-wide part of the ctx. */
static void begin_cmd(pyemu_worker *w, pyemu_cmd *cmd)
{
    w->cmd = cmd;
    if (cmd->type != CMD_KERNEL) {
        w->desc = NULL;
        return;
    }
    w->desc = cmd->u.k.desc;
    w->args = cmd->u.k.args;
    /* The launch's shared memory (dynamic part, then OpenCL's __local
     * arguments, each 16-byte aligned) ends flush with the guard page, so a
     * write past its end faults and is reported as such (fault.c). */
    size_t total = cmd->u.k.dyn_smem;
    for (unsigned int i = 0; i < cmd->u.k.num_local; i++)
        total = ((total + 15) & ~(size_t)15) + cmd->u.k.local_args[2 * i + 1];
    char *base = (char *)(((uintptr_t)w->dyn_smem_end - total) & ~(uintptr_t)15);
    /* the kernel's static shared variables (include/pyemu/detail/smem.h)
     * just before, flush with the dynamic part unless their alignment needs
     * a gap; the device functions' ones before them */
    const pyemu_kernel_desc *d = w->desc;
    const uintptr_t amask = (uintptr_t)(d->smem[1] > d->smem_common[1] ? d->smem[1]
                                                                       : d->smem_common[1]) - 1;
    const uintptr_t sbase = ((uintptr_t)base - (uintptr_t)d->smem[0]) & ~amask;
    const uintptr_t slo = sbase - (pyemu_desc_static_smem(d) - d->smem[0]);
    w->dyn_smem_lo = (char *)slo;
    if (cmd->u.k.num_local && w->desc->args_size <= w->argbuf_cap) {
        /* OpenCL __local pointer arguments: this worker's local memory */
        memcpy(w->argbuf, cmd->u.k.args, w->desc->args_size);
        uintptr_t at = (uintptr_t)base + cmd->u.k.dyn_smem;
        for (unsigned int i = 0; i < cmd->u.k.num_local; i++) {
            at = (at + 15) & ~(uintptr_t)15;
            void *p = (void *)at;
            memcpy(w->argbuf + cmd->u.k.local_args[2 * i], &p, sizeof p);
            at += cmd->u.k.local_args[2 * i + 1];
        }
        w->args = w->argbuf;
    }
    w->nthreads = cmd->u.k.block.x * cmd->u.k.block.y * cmd->u.k.block.z;
    pyemu_tctx.blockDim = cmd->u.k.block;
    pyemu_tctx.gridDim = cmd->u.k.grid;
    pyemu_tctx.global_offset = cmd->u.k.offset;
    pyemu_tctx.work_dim = cmd->u.k.work_dim;
    pyemu_tctx.dyn_smem = cmd->u.k.dyn_smem;
    pyemu_tctx.dyn_smem_base = base;
    pyemu_tctx.smem_base = (void *)sbase;
    pyemu_tctx.solo = pool.nworkers == 1;
    pyemu_tctx.smem_lo = slo;
    pyemu_tctx.smem_span = (uintptr_t)w->dyn_smem_end - slo;
}

/* Run items [first, end) of cmd; a fault in kernel code lands back here.
 * Only kernels count as kernel code: a fault in a copy or a fill is a bug of
 * the host program (or of pyemu, which checks their ranges first) and goes
 * to the previous handler (fault.c).  The chunk's device printf text joins
 * the command before the items retire, a fault's too (assert's message). */
static void run_chunk(pyemu_worker *w, pyemu_cmd *cmd, uint64_t first, uint64_t end)
{
    volatile uint64_t i = first;
    if (sigsetjmp(w->recover, 0) != 0) {
        w->in_kernel = 0;
        w->in_libc = 0;
        if (w->in_heap)
            pyemu_heap_recover(w);
        if (cmd->type == CMD_KERNEL) /* to name the faulting thread (block.c) */
            pyemu_block_rerun_precise(w, i);
        if (w->heap_used)
            pyemu_heap_flush(w);
        pyemu_printf_commit(w);
        pyemu_fault_report(w); /* fails the command, unless the message is written */
        atomic_store(&cmd->abort, 1);
        return;
    }
    w->in_kernel = cmd->type == CMD_KERNEL;
    for (; i < end; i++) {
        if (atomic_load_explicit(&cmd->abort, memory_order_relaxed))
            break;
        pyemu_run_item(w, cmd, i);
    }
    w->in_kernel = 0;
    if (w->plen)
        pyemu_printf_commit(w);
    if (w->heap_used)
        pyemu_heap_flush(w);
}

/* A worker with no block to run takes slices of the copy engine's copy
 * (copyengine.c), one at a time, until none is left or a command arrives in
 * the run list (blocks keep priority). */
static void help_copy(pyemu_worker *w)
{
    pyemu_cmd *cmd = pyemu_copyengine_take();
    if (!cmd)
        return;
    begin_cmd(w, cmd);
    while (!atomic_load_explicit(&pool.pending, memory_order_acquire)) {
        uint64_t i = atomic_fetch_add(&cmd->next, 1);
        if (i >= cmd->nitems)
            break;
        run_chunk(w, cmd, i, i + 1);
        if (atomic_fetch_add(&cmd->retired, 1) + 1 == cmd->nitems)
            pyemu_cmd_complete(cmd);
    }
    w->cmd = NULL;
    pyemu_cmd_release(cmd);
}

/* The copy engine opened a copy to helpers: wake the sleeping workers. */
void pyemu_pool_wake_helpers(void)
{
    pthread_mutex_lock(&pool.lock);
    if (pool.sleepers)
        pthread_cond_broadcast(&pool.work_cv);
    pthread_mutex_unlock(&pool.lock);
}

static void *worker_main(void *arg)
{
    pyemu_worker *w = arg;
    pyemu_self = w;
    memset(&pyemu_tctx, 0, sizeof pyemu_tctx);
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *lo;
        size_t size;
        if (pthread_attr_getstack(&attr, &lo, &size) == 0)
            w->stack_lo = (uintptr_t)lo;
        pthread_attr_destroy(&attr);
    }
    pyemu_fault_worker_init(w);
    /* a worker takes no signals meant for the process */
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGABRT); /* abort() in a kernel ends the process, as in host code */
    sigdelset(&all, PYEMU_STOP_SIGNAL); /* the watchdog stops a kernel (watchdog.c) */
    pthread_sigmask(SIG_BLOCK, &all, NULL);

    for (;;) {
        /* Spin a little before sleeping: launches often come back to back,
         * and a sleep and a wake cost more than the launch itself.  The spin
         * yields: on a machine with more runnable threads than cores (the
         * thread that submits the launches among them) a busy spin takes
         * the core that thread needs; with nothing else to run, sched_yield
         * returns at once. */
        uint64_t spin_end = pyemu_clock_ns() + PYEMU_SPIN_NS;
        while (!atomic_load_explicit(&pool.pending, memory_order_acquire) &&
               !pyemu_copyengine_helpable(w->index, pool.keep) && pyemu_clock_ns() < spin_end)
            sched_yield();
        pthread_mutex_lock(&pool.lock);
        while (!pool.head && !pyemu_copyengine_helpable(w->index, pool.keep)) {
            pool.sleepers++;
            pthread_cond_wait(&pool.work_cv, &pool.lock);
            pool.sleepers--;
        }
        if (!pool.head) { /* nothing to run: help the copy engine */
            pthread_mutex_unlock(&pool.lock);
            help_copy(w);
            continue;
        }
        pyemu_cmd *cmd = pool.head;
        atomic_fetch_add(&cmd->refs, 1);
        pthread_mutex_unlock(&pool.lock);

        begin_cmd(w, cmd);
        if (cmd->type == CMD_KERNEL) { /* what the watchdog may stop (watchdog.c) */
            w->run_since = pyemu_clock_ns();
            __atomic_store_n(&w->run_seq, cmd->seq, __ATOMIC_RELEASE);
        }
        const int mine = urgency(cmd);
        int step_aside = 0;
        for (;;) {
            /* a more urgent command arrived: its blocks go first (this one
             * stays in the list with its unclaimed items) */
            if (atomic_load_explicit(&pool.top, memory_order_acquire) > mine)
                break;
            /* a large copy needs this worker's core (copyengine.c): the
             * kernel's blocks go to the other workers meanwhile; a
             * cooperative launch keeps every worker (grid.c) */
            if (cmd->type == CMD_KERNEL && !cmd->u.k.cooperative &&
                pyemu_copyengine_busy(w->index, pool.keep)) {
                step_aside = 1;
                break;
            }
            uint64_t first = atomic_fetch_add(&cmd->next, cmd->chunk);
            if (first >= cmd->nitems) {
                unlink_cmd(cmd);
                break;
            }
            uint64_t end = first + cmd->chunk;
            if (end > cmd->nitems)
                end = cmd->nitems;
            if (atomic_exchange(&cmd->started, 1) == 0)
                cmd->t_start = pyemu_clock_ns();
            run_chunk(w, cmd, first, end);
            uint64_t done = atomic_fetch_add(&cmd->retired, end - first) + (end - first);
            if (done == cmd->nitems)
                pyemu_cmd_complete(cmd);
        }
        __atomic_store_n(&w->run_seq, 0, __ATOMIC_RELEASE);
        w->cmd = NULL;
        pyemu_cmd_release(cmd);
        if (step_aside) { /* running nothing: the watchdog sees an idle worker */
            /* the wake that brought this worker may have been the only one
             * for the command (pyemu_pool_submit wakes one sleeper an item):
             * pass it on, else a kept worker sleeps while the command waits
             * for the whole backlog of copies */
            pthread_mutex_lock(&pool.lock);
            if (pool.sleepers)
                pthread_cond_broadcast(&pool.work_cv);
            pthread_mutex_unlock(&pool.lock);
            pyemu_copyengine_wait();
        }
    }
    return NULL;
}

/* How many workers keep running while the copy engine copies: all of them
 * when they leave a core free for it, else one core's worth fewer (at
 * least one). */
static int pool_keep(int nworkers)
{
    pool.ncpus = sched_getaffinity(0, sizeof pool.cpus, &pool.cpus) == 0 ? CPU_COUNT(&pool.cpus)
                                                                          : 0;
    long cores = pool.ncpus ? pool.ncpus : sysconf(_SC_NPROCESSORS_ONLN);
    if (cores <= 0 || nworkers < cores)
        return nworkers;
    return cores > 1 ? (int)cores - 1 : 1;
}

/* The step-aside frees a core's worth of time for the copy engine, but the
 * scheduler places the threads: with no core idle (another process on one
 * of the two), a worker woken for a kernel is put on the core of the thread
 * that woke it, the copy engine's, and the two run by turns of the
 * scheduler's slices while the other core runs the other process (the
 * 4-stream loop then gains nothing: a trace shows copies and kernels one
 * after the other).  So while the copy engine copies, it stays on one core
 * and the workers that keep running stay off that core; only when those
 * workers take every other core (pool.keep < nworkers), and never with a
 * single core.  The copy engine's thread calls this. */
int pyemu_pool_last_cpu(void)
{
    for (int c = CPU_SETSIZE - 1; pool.ncpus > 0 && c >= 0; c--)
        if (CPU_ISSET(c, &pool.cpus))
            return c;
    return -1;
}

int pyemu_pool_place_copy_engine(int cpu)
{
    if (pool.keep >= pool.nworkers || pool.ncpus < 2 || cpu >= CPU_SETSIZE ||
        (cpu >= 0 && !CPU_ISSET(cpu, &pool.cpus)))
        return -1;
    cpu_set_t rest = pool.cpus, one;
    CPU_ZERO(&one);
    if (cpu >= 0) {
        CPU_CLR(cpu, &rest);
        CPU_SET(cpu, &one);
    }
    for (int i = 0; i < pool.keep; i++)
        pthread_setaffinity_np(pool.workers[i].thread, sizeof rest, &rest);
    pthread_setaffinity_np(pthread_self(), sizeof one, cpu >= 0 ? &one : &pool.cpus);
    return 0;
}

int pyemu_pool_start(int nworkers, size_t stack_size)
{
    int status = PYEMU_SUCCESS;
    pthread_attr_t attr;
    int attr_ok = 0;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    /* room for the opt-in limit and the alignment gaps of the static part */
    const size_t smem_span = ((size_t)PYEMU_MAX_SHARED_OPTIN + 4096 + page - 1) & ~(page - 1);

    if (pool.started)
        return PYEMU_SUCCESS;
    if (nworkers <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        nworkers = n > 0 ? (int)n : 1;
    }
    PYEMU_FAIL_IF(nworkers > 1024, PYEMU_E_INVALID_VALUE,
                  "%d worker threads asked for; at most 1024", nworkers);
    pool.stack_size = stack_size ? stack_size : 65536;
    pool.workers = calloc((size_t)nworkers, sizeof *pool.workers);
    PYEMU_FAIL_IF(!pool.workers, PYEMU_E_SYSTEM, "out of host memory for the workers");
    PYEMU_FAIL_IF(pthread_attr_init(&attr) != 0, PYEMU_E_SYSTEM, "pthread_attr_init failed");
    attr_ok = 1;
    pthread_attr_setstacksize(&attr, 16u << 20); /* thread 0 of each block runs here */
    for (int i = 0; i < nworkers; i++) {
        pyemu_worker *w = &pool.workers[i];
        w->index = i;
        w->fibers = calloc(PYEMU_MAX_THREADS_PER_BLOCK, sizeof *w->fibers);
        w->argbuf_cap = PYEMU_MAX_ARGS_SIZE;
        w->argbuf = aligned_alloc(64, w->argbuf_cap);
        /* dynamic shared memory between two wide guards of reserved
         * address space (no memory, one mapping), so that an index of any
         * 32-bit value past either end faults instead of writing another
         * worker's memory; one page each where the system lends less */
        size_t guard = SMEM_GUARD;
        char *r = mmap(NULL, 2 * guard + smem_span, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (r == MAP_FAILED) {
            guard = page;
            r = mmap(NULL, 2 * guard + smem_span, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        }
        PYEMU_FAIL_IF(!w->fibers || !w->argbuf || r == MAP_FAILED ||
                          mprotect(r + guard, smem_span, PROT_READ | PROT_WRITE) != 0,
                      PYEMU_E_SYSTEM, "out of memory for worker %d", i);
        w->dyn_smem = r + guard;
        w->dyn_smem_end = w->dyn_smem + smem_span;
        w->smem_guard = guard;
        PYEMU_FAIL_IF(pthread_create(&w->thread, &attr, worker_main, w) != 0, PYEMU_E_SYSTEM,
                      "cannot start worker thread %d", i);
        pool.nworkers = i + 1;
    }
    pool.started = 1;
    pool.keep = pool_keep(pool.nworkers);
    pthread_attr_destroy(&attr);
    return PYEMU_SUCCESS;
ERROR:
    if (attr_ok)
        pthread_attr_destroy(&attr);
    /* workers already started keep running and serve the smaller pool */
    if (pool.nworkers > 0) {
        pool.started = 1;
        pool.keep = pool_keep(pool.nworkers);
        return PYEMU_SUCCESS;
    }
    return status;
}
