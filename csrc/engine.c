/* engine.c - the command engine: queues, commands, dependencies, waits.
 *
 * Every piece of device work (a kernel, a copy, a fill, a marker) is a
 * command.  A command waits for other commands: the previous one of its
 * in-order queue, its wait list, the last barrier of an out-of-order queue,
 * and, between CUDA's legacy default stream and blocking streams, the last
 * command of the other side.  When nothing is pending it goes to the worker
 * pool.  CUDA streams and events, and OpenCL command queues and events, are
 * all views of these two objects.
 */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* copies of this size or more are written with non-temporal stores and go
 * to the copy engine (copy_slice, make_ready) */
#define NT_COPY_MIN PYEMU_NT_COPY_MIN
/* a ready copy of this size or less runs on the thread that enqueues it (submit) */
#define INLINE_COPY_MAX (64u << 10)
/* a host function's command (cudaLaunchHostFunc): see "host functions" below */
#define CMD_HOST 64
/* a stream-ordered free (cudaFreeAsync): see pyemu_enqueue_free */
#define CMD_FREE 65

/* the timeline (csrc/trace.c) */
extern atomic_int pyemu_trace_on;
void pyemu_trace_cmd(const pyemu_cmd *c);
void pyemu_trace_item(int worker, unsigned long long seq, uint64_t t0, uint64_t t1);
/* the copy engine (csrc/copyengine.c) and what decides to use it (csrc/pool.c) */
int pyemu_copyengine_submit(pyemu_cmd *cmd);
int pyemu_pool_has_unclaimed(void);
/* which device owns an allocation (csrc/devmem.c) */
extern atomic_int pyemu_devmem_active;
int pyemu_devmem_forbidden(uintptr_t addr, int device);

/* The lock is recursive: finishing a command may drop the last reference to
 * its queue, which unlinks the queue under the same lock. */
/* A thread blocked in a wait: what it waits for, and its own condition
 * variable, so a completion wakes only the waits it may end. */
typedef struct waiter {
    pthread_cond_t cv;
    const pyemu_cmd *cmd;           /* one command, or */
    const pyemu_queue *queue;       /* everything of one queue, or (both NULL) of */
    int device;                     /* one device (>= 0), or of every device (-1) */
    struct waiter *next;
} waiter;

static struct {
    pthread_mutex_t lock;
    waiter *waiters;                /* threads blocked in a wait */
    uint64_t seq;
    int outstanding;                /* commands not complete, all queues */
    int dev_outstanding[PYEMU_MAX_DEVICES];  /* the same, each device's queues */
    pyemu_queue *queues;            /* every live queue */
    int sticky_code[PYEMU_MAX_DEVICES];  /* a kernel fault poisons its device until reset */
    char sticky_msg[PYEMU_MAX_DEVICES][1024];
    pyemu_cmd *unset_users;         /* user events not set yet, linked by user_next */
} eng = {PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, NULL, 0, 0, {0}, NULL, {0}, {{0}}, NULL};

/* Several virtual devices (pyemu/cuda/devices.py): a queue's device is in its
 * flags (PYEMU_QUEUE_DEVICE), a command's is its queue's (a user event's:
 * device 0); the sticky error a thread reads is its current device's. */
#define QDEV(q) ((int)(((unsigned)(q)->flags & PYEMU_QUEUE_DEVICE_MASK) >> PYEMU_QUEUE_DEVICE_SHIFT))
#define CDEV(c) ((c)->dev)
static __thread int current_device;

PYEMU_API int pyemu_set_current_device(int device)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(device < 0 || device >= PYEMU_MAX_DEVICES, PYEMU_E_INVALID_VALUE,
                  "device %d is not between 0 and %d", device, PYEMU_MAX_DEVICES - 1);
    current_device = device;
ERROR:
    return status;
}

#define CHECK_QUEUE(q) PYEMU_FAIL_IF(!(q) || (q)->magic != PYEMU_MAGIC_QUEUE, \
                                     PYEMU_E_INVALID_HANDLE, "invalid queue handle")
#define CHECK_CMD(c) PYEMU_FAIL_IF(!(c) || (c)->magic != PYEMU_MAGIC_CMD, \
                                   PYEMU_E_INVALID_HANDLE, "invalid event handle")

/* ---- waits ---- */

static int wait_done(const waiter *w)
{
    if (w->cmd)
        return w->cmd->status <= PYEMU_CMD_COMPLETE;
    if (w->queue)
        return w->queue->outstanding == 0;
    if (w->device >= 0)
        return eng.dev_outstanding[w->device] == 0;
    return eng.outstanding == 0;
}

/* engine lock held: wake the waits that may be over (and count the wakes,
 * so that a test can see that a completion wakes no other wait) */
static unsigned long long wakes;

static void wake_waiters(void)
{
    for (waiter *w = eng.waiters; w; w = w->next)
        if (wait_done(w)) {
            wakes++;
            pthread_cond_signal(&w->cv);
        }
}

PYEMU_API unsigned long long pyemu_engine_wakes(void)
{
    pthread_mutex_lock(&eng.lock);
    unsigned long long n = wakes;
    pthread_mutex_unlock(&eng.lock);
    return n;
}

/* Block until w is done or timeout_ms have passed (PYEMU_WAIT_FOREVER: no
 * limit); PYEMU_E_TIMEOUT then.  Engine lock held.  The time limit lets a
 * caller come back now and then (Python, to take Ctrl-C) and wait again. */
static int wait_locked(waiter *w, unsigned int timeout_ms)
{
    int status = PYEMU_SUCCESS;
    if (wait_done(w))
        return status;
    struct timespec until;
    if (timeout_ms != PYEMU_WAIT_FOREVER) {
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
    }
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &attr);
    pthread_condattr_destroy(&attr);
    w->next = eng.waiters;
    eng.waiters = w;
    while (!wait_done(w)) {
        if (timeout_ms == PYEMU_WAIT_FOREVER) {
            pthread_cond_wait(&w->cv, &eng.lock);
        } else if (pthread_cond_timedwait(&w->cv, &eng.lock, &until) != 0 && !wait_done(w)) {
            status = PYEMU_E_TIMEOUT;
            break;
        }
    }
    for (waiter **p = &eng.waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_cond_destroy(&w->cv);
    return status;
}

/* ---- queues ---- */

