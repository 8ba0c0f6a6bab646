/* core.h - what the core's files share: handles, the worker, the validation idiom. */
#ifndef PYEMU_CORE_INTERNAL_H
#define PYEMU_CORE_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#undef _FORTIFY_SOURCE /* we longjmp from fiber stacks back to the worker's own */

#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pyemu_core.h"
#define PYEMU_CORE 1
#include "../include/pyemu/abi.h"

#define PYEMU_API __attribute__((visibility("default")))

/* ---- the validation idiom: check, say why, jump to the one cleanup label ---- */
void pyemu_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define PYEMU_FAIL_IF(cond, code, ...)            \
    do {                                          \
        if (cond) {                               \
            status = (code);                      \
            pyemu_set_error(__VA_ARGS__);         \
            goto ERROR;                           \
        }                                         \
    } while (0)

/* ---- handles carry a magic number checked on every call ---- */
#define PYEMU_MAGIC_MODULE 0x4d4f444cu /* MODL */
#define PYEMU_MAGIC_QUEUE 0x51554555u  /* QUEU */
#define PYEMU_MAGIC_CMD 0x434d4421u    /* CMD! */
#define PYEMU_MAGIC_DEAD 0xdeaddeadu

#define PYEMU_MODULE_TEXTS 4
struct pyemu_module {
    uint32_t magic;
    atomic_int refs;
    void *handle;
    const pyemu_module_info *info;
    /* its executable segments, known to the fault handler while it is loaded */
    uintptr_t text_lo[PYEMU_MODULE_TEXTS], text_hi[PYEMU_MODULE_TEXTS];
    int ntext;
};

enum { CMD_KERNEL = 1, CMD_COPY, CMD_FILL, CMD_MARKER, CMD_USER, CMD_COPY_RECT,
       CMD_FILL_RECT };

typedef struct pyemu_cmd_callback {
    pyemu_callback fn;
    void *data;
} pyemu_cmd_callback;

struct pyemu_cmd {
    uint32_t magic;
    atomic_int refs;
    int type;
    struct pyemu_queue *queue;  /* holds a reference until the command completes (then NULL) */
    int dev;                    /* the device of its queue (0 for user events) */
    uint64_t seq;               /* enqueue order, for printf output */
    volatile int status;        /* PYEMU_CMD_* or -PYEMU_E_* */
    int pending;                /* commands it still waits for */
    int dep_failed;
    int barrier;                /* out-of-order queues: later commands wait for it */
    unsigned long long tag;     /* a marker recording an event (pyemu_enqueue_record): its tag */
    struct pyemu_cmd **succ;    /* commands that wait for this one */
    int nsucc, capsucc;
    uint64_t t_queued, t_submit, t_start, t_end;

    /* the work: nitems items, handed out to workers in chunks */
    uint64_t nitems;
    uint64_t chunk;
    _Atomic uint64_t next;
    _Atomic uint64_t retired;
    atomic_int abort;
    atomic_int started;
    struct pyemu_cmd *run_next; /* the pool's run list */

    union {
        struct {
            pyemu_module *module;
            const pyemu_kernel_desc *desc;
            pyemu_uint3 grid, block, offset;
            unsigned int work_dim, dyn_smem;
            unsigned int cooperative;   /* PYEMU_LAUNCH_COOPERATIVE given (grid.c) */
            void *args;
            unsigned int *local_args;   /* (offset, size) pairs, see pyemu_launch */
            unsigned int num_local;
        } k;
        struct {
            char *dst;
            const char *src;
            size_t size;
        } copy;
        struct {
            char *dst;
            size_t size;
            size_t pattern_size;
            unsigned char pattern[128];
        } fill;
        struct {                /* CMD_FREE (cudaFreeAsync) */
            unsigned long long addr;
            int keep;               /* host views: keep the pages mapped */
            struct pyemu_cmd **after;   /* other queues' newest commands when enqueued (held) */
            unsigned int nafter;
            unsigned generation;        /* the memory's (pyemu_mem_generation) when queued */
            int queued;                 /* the allocation is marked queued, the free not run */
        } free;
        struct {                /* CMD_COPY_RECT and CMD_FILL_RECT (no src) */
            char *dst;
            const char *src;
            size_t dst_row, dst_slice, src_row, src_slice;
            size_t width, height, depth;
            size_t rows;        /* rows an item copies; items_z items a slice */
            uint64_t items_z;
            size_t pattern_size;
            unsigned char pattern[128];
        } rect;
    } u;

