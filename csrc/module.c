/* module.c - loading compiled kernel modules and describing their kernels. */
#include "core.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

/* What a kernel module calls; it gets this table instead of looking the core
 * up by symbol name, so nothing else in the process can stand in for it. */
static const pyemu_core_api *pyemu_core_entry_points(void)
{
    static pyemu_core_api api;
    if (!api.abi_version) {
        api.tctx_offset = (long)((char *)&pyemu_tctx - (char *)__builtin_thread_pointer());
        api.barrier = pyemu_barrier;
        api.barrier_reduce = pyemu_barrier_reduce;
        api.barrier_diverged = pyemu_barrier_diverged;
        api.first_thread_done = pyemu_first_thread_done;
        api.printf = pyemu_printf;
        api.assert_fail = pyemu_assert_fail;
        api.trap = pyemu_trap;
        api.malloc = pyemu_malloc;
        api.free = pyemu_free;
        __atomic_store_n(&api.abi_version, PYEMU_ABI_VERSION, __ATOMIC_RELEASE);
    }
    return &api;
}

/* The executable segments of the module loaded at `base`: kernel code, for
 * the fault handler (fault.c), which recovers only faults of kernel code. */
static int add_text(struct dl_phdr_info *info, size_t size, void *base)
{
    (void)size;
    if (info->dlpi_addr != *(ElfW(Addr) *)base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            pyemu_fault_add_code(info->dlpi_addr + ph->p_vaddr,
                                 info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
    }
    return 1;
}

#define CHECK_MODULE(m) PYEMU_FAIL_IF(!(m) || (m)->magic != PYEMU_MAGIC_MODULE, \
                                      PYEMU_E_INVALID_HANDLE, "invalid module handle")

PYEMU_API int pyemu_module_load(const char *path, pyemu_module **module)
{
    int status = PYEMU_SUCCESS;
    void *h = NULL;
    pyemu_module *m = NULL;
    PYEMU_FAIL_IF(!path || !module, PYEMU_E_INVALID_VALUE, "no module path");
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    PYEMU_FAIL_IF(!h, PYEMU_E_MODULE, "cannot load kernel module: %s", dlerror());
    const pyemu_module_info *info = dlsym(h, "pyemu_module_info");
    PYEMU_FAIL_IF(!info, PYEMU_E_MODULE, "%s is not a pyemu kernel module", path);
    PYEMU_FAIL_IF(info->abi_version != PYEMU_ABI_VERSION, PYEMU_E_MODULE,
                  "%s was built for kernel ABI %u; this core speaks %u", path, info->abi_version,
                  PYEMU_ABI_VERSION);
    PYEMU_FAIL_IF(!info->bind, PYEMU_E_MODULE, "%s has no binding entry", path);
    struct link_map *lm = NULL;
    PYEMU_FAIL_IF(dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm, PYEMU_E_MODULE,
                  "cannot locate kernel module %s in memory", path);
    ElfW(Addr) base = lm->l_addr;
    dl_iterate_phdr(add_text, &base);
    m = calloc(1, sizeof *m);
    PYEMU_FAIL_IF(!m, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    info->bind(pyemu_core_entry_points());
    m->magic = PYEMU_MAGIC_MODULE;
    atomic_init(&m->refs, 1);
    m->handle = h;
    m->info = info;
    *module = m;
    return PYEMU_SUCCESS;
ERROR:
    if (h)
        dlclose(h);
    return status;
}

/* Commands in flight hold references, so a module outlives its last launch. */
PYEMU_API void pyemu_module_release(pyemu_module *m)
{
    if (!m || m->magic != PYEMU_MAGIC_MODULE)
        return;
    if (atomic_fetch_sub(&m->refs, 1) == 1) {
        m->magic = PYEMU_MAGIC_DEAD;
        /* never dlclose: TLS (__shared__) of a module must outlive the workers' use */
        free(m);
    }
}

PYEMU_API int pyemu_module_kernel_count(pyemu_module *m, unsigned int *count)
{
    int status = PYEMU_SUCCESS;
    CHECK_MODULE(m);
    *count = m->info->nkernels;
ERROR:
    return status;
}

PYEMU_API int pyemu_module_kernel(pyemu_module *m, unsigned int index, pyemu_kernel_view *view)
{
    int status = PYEMU_SUCCESS;
    CHECK_MODULE(m);
    PYEMU_FAIL_IF(index >= m->info->nkernels, PYEMU_E_INVALID_VALUE, "no kernel %u", index);
    const pyemu_kernel_desc *d = &m->info->kernels[index];
    view->name = d->name;
    view->nparams = d->nparams;
    view->args_size = d->args_size;
    memcpy(view->reqd_block, d->reqd_block, sizeof view->reqd_block);
    view->max_threads = d->max_threads;
ERROR:
    return status;
}

PYEMU_API int pyemu_module_param(pyemu_module *m, unsigned int index, unsigned int param,
                                 pyemu_param_view *view)
{
    int status = PYEMU_SUCCESS;
    CHECK_MODULE(m);
    PYEMU_FAIL_IF(index >= m->info->nkernels, PYEMU_E_INVALID_VALUE, "no kernel %u", index);
    const pyemu_kernel_desc *d = &m->info->kernels[index];
    PYEMU_FAIL_IF(param >= d->nparams, PYEMU_E_INVALID_VALUE, "no parameter %u", param);
    const pyemu_param_desc *p = &d->params[param];
    view->type_name = p->type_name;
    view->kind = p->kind;
    view->size = p->size;
    view->align = p->align;
    view->offset = p->offset;
    view->flags = p->flags;
ERROR:
    return status;
}