PYEMU_API int pyemu_queue_create(int flags, pyemu_queue **queue)
{
    int status = PYEMU_SUCCESS;
    pyemu_queue *q = NULL;
    PYEMU_FAIL_IF(!queue, PYEMU_E_INVALID_VALUE, "no place to return the queue");
    PYEMU_FAIL_IF(flags & ~(PYEMU_QUEUE_OUT_OF_ORDER | PYEMU_QUEUE_LEGACY_DEFAULT |
                            PYEMU_QUEUE_BLOCKING | PYEMU_QUEUE_DEVICE_MASK |
                            PYEMU_QUEUE_PRIORITY_MASK),
                  PYEMU_E_INVALID_VALUE, "unknown queue flags 0x%x", flags);
    q = calloc(1, sizeof *q);
    PYEMU_FAIL_IF(!q, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    q->magic = PYEMU_MAGIC_QUEUE;
    q->flags = flags;
    atomic_init(&q->refs, 1);
    pthread_mutex_lock(&eng.lock);
    q->next_q = eng.queues;
    eng.queues = q;
    pthread_mutex_unlock(&eng.lock);
    *queue = q;
ERROR:
    return status;
}

/* A queue is referenced by its user and by each command of it that has not
 * completed; a command drops its reference when it completes (finish_locked),
 * so that the queue's own reference on its newest command (q->last) makes no
 * cycle: a released queue goes, with that command, once its work is done.
 * Engine lock held.  The commands released here are complete, so they hold
 * no queue reference and take no lock. */
static void queue_unref_locked(pyemu_queue *q)
{
    if (atomic_fetch_sub(&q->refs, 1) != 1)
        return;
    for (pyemu_queue **p = &eng.queues; *p; p = &(*p)->next_q)
        if (*p == q) {
            *p = q->next_q;
            break;
        }
    pyemu_cmd *last = q->last, *lb = q->last_barrier;
    q->last = q->last_barrier = NULL;
    q->magic = PYEMU_MAGIC_DEAD;
    free(q);
    if (last)
        pyemu_cmd_release(last);
    if (lb)
        pyemu_cmd_release(lb);
}

static void queue_unref(pyemu_queue *q)
{
    pthread_mutex_lock(&eng.lock);
    queue_unref_locked(q);
    pthread_mutex_unlock(&eng.lock);
}

/* The user lets go; queued work still runs (as clReleaseCommandQueue). */
PYEMU_API int pyemu_queue_release(pyemu_queue *queue)
{
    int status = PYEMU_SUCCESS;
    CHECK_QUEUE(queue);
    queue_unref(queue);
ERROR:
    return status;
}

PYEMU_API int pyemu_queue_finish(pyemu_queue *queue, unsigned int timeout_ms)
{
    int status = PYEMU_SUCCESS;
    CHECK_QUEUE(queue);
    waiter w = {.queue = queue, .device = -1};
    pthread_mutex_lock(&eng.lock);
    status = wait_locked(&w, timeout_ms);
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_device_synchronize(unsigned int timeout_ms)
{
    waiter w = {.device = -1};
    pthread_mutex_lock(&eng.lock);
    int status = wait_locked(&w, timeout_ms);
    pthread_mutex_unlock(&eng.lock);
    return status;
}

/* cudaDeviceSynchronize with several devices: the commands of one device's
 * queues only (another device's long kernel is not waited for). */
PYEMU_API int pyemu_device_synchronize_one(int device, unsigned int timeout_ms)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(device < 0 || device >= PYEMU_MAX_DEVICES, PYEMU_E_INVALID_VALUE,
                  "device %d is not between 0 and %d", device, PYEMU_MAX_DEVICES - 1);
    waiter w = {.device = device};
    pthread_mutex_lock(&eng.lock);
    status = wait_locked(&w, timeout_ms);
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

/* cudaDeviceReset of one device among several: its sticky error only (the
 * facade waits for its work and frees its allocations itself). */
PYEMU_API int pyemu_device_clear_sticky(int device)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(device < 0 || device >= PYEMU_MAX_DEVICES, PYEMU_E_INVALID_VALUE,
                  "device %d is not between 0 and %d", device, PYEMU_MAX_DEVICES - 1);
    pthread_mutex_lock(&eng.lock);
    eng.sticky_code[device] = 0;
    eng.sticky_msg[device][0] = 0;
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_sticky_error(char *message, size_t len)
{
    pthread_mutex_lock(&eng.lock);
    int code = eng.sticky_code[current_device];
    if (message && len)
        snprintf(message, len, "%s", eng.sticky_msg[current_device]);
    pthread_mutex_unlock(&eng.lock);
    return code;
}

static void finish_locked(pyemu_cmd *cmd);
static void run_deferred(void);

/* The user events nobody has set fail (their waiters with them): after a
 * reset no one may set them any more, and the reset waits for all work. */
PYEMU_API int pyemu_user_events_fail_unset(void)
{
    pthread_mutex_lock(&eng.lock);
    while (eng.unset_users) {
        pyemu_cmd *c = eng.unset_users;
        eng.unset_users = c->user_next;
        c->user_next = NULL;
        c->err_code = PYEMU_E_DEP_FAILED;
        c->err_msg = strdup("the device was reset (cudaDeviceReset) before the user event "
                            "was set");
        c->t_submit = c->t_start = pyemu_clock_ns();
        finish_locked(c); /* drops the engine's reference */
    }
    pthread_mutex_unlock(&eng.lock);
    run_deferred();
    return PYEMU_SUCCESS;
}

/* Fail the user events nobody set, wait for all work, then free all device
 * memory and forget the fault. */
PYEMU_API int pyemu_device_reset(void)
{
    pyemu_user_events_fail_unset();
    pyemu_device_synchronize(PYEMU_WAIT_FOREVER);
    pyemu_mem_free_all();
    pthread_mutex_lock(&eng.lock);
    for (int d = 0; d < PYEMU_MAX_DEVICES; d++) { /* every device's (pyemu/cuda/devices.py) */
        eng.sticky_code[d] = 0;
        eng.sticky_msg[d][0] = 0;
    }
    pthread_mutex_unlock(&eng.lock);
    pyemu_printf_reset();
    return PYEMU_SUCCESS;
}

/* ---- commands ---- */

PYEMU_API int pyemu_cmd_retain(pyemu_cmd *cmd)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    atomic_fetch_add(&cmd->refs, 1);
ERROR:
    return status;
}

/* ---- the buffers a command uses (buffer.c): held from enqueue to completion ---- */

/* cmd holds a reference on each of bufs (not yet submitted, or under the lock) */
static int hold_buffers(pyemu_cmd *cmd, pyemu_buffer **bufs, unsigned int n)
{
    if (n == 0)
        return PYEMU_SUCCESS;
    unsigned int total = cmd->nbufs + n;
    pyemu_buffer **to = cmd->bufs;
    if (total > 4 && (cmd->bufs == cmd->bufs_inline || !cmd->bufs)) {
        to = malloc(total * sizeof *to);
        if (!to)
            return PYEMU_E_OUT_OF_MEMORY;
        if (cmd->nbufs)
            memcpy(to, cmd->bufs, cmd->nbufs * sizeof *to);
    } else if (total > 4) {
        to = realloc(cmd->bufs, total * sizeof *to);
        if (!to)
            return PYEMU_E_OUT_OF_MEMORY;
    } else {
        to = cmd->bufs_inline;
    }
    for (unsigned int i = 0; i < n; i++) {
        pyemu_buffer_ref(bufs[i]);
        to[cmd->nbufs + i] = bufs[i];
    }
    cmd->bufs = to;
    cmd->nbufs = total;
    return PYEMU_SUCCESS;
}

static void drop_buffers(pyemu_cmd *cmd)
{
    for (unsigned int i = 0; i < cmd->nbufs; i++)
        pyemu_buffer_unref(cmd->bufs[i]);
    if (cmd->bufs != cmd->bufs_inline)
        free(cmd->bufs);
    cmd->bufs = NULL;
    cmd->nbufs = 0;
}

/* a free command's hold on other queues' commands (pyemu_enqueue_free) */
static void drop_after(pyemu_cmd *cmd)
{
    for (unsigned int i = 0; i < cmd->u.free.nafter; i++)
        pyemu_cmd_release(cmd->u.free.after[i]);
    free(cmd->u.free.after);
    cmd->u.free.after = NULL;
    cmd->u.free.nafter = 0;
}

/* a free command that will not run lets its allocation go back to its owner */
static void unqueue_free(pyemu_cmd *cmd)
{
    if (cmd->u.free.queued) {
        cmd->u.free.queued = 0;
        pyemu_mem_unqueue_free(cmd->u.free.addr, cmd->u.free.generation);
    }
}

PYEMU_API int pyemu_cmd_release(pyemu_cmd *cmd)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    if (atomic_fetch_sub(&cmd->refs, 1) == 1) {
        if (cmd->type == CMD_KERNEL) {
            free(cmd->u.k.args);
            free(cmd->u.k.local_args);
            pyemu_module_release(cmd->u.k.module);
        }
        if (cmd->type == CMD_FREE) {
            drop_after(cmd);    /* never ran (refused at submit, a reset) */
            unqueue_free(cmd);
        }
        if (cmd->queue)
            queue_unref(cmd->queue);
        drop_buffers(cmd);  /* never completed (refused at submit) */
        free(cmd->succ);
        free(cmd->callbacks);
        free(cmd->err_msg);
        free(cmd->out);
        cmd->magic = PYEMU_MAGIC_DEAD;
        free(cmd);
    }
ERROR:
    return status;
}

