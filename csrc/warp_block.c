/* warp_block.c - warp collectives in a block function (pyemu_warp_block, abi.h).
 *
 * A block function (pyemu/compiler/regions/) runs a whole block region by
 * region; it cuts a region at a warp collective as at a barrier.  The region
 * before the cut calls the collective in phase 1: each thread writes its
 * operands (value, argument, mask) to the worker's pyemu_warp_buf (abi.h,
 * inline in the module: no call per thread).  At the cut (phase 0, once per
 * block) every warp's masks are checked and every lane's result is computed
 * by pyemu_warp_compute (warp.c), the same routine the fiber path uses, so
 * each collective has one implementation.  The region after the cut calls
 * the collective again in phase 2, which reads the thread's result.
 *
 * Phase 3 starts a block (the block function's first statement).  The
 * buffer is one per worker: a block function runs one block at a time on
 * its worker, and two collectives never overlap (a cut lies between them).
 *
 * A shuffle with a literal full mask and width has a fast form (warpcut.py,
 * abi.h's pyemu_warp_buf.fv): the module stores and gathers the values
 * inline and checks the arrival marks itself; the core only zeroes the
 * slots past a partial warp (phase 3) and names the lanes of a warp that
 * arrived in part (fast_check below, the general form's message).
 */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARP 32u

static __thread pyemu_warp_buf *bs; /* per worker (small TLS only: the core is dlopened) */
static __thread uint64_t bs_seq;    /* the kernel command its fast marks are clear for */

static unsigned int lanes_in(unsigned int nthreads, unsigned int warp)
{
    unsigned int n = nthreads - warp * WARP;
    return n >= WARP ? 0xffffffffu : (1u << n) - 1u;
}

static int is_shuffle(int op)
{
    return op >= PYEMU_WARP_SHFL && op <= PYEMU_WARP_SHFL_XOR;
}

/* Names thread `lin` of the block in pyemu_tctx (the failing thread). */
static void name_thread(unsigned int lin)
{
    pyemu_thread_ctx *c = &pyemu_tctx;
    c->threadIdx.x = lin % c->blockDim.x;
    c->threadIdx.y = lin / c->blockDim.x % c->blockDim.y;
    c->threadIdx.z = lin / c->blockDim.x / c->blockDim.y;
}

/* Lanes named in the mask that did not arrive: in a block function they
 * returned before it (warpcut.py cuts nowhere else).  The message is the
 * one the fiber path (warp.c) gives, where lanes run in index order: the
 * lowest missing lane returns while lower lanes wait, or, with none below
 * it, the lowest lane that arrives finds the missing lanes below it gone. */
static __attribute__((noinline, cold, noreturn)) void
missing_lanes(pyemu_worker *w, unsigned int warp, unsigned int m, unsigned int missing,
              unsigned int want)
{
    char l[128], a[128];
    const unsigned int low = (unsigned int)__builtin_ctz(missing);
    const unsigned int below = m & ((1u << low) - 1u);
    bs->any = 0;
    memset(bs->arrived, 0, sizeof bs->arrived);
    if (below) {
        pyemu_warp_lanes_text(below, a, sizeof a);
        name_thread(warp * WARP + low);
        pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                          PYEMU_T_WARP " %u: " PYEMU_T_LANE " %u returns without reaching it, "
                          "while " PYEMU_T_LANES " %s wait for it at %s at %s:%u; " PYEMU_T_RULE,
                          warp, low, a, pyemu_warp_name(bs->op), bs->file, bs->line);
    }
    const unsigned int first = (unsigned int)__builtin_ctz(m);
    pyemu_warp_lanes_text(missing & ((1u << first) - 1u), l, sizeof l);
    pyemu_warp_lanes_text(1u << first, a, sizeof a);
    name_thread(warp * WARP + first);
    pyemu_kernel_fail(w, PYEMU_E_BARRIER,
                      PYEMU_T_WARP " %u: %s at %s:%u" PYEMU_T_CUDA " (mask 0x%08x) is reached by "
                      PYEMU_T_LANES " %s, but " PYEMU_T_LANES " %s returned without reaching it; "
                      PYEMU_T_RULE,
                      warp, pyemu_warp_name(bs->op), bs->file, bs->line, want, a, l);
}

static __attribute__((noinline, cold, noreturn)) void
fail_at(pyemu_worker *w, unsigned int lin, const char *fmt, ...);

/* A warp of the fast form's site (warpcut.py) arrived in part (the module
 * found it, abi.h): the error the general form gives (done() below), from
 * the site "op line file" that fin holds relative to the anchor fsite. */
static __attribute__((noinline, cold, noreturn)) void
fast_missing(pyemu_worker *w, unsigned int warp, unsigned int m, unsigned int live,
             unsigned int rel)
{
    const char *site = (const char *)(bs->fsite + (unsigned long)(long)(int)rel);
    int op = 0, at = 0;
    unsigned int line = 0;
    if (sscanf(site, "%d %u %n", &op, &line, &at) < 2)
        at = (int)strlen(site);
    bs->op = op;
    bs->line = line;
    bs->file = site + at;
    bs->fsite = 0;
    memset(bs->fin, 0, sizeof bs->fin);
    missing_lanes(w, warp, m, live & ~m, live);
}

