"""pyemu.compiler: discovery, entries, running kernels, diagnostics, options.

No core needed: modules are loaded with ctypes next to a tiny C test host
that defines pyemu_tctx and stubs of the abi.h functions.  The kernels
compile against a copy of include/pyemu in which the device headers other
than qualifiers and builtins are stubs, so these tests do not depend on the
math/atomics/vector headers (test_real_headers covers those).
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pyemu.compiler import driver as compiler  # noqa: E402
from pyemu.compiler import CompileError, compile_source  # noqa: E402

# ------------------------------------------------------------------ helpers

KEEP = {"cuda_qualifiers.h", "cuda_builtins.h", "kernel_entry.hpp", "smem.h"}
VECTOR_STUB = """typedef pyemu_uint3 uint3;
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
"""


def make_include_tree(dst: Path) -> Path:
    """A copy of include/pyemu whose other device headers are stubs."""
    src = REPO / "include" / "pyemu"
    out = dst / "pyemu"
    (out / "detail").mkdir(parents=True)
    (out / "cuda").mkdir()
    shutil.copy(src / "abi.h", out / "abi.h")
    shutil.copy(src / "cuda_device.h", out / "cuda_device.h")
    wanted = re.findall(r'#include "detail/([^"]+)"', (src / "cuda_device.h").read_text())
    for name in set(wanted) | KEEP:
        if name in KEEP:
            shutil.copy(src / "detail" / name, out / "detail" / name)
        else:
            stub = VECTOR_STUB if name == "cuda_vector_types.h" else "/* stub */\n"
            (out / "detail" / name).write_text(stub)
    return dst


@pytest.fixture(scope="session")
def tree_dir(tmp_path_factory) -> Path:
    return make_include_tree(tmp_path_factory.mktemp("include"))


@pytest.fixture
def tree(tree_dir, host, monkeypatch, tmp_path) -> Path:
    """Compile against the stub tree, into a cache of this test's own (host loaded)."""
    monkeypatch.setattr(compiler, "_include_root", lambda: tree_dir)
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path / "cache"))
    compiler._include_digest.cache_clear()
    return tree_dir


HOST_C = r"""
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#define PYEMU_CORE 1
#include "pyemu/abi.h"
__thread pyemu_thread_ctx pyemu_tctx __attribute__((tls_model("initial-exec")));
static int first_done_calls, barriers;
static _Alignas(64) unsigned char smem[4096];
pyemu_thread_ctx *host_ctx(void) { return &pyemu_tctx; }
void host_reset(unsigned bx, unsigned by, unsigned bz) {
    pyemu_thread_ctx z = {{0, 0, 0}, {0, 0, 0}, {bx, by, bz}, {1, 1, 1}, {0, 0, 0}, 3,
                          sizeof smem, smem, 0, smem};
    pyemu_tctx = z;
    first_done_calls = 0;
}
unsigned char *host_smem(void) { return smem; }
int host_first_done_calls(void) { return first_done_calls; }
int pyemu_first_thread_done(void) { first_done_calls++; return 1; }
void pyemu_barrier(const char *site) { (void)site; barriers++; }
int pyemu_barrier_reduce(const char *site, int pred, int op) { (void)site; (void)op; return pred; }
int pyemu_printf(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt); int n = vprintf(fmt, ap); va_end(ap); return n;
}
void pyemu_assert_fail(const char *e, const char *f, unsigned l, const char *fn) {
    fprintf(stderr, "%s:%u: %s: %s\n", f, l, fn, e); abort();
}
void pyemu_trap(void) { abort(); }
void pyemu_barrier_diverged(const char *s, unsigned o, unsigned e) { (void)s; (void)o; (void)e; abort(); }
/* the table a kernel module gets at load, as the core hands it over */
const pyemu_core_api *host_api(void) {
    static pyemu_core_api api;
    api.abi_version = PYEMU_ABI_VERSION;
    api.tctx_offset = (long)((char *)&pyemu_tctx - (char *)__builtin_thread_pointer());
    api.barrier = pyemu_barrier;
    api.barrier_reduce = pyemu_barrier_reduce;
    api.barrier_diverged = pyemu_barrier_diverged;
    api.first_thread_done = pyemu_first_thread_done;
    api.printf = pyemu_printf;
    api.assert_fail = pyemu_assert_fail;
    api.trap = pyemu_trap;
    api.malloc = malloc;
    api.free = free;
    return &api;
}
"""