void pyemu_engine_poison(int code, const char *msg)
{
    pthread_mutex_lock(&eng.lock);
    for (int d = 0; d < PYEMU_MAX_DEVICES; d++) /* no command to tell the device: all */
        if (!eng.sticky_code[d]) {
            eng.sticky_code[d] = code;
            snprintf(eng.sticky_msg[d], sizeof eng.sticky_msg[d], "%s", msg);
        }
    pthread_mutex_unlock(&eng.lock);
}

void pyemu_cmd_fail(pyemu_cmd *cmd, int code, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&eng.lock);
    if (!cmd->err_code) { /* the first failure of a launch is the one reported */
        cmd->err_code = code;
        cmd->err_msg = strdup(buf);
    }
    if (code >= PYEMU_E_ILLEGAL_ADDRESS && !eng.sticky_code[CDEV(cmd)]) {
        eng.sticky_code[CDEV(cmd)] = code;
        snprintf(eng.sticky_msg[CDEV(cmd)], sizeof eng.sticky_msg[0], "%s", buf);
    }
    pthread_mutex_unlock(&eng.lock);
}

/* Callbacks of commands that completed while this thread held the engine
 * lock; run once it is let go (a callback may call into the engine, or wait
 * for Python's GIL). */
static __thread struct {
    pyemu_cmd_callback *cb;
    pyemu_cmd **cmd;
    int n, cap;
} deferred;

static void defer_callbacks(pyemu_cmd *c)
{
    for (int i = 0; i < c->ncallbacks; i++) {
        if (deferred.n == deferred.cap) {
            int cap = deferred.cap ? deferred.cap * 2 : 16;
            pyemu_cmd_callback *cb = realloc(deferred.cb, (size_t)cap * sizeof *cb);
            pyemu_cmd **cm = realloc(deferred.cmd, (size_t)cap * sizeof *cm);
            if (cb)
                deferred.cb = cb;
            if (cm)
                deferred.cmd = cm;
            if (!cb || !cm)
                return; /* out of host memory: the callback is lost, not a crash */
            deferred.cap = cap;
        }
        atomic_fetch_add(&c->refs, 1);
        deferred.cb[deferred.n] = c->callbacks[i];
        deferred.cmd[deferred.n++] = c;
    }
    c->ncallbacks = 0;
}

static int cmd_exec_status(const pyemu_cmd *c)
{
    return c->user_status ? c->user_status : c->status;
}

/* Not under the engine lock. */
static void run_deferred(void)
{
    while (deferred.n > 0) {
        int i = --deferred.n;
        pyemu_cmd *c = deferred.cmd[i];
        deferred.cb[i].fn(c, cmd_exec_status(c), deferred.cb[i].data);
        pyemu_cmd_release(c);
    }
}

static void make_ready(pyemu_cmd *cmd);

/* engine lock held: finish cmd and start what waited only for it */
static void finish_locked(pyemu_cmd *cmd)
{
    pyemu_cmd *stack[64];
    int top = 0;
    stack[top++] = cmd;
    while (top > 0) {
        pyemu_cmd *c = stack[--top];
        c->t_end = pyemu_clock_ns();
        if (!c->t_start)
            c->t_start = c->t_end;
        c->status = c->err_code ? -c->err_code : PYEMU_CMD_COMPLETE;
        if (c->type == CMD_FREE) /* completed without running (the sticky error) */
            unqueue_free(c);
        if (c->type == CMD_KERNEL && c->nitems == 0 && c->err_code == PYEMU_E_ILLEGAL_ADDRESS &&
            !eng.sticky_code[CDEV(c)] && c->err_msg) { /* a peer access refused (devmem.c) */
            eng.sticky_code[CDEV(c)] = c->err_code;
            snprintf(eng.sticky_msg[CDEV(c)], sizeof eng.sticky_msg[0], "%s", c->err_msg);
        }
        if (atomic_load_explicit(&pyemu_trace_on, memory_order_relaxed))
            pyemu_trace_cmd(c);
        pyemu_printf_collect(c);
        if (c->queue) { /* user events belong to no queue */
            c->queue->outstanding--;
            eng.outstanding--;
            eng.dev_outstanding[QDEV(c->queue)]--;
        }
        defer_callbacks(c);
        /* its buffers go before anyone sees it complete: after clFinish the
         * memory of released buffers is free (the last reference frees it,
         * taking the memory manager's lock inside the engine's: never the
         * other way round) */
        if (c->nbufs)
            drop_buffers(c);
        if (c->queue) { /* complete: its queue reference goes (see queue_unref_locked) */
            pyemu_queue *cq = c->queue;
            c->queue = NULL;
            queue_unref_locked(cq);
        }
        for (int i = 0; i < c->nsucc; i++) {
            /* the low bit tags an edge that only orders, without passing failure on */
            int order_only = (int)((uintptr_t)c->succ[i] & 1);
            pyemu_cmd *s = (pyemu_cmd *)((uintptr_t)c->succ[i] & ~(uintptr_t)1);
            if (c->err_code && !order_only)
                s->dep_failed = 1;
            if (--s->pending == 0) {
                if ((s->dep_failed || eng.sticky_code[CDEV(s)] || s->nitems == 0) && top < 64 &&
                    s->type != CMD_HOST) {
                    s->t_submit = pyemu_clock_ns();
                    if (s->dep_failed && !s->err_code) {
                        s->err_code = PYEMU_E_DEP_FAILED;
                        s->err_msg = strdup("a command it waited for failed");
                    } else if (eng.sticky_code[CDEV(s)] && s->nitems && !s->err_code) {
                        s->err_code = eng.sticky_code[CDEV(s)];
                        s->err_msg = strdup(eng.sticky_msg[CDEV(s)]);
                    }
                    stack[top++] = s; /* nothing to run: finish it right here */
                } else {
                    make_ready(s);
                }
            }
            pyemu_cmd_release(s); /* the reference c->succ held */
        }
        c->nsucc = 0;
        pyemu_cmd_release(c); /* the engine's reference */
    }
    if (eng.waiters)
        wake_waiters();
}

/* ---- host functions (CUDA's cudaLaunchHostFunc, cudaStreamAddCallback) ----
 * A CMD_HOST command has no work for the workers: once what it waits for is
 * done it goes on the host list, where the facade's host thread takes it
 * (pyemu_host_next), runs the Python function and completes it
 * (pyemu_host_done); later commands of its queue wait for that.  It runs
 * even after a failure, so that the function learns the error status. */
#define HOST_TAG(c) ((c)->u.copy.size)  /* the facade's key of the function */
static struct {
    pyemu_cmd *head, *tail;         /* linked through run_next */
    pthread_cond_t cv;
} hostq = {NULL, NULL, PTHREAD_COND_INITIALIZER};

/* engine lock held */
static void host_push(pyemu_cmd *cmd)
{
    cmd->status = PYEMU_CMD_SUBMITTED;
    cmd->run_next = NULL;
    if (hostq.tail)
        hostq.tail->run_next = cmd;
    else
        hostq.head = cmd;
    hostq.tail = cmd;
    pthread_cond_signal(&hostq.cv);
}

/* engine lock held; cmd->pending == 0 */
static void make_ready(pyemu_cmd *cmd)
{
    cmd->t_submit = pyemu_clock_ns();
    if (cmd->type == CMD_HOST) { /* a host function: to the host thread, never a worker */
        host_push(cmd);
        return;
    }
    if (cmd->dep_failed || eng.sticky_code[CDEV(cmd)] || cmd->nitems == 0) {
        if (cmd->dep_failed && !cmd->err_code) {
            cmd->err_code = PYEMU_E_DEP_FAILED;
            cmd->err_msg = strdup("a command it waited for failed");
        } else if (eng.sticky_code[CDEV(cmd)] && cmd->nitems && !cmd->err_code) {
            cmd->err_code = eng.sticky_code[CDEV(cmd)];
            cmd->err_msg = strdup(eng.sticky_msg[CDEV(cmd)]);
        }
        finish_locked(cmd);
        return;
    }
    cmd->status = PYEMU_CMD_SUBMITTED;
    /* a large copy always goes to the copy engine, as a GPU's DMA transfers
     * (one thread copies about as fast as the memory goes: copy_slice), so
     * that kernels keep every worker; a small one beside busy workers too
     * (copyengine.c) */
    if (cmd->type == CMD_COPY &&
        (cmd->u.copy.size >= NT_COPY_MIN || pyemu_pool_has_unclaimed()) &&
        pyemu_copyengine_submit(cmd) == 0)
        return;
    pyemu_pool_submit(cmd);
}

