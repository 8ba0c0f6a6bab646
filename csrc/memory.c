/* memory.c - device memory: islands with wide gaps, slabs of guarded slots.
 *
 * What is guaranteed (R is the address space reserved at start-up: 64 TiB
 * where the system lends it, less on small systems; pyemu_mem_guard() gives
 * the numbers of one allocation):
 *  - Every allocation starts 256-byte aligned and ends at start + size
 *    rounded up to 256, flush with its last page ("the mapped end").
 *  - An island (an allocation of its own mapping) has GA = R/16384 bytes
 *    (4 GiB) after its mapped end and GB = R/65536 bytes (1 GiB) below its
 *    first page where every access faults, and a fault there is reported as
 *    past the end of / before that allocation.  Allocations larger than
 *    64 KiB are always islands; smaller ones are islands while fewer than
 *    4096 islands are live.
 *  - Past that, allocations of at most 64 KiB are packed into slabs: each
 *    gets its own pages, with 16 KiB after its mapped end and 4 KiB below
 *    its first page that fault (on Linux 6.13 and later, through guard
 *    regions, which cost no mapping) and are reported as its.  On older
 *    kernels those bytes are unused but readable: an overflow that short
 *    lands in no other allocation, silently.
 *  - Bytes between the start of an allocation's first page and its start
 *    (less than a page) and between start + size and its mapped end (less
 *    than 256) are readable.  Past the guaranteed distances an access may
 *    fault or land in another allocation.
 *  - A freed allocation's addresses are not reused while address space
 *    allows (islands: until the next-fit cursor comes round; slots: until
 *    4096 later frees), and they fault (slots: on Linux 6.13+); such a fault
 *    reads "use after free", naming the allocation and the call that freed it.
 *  - An allocation with host views (NumPy arrays over it: pyemu_mem_view
 *    counts them) is freed "keep mapped": it leaves the table (kernels fault
 *    on it as above) but its pages stay readable, as zeros, until the last
 *    view goes; the same for every free, the core's deferred ones and a
 *    device reset's too.
 *  - An allocation whose cudaFreeAsync is queued (pyemu_mem_queue_free) is
 *    still there for the work queued before the free, but belongs to nobody:
 *    the table refuses a second free of it and finds no allocation at its
 *    addresses (pyemu_mem_find), until the free runs (or, if the device's
 *    sticky error keeps it from running, until its command completes).
 *
 * Design.  Linux allows a process vm.max_map_count mappings (65,530) and
 * each island costs two (itself, and the split of the PROT_NONE
 * reservation), so islands are capped; a slab is one mapping however many
 * slots it holds.  The reservation's first three quarters hold islands, in
 * a sorted table placed next-fit (binary search; at most a few thousand).
 * The last quarter is cut into equal windows, each holding at most one slab
 * at its start (the rest of the window an unmapped gap): a slab serves one
 * size class (1, 2, 4, 8 or 16 data pages a slot, each slot laid out as
 * [4 KiB guard][data][16 KiB guard]), so the slot holding an address is
 * found by division, and allocation and free are O(1): per class a list of
 * slabs with room, per slab a stack of free slots, and a FIFO of recently
 * freed slots that returns each to its slab 4096 frees later.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

#define PYEMU_ALIGN 256ull
#define ISLANDS_FOR_SMALL 4096      /* small allocations are islands while fewer are live */
#define NCLASS 5                    /* slot data of 1, 2, 4, 8, 16 pages */
#define SLOT_BEFORE_PAGES 1
#define SLOT_AFTER_PAGES 4
#define SLAB_SPAN (32ull << 20)     /* at most, and at most half a window */
#define QUARANTINE 4096             /* freed slots wait this many frees before reuse */
#define HISTORY 4096                /* freed islands remembered for fault reports */
#define NTAGS 16

enum { SLOT_EMPTY, SLOT_LIVE, SLOT_ZOMBIE, SLOT_FREED };

typedef struct {
    uintptr_t map;      /* first mapped page */
    size_t mapped;      /* bytes mapped (pages) */
    uintptr_t start;    /* what the user got */
    size_t size;        /* what the user asked for */
    int zombie;         /* freed, but host views may still read it: keep the addresses */
    int tag;            /* the call that freed it (zombies and history) */
    unsigned views;     /* host views of it (pyemu_mem_view): a free keeps it mapped */
    int queued;         /* a cudaFreeAsync of it is queued (pyemu_mem_queue_free) */
} island;

typedef struct {
    uintptr_t start;
    uint32_t size;
    uint8_t state, tag;
    uint32_t views;     /* as island.views */
    uint8_t queued;     /* as island.queued */
} slot;

typedef struct {
    uintptr_t map;      /* the window's first byte; the slab's slots follow */
    unsigned cls, nslots, fresh, nfree;
    size_t stride;
    uint32_t *free;     /* slots returned from the quarantine */
    slot *slots;
    int next_room, has_room;   /* the class's list of slabs with room */
} slab;

