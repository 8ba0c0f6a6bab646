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
 * Commands here run in the order they became ready, one at a time.
 */
#include "core.h"

#include <signal.h>
#include <string.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pyemu_cmd *head, *tail;     /* linked through run_next */
    pthread_t thread;
    pyemu_worker self;          /* for the timeline: lane = the pool's size */
    int started;
} ce = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, {0}, 0};

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
        pthread_mutex_lock(&ce.lock);
        while (!ce.head)
            pthread_cond_wait(&ce.cv, &ce.lock);
        pyemu_cmd *cmd = ce.head;
        ce.head = cmd->run_next;
        if (!ce.head)
            ce.tail = NULL;
        pthread_mutex_unlock(&ce.lock);
        if (atomic_exchange(&cmd->started, 1) == 0)
            cmd->t_start = pyemu_clock_ns();
        for (uint64_t i = 0; i < cmd->nitems; i++)
            pyemu_run_item(&ce.self, cmd, i);
        atomic_store(&cmd->next, cmd->nitems);
        atomic_store(&cmd->retired, cmd->nitems);
        pyemu_cmd_complete(cmd);
        pyemu_cmd_release(cmd); /* the copy engine's reference */
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
        if (pthread_create(&ce.thread, NULL, copy_engine_main, NULL) != 0) {
            pthread_mutex_unlock(&ce.lock);
            return -1;
        }
        pthread_detach(ce.thread);
        ce.started = 1;
    }
    atomic_fetch_add(&cmd->refs, 1); /* the copy engine's reference */
    cmd->run_next = NULL;
    if (ce.tail)
        ce.tail->run_next = cmd;
    else
        ce.head = cmd;
    ce.tail = cmd;
    pthread_cond_signal(&ce.cv);
    pthread_mutex_unlock(&ce.lock);
    return 0;
}
