/* memory.c - device memory: one reserved address range, wide unmapped gaps.
 *
 * All device allocations live inside one large PROT_NONE reservation, each
 * with at least PYEMU_GAP bytes of unmapped address space on either side, so
 * an index even gigabytes before or past an allocation faults instead of
 * touching another allocation or Python's own memory.  An allocation ends
 * flush with the end of its last page (256-byte aligned, as cudaMalloc
 * promises), so reading just past the end faults too.  The table is sorted
 * by address, to say which allocation a faulting address was nearest.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PYEMU_GAP (4ull << 30)      /* 4 GiB of nothing around every allocation */
#define PYEMU_ALIGN 256ull

typedef struct {
    uintptr_t map;      /* first mapped page */
    size_t mapped;      /* bytes mapped (pages) */
    uintptr_t start;    /* what the user got */
    size_t size;        /* what the user asked for */
    int zombie;         /* freed, but host views may still read it: keep the addresses */
} allocation;

static struct {
    pthread_mutex_t lock;
    uintptr_t base, end;        /* the reservation */
    allocation *a;
    size_t n, cap;
    unsigned long long total, used;
    size_t page;
} mem = {PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, 0, 0, 0, 0, 0};

int pyemu_mem_init(unsigned long long device_memory)
{
    mem.page = (size_t)sysconf(_SC_PAGESIZE);
    if (device_memory == 0) {
        long pages = sysconf(_SC_PHYS_PAGES);
        device_memory = pages > 0 ? (unsigned long long)pages * mem.page : (8ull << 30);
    }
    mem.total = device_memory;
    /* as much address space as the system lends, from 32 TiB down */
    for (unsigned long long span = 32ull << 40; span >= (64ull << 30); span >>= 1) {
        void *p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            mem.base = (uintptr_t)p;
            mem.end = mem.base + span;
            return 0;
        }
    }
    pyemu_set_error("cannot reserve address space for device memory");
    return PYEMU_E_SYSTEM;
}

PYEMU_API void pyemu_mem_region(unsigned long long *start, unsigned long long *end)
{
    *start = mem.base;
    *end = mem.end;
}

int pyemu_mem_in_region(uintptr_t addr) { return addr >= mem.base && addr < mem.end; }

