/* fault.c - a fault in kernel code fails the launch, never the process.
 *
 * The handlers for SIGSEGV, SIGBUS, SIGFPE and SIGILL (hardware faults and
 * __builtin_trap's ud2) recover only a fault that the kernel made: the
 * faulting thread is a worker running a kernel (in_kernel; copies and fills
 * are not kernels), and the faulting instruction is kernel code:
 *   - in the text of a loaded kernel module (module.c records each one's
 *     executable segments here when it is loaded),
 *   - in the core's functions a kernel calls (barriers, printf, device
 *     malloc: the pyemu_ksupport section, see PYEMU_KSUPPORT in core.h),
 *   - in libc while the core formats a device printf (vsnprintf with a bad
 *     %s pointer), or in a libc function called directly from kernel code
 *     (memcpy, memset: the return address on top of the stack is the
 *     kernel's), or anywhere on a stack overflow of a block's threads.
 * Those jump back to the worker's recovery point (pool.c: run_chunk), on
 * the worker's alternate signal stack, so a fiber's stack overflow is caught
 * too.  Nothing the kernel can reach takes a lock: device printf and malloc
 * use per-worker storage (kprintf.c, devheap.c), so the jump leaves none held.
 *
 * Everything else goes on to the handler that was there before (Python's
 * faulthandler, or the default action), as a crash of the host program.
 * SIGABRT is not ours: abort() in a kernel, like glibc's abort on heap
 * corruption, ends the process as abort() in host code does; device assert()
 * and __trap() fail the launch without a signal (kprintf.c).
 *
 * The handlers are installed once; a handler installed later by someone else
 * comes first and is expected to chain to ours (faulthandler does).
 */
#include "core.h"

#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define NSIG_HANDLED 4
static const int handled[NSIG_HANDLED] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction previous[NSIG_HANDLED];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static int installed;

/* ---- where kernel code lies ---- */

/* Executable ranges of loaded kernel modules: changed under code_lock by
 * the module loader, read lock-free by the handler.  A range is written hi
 * last and cleared hi first, so a handler that reads it half-changed sees an
 * empty range (hi = 0), never one that covers code it does not. */
#define MAX_CODE_RANGES 8192
static struct { _Atomic uintptr_t lo, hi; } code[MAX_CODE_RANGES];
static _Atomic int ncode;       /* slots in use or freed: [0, ncode) */
static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;

extern const char __start_pyemu_ksupport[] __attribute__((visibility("hidden")));
extern const char __stop_pyemu_ksupport[] __attribute__((visibility("hidden")));

