/* pyemu/abi.h - the small C ABI between a compiled kernel module and the core.
 *
 * A kernel module is a shared object built by pyemu's compiler from user
 * source.  It exports one symbol, `pyemu_module_info`, that lists its kernels.
 * It imports nothing by name: when the core loads it, the core hands it a
 * table of entry points (pyemu_core_api), so no other library in the process
 * can capture a kernel's calls.
 * The core runs a block by calling a kernel's `run_block`, which runs every
 * thread of the block as a plain loop; if a thread reaches a barrier, the core
 * takes over and runs the rest of the block as fibers (see csrc/block.c).
 *
 * Kernel authors never include this file directly: the CUDA and OpenCL device
 * headers do.  Keep it C, keep it small: csrc/ includes it too.
 */
#ifndef PYEMU_ABI_H
#define PYEMU_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The user's -D macros are defined before this file is read (-Dline=...,
 * -Dflags=...): the member and parameter names below must not be expanded
 * by them, so each is put aside here and restored at the end. */
#pragma push_macro("type_name")
#undef type_name
#pragma push_macro("kind")
#undef kind
#pragma push_macro("size")
#undef size
#pragma push_macro("align")
#undef align
#pragma push_macro("offset")
#undef offset
#pragma push_macro("flags")
#undef flags
#pragma push_macro("name")
#undef name
#pragma push_macro("run_block")
#undef run_block
#pragma push_macro("run_thread")
#undef run_thread
#pragma push_macro("nparams")
#undef nparams
#pragma push_macro("params")
#undef params
#pragma push_macro("args_size")
#undef args_size
#pragma push_macro("reqd_block")
#undef reqd_block
#pragma push_macro("max_threads")
#undef max_threads
#pragma push_macro("smem")
#undef smem
#pragma push_macro("smem_common")
#undef smem_common
#pragma push_macro("smem_base")
#undef smem_base
#pragma push_macro("abi_version")
#undef abi_version
#pragma push_macro("tctx_offset")
#undef tctx_offset
#pragma push_macro("barrier")
#undef barrier
#pragma push_macro("barrier_reduce")
#undef barrier_reduce
#pragma push_macro("barrier_diverged")
#undef barrier_diverged
#pragma push_macro("first_thread_done")
#undef first_thread_done
#pragma push_macro("printf")
#undef printf
#pragma push_macro("assert_fail")
#undef assert_fail
#pragma push_macro("trap")
#undef trap
#pragma push_macro("malloc")
#undef malloc
#pragma push_macro("free")
#undef free
#pragma push_macro("ptr")
#undef ptr
#pragma push_macro("nkernels")
#undef nkernels
#pragma push_macro("kernels")
#undef kernels
#pragma push_macro("source_name")
#undef source_name
#pragma push_macro("bind")
#undef bind
#pragma push_macro("site")
#undef site
#pragma push_macro("pred")
#undef pred
#pragma push_macro("op")
#undef op
#pragma push_macro("other")
#undef other
#pragma push_macro("exited")
#undef exited
#pragma push_macro("fmt")
#undef fmt
#pragma push_macro("expr")
#undef expr
#pragma push_macro("file")
#undef file
#pragma push_macro("line")
#undef line
#pragma push_macro("func")
#undef func
#pragma push_macro("api")
#undef api
#pragma push_macro("args")
#undef args

#define PYEMU_ABI_VERSION 9

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pyemu_uint3 { unsigned int x, y, z; } pyemu_uint3;

/* The operands and results of a warp collective in a block function
 * (pyemu/compiler/regions/warpcut.py): each thread writes its operands at
 * its linear index (phase 1, in pyemu_warp_op below); the core checks the
 * masks and computes the results at the cut (csrc/warp_block.c); each
 * thread reads its result (phase 2).  One per worker. */
