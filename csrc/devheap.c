/* devheap.c - device malloc() and free(): the heap kernels allocate from.
 *
 * One heap of cudaLimitMallocHeapSize bytes (8 MiB unless the runtime sets
 * another size before the first kernel that allocates) is reserved once.
 * Small blocks come in power-of-two size classes (16-byte header included),
 * blocks over 1 MiB in whole pages.  Each worker carves spans from the heap
 * with one atomic add and keeps its own free list per class, so malloc and
 * free in a kernel take no lock: a fault in kernel code, or in here on a
 * block the kernel overwrote, jumps back to the worker (fault.c) without
 * leaving a lock held.  Between chunks of blocks (pool.c, no kernel code
 * running) a worker hands its free blocks to shared per-class stacks; a
 * worker whose own list runs empty takes a whole stack at once (an atomic
 * exchange: pushes and take-alls only, so no ABA).  Large blocks go to one
 * shared stack, first fit.  A fault while a worker changes its lists drops
 * them (pyemu_heap_recover): their blocks are lost, never handed out twice.
 */
#include "core.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define HEAP_DEFAULT (8u << 20)     /* CUDA's default cudaLimitMallocHeapSize */
#define HEAP_SPAN (64u << 10)       /* what a worker takes from the heap at once */
#define MAGIC_LIVE 0x6d6c6f63u      /* "mloc" */
#define MAGIC_FREE 0x66726565u      /* "free" */
#define MIN_CLASS 5                 /* 32 bytes: the header and 16 usable */
#define MAX_CLASS 20                /* 1 MiB; larger blocks are whole pages */
#define LARGE 0xffffu

typedef struct block_hdr {
    uint32_t magic;
    uint16_t cls;                   /* 1 << cls bytes, or LARGE */
    uint16_t pad;
    uint64_t bytes;                 /* the block's size, header included */
} block_hdr;                        /* 16 bytes: user data stays 16-byte aligned */

static struct {
    char *base;
    size_t size;                    /* the limit, reserved at the first malloc */
    _Atomic size_t top;             /* carved so far */
    atomic_int state;               /* 0 not reserved, 1 reserving, 2 ready, -1 failed */
    void *_Atomic shared[PYEMU_HEAP_CLASSES];  /* free blocks handed back, by class */
    void *_Atomic large;            /* free large blocks */
} heap = {NULL, HEAP_DEFAULT, 0, 0, {0}, NULL};

#define NEXT(p) (*(void **)(p))
#define HDR(p) ((block_hdr *)(p) - 1)

/* cudaDeviceSetLimit(cudaLimitMallocHeapSize): only before the heap is used. */
PYEMU_API int pyemu_heap_set_size(size_t size)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(atomic_load(&heap.state) != 0, PYEMU_E_INVALID_VALUE,
                  "the device malloc heap is in use already: its size can be set only before "
                  "the first kernel that calls malloc()");
    PYEMU_FAIL_IF(size < 4096, PYEMU_E_INVALID_VALUE,
                  "a device malloc heap of %zu bytes is too small", size);
    heap.size = size;
ERROR:
    return status;
}

PYEMU_API size_t pyemu_heap_size(void)
{
    return heap.size;
}