void pyemu_fault_add_code(uintptr_t lo, uintptr_t hi)
{
    pthread_mutex_lock(&code_lock);
    int n = atomic_load(&ncode), slot = -1;
    for (int i = 0; i < n && slot < 0; i++) /* a slot an unloaded module left */
        if (atomic_load(&code[i].hi) == 0)
            slot = i;
    if (slot < 0 && n < MAX_CODE_RANGES)
        slot = n;
    if (slot >= 0) {
        atomic_store(&code[slot].hi, 0);
        atomic_store(&code[slot].lo, lo);
        atomic_store(&code[slot].hi, hi);
        if (slot == n)
            atomic_store_explicit(&ncode, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&code_lock);
}

/* A module is unloaded: its code is no kernel code any more. */
void pyemu_fault_remove_code(uintptr_t lo, uintptr_t hi)
{
    pthread_mutex_lock(&code_lock);
    int n = atomic_load(&ncode);
    for (int i = 0; i < n; i++)
        if (atomic_load(&code[i].lo) == lo && atomic_load(&code[i].hi) == hi) {
            atomic_store(&code[i].hi, 0);
            atomic_store(&code[i].lo, 0);
            break;
        }
    pthread_mutex_unlock(&code_lock);
}

static int in_module_code(uintptr_t pc)
{
    int n = atomic_load_explicit(&ncode, memory_order_acquire);
    for (int i = n - 1; i >= 0; i--) { /* the newest module is the likeliest */
        uintptr_t lo = atomic_load_explicit(&code[i].lo, memory_order_relaxed);
        uintptr_t hi = atomic_load_explicit(&code[i].hi, memory_order_acquire);
        if (pc >= lo && pc < hi)
            return 1;
    }
    return 0;
}

static int in_kernel_code(uintptr_t pc)
{
    if (pc >= (uintptr_t)__start_pyemu_ksupport && pc < (uintptr_t)__stop_pyemu_ksupport)
        return 1;
    return in_module_code(pc);
}

static void pc_sp_of(const void *uctx, uintptr_t *pc, uintptr_t *sp)
{
    const ucontext_t *uc = uctx;
#if defined(__x86_64__)
    *pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    *sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    *pc = (uintptr_t)uc->uc_mcontext.pc;
    *sp = (uintptr_t)uc->uc_mcontext.sp;
#else
#error "fault.c needs the program counter of this CPU's ucontext"
#endif
}

static int in_worker_guard(const pyemu_worker *w, uintptr_t addr);
static int in_fiber_guard(const pyemu_worker *w, uintptr_t addr);
static int in_fiber_stacks(const pyemu_worker *w, uintptr_t addr);

/* Is this fault the kernel's, to be reported as a failed launch? */
static int kernels_fault(const pyemu_worker *w, int sig, const siginfo_t *info, const void *uctx)
{
    if (!w || !w->in_kernel || info->si_code <= 0) /* si_code <= 0: sent by kill/raise */
        return 0;
    uintptr_t pc, sp;
    pc_sp_of(uctx, &pc, &sp);
    if (in_kernel_code(pc) || w->in_libc)
        return 1;
    uintptr_t addr = (uintptr_t)info->si_addr;
    /* a stack overflow of a block's thread, wherever the push happened */
    if (sig == SIGSEGV && (in_worker_guard(w, addr) || in_fiber_guard(w, addr)))
        return 1;
    /* a leaf of libc (memcpy, memset) called by kernel code: the return
     * address is on top of the stack; read it only from a stack we own */
    int own_stack = (w->stack_lo && sp >= w->stack_lo + 4096 && sp < w->stack_lo + (16u << 20)) ||
                    (in_fiber_stacks(w, sp) && !in_fiber_guard(w, sp));
    if (own_stack && (sp & 7) == 0)
        return in_module_code(*(const uintptr_t *)sp);
    return 0;
}

/* ---- the handler ---- */

static int slot_of(int sig)
{
    for (int i = 0; i < NSIG_HANDLED; i++)
        if (handled[i] == sig)
            return i;
    return -1;
}

/* Not ours: do what the handler before ours would have done. */
static void chain(int sig, siginfo_t *info, void *uctx)
{
    int slot = slot_of(sig);
    struct sigaction *old = &previous[slot];
    int hardware = info->si_code > 0;
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        sigset_t mask, saved;
        mask = old->sa_mask;
        if (!(old->sa_flags & SA_NODEFER))
            sigaddset(&mask, sig);
        pthread_sigmask(SIG_BLOCK, &mask, &saved);
        old->sa_sigaction(sig, info, uctx);
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        return;
    }
    if (old->sa_handler == SIG_IGN && !hardware)
        return; /* an ignored signal someone sent: still ignored */
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        sigset_t mask, saved;
        mask = old->sa_mask;
        if (!(old->sa_flags & SA_NODEFER))
            sigaddset(&mask, sig);
        pthread_sigmask(SIG_BLOCK, &mask, &saved);
        old->sa_handler(sig);
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        return;
    }
    /* The default action (a hardware fault cannot be ignored either: the
     * kernel would kill the process with it).  Restore it; a hardware fault
     * happens again when the instruction is retried, a sent signal is
     * raised again, unblocked, to end the process the same way. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (!hardware) {
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        pthread_sigmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
    }
}

/* Note what stopped the kernel and where, and jump back to the worker's
 * recovery point (pool.c run_chunk). */