#define PYEMU_WARP_BUF_THREADS 1024
#define PYEMU_WARP_FAST_SLOTS 1056   /* 1024 threads and a warp of padding */
typedef struct pyemu_warp_buf {
    int op, width;              /* the collective (PYEMU_WARP_*), its width */
    const char *file;           /* its call site */
    unsigned int line, any;     /* any: a thread wrote since the last cut */
    unsigned int mask[PYEMU_WARP_BUF_THREADS];
    unsigned char arrived[PYEMU_WARP_BUF_THREADS];
    int arg[PYEMU_WARP_BUF_THREADS];
    unsigned long long val[PYEMU_WARP_BUF_THREADS], res[PYEMU_WARP_BUF_THREADS];
    /* The fast form of a shuffle with a full mask and a literal width
     * (warpcut.py): each thread stores its value (type T, of size s = 1, 2,
     * 4 or 8) at fv + (16 * bank + s) * PYEMU_WARP_FAST_SLOTS, index its
     * linear index (bank 0 and 1 alternate from one site to the next: the
     * threads after a cut read one while they write the next site's),
     * and its lane argument in fa when it is not evaluated again; the
     * thread after the cut reads its source lane there, inline.  Entries
     * from the block's size to the end of its last warp stay 0 (a lane past
     * a partial warp, csrc/warp_block.c).  Where not every lane is known to
     * arrive, each thread also sets fin to its call site ("op line file"),
     * relative to the module's pyemu_warp_fast_anchor (nonzero): the cut
     * checks that each warp arrived whole or not at all, and where one did
     * not, the core fails the launch with fsite the anchor's address.  (The
     * module reaches the buffer through its own pyemu_warp_fast_buf below:
     * g++ vectorizes the threads' loops then.) */
    unsigned char fv[2 * 16 * PYEMU_WARP_FAST_SLOTS] __attribute__((aligned(64)));
    int fa[PYEMU_WARP_BUF_THREADS];
    unsigned int fin[PYEMU_WARP_BUF_THREADS];
    unsigned long fsite;
} pyemu_warp_buf;

/* What the thread that runs now can see: one per worker thread, in static
 * TLS of the core.  Kernels read it through threadIdx, get_local_id(), ... */
typedef struct pyemu_thread_ctx {
    pyemu_uint3 threadIdx;      /* the running thread / work-item, in its block */
    pyemu_uint3 blockIdx;       /* the running block / work-group */
    pyemu_uint3 blockDim;       /* threads per block / local size */
    pyemu_uint3 gridDim;        /* blocks per grid / number of groups */
    pyemu_uint3 global_offset;  /* OpenCL global work offset (0 for CUDA) */
    unsigned int work_dim;      /* OpenCL work_dim (3 for CUDA) */
    unsigned int dyn_smem;      /* bytes of dynamic shared memory of the launch */
    void *dyn_smem_base;        /* where that memory starts (per worker) */
    unsigned int precise;       /* 1: run_block takes the plain loop (fibers at a
                                 * barrier), never the block function, and keeps
                                 * threadIdx exact: the core runs a block that
                                 * faulted again so, to name the thread */
    void *smem_base;            /* the block's static __shared__ / kernel-scope
                                 * __local variables (the module's segment,
                                 * include/pyemu/detail/smem.h), then
                                 * dyn_smem_base (per worker) */
    unsigned int warp_phase;    /* set by a block function just before a warp
                                 * collective: 1 its operands go to warp_buf,
                                 * 2 its result comes from there (pyemu_warp_op
                                 * below, csrc/warp_block.c) */
    pyemu_warp_buf *warp_buf;   /* the worker's, set when a block function starts */
#ifdef __cplusplus
    bool solo;
#else
    _Bool solo;
#endif
                                /* true: the only worker (PYEMU_NUM_THREADS=1), so
                                 * no other thread runs kernel code meanwhile and
                                 * an atomic function may be a plain read-modify-
                                 * write (detail/cuda_atomics.h, cl_atomics.h); a
                                 * bool, which no store of the kernel's ints or
                                 * floats can alias, so g++ can test it once per
                                 * loop */
    uintptr_t smem_lo;          /* the running block's shared memory (static, */
    uintptr_t smem_span;        /* dynamic, __local arguments): [smem_lo,
                                 * smem_lo + smem_span) of the worker's arena,
                                 * which no other thread can reach, so an atomic
                                 * function there may be a plain read-modify-
                                 * write too */
} pyemu_thread_ctx;


