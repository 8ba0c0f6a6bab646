/* pyemu_core.h - the core's API for the Python layer (also the cffi cdef).
 *
 * Keep this file parseable by cffi: plain declarations, integer #defines,
 * no includes, no attributes.  csrc/build_core.py feeds it to ffi.cdef().
 * Every function returns a PYEMU_* status (0 = success); on failure
 * pyemu_last_error() gives a sentence for the calling thread.
 */
#ifndef PYEMU_CORE_H
#define PYEMU_CORE_H

#define PYEMU_SUCCESS 0
#define PYEMU_E_INVALID_VALUE 1         /* a bad argument */
#define PYEMU_E_OUT_OF_MEMORY 2         /* device memory exhausted */
#define PYEMU_E_INVALID_HANDLE 3        /* a stale or forged handle */
#define PYEMU_E_NOT_READY 4             /* the command has not finished */
#define PYEMU_E_BLOCK_TOO_LARGE 5       /* more threads a block than the device allows */
#define PYEMU_E_BAD_DIMS 6              /* a zero or too large grid/block dimension */
#define PYEMU_E_SMEM_TOO_LARGE 7        /* more shared memory than a block may have */
#define PYEMU_E_SYSTEM 8                /* the OS refused (threads, mmap) */
#define PYEMU_E_MODULE 9                /* a kernel module could not be loaded */
#define PYEMU_E_DEP_FAILED 10           /* a command it waited for failed */
#define PYEMU_E_TIMEOUT 11              /* a wait's time limit passed; the work goes on */
#define PYEMU_E_BAD_POINTER 12          /* a kernel's pointer argument is no device memory */
/* Faults in kernel code: sticky, the device must be reset. */
#define PYEMU_E_ILLEGAL_ADDRESS 20      /* read/write outside every allocation */
#define PYEMU_E_LAUNCH_FAILURE 21       /* other fault: SIGFPE, stack overflow, trap */
#define PYEMU_E_ASSERT 22               /* a device-side assert failed */
#define PYEMU_E_BARRIER 23              /* a barrier not reached by the whole block */
#define PYEMU_E_MISALIGNED 24           /* SIGBUS */
#define PYEMU_E_ILLEGAL_INSTRUCTION 25  /* SIGILL */
#define PYEMU_E_LAUNCH_TIMEOUT 26       /* stopped by the watchdog (PYEMU_KERNEL_TIMEOUT) */

/* command status, as OpenCL numbers it; negative = failed with -PYEMU_E_* */
#define PYEMU_CMD_COMPLETE 0
#define PYEMU_CMD_RUNNING 1
#define PYEMU_CMD_SUBMITTED 2
#define PYEMU_CMD_QUEUED 3

/* queue flags */
#define PYEMU_QUEUE_OUT_OF_ORDER 1      /* commands wait only on their wait lists */
#define PYEMU_QUEUE_LEGACY_DEFAULT 2    /* CUDA's legacy default stream */
#define PYEMU_QUEUE_BLOCKING 4          /* synchronises with the legacy default stream */

/* device limits the core enforces */
#define PYEMU_MAX_THREADS_PER_BLOCK 1024
#define PYEMU_MAX_BLOCK_X 1024
#define PYEMU_MAX_BLOCK_Y 1024
#define PYEMU_MAX_BLOCK_Z 64
#define PYEMU_MAX_GRID_X 2147483647
#define PYEMU_MAX_GRID_Y 65535
#define PYEMU_MAX_GRID_Z 65535
#define PYEMU_MAX_SHARED_PER_BLOCK 49152
#define PYEMU_MAX_SHARED_OPTIN 232448
#define PYEMU_MAX_ARGS_SIZE 32764

typedef struct pyemu_module pyemu_module;
typedef struct pyemu_queue pyemu_queue;
typedef struct pyemu_cmd pyemu_cmd;

typedef struct pyemu_kernel_view {
    const char *name;
    unsigned int nparams;
    unsigned int args_size;
    unsigned int reqd_block[3];
    unsigned int max_threads;
    unsigned int static_smem;   /* bytes of static shared memory (the module's segment) */
} pyemu_kernel_view;

