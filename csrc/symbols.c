/* symbols.c - a kernel module's __device__ and __constant__ variables: the
 * symbol table, the 64 KiB constant limit, and the module's data as device
 * memory (cudaGetSymbolAddress).
 *
 * File-scope variables are ordinary globals of the module's shared object,
 * one instance per loaded module.  At load the module's ELF symbol table is
 * read from its file (local symbols too: a `static __constant__` has one
 * only there) and kept: name, address, size, and whether the variable is
 * __constant__ (the qualifier puts each in a section "pyemu_const.N", see
 * include/pyemu/detail/cuda_qualifiers.h) or read-only (a const variable).
 * A module whose __constant__ variables take more than 64 KiB is refused,
 * naming them, as ptxas refuses the file.
 *
 * A symbol's device address: the kernel code reads the variable at its host
 * address, outside device memory, so pyemu_module_map_data() makes the
 * module's writable pages (its RW segment less the RELRO pages) a shared
 * mapping (memfd, copied once, then moved over the originals) and maps the
 * same pages again at the end of a device allocation (mremap with old size
 * 0 gives a second view of shared pages).  A write through either address
 * is seen through the other; the allocation is an island (over 64 KiB), so
 * what lies past the module's data faults as past its end.
 */
#define _GNU_SOURCE
#include "core.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONST_SECTION "pyemu_const."
#define MAX_CONSTANT_BYTES 65536u

typedef struct modsyms {
    const pyemu_module *m;
    struct modsyms *next;
    unsigned int n;
    pyemu_symbol_view *syms;
    char *names;
    uintptr_t data_lo, data_hi;     /* the writable pages */
    uintptr_t relro_lo, relro_hi;   /* pages ld.so made read-only */
    int shared;                     /* data pages are a shared mapping now */
} modsyms;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static modsyms *all;

static modsyms *find(const pyemu_module *m)
{
    for (modsyms *s = all; s; s = s->next)
        if (s->m == m)
            return s;
    return NULL;
}

/* the writable segment of the module at base, less the RELRO pages */
struct seg_arg { uintptr_t base; modsyms *s; };

static int find_data(struct dl_phdr_info *info, size_t size, void *p)
{
    struct seg_arg *a = p;
    (void)size;
    if (info->dlpi_addr != a->base)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = 0, hi = 0, rlo = 0, rhi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = a->base + ph->p_vaddr, end = start + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !lo) {
            lo = start & ~(uintptr_t)(page - 1);
            hi = (end + page - 1) & ~(uintptr_t)(page - 1);
        } else if (ph->p_type == PT_GNU_RELRO) {
            rlo = start & ~(uintptr_t)(page - 1);
            rhi = end & ~(uintptr_t)(page - 1);     /* what ld.so protects */
        }
    }
    if (rhi > lo && rhi <= hi)
        lo = rhi;
    a->s->data_lo = lo;
    a->s->data_hi = hi > lo ? hi : lo;
    a->s->relro_lo = rlo;
    a->s->relro_hi = rhi;
    return 1;
}

/* "_ZL1c" -> "c", "_ZN2ns4coefE" -> "ns::coef"; others stay as they are
 * (only for the error message; Python demangles fully) */
static void short_name(const char *raw, char *out, size_t cap)
{
    const char *p = raw;
    snprintf(out, cap, "%s", raw);
    if (strncmp(p, "_Z", 2) != 0)
        return;
    p += 2;
    int nested = *p == 'N';
    p += nested;
    if (*p == 'L')
        p++;
    size_t o = 0;
    char tmp[256];
    while (*p >= '0' && *p <= '9') {
        char *end;
        unsigned long len = strtoul(p, &end, 10);
        if (len == 0 || len > strlen(end) || o + len + 3 >= sizeof tmp)
            return;
        if (o) {
            tmp[o++] = ':';
            tmp[o++] = ':';
        }
        memcpy(tmp + o, end, len);
        o += len;
        p = end + len;
        if (!nested)
            break;
    }
    if (o && (nested ? *p == 'E' : *p == 0) && cap) {
        if (o >= cap)
            o = cap - 1;
        memcpy(out, tmp, o);
        out[o] = 0;
    }
}