/* Kinds of kernel parameters, as the compiler reports them. */
enum {
    PYEMU_PARAM_SIGNED = 1,     /* signed integer (char, short, int, long, long long) */
    PYEMU_PARAM_UNSIGNED = 2,   /* unsigned integer, bool, enums are SIGNED/UNSIGNED by their base */
    PYEMU_PARAM_FLOAT = 3,      /* float, double */
    PYEMU_PARAM_POINTER = 4,    /* any pointer: a device address */
    PYEMU_PARAM_STRUCT = 5      /* anything else passed by value: bytes of that size */
};

typedef struct pyemu_param_desc {
    const char *type_name;      /* C spelling of the type, e.g. "float*" */
    unsigned int kind;          /* PYEMU_PARAM_* */
    unsigned int size;          /* sizeof */
    unsigned int align;         /* alignof */
    unsigned int offset;        /* where it lies in the packed argument buffer */
    unsigned int flags;         /* PYEMU_PARAM_CONST_POINTEE */
} pyemu_param_desc;

#define PYEMU_PARAM_CONST_POINTEE 1u
/* OpenCL address spaces are not here: the compiler reads them from the
 * source (pyemu/compiler/opencl.py, kernel_info) and the facade keeps them. */

typedef void (*pyemu_run_fn)(const void *args);

typedef struct pyemu_kernel_desc {
    const char *name;           /* as the user looks it up: "vecAdd", "reduce<256>" */
    pyemu_run_fn run_block;     /* runs every thread of one block (plain loop) */
    pyemu_run_fn run_thread;    /* runs the current thread only (fiber mode) */
    unsigned int nparams;
    const pyemu_param_desc *params;
    unsigned int args_size;     /* bytes of the packed argument buffer */
    unsigned int reqd_block[3]; /* reqd_work_group_size / 0 when none */
    unsigned int max_threads;   /* __launch_bounds__ maxThreadsPerBlock / 0 when none */
    /* static shared memory (detail/smem.h): the kernel's own segment and
     * the one of device functions, each [0] its size, [1] its alignment */
    const unsigned long *smem, *smem_common;
} pyemu_kernel_desc;

