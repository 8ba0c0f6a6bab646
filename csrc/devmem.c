/* devmem.c - which virtual device owns which allocation, and peer access.
 *
 * With PYEMU_DEVICE_COUNT > 1 (pyemu/cuda/devices.py) every cudaMalloc range
 * is noted here with its device, and cudaDeviceEnablePeerAccess sets a bit.
 * A launch (engine.c) whose pointer argument lies in another device's
 * allocation without peer access fails as the kernel's access would on a GPU:
 * cudaErrorIllegalAddress, sticky, reported at the next synchronisation.
 * pyemu checks the pointer arguments only (a pointer read from memory inside
 * the kernel is not followed).  Nothing is noted with one device.
 * The ranges are kept sorted by start, so that a launch's look-up costs
 * O(log n) whatever the number of live allocations.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uintptr_t start, size; int device; } owned;

/* lock held: the index of the last range starting at or below addr, or -1 */
static int floor_of(const owned *r, int n, uintptr_t addr);

static struct {
    pthread_mutex_t lock;
    owned *r;
    int n, cap;
    uint64_t peer[PYEMU_MAX_DEVICES];   /* peer[d] bit p: d may access p's memory */
} dm = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, {0}};

atomic_int pyemu_devmem_active;        /* any allocation noted: launches look here */

PYEMU_API int pyemu_devmem_add(unsigned long long addr, unsigned long long size, int device)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(device < 0 || device >= PYEMU_MAX_DEVICES, PYEMU_E_INVALID_VALUE,
                  "device %d out of range", device);
    pthread_mutex_lock(&dm.lock);
    if (dm.n == dm.cap) {
        int cap = dm.cap ? 2 * dm.cap : 64;
        owned *p = realloc(dm.r, (size_t)cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&dm.lock);
            PYEMU_FAIL_IF(1, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
        }
        dm.r = p;
        dm.cap = cap;
    }
    int at = floor_of(dm.r, dm.n, (uintptr_t)addr) + 1;   /* keep them sorted */
    memmove(&dm.r[at + 1], &dm.r[at], (size_t)(dm.n - at) * sizeof *dm.r);
    dm.r[at] = (owned){(uintptr_t)addr, (uintptr_t)(size ? size : 1), device};
    dm.n++;
    atomic_store(&pyemu_devmem_active, 1);
    pthread_mutex_unlock(&dm.lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_devmem_remove(unsigned long long addr)
{
    pthread_mutex_lock(&dm.lock);
    int i = floor_of(dm.r, dm.n, (uintptr_t)addr);
    if (i >= 0 && dm.r[i].start == addr) {
        memmove(&dm.r[i], &dm.r[i + 1], (size_t)(dm.n - i - 1) * sizeof *dm.r);
        dm.n--;
    }
    pthread_mutex_unlock(&dm.lock);
    return PYEMU_SUCCESS;
}

/* cudaDeviceReset: every allocation is gone, and peer access with it */
PYEMU_API int pyemu_devmem_clear(void)
{
    pthread_mutex_lock(&dm.lock);
    dm.n = 0;
    for (int d = 0; d < PYEMU_MAX_DEVICES; d++)
        dm.peer[d] = 0;
    pthread_mutex_unlock(&dm.lock);
    return PYEMU_SUCCESS;
}

PYEMU_API int pyemu_devmem_peer(int device, int peer, int on)
{
    int status = PYEMU_SUCCESS;
    PYEMU_FAIL_IF(device < 0 || device >= PYEMU_MAX_DEVICES || peer < 0 ||
                      peer >= PYEMU_MAX_DEVICES,
                  PYEMU_E_INVALID_VALUE, "device %d or %d out of range", device, peer);
    pthread_mutex_lock(&dm.lock);
    if (on)
        dm.peer[device] |= 1ull << peer;
    else
        dm.peer[device] &= ~(1ull << peer);
    pthread_mutex_unlock(&dm.lock);
ERROR:
    return status;
}

/* The device owning addr when a kernel of `device` may not access it (no
 * peer access), else -1. */
int pyemu_devmem_forbidden(uintptr_t addr, int device)
{
    int owner = -1;
    pthread_mutex_lock(&dm.lock);
    int i = floor_of(dm.r, dm.n, addr);
    if (i >= 0 && addr - dm.r[i].start < dm.r[i].size) {
        int d = dm.r[i].device;
        if (d != device && !(dm.peer[device] >> d & 1))
            owner = d;
    }
    pthread_mutex_unlock(&dm.lock);
    return owner;
}

static int floor_of(const owned *r, int n, uintptr_t addr)
{
    int lo = 0, hi = n; /* the answer is lo - 1 once lo == hi */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}