static __attribute__((noreturn)) void recover(pyemu_worker *w, int sig, void *addr)
{
    w->in_kernel = 0;
    w->fault_sig = sig;
    w->fault_addr = addr;
    w->fault_tid = pyemu_tctx.threadIdx;
    w->fault_bid = pyemu_tctx.blockIdx;
    siglongjmp(w->recover, 1);
}

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    pyemu_worker *w = pyemu_self;
    if (kernels_fault(w, sig, info, uctx))
        recover(w, sig, info->si_addr);
    chain(sig, info, uctx);
}

/* The watchdog asks a worker to stop the kernel it runs (watchdog.c).  The
 * jump is taken only at an instruction of kernel code, where a fault could
 * be too; elsewhere (libc formatting a printf) the watchdog asks again. */
static void on_stop(int sig, siginfo_t *info, void *uctx)
{
    (void)info;
    pyemu_worker *w = pyemu_self;
    if (!w || !w->in_kernel || w->in_libc || !w->stop_seq || w->stop_seq != w->run_seq)
        return;
    uintptr_t pc, sp;
    pc_sp_of(uctx, &pc, &sp);
    if (!in_kernel_code(pc))
        return;
    recover(w, sig, NULL);
}

/* Install the handlers once, keeping the ones before ours to chain to. */
int pyemu_fault_install(void)
{
    int rc = 0;
    pthread_mutex_lock(&install_lock);
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < NSIG_HANDLED && rc == 0; i++)
            rc = sigaction(handled[i], &sa, &previous[i]);
        if (rc == 0) {
            /* SA_NODEFER: the handler leaves by siglongjmp without restoring
             * the mask, so a deferred signal would stay blocked in that worker
             * and the watchdog could never stop its next kernel */
            sa.sa_sigaction = on_stop;
            sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER;
            rc = sigaction(PYEMU_STOP_SIGNAL, &sa, NULL);
        }
        installed = rc == 0;
    }
    pthread_mutex_unlock(&install_lock);
    return rc;
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
    default: return "a fault";
    }
}

/* below the worker's own stack, where thread 0 of a block runs */
static int in_worker_guard(const pyemu_worker *w, uintptr_t addr)
{
    return w->stack_lo && addr < w->stack_lo + 4096 && addr + (1u << 20) >= w->stack_lo;
}

static int in_fiber_stacks(const pyemu_worker *w, uintptr_t addr)
{
    uintptr_t lo = (uintptr_t)w->stacks;
    return w->stacks && addr >= lo && addr < lo + w->stack_stride * PYEMU_MAX_THREADS_PER_BLOCK;
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

/* the guard page after the block's dynamic shared memory (and OpenCL's
 * __local arguments), which ends flush with it (pool.c begin_cmd) */
static int in_smem_guard(const pyemu_worker *w, uintptr_t addr)
{
    uintptr_t end = (uintptr_t)w->dyn_smem_end;
    return end && addr >= end && addr < end + w->smem_guard;
}

/* the guard before the worker's shared memory span (a negative index) */
static int before_smem(const pyemu_worker *w, uintptr_t addr)
{
    uintptr_t lo = (uintptr_t)w->dyn_smem;
    return lo && addr < lo && addr >= lo - w->smem_guard;
}

/* ---- the record of a fault ----
 *
 * A fault is kept as a record (pyemu_fault_info: kind, kernel, block,
 * thread, address, nearest allocation, barrier site) in a ring of the last
 * NRECORDS, and the command fails with its text in CUDA's words; a facade
 * finds the record again by that text (pyemu_fault_find) and words it in
 * its own terms (pyemu/runtime/faults.py).  The terms are "\x01" and a
 * letter in the record's detail (PYEMU_T_* in core.h). */
#define NRECORDS 64
static pyemu_fault_info records[NRECORDS];
static unsigned int nrecords;           /* records made so far; the newest at (n-1) % NRECORDS */
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *cuda_term(char letter)
{
    switch (letter) {
    case 'b': return "block";
    case 't': return "thread";
    case 'T': return "threads";
    case 's': return "__syncthreads()";
    case 'd': return "dynamic shared memory";
    case 'w': return "warp";
    case 'l': return "lane";
    case 'L': return "lane(s)";
    case 'r': return "every lane named in a warp collective's mask must reach the same collective";
    case 'o': case 'c': return "";      /* the CUDA name or mask that follows stays */
    default: return "?";
    }
}

/* tmpl with its terms in CUDA's words, into buf */
static void in_cuda_words(const char *tmpl, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = tmpl; *p && n + 1 < len; p++) {
        if (*p == '\x01' && p[1]) {
            const char *t = cuda_term(*++p);
            while (*t && n + 1 < len)
                buf[n++] = *t++;
        } else {
            buf[n++] = *p;
        }
    }
    buf[n] = 0;
}