/* The core's entry points, handed to a module when it is loaded. */
typedef struct pyemu_core_api {
    unsigned int abi_version;
    /* where the worker's pyemu_thread_ctx lies from the thread pointer: the
     * same offset in every thread (static TLS of the core) */
    long tctx_offset;
    /* A barrier.  `site` names the call site ("file.cu:12#3": file, line,
     * then a number of its own, so two barriers on one line differ; messages
     * show what comes before the '#'); all threads of the block must reach
     * the same site, or the launch fails. */
    void (*barrier)(const char *site);
    /* A barrier that also reduces a predicate over the block: op 0 count, 1 and, 2 or. */
    int (*barrier_reduce)(const char *site, int pred, int op);
    /* Called by a kernel's block function (pyemu/compiler/regions/), which runs a
     * block region by region between its barriers, without fibers: the
     * barrier at `site` is reached by the thread pyemu_tctx.threadIdx names
     * while `exited` threads of the block, the first of linear index `other`,
     * returned before it; or, when `exited` is 0, this thread and thread
     * `other` take different ways at a branch or loop around that barrier.
     * Fails the launch; never returns. */
    void (*barrier_diverged)(const char *site, unsigned int other, unsigned int exited);
    /* Called by run_block after thread 0 returned.  Returns 1 when the block
     * runs as a plain loop (go on with thread 1), 0 when the block already
     * finished as fibers. */
    int (*first_thread_done)(void);
    /* Device printf: formatted now, written to the host at the next sync point. */
    int (*printf)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    /* A failed device assert or a trap; never return. */
    void (*assert_fail)(const char *expr, const char *file, unsigned int line, const char *func);
    void (*trap)(void);
    /* Device malloc and free: the device heap (csrc/devheap.c); NULL when
     * it is used up. */
    void *(*malloc)(size_t size);
    void (*free)(void *ptr);
    /* Warp collectives (csrc/warp.c): see pyemu_warp_op below. */
    unsigned long long (*warp_op)(int op, unsigned int mask, unsigned long long value, int arg,
                                  int width, const char *file, unsigned int line,
                                  unsigned int col);
    unsigned int (*warp_active)(void);
    /* first_thread_done for a unit that uses warp collectives: the other
     * threads run as fibers, so that they can meet at a collective. */
    int (*first_thread_done_warp)(void);
    /* A warp collective in a block function (pyemu/compiler/regions/),
     * csrc/warp_block.c: phase 3 starts a block (sets pyemu_tctx.warp_buf,
     * which the module writes the operands to), phase 0 (once per block,
     * between the two regions) checks the masks and computes every lane's
     * result into it. */
    unsigned long long (*warp_block)(int phase, int op, unsigned int mask,
                                     unsigned long long value, int arg, int width,
                                     const char *file, unsigned int line);
    /* The fast form's cut and a block's start in a block function
     * (pyemu_warp_block_done below, csrc/warp_block.c): checks the arrival
     * marks (fin, relative to the module's `anchor`), then warp_block's phase
     * `phase` where anything is left to compute; returns pyemu_tctx.warp_buf. */
    pyemu_warp_buf *(*warp_fast_done)(unsigned int phase, unsigned long anchor);
    /* A predicated if's flags (pyemu_warp_pred_span below, csrc/warp_block.c). */
    void (*warp_pred_span)(const unsigned char *f, unsigned int n, unsigned char v,
                           unsigned int *lo, unsigned int *hi);
    int (*warp_pred_dense)(const unsigned char *f, unsigned int lo, unsigned int hi,
                           unsigned char v);
    int (*warp_pred_whole)(const unsigned char *f, unsigned int n);
} pyemu_core_api;

/* Warp collectives (one implementation for CUDA's intrinsics, cooperative
 * groups and OpenCL sub-groups): pyemu_warp_op(op, mask, value, arg, width,
 * file, line, column) is a rendezvous of the lanes `mask` names (lanes past
 * the end of a partial warp are left out); it returns this lane's result:
 * a shuffle's value (raw bits; arg = source lane / delta / lane mask, width
 * a power of 2 up to 32), a ballot's mask, any/all 0 or 1, match_any's
 * mask of lanes with this value, match_all's mask (0 when they differ), a
 * reduction's value (32-bit).  Every lane named must reach the same call
 * (file, line, column) with the same mask, or the launch fails; a ballot
 * with arg 1 (OpenCL's sub_group_ballot) is over the lanes that reach it,
 * the lanes named that reach a barrier or return instead left out. */
#define PYEMU_WARP_SHFL 0
#define PYEMU_WARP_SHFL_UP 1
#define PYEMU_WARP_SHFL_DOWN 2
#define PYEMU_WARP_SHFL_XOR 3
#define PYEMU_WARP_BALLOT 4
#define PYEMU_WARP_ANY 5
#define PYEMU_WARP_ALL 6
#define PYEMU_WARP_MATCH_ANY 7
#define PYEMU_WARP_MATCH_ALL 8
#define PYEMU_WARP_ADD 9
#define PYEMU_WARP_MIN 10
#define PYEMU_WARP_MAX 11
#define PYEMU_WARP_UMIN 12
#define PYEMU_WARP_UMAX 13
#define PYEMU_WARP_AND 14
#define PYEMU_WARP_OR 15
#define PYEMU_WARP_XOR 16
#define PYEMU_WARP_SYNC 17
#define PYEMU_WARP_NOPS 18
/* pyemu_warp_step(): not a collective of the user's but a point the front
 * end puts after each statement that stores through a volatile lvalue
 * (pyemu/compiler/frontend/parse.py): the lanes of the warp still running
 * take turns there, so each such statement is run by all of them before
 * any runs the next (csrc/block.c); it never fails. */