    /* buffers it uses (buffer.c): one reference each, dropped when it completes */
    struct pyemu_buffer **bufs;
    unsigned int nbufs;
    struct pyemu_buffer *bufs_inline[4];

    int err_code;               /* PYEMU_E_* of the failure, 0 if none */
    char *err_msg;
    int user_status;            /* a user event's negative status */
    struct pyemu_cmd *user_next; /* user events not set yet (engine.c: a reset fails them) */
    pyemu_cmd_callback *callbacks;  /* run once it is complete */
    int ncallbacks;

    char *out;                  /* device printf output */
    size_t out_len, out_cap;
};

struct pyemu_queue {
    uint32_t magic;
    atomic_int refs;
    int flags;
    struct pyemu_cmd *last;     /* in-order: the newest command (referenced) */
    struct pyemu_cmd *last_barrier;
    int outstanding;            /* enqueued, not complete */
    struct pyemu_queue *next_q; /* the engine's list of queues */
};

/* ---- fibers (csrc/fiber.c) ---- */
typedef struct pyemu_fiber {
    void *sp;
    pyemu_uint3 tid;
} pyemu_fiber;

void pyemu_ctx_switch(void **save_sp, void *next_sp);
void *pyemu_fiber_prepare(void *stack_top, void (*entry)(void *), void *arg);

/* ---- one worker thread = one streaming multiprocessor ---- */
#define PYEMU_HEAP_CLASSES 21   /* device malloc size classes: 2^k bytes, k < 21 */
typedef struct pyemu_worker {
    int index;
    pthread_t thread;
    /* the block being run */
    pyemu_cmd *cmd;
    const pyemu_kernel_desc *desc;
    const void *args;
    unsigned int nthreads;
    int fiber_mode;
    unsigned int cur;           /* fiber mode: the thread that runs */
    unsigned int arrived, exited;
    const char *site;           /* the barrier the arrived threads wait at */
    int reduce_op, reduce_acc, reduce_result;
    pyemu_fiber *fibers;        /* [PYEMU_MAX_THREADS_PER_BLOCK] */
    char *stacks;               /* fiber stacks, one per thread but thread 0 */
    size_t stack_stride;        /* guard page + stack */
    unsigned int stacks_ready;  /* stacks with their guard page set up */
    int stack_guards;           /* guard pages by MADV_GUARD_INSTALL (one mapping), else mprotect */
    char *dyn_smem;             /* dynamic shared memory of the block */
    char *dyn_smem_end;         /* its guard page: the launch's part ends flush with it */
    size_t smem_guard;          /* reserved, inaccessible bytes on either side of it */
    char *dyn_smem_lo;          /* where this launch's part starts */
    unsigned char *argbuf;      /* the arguments, with local pointers patched in */
    size_t argbuf_cap;
    /* device printf: text of this worker's current chunk, committed to the
     * command when the chunk ends (kprintf.c), so a fault mid-printf loses
     * only the unfinished call and leaves no lock held */
    char *pbuf;
    size_t plen, pcap;
    /* device malloc: this worker's arena of the device heap (devheap.c) */
    void *heap_free[PYEMU_HEAP_CLASSES];    /* free blocks by size class */
    char *heap_bump, *heap_end;             /* the span being carved */
    int heap_used;                          /* malloc/free ran since the last flush */
    /* fault capture: in_kernel while kernel code (not a copy or fill) runs;
     * in_libc while the core calls lock-free libc for the kernel (vsnprintf);
     * in_heap while this worker's arena is being changed */
    volatile int in_kernel;
    volatile int in_libc;
    volatile int in_heap;
    sigjmp_buf recover;
    volatile int fault_sig;
    void *volatile fault_addr;
    pyemu_uint3 fault_tid, fault_bid;
    void *altstack;
    uintptr_t stack_lo;         /* the worker's own stack (thread 0 runs there) */
    /* stopping a kernel (watchdog.c): what the worker runs, read by the
     * watchdog without a lock (the seq, never the command itself) */
    volatile uint64_t run_seq;  /* seq of the kernel command it runs; 0: none */
    volatile uint64_t run_since;/* when it took that command (pyemu_clock_ns) */
    volatile uint64_t stop_seq; /* stop that kernel command (if still the one it runs) */
    volatile int stop_code;     /* PYEMU_E_* the stopped command fails with */
} __attribute__((aligned(64))) pyemu_worker;