class ParamDesc(ctypes.Structure):
    _fields_ = [("type_name", ctypes.c_char_p), ("kind", ctypes.c_uint),
                ("size", ctypes.c_uint), ("align", ctypes.c_uint),
                ("offset", ctypes.c_uint), ("flags", ctypes.c_uint)]


RunFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class KernelDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("run_block", RunFn), ("run_thread", RunFn),
                ("nparams", ctypes.c_uint), ("params", ctypes.POINTER(ParamDesc)),
                ("args_size", ctypes.c_uint), ("reqd_block", ctypes.c_uint * 3),
                ("max_threads", ctypes.c_uint),
                ("smem", ctypes.POINTER(ctypes.c_ulong)),
                ("smem_common", ctypes.POINTER(ctypes.c_ulong))]


BindFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class ModuleInfo(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint), ("nkernels", ctypes.c_uint),
                ("kernels", ctypes.POINTER(KernelDesc)), ("source_name", ctypes.c_char_p),
                ("bind", BindFn)]


class Uint3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class ThreadCtx(ctypes.Structure):
    _fields_ = [("threadIdx", Uint3), ("blockIdx", Uint3), ("blockDim", Uint3),
                ("gridDim", Uint3), ("global_offset", Uint3), ("work_dim", ctypes.c_uint),
                ("dyn_smem", ctypes.c_uint), ("dyn_smem_base", ctypes.c_void_p)]


@pytest.fixture(scope="session")
def host(tmp_path_factory):
    """The C test host: kernel modules get its table of entry points at load
    (module_info binds them), as the core hands over its own.

    Built and loaded once a process: the modules that import this fixture
    would otherwise each load a copy, and every copy's initial-exec
    pyemu_tctx takes glibc's small static TLS surplus, until a dlopen fails
    with "cannot allocate memory in static TLS block"."""
    if _HOST:
        return _HOST[0]
    d = tmp_path_factory.mktemp("host")
    (d / "host.c").write_text(HOST_C)
    subprocess.run(["gcc", "-std=c11", "-O1", "-fPIC", "-shared", f"-I{REPO / 'include'}",
                    str(d / "host.c"), "-o", str(d / "libhost.so")], check=True)
    lib = ctypes.CDLL(str(d / "libhost.so"))
    lib.host_api.restype = ctypes.c_void_p
    lib.host_ctx.restype = ctypes.POINTER(ThreadCtx)
    lib.host_smem.restype = ctypes.POINTER(ctypes.c_ubyte)
    _HOST.append(lib)
    return lib


_HOST = []


def module_info(path: str):
    """(lib, info, {name: KernelDesc}) of a compiled module, bound to the test host
    when a test uses the host fixture."""
    lib = ctypes.CDLL(path)
    info = ModuleInfo.in_dll(lib, "pyemu_module_info")
    if _HOST:       # the newest host: another test module may have built one before
        info.bind(_HOST[-1].host_api())
    kernels = {info.kernels[i].name.decode(): info.kernels[i] for i in range(info.nkernels)}
    return lib, info, kernels


def params(desc: KernelDesc) -> list:
    return [desc.params[i] for i in range(desc.nparams)]


def args_buffer(*fields):
    """A ctypes struct of (ctype, value) pairs: the C layout of the arguments."""
    class Args(ctypes.Structure):
        _fields_ = [(f"a{i}", t) for i, (t, _) in enumerate(fields)]
    return Args(*[v for _, v in fields])


def ptr(arr) -> ctypes.c_void_p:
    return ctypes.c_void_p(ctypes.addressof(arr))


VECADD = """
__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
"""

# ---------------------------------------------------------------- discovery


def _abi_version() -> int:
    """PYEMU_ABI_VERSION as include/pyemu/abi.h says."""
    import re
    text = (compiler._include_root() / "pyemu" / "abi.h").read_text()
    return int(re.search(r"#define\s+PYEMU_ABI_VERSION\s+(\d+)", text).group(1))


