/* kprintf.c - device printf, assert and trap.
 *
 * printf from a kernel is formatted at once into its launch's buffer; when
 * the launch completes the text joins the device's output, and the Python
 * layer writes it to sys.stdout at the next synchronisation point, in launch
 * order, as a GPU does.
 */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

PYEMU_API int pyemu_printf(const char *fmt, ...)
{
    char small[512];
    char *text = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n >= sizeof small) {
        text = malloc((size_t)n + 1);
        if (!text)
            return -1;
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    pyemu_worker *w = pyemu_self;
    pthread_mutex_lock(&out.lock);
    if (w && w->cmd)
        append(&w->cmd->out, &w->cmd->out_len, &w->cmd->out_cap, text, (size_t)n);
    else
        append(&out.text, &out.len, &out.cap, text, (size_t)n);
    pthread_mutex_unlock(&out.lock);
    if (text != small)
        free(text);
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

PYEMU_API void pyemu_assert_fail(const char *expr, const char *file, unsigned int line,
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

PYEMU_API void pyemu_trap(void)
{
    pyemu_kernel_fail(pyemu_self, PYEMU_E_LAUNCH_FAILURE, "the kernel executed __trap()");
}