static struct {
    pthread_mutex_t lock;
    uintptr_t base, end;            /* the reservation */
    uintptr_t isl_end;              /* islands below, slab windows above */
    size_t page, ga, gb, window;
    int guards;                     /* MADV_GUARD_INSTALL works */
    unsigned long long total, used, live;
    island *isl;
    size_t n, cap;
    uintptr_t cursor;               /* next-fit */
    island hist[HISTORY];           /* freed islands, a ring */
    size_t hist_n, hist_next;
    slab *slabs;
    size_t nwindows, nslabs;
    int room[NCLASS];               /* first slab with room, per class, or -1 */
    uint32_t quar[QUARANTINE][2];   /* (slab, slot) of recently freed slots */
    size_t quar_n, quar_next;
    char tags[NTAGS][32];
    int ntags;
    unsigned generation;            /* device resets so far (pyemu_mem_free_all) */
} mem = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- start-up ---- */

static int probe_guards(void)
{
    void *p = mmap(NULL, mem.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    int ok = madvise(p, mem.page, MADV_GUARD_INSTALL) == 0;
    munmap(p, mem.page);
    return ok;
}

int pyemu_mem_init(unsigned long long device_memory)
{
    mem.page = (size_t)sysconf(_SC_PAGESIZE);
    if (device_memory == 0) {
        long pages = sysconf(_SC_PHYS_PAGES);
        device_memory = pages > 0 ? (unsigned long long)pages * mem.page : (8ull << 30);
    }
    mem.total = device_memory;
    mem.guards = probe_guards();
    for (int c = 0; c < NCLASS; c++)
        mem.room[c] = -1;
    /* as much address space as the system lends, from 64 TiB down */
    for (unsigned long long span = 64ull << 40; span >= (64ull << 30); span >>= 1) {
        void *p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        mem.base = (uintptr_t)p;
        mem.end = mem.base + span;
        mem.isl_end = mem.base + span / 4 * 3;
        mem.ga = span >> 14;
        mem.gb = span >> 16;
        mem.window = (span >> 15) > 2 * SLAB_SPAN ? (span >> 15) : 2 * SLAB_SPAN;
        mem.nwindows = (mem.end - mem.isl_end) / mem.window;
        mem.cursor = mem.base;
        mem.slabs = calloc(mem.nwindows, sizeof *mem.slabs);
        if (!mem.slabs)
            break;
        return 0;
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

static int tag_of(const char *by)
{
    if (!by || !*by)
        by = "a free call";
    for (int i = 0; i < mem.ntags; i++)
        if (strncmp(mem.tags[i], by, sizeof mem.tags[i] - 1) == 0)
            return i;
    int i = mem.ntags < NTAGS ? mem.ntags++ : NTAGS - 1;
    snprintf(mem.tags[i], sizeof mem.tags[i], "%s", by);
    return i;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }

/* ---- islands: a sorted table, next-fit placement ---- */

/* index of the first island whose mapping ends after addr */
static size_t lower_bound(uintptr_t addr)
{
    size_t lo = 0, hi = mem.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mem.isl[mid].map + mem.isl[mid].mapped <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* an address for `mapped` bytes with the guard distances kept to both
 * neighbours, searching from the cursor on, then from the bottom; 0 if none */
static uintptr_t island_place(size_t mapped, size_t *pos)
{
    size_t first = lower_bound(mem.cursor);
    for (size_t k = 0; k <= mem.n + 1; k++) {
        size_t j = (first + k) % (mem.n + 1);   /* hole j lies below island j */
        uintptr_t lo = j == 0 ? mem.base + mem.gb
                              : mem.isl[j - 1].map + mem.isl[j - 1].mapped + mem.ga + mem.gb;
        uintptr_t hi = j == mem.n ? mem.isl_end - mem.ga : mem.isl[j].map - mem.ga - mem.gb;
        if (k == 0 && mem.cursor > lo)
            lo = round_up(mem.cursor, mem.page);
        if (hi > lo && hi - lo >= mapped) {
            *pos = j;
            return lo;
        }
    }
    return 0;
}

static int island_alloc(size_t size, size_t mapped, unsigned long long *addr)
{
    int status = PYEMU_SUCCESS;
    size_t pos;
    uintptr_t where = island_place(mapped, &pos);
    if (!where)
        return PYEMU_E_OUT_OF_MEMORY;
    PYEMU_FAIL_IF(mprotect((void *)where, mapped, PROT_READ | PROT_WRITE) != 0,
                  PYEMU_E_OUT_OF_MEMORY, "the system refused %zu bytes of device memory "
                  "(too many mappings? vm.max_map_count)", mapped);
    if (mem.n == mem.cap) {
        size_t cap = mem.cap ? mem.cap * 2 : 64;
        island *a = realloc(mem.isl, cap * sizeof *a);
        if (!a) {
            mprotect((void *)where, mapped, PROT_NONE);
            PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory for the table");
        }
        mem.isl = a;
        mem.cap = cap;
    }
    memmove(&mem.isl[pos + 1], &mem.isl[pos], (mem.n - pos) * sizeof *mem.isl);
    mem.isl[pos] = (island){where, mapped, where + mapped - round_up(size, PYEMU_ALIGN), size, 0, 0, 0,
                            0};
    mem.n++;
    mem.cursor = where + mapped;
    *addr = mem.isl[pos].start;
ERROR:
    return status;
}

static void island_unmap(size_t i, int tag)
{
    island *al = &mem.isl[i];
    if (!al->zombie)
        mem.used -= al->mapped;
    /* fresh PROT_NONE pages: the old contents are gone for good */
    mmap((void *)al->map, al->mapped, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    mem.hist[mem.hist_next] = *al;
    mem.hist[mem.hist_next].tag = al->zombie ? al->tag : tag;
    mem.hist_next = (mem.hist_next + 1) % HISTORY;
    if (mem.hist_n < HISTORY)
        mem.hist_n++;
    memmove(&mem.isl[i], &mem.isl[i + 1], (mem.n - i - 1) * sizeof *mem.isl);
    mem.n--;
}

static island *island_at(uintptr_t addr, size_t *idx)
{
    size_t i = lower_bound(addr);
    if (i < mem.n && mem.isl[i].start == addr) {
        *idx = i;
        return &mem.isl[i];
    }
    return NULL;
}

/* ---- slabs: one size class each, slots found by division ---- */

static size_t class_pages(int c) { return (size_t)1 << c; }

static slab *slab_of(uintptr_t addr, unsigned *k)
{
    if (addr < mem.isl_end || addr >= mem.end)
        return NULL;
    size_t w = (addr - mem.isl_end) / mem.window;
    if (w >= mem.nslabs)
        return NULL;
    slab *s = &mem.slabs[w];
    size_t off = addr - s->map;
    if (off >= (size_t)s->nslots * s->stride)
        return NULL;
    *k = (unsigned)(off / s->stride);
    return s;
}

static uintptr_t slot_data(const slab *s, unsigned k)
{
    return s->map + k * s->stride + SLOT_BEFORE_PAGES * mem.page;
}

static int slab_new(int c)
{
    if (mem.nslabs == mem.nwindows)
        return -1;
    slab *s = &mem.slabs[mem.nslabs];
    size_t span = mem.window / 2 < SLAB_SPAN ? mem.window / 2 : SLAB_SPAN;
    s->map = mem.isl_end + mem.nslabs * mem.window;
    s->cls = c;
    s->stride = (SLOT_BEFORE_PAGES + class_pages(c) + SLOT_AFTER_PAGES) * mem.page;
    s->nslots = (unsigned)(span / s->stride);
    s->slots = calloc(s->nslots, sizeof *s->slots);
    s->free = malloc(s->nslots * sizeof *s->free);
    size_t bytes = s->nslots * s->stride;
    if (!s->slots || !s->free ||
        mmap((void *)s->map, bytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
        free(s->slots);
        free(s->free);
        memset(s, 0, sizeof *s);
        return -1;
    }
    if (mem.guards)
        madvise((void *)s->map, bytes, MADV_GUARD_INSTALL); /* every slot faults until used */
    s->has_room = 1;
    s->next_room = mem.room[c];
    mem.room[c] = (int)mem.nslabs;
    return (int)mem.nslabs++;
}

static int slot_alloc(size_t size, size_t mapped, unsigned long long *addr)
{
    int c = 0;
    while (class_pages(c) * mem.page < mapped)
        c++;
    int si = mem.room[c] >= 0 ? mem.room[c] : slab_new(c);
    if (si < 0)
        return PYEMU_E_OUT_OF_MEMORY;
    slab *s = &mem.slabs[si];
    unsigned k = s->fresh < s->nslots ? s->fresh++ : s->free[--s->nfree];
    if (s->fresh == s->nslots && s->nfree == 0) {  /* full: off the list */
        mem.room[c] = s->next_room;
        s->has_room = 0;
    }
    uintptr_t end = slot_data(s, k) + class_pages(c) * mem.page;
    if (mem.guards)   /* fresh zero pages; the class's pages it does not need keep faulting */
        madvise((void *)(end - mapped), mapped, MADV_GUARD_REMOVE);
    s->slots[k] = (slot){end - round_up(size, PYEMU_ALIGN), (uint32_t)size, SLOT_LIVE, 0, 0, 0};
    *addr = s->slots[k].start;
    return PYEMU_SUCCESS;
}

/* a freed slot waits in the quarantine; the one that waited longest goes back */
static void slot_release(slab *s, unsigned k, int tag)
{
    slot *sl = &s->slots[k];
    uintptr_t data = slot_data(s, k);
    size_t pages = class_pages(s->cls) * mem.page;
    if (sl->state == SLOT_LIVE)
        mem.used -= round_up(sl->size, mem.page);
    else
        tag = sl->tag;
    madvise((void *)data, pages, mem.guards ? MADV_GUARD_INSTALL : MADV_DONTNEED);
    sl->state = SLOT_FREED;
    sl->queued = 0;
    sl->tag = (uint8_t)tag;
    if (mem.quar_n == QUARANTINE) {
        uint32_t *old = mem.quar[mem.quar_next];
        slab *os = &mem.slabs[old[0]];
        os->free[os->nfree++] = old[1];
        if (!os->has_room) {
            os->has_room = 1;
            os->next_room = mem.room[os->cls];
            mem.room[os->cls] = (int)old[0];
        }
    } else {
        mem.quar_n++;
    }
    mem.quar[mem.quar_next][0] = (uint32_t)(s - mem.slabs);
    mem.quar[mem.quar_next][1] = k;
    mem.quar_next = (mem.quar_next + 1) % QUARANTINE;
}

static slot *slot_at(uintptr_t addr, slab **sp, unsigned *kp)
{
    unsigned k;
    slab *s = slab_of(addr, &k);
    if (!s || s->slots[k].start != addr)
        return NULL;
    *sp = s;
    *kp = k;
    return &s->slots[k];
}

/* ---- the API ---- */

PYEMU_API int pyemu_mem_alloc(size_t size, unsigned long long *addr)
{
    int status = PYEMU_SUCCESS;
    size_t mapped;
    pthread_mutex_lock(&mem.lock);
    PYEMU_FAIL_IF(!addr, PYEMU_E_INVALID_VALUE, "no place to return the address");
    *addr = 0;
    if (size == 0)
        goto ERROR; /* success, and a null pointer, as cudaMalloc(0) */
    PYEMU_FAIL_IF(size > mem.total, PYEMU_E_OUT_OF_MEMORY,
                  "%zu bytes asked for; the device has %llu bytes", size, mem.total);
    mapped = round_up(size, mem.page);
    PYEMU_FAIL_IF(mem.used + mapped > mem.total, PYEMU_E_OUT_OF_MEMORY,
                  "%zu bytes asked for; %llu of %llu bytes are free", size,
                  mem.total - mem.used, mem.total);
    int small = mapped <= class_pages(NCLASS - 1) * mem.page;
    status = PYEMU_E_OUT_OF_MEMORY;
    if (!small || mem.n < ISLANDS_FOR_SMALL)
        status = island_alloc(size, mapped, addr);
    if (status == PYEMU_E_OUT_OF_MEMORY && small)
        status = slot_alloc(size, mapped, addr);
    PYEMU_FAIL_IF(status == PYEMU_E_OUT_OF_MEMORY, status,
                  "device address space exhausted (%llu allocations live)", mem.live);
    if (status == PYEMU_SUCCESS) {
        mem.used += mapped;
        mem.live++;
    }
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

/* the contents of a zombie go, its pages stay readable, as zeros (memory lock held) */
static void discard_locked(island *al, slab *s, unsigned k)
{
    if (al)
        mmap((void *)al->map, al->mapped, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    else
        madvise((void *)slot_data(s, k), class_pages(s->cls) * mem.page, MADV_DONTNEED);
}

#define QUEUED_MSG "0x%llx is already freed by an earlier cudaFreeAsync (still queued)"

/* Free now (keep = 0), or free unified memory that NumPy views may still
 * read (keep = 1, or host views counted by pyemu_mem_view): its contents go,
 * its pages stay readable (zeros) until pyemu_mem_forget() or the last view
 * goes.  An allocation whose cudaFreeAsync is queued is freed only by that
 * free (queued_ok = 1) or a device reset.  Memory lock held. */
static int free_locked(unsigned long long addr, int tag, int keep, int queued_ok)
{
    int status = PYEMU_SUCCESS;
    size_t i;
    unsigned k;
    slab *s;
    island *al = island_at(addr, &i);
    slot *sl = al ? NULL : slot_at(addr, &s, &k);
    PYEMU_FAIL_IF(!(al && !al->zombie) && !(sl && sl->state == SLOT_LIVE), PYEMU_E_INVALID_VALUE,
                  "0x%llx is not the start of a device allocation", addr);
    PYEMU_FAIL_IF(!queued_ok && (al ? al->queued : sl->queued), PYEMU_E_INVALID_VALUE,
                  QUEUED_MSG, addr);
    if (al)
        al->queued = 0;
    else
        sl->queued = 0;
    mem.live--;
    keep |= al ? al->views > 0 : sl->views > 0;
    if (al && !keep) {
        island_unmap(i, tag);
    } else if (al) {
        discard_locked(al, NULL, 0);
        al->zombie = 1;
        al->tag = tag;
        mem.used -= al->mapped;
    } else if (!keep) {
        slot_release(s, k, tag);
    } else {
        discard_locked(NULL, s, k);
        sl->state = SLOT_ZOMBIE;
        sl->tag = (uint8_t)tag;
        mem.used -= round_up(sl->size, mem.page);
    }
ERROR:
    return status;
}

static int free_common(unsigned long long addr, const char *freed_by, int keep, int queued_ok)
{
    pthread_mutex_lock(&mem.lock);
    int status = free_locked(addr, tag_of(freed_by), keep, queued_ok);
    pthread_mutex_unlock(&mem.lock);
    return status;
}

int pyemu_mem_tag(const char *freed_by)
{
    pthread_mutex_lock(&mem.lock);
    int tag = tag_of(freed_by);
    pthread_mutex_unlock(&mem.lock);
    return tag;
}

unsigned pyemu_mem_generation(void)
{
    return __atomic_load_n(&mem.generation, __ATOMIC_ACQUIRE);
}

/* buffer.c's free when a buffer's last reference goes: nothing if a device
 * reset freed all memory since the buffer was made (its address may be a
 * new allocation's now) */
int pyemu_mem_free_tagged(unsigned long long addr, int tag, unsigned generation)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&mem.lock);
    if (generation == mem.generation)
        status = free_locked(addr, tag, 0, 0);
    pthread_mutex_unlock(&mem.lock);
    return status;
}

PYEMU_API int pyemu_mem_free(unsigned long long addr, const char *freed_by)
{
    return free_common(addr, freed_by, 0, 0);
}

PYEMU_API int pyemu_mem_free_keep_mapped(unsigned long long addr, const char *freed_by)
{
    return free_common(addr, freed_by, 1, 0);
}

/* ---- cudaFreeAsync: queued, then run ---- */

/* The allocation starting at addr gets a queued free (engine.c,
 * pyemu_enqueue_free): refused if it is none, or has one queued already. */
int pyemu_mem_queue_free(unsigned long long addr)
{
    int status = PYEMU_SUCCESS;
    size_t i;
    unsigned k;
    slab *s;
    pthread_mutex_lock(&mem.lock);
    island *al = island_at(addr, &i);
    slot *sl = al ? NULL : slot_at(addr, &s, &k);
    PYEMU_FAIL_IF(!(al && !al->zombie) && !(sl && sl->state == SLOT_LIVE), PYEMU_E_INVALID_VALUE,
                  "0x%llx is not the start of a device allocation", addr);
    PYEMU_FAIL_IF(al ? al->queued : sl->queued, PYEMU_E_INVALID_VALUE, QUEUED_MSG, addr);
    if (al)
        al->queued = 1;
    else
        sl->queued = 1;
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

/* A queued free that will not run (its command was refused, or completed
 * without running): the allocation is its owner's again.  Nothing if a
 * device reset freed everything since it was queued (generation). */
void pyemu_mem_unqueue_free(unsigned long long addr, unsigned generation)
{
    size_t i;
    unsigned k;
    slab *s;
    pthread_mutex_lock(&mem.lock);
    if (generation == mem.generation) {
        island *al = island_at(addr, &i);
        slot *sl = al ? NULL : slot_at(addr, &s, &k);
        if (al && !al->zombie)
            al->queued = 0;
        else if (sl && sl->state == SLOT_LIVE)
            sl->queued = 0;
    }
    pthread_mutex_unlock(&mem.lock);
}

/* The queued free runs (CMD_FREE, no other queue's work pending) */
int pyemu_mem_free_queued(unsigned long long addr, int keep, const char *freed_by)
{
    return free_common(addr, freed_by, keep, 1);
}

/* Whether addr is inside an allocation whose cudaFreeAsync is queued (what
 * pyemu_mem_find refuses; the facades say so in their message). */
PYEMU_API int pyemu_mem_queued(unsigned long long addr)
{
    unsigned k;
    int queued = 0;
    pthread_mutex_lock(&mem.lock);
    slab *s = slab_of(addr, &k);
    if (s) {
        const slot *sl = &s->slots[k];
        queued = sl->state == SLOT_LIVE && sl->queued && addr >= sl->start &&
                 addr < sl->start + sl->size;
    } else {
        size_t i = lower_bound(addr);
        queued = i < mem.n && !mem.isl[i].zombie && mem.isl[i].queued &&
                 addr >= mem.isl[i].start && addr < mem.isl[i].start + mem.isl[i].size;
    }
    pthread_mutex_unlock(&mem.lock);
    return queued;
}

/* ---- a free that waits for the commands still using the memory ---- */

typedef struct deferred_free {
    unsigned long long addr;
    int keep;
    int tag;
    atomic_int left;            /* commands not complete yet, plus the caller's hold */
} deferred_free;

static void free_when_done(pyemu_cmd *cmd, int status, void *data)
{
    deferred_free *d = data;
    (void)cmd;
    (void)status;
    if (atomic_fetch_sub(&d->left, 1) != 1)
        return;
    char by[sizeof mem.tags[0]];
    pthread_mutex_lock(&mem.lock);
    snprintf(by, sizeof by, "%s", mem.tags[d->tag]);
    pthread_mutex_unlock(&mem.lock);
    free_common(d->addr, by, d->keep, 0);
    free(d);
}

/* clReleaseMemObject never blocks: the allocation is freed (or kept mapped
 * for host views, keep = 1) when the last of `cmds` completes, by the core,
 * on the thread that completes it; at once when they all are. */
PYEMU_API int pyemu_mem_free_after(unsigned long long addr, int keep, const char *freed_by,
                                   pyemu_cmd **cmds, unsigned int n)
{
    int status = PYEMU_SUCCESS;
    deferred_free *d = NULL;
    PYEMU_FAIL_IF(n && !cmds, PYEMU_E_INVALID_VALUE, "no command list");
    d = calloc(1, sizeof *d);
    PYEMU_FAIL_IF(!d, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_lock(&mem.lock);
    d->tag = tag_of(freed_by);
    pthread_mutex_unlock(&mem.lock);
    d->addr = addr;
    d->keep = keep;
    atomic_init(&d->left, (int)n + 1);
    for (unsigned int i = 0; i < n; i++)
        if (pyemu_cmd_on_complete(cmds[i], free_when_done, d) != PYEMU_SUCCESS)
            free_when_done(NULL, 0, d); /* not a command: nothing to wait for */
    free_when_done(NULL, 0, d);         /* the caller's hold */
ERROR:
    return status;
}

/* ---- a stream-ordered free that other queues' work may still read ---- */

typedef struct pending_free {
    unsigned long long addr;
    unsigned generation;        /* a device reset since: the address is another's now */
    atomic_int left;            /* commands not complete yet, plus the caller's hold */
} pending_free;

static void forget_locked(island *al, size_t i, slot *sl, slab *s, unsigned k);

static void pending_done(pyemu_cmd *cmd, int status, void *data)
{
    pending_free *d = data;
    (void)cmd;
    (void)status;
    if (atomic_fetch_sub(&d->left, 1) != 1)
        return;
    size_t i = 0;
    unsigned k = 0;
    slab *s = NULL;
    pthread_mutex_lock(&mem.lock);
    island *al = d->generation == mem.generation ? island_at(d->addr, &i) : NULL;
    slot *sl = al || d->generation != mem.generation ? NULL : slot_at(d->addr, &s, &k);
    unsigned *views = al && al->zombie ? &al->views
                      : sl && sl->state == SLOT_ZOMBIE ? &sl->views : NULL;
    if (views && --*views == 0)
        forget_locked(al, i, sl, s, k);
    else if (views)             /* host views remain: they read zeros, as after any free */
        discard_locked(al, s, k);
    pthread_mutex_unlock(&mem.lock);
    free(d);
}

/* cudaFreeAsync reached in its stream while commands of other queues that
 * were enqueued before it (`cmds`) may still use the memory (CUDA leaves
 * that race undefined; here it must not crash a copy): the allocation is
 * freed now (the table no longer has it, so later calls refuse it, and its
 * address is not given out again), but its pages keep their contents,
 * held as one more host view, until the last of `cmds` completes. */
int pyemu_mem_free_pending(unsigned long long addr, const char *freed_by, pyemu_cmd **cmds,
                           unsigned int n)
{
    int status = PYEMU_SUCCESS;
    size_t i;
    unsigned k;
    slab *s;
    pending_free *d = calloc(1, sizeof *d);
    PYEMU_FAIL_IF(!d, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_lock(&mem.lock);
    island *al = island_at(addr, &i);
    slot *sl = al ? NULL : slot_at(addr, &s, &k);
    if (!(al && !al->zombie) && !(sl && sl->state == SLOT_LIVE)) {
        pthread_mutex_unlock(&mem.lock);
        free(d);
        PYEMU_FAIL_IF(1, PYEMU_E_INVALID_VALUE, "0x%llx is not the start of a device allocation",
                      addr);
    }
    mem.live--;
    if (al) {
        al->queued = 0;
        al->views++;
        al->zombie = 1;
        al->tag = tag_of(freed_by);
        mem.used -= al->mapped;
    } else {
        sl->queued = 0;
        sl->views++;
        sl->state = SLOT_ZOMBIE;
        sl->tag = (uint8_t)tag_of(freed_by);
        mem.used -= round_up(sl->size, mem.page);
    }
    d->addr = addr;
    d->generation = mem.generation;
    pthread_mutex_unlock(&mem.lock);
    atomic_init(&d->left, (int)n + 1);
    for (unsigned int j = 0; j < n; j++)
        if (pyemu_cmd_on_complete(cmds[j], pending_done, d) != PYEMU_SUCCESS)
            pending_done(NULL, 0, d);
    pending_done(NULL, 0, d);           /* the caller's hold */
ERROR:
    return status;
}

/* unmap a zombie: its views are gone (memory lock held) */
static void forget_locked(island *al, size_t i, slot *sl, slab *s, unsigned k)
{
    if (al && al->zombie)
        island_unmap(i, al->tag);
    else if (sl && sl->state == SLOT_ZOMBIE)
        slot_release(s, k, sl->tag);
}

PYEMU_API int pyemu_mem_forget(unsigned long long addr)
{
    size_t i = 0;
    unsigned k = 0;
    slab *s = NULL;
    pthread_mutex_lock(&mem.lock);
    island *al = island_at(addr, &i);
    slot *sl = al ? NULL : slot_at(addr, &s, &k);
    forget_locked(al, i, sl, s, k);
    pthread_mutex_unlock(&mem.lock);
    return PYEMU_SUCCESS;
}

PYEMU_API int pyemu_mem_view(unsigned long long addr, int delta)
{
    int status = PYEMU_SUCCESS;
    size_t i = 0;
    unsigned k = 0;
    slab *s = NULL;
    pthread_mutex_lock(&mem.lock);
    island *al = island_at(addr, &i);
    slot *sl = al ? NULL : slot_at(addr, &s, &k);
    PYEMU_FAIL_IF(!al && !(sl && (sl->state == SLOT_LIVE || sl->state == SLOT_ZOMBIE)),
                  PYEMU_E_INVALID_VALUE, "0x%llx is not the start of a device allocation", addr);
    unsigned *views = al ? &al->views : &sl->views;
    PYEMU_FAIL_IF(delta < 0 && *views < (unsigned)-delta, PYEMU_E_INVALID_VALUE,
                  "0x%llx has %u host views, not %d", addr, *views, -delta);
    *views += delta;
    if (*views == 0)
        forget_locked(al, i, sl, s, k);
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

PYEMU_API unsigned long long pyemu_mem_live(void)
{
    pthread_mutex_lock(&mem.lock);
    unsigned long long n = mem.live;
    pthread_mutex_unlock(&mem.lock);
    return n;
}

/* pyemu_device_reset's: everything; what host views read is kept mapped */
PYEMU_API int pyemu_mem_free_all(void)
{
    pthread_mutex_lock(&mem.lock);
    int tag = tag_of("cudaDeviceReset");   /* the one caller of pyemu_device_reset */
    for (size_t i = mem.n; i-- > 0;)
        if (!mem.isl[i].zombie)
            free_locked(mem.isl[i].start, tag, 0, 1);  /* viewed: kept mapped */
    for (size_t w = 0; w < mem.nslabs; w++)
        for (unsigned k = 0; k < mem.slabs[w].nslots; k++)
            if (mem.slabs[w].slots[k].state == SLOT_LIVE)
                free_locked(mem.slabs[w].slots[k].start, tag, 0, 1);
    mem.live = 0;
    __atomic_add_fetch(&mem.generation, 1, __ATOMIC_RELEASE);
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

/* the live allocation holding addr: its start and size, and where its
 * guaranteed faulting guards begin (below) and end (above); 1 if found, 0
 * if none, -1 if its cudaFreeAsync is queued (it belongs to nobody) */
static int find_locked(uintptr_t addr, uintptr_t *start, size_t *size, uintptr_t *lo,
                       uintptr_t *hi)
{
    unsigned k;
    slab *s = slab_of(addr, &k);
    if (s) {
        const slot *sl = &s->slots[k];
        if (sl->state != SLOT_LIVE || addr < sl->start || addr >= sl->start + sl->size)
            return 0;
        if (sl->queued)
            return -1;
        *start = sl->start;
        *size = sl->size;
        /* the class's leading pages it does not use fault too (with guards) */
        *lo = mem.guards ? (sl->start & ~(uintptr_t)(mem.page - 1)) - SLOT_BEFORE_PAGES * mem.page
                         : slot_data(s, k) - SLOT_BEFORE_PAGES * mem.page;
        *hi = sl->start + round_up(sl->size, PYEMU_ALIGN) + SLOT_AFTER_PAGES * mem.page;
        return 1;
    }
    size_t i = lower_bound(addr);
    if (i >= mem.n || mem.isl[i].zombie || addr < mem.isl[i].start ||
        addr >= mem.isl[i].start + mem.isl[i].size)
        return 0;
    if (mem.isl[i].queued)
        return -1;
    *start = mem.isl[i].start;
    *size = mem.isl[i].size;
    *lo = mem.isl[i].map - mem.gb;
    *hi = mem.isl[i].map + mem.isl[i].mapped + mem.ga;
    return 1;
}

PYEMU_API int pyemu_mem_find(unsigned long long addr, unsigned long long *start,
                             unsigned long long *size)
{
    int status = PYEMU_SUCCESS;
    uintptr_t st, lo, hi;
    size_t sz;
    pthread_mutex_lock(&mem.lock);
    int found = find_locked(addr, &st, &sz, &lo, &hi);
    PYEMU_FAIL_IF(found < 0, PYEMU_E_INVALID_VALUE,
                  "0x%llx is in an allocation that a cudaFreeAsync still queued frees", addr);
    PYEMU_FAIL_IF(!found, PYEMU_E_INVALID_VALUE, "0x%llx is not inside a device allocation", addr);
    *start = st;
    *size = sz;
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

PYEMU_API int pyemu_mem_guard(unsigned long long addr, unsigned long long *before,
                              unsigned long long *after, int *packed)
{
    int status = PYEMU_SUCCESS;
    uintptr_t st, lo, hi;
    size_t sz;
    unsigned k;
    pthread_mutex_lock(&mem.lock);
    PYEMU_FAIL_IF(find_locked(addr, &st, &sz, &lo, &hi) <= 0, PYEMU_E_INVALID_VALUE,
                  "0x%llx is not inside a device allocation", addr);
    *before = (st & ~(uintptr_t)(mem.page - 1)) - lo;
    *after = hi - (st + round_up(sz, PYEMU_ALIGN));
    *packed = slab_of(addr, &k) != NULL ? 1 + !mem.guards : 0;
ERROR:
    pthread_mutex_unlock(&mem.lock);
    return status;
}

/* ---- what a faulting address was near ---- */

/* "12 bytes past the end of the 4096-byte allocation at 0x...", and for a
 * freed one "use after free: ..., freed by cudaFree" */
static void say(char *buf, size_t len, uintptr_t addr, uintptr_t start, size_t size, int tag)
{
    const char *pre = tag >= 0 ? "use after free: " : "";
    char post[48] = "";
    if (tag >= 0)
        snprintf(post, sizeof post, ", freed by %s", mem.tags[tag]);
    if (addr < start)
        snprintf(buf, len, "%s%llu bytes before the %zu-byte allocation at 0x%llx%s", pre,
                 (unsigned long long)(start - addr), size, (unsigned long long)start, post);
    else if (addr >= start + size)
        snprintf(buf, len, "%s%llu bytes past the end of the %zu-byte allocation at 0x%llx%s",
                 pre, (unsigned long long)(addr - (start + size)), size,
                 (unsigned long long)start, post);
    else if (tag >= 0)
        snprintf(buf, len, "use after free: byte %llu of the %zu-byte allocation at 0x%llx%s",
                 (unsigned long long)(addr - start), size, (unsigned long long)start, post);
    else
        snprintf(buf, len, "inside the %zu-byte allocation at 0x%llx", size,
                 (unsigned long long)start);
}

static int say_slot(char *buf, size_t len, uintptr_t addr, const slot *sl)
{
    if (sl->state == SLOT_EMPTY)
        return 0;
    say(buf, len, addr, sl->start, sl->size, sl->state == SLOT_LIVE ? -1 : sl->tag);
    return 1;
}

/* an address in the slab windows: its slot's zones first, then a neighbour's */
static int describe_slab(uintptr_t addr, char *buf, size_t len)
{
    if (addr < mem.isl_end)
        return 0;
    size_t w = (addr - mem.isl_end) / mem.window;
    if (w >= mem.nslabs)
        return 0;
    const slab *s = &mem.slabs[w];
    size_t off = addr - s->map, before = SLOT_BEFORE_PAGES * mem.page;
    unsigned k = off / s->stride < s->nslots ? (unsigned)(off / s->stride) : s->nslots - 1;
    size_t r = off - k * s->stride;
    if (say_slot(buf, len, addr, &s->slots[k]))
        return 1;
    if (r < before && k > 0)
        return say_slot(buf, len, addr, &s->slots[k - 1]);
    if (r >= before && k + 1 < s->nslots)
        return say_slot(buf, len, addr, &s->slots[k + 1]);
    return 0;
}

/* an island, a freed island, or their guards: in that order */
static int describe_island(uintptr_t addr, char *buf, size_t len)
{
    size_t i = lower_bound(addr);
    const island *next = i < mem.n ? &mem.isl[i] : NULL;
    const island *prev = i > 0 ? &mem.isl[i - 1] : NULL;
    if (next && addr >= next->map) {
        say(buf, len, addr, next->start, next->size, next->zombie ? next->tag : -1);
        return 1;
    }
    for (size_t j = 1; j <= mem.hist_n; j++) {  /* newest first */
        const island *h = &mem.hist[(mem.hist_next + HISTORY - j) % HISTORY];
        if (addr >= h->map && addr < h->map + h->mapped) {
            say(buf, len, addr, h->start, h->size, h->tag);
            return 1;
        }
    }
    if (prev && addr - (prev->map + prev->mapped) < mem.ga) {
        say(buf, len, addr, prev->start, prev->size, prev->zombie ? prev->tag : -1);
        return 1;
    }
    if (next && next->map - addr <= mem.gb) {
        say(buf, len, addr, next->start, next->size, next->zombie ? next->tag : -1);
        return 1;
    }
    for (size_t j = 1; j <= mem.hist_n; j++) {
        const island *h = &mem.hist[(mem.hist_next + HISTORY - j) % HISTORY];
        if ((addr >= h->map + h->mapped && addr - (h->map + h->mapped) < mem.ga) ||
            (addr < h->map && h->map - addr <= mem.gb)) {
            say(buf, len, addr, h->start, h->size, h->tag);
            return 1;
        }
    }
    /* beyond every guarantee: the nearer live neighbour */
    if (prev && (!next || addr - (prev->map + prev->mapped) < next->map - addr))
        next = prev;
    if (!next)
        return 0;
    say(buf, len, addr, next->start, next->size, next->zombie ? next->tag : -1);
    return 1;
}

int pyemu_hostreg_describe(uintptr_t addr, char *buf, size_t len); /* hostreg.c */

void pyemu_mem_describe(uintptr_t addr, char *buf, size_t len)
{
    pthread_mutex_lock(&mem.lock);
    if (!pyemu_mem_in_region(addr) && pyemu_hostreg_describe(addr, buf, len))
        ; /* near host memory registered for kernels (hostreg.c) */
    else if (!pyemu_mem_in_region(addr))
        snprintf(buf, len, "outside device memory");
    else if (!describe_slab(addr, buf, len) && !describe_island(addr, buf, len))
        snprintf(buf, len, "%s", mem.live == 0 ? "no device memory is allocated"
                                               : "not near any device allocation");
    pthread_mutex_unlock(&mem.lock);
}