typedef struct pyemu_param_view {
    const char *type_name;
    unsigned int kind;
    unsigned int size;
    unsigned int align;
    unsigned int offset;
    unsigned int flags;
} pyemu_param_view;

/* start-up and shutdown */
int pyemu_init(int num_workers, size_t stack_size, unsigned long long device_memory);
int pyemu_num_workers(void);
const char *pyemu_last_error(void);

/* device memory (csrc/memory.c; its header says what faults where)
 * freed_by: the API call that frees ("cudaFree"), named by a later fault
 * through the freed pointer ("use after free ..., freed by cudaFree").
 * pyemu_mem_guard: for the live allocation holding addr, how many bytes
 * below its first page (before) and past its 256-rounded end (after) are
 * guaranteed to fault and be reported as its; packed is 0 for an allocation
 * of its own mapping, 1 for a slab slot, 2 for a slab slot whose guard
 * bytes are readable (kernels before Linux 6.13) but belong to no other. */
int pyemu_mem_alloc(size_t size, unsigned long long *addr);
int pyemu_mem_free(unsigned long long addr, const char *freed_by);
/* free (keep: keep mapped) once every command of cmds has completed; never blocks */
int pyemu_mem_free_after(unsigned long long addr, int keep, const char *freed_by,
                         pyemu_cmd **cmds, unsigned int n);
int pyemu_mem_info(unsigned long long *free_bytes, unsigned long long *total_bytes);
int pyemu_mem_find(unsigned long long addr, unsigned long long *start, unsigned long long *size);
int pyemu_mem_guard(unsigned long long addr, unsigned long long *before,
                    unsigned long long *after, int *packed);
void pyemu_mem_region(unsigned long long *start, unsigned long long *end);
int pyemu_mem_free_all(void);
int pyemu_mem_free_keep_mapped(unsigned long long addr, const char *freed_by);
int pyemu_mem_forget(unsigned long long addr);
/* whether addr is inside an allocation whose cudaFreeAsync (pyemu_enqueue_free)
 * is queued and has not run: pyemu_mem_find refuses it meanwhile */
int pyemu_mem_queued(unsigned long long addr);

/* kernel modules (csrc/module.c) */
int pyemu_module_load(const char *path, pyemu_module **module);
void pyemu_module_release(pyemu_module *module);
int pyemu_module_kernel_count(pyemu_module *module, unsigned int *count);
int pyemu_module_kernel(pyemu_module *module, unsigned int index, pyemu_kernel_view *view);
int pyemu_module_param(pyemu_module *module, unsigned int index, unsigned int param,
                       pyemu_param_view *view);

/* queues and commands (csrc/engine.c) */
int pyemu_queue_create(int flags, pyemu_queue **queue);
int pyemu_queue_release(pyemu_queue *queue);
/* The waits take a time limit in milliseconds (PYEMU_WAIT_FOREVER: none)
 * and give PYEMU_E_TIMEOUT when it passes, so that a caller can come back
 * (Python takes Ctrl-C there) and wait again.  Only the waits a completion
 * may end are woken. */
#define PYEMU_WAIT_FOREVER 4294967295
int pyemu_queue_finish(pyemu_queue *queue, unsigned int timeout_ms);
int pyemu_device_synchronize(unsigned int timeout_ms);
int pyemu_device_reset(void);
/* How many times a completion has woken a wait, since the process started
 * (a count for tests: a completion wakes only the waits it ends). */
unsigned long long pyemu_engine_wakes(void);

/* Stopping kernels (csrc/watchdog.c).  pyemu_set_kernel_timeout: a kernel
 * that runs longer than ms milliseconds (0: no limit) is stopped and fails
 * with PYEMU_E_LAUNCH_TIMEOUT, as a display GPU's watchdog does.
 * pyemu_interrupt: the host was interrupted (Ctrl-C) while waiting; every
 * running kernel is stopped and the device fails with PYEMU_E_LAUNCH_FAILURE
 * (sticky) until reset.  A kernel stops at its next instruction of kernel
 * code (not inside libc). */