static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

void pyemu_fault_vfail(pyemu_worker *w, int code, int kind, pyemu_uint3 bid, pyemu_uint3 tid,
                       uintptr_t addr, const char *where, const char *site, const char *fmt,
                       va_list ap)
{
    pyemu_fault_info r;
    char head[sizeof r.text], bs[48], ts[48];
    memset(&r, 0, sizeof r);
    r.code = code;
    r.kind = kind;
    r.is_kernel = w->cmd->type == CMD_KERNEL;
    r.block[0] = bid.x, r.block[1] = bid.y, r.block[2] = bid.z;
    r.thread[0] = tid.x, r.thread[1] = tid.y, r.thread[2] = tid.z;
    if (r.is_kernel) {
        const pyemu_uint3 d = pyemu_tctx.blockDim, o = pyemu_tctx.global_offset;
        r.block_dim[0] = d.x, r.block_dim[1] = d.y, r.block_dim[2] = d.z;
        r.offset[0] = o.x, r.offset[1] = o.y, r.offset[2] = o.z;
    }
    r.address = addr;
    copy_str(r.kernel, sizeof r.kernel, r.is_kernel && w->desc ? w->desc->name : "copy");
    copy_str(r.where, sizeof r.where, where);
    copy_str(r.site, sizeof r.site, site);
    vsnprintf(r.detail, sizeof r.detail, fmt, ap);
    pyemu_fmt_dim(bs, sizeof bs, bid);
    pyemu_fmt_dim(ts, sizeof ts, tid);
    snprintf(head, sizeof head, "%s '%s' %s in block %s, thread %s: ",
             r.is_kernel ? "kernel" : "command", r.kernel,
             kind == PYEMU_FAULT_TIMEOUT || kind == PYEMU_FAULT_INTERRUPT ? "was stopped" : "failed",
             bs, ts);
    size_t n = strlen(head);
    memcpy(r.text, head, n + 1);
    in_cuda_words(r.detail, r.text + n, sizeof r.text - n);
    pthread_mutex_lock(&records_lock);
    records[nrecords++ % NRECORDS] = r;
    pthread_mutex_unlock(&records_lock);
    pyemu_cmd_fail(w->cmd, code, "%s", r.text);
}

void pyemu_fault_fail(pyemu_worker *w, int code, int kind, pyemu_uint3 bid, pyemu_uint3 tid,
                      uintptr_t addr, const char *where, const char *site, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyemu_fault_vfail(w, code, kind, bid, tid, addr, where, site, fmt, ap);
    va_end(ap);
}

PYEMU_API int pyemu_fault_find(const char *message, pyemu_fault_info *out)
{
    int status = PYEMU_E_INVALID_VALUE;
    if (!message || !out)
        return status;
    size_t len = strlen(message);
    pthread_mutex_lock(&records_lock);
    unsigned int n = nrecords, oldest = n > NRECORDS ? n - NRECORDS : 0;
    for (unsigned int i = n; i > oldest && status; i--) {
        const pyemu_fault_info *r = &records[(i - 1) % NRECORDS];
        /* the text itself, or its start when the message was cut short */
        if (strcmp(r->text, message) == 0 || (len >= 255 && strncmp(r->text, message, len) == 0)) {
            *out = *r;
            status = PYEMU_SUCCESS;
        }
    }
    pthread_mutex_unlock(&records_lock);
    return status;
}