def test_discovers_plain_kernels_in_order(tree):
    src = VECADD + "__device__ float helper(float x) { return x; }\n" \
                   "__global__ void second(int *p) { p[0] = 1; }\n"
    m = compile_source(src)
    assert m.kernel_names == ("vecAdd", "second")
    _, info, kernels = module_info(m.path)
    assert info.abi_version == _abi_version() and info.source_name == b"kernel.cu"
    assert list(kernels) == ["vecAdd", "second"]
    assert all(list(k.reqd_block) == [0, 0, 0] for k in kernels.values())


def test_templates_only_through_name_expressions(tree, host):
    src = """template <int N, typename T>
__global__ void fill(T *out) { out[threadIdx.x] = (T)N; }
"""
    assert compile_source(src).kernel_names == ()
    m = compile_source(src, name_expressions=["fill<7, float>", "fill<3, int>"])
    assert m.kernel_names == ("fill<7, float>", "fill<3, int>")
    _, _, kernels = module_info(m.path)
    out = (ctypes.c_float * 4)()
    host.host_reset(4, 1, 1)
    kernels["fill<7, float>"].run_block(ptr(args_buffer((ctypes.c_void_p, ptr(out).value))))
    assert list(out) == [7.0] * 4
    assert params(kernels["fill<3, int>"])[0].type_name == b"int*"


def test_namespaces_qualified_only_when_ambiguous(tree, host):
    src = """namespace a { __global__ void k(int *p) { *p = 1; } }
namespace b { inline namespace v1 { __global__ void k(int *p) { *p = 2; } } }
namespace c::d { __global__ void only(int *p) { *p = 3; } }
namespace e { template <int N> __global__ void t(int *p) { *p = N; } }
namespace vis __attribute__((visibility("default"))) { __global__ void vk(int *p) { *p = 5; } }
namespace { __global__ void anon(int *p) { *p = 6; } }
"""
    m = compile_source(src, name_expressions=["e::t<4>"])
    assert m.kernel_names == ("a::k", "b::v1::k", "only", "vk", "anon", "e::t<4>")
    _, _, kernels = module_info(m.path)
    host.host_reset(1, 1, 1)
    for name, want in [("a::k", 1), ("b::v1::k", 2), ("only", 3), ("e::t<4>", 4), ("vk", 5),
                       ("anon", 6)]:
        v = ctypes.c_int(0)
        kernels[name].run_thread(ptr(args_buffer((ctypes.c_void_p, ctypes.addressof(v)))))
        assert v.value == want, name


def test_prototypes_deduplicated_and_undefined_ones_skipped(tree):
    src = """__global__ void k(float *x);
__global__ void never_defined(int n);
__global__ void k(float *x) { x[0] = 0; }
__global__ void k(float *x);
"""
    m = compile_source(src)
    assert m.kernel_names == ("k",)
    assert "never_defined" in m.log and "not defined" in m.log


def test_attributes_and_launch_bounds(tree):
    src = """__global__ void __launch_bounds__(256, 2) lb(float *x) {}
__global__ __attribute__((noinline)) void attr(int n) {}
extern "C" __global__ void ck(void) {}
extern "C" { __global__ void ck2(double d) {} }
static __global__ void sk(char c) {}
__global__ void __launch_bounds__(128) alignas_param(int n) {}
[[maybe_unused]] __global__ void std_attr(int n) {}
"""
    m = compile_source(src)
    assert m.kernel_names == ("lb", "attr", "ck", "ck2", "sk", "alignas_param", "std_attr")


def test_global_in_comments_strings_and_disabled_code(tree):
    src = r"""// __global__ void in_comment(int *p) {}
/* __global__ void in_block_comment(int *p) {} */
const char *s = "__global__ void in_string(int *p) {}";
#if 0
__global__ void disabled(int *p) {}
#endif
#define STR(x) #x
const char *t = STR(__global__ void in_macro_string());
__global__ void real(int *p) {}
"""
    assert compile_source(src).kernel_names == ("real",)


