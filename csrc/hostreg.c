/* hostreg.c - host memory registered with cudaHostRegister: mapped for kernels.
 *
 * On an H100 with unified addressing, cudaHostGetDevicePointer of a
 * registered range returns the host address itself.  pyemu does the same:
 * the launch check (engine.c) admits a pointer into a registered range as
 * it does device memory, and a fault near one is named after it
 * (memory.c's pyemu_mem_describe asks here).  A small sorted-free table:
 * programs register a few buffers, not thousands.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct { uintptr_t start, size; } range;

static struct {
    pthread_mutex_t lock;
    range *r;
    int n, cap;
} reg = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

PYEMU_API int pyemu_hostreg_add(unsigned long long addr, unsigned long long size)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(!addr || !size || addr + size < addr, PYEMU_E_INVALID_VALUE,
                  "no host range to register");
    pthread_mutex_lock(&reg.lock);
    for (int i = 0; i < reg.n; i++)
        if (addr < reg.r[i].start + reg.r[i].size && reg.r[i].start < addr + size) {
            pthread_mutex_unlock(&reg.lock);
            PYEMU_FAIL_IF(1, PYEMU_E_INVALID_VALUE, "[0x%llx, +%llu) overlaps a registered range",
                          addr, size);
        }
    if (reg.n == reg.cap) {
        int cap = reg.cap ? 2 * reg.cap : 16;
        range *p = realloc(reg.r, (size_t)cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&reg.lock);
            PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
        }
        reg.r = p;
        reg.cap = cap;
    }
    reg.r[reg.n++] = (range){(uintptr_t)addr, (uintptr_t)size};
    pthread_mutex_unlock(&reg.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_hostreg_remove(unsigned long long addr)
{
    int status = PYEMU_SUCCESS, found = 0;
    pthread_mutex_lock(&reg.lock);
    for (int i = 0; i < reg.n; i++)
        if (reg.r[i].start == addr) {
            reg.r[i] = reg.r[--reg.n];
            found = 1;
            break;
        }
    pthread_mutex_unlock(&reg.lock);
    PYEMU_FAIL_IF(!found, PYEMU_E_INVALID_VALUE, "0x%llx is not a registered range", addr);
ERROR:
    return status;
}

/* 1 when addr lies in a registered range */
PYEMU_API int pyemu_hostreg_contains(unsigned long long addr)
{
    int in = 0;
    pthread_mutex_lock(&reg.lock);
    for (int i = 0; i < reg.n && !in; i++)
        in = addr >= reg.r[i].start && addr - reg.r[i].start < reg.r[i].size;
    pthread_mutex_unlock(&reg.lock);
    return in;
}

/* a fault's place relative to the nearest registered range within 64 KiB;
 * 0 when none is that near */
int pyemu_hostreg_describe(uintptr_t addr, char *buf, size_t len)
{
    int found = 0;
    pthread_mutex_lock(&reg.lock);
    for (int i = 0; i < reg.n && !found; i++) {
        uintptr_t s = reg.r[i].start, e = s + reg.r[i].size;
        if (addr >= s && addr < e)
            found = snprintf(buf, len, "%llu bytes into the %llu-byte cudaHostRegister'ed range "
                             "at 0x%llx", (unsigned long long)(addr - s),
                             (unsigned long long)(e - s), (unsigned long long)s) > 0;
        else if (addr >= e && addr - e < 65536)
            found = snprintf(buf, len, "%llu bytes past the end of the %llu-byte "
                             "cudaHostRegister'ed range at 0x%llx",
                             (unsigned long long)(addr - e), (unsigned long long)(e - s),
                             (unsigned long long)s) > 0;
        else if (addr < s && s - addr <= 65536)
            found = snprintf(buf, len, "%llu bytes before the %llu-byte cudaHostRegister'ed "
                             "range at 0x%llx", (unsigned long long)(s - addr),
                             (unsigned long long)(e - s), (unsigned long long)s) > 0;
    }
    pthread_mutex_unlock(&reg.lock);
    return found;
}

/* Page-locked memory is resident: fault every page of [addr, addr + size)
 * in now (cudaHostAlloc, cudaHostRegister), so that the first copy from or
 * to it does not pay for page faults (a 16 MiB copy into fresh memory took
 * 34 ms instead of 2).  The contents stay as they are.  Best effort: a
 * kernel without MADV_POPULATE_WRITE (Linux < 5.14) leaves it to the copy. */
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
PYEMU_API int pyemu_host_populate(unsigned long long addr, unsigned long long size)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (!addr || !size)
        return PYEMU_SUCCESS;
    uintptr_t lo = (uintptr_t)addr & ~(page - 1);
    uintptr_t hi = ((uintptr_t)addr + (uintptr_t)size + page - 1) & ~(page - 1);
    return madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0 ? PYEMU_SUCCESS
                                                                   : PYEMU_E_SYSTEM;
}