int pyemu_set_kernel_timeout(unsigned int ms);
int pyemu_interrupt(void);
int pyemu_sticky_error(char *message, size_t len);

/* A kernel fault as a record (csrc/fault.c), for each facade to word in its
 * own terms.  `detail` says what happened with the terms CUDA and OpenCL
 * name differently written as "\x01" and a letter: b block, t thread,
 * T threads, s the barrier (__syncthreads()), d dynamic shared memory.
 * `text` is the message the core reported (the command's error and the
 * sticky error), in CUDA's words.  pyemu_fault_find: the newest of the
 * last faults whose text is `message` (or begins with it, for a message cut
 * short), PYEMU_E_INVALID_VALUE when none is. */
#define PYEMU_FAULT_ACCESS 1            /* an address outside every allocation (SIGSEGV) */
#define PYEMU_FAULT_MISALIGNED 2        /* SIGBUS */
#define PYEMU_FAULT_ARITHMETIC 3        /* SIGFPE: integer division by zero */
#define PYEMU_FAULT_INSTRUCTION 4       /* SIGILL */
#define PYEMU_FAULT_STACK 5             /* a thread's stack overflowed */
#define PYEMU_FAULT_SHARED 6            /* past either end of dynamic shared memory */
#define PYEMU_FAULT_TIMEOUT 7           /* stopped by the watchdog */
#define PYEMU_FAULT_INTERRUPT 8         /* stopped by Ctrl-C */
#define PYEMU_FAULT_BARRIER 9           /* a barrier only part of the block reaches */
#define PYEMU_FAULT_ASSERT 10           /* a device assert() */
#define PYEMU_FAULT_OTHER 11            /* __trap(), device malloc/free misuse */
typedef struct pyemu_fault_info {
    int code;                           /* the PYEMU_E_* the launch failed with */
    int kind;                           /* PYEMU_FAULT_* */
    int is_kernel;                      /* 0: a copy or fill command faulted */
    unsigned int block[3], thread[3];   /* blockIdx, threadIdx of the faulting thread */
    unsigned int block_dim[3];          /* blockDim (OpenCL's local size) */
    unsigned int offset[3];             /* OpenCL's global work offset (0 for CUDA) */
    unsigned long long address;         /* the address accessed (0: none) */
    char kernel[128];                   /* the kernel's name */
    char where[256];                    /* nearest allocation and offset, freeing call */
    char site[128];                     /* the barrier's file:line ("" if none) */
    char detail[768];
    char text[1024];
} pyemu_fault_info;
int pyemu_fault_find(const char *message, pyemu_fault_info *out);

/* One kernel launch, as both facades describe it: CUDA's <<<grid, block,
 * dynamic shared bytes>>> or OpenCL's NDRange (work_dim, global offset, and
 * local_args: num_local pairs of (byte offset of a __local pointer argument,
 * bytes it gets in each work-group), carved from the block's shared memory
 * after the dynamic part).  smem_limit is the dynamic shared memory the
 * kernel may ask for (0: the device's opt-in limit).  work_dim is 1 to 3
 * (0: 3, CUDA's); flags are PYEMU_LAUNCH_* bits.  A facade builds one per
 * launch configuration and reuses it. */
typedef struct pyemu_launch {
    pyemu_module *module;
    unsigned int kernel;
    unsigned int grid[3], block[3], offset[3];
    unsigned int work_dim, dyn_smem, smem_limit;
    const unsigned int *local_args;
    unsigned int num_local;
    unsigned int flags;
} pyemu_launch;