def test_macros_from_options(tree):
    src = """#ifdef WITH_EXTRA
__global__ void extra(int *p) {}
#endif
#define KERNEL(name) __global__ void name(float *x) { x[threadIdx.x] = 0; }
KERNEL(from_macro)
__global__ void KNAME(int *p) {}
"""
    m1 = compile_source(src, options=["-DKNAME=plain"])
    m2 = compile_source(src, options=["-D", "WITH_EXTRA", "-DKNAME=renamed"])
    assert m1.kernel_names == ("from_macro", "plain")
    assert m2.kernel_names == ("extra", "from_macro", "renamed")
    assert m1.key != m2.key


def test_no_kernels_is_a_valid_module(tree):
    m = compile_source("__device__ int twice(int x) { return 2 * x; }\n")
    _, info, _ = module_info(m.path)
    assert m.kernel_names == () and info.nkernels == 0


# ------------------------------------------------------- param descriptors

P_SIGNED, P_UNSIGNED, P_FLOAT, P_POINTER, P_STRUCT = 1, 2, 3, 4, 5

MIXED = """struct S { int a; double b; };
enum E : unsigned char { E0 };
enum class F : short { F0 };
__global__ void mixed(char c, double d, int *p, S s, E e, bool b, size_t z,
                      const float *cf, unsigned short us, float f, F fe, const int ci,
                      float2 v2, long long ll) {}
"""


@pytest.mark.parametrize("std", ["c++17", "c++11"])
def test_param_descriptors(tree, std):
    m = compile_source(MIXED, options=[f"-std={std}"])
    _, _, kernels = module_info(m.path)
    k = kernels["mixed"]
    got = [(p.type_name.decode(), p.kind, p.size, p.align, p.offset, p.flags) for p in params(k)]

    class S(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_double)]

    ctypes_fields = [ctypes.c_char, ctypes.c_double, ctypes.c_void_p, S, ctypes.c_ubyte,
                     ctypes.c_bool, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_ushort,
                     ctypes.c_float, ctypes.c_short, ctypes.c_int, ctypes.c_double,
                     ctypes.c_longlong]   # c_double: stands in for 8-aligned float2
    ref = args_buffer(*[(t, t()) for t in ctypes_fields])
    offsets = [getattr(type(ref), f"a{i}").offset for i in range(len(ctypes_fields))]
    assert [g[4] for g in got] == offsets
    assert k.args_size == ctypes.sizeof(ref)
    assert [g[1] for g in got] == [P_SIGNED, P_FLOAT, P_POINTER, P_STRUCT, P_UNSIGNED,
                                   P_UNSIGNED, P_UNSIGNED, P_POINTER, P_UNSIGNED, P_FLOAT,
                                   P_SIGNED, P_SIGNED, P_STRUCT, P_SIGNED]
    assert [g[2] for g in got] == [1, 8, 8, 16, 1, 1, 8, 8, 2, 4, 2, 4, 8, 8]
    assert [g[3] for g in got] == [1, 8, 8, 8, 1, 1, 8, 8, 2, 4, 2, 4, 8, 8]
    assert [g[5] for g in got] == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    names = [g[0] for g in got]
    assert names[:4] == ["char", "double", "int*", "S"]
    assert names[6] in ("long unsigned int", "unsigned long", "size_t")
    assert names[7] == "const float*" and names[11] == "int"


def test_no_params_kernel(tree, host):
    # the plain thread loop (block functions off: an empty kernel would get one)
    from pyemu.compiler.regions.blocks import DISABLE_MACRO
    m = compile_source("__global__ void nothing() {}\n__global__ void nx() noexcept {}\n",
                       options=[f"-D{DISABLE_MACRO}"])
    _, _, kernels = module_info(m.path)
    assert kernels["nothing"].nparams == 0 and kernels["nothing"].args_size == 0
    host.host_reset(2, 2, 1)
    kernels["nx"].run_block(None)
    assert host.host_first_done_calls() == 1