/* The first warp of the fast form's record that arrived in part. */
static __attribute__((noinline, cold, noreturn)) void fast_check(pyemu_worker *w)
{
    const unsigned int n = w->nthreads;
    for (unsigned int base = 0; base < n; base += WARP) {
        const unsigned int k = n - base < WARP ? n - base : WARP;
        unsigned int m = 0, rel = 0;
        for (unsigned int l = 0; l < k; l++) {
            m |= (unsigned int)(bs->fin[base + l] != 0) << l;
            rel = rel ? rel : bs->fin[base + l];
        }
        const unsigned int live = lanes_in(n, base / WARP);
        if (m && m != live)
            fast_missing(w, base / WARP, m, live, rel);
    }
    bs->fsite = 0;
    memset(bs->fin, 0, sizeof bs->fin);
    pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE, "a warp collective's check found no lane "
                      "missing (a bug of pyemu, please report it)");
}

/* phase 0: the masks checked lane by lane, as the fiber path checks them
 * when the lanes arrive in index order, then every lane's result */
static void done(pyemu_worker *w)
{
    if (bs->fsite)
        fast_check(w);
    if (!bs->any)
        return; /* no thread arrived (all returned before, or predicated off) */
    bs->any = 0;
    const int op = bs->op, width = bs->width;
    const unsigned int nwarps = (w->nthreads + WARP - 1) / WARP;
    for (unsigned int warp = 0; warp < nwarps; warp++) {
        const unsigned int base = warp * WARP, live = lanes_in(w->nthreads, warp);
        unsigned int m = 0, want = 0;
        for (unsigned int l = 0; l < WARP && base + l < w->nthreads; l++) {
            if (!bs->arrived[base + l])
                continue;
            bs->arrived[base + l] = 0;
            const unsigned int mask = bs->mask[base + l];
            if (is_shuffle(op) && (width < 1 || width > 32 || (width & (width - 1))))
                fail_at(w, base + l, "%s at %s:%u: width %d is not a power of 2 from 1 to 32 "
                        "(warpSize)", pyemu_warp_name(op), bs->file, bs->line, width);
            if (!(mask >> l & 1u))
                fail_at(w, base + l, "%s at %s:%u: the mask 0x%08x does not name the calling "
                        "lane %u; a lane must be named in its own mask", pyemu_warp_name(op), bs->file,
                        bs->line, mask, l);
            if (!m)
                want = mask & live; /* lanes past a partial warp are not there */
            else if ((mask & live) != want) {
                char a[128];
                pyemu_warp_lanes_text(m, a, sizeof a);
                fail_at(w, base + l, "warp %u: %s at %s:%u (mask 0x%08x) is reached by lane(s) "
                        "%s, but lane(s) %u reaches it with mask 0x%08x instead; every lane "
                        "named in a warp collective's mask must reach the same collective",
                        warp, pyemu_warp_name(op), bs->file, bs->line, want, a, l, mask & live);
            }
            m |= 1u << l;
        }
        if (!m)
            continue;
        /* OpenCL's sub_group_ballot (arg 1, cl_subgroup.h) is over the lanes
         * that reach it, as on the fiber path (warp.c): the others are not missing */
        const int partial = op == PYEMU_WARP_BALLOT && bs->arg[base + __builtin_ctz(m)] == 1;
        if ((want & ~m) && !partial)
            missing_lanes(w, warp, m, want & ~m, want);
        pyemu_warp_compute(op, is_shuffle(op) ? (unsigned int)width : 32u, m, bs->val + base,
                           bs->arg + base, bs->res + base);
    }
}

static void fail_at(pyemu_worker *w, unsigned int lin, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bs->any = 0;
    memset(bs->arrived, 0, sizeof bs->arrived);
    name_thread(lin);
    pyemu_kernel_fail(w, PYEMU_E_BARRIER, "%s", msg);
}