void pyemu_cmd_complete(pyemu_cmd *cmd)
{
    pthread_mutex_lock(&eng.lock);
    finish_locked(cmd);
    pthread_mutex_unlock(&eng.lock);
    run_deferred();
}

/* engine lock held: cmd waits for dep (unless dep is done).  Only an
 * explicit wait-list entry passes its failure on (OpenCL's
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST); queue order does not: a
 * kernel fault stops later work through the sticky error instead, which
 * a device reset clears. */
static int add_dep(pyemu_cmd *cmd, pyemu_cmd *dep, int explicit_wait)
{
    if (!dep || dep == cmd)
        return 0;
    if (dep->status <= PYEMU_CMD_COMPLETE) {
        if (dep->status < 0 && explicit_wait)
            cmd->dep_failed = 1;
        return 0;
    }
    if (dep->nsucc == dep->capsucc) {
        int cap = dep->capsucc ? dep->capsucc * 2 : 4;
        pyemu_cmd **s = realloc(dep->succ, (size_t)cap * sizeof *s);
        if (!s)
            return -1;
        dep->succ = s;
        dep->capsucc = cap;
    }
    atomic_fetch_add(&cmd->refs, 1);
    dep->succ[dep->nsucc++] = explicit_wait ? cmd : (pyemu_cmd *)((uintptr_t)cmd | 1);
    cmd->pending++;
    return 0;
}

static pyemu_cmd *new_cmd(int type)
{
    pyemu_cmd *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->magic = PYEMU_MAGIC_CMD;
    c->type = type;
    c->status = PYEMU_CMD_QUEUED;
    c->chunk = 1;
    atomic_init(&c->refs, 1); /* the engine's, until it completes */
    c->t_queued = pyemu_clock_ns();
    return c;
}

/* Put cmd on queue behind what it must wait for; takes over cmd. */
static int submit(pyemu_queue *q, pyemu_cmd *cmd, pyemu_cmd **wait, unsigned int nwait,
                  pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&eng.lock);
    if (eng.sticky_code[QDEV(q)]) {
        /* the device is poisoned by a kernel fault: nothing more runs until reset */
        status = eng.sticky_code[QDEV(q)];
        pyemu_set_error("%s", eng.sticky_msg[QDEV(q)]);
        pthread_mutex_unlock(&eng.lock);
        goto ERROR;
    }
    for (unsigned int i = 0; i < nwait; i++)
        if (!wait[i] || wait[i]->magic != PYEMU_MAGIC_CMD) {
            pthread_mutex_unlock(&eng.lock);
            PYEMU_FAIL_IF(1, PYEMU_E_INVALID_HANDLE, "wait list entry %u is not a valid event", i);
        }
    cmd->queue = q;
    cmd->dev = QDEV(q);
    atomic_fetch_add(&q->refs, 1);
    cmd->seq = ++eng.seq;
    int ok = 0;
    for (unsigned int i = 0; i < nwait; i++)
        ok |= add_dep(cmd, wait[i], 1);
    if (!(q->flags & PYEMU_QUEUE_OUT_OF_ORDER) || cmd->barrier)
        ok |= add_dep(cmd, q->last, 0);
    ok |= add_dep(cmd, q->last_barrier, 0);
    if (q->flags & PYEMU_QUEUE_LEGACY_DEFAULT) { /* each device's legacy stream: its own */
        for (pyemu_queue *o = eng.queues; o; o = o->next_q)
            if (o != q && (o->flags & PYEMU_QUEUE_BLOCKING) && QDEV(o) == QDEV(q))
                ok |= add_dep(cmd, o->last, 0);
    } else if (q->flags & PYEMU_QUEUE_BLOCKING) {
        for (pyemu_queue *o = eng.queues; o; o = o->next_q)
            if (o != q && (o->flags & PYEMU_QUEUE_LEGACY_DEFAULT) && QDEV(o) == QDEV(q))
                ok |= add_dep(cmd, o->last, 0);
    }
    if (ok) {
        /* cannot happen short of host memory: drop cmd's edges by failing it */
        cmd->err_code = PYEMU_E_OUT_OF_MEMORY;
        cmd->err_msg = strdup("out of host memory");
    }
    atomic_fetch_add(&cmd->refs, 1); /* q->last */
    if (q->last)
        pyemu_cmd_release(q->last);
    q->last = cmd;
    if (cmd->barrier) {
        atomic_fetch_add(&cmd->refs, 1);
        if (q->last_barrier)
            pyemu_cmd_release(q->last_barrier);
        q->last_barrier = cmd;
    }
    q->outstanding++;
    eng.outstanding++;
    eng.dev_outstanding[QDEV(q)]++;
    if (event) {
        atomic_fetch_add(&cmd->refs, 1);
        *event = cmd;
    }
    /* a small copy with nothing to wait for runs here, on the calling
     * thread, once the lock is let go: waking a worker for it costs more
     * than the copy (a blocking cudaMemcpy of a few KiB) */
    int inline_copy = cmd->pending == 0 && cmd->type == CMD_COPY && cmd->nitems == 1 &&
                      cmd->u.copy.size <= INLINE_COPY_MAX && !cmd->dep_failed &&
                      !cmd->err_code;
    if (inline_copy) {
        cmd->t_submit = pyemu_clock_ns();
        cmd->status = PYEMU_CMD_SUBMITTED;
        atomic_fetch_add(&cmd->refs, 1); /* this thread's, while it copies */
    } else if (cmd->pending == 0) {
        make_ready(cmd);
    }
    pthread_mutex_unlock(&eng.lock);
    if (inline_copy) {
        atomic_store(&cmd->started, 1);
        cmd->t_start = pyemu_clock_ns();
        memmove(cmd->u.copy.dst, cmd->u.copy.src, cmd->u.copy.size);
        atomic_store(&cmd->next, 1);
        atomic_store(&cmd->retired, 1);
        pyemu_cmd_complete(cmd);
        pyemu_cmd_release(cmd);
    }
    run_deferred();
    return PYEMU_SUCCESS;
ERROR:
    pyemu_cmd_release(cmd);
    return status;
}

PYEMU_API int pyemu_enqueue_kernel(pyemu_queue *queue, const pyemu_launch *l,
                                   const void *args, size_t args_size,
                                   pyemu_cmd **wait, unsigned int nwait, pyemu_cmd **event)
{
    return pyemu_enqueue_kernel_using(queue, l, args, args_size, NULL, 0, wait, nwait, event);
}