def test_reference_parameter_is_a_clear_error(tree):
    src = "\n\n__global__ void byref(int &x)\n{\n}\n"
    with pytest.raises(CompileError) as e:
        compile_source(src)
    msg = str(e.value)
    assert "kernel.cu:3" in msg and "reference" in msg and "byref" in msg
    assert "pyemu_entry" not in msg  # the instantiation backtrace is gone


def test_non_void_kernel_is_an_error(tree):
    with pytest.raises(CompileError) as e:
        compile_source("__global__ int bad(int x) { return x; }\n")
    assert "must return void" in str(e.value) and "kernel.cu:1" in str(e.value)


# -------------------------------------------------------------- running

def test_run_block_runs_every_thread_in_order(tree, host):
    src = """__global__ void order(unsigned *out, unsigned *count) {
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[t] = (*count)++;
}
""" + VECADD
    from pyemu.compiler.regions.blocks import DISABLE_MACRO   # the plain thread loop
    m = compile_source(src, options=[f"-D{DISABLE_MACRO}"])
    _, _, kernels = module_info(m.path)
    out, count = (ctypes.c_uint * 24)(), ctypes.c_uint(0)
    host.host_reset(4, 3, 2)
    kernels["order"].run_block(ptr(args_buffer((ctypes.c_void_p, ptr(out).value),
                                               (ctypes.c_void_p, ptr(count).value))))
    assert list(out) == list(range(24)) and count.value == 24
    assert host.host_first_done_calls() == 1

    n = 10
    a = (ctypes.c_float * n)(*range(n))
    b = (ctypes.c_float * n)(*[10 * i for i in range(n)])
    c = (ctypes.c_float * n)()
    host.host_reset(16, 1, 1)  # more threads than elements: the guard matters
    args = args_buffer((ctypes.c_void_p, ptr(a).value), (ctypes.c_void_p, ptr(b).value),
                       (ctypes.c_void_p, ptr(c).value), (ctypes.c_int, n))
    kernels["vecAdd"].run_block(ptr(args))
    assert list(c) == [11.0 * i for i in range(n)]


def test_run_thread_runs_one_thread(tree, host):
    m = compile_source(VECADD)
    _, _, kernels = module_info(m.path)
    a = (ctypes.c_float * 4)(1, 2, 3, 4)
    c = (ctypes.c_float * 4)()
    host.host_reset(4, 1, 1)
    host.host_ctx().contents.threadIdx.x = 2
    args = args_buffer((ctypes.c_void_p, ptr(a).value), (ctypes.c_void_p, ptr(a).value),
                       (ctypes.c_void_p, ptr(c).value), (ctypes.c_int, 4))
    kernels["vecAdd"].run_thread(ptr(args))
    assert list(c) == [0, 0, 6, 0] and host.host_first_done_calls() == 0


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs binutils' objdump")
def test_run_block_loop_inlines_the_kernel(tree):
    from pyemu.compiler.regions.blocks import DISABLE_MACRO   # the plain thread loop
    m = compile_source(VECADD, options=[f"-D{DISABLE_MACRO}"])
    dis = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", m.path],
                         capture_output=True, text=True, check=True).stdout
    body = re.search(r"<pyemu_entry::pyemu_kernel<[^\n]*vecAdd[^\n]*::pyemu_run_block"
                     r"\(void const\*\)>:\n(.*?)\n\n", dis, re.S)
    assert body is not None
    calls = [ln for ln in body.group(1).splitlines() if re.search(r"\bcall", ln)]
    # the only calls are pyemu_first_thread_done, through the core's table
    # (abi.h), one in the fast loop and one in the precise loop (which names
    # a faulting thread): the kernel itself is inlined into both
    assert 1 <= len(calls) <= 2 and all("*" in c for c in calls), calls
    assert re.search(r"\bj\w+\s", body.group(1))  # there is a loop


# ------------------------------------------------------- extern __shared__