/* index of the first allocation whose map ends after addr */
static size_t lower_bound(uintptr_t addr)
{
    size_t lo = 0, hi = mem.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mem.a[mid].map + mem.a[mid].mapped <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

PYEMU_API int pyemu_mem_alloc(size_t size, unsigned long long *addr)
{
    int status = PYEMU_SUCCESS;
    size_t mapped, pos;
    uintptr_t where = 0;
    pthread_mutex_lock(&mem.lock);
    PYEMU_FAIL_IF(!addr, PYEMU_E_INVALID_VALUE, "no place to return the address");
    *addr = 0;
    if (size == 0)
        goto ERROR; /* success, and a null pointer, as cudaMalloc(0) */
    PYEMU_FAIL_IF(size > mem.total, PYEMU_E_OUT_OF_MEMORY,
                  "%zu bytes asked for; the device has %llu bytes", size, mem.total);
    mapped = (size + mem.page - 1) & ~(mem.page - 1);
    PYEMU_FAIL_IF(mem.used + mapped > mem.total, PYEMU_E_OUT_OF_MEMORY,
                  "%zu bytes asked for; %llu of %llu bytes are free", size,
                  mem.total - mem.used, mem.total);
    /* first fit: the first hole with a gap on both sides */
    uintptr_t prev_end = mem.base;
    for (pos = 0; pos <= mem.n; pos++) {
        uintptr_t next_start = pos < mem.n ? mem.a[pos].map : mem.end;
        if (next_start > prev_end && next_start - prev_end >= mapped + 2 * PYEMU_GAP) {
            where = prev_end + PYEMU_GAP;
            break;
        }
        if (pos < mem.n)
            prev_end = mem.a[pos].map + mem.a[pos].mapped;
    }
    PYEMU_FAIL_IF(!where, PYEMU_E_OUT_OF_MEMORY, "device address space exhausted");
    PYEMU_FAIL_IF(mprotect((void *)where, mapped, PROT_READ | PROT_WRITE) != 0,
                  PYEMU_E_OUT_OF_MEMORY, "the system refused %zu bytes", mapped);
    if (mem.n == mem.cap) {
        size_t cap = mem.cap ? mem.cap * 2 : 64;
        allocation *a = realloc(mem.a, cap * sizeof *a);
        if (!a) {
            mprotect((void *)where, mapped, PROT_NONE);
            PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory for the table");
        }
        mem.a = a;
        mem.cap = cap;
    }
    memmove(&mem.a[pos + 1], &mem.a[pos], (mem.n - pos) * sizeof *mem.a);
    allocation *al = &mem.a[pos];
    al->map = where;
    al->mapped = mapped;
    al->size = size;
    al->start = where + mapped - ((size + PYEMU_ALIGN - 1) & ~(PYEMU_ALIGN - 1));
    al->zombie = 0;
    mem.n++;
    mem.used += mapped;
    *addr = al->start;
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

static void unmap_locked(size_t i)
{
    allocation *al = &mem.a[i];
    if (!al->zombie)
        mem.used -= al->mapped;
    /* fresh PROT_NONE pages: the old contents are gone for good */
    mmap((void *)al->map, al->mapped, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    memmove(&mem.a[i], &mem.a[i + 1], (mem.n - i - 1) * sizeof *mem.a);
    mem.n--;
}

PYEMU_API int pyemu_mem_free(unsigned long long addr)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&mem.lock);
    size_t i = lower_bound((uintptr_t)addr);
    PYEMU_FAIL_IF(i >= mem.n || mem.a[i].start != addr || mem.a[i].zombie, PYEMU_E_INVALID_VALUE,
                  "0x%llx is not the start of a device allocation", addr);
    unmap_locked(i);
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

/* Free unified memory that NumPy views may still read: its contents go, its
 * pages stay readable (zeros) until pyemu_mem_forget() once the views are gone,
 * so a host read after cudaFree gives stale zeros instead of a crash. */
PYEMU_API int pyemu_mem_free_keep_mapped(unsigned long long addr)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&mem.lock);
    size_t i = lower_bound((uintptr_t)addr);
    PYEMU_FAIL_IF(i >= mem.n || mem.a[i].start != addr || mem.a[i].zombie,
                  PYEMU_E_INVALID_VALUE, "0x%llx is not the start of a device allocation", addr);
    allocation *al = &mem.a[i];
    mmap((void *)al->map, al->mapped, PROT_READ | PROT_WRITE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    al->zombie = 1;
    mem.used -= al->mapped;
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

PYEMU_API int pyemu_mem_forget(unsigned long long addr)
{
    pthread_mutex_lock(&mem.lock);
    size_t i = lower_bound((uintptr_t)addr);
    if (i < mem.n && mem.a[i].start == addr && mem.a[i].zombie)
        unmap_locked(i);
    pthread_mutex_unlock(&mem.lock);
    return PYEMU_SUCCESS;
}

PYEMU_API int pyemu_mem_free_all(void)
{
    pthread_mutex_lock(&mem.lock);
    for (size_t i = mem.n; i-- > 0;)
        if (!mem.a[i].zombie)
            unmap_locked(i);
    pthread_mutex_unlock(&mem.lock);
    return PYEMU_SUCCESS;
}

PYEMU_API int pyemu_mem_info(unsigned long long *free_bytes, unsigned long long *total_bytes)
{
    pthread_mutex_lock(&mem.lock);
    *free_bytes = mem.total - mem.used;
    *total_bytes = mem.total;
    pthread_mutex_unlock(&mem.lock);
    return PYEMU_SUCCESS;
}

PYEMU_API int pyemu_mem_find(unsigned long long addr, unsigned long long *start,
                             unsigned long long *size)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&mem.lock);
    size_t i = lower_bound((uintptr_t)addr);
    PYEMU_FAIL_IF(i >= mem.n || mem.a[i].zombie || addr < mem.a[i].start ||
                      addr >= mem.a[i].start + mem.a[i].size,
                  PYEMU_E_INVALID_VALUE, "0x%llx is not inside a device allocation", addr);
    *start = mem.a[i].start;
    *size = mem.a[i].size;
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

int pyemu_mem_range_ok(uintptr_t addr, size_t size)
{
    unsigned long long start, len;
    if (pyemu_mem_find(addr, &start, &len) != PYEMU_SUCCESS)
        return 0;
    return size <= start + len - addr;
}

/* "12 bytes past the end of the 4096-byte allocation at 0x..." */
void pyemu_mem_describe(uintptr_t addr, char *buf, size_t len)
{
    pthread_mutex_lock(&mem.lock);
    if (mem.n == 0 || !pyemu_mem_in_region(addr)) {
        snprintf(buf, len, "%s", mem.n == 0 ? "no device memory is allocated"
                                            : "outside device memory");
        pthread_mutex_unlock(&mem.lock);
        return;
    }
    size_t i = lower_bound(addr);
    const allocation *best = NULL;
    uintptr_t dist = UINTPTR_MAX;
    for (size_t j = i > 0 ? i - 1 : 0; j <= i && j < mem.n; j++) {
        const allocation *al = &mem.a[j];
        uintptr_t d = addr < al->start ? al->start - addr
                      : addr >= al->start + al->size ? addr - (al->start + al->size) + 1 : 0;
        if (d < dist) {
            dist = d;
            best = &mem.a[j];
        }
    }
    if (addr < best->start)
        snprintf(buf, len, "%llu bytes before the %zu-byte allocation at 0x%llx",
                 (unsigned long long)(best->start - addr), best->size,
                 (unsigned long long)best->start);
    else if (addr >= best->start + best->size)
        snprintf(buf, len, "%llu bytes past the end of the %zu-byte allocation at 0x%llx",
                 (unsigned long long)(addr - (best->start + best->size)), best->size,
                 (unsigned long long)best->start);
    else
        snprintf(buf, len, "inside the %zu-byte allocation at 0x%llx", best->size,
                 (unsigned long long)best->start);
    pthread_mutex_unlock(&mem.lock);
}