PYEMU_API int pyemu_enqueue_kernel_using(pyemu_queue *queue, const pyemu_launch *l,
                                         const void *args, size_t args_size,
                                         pyemu_buffer **bufs, unsigned int nbufs,
                                         pyemu_cmd **wait, unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    PYEMU_FAIL_IF(nbufs && !bufs, PYEMU_E_INVALID_VALUE, "no buffer list");
    for (unsigned int i = 0; i < nbufs; i++)
        PYEMU_FAIL_IF(!pyemu_buffer_valid(bufs[i]), PYEMU_E_INVALID_HANDLE,
                      "buffer %u of the list is not a valid buffer", i);
    PYEMU_FAIL_IF(!l, PYEMU_E_INVALID_VALUE, "no launch description");
    pyemu_module *module = l->module;
    PYEMU_FAIL_IF(!module || module->magic != PYEMU_MAGIC_MODULE, PYEMU_E_INVALID_HANDLE,
                  "invalid module handle");
    PYEMU_FAIL_IF(l->kernel >= module->info->nkernels, PYEMU_E_INVALID_VALUE,
                  "kernel index %u out of range", l->kernel);
    const pyemu_kernel_desc *d = &module->info->kernels[l->kernel];
    const unsigned int gx = l->grid[0], gy = l->grid[1], gz = l->grid[2];
    const unsigned int bx = l->block[0], by = l->block[1], bz = l->block[2];
    const unsigned int dyn_smem = l->dyn_smem, num_local = l->num_local;
    const unsigned int *local_args = l->local_args;
    unsigned int smem_limit = l->smem_limit;
    PYEMU_FAIL_IF(args_size != d->args_size || (args_size && !args), PYEMU_E_INVALID_VALUE,
                  "kernel '%s' takes %u bytes of arguments, %zu given", d->name, d->args_size,
                  args_size);
    /* a pointer argument is null or device memory: a host address would
     * fault far from its cause (a GPU accepts it and faults in the kernel) */
    unsigned int peer_arg = 0;      /* 1 + the argument in another device's memory */
    int peer_owner = -1;
    uintptr_t peer_addr = 0;
    for (unsigned int i = 0; i < d->nparams; i++) {
        const pyemu_param_desc *p = &d->params[i];
        if (p->kind != PYEMU_PARAM_POINTER || p->size != sizeof(uintptr_t))
            continue;
        uintptr_t v;
        memcpy(&v, (const char *)args + p->offset, sizeof v);
        PYEMU_FAIL_IF(v && !pyemu_mem_in_region(v) && !pyemu_hostreg_contains(v),
                      PYEMU_E_BAD_POINTER,
                      "argument %u of %s (%s) is a pointer; 0x%llx is not device memory", i + 1,
                      d->name, p->type_name, (unsigned long long)v);
        if (v && !peer_arg && atomic_load_explicit(&pyemu_devmem_active, memory_order_relaxed) &&
            (peer_owner = pyemu_devmem_forbidden(v, QDEV(queue))) >= 0) {
            peer_arg = i + 1;
            peer_addr = v;
        }
    }
    PYEMU_FAIL_IF(!gx || !gy || !gz || !bx || !by || !bz, PYEMU_E_BAD_DIMS,
                  "a grid or block dimension is zero: grid (%u,%u,%u), block (%u,%u,%u)",
                  gx, gy, gz, bx, by, bz);
    PYEMU_FAIL_IF(bx > PYEMU_MAX_BLOCK_X || by > PYEMU_MAX_BLOCK_Y || bz > PYEMU_MAX_BLOCK_Z,
                  PYEMU_E_BAD_DIMS, "block (%u,%u,%u) is over the limit (%u,%u,%u)", bx, by, bz,
                  PYEMU_MAX_BLOCK_X, PYEMU_MAX_BLOCK_Y, PYEMU_MAX_BLOCK_Z);
    PYEMU_FAIL_IF((unsigned long long)bx * by * bz > PYEMU_MAX_THREADS_PER_BLOCK,
                  PYEMU_E_BLOCK_TOO_LARGE, "block (%u,%u,%u) has %llu threads; at most %u",
                  bx, by, bz, (unsigned long long)bx * by * bz, PYEMU_MAX_THREADS_PER_BLOCK);
    PYEMU_FAIL_IF(gx > PYEMU_MAX_GRID_X || gy > PYEMU_MAX_GRID_Y || gz > PYEMU_MAX_GRID_Z,
                  PYEMU_E_BAD_DIMS, "grid (%u,%u,%u) is over the limit (%u,%u,%u)", gx, gy, gz,
                  PYEMU_MAX_GRID_X, PYEMU_MAX_GRID_Y, PYEMU_MAX_GRID_Z);
    if (smem_limit == 0 || smem_limit > PYEMU_MAX_SHARED_OPTIN)
        smem_limit = PYEMU_MAX_SHARED_OPTIN;
    PYEMU_FAIL_IF(dyn_smem > smem_limit, PYEMU_E_SMEM_TOO_LARGE,
                  "%u bytes of dynamic shared memory asked for; the limit is %u", dyn_smem,
                  smem_limit);
    PYEMU_FAIL_IF(args_size > PYEMU_MAX_ARGS_SIZE, PYEMU_E_INVALID_VALUE,
                  "%zu bytes of kernel arguments; at most %u", args_size, PYEMU_MAX_ARGS_SIZE);
    PYEMU_FAIL_IF(num_local && !local_args, PYEMU_E_INVALID_VALUE, "no local argument list");
    PYEMU_FAIL_IF(l->work_dim > 3, PYEMU_E_INVALID_VALUE, "work_dim %u is over 3", l->work_dim);
    PYEMU_FAIL_IF(l->flags & ~(unsigned int)PYEMU_LAUNCH_COOPERATIVE, PYEMU_E_INVALID_VALUE,
                  "unknown launch flags 0x%x", l->flags);
    /* static shared memory (the module's segment) comes first, then the dynamic part */
    const unsigned long long static_smem = pyemu_desc_static_smem(d);
    PYEMU_FAIL_IF(static_smem + dyn_smem > smem_limit, PYEMU_E_SMEM_TOO_LARGE,
                  "%llu bytes of static and %u bytes of dynamic shared memory; the limit is %u",
                  static_smem, dyn_smem, smem_limit);
    unsigned long long local_total = static_smem + dyn_smem;
    for (unsigned int i = 0; i < num_local; i++) {
        PYEMU_FAIL_IF(local_args[2 * i] % sizeof(void *) ||
                          local_args[2 * i] + sizeof(void *) > args_size,
                      PYEMU_E_INVALID_VALUE, "local argument at offset %u is not a pointer slot",
                      local_args[2 * i]);
        PYEMU_FAIL_IF(local_args[2 * i + 1] == 0, PYEMU_E_INVALID_VALUE,
                      "local argument at offset %u has size 0", local_args[2 * i]);
        local_total = ((local_total + 15) & ~15ull) + local_args[2 * i + 1];
    }
    PYEMU_FAIL_IF(local_total > smem_limit, PYEMU_E_SMEM_TOO_LARGE,
                  "%llu bytes of local memory asked for; the limit is %u", local_total, smem_limit);
    cmd = new_cmd(CMD_KERNEL);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->u.k.args = malloc(args_size ? args_size : 1);
    PYEMU_FAIL_IF(!cmd->u.k.args, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    if (args_size)
        memcpy(cmd->u.k.args, args, args_size);
    if (num_local) {
        cmd->u.k.local_args = malloc(2 * num_local * sizeof *local_args);
        PYEMU_FAIL_IF(!cmd->u.k.local_args, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
        memcpy(cmd->u.k.local_args, local_args, 2 * num_local * sizeof *local_args);
        cmd->u.k.num_local = num_local;
    }
    atomic_fetch_add(&module->refs, 1);
    cmd->u.k.module = module;
    cmd->u.k.desc = d;
    cmd->u.k.grid = (pyemu_uint3){gx, gy, gz};
    cmd->u.k.block = (pyemu_uint3){bx, by, bz};
    cmd->u.k.offset = (pyemu_uint3){l->offset[0], l->offset[1], l->offset[2]};
    cmd->u.k.work_dim = l->work_dim ? l->work_dim : 3;
    cmd->u.k.cooperative = (l->flags & PYEMU_LAUNCH_COOPERATIVE) != 0;
    cmd->u.k.dyn_smem = dyn_smem;
    cmd->nitems = (uint64_t)gx * gy * gz;
    uint64_t per = cmd->nitems / ((uint64_t)pyemu_pool_size() * 32);
    cmd->chunk = per < 1 ? 1 : per > 64 ? 64 : per;
    PYEMU_FAIL_IF(hold_buffers(cmd, bufs, nbufs), PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    if (peer_arg) { /* as the kernel's first access would on a GPU: fails, sticky (devmem.c) */
        char buf[512];
        snprintf(buf, sizeof buf, "kernel '%s': argument %u (0x%llx) is memory of device %d, "
                 "and device %d has no peer access to it (cudaDeviceEnablePeerAccess)", d->name,
                 peer_arg, (unsigned long long)peer_addr, peer_owner, QDEV(queue));
        cmd->nitems = 0; /* nothing runs; finish_locked makes the error sticky */
        cmd->err_code = PYEMU_E_ILLEGAL_ADDRESS;
        cmd->err_msg = strdup(buf);
    }
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    if (cmd) {
        free(cmd->u.k.args);
        free(cmd->u.k.local_args);
        cmd->u.k.args = NULL;
        cmd->u.k.local_args = NULL;
        cmd->type = CMD_MARKER;
        pyemu_cmd_release(cmd);
    }
    return status;
}

/* The same, returning the event (a reference of the caller's) or NULL, with
 * the status for pyemu_enqueue_status(): one output less to pass around on
 * the path where every nanosecond of the caller's counts (OpenCL's enqueue). */
static __thread int enqueue_status;

PYEMU_API pyemu_cmd *pyemu_enqueue_kernel_event(pyemu_queue *queue, const pyemu_launch *l,
                                                const void *args, size_t args_size,
                                                pyemu_buffer **bufs, unsigned int nbufs,
                                                pyemu_cmd **wait, unsigned int nwait)
{
    pyemu_cmd *event = NULL;
    enqueue_status = pyemu_enqueue_kernel_using(queue, l, args, args_size, bufs, nbufs, wait,
                                                nwait, &event);
    return enqueue_status ? NULL : event;
}

PYEMU_API int pyemu_enqueue_status(void) { return enqueue_status; }

PYEMU_API pyemu_cmd *pyemu_enqueue_bound(const pyemu_bound_launch *b, pyemu_cmd *release)
{
    if (!b) {
        pyemu_set_error("no bound launch");
        enqueue_status = PYEMU_E_INVALID_VALUE;
        return NULL;
    }
    pyemu_cmd *event = pyemu_enqueue_kernel_event(b->queue, b->launch, b->args, b->args_size,
                                                  b->bufs, b->num_bufs, NULL, 0);
    if (event && release)
        pyemu_cmd_release(release);
    return event;
}

#define COPY_SLICE (1u << 20)

PYEMU_API int pyemu_enqueue_copy(pyemu_queue *queue, void *dst, const void *src, size_t size,
                                 pyemu_cmd **wait, unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    PYEMU_FAIL_IF(size && (!dst || !src), PYEMU_E_INVALID_VALUE, "null pointer to a copy");
    cmd = new_cmd(CMD_COPY);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->u.copy.dst = dst;
    cmd->u.copy.src = src;
    cmd->u.copy.size = size;
    cmd->nitems = (size + COPY_SLICE - 1) / COPY_SLICE;
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    return status;
}

PYEMU_API int pyemu_enqueue_fill(pyemu_queue *queue, void *dst, const void *pattern,
                                 size_t pattern_size, size_t size, pyemu_cmd **wait,
                                 unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    PYEMU_FAIL_IF(!pattern || pattern_size == 0 || pattern_size > 128, PYEMU_E_INVALID_VALUE,
                  "a fill pattern is 1 to 128 bytes, not %zu", pattern_size);
    PYEMU_FAIL_IF(size % pattern_size, PYEMU_E_INVALID_VALUE,
                  "fill size %zu is not a multiple of the pattern size %zu", size, pattern_size);
    PYEMU_FAIL_IF(size && !dst, PYEMU_E_INVALID_VALUE, "null pointer to a fill");
    cmd = new_cmd(CMD_FILL);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->u.fill.dst = dst;
    cmd->u.fill.size = size;
    cmd->u.fill.pattern_size = pattern_size;
    memcpy(cmd->u.fill.pattern, pattern, pattern_size);
    /* slices hold whole patterns */
    cmd->nitems = (size + COPY_SLICE - 1) / COPY_SLICE;
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    return status;
}

/* ---- rectangular copies and fills ---- */

/* the bytes a rectangle spans from its first, or 0 when that overflows */
static size_t rect_extent(size_t row, size_t slice, size_t width, size_t height, size_t depth)
{
    size_t a, b, e;
    if (__builtin_mul_overflow(depth - 1, slice, &a) ||
        __builtin_mul_overflow(height - 1, row, &b) || __builtin_add_overflow(a, b, &e) ||
        __builtin_add_overflow(e, width, &e))
        return 0;
    return e;
}

static int rect_check(size_t row, size_t slice, size_t width, size_t height, size_t depth,
                      const char *side)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(height > 1 && row < width, PYEMU_E_INVALID_VALUE,
                  "%s row pitch %zu is less than the width %zu", side, row, width);
    size_t need;
    PYEMU_FAIL_IF(depth > 1 && (__builtin_mul_overflow(row, height, &need) || slice < need),
                  PYEMU_E_INVALID_VALUE,
                  "%s slice pitch %zu is less than %zu rows of %zu bytes", side, slice, height,
                  row);
    PYEMU_FAIL_IF(!rect_extent(row, slice, width, height, depth), PYEMU_E_INVALID_VALUE,
                  "the %s rectangle is larger than the address space", side);
ERROR:
    return status;
}

/* cmd's items: slices cut into runs of rows of about COPY_SLICE bytes */
static void rect_items(pyemu_cmd *cmd, size_t width, size_t height, size_t depth)
{
    size_t rows = width >= COPY_SLICE ? 1 : COPY_SLICE / width;
    if (rows > height)
        rows = height;
    cmd->u.rect.width = width;
    cmd->u.rect.height = height;
    cmd->u.rect.depth = depth;
    cmd->u.rect.rows = rows;
    cmd->u.rect.items_z = (height + rows - 1) / rows;
    cmd->nitems = (uint64_t)depth * cmd->u.rect.items_z;
}

PYEMU_API int pyemu_enqueue_copy_rect(pyemu_queue *queue, void *dst, size_t dst_row,
                                      size_t dst_slice, const void *src, size_t src_row,
                                      size_t src_slice, size_t width, size_t height, size_t depth,
                                      pyemu_cmd **wait, unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    int empty = !width || !height || !depth;
    PYEMU_FAIL_IF(!empty && (!dst || !src), PYEMU_E_INVALID_VALUE, "null pointer to a copy");
    if (!empty) {
        status = rect_check(dst_row, dst_slice, width, height, depth, "destination");
        if (!status)
            status = rect_check(src_row, src_slice, width, height, depth, "source");
        if (status)
            goto ERROR;
    }
    cmd = new_cmd(CMD_COPY_RECT);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->u.rect.dst = dst;
    cmd->u.rect.src = src;
    cmd->u.rect.dst_row = dst_row;
    cmd->u.rect.dst_slice = dst_slice;
    cmd->u.rect.src_row = src_row;
    cmd->u.rect.src_slice = src_slice;
    if (!empty)
        rect_items(cmd, width, height, depth);
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    return status;
}

PYEMU_API int pyemu_enqueue_fill_rect(pyemu_queue *queue, void *dst, size_t row_pitch,
                                      size_t slice_pitch, const void *pattern,
                                      size_t pattern_size, size_t width, size_t height,
                                      size_t depth, pyemu_cmd **wait, unsigned int nwait,
                                      pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    PYEMU_FAIL_IF(!pattern || pattern_size == 0 || pattern_size > 128, PYEMU_E_INVALID_VALUE,
                  "a fill pattern is 1 to 128 bytes, not %zu", pattern_size);
    PYEMU_FAIL_IF(width % pattern_size, PYEMU_E_INVALID_VALUE,
                  "width %zu is not a multiple of the pattern size %zu", width, pattern_size);
    int empty = !width || !height || !depth;
    PYEMU_FAIL_IF(!empty && !dst, PYEMU_E_INVALID_VALUE, "null pointer to a fill");
    if (!empty && (status = rect_check(row_pitch, slice_pitch, width, height, depth,
                                       "destination")))
        goto ERROR;
    cmd = new_cmd(CMD_FILL_RECT);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->u.rect.dst = dst;
    cmd->u.rect.dst_row = row_pitch;
    cmd->u.rect.dst_slice = slice_pitch;
    cmd->u.rect.pattern_size = pattern_size;
    memcpy(cmd->u.rect.pattern, pattern, pattern_size);
    if (!empty)
        rect_items(cmd, width, height, depth);
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    return status;
}

static void run_rect(pyemu_cmd *cmd, uint64_t item)
{
    const size_t w = cmd->u.rect.width, ps = cmd->u.rect.pattern_size;
    const size_t z = item / cmd->u.rect.items_z;
    size_t r = (item % cmd->u.rect.items_z) * cmd->u.rect.rows;
    size_t end = r + cmd->u.rect.rows;
    if (end > cmd->u.rect.height)
        end = cmd->u.rect.height;
    for (; r < end; r++) {
        char *d = cmd->u.rect.dst + z * cmd->u.rect.dst_slice + r * cmd->u.rect.dst_row;
        if (cmd->type == CMD_COPY_RECT) {
            memmove(d, cmd->u.rect.src + z * cmd->u.rect.src_slice + r * cmd->u.rect.src_row, w);
        } else if (ps == 1) {
            memset(d, cmd->u.rect.pattern[0], w);
        } else {
            for (size_t i = 0; i < w; i += ps)
                memcpy(d + i, cmd->u.rect.pattern, ps);
        }
    }
}

PYEMU_API int pyemu_cmd_use_buffers(pyemu_cmd *cmd, pyemu_buffer **bufs, unsigned int n)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    PYEMU_FAIL_IF(n && !bufs, PYEMU_E_INVALID_VALUE, "no buffer list");
    for (unsigned int i = 0; i < n; i++)
        PYEMU_FAIL_IF(!pyemu_buffer_valid(bufs[i]), PYEMU_E_INVALID_HANDLE,
                      "buffer %u of the list is not a valid buffer", i);
    pthread_mutex_lock(&eng.lock);
    if (cmd->status > PYEMU_CMD_COMPLETE)   /* complete: it uses nothing any more */
        status = hold_buffers(cmd, bufs, n);
    pthread_mutex_unlock(&eng.lock);
    PYEMU_FAIL_IF(status, status, "out of host memory");
ERROR:
    return status;
}

PYEMU_API int pyemu_enqueue_marker(pyemu_queue *queue, int barrier, pyemu_cmd **wait,
                                   unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    cmd = new_cmd(CMD_MARKER);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    /* a marker with no wait list waits for everything before it, even out of order */
    cmd->barrier = barrier || nwait == 0;
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    return status;
}

/* cudaEventRecord: a marker that names the event it records, for the
 * timeline (trace.c); otherwise what pyemu_enqueue_marker makes with no
 * wait list (it waits for everything before it) */
PYEMU_API int pyemu_enqueue_record(pyemu_queue *queue, unsigned long long tag, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    cmd = new_cmd(CMD_MARKER);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->barrier = 1;
    cmd->tag = tag;
    return submit(queue, cmd, NULL, 0, event);
ERROR:
    return status;
}

/* one item of a command, on a worker */
static void run_item(pyemu_worker *w, pyemu_cmd *cmd, uint64_t item);

/* One slice of a copy of `total` bytes.  A large copy (a DMA transfer on a
 * GPU) is written with non-temporal stores: they skip the read of each
 * destination line that a cached store makes, so that one thread copies
 * about as fast as the memory goes (and the copy engine alone is enough
 * for it, copyengine.c), and they leave the caches to the kernels that run
 * meanwhile.  Small or overlapping copies: memmove. */
static void copy_slice(char *d, const char *s, size_t n, size_t total)
{
#if defined(__x86_64__)
    if (total >= NT_COPY_MIN && n >= 256 && (d + n <= s || s + n <= d)) {
        size_t head = (size_t)(-(uintptr_t)d & 15);
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        size_t i = 0;
        for (; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
            _mm_stream_si128((__m128i *)(d + i), a);
            _mm_stream_si128((__m128i *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(d + i + 48), e);
        }
        _mm_sfence(); /* ordered before the command completes */
        memcpy(d + i, s + i, n - i);
        return;
    }
#else
    (void)total;
#endif
    memmove(d, s, n);
}

void pyemu_run_item(pyemu_worker *w, pyemu_cmd *cmd, uint64_t item)
{
    if (!atomic_load_explicit(&pyemu_trace_on, memory_order_relaxed)) {
        run_item(w, cmd, item);
        return;
    }
    uint64_t t0 = pyemu_clock_ns();
    run_item(w, cmd, item);
    pyemu_trace_item(w->index, cmd->seq, t0, pyemu_clock_ns());
}

static void run_item(pyemu_worker *w, pyemu_cmd *cmd, uint64_t item)
{
    switch (cmd->type) {
    case CMD_KERNEL:
        pyemu_run_block(w, item);
        break;
    case CMD_COPY_RECT:
    case CMD_FILL_RECT:
        run_rect(cmd, item);
        break;
    case CMD_COPY: {
        size_t off = item * COPY_SLICE, n = cmd->u.copy.size - off;
        copy_slice(cmd->u.copy.dst + off, cmd->u.copy.src + off, n < COPY_SLICE ? n : COPY_SLICE,
                   cmd->u.copy.size);
        break;
    }
    case CMD_FILL: {
        size_t off = item * COPY_SLICE, n = cmd->u.fill.size - off, ps = cmd->u.fill.pattern_size;
        if (n > COPY_SLICE)
            n = COPY_SLICE;
        char *p = cmd->u.fill.dst + off;
        if (ps == 1) {
            memset(p, cmd->u.fill.pattern[0], n);
        } else {
            for (size_t i = 0; i < n; i += ps)
                memcpy(p + i, cmd->u.fill.pattern, ps);
        }
        break;
    }
    case CMD_FREE: /* validated and marked queued when enqueued (pyemu_mem_queue_free) */
        cmd->u.free.queued = 0;
        if (cmd->u.free.nafter)
            pyemu_mem_free_pending(cmd->u.free.addr, "cudaFreeAsync", cmd->u.free.after,
                                   cmd->u.free.nafter);
        else
            pyemu_mem_free_queued(cmd->u.free.addr, cmd->u.free.keep, "cudaFreeAsync");
        drop_after(cmd);
        break;
    default:
        break;
    }
}

/* cudaFreeAsync: a command that frees the allocation at addr (keep: keep its
 * pages mapped, as pyemu_mem_free_keep_mapped) when its queue reaches it, so
 * that what waits for the queue finds it freed.  Work of other queues of the
 * device enqueued before it may still use the memory when it runs (a race
 * CUDA leaves undefined): it holds their newest commands, and the pages stay
 * until those complete (pyemu_mem_free_pending), so such a copy or kernel
 * reads what was there instead of faulting. */
PYEMU_API int pyemu_enqueue_free(pyemu_queue *queue, unsigned long long addr, int keep,
                                 pyemu_cmd **wait, unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    PYEMU_FAIL_IF(!addr, PYEMU_E_INVALID_VALUE, "no allocation to free");
    cmd = new_cmd(CMD_FREE);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->u.free.addr = addr;
    cmd->u.free.keep = keep;
    cmd->nitems = 1;
    /* the table marks it: a second free, or a copy after this one, is refused
     * from now on (memory.c), until the free runs */
    status = pyemu_mem_queue_free(addr);
    if (status) {
        pyemu_cmd_release(cmd);
        goto ERROR;
    }
    cmd->u.free.generation = pyemu_mem_generation();
    cmd->u.free.queued = 1;
    pthread_mutex_lock(&eng.lock);
    unsigned int n = 0;
    for (pyemu_queue *o = eng.queues; o; o = o->next_q)
        n += o != queue && QDEV(o) == QDEV(queue) && o->last &&
             o->last->status > PYEMU_CMD_COMPLETE;
    cmd->u.free.after = n ? malloc(n * sizeof *cmd->u.free.after) : NULL;
    if (cmd->u.free.after)
        for (pyemu_queue *o = eng.queues; o; o = o->next_q)
            if (o != queue && QDEV(o) == QDEV(queue) && o->last &&
                o->last->status > PYEMU_CMD_COMPLETE) {
                atomic_fetch_add(&o->last->refs, 1);
                cmd->u.free.after[cmd->u.free.nafter++] = o->last;
            }
    pthread_mutex_unlock(&eng.lock);
    if (n && !cmd->u.free.after) {
        pyemu_cmd_release(cmd); /* unmarks it */
        PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    }
    return submit(queue, cmd, wait, nwait, event); /* refused: released, which unmarks it */
ERROR:
    return status;
}

PYEMU_API int pyemu_user_event_create(pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(!event, PYEMU_E_INVALID_VALUE, "no place to return the event");
    pyemu_cmd *cmd = new_cmd(CMD_USER);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->status = PYEMU_CMD_SUBMITTED;
    cmd->seq = 0;
    *event = cmd; /* the caller's reference; the engine's is the one new_cmd made */
    atomic_fetch_add(&cmd->refs, 1);
    pthread_mutex_lock(&eng.lock);
    cmd->user_next = eng.unset_users;
    eng.unset_users = cmd;
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_user_event_set(pyemu_cmd *cmd, int exec_status)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    PYEMU_FAIL_IF(cmd->type != CMD_USER, PYEMU_E_INVALID_HANDLE, "not a user event");
    PYEMU_FAIL_IF(exec_status > 0, PYEMU_E_INVALID_VALUE,
                  "a user event is set to complete (0) or to a negative error, not %d",
                  exec_status);
    pthread_mutex_lock(&eng.lock);
    if (cmd->status <= PYEMU_CMD_COMPLETE) {
        pthread_mutex_unlock(&eng.lock);
        PYEMU_FAIL_IF(1, PYEMU_E_NOT_READY, "the user event was set already");
    }
    for (pyemu_cmd **p = &eng.unset_users; *p; p = &(*p)->user_next)
        if (*p == cmd) {
            *p = cmd->user_next;
            break;
        }
    if (exec_status < 0) {
        cmd->user_status = exec_status;
        cmd->err_code = PYEMU_E_DEP_FAILED;
        cmd->err_msg = strdup("the user event was set to an error status");
    }
    cmd->t_submit = cmd->t_start = pyemu_clock_ns();
    finish_locked(cmd); /* drops the engine's reference */
    pthread_mutex_unlock(&eng.lock);
    run_deferred();
ERROR:
    return status;
}

PYEMU_API int pyemu_cmd_on_complete(pyemu_cmd *cmd, pyemu_callback fn, void *data)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    PYEMU_FAIL_IF(!fn, PYEMU_E_INVALID_VALUE, "no callback");
    pthread_mutex_lock(&eng.lock);
    if (cmd->status > PYEMU_CMD_COMPLETE) {
        pyemu_cmd_callback *cb = realloc(cmd->callbacks,
                                         (size_t)(cmd->ncallbacks + 1) * sizeof *cb);
        if (!cb) {
            pthread_mutex_unlock(&eng.lock);
            PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
        }
        cmd->callbacks = cb;
        cb[cmd->ncallbacks++] = (pyemu_cmd_callback){fn, data};
        pthread_mutex_unlock(&eng.lock);
        return PYEMU_SUCCESS;
    }
    pthread_mutex_unlock(&eng.lock);
    fn(cmd, cmd_exec_status(cmd), data); /* complete already: now, on this thread */
ERROR:
    return status;
}

PYEMU_API int pyemu_cmd_wait(pyemu_cmd *cmd, unsigned int timeout_ms)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    waiter w = {.cmd = cmd, .device = -1};
    pthread_mutex_lock(&eng.lock);
    status = wait_locked(&w, timeout_ms);
    if (status == PYEMU_SUCCESS)
        status = cmd->err_code;
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_cmd_status(pyemu_cmd *cmd)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    if (cmd->status == PYEMU_CMD_SUBMITTED && atomic_load(&cmd->started))
        return PYEMU_CMD_RUNNING;
    return cmd_exec_status(cmd);
ERROR:
    return -status;
}