SHARED = """template <typename T>
__global__ void tmpl(T *out) {
    extern __shared__ T st[];
    st[threadIdx.x] = (T)threadIdx.x; out[threadIdx.x] = st[threadIdx.x] * 2; }
__global__ void bytes(unsigned char *out) {
    extern __shared__ __align__(16) unsigned char sb[]; /* comment */ sb[0] = 7;
    out[0] = (unsigned char)(((unsigned long)sb) % 16); }
__global__ void vec(float *out) {
    extern __shared__ __attribute__((aligned(8))) float2 s2[];
    s2[1].y = 5; out[0] = s2[1].y; }
__global__ void twod(float *out) {
    extern
      __shared__ float grid[][4];
    grid[1][2] = 9; out[0] = grid[1][2]; }
"""


def unit_lines(src: str) -> tuple:
    """({line: text} of the user's lines in the unit that g++ compiles, by
    its line markers; the expression that `extern __shared__` arrays point to)."""
    text, _, _ = compiler.unit_of(src, "cuda")
    lines, file, n = {}, None, 0
    for line in text.split("\n"):
        m = re.match(r'#(?:line)? (\d+) "([^"]*)"', line)
        if m:
            file, n = m.group(2), int(m.group(1))
            continue
        if file == "kernel.cu" and not line.startswith("#"):
            lines[n] = lines.get(n, "") + line
        n += 1
    dyn = re.search(r"pyemu_dyn_smem_probe\(\) \{ return (.*?); \}", text).group(1)
    return lines, dyn, text


def test_extern_shared_in_functions_keeps_lines(tree, host):
    lines, dyn, _ = unit_lines(SHARED)
    assert max(n for n, t in lines.items() if t.strip()) == SHARED.count("\n")
    assert "tmpl" in lines[2] and "twod" in lines[11]
    assert lines[3].strip() == f"T *const st = (T *){dyn};"
    assert f"unsigned char *const sb = (unsigned char *){dyn};" in lines[6]
    assert lines[6].rstrip().endswith("sb[0] = 7;")
    assert "float2 *const s2" in lines[9] and "__attribute__" not in lines[9]
    assert f"float (*const grid)[4] = (float (*)[4]){dyn};" in lines[12]
    assert lines.get(13, "").strip() == "" and "grid[1][2] = 9;" in lines[14]

    m = compile_source(SHARED, name_expressions=["tmpl<int>"])
    _, _, kernels = module_info(m.path)
    smem = host.host_smem()
    out = (ctypes.c_int * 4)()
    host.host_reset(4, 1, 1)
    kernels["tmpl<int>"].run_block(ptr(args_buffer((ctypes.c_void_p, ptr(out).value))))
    assert list(out) == [0, 2, 4, 6]
    assert list(ctypes.cast(smem, ctypes.POINTER(ctypes.c_int))[0:4]) == [0, 1, 2, 3]
    fo = (ctypes.c_float * 1)()
    for name, want in [("vec", 5.0), ("twod", 9.0)]:
        kernels[name].run_thread(ptr(args_buffer((ctypes.c_void_p, ptr(fo).value))))
        assert fo[0] == want
    assert ctypes.cast(smem, ctypes.POINTER(ctypes.c_float))[6] == 9.0  # grid[1][2]


def test_extern_shared_at_file_scope_keeps_lines(tree, host):
    src = """extern __shared__ int fs[];
namespace n { extern __shared__ float nf[]; }
const char *s = "extern __shared__ int not_me[];";  // extern __shared__ int no[];

__global__ void use(int *out) {
    fs[threadIdx.x] = 40 + threadIdx.x;
    out[threadIdx.x] = fs[threadIdx.x] + (int)nf[0] * 0;
}
__global__ void broken() { int x = 1 }
"""
    disabled = "#if 0\nextern __shared__ float gone[];\n#else\nextern __shared__ int kept[];\n#endif\n"
    _, dyn, text = unit_lines(disabled)
    assert "gone" not in text and f"#define kept ((int *){dyn})" in text
    lines, dyn, text = unit_lines(src.replace("int x = 1 }", "}"))
    assert f"#define fs ((int *){dyn})" in text and f"#define nf ((float *){dyn})" in text
    assert '"extern __shared__ int not_me[];"' in lines[3] and re.match(r"\s*fs\[.*\] = 40 \+", lines[6])
    with pytest.raises(CompileError) as e:
        compile_source(src)
    assert re.search(r"kernel\.cu:9:\d+: error", str(e.value))
    m = compile_source(src.replace("int x = 1 }", "}"))
    _, _, kernels = module_info(m.path)
    out = (ctypes.c_int * 3)()
    host.host_reset(3, 1, 1)
    kernels["use"].run_block(ptr(args_buffer((ctypes.c_void_p, ptr(out).value))))
    assert list(out) == [40, 41, 42]