/* the symbol table of the file at path, loaded at base, into s */
static int read_symbols(modsyms *s, const char *path, uintptr_t base)
{
    int status = PYEMU_SUCCESS;
    int fd = -1;
    void *map = MAP_FAILED;
    size_t flen = 0;
    char msg[700];
    fd = open(path, O_RDONLY | O_CLOEXEC);
    PYEMU_FAIL_IF(fd < 0, PYEMU_E_SYSTEM, "cannot read the symbols of %s", path);
    struct stat st;
    PYEMU_FAIL_IF(fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(ElfW(Ehdr)), PYEMU_E_SYSTEM,
                  "cannot read the symbols of %s", path);
    flen = (size_t)st.st_size;
    map = mmap(NULL, flen, PROT_READ, MAP_PRIVATE, fd, 0);
    PYEMU_FAIL_IF(map == MAP_FAILED, PYEMU_E_SYSTEM, "cannot read the symbols of %s", path);
    const char *f = map;
    const ElfW(Ehdr) *eh = map;
#define IN_FILE(off, len) ((size_t)(off) <= flen && (size_t)(len) <= flen - (size_t)(off))
    PYEMU_FAIL_IF(memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shentsize != sizeof(ElfW(Shdr))
                  || !IN_FILE(eh->e_shoff, (size_t)eh->e_shnum * sizeof(ElfW(Shdr))),
                  PYEMU_E_SYSTEM, "%s: not an ELF file of this machine", path);
    const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);
    unsigned int nsec = eh->e_shnum;
    const char *shstr = NULL;
    size_t shstr_len = 0;
    if (eh->e_shstrndx < nsec && IN_FILE(sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size)) {
        shstr = f + sh[eh->e_shstrndx].sh_offset;
        shstr_len = sh[eh->e_shstrndx].sh_size;
    }
    /* the symbol table (the full one if the file still has it) */
    const ElfW(Shdr) *symtab = NULL;
    for (unsigned int i = 0; i < nsec; i++)
        if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !symtab))
            symtab = &sh[i];
    unsigned long long const_total = 0;
    for (unsigned int i = 0; i < nsec; i++)
        if (shstr && sh[i].sh_name < shstr_len &&
            strncmp(shstr + sh[i].sh_name, CONST_SECTION, strlen(CONST_SECTION)) == 0)
            const_total += sh[i].sh_size;
    if (!symtab)
        goto DONE;
    PYEMU_FAIL_IF(symtab->sh_link >= nsec || symtab->sh_entsize != sizeof(ElfW(Sym)) ||
                  !IN_FILE(symtab->sh_offset, symtab->sh_size) ||
                  !IN_FILE(sh[symtab->sh_link].sh_offset, sh[symtab->sh_link].sh_size),
                  PYEMU_E_SYSTEM, "%s: a damaged symbol table", path);
    const ElfW(Sym) *sym = (const void *)(f + symtab->sh_offset);
    size_t nsym = symtab->sh_size / sizeof *sym;
    const char *str = f + sh[symtab->sh_link].sh_offset;
    size_t str_len = sh[symtab->sh_link].sh_size;
    size_t names_len = 0;
    unsigned int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nsym; i++) {
            const ElfW(Sym) *y = &sym[i];
            if (ELF64_ST_TYPE(y->st_info) != STT_OBJECT || y->st_size == 0 ||
                y->st_shndx == SHN_UNDEF || y->st_shndx >= nsec || y->st_name >= str_len)
                continue;
            const ElfW(Shdr) *sec = &sh[y->st_shndx];
            if (!(sec->sh_flags & SHF_ALLOC) || (sec->sh_flags & SHF_TLS))
                continue;
            const char *name = str + y->st_name;
            size_t len = strnlen(name, str_len - y->st_name);
            if (len == 0 || len == str_len - y->st_name)
                continue;
            int is_const = shstr && sec->sh_name < shstr_len &&
                strncmp(shstr + sec->sh_name, CONST_SECTION, strlen(CONST_SECTION)) == 0;
            if (!is_const && !(sec->sh_flags & SHF_WRITE))
                continue;     /* string literals, tables: not variables of the program */
            if (pass == 0) {
                names_len += len + 1;
                n++;
                continue;
            }
            uintptr_t addr = base + y->st_value;
            unsigned int flags = 0;
            if (is_const)
                flags |= PYEMU_SYM_CONSTANT;
            if (!(sec->sh_flags & SHF_WRITE) || (addr >= s->relro_lo && addr < s->relro_hi))
                flags |= PYEMU_SYM_READONLY;
            if (ELF64_ST_BIND(y->st_info) == STB_LOCAL)
                flags |= PYEMU_SYM_LOCAL;
            pyemu_symbol_view *v = &s->syms[s->n++];
            memcpy(s->names + names_len, name, len + 1);
            v->name = s->names + names_len;
            names_len += len + 1;
            v->addr = addr;
            v->size = y->st_size;
            v->flags = flags;
        }
        if (pass == 0) {
            s->syms = calloc(n ? n : 1, sizeof *s->syms);
            s->names = malloc(names_len ? names_len : 1);
            PYEMU_FAIL_IF(!s->syms || !s->names, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
            names_len = 0;
        }
    }
