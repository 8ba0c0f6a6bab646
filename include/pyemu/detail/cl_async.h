/* OpenCL C async copies and prefetch (OpenCL 1.2, 6.12.10): event_t,
 * async_work_group_copy, async_work_group_strided_copy, wait_group_events,
 * prefetch.
 *
 * Every work-item of a group calls async_work_group_copy with the same
 * arguments, and later wait_group_events with the same events.  Here the
 * work-item of local id 0 does the whole copy, at once, in its call, and
 * wait_group_events is a barrier (pyemu_barrier at the caller's line).
 * That is correct in every order the executor may run a group's work-items
 * in (plain loop, block function, fibers): no work-item passes the wait
 * before the copy is complete, and the copy is made once, so a work-item
 * that writes into the destination after its wait never sees its write
 * undone by another work-item's copy (which doing the copy in each
 * work-item's call would allow).  The cost: a kernel with async copies
 * takes the barrier path.  The specification asks all work-items to reach
 * each wait_group_events, which is what a barrier needs too.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* An event: 0 ("no event") or the one a copy returned.  A class marked
 * unused, so that `event_t e = async_work_group_copy(...);` with e only
 * passed to wait_group_events (a macro that drops its arguments) does not
 * warn under -Wall. */
typedef struct __attribute__((unused)) pyemu_cl_event {
    unsigned pyemu_id;
    pyemu_cl_event() = default;
    pyemu_cl_event(int pyemu_i) : pyemu_id((unsigned)pyemu_i) {}
} event_t;

/* ---- is p __local memory? ----------------------------------------------- */

/* __local pointer arguments lie in the worker's local memory block, which
 * starts at pyemu_tctx.dyn_smem_base and is never larger than the core's
 * opt-in limit (PYEMU_MAX_SHARED_OPTIN, csrc/pyemu_core.h); __local
 * variables are `static __thread` (pyemu/compiler/opencl.py), so they lie in
 * this thread's TLS block of the module, which dl_iterate_phdr reports
 * (dlpi_tls_data, PT_TLS p_memsz).  Global memory is neither.  Declared here
 * rather than through <link.h>, whose ELF macros would reach the user's
 * source (ELF64 layout). */
#define PYEMU_CL_LOCAL_SPAN 232448u
#if __SIZEOF_POINTER__ == 8 && defined(__linux__)
struct pyemu_cl_phdr {
    unsigned int pyemu_type, pyemu_flags;
    unsigned long pyemu_offset, pyemu_vaddr, pyemu_paddr, pyemu_filesz, pyemu_memsz, pyemu_align;
};
struct pyemu_cl_dlinfo {
    unsigned long pyemu_addr;
    const char *pyemu_name;
    const pyemu_cl_phdr *pyemu_phdr;
    unsigned short pyemu_phnum;
    unsigned long long pyemu_adds, pyemu_subs;
    size_t pyemu_tls_modid;
    void *pyemu_tls_data;
};
extern "C" int dl_iterate_phdr(int (*)(pyemu_cl_dlinfo *, size_t, void *), void *);
static inline int pyemu_cl_in_tls(pyemu_cl_dlinfo *pyemu_info, size_t pyemu_size, void *pyemu_arg)
{
    if (pyemu_size < sizeof *pyemu_info || !pyemu_info->pyemu_tls_data)
        return 0;
    const char *pyemu_p = *(const char **)pyemu_arg, *pyemu_t = (const char *)pyemu_info->pyemu_tls_data;
    for (unsigned pyemu_i = 0; pyemu_i < pyemu_info->pyemu_phnum; ++pyemu_i)
        if (pyemu_info->pyemu_phdr[pyemu_i].pyemu_type == 7u /* PT_TLS */)
            return pyemu_p >= pyemu_t && pyemu_p < pyemu_t + pyemu_info->pyemu_phdr[pyemu_i].pyemu_memsz;
    return 0;
}
#endif
static inline bool pyemu_cl_is_local(const void *pyemu_p)
{
    const char *pyemu_c = (const char *)pyemu_p, *pyemu_base = (const char *)pyemu_tctx.dyn_smem_base;
    if (pyemu_base && pyemu_c >= pyemu_base && pyemu_c < pyemu_base + PYEMU_CL_LOCAL_SPAN)
        return true;
#if __SIZEOF_POINTER__ == 8 && defined(__linux__)
    return dl_iterate_phdr(pyemu_cl_in_tls, &pyemu_c) != 0;
#else
    return false;
#endif
}

/* ---- the copies --------------------------------------------------------- */

/* The event a copy returns: the one given, or a new one. */
static inline event_t pyemu_cl_event_of(event_t pyemu_e) { return pyemu_e.pyemu_id ? pyemu_e : event_t(1); }

/* dst[i] = src[i] for i < n, gentype elements (local <- global or global <- local). */
template <class pyemu_T>
inline event_t async_work_group_copy(pyemu_T *pyemu_dst, const pyemu_T *pyemu_src, size_t pyemu_n, event_t pyemu_e)
{
    if (get_local_linear_id() == 0)
        for (size_t pyemu_i = 0; pyemu_i < pyemu_n; ++pyemu_i)
            pyemu_dst[pyemu_i] = pyemu_src[pyemu_i];
    return pyemu_cl_event_of(pyemu_e);
}

/* Into local memory: dst[i] = src[i * stride]; out of it: dst[i * stride] =
 * src[i].  Both forms have the same C++ signature here, so the direction is
 * told by where dst lies. */
template <class pyemu_T>
inline event_t async_work_group_strided_copy(pyemu_T *pyemu_dst, const pyemu_T *pyemu_src, size_t pyemu_n,
                                             size_t pyemu_stride, event_t pyemu_e)
{
    if (get_local_linear_id() == 0) {
        if (pyemu_cl_is_local(pyemu_dst) || !pyemu_cl_is_local(pyemu_src)) {
            for (size_t pyemu_i = 0; pyemu_i < pyemu_n; ++pyemu_i)
                pyemu_dst[pyemu_i] = pyemu_src[pyemu_i * pyemu_stride];
        } else {
            for (size_t pyemu_i = 0; pyemu_i < pyemu_n; ++pyemu_i)
                pyemu_dst[pyemu_i * pyemu_stride] = pyemu_src[pyemu_i];
        }
    }
    return pyemu_cl_event_of(pyemu_e);
}

/* A barrier at the caller's line: the copies are complete before it. */
#define wait_group_events(pyemu_num, pyemu_list) pyemu_barrier(PYEMU_SITE)

/* A hint only; all memory is host memory. */
template <class pyemu_T> inline void prefetch(const pyemu_T *, size_t) {}
