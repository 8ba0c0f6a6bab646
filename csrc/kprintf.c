/* kprintf.c - device printf, assert and trap.
 *
 * printf from a kernel is formatted at once into its worker's own buffer
 * (memory the worker mapped itself: no malloc, no lock), and only a call
 * that finished formatting counts.  When the worker's chunk of blocks ends
 * (pool.c run_chunk), normally or by a fault, the text joins its launch's
 * buffer; when the launch completes it joins the device's output, and the
 * Python layer writes it to sys.stdout at the next synchronisation point, in
 * launch order, as a GPU does.  A fault anywhere in a printf (a bad %s
 * pointer) thus loses that one call and leaves no lock held.
 */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PBUF_INITIAL (64u << 10)
#define PBUF_COMMIT (64u << 10)   /* commit early once this much is waiting */

static struct {
    pthread_mutex_t lock;       /* guards every launch's buffer and the output */
    char *text;
    size_t len, cap;
} out = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return -1;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

/* The worker's buffer with room for `need` bytes: a new mapping, the old
 * text copied over.  A fault cannot come in here (no kernel code, no user
 * pointer); a jump could only leak a mapping. */
static PYEMU_KSUPPORT int pbuf_reserve(pyemu_worker *w, size_t need)
{
    if (w->plen + need <= w->pcap)
        return 0;
    size_t cap = w->pcap ? w->pcap : PBUF_INITIAL;
    while (cap < w->plen + need)
        cap *= 2;
    char *b = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED)
        return -1;
    if (w->plen)
        memcpy(b, w->pbuf, w->plen);
    char *old = w->pbuf;
    size_t old_cap = w->pcap;
    w->pbuf = b;
    w->pcap = cap;
    if (old)
        munmap(old, old_cap);
    return 0;
}

/* The worker's text joins its command; kernel code is not running. */
void pyemu_printf_commit(pyemu_worker *w)
{
    if (!w->plen || !w->cmd)
        return;
    pthread_mutex_lock(&out.lock);
    append(&w->cmd->out, &w->cmd->out_len, &w->cmd->out_cap, w->pbuf, w->plen);
    pthread_mutex_unlock(&out.lock);
    w->plen = 0;
}

static int printf_host(const char *fmt, va_list ap)
{
    char small[512];
    char *text = small;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n >= sizeof small) {
        text = malloc((size_t)n + 1);
        if (text)
            vsnprintf(text, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    if (n < 0 || !text)
        return -1;
    pthread_mutex_lock(&out.lock);
    append(&out.text, &out.len, &out.cap, text, (size_t)n);
    pthread_mutex_unlock(&out.lock);
    if (text != small)
        free(text);
    return n;
}

PYEMU_API PYEMU_KSUPPORT int pyemu_printf(const char *fmt, ...)
{
    pyemu_worker *w = pyemu_self;
    va_list ap;
    va_start(ap, fmt);
    if (!w || !w->cmd || !w->in_kernel) { /* not from a kernel: straight to the output */
        int n = printf_host(fmt, ap);
        va_end(ap);
        return n;
    }
    if (!w->pcap && pbuf_reserve(w, PBUF_INITIAL) != 0) {
        va_end(ap);
        return -1;
    }
    va_list again;
    va_copy(again, ap);
    /* libc formats (a bad %s faults in there: the kernel's fault, fault.c) */
    w->in_libc = 1;
    int n = vsnprintf(w->pbuf + w->plen, w->pcap - w->plen, fmt, ap);
    if (n >= 0 && (size_t)n >= w->pcap - w->plen) {
        w->in_libc = 0;
        if (pbuf_reserve(w, (size_t)n + 1) != 0)
            n = -1;
        else {
            w->in_libc = 1;
            vsnprintf(w->pbuf + w->plen, w->pcap - w->plen, fmt, again);
        }
    }
    w->in_libc = 0;
    va_end(again);
    va_end(ap);
    if (n < 0)
        return -1;
    w->plen += (size_t)n; /* only now is the call's text part of the output */
    if (w->plen >= PBUF_COMMIT) {
        /* the lock is taken with kernel code marked as not running, so no
         * fault can jump out while it is held */
        w->in_kernel = 0;
        pyemu_printf_commit(w);
        w->in_kernel = 1;
    }
    return n;
}

/* engine lock held: the launch is complete, its text joins the output */
void pyemu_printf_collect(pyemu_cmd *cmd)
{
    if (!cmd->out_len)
        return;
    pthread_mutex_lock(&out.lock);
    append(&out.text, &out.len, &out.cap, cmd->out, cmd->out_len);
    free(cmd->out);
    cmd->out = NULL;
    cmd->out_len = cmd->out_cap = 0;
    pthread_mutex_unlock(&out.lock);
}

PYEMU_API size_t pyemu_printf_pending(void)
{
    return __atomic_load_n(&out.len, __ATOMIC_RELAXED);
}

PYEMU_API size_t pyemu_printf_take(char *buf, size_t cap)
{
    pthread_mutex_lock(&out.lock);
    size_t n = out.len < cap ? out.len : cap;
    memcpy(buf, out.text, n);
    memmove(out.text, out.text + n, out.len - n);
    out.len -= n;
    pthread_mutex_unlock(&out.lock);
    return n;
}

void pyemu_printf_reset(void)
{
    pthread_mutex_lock(&out.lock);
    out.len = 0;
    pthread_mutex_unlock(&out.lock);
}

PYEMU_API PYEMU_KSUPPORT void pyemu_assert_fail(const char *expr, const char *file, unsigned int line,
                                 const char *func)
{
    pyemu_worker *w = pyemu_self;
    /* CUDA prints the failed assertion on the device's output */
    pyemu_printf("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                 file, line, func, pyemu_tctx.blockIdx.x, pyemu_tctx.blockIdx.y,
                 pyemu_tctx.blockIdx.z, pyemu_tctx.threadIdx.x, pyemu_tctx.threadIdx.y,
                 pyemu_tctx.threadIdx.z, expr);
    pyemu_kernel_fail(w, PYEMU_E_ASSERT, "device-side assertion `%s` failed at %s:%u in %s",
                      expr, file, line, func);
}

PYEMU_API PYEMU_KSUPPORT void pyemu_trap(void)
{
    pyemu_kernel_fail(pyemu_self, PYEMU_E_LAUNCH_FAILURE, "the kernel executed __trap()");
}