#define PYEMU_WARP_STEP 18

typedef struct pyemu_module_info {
    unsigned int abi_version;   /* PYEMU_ABI_VERSION */
    unsigned int nkernels;
    const pyemu_kernel_desc *kernels;
    const char *source_name;    /* the file name diagnostics use */
    void (*bind)(const pyemu_core_api *api);   /* the core calls it once, at load */
} pyemu_module_info;

/* Bytes of static shared memory a block of kernel d takes: the device
 * functions' segment padded to 128, then the kernel's own (detail/smem.h). */
static inline unsigned long pyemu_desc_static_smem(const pyemu_kernel_desc *d)
{
    unsigned long common = (d->smem_common[0] + 127) & ~127ul;
    return d->smem[0] + (d->smem_common[0] ? common : 0);
}

#ifdef PYEMU_CORE
/* ---- the core's side: the real thing ---- */
extern __thread pyemu_thread_ctx pyemu_tctx __attribute__((tls_model("initial-exec")));
void pyemu_barrier(const char *site);
int pyemu_barrier_reduce(const char *site, int pred, int op);
void pyemu_barrier_diverged(const char *site, unsigned int other, unsigned int exited)
    __attribute__((noreturn));
int pyemu_first_thread_done(void);
int pyemu_first_thread_done_warp(void);
unsigned long long pyemu_warp_op(int op, unsigned int mask, unsigned long long value, int arg,
                                 int width, const char *file, unsigned int line, unsigned int col);
unsigned int pyemu_warp_active(void);
unsigned long long pyemu_warp_block(int phase, int op, unsigned int mask, unsigned long long value,
                                    int arg, int width, const char *file, unsigned int line);
pyemu_warp_buf *pyemu_warp_fast_done(unsigned int phase, unsigned long anchor);
void pyemu_warp_pred_span(const unsigned char *f, unsigned int n, unsigned char v,
                          unsigned int *lo, unsigned int *hi);
int pyemu_warp_pred_dense(const unsigned char *f, unsigned int lo, unsigned int hi,
                          unsigned char v);
int pyemu_warp_pred_whole(const unsigned char *f, unsigned int n);
int pyemu_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pyemu_assert_fail(const char *expr, const char *file, unsigned int line,
                       const char *func) __attribute__((noreturn));
void pyemu_trap(void) __attribute__((noreturn));
void *pyemu_malloc(size_t size);
void pyemu_free(void *ptr);
#else
/* ---- a kernel module's side: the same names, through the table ---- */
extern const pyemu_core_api *pyemu_api __attribute__((visibility("hidden")));
extern long pyemu_tctx_offset __attribute__((visibility("hidden")));
#define pyemu_tctx \
    (*(pyemu_thread_ctx *)((char *)__builtin_thread_pointer() + pyemu_tctx_offset))
