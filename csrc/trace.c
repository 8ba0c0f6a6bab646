/* trace.c - the timeline (PYEMU_TRACE): what ran, on which queue and which workers, when.
 *
 * While tracing is on, the engine notes every command as it completes
 * (pyemu_trace_cmd, under the engine lock) and every worker notes the items
 * it runs (pyemu_trace_item): consecutive items of one command on one worker
 * are merged into one span.  pyemu/tools/timeline.py takes both and writes
 * the Chrome trace-event format.  Off, each costs one relaxed atomic load.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_GAP_NS 20000ull   /* items closer than this on one worker form one span */

atomic_int pyemu_trace_on;

static struct {
    pthread_mutex_t lock;
    pyemu_trace_event *ev;
    size_t nev, capev;
    pyemu_trace_span *sp;
    size_t nsp, capsp;
    pyemu_trace_span *cur;      /* each worker's open span */
    int ncur;
} tr = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, 0, 0, NULL, 0};

static void push_span(const pyemu_trace_span *s)
{
    if (tr.nsp == tr.capsp) {
        size_t cap = tr.capsp ? 2 * tr.capsp : 1024;
        pyemu_trace_span *p = realloc(tr.sp, cap * sizeof *p);
        if (!p)
            return; /* out of host memory: the span is lost, not the program */
        tr.sp = p;
        tr.capsp = cap;
    }
    tr.sp[tr.nsp++] = *s;
}

PYEMU_API int pyemu_trace_enable(int on)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&tr.lock);
    if (on && !tr.cur) {
        int n = pyemu_pool_size() + 1; /* the workers, then the copy engine (copyengine.c) */
        tr.cur = calloc((size_t)n, sizeof *tr.cur);
        if (!tr.cur) {
            pthread_mutex_unlock(&tr.lock);
            PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
        }
        tr.ncur = n;
    }
    atomic_store(&pyemu_trace_on, on ? 1 : 0);
    pthread_mutex_unlock(&tr.lock);
ERROR:
    return status;
}

/* engine lock held: cmd has just completed */
void pyemu_trace_cmd(const pyemu_cmd *c)
{
    pyemu_trace_event e;
    memset(&e, 0, sizeof e);
    e.queue = (unsigned long long)(uintptr_t)c->queue;
    e.seq = c->seq;
    e.t_queued = c->t_queued;
    e.t_submit = c->t_submit;
    e.t_start = c->t_start;
    e.t_end = c->t_end;
    e.type = c->type;
    e.status = c->status;
    e.items = c->nitems;
    e.tag = c->type == CMD_MARKER ? c->tag : 0;
    switch (c->type) {
    case CMD_KERNEL:
        snprintf(e.name, sizeof e.name, "%s", c->u.k.desc ? c->u.k.desc->name : "kernel");
        e.grid[0] = c->u.k.grid.x, e.grid[1] = c->u.k.grid.y, e.grid[2] = c->u.k.grid.z;
        e.block[0] = c->u.k.block.x, e.block[1] = c->u.k.block.y, e.block[2] = c->u.k.block.z;
        break;
    case CMD_COPY:
        e.bytes = c->u.copy.size;
        e.src = (unsigned long long)(uintptr_t)c->u.copy.src;
        e.dst = (unsigned long long)(uintptr_t)c->u.copy.dst;
        break;
    case CMD_FILL:
        e.bytes = c->u.fill.size;
        e.dst = (unsigned long long)(uintptr_t)c->u.fill.dst;
        break;
    default:
        break;
    }
    pthread_mutex_lock(&tr.lock);
    if (tr.nev == tr.capev) {
        size_t cap = tr.capev ? 2 * tr.capev : 1024;
        pyemu_trace_event *p = realloc(tr.ev, cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&tr.lock);
            return;
        }
        tr.ev = p;
        tr.capev = cap;
    }
    tr.ev[tr.nev++] = e;
    pthread_mutex_unlock(&tr.lock);
}

/* on worker `worker`: it ran an item of the command numbered seq from t0 to t1 */
void pyemu_trace_item(int worker, unsigned long long seq, uint64_t t0, uint64_t t1)
{
    pthread_mutex_lock(&tr.lock);
    if (worker >= 0 && worker < tr.ncur) {
        pyemu_trace_span *s = &tr.cur[worker];
        if (s->items && s->seq == seq && t0 <= s->t_end + MERGE_GAP_NS) {
            s->t_end = t1;
            s->items++;
        } else {
            if (s->items)
                push_span(s);
            *s = (pyemu_trace_span){seq, worker, t0, t1, 1};
        }
    }
    pthread_mutex_unlock(&tr.lock);
}

PYEMU_API size_t pyemu_trace_take_events(pyemu_trace_event *buf, size_t cap)
{
    pthread_mutex_lock(&tr.lock);
    size_t n = tr.nev < cap ? tr.nev : cap;
    if (buf && n) {
        memcpy(buf, tr.ev, n * sizeof *buf);
        memmove(tr.ev, tr.ev + n, (tr.nev - n) * sizeof *buf);
        tr.nev -= n;
    } else if (!buf) {
        n = tr.nev;
    }
    pthread_mutex_unlock(&tr.lock);
    return n;
}

PYEMU_API size_t pyemu_trace_take_spans(pyemu_trace_span *buf, size_t cap)
{
    pthread_mutex_lock(&tr.lock);
    for (int i = 0; i < tr.ncur; i++) /* close the open spans */
        if (tr.cur[i].items) {
            push_span(&tr.cur[i]);
            tr.cur[i].items = 0;
        }
    size_t n = tr.nsp < cap ? tr.nsp : cap;
    if (buf && n) {
        memcpy(buf, tr.sp, n * sizeof *buf);
        memmove(tr.sp, tr.sp + n, (tr.nsp - n) * sizeof *buf);
        tr.nsp -= n;
    } else if (!buf) {
        n = tr.nsp;
    }
    pthread_mutex_unlock(&tr.lock);
    return n;
}
