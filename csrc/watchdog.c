/* watchdog.c - stopping a kernel: the time limit and the host's interrupt.
 *
 * A display GPU's watchdog ends a kernel that runs too long
 * (cudaErrorLaunchTimeout); PYEMU_KERNEL_TIMEOUT does the same here.  And
 * when the host program is interrupted (Ctrl-C) while it waits, the kernels
 * that run are stopped and the device fails as after a fault (sticky).
 *
 * A worker publishes the seq of the kernel command it runs and since when
 * (pool.c); the watchdog reads only those numbers, never the command.  To
 * stop a kernel it names the seq in the worker and sends it
 * PYEMU_STOP_SIGNAL; fault.c's handler jumps out of kernel code to the
 * worker's recovery point, as for a fault, but only at an instruction of
 * kernel code: a worker inside libc (a printf being formatted) is asked
 * again 10 ms later, until it has left the command.
 */
#include "core.h"

#include <errno.h>
#include <time.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    unsigned int timeout_ms;    /* 0: no time limit */
    int stopping;               /* stops were asked for and may need asking again */
    int started;
} wd = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

unsigned int pyemu_watchdog_timeout_ms(void) { return __atomic_load_n(&wd.timeout_ms, __ATOMIC_RELAXED); }

static void ask_stop(pyemu_worker *w, uint64_t seq, int code)
{
    if (w->stop_seq != seq) {
        w->stop_code = code;
        __atomic_store_n(&w->stop_seq, seq, __ATOMIC_RELEASE);
    }
    pthread_kill(w->thread, PYEMU_STOP_SIGNAL);
}

/* One look at the workers; returns whether a stop is still pending. */
static int sweep(uint64_t now, unsigned int timeout_ms)
{
    int pending = 0;
    for (int i = 0; i < pyemu_pool_size(); i++) {
        pyemu_worker *w = pyemu_pool_worker(i);
        uint64_t seq = __atomic_load_n(&w->run_seq, __ATOMIC_ACQUIRE);
        if (!seq)
            continue;
        if (w->stop_seq == seq) {            /* asked before, still running it */
            ask_stop(w, seq, w->stop_code);
            pending = 1;
        } else if (timeout_ms && now - w->run_since > (uint64_t)timeout_ms * 1000000ull) {
            ask_stop(w, seq, PYEMU_E_LAUNCH_TIMEOUT);
            pending = 1;
        }
    }
    return pending;
}

static void *watch(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&wd.lock);
    for (;;) {
        while (!wd.timeout_ms && !wd.stopping)
            pthread_cond_wait(&wd.cv, &wd.lock);
        /* look ten times per time limit, at most every 10 ms */
        unsigned int step = wd.timeout_ms ? wd.timeout_ms / 10 : 10;
        step = step < 10 ? 10 : step > 100 ? 100 : step;
        if (wd.stopping)
            step = 10;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)step * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&wd.cv, &wd.lock, &until);
        unsigned int t = wd.timeout_ms;
        pthread_mutex_unlock(&wd.lock);
        int pending = sweep(pyemu_clock_ns(), t);
        pthread_mutex_lock(&wd.lock);
        wd.stopping = pending;
    }
    return NULL;
}

static int start_locked(void)
{
    if (wd.started)
        return PYEMU_SUCCESS;
    pthread_t t;
    if (pthread_create(&t, NULL, watch, NULL) != 0)
        return PYEMU_E_SYSTEM;
    pthread_detach(t);
    wd.started = 1;
    return PYEMU_SUCCESS;
}

PYEMU_API int pyemu_set_kernel_timeout(unsigned int ms)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&wd.lock);
    if (ms)
        status = start_locked();
    if (status == PYEMU_SUCCESS)
        __atomic_store_n(&wd.timeout_ms, ms, __ATOMIC_RELAXED);
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.lock);
    if (status)
        pyemu_set_error("cannot start the watchdog thread");
    return status;
}

PYEMU_API int pyemu_interrupt(void)
{
    pyemu_engine_poison(PYEMU_E_LAUNCH_FAILURE,
                        "the host program was interrupted (Ctrl-C) while kernels ran; they "
                        "were stopped");
    int stopped = 0;
    for (int i = 0; i < pyemu_pool_size(); i++) {
        pyemu_worker *w = pyemu_pool_worker(i);
        uint64_t seq = __atomic_load_n(&w->run_seq, __ATOMIC_ACQUIRE);
        if (seq) {
            ask_stop(w, seq, PYEMU_E_LAUNCH_FAILURE);
            stopped = 1;
        }
    }
    if (stopped) {
        pthread_mutex_lock(&wd.lock);
        int status = start_locked();
        wd.stopping = 1;
        pthread_cond_signal(&wd.cv);
        pthread_mutex_unlock(&wd.lock);
        if (status)
            pyemu_set_error("cannot start the watchdog thread");
        return status;
    }
    return PYEMU_SUCCESS;
}