# ------------------------------------------------------------ diagnostics

def test_syntax_error_reports_users_line(tree):
    src = "\n".join(["// line 1", "", "", "__global__ void k(float *x)", "{",
                     "    float y = x[0];", "    x[0] = y +;", "}", ""])
    with pytest.raises(CompileError) as e:
        compile_source(src, options=["-DX=1"])
    err = e.value
    assert str(err).startswith("compilation of kernel.cu failed:\n")
    assert re.search(r"kernel\.cu:7:\d+: error", str(err))
    assert "<pyemu-generated>" not in str(err) and "pyemu_tu" not in str(err)
    assert err.source == src and err.options == ("-DX=1",) and err.source_name == "kernel.cu"
    assert "error" in err.log
    assert "7 |     x[0] = y +;" in err.dump()


def test_template_errors_name_the_kernel_that_needed_them(tree):
    src = "template <int N>\n__global__ void t(int *p) {\n  p[0] = N;\n  missing(p, N);\n}\n"
    with pytest.raises(CompileError) as e:
        compile_source(src, name_expressions=["t<1>"])
    msg = str(e.value)
    assert re.search(r"kernel\.cu:4:\d+: error", msg) and "with int N = 1" in msg
    assert "kernel.cu:2:   required for kernel 't<1>'" in msg and "pyemu-generated" not in msg


def test_user_macros_and_names_do_not_break_entries(tree, host):
    src = """#define N 4
#define value 3
#define type float
#define entry 0
#define layout 1
using namespace std;
__device__ void swap(float &a, float &b) { float t = a; a = b; b = t; }
__global__ void k(float *x) { swap(x[0], x[1]); x[2] = N + value; }
"""
    m = compile_source(src, options=["-Dimpl=1", "-Dcall=2", "-DI=3"])
    _, _, kernels = module_info(m.path)
    x = (ctypes.c_float * 3)(1, 2, 0)
    host.host_reset(1, 1, 1)
    kernels["k"].run_block(ptr(args_buffer((ctypes.c_void_p, ptr(x).value))))
    assert list(x) == [2, 1, 7]


def test_source_name_is_used_everywhere(tree):
    with pytest.raises(CompileError) as e:
        compile_source("__global__ void k() { oops; }\n", source_name="dir/my kern.cu")
    assert "dir/my kern.cu:1:" in str(e.value)
    assert str(e.value).startswith("compilation of dir/my kern.cu failed:")
    m = compile_source(VECADD, source_name="vec.cu")
    assert module_info(m.path)[1].source_name == b"vec.cu"


def test_bad_name_expression(tree):
    with pytest.raises(CompileError) as e:
        compile_source(VECADD, name_expressions=["nope<1>"])
    assert "nope<1>" in str(e.value)
    with pytest.raises(CompileError):
        compile_source(VECADD, name_expressions=["k; int x"])


def test_warnings_go_to_the_log(tree):
    m = compile_source("#warning look here\n" + VECADD)
    assert "look here" in m.log and "kernel.cu:1" in m.log
    assert compile_source("#warning look here\n" + VECADD, options=["-w"]).log == ""
    with pytest.raises(CompileError):
        compile_source("#warning look here\n" + VECADD, options=["-Werror"])


# ---------------------------------------------------------------- options

@pytest.mark.parametrize("bad", ["-fopenmp", "-std=c++03", "--foo", "-Os", "-include"])
def test_unknown_option_rejected(tree, bad):
    with pytest.raises(CompileError) as e:
        compile_source(VECADD, options=[bad])
    assert bad in str(e.value)


