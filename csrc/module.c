/* module.c - loading compiled kernel modules and describing their kernels.
 *
 * Every load is a module instance of its own, as every cuModuleLoad (every
 * SourceModule, every OpenCL program) is: its __device__/__constant__
 * variables and texture references are its own, even when another instance
 * of the same file is loaded.  dlopen of a file already loaded hands back
 * the loaded object, so a file loaded again is loaded from a private copy:
 * a memfd holding the same bytes, opened as /proc/self/fd/N.  (dlmopen
 * would give each instance a namespace of its own, but glibc has only 16
 * and each reloads libstdc++; relocating the variables would change every
 * access the compiler emits.  A copy costs one file copy, nothing on disk.)
 * The memfd stays open while its instance lives: glibc matches a loaded
 * object by name first, and a closed, reused fd number would name the old
 * instance. */
#define _GNU_SOURCE
#include "core.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* the memfd of each instance loaded from a private copy */
typedef struct instance_fd {
    const pyemu_module *m;
    int fd;
    struct instance_fd *next;
} instance_fd;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static instance_fd *instances;

/* A private copy of the file at path: a memfd (returned in *fd) and its
 * /proc/self/fd name in out. */
static int private_copy(const char *path, char *out, size_t n, int *fd)
{
    int status = PYEMU_SUCCESS, in = -1, mf = -1;
    char buf[65536];
    in = open(path, O_RDONLY | O_CLOEXEC);
    PYEMU_FAIL_IF(in < 0, PYEMU_E_MODULE, "cannot read kernel module %s", path);
    mf = memfd_create("pyemu-module", MFD_CLOEXEC);
    PYEMU_FAIL_IF(mf < 0, PYEMU_E_SYSTEM, "cannot make a second instance of %s (memfd_create)",
                  path);
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        PYEMU_FAIL_IF(r < 0, PYEMU_E_MODULE, "cannot read kernel module %s", path);
        if (r == 0)
            break;
        for (ssize_t o = 0; o < r;) {
            ssize_t w = write(mf, buf + o, (size_t)(r - o));
            PYEMU_FAIL_IF(w <= 0, PYEMU_E_SYSTEM, "cannot copy kernel module %s", path);
            o += w;
        }
    }
    snprintf(out, n, "/proc/self/fd/%d", mf);
    *fd = mf;
    mf = -1;
ERROR:
    if (in >= 0)
        close(in);
    if (mf >= 0)
        close(mf);
    return status;
}

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
        api.warp_block = pyemu_warp_block;
        api.warp_fast_done = pyemu_warp_fast_done;
        api.warp_pred_span = pyemu_warp_pred_span;
        api.warp_pred_dense = pyemu_warp_pred_dense;
        api.warp_pred_whole = pyemu_warp_pred_whole;
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
    int status = PYEMU_SUCCESS, copy_fd = -1;
    void *h = NULL;
    pyemu_module *m = NULL;
    instance_fd *inst = NULL;
    char copy_path[64];
    PYEMU_FAIL_IF(!path || !module, PYEMU_E_INVALID_VALUE, "no module path");
    pthread_mutex_lock(&load_lock);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (h) {
        /* loaded already: this instance gets a copy of its own */
        dlclose(h);
        h = NULL;
        status = private_copy(path, copy_path, sizeof copy_path, &copy_fd);
        if (status == PYEMU_SUCCESS) {
            inst = calloc(1, sizeof *inst);
            if (!inst)
                status = PYEMU_E_OUT_OF_MEMORY;
        }
        if (status) {
            pthread_mutex_unlock(&load_lock);
            goto ERROR;
        }
        path = copy_path;
    }
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    pthread_mutex_unlock(&load_lock);
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
    if (inst) {
        inst->m = m;
        inst->fd = copy_fd;
        pthread_mutex_lock(&load_lock);
        inst->next = instances;
        instances = inst;
        pthread_mutex_unlock(&load_lock);
    }
    *module = m;
    return PYEMU_SUCCESS;
ERROR:
    if (h)
        dlclose(h);
    if (copy_fd >= 0)
        close(copy_fd);
    free(inst);
    return status;
}

/* Closes the memfd of an instance loaded from a private copy (after dlclose). */
static void forget_instance(const pyemu_module *m)
{
    int fd = -1;
    pthread_mutex_lock(&load_lock);
    for (instance_fd **pp = &instances; *pp; pp = &(*pp)->next) {
        if ((*pp)->m == m) {
            instance_fd *i = *pp;
            *pp = i->next;
            fd = i->fd;
            free(i);
            break;
        }
    }
    if (fd >= 0) {
        /* an object dlclose could not unload (GNU unique symbols make it
         * undeletable) keeps its name: the fd stays open, so no later copy
         * is given that name and the old object instead of its own */
        char name[64];
        snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
        void *still = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (still)
            dlclose(still);
        else
            close(fd);
    }
    pthread_mutex_unlock(&load_lock);
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
        forget_instance(m);
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