extern __thread pyemu_worker *pyemu_self;  /* the worker this thread is, or NULL */

/* ---- the pool (csrc/pool.c) ---- */
int pyemu_pool_start(int nworkers, size_t stack_size);
void pyemu_pool_submit(pyemu_cmd *cmd);     /* engine lock held */
int pyemu_pool_size(void);
pyemu_worker *pyemu_pool_worker(int index);
size_t pyemu_pool_stack_size(void);
/* the copy engine's thread, while it copies: it stays on core `cpu` and the
 * workers that keep running beside it stay off it (-1: all of them back on
 * every core); 0 when it placed them */
int pyemu_pool_place_copy_engine(int cpu);
int pyemu_pool_last_cpu(void);              /* the process's last core (-1: none known) */

/* ---- the copy engine (csrc/copyengine.c) ---- */
/* copies of this size or more go to the copy engine, written with
 * non-temporal stores (engine.c: make_ready, copy_slice) */
#define PYEMU_NT_COPY_MIN (1u << 20)
/* a worker between two chunks: step aside while a large copy needs the core */
int pyemu_copyengine_busy(int index, int keep);
void pyemu_copyengine_wait(void);
/* idle workers help the copy engine's copy of several slices (copyengine.c) */
int pyemu_copyengine_helpable(int index, int keep);   /* without a lock */
pyemu_cmd *pyemu_copyengine_take(void);               /* a reference, or NULL */
void pyemu_pool_wake_helpers(void);                    /* pool.c */

/* ---- blocks (csrc/block.c) ---- */
void pyemu_run_block(pyemu_worker *w, uint64_t linear);
void pyemu_block_rerun_precise(pyemu_worker *w, uint64_t linear); /* after a fault */
/* every lane's result of warp collective op over the lanes m (warp.c) */
const char *pyemu_warp_name(int op);
void pyemu_warp_lanes_text(unsigned int m, char *buf, size_t len);
void pyemu_warp_compute(int op, unsigned int width, unsigned int m,
                        const unsigned long long *val, const int *arg, unsigned long long *out);
