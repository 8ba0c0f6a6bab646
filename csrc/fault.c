/* fault.c - a fault in kernel code fails the launch, never the process.
 *
 * The handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT check whether
 * the faulting thread is a worker running kernel code.  If so they note what
 * happened and jump back to the worker's recovery point (pool.c: run_chunk),
 * on the worker's alternate signal stack, so a fiber's stack overflow is
 * caught too.  Any other fault goes on to the handler that was there before
 * (Python's faulthandler, or the default action).
 */
#include "core.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSIG_HANDLED 5
static const int handled[NSIG_HANDLED] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction previous[NSIG_HANDLED];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static int slot_of(int sig)
{
    for (int i = 0; i < NSIG_HANDLED; i++)
        if (handled[i] == sig)
            return i;
    return -1;
}

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    pyemu_worker *w = pyemu_self;
    if (w && w->in_kernel) {
        w->in_kernel = 0;
        w->fault_sig = sig;
        w->fault_addr = info->si_addr;
        w->fault_tid = pyemu_tctx.threadIdx;
        w->fault_bid = pyemu_tctx.blockIdx;
        siglongjmp(w->recover, 1);
    }
    /* not ours: hand it to whoever had it before */
    int slot = slot_of(sig);
    struct sigaction *old = slot >= 0 ? &previous[slot] : NULL;
    if (old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        old->sa_sigaction(sig, info, uctx);
        return;
    }
    if (old && old->sa_handler == SIG_IGN)
        return;
    if (old && old->sa_handler != SIG_DFL) {
        old->sa_handler(sig);
        return;
    }
    /* default action: restore it and let the signal happen again */
    signal(sig, SIG_DFL);
    if (sig == SIGABRT || info->si_code <= 0)
        raise(sig);
}

static int install_locked(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIG_HANDLED; i++) {
        struct sigaction old;
        if (sigaction(handled[i], &sa, &old) != 0)
            return -1;
        if (old.sa_sigaction != on_fault)
            previous[i] = old;
    }
    return 0;
}

int pyemu_fault_install(void)
{
    pthread_mutex_lock(&install_lock);
    int rc = install_locked();
    pthread_mutex_unlock(&install_lock);
    return rc;
}

/* Someone (faulthandler.enable(), a debugger) may have put a handler in
 * front of ours since: put ours first again, keeping theirs as the next. */
void pyemu_fault_ensure_first(void)
{
    static _Atomic uint64_t last_check;
    uint64_t now = pyemu_clock_ns();
    if (now - atomic_load_explicit(&last_check, memory_order_relaxed) < 50000000ull)
        return; /* looked 50 ms ago: a sigaction call per launch would cost more than it saves */
    atomic_store_explicit(&last_check, now, memory_order_relaxed);
    struct sigaction cur;
    if (sigaction(SIGSEGV, NULL, &cur) == 0 && cur.sa_sigaction == on_fault)
        return;
    pyemu_fault_install();
}

int pyemu_fault_worker_init(pyemu_worker *w)
{
    stack_t ss;
    size_t size = 64 * 1024;
    w->altstack = malloc(size);
    if (!w->altstack)
        return -1;
    ss.ss_sp = w->altstack;
    ss.ss_size = size;
    ss.ss_flags = 0;
    return sigaltstack(&ss, NULL);
}

static const char *fault_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "an illegal memory access";
    case SIGBUS: return "a misaligned or unbacked memory access (SIGBUS)";
    case SIGFPE: return "an arithmetic exception (SIGFPE: integer division by zero or overflow)";
    case SIGILL: return "an illegal instruction (SIGILL)";
    case SIGABRT: return "abort() (SIGABRT)";
    default: return "a fault";
    }
}

/* below the worker's own stack, where thread 0 of a block runs */
static int in_worker_guard(const pyemu_worker *w, uintptr_t addr)
{
    return w->stack_lo && addr < w->stack_lo + 4096 && addr + (1u << 20) >= w->stack_lo;
}

static int in_fiber_guard(const pyemu_worker *w, uintptr_t addr)
{
    if (!w->stacks)
        return 0;
    uintptr_t lo = (uintptr_t)w->stacks;
    uintptr_t hi = lo + w->stack_stride * PYEMU_MAX_THREADS_PER_BLOCK;
    if (addr < lo || addr >= hi)
        return 0;
    return ((addr - lo) % w->stack_stride) < (w->stack_stride - pyemu_pool_stack_size());
}

/* After the longjmp, on the worker's own stack: turn the fault into an error. */
void pyemu_fault_report(pyemu_worker *w)
{
    char bid[48], tid[48], where[256];
    int sig = w->fault_sig;
    if (sig < 0)
        return; /* pyemu_kernel_fail already wrote the message */
    pyemu_fmt_dim(bid, sizeof bid, w->fault_bid);
    pyemu_fmt_dim(tid, sizeof tid, w->fault_tid);
    uintptr_t addr = (uintptr_t)w->fault_addr;
    const char *what = w->cmd->type == CMD_KERNEL ? "kernel" : "command";
    const char *name = w->cmd->type == CMD_KERNEL ? w->desc->name : "copy";
    if (sig == SIGSEGV && in_worker_guard(w, addr)) {
        pyemu_cmd_fail(w->cmd, PYEMU_E_ILLEGAL_ADDRESS, /* as a GPU reports it */
                       "%s '%s' failed in block %s, thread %s: stack overflow (deep recursion? "
                       "the thread used all of its worker's 16 MiB stack)", what, name, bid, tid);
        return;
    }
    if (sig == SIGSEGV && in_fiber_guard(w, addr)) {
        pyemu_cmd_fail(w->cmd, PYEMU_E_ILLEGAL_ADDRESS, /* as a GPU reports it */
                       "%s '%s' failed in block %s, thread %s: stack overflow (the thread "
                       "used more than its %zu bytes of stack; set PYEMU_STACK_SIZE)",
                       what, name, bid, tid, pyemu_pool_stack_size());
        return;
    }
    if (sig == SIGSEGV || sig == SIGBUS) {
        pyemu_mem_describe(addr, where, sizeof where);
        pyemu_cmd_fail(w->cmd, sig == SIGSEGV ? PYEMU_E_ILLEGAL_ADDRESS : PYEMU_E_MISALIGNED,
                       "%s '%s' failed in block %s, thread %s: %s at address 0x%llx (%s)",
                       what, name, bid, tid, fault_name(sig), (unsigned long long)addr, where);
        return;
    }
    pyemu_cmd_fail(w->cmd, sig == SIGILL ? PYEMU_E_ILLEGAL_INSTRUCTION : PYEMU_E_LAUNCH_FAILURE,
                   "%s '%s' failed in block %s, thread %s: %s", what, name, bid, tid,
                   fault_name(sig));
}