static PYEMU_KSUPPORT int heap_ready(void)
{
    int s = atomic_load_explicit(&heap.state, memory_order_acquire);
    if (s == 2)
        return 1;
    int zero = 0;
    if (s == 0 && atomic_compare_exchange_strong(&heap.state, &zero, 1)) {
        void *p = mmap(NULL, heap.size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        heap.base = p == MAP_FAILED ? NULL : p;
        atomic_store_explicit(&heap.state, heap.base ? 2 : -1, memory_order_release);
    }
    while ((s = atomic_load_explicit(&heap.state, memory_order_acquire)) == 1)
        ;
    return s == 2;
}

static inline int in_heap(const void *p)
{
    return heap.base && (const char *)p >= heap.base && (const char *)p < heap.base + heap.size;
}

/* `n` bytes from the heap's untouched part, or NULL when it is used up. */
static PYEMU_KSUPPORT char *take_span(size_t n)
{
    size_t top = atomic_load_explicit(&heap.top, memory_order_relaxed);
    do {
        if (top + n > heap.size)
            return NULL;
    } while (!atomic_compare_exchange_weak(&heap.top, &top, top + n));
    return heap.base + top;
}

static __attribute__((noinline, cold, noreturn)) void heap_corrupt(pyemu_worker *w, const void *p)
{
    w->in_heap = 0;
    pyemu_kernel_fail(w, PYEMU_E_ILLEGAL_ADDRESS,
                      "the device malloc heap is corrupted at 0x%llx (a write past the end of a "
                      "malloc() block, or through a freed pointer?)", (unsigned long long)(uintptr_t)p);
}

/* Push the chain first..last onto a shared stack. */
static PYEMU_KSUPPORT void push_chain(void *_Atomic *stack, void *first, void *last)
{
    void *head = atomic_load_explicit(stack, memory_order_relaxed);
    do
        NEXT(last) = head;
    while (!atomic_compare_exchange_weak_explicit(stack, &head, first, memory_order_release,
                                                  memory_order_relaxed));
}

static inline int block_ok(const void *p, unsigned int cls)
{
    const block_hdr *h = HDR(p);
    return in_heap(h) && h->magic == MAGIC_FREE && h->cls == cls;
}

/* A large block of at least `bytes`: first fit among the freed ones. */
static PYEMU_KSUPPORT void *take_large(pyemu_worker *w, size_t bytes)
{
    void *list = atomic_exchange_explicit(&heap.large, NULL, memory_order_acquire);
    void *found = NULL;
    while (list) {
        void *p = list;
        if (!block_ok(p, LARGE))
            heap_corrupt(w, HDR(p));
        list = NEXT(p);
        if (!found && HDR(p)->bytes >= bytes)
            found = p;
        else
            push_chain(&heap.large, p, p);
    }
    if (found)
        return found;
    char *s = take_span(bytes);
    if (!s)
        return NULL;
    HDR(s + sizeof(block_hdr))->bytes = bytes;
    return s + sizeof(block_hdr);
}

/* Take freed blocks of class cls from the shared stack: at most TAKE of
 * them, the rest goes back, so one worker does not hoard what all the
 * others need (it hands its surplus back only at the end of its chunk, and
 * a worker may be descheduled meanwhile).  NULL when there are none. */
#define TAKE 64
static PYEMU_KSUPPORT void *take_shared(pyemu_worker *w, unsigned int cls)
{
    void *list = atomic_exchange_explicit(&heap.shared[cls], NULL, memory_order_acquire);
    if (!list)
        return NULL;
    void *last = list;
    for (int i = 1; i < TAKE && NEXT(last); i++) {
        if (!block_ok(NEXT(last), cls))
            heap_corrupt(w, HDR(NEXT(last)));
        last = NEXT(last);
    }
    void *rest = NEXT(last);
    NEXT(last) = NULL;
    if (rest) {
        void *rest_last = rest;
        while (NEXT(rest_last))
            rest_last = NEXT(rest_last);
        push_chain(&heap.shared[cls], rest, rest_last);
    }
    return list;
}

/* The heap is used up: another worker may hold freed blocks of this class
 * that it hands back at the end of its chunk; look again for up to 20 ms
 * (a worker may be descheduled for a time slice on a busy machine). */
static PYEMU_KSUPPORT void *wait_for_freed(pyemu_worker *w, unsigned int cls)
{
    uint64_t until = pyemu_clock_ns() + 20000000u;
    do {
        void *p = take_shared(w, cls);
        if (p) {
            if (!block_ok(p, cls))
                heap_corrupt(w, HDR(p));
            w->heap_free[cls] = NEXT(p);
            return p;
        }
        sched_yield();
    } while (pyemu_clock_ns() < until);
    return NULL;
}

PYEMU_API PYEMU_KSUPPORT void *pyemu_malloc(size_t n)
{
    pyemu_worker *w = pyemu_self;
    if (!w || n == 0 || n > ((size_t)1 << 60) || !heap_ready())
        return NULL;
    void *p;
    unsigned int cls = MIN_CLASS;
    while (cls <= MAX_CLASS && ((size_t)1 << cls) < n + sizeof(block_hdr))
        cls++;
    w->in_heap = 1;
    w->heap_used = 1;
    if (cls > MAX_CLASS) {
        size_t bytes = (n + sizeof(block_hdr) + 4095) & ~(size_t)4095;
        p = bytes <= heap.size ? take_large(w, bytes) : NULL;
        cls = LARGE;
    } else {
        size_t bytes = (size_t)1 << cls;
        if (!w->heap_free[cls])
            w->heap_free[cls] = take_shared(w, cls);
        p = w->heap_free[cls];
        if (p) {
            if (!block_ok(p, cls))
                heap_corrupt(w, HDR(p));
            w->heap_free[cls] = NEXT(p);
        } else {
            if (!w->heap_bump || w->heap_end - w->heap_bump < (ptrdiff_t)bytes) {
                size_t span = bytes > HEAP_SPAN ? bytes : HEAP_SPAN;
                char *s = take_span(span);
                if (!s && span > bytes)
                    s = take_span(span = bytes);
                if (s) {
                    w->heap_bump = s;
                    w->heap_end = s + span;
                }
            }
            if (w->heap_bump && w->heap_end - w->heap_bump >= (ptrdiff_t)bytes) {
                p = w->heap_bump + sizeof(block_hdr);
                w->heap_bump += bytes;
                HDR(p)->bytes = bytes;
            } else {
                p = wait_for_freed(w, cls);
            }
        }
    }
    if (p) {
        HDR(p)->magic = MAGIC_LIVE;
        HDR(p)->cls = (uint16_t)cls;
    }
    w->in_heap = 0;
    return p; /* NULL when the heap is used up, as on a GPU */
}

PYEMU_API PYEMU_KSUPPORT void pyemu_free(void *p)
{
    pyemu_worker *w = pyemu_self;
    if (!p || !w)
        return;
    block_hdr *h = HDR(p);
    if (!in_heap(h) || ((uintptr_t)p & 15) != 0)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                          "free(0x%llx): the pointer was not returned by device malloc()",
                          (unsigned long long)(uintptr_t)p);
    if (h->magic == MAGIC_FREE)
        pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                          "free(0x%llx): the block was freed already",
                          (unsigned long long)(uintptr_t)p);
    if (h->magic != MAGIC_LIVE || (h->cls != LARGE && (h->cls < MIN_CLASS || h->cls > MAX_CLASS)))
        heap_corrupt(w, h);
    h->magic = MAGIC_FREE;
    if (h->cls == LARGE) {
        push_chain(&heap.large, p, p);
        return;
    }
    w->in_heap = 1;
    w->heap_used = 1;
    NEXT(p) = w->heap_free[h->cls];
    w->heap_free[h->cls] = p;
    w->in_heap = 0;
}

/* Between chunks (no kernel code runs): the worker's free blocks go to the
 * shared stacks, where any worker finds them. */
void pyemu_heap_flush(pyemu_worker *w)
{
    w->heap_used = 0;
    for (unsigned int c = MIN_CLASS; c <= MAX_CLASS; c++) {
        void *first = w->heap_free[c];
        if (!first)
            continue;
        void *last = first;
        while (NEXT(last)) {
            if (!block_ok(NEXT(last), c))
                NEXT(last) = NULL; /* overwritten since it was freed: drop the rest */
            else
                last = NEXT(last);
        }
        w->heap_free[c] = NULL;
        push_chain(&heap.shared[c], first, last);
    }
}

/* A fault came while the worker changed its lists: forget them and its
 * span rather than trust them. */
void pyemu_heap_recover(pyemu_worker *w)
{
    memset(w->heap_free, 0, sizeof w->heap_free);
    w->heap_bump = w->heap_end = NULL;
    w->in_heap = 0;
}