/* After the longjmp, on the worker's own stack: turn the fault into an error. */
void pyemu_fault_report(pyemu_worker *w)
{
    char where[256];
    int sig = w->fault_sig;
    if (sig < 0)
        return; /* pyemu_kernel_fail already wrote the message */
    const pyemu_uint3 bid = w->fault_bid, tid = w->fault_tid;
    uintptr_t addr = (uintptr_t)w->fault_addr;
    if (sig == PYEMU_STOP_SIGNAL) {
        int code = w->stop_code;
        w->stop_seq = 0;
        if (code == PYEMU_E_LAUNCH_TIMEOUT)
            pyemu_fault_fail(w, code, PYEMU_FAULT_TIMEOUT, bid, tid, 0, NULL, NULL,
                             "it ran for more than %u ms (PYEMU_KERNEL_TIMEOUT, "
                             "the watchdog of a display GPU)", pyemu_watchdog_timeout_ms());
        else
            pyemu_fault_fail(w, code, PYEMU_FAULT_INTERRUPT, bid, tid, 0, NULL, NULL,
                             "the host program was interrupted (Ctrl-C) while it ran");
        return;
    }
    if (sig == SIGSEGV && in_worker_guard(w, addr)) {
        pyemu_fault_fail(w, PYEMU_E_ILLEGAL_ADDRESS, PYEMU_FAULT_STACK, /* as a GPU reports it */
                         bid, tid, addr, NULL, NULL,
                         "stack overflow (deep recursion? the " PYEMU_T_THREAD " used all of its "
                         "worker's 16 MiB stack)");
        return;
    }
    if (sig == SIGSEGV && in_fiber_guard(w, addr)) {
        pyemu_fault_fail(w, PYEMU_E_ILLEGAL_ADDRESS, PYEMU_FAULT_STACK, /* as a GPU reports it */
                         bid, tid, addr, NULL, NULL,
                         "stack overflow (the " PYEMU_T_THREAD " used more than its %zu bytes of "
                         "stack; set PYEMU_STACK_SIZE)", pyemu_pool_stack_size());
        return;
    }
    if (sig == SIGSEGV && in_smem_guard(w, addr)) {
        uintptr_t end = (uintptr_t)w->dyn_smem_end;
        snprintf(where, sizeof where, "%llu bytes past the end of the " PYEMU_T_BLOCK "'s %llu "
                 "bytes of " PYEMU_T_DSMEM, (unsigned long long)(addr - end),
                 (unsigned long long)(end - (uintptr_t)w->dyn_smem_lo));
        pyemu_fault_fail(w, PYEMU_E_ILLEGAL_ADDRESS, PYEMU_FAULT_SHARED, bid, tid, addr, where,
                         NULL, "%s at address 0x%llx (%s)", fault_name(sig),
                         (unsigned long long)addr, where);
        return;
    }
    if (sig == SIGSEGV && before_smem(w, addr)) {
        snprintf(where, sizeof where, "%llu bytes before the " PYEMU_T_BLOCK "'s " PYEMU_T_DSMEM,
                 (unsigned long long)((uintptr_t)w->dyn_smem_lo - addr));
        pyemu_fault_fail(w, PYEMU_E_ILLEGAL_ADDRESS, PYEMU_FAULT_SHARED, bid, tid, addr, where,
                         NULL, "%s at address 0x%llx (%s)", fault_name(sig),
                         (unsigned long long)addr, where);
        return;
    }
    if (sig == SIGSEGV || sig == SIGBUS) {
        pyemu_mem_describe(addr, where, sizeof where);
        pyemu_fault_fail(w, sig == SIGSEGV ? PYEMU_E_ILLEGAL_ADDRESS : PYEMU_E_MISALIGNED,
                         sig == SIGSEGV ? PYEMU_FAULT_ACCESS : PYEMU_FAULT_MISALIGNED, bid, tid,
                         addr, where, NULL, "%s at address 0x%llx (%s)", fault_name(sig),
                         (unsigned long long)addr, where);
        return;
    }
    pyemu_fault_fail(w, sig == SIGILL ? PYEMU_E_ILLEGAL_INSTRUCTION : PYEMU_E_LAUNCH_FAILURE,
                     sig == SIGILL ? PYEMU_FAULT_INSTRUCTION : PYEMU_FAULT_ARITHMETIC, bid, tid,
                     0, NULL, NULL, "%s", fault_name(sig));
}