PYEMU_API PYEMU_KSUPPORT unsigned long long
pyemu_warp_block(int phase, int op, unsigned int mask, unsigned long long value, int arg,
                 int width, const char *file, unsigned int line)
{
    pyemu_worker *w = pyemu_self;
    (void)op, (void)mask, (void)value, (void)arg, (void)width, (void)file, (void)line;
    if (phase == 3) { /* a block starts: nothing of a block that failed is kept */
        if (!bs) { /* aligned as the type says (64: the modules' vector loads rely on it) */
            void *p = NULL;
            if (posix_memalign(&p, _Alignof(pyemu_warp_buf), sizeof *bs))
                pyemu_kernel_fail(w, PYEMU_E_LAUNCH_FAILURE,
                                  "out of host memory for the warp state of a worker");
            bs = memset(p, 0, sizeof *bs);
        }
        pyemu_tctx.warp_buf = bs;
        if (bs->any)
            memset(bs->arrived, 0, sizeof bs->arrived);
        bs->any = 0;
        bs->fsite = 0;
        if (bs_seq != w->run_seq) { /* a launch that failed may have left marks anywhere */
            memset(bs->fin, 0, sizeof bs->fin);
            bs_seq = w->run_seq;
        }
        /* the fast form's lanes past a partial warp read 0 (warp.c's lanes
         * that are not there), in the slots of each value size */
        const unsigned int n = w->nthreads, end = (n + WARP - 1) & ~(WARP - 1);
        if (n != end)
            for (unsigned int bank = 0; bank < 2; bank++)
                for (unsigned int size = 1; size <= 8; size *= 2)
                    memset(bs->fv + (16 * bank + size) * PYEMU_WARP_FAST_SLOTS + size * n, 0,
                           size * (end - n));
    } else if (phase == 0 && bs) {
        done(w);
    }
    return 0;
}

/* The fast form's cut (phase 0) and a block's start (phase 3), as the
 * module's pyemu_warp_block_done (abi.h) calls them: where lanes marked
 * their arrival (fin: the call site, relative to the module's `anchor`),
 * each warp must have arrived whole or not at all; otherwise done() names
 * the lanes and fails the launch (fsite says which module's sites).  Then
 * the general form's work, where any is left. */
PYEMU_API PYEMU_KSUPPORT pyemu_warp_buf *pyemu_warp_fast_done(unsigned int phase,
                                                               unsigned long anchor)
{
    pyemu_thread_ctx *const c = &pyemu_tctx;
    pyemu_warp_buf *const b = c->warp_buf;
    const unsigned int n = c->blockDim.x * c->blockDim.y * c->blockDim.z;
    /* any mark: a compare with zeros (libc's vector memcmp: at every block's
     * start and marked cut, so not a loop of n words here) */
    static const unsigned int zeros[PYEMU_WARP_BUF_THREADS];
    const int any = b && n <= PYEMU_WARP_BUF_THREADS &&
                    memcmp(b->fin, zeros, sizeof b->fin[0] * n) != 0;
    if (any) {
        unsigned int bad = 0;
        for (unsigned int w = 0; w < n && phase == 0u; w += WARP) {
            const unsigned int k = n - w < WARP ? n - w : WARP;
            unsigned int some = 0, all = 1;
            for (unsigned int l = 0; l < k; l++) {
                some |= b->fin[w + l];
                all &= b->fin[w + l] != 0;
            }
            bad |= some && !all;
        }
        if (bad) /* done() names the lanes (and clears the marks) */
            b->fsite = anchor;
        else
            memset(b->fin, 0, sizeof b->fin[0] * n);
    }
    if (phase == 0u && b && !b->any && !b->fsite)
        return b; /* only fast records (or none) since the last cut: nothing to compute */
    pyemu_warp_block((int)phase, 0, 0, 0, 0, 0, "", 0);
    return c->warp_buf;
}

/* A predicated if's flags f[0..n), each 0 or 1 (abi.h): whole words of 8
 * flags at a time where they can. */
static inline uint64_t word8(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

PYEMU_API PYEMU_KSUPPORT void pyemu_warp_pred_span(const unsigned char *f, unsigned int n,
                                                   unsigned char v, unsigned int *lo,
                                                   unsigned int *hi)
{
    const uint64_t other = v ? 0ull : 0x0101010101010101ull;
    unsigned int a = 0, e = n;
    while (a + 8u <= e && word8(f + a) == other)
        a += 8u;
    while (a < e && f[a] != v)
        a++;
    while (e >= a + 8u && word8(f + e - 8u) == other)
        e -= 8u;
    while (e > a && f[e - 1u] != v)
        e--;
    *lo = a;
    *hi = e;
}

PYEMU_API PYEMU_KSUPPORT int pyemu_warp_pred_dense(const unsigned char *f, unsigned int lo,
                                                   unsigned int hi, unsigned char v)
{
    const uint64_t all = v ? 0x0101010101010101ull : 0ull;
    uint64_t bad = 0;
    unsigned int i = lo;
    for (; i + 8u <= hi; i += 8u)
        bad |= word8(f + i) ^ all;
    for (; i < hi; i++)
        bad |= (uint64_t)(f[i] ^ v);
    return bad == 0;
}

PYEMU_API PYEMU_KSUPPORT int pyemu_warp_pred_whole(const unsigned char *f, unsigned int n)
{
    uint64_t bad = 0;
    unsigned int w = 0;
    for (; w + WARP <= n; w += WARP) {
        const uint64_t x = f[w] * 0x0101010101010101ull;
        bad |= (word8(f + w) ^ x) | (word8(f + w + 8u) ^ x) | (word8(f + w + 16u) ^ x) |
               (word8(f + w + 24u) ^ x);
    }
    for (unsigned int i = w; i < n; i++)
        bad |= (uint64_t)(f[i] ^ f[w]);
    return bad == 0;
}
