/* device.c - start-up, the per-thread error sentence, the clock. */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static __thread char last_error[1024];
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;

void pyemu_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

PYEMU_API const char *pyemu_last_error(void) { return last_error; }

uint64_t pyemu_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

PYEMU_API unsigned long long pyemu_now_ns(void) { return pyemu_clock_ns(); }

PYEMU_API int pyemu_init(int num_workers, size_t stack_size, unsigned long long device_memory)
{
    int status = PYEMU_SUCCESS;
    pthread_mutex_lock(&init_lock);
    if (initialized)
        goto ERROR;
    PYEMU_FAIL_IF(stack_size && stack_size < 16384, PYEMU_E_INVALID_VALUE,
                  "a fiber stack of %zu bytes is too small (16384 at least)", stack_size);
    status = pyemu_mem_init(device_memory);
    if (status)
        goto ERROR;
    PYEMU_FAIL_IF(pyemu_fault_install() != 0, PYEMU_E_SYSTEM, "cannot install fault handlers");
    status = pyemu_pool_start(num_workers, stack_size);
    if (status)
        goto ERROR;
    initialized = 1;
ERROR:
    pthread_mutex_unlock(&init_lock);
    return status;
}

PYEMU_API int pyemu_num_workers(void) { return pyemu_pool_size(); }