static inline void pyemu_barrier(const char *site) { pyemu_api->barrier(site); }
static inline int pyemu_barrier_reduce(const char *site, int pred, int op)
{
    return pyemu_api->barrier_reduce(site, pred, op);
}
static inline __attribute__((noreturn)) void
pyemu_barrier_diverged(const char *site, unsigned int other, unsigned int exited)
{
    pyemu_api->barrier_diverged(site, other, exited);
    __builtin_unreachable();
}
static inline int pyemu_first_thread_done(void) { return pyemu_api->first_thread_done(); }
static inline int pyemu_first_thread_done_warp(void) { return pyemu_api->first_thread_done_warp(); }
static inline unsigned long long pyemu_warp_op(int op, unsigned int mask, unsigned long long value,
                                               int arg, int width, const char *file,
                                               unsigned int line, unsigned int col)
{
    /* a block function's collective: record (1) or fetch (2), see warp_block */
    pyemu_thread_ctx *const pyemu_c = &pyemu_tctx;
    const unsigned int pyemu_p = pyemu_c->warp_phase;
    if (pyemu_p != 0) {
        pyemu_c->warp_phase = 0;
        pyemu_warp_buf *const pyemu_b = pyemu_c->warp_buf;
        const unsigned int pyemu_i = pyemu_c->threadIdx.x + pyemu_c->blockDim.x *
            (pyemu_c->threadIdx.y + pyemu_c->blockDim.y * pyemu_c->threadIdx.z);
        if (pyemu_p == 2)
            return pyemu_b->res[pyemu_i];
        pyemu_b->op = op;
        pyemu_b->width = width;
        pyemu_b->file = file;
        pyemu_b->line = line;
        pyemu_b->any = 1;
        pyemu_b->mask[pyemu_i] = mask;
        pyemu_b->arrived[pyemu_i] = 1;
        pyemu_b->arg[pyemu_i] = arg;
        pyemu_b->val[pyemu_i] = value;
        return 0;
    }
    return pyemu_api->warp_op(op, mask, value, arg, width, file, line, col);
}
static inline void pyemu_warp_phase(unsigned int pyemu_p) { pyemu_tctx.warp_phase = pyemu_p; }
/* the fast form of a shuffle in a block function (pyemu_warp_buf above,
 * pyemu/compiler/regions/warpcut.py): the worker's buffer as the module's
 * own thread-local variable (a load g++ hoists out of a predicated loop of
 * threads), and the anchor that the call sites in fin are relative to.  At
 * the cut, a record with marks (fin) has each warp arrived whole or not at
 * all, else the core fails the launch as the general form does; the marks
 * are cleared (at a block's start too: one that failed may have left some). */
static __thread pyemu_warp_buf *pyemu_warp_fast_buf __attribute__((unused));
static char pyemu_warp_fast_anchor __attribute__((unused));
/* The cut of fast-form shuffles whose lanes marked their arrival, and a
 * block's start (phase 3: the worker's buffer becomes pyemu_warp_fast_buf):
 * the core checks the marks (each warp arrived whole or not at all, else it
 * fails the launch as the general form does) and clears them. */
static inline void pyemu_warp_block_done(unsigned int pyemu_p)
{
    pyemu_warp_buf *const pyemu_b =
        pyemu_api->warp_fast_done(pyemu_p, (unsigned long)&pyemu_warp_fast_anchor);
    if (pyemu_p == 3u)
        pyemu_warp_fast_buf = pyemu_b;
}
/* A predicated if of a block function (pyemu/compiler/regions/gen.py): the
 * flags f[0..n) of the block's threads (each 0 or 1).  pyemu_warp_pred_span
 * narrows [*lo, *hi) to the smallest range holding every flag equal to v,
 * so the branch's thread loops run over that range only (testing the flags
 * unless pyemu_warp_pred_dense says that every flag there is v: `if (warp
 * == 0)`, `if (tid < 32)`); pyemu_warp_pred_whole says whether the flags of each warp
 * (32 threads by linear index, the last one partial) are all equal, so that
 * a warp either takes the branch whole or not at all.  In the core
 * (csrc/warp_block.c): compiled once, not in every module. */