DONE:
    if (const_total > MAX_CONSTANT_BYTES) {
        /* name the variables, as ptxas's "too much global constant data" does not */
        size_t o = 0;
        msg[0] = 0;
        for (unsigned int i = 0; i < s->n && o + 80 < sizeof msg; i++) {
            if (!(s->syms[i].flags & PYEMU_SYM_CONSTANT))
                continue;
            char nm[64];
            short_name(s->syms[i].name, nm, sizeof nm);
            o += snprintf(msg + o, sizeof msg - o, "%s%s (%llu bytes)", o ? ", " : "", nm,
                          s->syms[i].size);
        }
        PYEMU_FAIL_IF(1, PYEMU_E_MODULE, "the module's __constant__ variables take %llu bytes; "
                      "a module may have at most %u (64 KiB, as on a GPU): %s", const_total,
                      MAX_CONSTANT_BYTES, msg);
    }
#undef IN_FILE
ERROR:
    if (map != MAP_FAILED)
        munmap(map, flen);
    if (fd >= 0)
        close(fd);
    return status;
}

static void free_modsyms(modsyms *s)
{
    if (s) {
        free(s->syms);
        free(s->names);
        free(s);
    }
}

/* Called by pyemu_module_load once the module is loaded, before any of its
 * code runs; fails (and the module is not loaded) over the constant limit. */
int pyemu_symbols_attach(const pyemu_module *m, const char *path, uintptr_t base)
{
    int status = PYEMU_SUCCESS;
    modsyms *s = calloc(1, sizeof *s);
    PYEMU_FAIL_IF(!s, PYEMU_E_OUT_OF_MEMORY, "out of host memory");
    s->m = m;
    struct seg_arg a = {base, s};
    dl_iterate_phdr(find_data, &a);
    status = read_symbols(s, path, base);
    if (status == PYEMU_E_SYSTEM) {
        /* the file is gone or unreadable now: the module works, without symbols */
        free(s->syms);
        free(s->names);
        s->syms = NULL;
        s->names = NULL;
        s->n = 0;
        status = PYEMU_SUCCESS;
    }
    if (status)
        goto ERROR;
    pthread_mutex_lock(&lock);
    s->next = all;
    all = s;
    pthread_mutex_unlock(&lock);
    return PYEMU_SUCCESS;
ERROR:
    free_modsyms(s);
    return status;
}