PYEMU_API int pyemu_cmd_error(pyemu_cmd *cmd, char *message, size_t len)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    pthread_mutex_lock(&eng.lock);
    status = cmd->err_code;
    if (message && len)
        snprintf(message, len, "%s", cmd->err_msg ? cmd->err_msg : "");
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_cmd_times(pyemu_cmd *cmd, unsigned long long *queued,
                              unsigned long long *submit_t, unsigned long long *start,
                              unsigned long long *end)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    PYEMU_FAIL_IF(cmd->status > PYEMU_CMD_COMPLETE, PYEMU_E_NOT_READY, "not complete yet");
    *queued = cmd->t_queued;
    *submit_t = cmd->t_submit;
    *start = cmd->t_start;
    *end = cmd->t_end;
ERROR:
    return status;
}

/* a host function's command: see "host functions" above */
PYEMU_API int pyemu_enqueue_host(pyemu_queue *queue, unsigned long long tag, pyemu_cmd **wait,
                                 unsigned int nwait, pyemu_cmd **event)
{
    int status = PYEMU_SUCCESS;
    pyemu_cmd *cmd = NULL;
    CHECK_QUEUE(queue);
    cmd = new_cmd(CMD_HOST);
    PYEMU_FAIL_IF(!cmd, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    cmd->nitems = 1;
    HOST_TAG(cmd) = tag;
    return submit(queue, cmd, wait, nwait, event);
ERROR:
    return status;
}

PYEMU_API int pyemu_host_next(unsigned int timeout_ms, unsigned long long *tag, pyemu_cmd **cmd)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(!tag || !cmd, PYEMU_E_INVALID_VALUE, "no place to return the host function");
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&eng.lock);
    while (!hostq.head)
        if (pthread_cond_timedwait(&hostq.cv, &eng.lock, &until) != 0 && !hostq.head) {
            pthread_mutex_unlock(&eng.lock);
            return PYEMU_E_TIMEOUT;
        }
    pyemu_cmd *c = hostq.head;
    hostq.head = c->run_next;
    if (!hostq.head)
        hostq.tail = NULL;
    c->run_next = NULL;
    c->t_start = pyemu_clock_ns();
    atomic_store(&c->started, 1);
    atomic_fetch_add(&c->refs, 1); /* the caller's, until pyemu_host_done */
    *tag = HOST_TAG(c);
    *cmd = c;
    status = c->dep_failed ? PYEMU_E_DEP_FAILED : eng.sticky_code[CDEV(c)];
    pthread_mutex_unlock(&eng.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_host_done(pyemu_cmd *cmd)
{
    int status = PYEMU_SUCCESS;
    CHECK_CMD(cmd);
    PYEMU_FAIL_IF(cmd->type != CMD_HOST || !atomic_load(&cmd->started) ||
                      cmd->status <= PYEMU_CMD_COMPLETE,
                  PYEMU_E_INVALID_HANDLE, "not a running host function");
    pthread_mutex_lock(&eng.lock);
    cmd->dep_failed = 0; /* it ran: what waits on it goes on (the error stays sticky) */
    finish_locked(cmd);  /* drops the engine's reference */
    pthread_mutex_unlock(&eng.lock);
    run_deferred();
    pyemu_cmd_release(cmd); /* pyemu_host_next's */
ERROR:
    return status;
}