void pyemu_kernel_fail(pyemu_worker *w, int code, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* ---- commands (csrc/engine.c) ---- */
void pyemu_cmd_fail(pyemu_cmd *cmd, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pyemu_cmd_complete(pyemu_cmd *cmd);     /* the last item retired */
void pyemu_run_item(pyemu_worker *w, pyemu_cmd *cmd, uint64_t item);

/* ---- memory (csrc/memory.c) ---- */
int pyemu_mem_init(unsigned long long device_memory);
int pyemu_mem_tag(const char *freed_by);    /* the index that names a freeing call */
unsigned pyemu_mem_generation(void);        /* device resets so far */
/* cudaFreeAsync with other queues' earlier work pending: freed now, pages kept till cmds end */
int pyemu_mem_free_pending(unsigned long long addr, const char *freed_by, pyemu_cmd **cmds,
                           unsigned int n);
int pyemu_mem_free_tagged(unsigned long long addr, int tag, unsigned generation);
/* cudaFreeAsync's queued state (engine.c: pyemu_enqueue_free, CMD_FREE) */
int pyemu_mem_queue_free(unsigned long long addr);
void pyemu_mem_unqueue_free(unsigned long long addr, unsigned generation);
int pyemu_mem_free_queued(unsigned long long addr, int keep, const char *freed_by);

/* ---- buffers (csrc/buffer.c) ---- */
void pyemu_buffer_ref(pyemu_buffer *b);
void pyemu_buffer_unref(pyemu_buffer *b);   /* the last reference frees */
int pyemu_buffer_valid(const pyemu_buffer *b);
int pyemu_mem_in_region(uintptr_t addr);
void pyemu_mem_describe(uintptr_t addr, char *buf, size_t len);

/* ---- stopping kernels (csrc/watchdog.c) ---- */
/* Sent to a worker to stop the kernel it runs; fault.c's handler jumps out
 * of kernel code to the worker's recovery point, as for a fault. */
#define PYEMU_STOP_SIGNAL (SIGRTMIN + 6)
unsigned int pyemu_watchdog_timeout_ms(void);

/* ---- the engine's sticky error (csrc/engine.c) ---- */
void pyemu_engine_poison(int code, const char *msg); /* set it, unless one is set */

/* ---- faults (csrc/fault.c) ---- */
int pyemu_fault_install(void);
int pyemu_fault_worker_init(pyemu_worker *w);
void pyemu_fault_add_code(uintptr_t lo, uintptr_t hi);  /* a kernel module's text */
void pyemu_fault_remove_code(uintptr_t lo, uintptr_t hi);  /* ... unloaded */
void pyemu_fault_report(pyemu_worker *w);   /* after the longjmp: say what happened */
/* Fail w's command with a fault record (pyemu_fault_info): detail is a
 * printf format whose terms are written "\x01" and a letter (PYEMU_T_*). */
void pyemu_fault_fail(pyemu_worker *w, int code, int kind, pyemu_uint3 bid, pyemu_uint3 tid,
                      uintptr_t addr, const char *where, const char *site, const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));
void pyemu_fault_vfail(pyemu_worker *w, int code, int kind, pyemu_uint3 bid, pyemu_uint3 tid,
                       uintptr_t addr, const char *where, const char *site, const char *fmt,
                       va_list ap);
#define PYEMU_T_BLOCK "\x01" "b"
#define PYEMU_T_THREAD "\x01" "t"
#define PYEMU_T_THREADS "\x01" "T"
#define PYEMU_T_SYNC "\x01" "s"
#define PYEMU_T_DSMEM "\x01" "d"
/* warps: OpenCL says sub-group, sub-group local id, "a sub-group function"
 * for the collective's CUDA name that follows PYEMU_T_OP (up to a space or
 * ','), and drops what follows PYEMU_T_CUDA up to its ')' (a mask) */
#define PYEMU_T_WARP "\x01" "w"
#define PYEMU_T_LANE "\x01" "l"
#define PYEMU_T_LANES "\x01" "L"
#define PYEMU_T_RULE "\x01" "r"    /* every lane ... must reach the same collective */
#define PYEMU_T_OP "\x01" "o"
#define PYEMU_T_CUDA "\x01" "c"

/* ---- printf (csrc/kprintf.c) ---- */
void pyemu_printf_collect(pyemu_cmd *cmd);  /* engine lock held */
void pyemu_printf_reset(void);
void pyemu_printf_commit(pyemu_worker *w);  /* the worker's text joins its command */

/* ---- device malloc (csrc/devheap.c) ---- */
void pyemu_heap_recover(pyemu_worker *w);   /* after a fault inside the arena */
void pyemu_heap_flush(pyemu_worker *w);     /* between chunks: free blocks to all */

/* Functions a kernel calls into (barriers, printf, device malloc) live in
 * their own section: a fault there is the kernel's (fault.c). */
#define PYEMU_KSUPPORT __attribute__((section("pyemu_ksupport")))

uint64_t pyemu_clock_ns(void);
void pyemu_fmt_dim(char *buf, size_t len, pyemu_uint3 v);

#endif