int pyemu_enqueue_kernel(pyemu_queue *queue, const pyemu_launch *launch,
                         const void *args, size_t args_size,
                         pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
int pyemu_enqueue_copy(pyemu_queue *queue, void *dst, const void *src, size_t size,
                       pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
int pyemu_enqueue_fill(pyemu_queue *queue, void *dst, const void *pattern,
                       size_t pattern_size, size_t size,
                       pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
int pyemu_enqueue_marker(pyemu_queue *queue, int barrier,
                         pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
/* cudaEventRecord: a marker (waiting for everything before it) that the
 * timeline shows as the record of event `tag` (a number > 0 the facade
 * gives each event, pyemu_trace_event.tag) */
int pyemu_enqueue_record(pyemu_queue *queue, unsigned long long tag, pyemu_cmd **event);

/* ---- reference-counted buffers (csrc/buffer.c) ----
 * A handle on one device allocation, freed when its last reference goes:
 * the owner's, each pyemu_buffer_retain's (sub-buffers, views), and each
 * command's that uses it (pyemu_enqueue_kernel_using, pyemu_cmd_use_buffers:
 * taken at enqueue, dropped when the command completes).  freed_by names
 * the owner's call ("clReleaseMemObject") for later use-after-free reports;
 * NULL for other references.  pyemu_buffer_refs: the count (tests). */
typedef struct pyemu_buffer pyemu_buffer;
int pyemu_buffer_alloc(size_t size, pyemu_buffer **buf, unsigned long long *addr);
int pyemu_buffer_wrap(unsigned long long addr, pyemu_buffer **buf);
int pyemu_buffer_retain(pyemu_buffer *buf);
int pyemu_buffer_release(pyemu_buffer *buf, const char *freed_by);
int pyemu_buffer_refs(pyemu_buffer *buf);
/* pyemu_enqueue_kernel whose command holds `bufs` until it completes */
int pyemu_enqueue_kernel_using(pyemu_queue *queue, const pyemu_launch *launch,
                               const void *args, size_t args_size,
                               pyemu_buffer **bufs, unsigned int num_bufs,
                               pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
/* as pyemu_enqueue_kernel_using, returning the event (NULL on failure:
 * pyemu_enqueue_status() of the same thread, and pyemu_last_error(), say why) */
pyemu_cmd *pyemu_enqueue_kernel_event(pyemu_queue *queue, const pyemu_launch *launch,
                                      const void *args, size_t args_size,
                                      pyemu_buffer **bufs, unsigned int num_bufs,
                                      pyemu_cmd **wait_list, unsigned int num_wait);
int pyemu_enqueue_status(void);
/* A launch bound to its queue and its argument bytes: what an OpenCL enqueue
 * of a kernel object hands the core while nothing it names has changed (the
 * queue, the arguments set, the work sizes), built once and passed as one
 * pointer.  pyemu_enqueue_bound is pyemu_enqueue_kernel_event of its fields
 * with no wait list; when it succeeds it also releases `release` (a command
 * reference of the caller's, or NULL): the event object the caller recycles
 * for the new command lets go of its old one in the same call. */
typedef struct pyemu_bound_launch {
    pyemu_queue *queue;
    const pyemu_launch *launch;
    const void *args;
    size_t args_size;
    pyemu_buffer **bufs;
    unsigned int num_bufs;
} pyemu_bound_launch;
pyemu_cmd *pyemu_enqueue_bound(const pyemu_bound_launch *bound, pyemu_cmd *release);
/* cmd (just enqueued) holds `bufs` until it completes; nothing if it has */
int pyemu_cmd_use_buffers(pyemu_cmd *cmd, pyemu_buffer **bufs, unsigned int num_bufs);
/* host views of the allocation at addr (+1 / -1): while any lives, a free
 * keeps its pages mapped (zeros); the last view of a freed one unmaps it */
int pyemu_mem_view(unsigned long long addr, int delta);
unsigned long long pyemu_mem_live(void);    /* live allocations */

/* ---- rectangular copies and fills (csrc/engine.c) ----
 * depth slices of height rows of width bytes; row r of slice z starts at
 * base + z * slice_pitch + r * row_pitch, on each side.  The caller has
 * checked that every byte lies in memory it may touch: a fault in a copy is
 * the host's bug, never a device fault. */
int pyemu_enqueue_copy_rect(pyemu_queue *queue, void *dst, size_t dst_row_pitch,
                            size_t dst_slice_pitch, const void *src, size_t src_row_pitch,
                            size_t src_slice_pitch, size_t width, size_t height, size_t depth,
                            pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
int pyemu_enqueue_fill_rect(pyemu_queue *queue, void *dst, size_t row_pitch, size_t slice_pitch,
                            const void *pattern, size_t pattern_size, size_t width,
                            size_t height, size_t depth,
                            pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);

/* user events (OpenCL clCreateUserEvent): not in a queue; complete when set.
 * status 0 completes it, a negative status fails it (and what waits on it). */
int pyemu_user_event_create(pyemu_cmd **event);
int pyemu_user_event_set(pyemu_cmd *event, int status);
/* a device reset: every user event not set yet fails, and what waits for it */
int pyemu_user_events_fail_unset(void);
/* fn(cmd, status, data) once cmd is complete (status 0) or failed (negative),
 * on whichever thread completes it, never under the engine's lock; at once if
 * it already is. */
typedef void (*pyemu_callback)(pyemu_cmd *cmd, int status, void *data);
int pyemu_cmd_on_complete(pyemu_cmd *cmd, pyemu_callback fn, void *data);

int pyemu_cmd_wait(pyemu_cmd *cmd, unsigned int timeout_ms);
int pyemu_cmd_status(pyemu_cmd *cmd);
int pyemu_cmd_error(pyemu_cmd *cmd, char *message, size_t len);
int pyemu_cmd_times(pyemu_cmd *cmd, unsigned long long *queued, unsigned long long *submit,
                    unsigned long long *start, unsigned long long *end);
int pyemu_cmd_retain(pyemu_cmd *cmd);
int pyemu_cmd_release(pyemu_cmd *cmd);
unsigned long long pyemu_now_ns(void);

/* device printf output, in launch order (csrc/kprintf.c) */
size_t pyemu_printf_pending(void);
size_t pyemu_printf_take(char *buf, size_t cap);

/* the device malloc heap, cudaLimitMallocHeapSize (csrc/devheap.c): its size
 * can be set only before the first kernel that calls malloc() */
int pyemu_heap_set_size(size_t size);
size_t pyemu_heap_size(void);

/* host functions (cudaLaunchHostFunc, cudaStreamAddCallback; csrc/engine.c).
 * pyemu_enqueue_host: a command that, once what it waits for is done, is
 * handed to a host thread with its tag; pyemu_host_next blocks until one is
 * (PYEMU_E_TIMEOUT after timeout_ms) and returns a referenced command, and
 * as status 0 or the failure that the function should be told of;
 * pyemu_host_done completes it and drops that reference.  Never a worker. */
int pyemu_enqueue_host(pyemu_queue *queue, unsigned long long tag,
                       pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);
int pyemu_host_next(unsigned int timeout_ms, unsigned long long *tag, pyemu_cmd **cmd);
int pyemu_host_done(pyemu_cmd *cmd);

/* cudaFreeAsync (csrc/engine.c): free the allocation at addr (keep: keep
 * its pages mapped for host views) when the queue reaches this command */
int pyemu_enqueue_free(pyemu_queue *queue, unsigned long long addr, int keep,
                       pyemu_cmd **wait_list, unsigned int num_wait, pyemu_cmd **event);

/* the timeline (csrc/trace.c, PYEMU_TRACE): while enabled, every completed
 * command is an event and the items workers run are spans (consecutive
 * items of one command on one worker merged).  The take functions move up to
 * cap records out (buf NULL: count them only).  type: 1 kernel, 2 copy,
 * 3 fill, 4 marker, 5 user event, 64 host function; status as pyemu_cmd_status. */
typedef struct pyemu_trace_event {
    unsigned long long queue, seq;
    unsigned long long t_queued, t_submit, t_start, t_end;
    int type, status;
    unsigned long long items, bytes, src, dst;
    unsigned int grid[3], block[3];
    char name[64];
    unsigned long long tag;     /* a marker that records an event: the event's tag, else 0 */
} pyemu_trace_event;
typedef struct pyemu_trace_span {
    unsigned long long seq;
    int worker;
    unsigned long long t_begin, t_end, items;
} pyemu_trace_span;
int pyemu_trace_enable(int on);
size_t pyemu_trace_take_events(pyemu_trace_event *buf, size_t cap);
size_t pyemu_trace_take_spans(pyemu_trace_span *buf, size_t cap);
/* file-scope __device__ and __constant__ variables of a kernel module
 * (csrc/symbols.c), read from its ELF symbol table at load.  name is the
 * symbol table's (mangled for C++ namespaces, templates and statics); addr
 * is where the module's code reads the variable (host memory).  A module
 * whose __constant__ variables take over 64 KiB is not loaded. */
#define PYEMU_SYM_CONSTANT 1            /* declared __constant__ */
#define PYEMU_SYM_READONLY 2            /* in read-only memory (a const variable) */
#define PYEMU_SYM_LOCAL 4               /* internal linkage (static) */
typedef struct pyemu_symbol_view {
    const char *name;
    unsigned long long addr;
    unsigned long long size;
    unsigned int flags;
} pyemu_symbol_view;
int pyemu_module_symbol_count(pyemu_module *module, unsigned int *count);
int pyemu_module_symbol(pyemu_module *module, unsigned int index, pyemu_symbol_view *view);
/* The module's writable data [host_lo, host_lo + len) as device memory: the
 * same pages, mapped again at dev_lo, the end of a new device allocation
 * (alloc, freed with pyemu_mem_free).  A symbol at host address a has the
 * device address dev_lo + (a - host_lo).  Call it while no kernel of the
 * module runs: the first call moves the data to shared pages. */
int pyemu_module_map_data(pyemu_module *module, unsigned long long *host_lo,
                          unsigned long long *len, unsigned long long *alloc,
                          unsigned long long *dev_lo);

/* host memory registered with cudaHostRegister (csrc/hostreg.c): mapped for
 * kernels, its device pointer is its address (as with unified addressing) */
int pyemu_hostreg_add(unsigned long long addr, unsigned long long size);
int pyemu_hostreg_remove(unsigned long long addr);
int pyemu_hostreg_contains(unsigned long long addr);
/* fault the pages of a page-locked range in now (best effort; 0 or PYEMU_E_SYSTEM) */
int pyemu_host_populate(unsigned long long addr, unsigned long long size);

/* several virtual devices (pyemu/cuda/devices.py): a queue's device in its
 * flags; each device has its own sticky error; pyemu_sticky_error reads the
 * calling thread's current device's (pyemu_set_current_device, default 0) */
#define PYEMU_MAX_DEVICES 64
#define PYEMU_QUEUE_DEVICE_SHIFT 8
#define PYEMU_QUEUE_DEVICE_MASK 0x3F00
int pyemu_set_current_device(int device);
/* one device's work and sticky error (cudaDeviceSynchronize, cudaDeviceReset) */
int pyemu_device_synchronize_one(int device, unsigned int timeout_ms);
int pyemu_device_clear_sticky(int device);
/* a CUDA stream's priority in its queue's flags: urgency 0 (least, CUDA's
 * priority 0) to 15; the workers take the most urgent ready kernel first */
#define PYEMU_QUEUE_PRIORITY_SHIFT 16
#define PYEMU_QUEUE_PRIORITY_MASK 0xF0000
/* which device owns which allocation, and peer access (csrc/devmem.c) */
int pyemu_devmem_add(unsigned long long addr, unsigned long long size, int device);
int pyemu_devmem_remove(unsigned long long addr);
int pyemu_devmem_clear(void);
int pyemu_devmem_peer(int device, int peer, int on);

/* pyemu_launch.flags.  PYEMU_LAUNCH_COOPERATIVE: cudaLaunchCooperativeKernel's
 * launch (csrc/grid.c): the blocks of such a launch are all resident at
 * once, and cooperative_groups::this_grid().sync() works */
#define PYEMU_LAUNCH_COOPERATIVE 1

#endif /* PYEMU_CORE_H */