static inline void pyemu_warp_pred_span(const unsigned char *pyemu_f, unsigned int pyemu_n,
                                        unsigned char pyemu_v, unsigned int *pyemu_lo,
                                        unsigned int *pyemu_hi)
{
    pyemu_api->warp_pred_span(pyemu_f, pyemu_n, pyemu_v, pyemu_lo, pyemu_hi);
}
static inline int pyemu_warp_pred_dense(const unsigned char *pyemu_f, unsigned int pyemu_lo,
                                        unsigned int pyemu_hi, unsigned char pyemu_v)
{
    return pyemu_api->warp_pred_dense(pyemu_f, pyemu_lo, pyemu_hi, pyemu_v);
}
static inline int pyemu_warp_pred_whole(const unsigned char *pyemu_f, unsigned int pyemu_n)
{
    return pyemu_api->warp_pred_whole(pyemu_f, pyemu_n);
}
static inline unsigned int pyemu_warp_active(void) { return pyemu_api->warp_active(); }
static inline void pyemu_warp_step(void)
{
    pyemu_api->warp_op(PYEMU_WARP_STEP, 0u, 0ull, 0, 32, "", 0u, 0u);
}
#define pyemu_printf (pyemu_api->printf)
static inline __attribute__((noreturn)) void
pyemu_assert_fail(const char *expr, const char *file, unsigned int line, const char *func)
{
    pyemu_api->assert_fail(expr, file, line, func);
    __builtin_unreachable();
}
static inline __attribute__((noreturn)) void pyemu_trap(void)
{
    pyemu_api->trap();
    __builtin_unreachable();
}
static inline void *pyemu_malloc(size_t size) { return pyemu_api->malloc(size); }
static inline void pyemu_free(void *ptr) { pyemu_api->free(ptr); }
/* What the compiler's generated code puts in every module, once. */
#define PYEMU_MODULE_BINDING                                                   \
    const pyemu_core_api *pyemu_api;                                           \
    long pyemu_tctx_offset;                                                    \
    static void pyemu_bind(const pyemu_core_api *pyemu_a)                      \
    {                                                                          \
        pyemu_api = pyemu_a;                                                   \
        pyemu_tctx_offset = pyemu_a->tctx_offset;                              \
    }
#endif

#ifdef __cplusplus
}
#endif

#pragma pop_macro("args")
#pragma pop_macro("api")
#pragma pop_macro("func")
#pragma pop_macro("line")
#pragma pop_macro("file")
#pragma pop_macro("expr")
#pragma pop_macro("fmt")
#pragma pop_macro("exited")
#pragma pop_macro("other")
#pragma pop_macro("op")
#pragma pop_macro("pred")
#pragma pop_macro("site")
#pragma pop_macro("bind")
#pragma pop_macro("source_name")
#pragma pop_macro("kernels")
#pragma pop_macro("nkernels")
#pragma pop_macro("ptr")
#pragma pop_macro("free")
#pragma pop_macro("malloc")
#pragma pop_macro("trap")
#pragma pop_macro("assert_fail")
#pragma pop_macro("printf")
#pragma pop_macro("first_thread_done")
#pragma pop_macro("barrier_diverged")
#pragma pop_macro("barrier_reduce")
#pragma pop_macro("barrier")
#pragma pop_macro("tctx_offset")
#pragma pop_macro("abi_version")
#pragma pop_macro("smem_base")
#pragma pop_macro("smem_common")
#pragma pop_macro("smem")
#pragma pop_macro("max_threads")
#pragma pop_macro("reqd_block")
#pragma pop_macro("args_size")
#pragma pop_macro("params")
#pragma pop_macro("nparams")
#pragma pop_macro("run_thread")
#pragma pop_macro("run_block")
#pragma pop_macro("name")
#pragma pop_macro("flags")
#pragma pop_macro("offset")
#pragma pop_macro("align")
#pragma pop_macro("size")
#pragma pop_macro("kind")
#pragma pop_macro("type_name")

#endif /* PYEMU_ABI_H */

#ifndef PYEMU_ABI_GRID_H
#define PYEMU_ABI_GRID_H
/* cooperative_groups::this_grid().sync() reaches the core through the warp
 * collectives' entry: pyemu_warp_op(PYEMU_GRID_SYNC, 0, 0, 0, 32, file,
 * line, 0) is a barrier of every thread of the grid (csrc/grid.c); it fails
 * the launch unless the kernel was launched with cudaLaunchCooperativeKernel. */
#define PYEMU_GRID_SYNC 64
/* thread_block_tile<N>::sync() for N = 64..1024 (whole warps): the same
 * entry, pyemu_warp_op(PYEMU_TILE_SYNC, N, 0, 0, 32, file, line, 0), is a
 * barrier of the N threads of the caller's tile only (csrc/block.c). */
#define PYEMU_TILE_SYNC 65
#endif
