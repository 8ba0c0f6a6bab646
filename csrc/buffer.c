/* buffer.c - reference-counted handles on device allocations.
 *
 * A buffer (an OpenCL cl_mem's memory) is freed when its last reference
 * goes: the owner's (clReleaseMemObject), each sub-buffer's or view's
 * (pyemu_buffer_retain), and each command's that uses it, taken when the
 * command is enqueued and dropped when it completes (engine.c), on whichever
 * thread completes it.  So a release never blocks and never frees memory a
 * queued command still uses, and no list of commands is kept per buffer.
 * The call that freed it ("clReleaseMemObject") is the owner's, named by a
 * later fault through the freed address.  A device reset frees all memory at
 * once; a buffer made before it then frees nothing (memory.c's generation).
 */
#include "core.h"

#include <stdlib.h>

#define PYEMU_MAGIC_BUFFER 0x42554621u /* BUF! */

struct pyemu_buffer {
    uint32_t magic;
    atomic_int refs;
    unsigned long long addr;
    unsigned generation;    /* memory.c's, when it was made */
    atomic_int tag;         /* the owner's freeing call (memory.c's tag), -1: none yet */
};

#define CHECK_BUFFER(b) PYEMU_FAIL_IF(!(b) || (b)->magic != PYEMU_MAGIC_BUFFER, \
                                      PYEMU_E_INVALID_HANDLE, "invalid buffer handle")

static int wrap(unsigned long long addr, unsigned generation, pyemu_buffer **buf)
{
    int status = PYEMU_SUCCESS;
    pyemu_buffer *b = calloc(1, sizeof *b);
    PYEMU_FAIL_IF(!b, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    b->magic = PYEMU_MAGIC_BUFFER;
    atomic_init(&b->refs, 1);
    atomic_init(&b->tag, -1);
    b->addr = addr;
    b->generation = generation;
    *buf = b;
ERROR:
    return status;
}

PYEMU_API int pyemu_buffer_alloc(size_t size, pyemu_buffer **buf, unsigned long long *addr)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(!buf || !addr, PYEMU_E_INVALID_VALUE, "no place to return the buffer");
    PYEMU_FAIL_IF(size == 0, PYEMU_E_INVALID_VALUE, "a buffer has at least one byte");
    unsigned gen = pyemu_mem_generation();
    status = pyemu_mem_alloc(size, addr);
    if (status)
        return status;
    status = wrap(*addr, gen, buf);
    if (status)
        pyemu_mem_free(*addr, "pyemu_buffer_alloc");
ERROR:
    return status;
}

PYEMU_API int pyemu_buffer_wrap(unsigned long long addr, pyemu_buffer **buf)
{
    int status = PYEMU_SUCCESS;
    unsigned long long start, size;
    PYEMU_FAIL_IF(!buf, PYEMU_E_INVALID_VALUE, "no place to return the buffer");
    PYEMU_FAIL_IF(pyemu_mem_find(addr, &start, &size) != PYEMU_SUCCESS || start != addr,
                  PYEMU_E_INVALID_VALUE, "0x%llx is not the start of a device allocation", addr);
    status = wrap(addr, pyemu_mem_generation(), buf);
ERROR:
    return status;
}

void pyemu_buffer_ref(pyemu_buffer *b) { atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed); }

void pyemu_buffer_unref(pyemu_buffer *b)
{
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
        return;
    int tag = atomic_load(&b->tag);
    pyemu_mem_free_tagged(b->addr, tag >= 0 ? tag : pyemu_mem_tag(NULL), b->generation);
    b->magic = PYEMU_MAGIC_DEAD;
    free(b);
}

int pyemu_buffer_valid(const pyemu_buffer *b) { return b && b->magic == PYEMU_MAGIC_BUFFER; }

PYEMU_API int pyemu_buffer_retain(pyemu_buffer *buf)
{
    int status = PYEMU_SUCCESS;
    CHECK_BUFFER(buf);
    pyemu_buffer_ref(buf);
ERROR:
    return status;
}

PYEMU_API int pyemu_buffer_release(pyemu_buffer *buf, const char *freed_by)
{
    int status = PYEMU_SUCCESS;
    CHECK_BUFFER(buf);
    if (freed_by)
        atomic_store(&buf->tag, pyemu_mem_tag(freed_by));
    pyemu_buffer_unref(buf);
ERROR:
    return status;
}

PYEMU_API int pyemu_buffer_refs(pyemu_buffer *buf)
{
    int status = PYEMU_SUCCESS;
    CHECK_BUFFER(buf);
    return atomic_load(&buf->refs);
ERROR:
    return -status;
}