/* Called by pyemu_module_release before the module is unloaded. */
void pyemu_symbols_detach(const pyemu_module *m)
{
    pthread_mutex_lock(&lock);
    for (modsyms **pp = &all; *pp; pp = &(*pp)->next) {
        if ((*pp)->m == m) {
            modsyms *s = *pp;
            *pp = s->next;
            free_modsyms(s);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

#define CHECK_MODULE(m) PYEMU_FAIL_IF(!(m) || (m)->magic != PYEMU_MAGIC_MODULE, \
                                      PYEMU_E_INVALID_HANDLE, "invalid module handle")

PYEMU_API int pyemu_module_symbol_count(pyemu_module *m, unsigned int *count)
{
    int status = PYEMU_SUCCESS;
    CHECK_MODULE(m);
    pthread_mutex_lock(&lock);
    modsyms *s = find(m);
    *count = s ? s->n : 0;
    pthread_mutex_unlock(&lock);
ERROR:
    return status;
}

PYEMU_API int pyemu_module_symbol(pyemu_module *m, unsigned int index, pyemu_symbol_view *view)
{
    int status = PYEMU_SUCCESS;
    CHECK_MODULE(m);
    pthread_mutex_lock(&lock);
    modsyms *s = find(m);
    if (s && index < s->n)
        *view = s->syms[index];
    pthread_mutex_unlock(&lock);
    PYEMU_FAIL_IF(!s || index >= s->n, PYEMU_E_INVALID_VALUE, "no symbol %u", index);
ERROR:
    return status;
}

/* the module's data pages become a shared mapping (once) */
static int share_data(modsyms *s)
{
    int status = PYEMU_SUCCESS;
    size_t len = s->data_hi - s->data_lo;
    void *tmp = MAP_FAILED;
    int fd = memfd_create("pyemu-module-data", MFD_CLOEXEC);
    PYEMU_FAIL_IF(fd < 0, PYEMU_E_SYSTEM, "memfd_create failed");
    PYEMU_FAIL_IF(ftruncate(fd, (off_t)len) != 0, PYEMU_E_SYSTEM, "ftruncate failed");
    tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    PYEMU_FAIL_IF(tmp == MAP_FAILED, PYEMU_E_SYSTEM, "mmap of the module's data failed");
    memcpy(tmp, (void *)s->data_lo, len);
    /* one step: the shared pages take the originals' place */
    PYEMU_FAIL_IF(mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)s->data_lo)
                  == MAP_FAILED, PYEMU_E_SYSTEM, "mremap of the module's data failed");
    tmp = MAP_FAILED;
    s->shared = 1;
ERROR:
    if (tmp != MAP_FAILED)
        munmap(tmp, len);
    if (fd >= 0)
        close(fd);
    return status;
}

PYEMU_API int pyemu_module_map_data(pyemu_module *m, unsigned long long *host_lo,
                                    unsigned long long *len, unsigned long long *alloc,
                                    unsigned long long *dev_lo)
{
    int status = PYEMU_SUCCESS;
    unsigned long long a = 0;
    CHECK_MODULE(m);
    pthread_mutex_lock(&lock);
    modsyms *s = find(m);
    PYEMU_FAIL_IF(!s || s->data_hi <= s->data_lo, PYEMU_E_INVALID_VALUE,
                  "the module has no writable data");
    size_t n = s->data_hi - s->data_lo;
    /* two modules of the same file are one dlopen handle: their data is one */
    for (modsyms *o = all; o && !s->shared; o = o->next)
        if (o != s && o->shared && o->data_lo == s->data_lo)
            s->shared = 1;
    if (!s->shared && (status = share_data(s)) != PYEMU_SUCCESS)
        goto ERROR;
    /* over 64 KiB: always an island of its own mapping, never a slab slot */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t want = n > 65536 ? n : 65536 + page;
    status = pyemu_mem_alloc(want, &a);
    if (status)
        goto ERROR;
    uintptr_t end = (uintptr_t)a + want;    /* page-aligned: want is whole pages */
    PYEMU_FAIL_IF(mremap((void *)s->data_lo, 0, n, MREMAP_MAYMOVE | MREMAP_FIXED,
                         (void *)(end - n)) == MAP_FAILED, PYEMU_E_SYSTEM,
                  "cannot map the module's data into device memory");
    *host_lo = s->data_lo;
    *len = n;
    *alloc = a;
    *dev_lo = end - n;
    a = 0;
ERROR:
    pthread_mutex_unlock(&lock);
    if (a)
        pyemu_mem_free(a, "pyemu_module_map_data");
    return status;
}
