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
        api.warp_op = pyemu_warp_op;
        api.warp_active = pyemu_warp_active;
        api.first_thread_done_warp = pyemu_first_thread_done_warp;
        __atomic_store_n(&api.abi_version, PYEMU_ABI_VERSION, __ATOMIC_RELEASE);
    }
    return &api;
}

/* The executable segments of the module being loaded (m->text_lo[0] holds
 * its base address): kernel code, for the fault handler (fault.c), which
 * recovers only faults of kernel code. */
static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    pyemu_module *m = arg;
    (void)size;
    if (info->dlpi_addr != m->text_lo[0])
        return 0;
    m->ntext = 0;
    for (int i = 0; i < info->dlpi_phnum && m->ntext < PYEMU_MODULE_TEXTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            m->text_lo[m->ntext] = info->dlpi_addr + ph->p_vaddr;
            m->text_hi[m->ntext++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    return 1;
}

/* csrc/symbols.c: the module's variables, read at load, forgotten at unload */
int pyemu_symbols_attach(const pyemu_module *m, const char *path, uintptr_t base);
void pyemu_symbols_detach(const pyemu_module *m);

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
    m = calloc(1, sizeof *m);
    PYEMU_FAIL_IF(!m, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    m->text_lo[0] = lm->l_addr;
    dl_iterate_phdr(find_text, m);
    /* its __device__/__constant__ variables; over 64 KiB of constants: refused */
    if ((status = pyemu_symbols_attach(m, path, lm->l_addr)) != PYEMU_SUCCESS) {
        free(m);
        m = NULL;
        goto ERROR;
    }
    for (int i = 0; i < m->ntext; i++)
        pyemu_fault_add_code(m->text_lo[i], m->text_hi[i]);
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

/* Commands in flight hold references, so a module outlives its last
 * launch; when the last holder lets go no worker runs its code any more, and
 * it is unloaded (its __shared__ thread-local storage goes with it: glibc
 * frees each worker's block of it when that worker next uses TLS). */
PYEMU_API void pyemu_module_release(pyemu_module *m)
{
    if (!m || m->magic != PYEMU_MAGIC_MODULE)
        return;
    if (atomic_fetch_sub(&m->refs, 1) == 1) {
        m->magic = PYEMU_MAGIC_DEAD;
        pyemu_symbols_detach(m);
        for (int i = 0; i < m->ntext; i++)
            pyemu_fault_remove_code(m->text_lo[i], m->text_hi[i]);
        dlclose(m->handle);
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
    view->static_smem = (unsigned int)pyemu_desc_static_smem(d);
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