def test_nvcc_only_options_ignored_with_a_note(tree):
    plain = compile_source(VECADD)
    m = compile_source(VECADD, options=["-arch=sm_80", "-gencode", "arch=compute_80,code=sm_80",
                                        "--use_fast_math", "-lineinfo", "-Xptxas", "-v", "-G",
                                        "-rdc=true", "--expt-relaxed-constexpr",
                                        "-maxrregcount", "32", "--extended-lambda", "-g"])
    assert m.key == plain.key and m.path == plain.path
    for opt in ["-arch=sm_80", "-gencode arch=compute_80,code=sm_80", "-Xptxas -v",
                "--use_fast_math", "-maxrregcount 32"]:
        assert f"ignoring nvcc-only option '{opt}'" in m.log
    assert plain.log == ""


def test_option_forms(tree, tmp_path):
    inc = tmp_path / "myinc"
    inc.mkdir()
    (inc / "val.h").write_text("#define VAL 5\n")
    src = '#include "val.h"\n__global__ void k(int *p) { p[0] = VAL + EXTRA; }\n'
    a = compile_source(src, options=["-I", str(inc), "-D", "EXTRA=1", "-std=c++14", "-O0"])
    b = compile_source(src, options=[f"-I{inc}", "-DEXTRA=1", "-std=c++14", "-O0"])
    c = compile_source(src, options=f"-I{inc} -DEXTRA=1 -O2")
    assert a.key == b.key != c.key
    with pytest.raises(CompileError):
        compile_source(src, options=[f"-I{inc}", "-DEXTRA=1", "-UEXTRA"])


def test_missing_compiler_is_a_compile_error(tree, monkeypatch):
    monkeypatch.setenv("PYEMU_CXX", "/nonexistent/g++")
    with pytest.raises(CompileError) as e:
        compile_source(VECADD, options=None, name_expressions=None)
    assert "/nonexistent/g++" in str(e.value) and "PYEMU_CXX" in str(e.value)


def test_unknown_dialect():
    with pytest.raises(ValueError):
        compile_source(VECADD, dialect="fortran")


def test_real_headers(tmp_path, monkeypatch, host):
    """The real device headers compile with the compiler's flags."""
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path))
    m = compile_source(VECADD + "__global__ void t(float *x) { x[0] = sqrtf(x[0]); }\n")
    assert m.kernel_names == ("vecAdd", "t")
    _, info, kernels = module_info(m.path)
    x = (ctypes.c_float * 1)(16.0)
    host.host_reset(1, 1, 1)
    kernels["t"].run_block(ptr(args_buffer((ctypes.c_void_p, ptr(x).value))))
    assert x[0] == 4.0


def test_launch_bounds_recorded_with_macros_expanded(tree):
    src = """__global__ void __launch_bounds__(BS, 2) bounded(int *p) { p[0] = 1; }
__global__ void __launch_bounds__((BS) * 2) twice(int *p) { p[0] = 2; }
__global__ void plain(int *p) { p[0] = 3; }
"""
    m = compile_source(src, options=["-DBS=64"])
    _, _, kernels = module_info(m.path)
    assert kernels["bounded"].max_threads == 64
    assert kernels["twice"].max_threads == 128
    assert kernels["plain"].max_threads == 0


def test_a_source_that_includes_a_file_of_its_own_name_finds_the_one_on_the_path(tmp_path):
    # Rodinia's bfs.cu: `#include "kernel.cu"` from an -I directory, compiled
    # under SourceModule's default name kernel.cu: the include must find that
    # file, not the source itself (it recursed 200 levels deep)
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "kernel.cu").write_text("__global__ void from_header(int *o) { o[0] = 42; }\n")
    m = compile_source('#include "kernel.cu"\n__global__ void main_k(int *o) { o[0] = 1; }\n',
                       dialect="cuda", options=["-I" + str(inc)], source_name="kernel.cu")
    assert set(m.kernel_names) == {"from_header", "main_k"}
    # its own errors still point at its lines
    with pytest.raises(CompileError) as e:
        compile_source('#include "kernel.cu"\n__global__ void k(int *o) { o[0] = nope; }\n',
                       dialect="cuda", options=["-I" + str(inc)], source_name="kernel.cu")
    assert "kernel.cu:2:" in e.value.diagnostics and "nope" in e.value.diagnostics
