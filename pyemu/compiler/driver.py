"""Compiles kernel source into a module the core can dlopen (see abi.h).

compile_source() is the one entry point: pyemu.cuda.SourceModule and
OpenCL's clBuildProgram call it.  The steps:

1. rewrite the source, keeping its line numbers: CUDA's `extern __shared__
   T s[];` becomes a pointer into the launch's dynamic shared memory; OpenCL
   C gets what C++ lacks (pyemu.compiler.opencl: vector literals, __local
   variables, C++-only keywords as names);
2. find the kernels: preprocess once with __PYEMU_SCAN__ defined, which
   turns __global__ / __kernel into a marker token, and read the
   declarations after it (for OpenCL also the address spaces, names and
   attributes of the arguments, which clGetKernelArgInfo reports);
3. append one entry per kernel (include/pyemu/detail/kernel_entry.hpp) and
   the exported `pyemu_module_info` table;
4. build it with g++ into the cache (pyemu.compiler.cache), keyed by
   everything that can change the result, so a hit runs no compiler at all.

The source is bytes to g++, as to nvcc and OpenCL drivers: a str is encoded
as UTF-8, bytes (Latin-1 comments, any string literal) are passed as they
are.  The rewrites and scans work on text; they get the bytes decoded as
Latin-1 ("wire" text: one character per byte, so a g++ column is an offset
and the bytes come back exactly), and what goes back to the user (kernel
names, diagnostics) is decoded from UTF-8 again.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Optional, Sequence

from ..runtime import config as _config
from .regions import blocks as _regions
from . import probe as _probe
from . import smem as _smem
from . import warps as _warps
from . import unitpch as _unitpch
from .cache import file_sha256, open_cache
from . import frontend as _frontend
from .frontend.edits import c_string
from .opencl import KERNEL_MARKER, rewrite_opencl

__all__ = ["CompiledModule", "CompileError", "CompileOptionError", "compile_source"]

GENERATED_NAME = "<pyemu-generated>"
# what the rewrites and scans of this package make of a source: part of the
# cache key, raised whenever they change what a module holds
FRONT_VERSION = 33
_TU_NAME = "pyemu_tu.cpp"


@dataclass(frozen=True)
class CompiledModule:
    """A compiled kernel module in the cache."""
    path: str            # the cached .so
    kernel_names: tuple  # as users look them up: "vecAdd", "reduce<256>"
    key: str             # cache key (hex)
    log: str             # compiler warnings and notes ('' if none)
    block_kernels: tuple = ()  # kernels run region by region, without fibers (pyemu._regions)
    # OpenCL: {kernel: {"args": [{"name", "type_name", "address", "access",
    # "type_qualifiers"}], "reqd_work_group_size", "work_group_size_hint",
    # "attributes"}} (pyemu.compiler.opencl.kernel_info); {} for CUDA
    kernel_info: dict = field(default_factory=dict)
    # {kernel: (path, reason)}: "block function", "fiber variant", "fibers" or
    # "plain loop", and why (python -m pyemu info --kernel, PYEMU_DEBUG_PATHS)
    paths: dict = field(default_factory=dict)


class CompileError(Exception):
    """Compilation failed; str() shows the diagnostics against the user's lines."""

    def __init__(self, message: str, *, source: str = "", options: Sequence[str] = (),
                 log: str = "", source_name: str = "kernel.cu"):
        super().__init__(f"compilation of {source_name} failed:\n{message}")
        self.diagnostics = message     # the build log: diagnostics at the user's lines
        self.source = source
        self.options = tuple(options)
        self.log = log
        self.source_name = source_name

    def dump(self) -> str:
        """The source with line numbers, to read the diagnostics against."""
        lines = self.source.splitlines()
        width = len(str(len(lines)))
        return "\n".join(f"{i:>{width}} | {line}" for i, line in enumerate(lines, 1))


class CompileOptionError(CompileError):
    """An option the compiler does not take (OpenCL's CL_INVALID_BUILD_OPTIONS)."""


@dataclass(frozen=True)
class _Dialect:
    name: str
    device_header: str    # given to g++ -include
    include_subdir: str   # headers that shadow system ones (assert.h, ...), or ''
    marker: str           # what the kernel qualifier becomes under __PYEMU_SCAN__
    flags: tuple = ()     # g++ flags of the language


_DIALECTS = {
    "cuda": _Dialect("cuda", "pyemu/cuda_device.h", "pyemu/cuda", "__pyemu_global__"),
    # OpenCL C: `and`, `or`, `not` are names, as in C; char is signed on every
    # CPU; columns count bytes (pyemu.compiler.opencl.vector_ternary reads them)
    "opencl": _Dialect("opencl", "pyemu/opencl_device.h", "", KERNEL_MARKER,
                       ("-fno-operator-names", "-fsigned-char", "-fdiagnostics-column-unit=byte")),
}

# ---------------------------------------------------------------- options

_STD_RE = re.compile(r"(?:c|gnu)\+\+(?:11|14|17|20)")
_IGNORED_VALUE = {"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
                  "--generate-code", "-Xptxas", "--ptxas-options", "-rdc",
                  "--relocatable-device-code", "-maxrregcount", "--maxrregcount"}
_IGNORED_FLAG = {"--use_fast_math", "-use_fast_math", "-lineinfo", "--generate-line-info",
                 "-G", "--device-debug", "-g", "--expt-relaxed-constexpr",
                 "-expt-relaxed-constexpr", "--extended-lambda", "-extended-lambda",
                 "--expt-extended-lambda", "-expt-extended-lambda"}


@dataclass(frozen=True)
class _Options:
    std: str = "c++17"
    opt: str = "-O3"
    user: tuple = ()     # -D/-U/-I/-w/-Werror, normalised, in order
    ignored: tuple = ()  # nvcc-only options, reported in the log


def _parse_options(options: Iterable[str] | str) -> _Options:
    """Normalise user options; raises ValueError naming an unknown one."""
    if isinstance(options, str):
        options = shlex.split(options)
    args = [str(o) for o in options]
    std, opt, user, ignored = "c++17", "-O3", [], []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        name, eq, value = a.partition("=")

        def take() -> str:
            nonlocal i
            if i >= len(args):
                raise ValueError(f"option {a!r} needs a value")
            i += 1
            return args[i - 1]

        if a[:2] in ("-D", "-U", "-I"):
            flag, val = a[:2], (a[2:] or take())
            if not val:
                raise ValueError(f"option {a!r} needs a value")
            if flag == "-I":
                val = os.path.abspath(os.path.expanduser(val))
            user.append(flag + val)
        elif name in ("-std", "--std"):
            val = value if eq else take()
            if not _STD_RE.fullmatch(val):
                raise ValueError(f"unsupported option {a!r}: pyemu accepts -std=c++11/14/17/20")
            std = val
        elif a in ("-O0", "-O1", "-O2", "-O3"):
            opt = a
        elif a in ("-w", "-Werror"):
            user.append(a)
        elif name in ("-fmad", "--fmad"):
            # nvcc fuses a*b+c into one FMA unless told -fmad=false; so does pyemu
            val = value if eq else take()
            if val not in ("true", "false"):
                raise ValueError(f"option {a!r}: -fmad takes true or false")
            user.append("-ffp-contract=" + ("fast" if val == "true" else "off"))
        elif name in _IGNORED_VALUE:
            ignored.append(a if eq else f"{a} {take()}")
        elif a in _IGNORED_FLAG:
            ignored.append(a)
        else:
            raise ValueError(f"unsupported option {a!r}")
    return _Options(std, opt, tuple(user), tuple(ignored))


# OpenCL build options (OpenCL 1.2, 5.6.4): what each becomes for g++.
_CL_STD = {"CL1.0": "100", "CL1.1": "110", "CL1.2": "120", "CL2.0": "200", "CL3.0": "300"}
_CL_UNSAFE = ("-fno-signed-zeros", "-fno-trapping-math", "-fassociative-math", "-freciprocal-math")
_CL_FLAGS = {
    "-cl-single-precision-constant": ("-fsingle-precision-constant",),
    "-cl-no-signed-zeros": ("-fno-signed-zeros",),
    "-cl-unsafe-math-optimizations": _CL_UNSAFE,
    "-cl-finite-math-only": ("-ffinite-math-only",),
    "-cl-fast-relaxed-math": _CL_UNSAFE + ("-ffinite-math-only",),
    # a*b+c is fused already (-ffp-contract=fast); denormals are kept, which
    # the option allows; division and sqrt are correctly rounded anyway;
    # work-groups are uniform on this device; argument info is always kept
    "-cl-mad-enable": (), "-cl-denorms-are-zero": (), "-cl-fp32-correctly-rounded-divide-sqrt": (),
    "-cl-uniform-work-group-size": (), "-cl-kernel-arg-info": (), "-g": (), "-cl-no-subgroup-ifp": (),
}


def _parse_cl_options(options: Iterable[str] | str) -> _Options:
    """clBuildProgram's options; raises ValueError naming an invalid one."""
    if isinstance(options, str):
        options = shlex.split(options)
    args = [str(o) for o in options]
    opt, user, version = "-O3", [], "120"
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a[:2] in ("-D", "-U", "-I"):
            val = a[2:]
            if not val:
                if i >= len(args) or args[i].startswith("-"):
                    raise ValueError(f"option {a!r} needs a value")
                val, i = args[i], i + 1
            if a[:2] == "-I":
                val = os.path.abspath(os.path.expanduser(val))
            user.append(a[:2] + val)
        elif a.startswith("-cl-std="):
            version = _CL_STD.get(a[len("-cl-std="):])
            if version is None:
                raise ValueError(f"invalid option {a!r}: pyemu takes -cl-std=CL1.0, CL1.1, CL1.2, "
                                 "CL2.0 or CL3.0")
        elif a in ("-w", "-Werror"):
            user.append(a)
        elif a == "-cl-opt-disable":
            opt = "-O0"
        elif a in _CL_FLAGS:
            user.extend(_CL_FLAGS[a])
        else:
            raise ValueError(f"invalid build option {a!r}")
    user.insert(0, f"-D__OPENCL_C_VERSION__={version}")
    return _Options("c++17", opt, tuple(user), ())


# ---------------------------------------------------------- environment

def _include_root() -> Path:
    """The directory that holds pyemu/abi.h: the copy shipped inside the
    installed package (pyemu/include/), else the source tree's include/."""
    pkg = Path(__file__).resolve().parent.parent
    for cand in (pkg / "include", pkg.parent / "include"):
        if (cand / "pyemu" / "abi.h").is_file():
            return cand
    raise CompileError(f"pyemu's headers are missing (looked for {pkg / 'include'} "
                       f"and {pkg.parent / 'include'})")


@functools.lru_cache(maxsize=None)
def _include_digest(root: str) -> str:
    """Digest of every file under <root>/pyemu (once per process)."""
    h = hashlib.sha256()
    base = Path(root) / "pyemu"
    for p in sorted(base.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(base)).encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _abi_version(root: str) -> int:
    text = (Path(root) / "pyemu" / "abi.h").read_text()
    return int(re.search(r"#define\s+PYEMU_ABI_VERSION\s+(\d+)", text).group(1))


def _swizzle_rules(root: str):
    """The swizzle spelling rules of the vector classes in cl_vectors_gen.h
    (pyemu/compiler/gen_cl.py wrote them; imported here, not at package
    import, so that `python -m pyemu.compiler.gen_cl` runs it fresh)."""
    from . import gen_cl
    return gen_cl


@functools.lru_cache(maxsize=None)
def _cxx_version(cxx: str) -> str:
    """The compiler's --version output (once per process and compiler)."""
    try:
        r = _run(shlex.split(cxx) + ["--version"])
    except OSError as e:
        raise CompileError(f"cannot run the C++ compiler {cxx!r} ({e}); "
                           "set PYEMU_CXX to a working g++") from None
    return r.stdout + r.stderr


@functools.lru_cache(maxsize=None)
def _cpu_id() -> str:
    """What -march=native depends on: CPU model and flags."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            found = {}
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k in ("model name", "flags", "Features", "CPU part") and k not in found:
                    found[k] = v.strip()
                if not line.strip() and found:
                    break
        if found:
            return json.dumps(found, sort_keys=True)
    except OSError:
        pass
    return platform.machine()


def _run(cmd: list, cwd: Optional[str] = None, stdin: Optional[str] = None):
    """Runs a compiler command; every process pyemu starts goes through here.
    Its input and output are wire text (bytes as Latin-1; see the module doc).
    The compiler runs in the C locale: its messages are in English with ASCII
    quotes whatever the user's language, as the driver reads some of them."""
    env = dict(os.environ, LC_ALL="C", LANG="C", LANGUAGE="C")
    return subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, encoding="latin-1",
                          env=env)


def _base_flags(dialect: _Dialect, root: Path, opts: _Options) -> list:
    # -ffp-contract=fast: a*b+c becomes one FMA, as nvcc's default -fmad=true
    # does (and the same way in every path a block may take: loop, fibers,
    # block function); -fmad=false turns it off
    # -fno-gnu-unique: a variable template or an inline function's static
    # (tv<float>) is the module's own, as each CUDA module has its own; a GNU
    # unique symbol would bind every later module to the first one's copy (a
    # host write through get_global then misses) and pin modules in memory
    own = [f"-I{root / dialect.include_subdir}"] if dialect.include_subdir else []
    return [f"-std={opts.std}", opts.opt, "-march=native", "-fPIC", "-shared",
            "-ffp-contract=fast", "-fno-exceptions", "-fno-math-errno", "-fvisibility=hidden",
            "-fno-gnu-unique",
            "-fdiagnostics-color=never", *dialect.flags, f"-I{root}", *own,
            "-include", dialect.device_header]


# ------------------------------------------------------------ generation

@dataclass(frozen=True)
class _Entry:
    name: str    # what users look the kernel up by
    expr: str    # C++ expression naming the function
    where: str   # where to report errors about it
    max_threads: str = "0"   # C++ expression: __launch_bounds__' maxThreadsPerBlock
    signature: str = ""      # function pointer type, where the name is overloaded
    reqd: tuple = (0, 0, 0)  # OpenCL reqd_work_group_size (C++ expressions)
    hint: tuple = (0, 0, 0)  # OpenCL work_group_size_hint (C++ expressions)
    defaults: tuple = ()     # CUDA: ((parameter, default argument text), ...)
    # an instance of a kernel template with defaults: the template's head
    # (Kernel.template_params), the name expression's template arguments and
    # the template's namespaces
    tparams: str = ""
    targs: str = ""
    space: tuple = ()


def _entries(kernels: list, exprs: Sequence[str], source_name: str) -> list:
    """The module's kernels: the non-template ones found, then the name expressions.

    Kernels get their unqualified name unless two share it; then they get
    their qualified one ("a::k", "b::k").
    """
    plain = [k for k in kernels if not k.template]
    short = [getattr(k, "name", k.qualified.rsplit("::", 1)[-1]) for k in plain]
    out = [_Entry(s if short.count(s) == 1 else k.qualified, "::" + k.qualified, k.where,
                  k.max_threads or "0", signature=k.signature,
                  defaults=getattr(k, "defaults", ()))
           for s, k in zip(short, plain) if k.defined]
    templates = {k.qualified: k for k in kernels if k.template}
    seen = {e.name for e in out}
    for e in exprs:
        e = str(e).strip()
        if not e or _BAD_EXPR_RE.search(e):
            raise ValueError(f"bad name expression {e!r}")
        if e not in seen:
            seen.add(e)
            expr = e.lstrip("&").strip()
            base = expr.split("<", 1)[0].strip().lstrip(":")
            k = templates.get(base)
            entry = _Entry(e, expr, k.where if k is not None else source_name)
            if k is not None and k.defaults and k.template_params and expr.endswith(">"):
                entry = replace(entry, defaults=k.defaults, tparams=k.template_params,
                                targs=expr[expr.index("<") + 1:-1],
                                space=tuple(k.qualified.split("::")[:-1]))
            out.append(entry)
    return out


def _uninstantiated_notes(kernels: list, exprs: Sequence[str]) -> str:
    """A note for each kernel template that no name expression instantiates:
    as with nvcc, such a template gives the module no kernel (nvrtc's
    nvrtcAddNameExpression makes an instance)."""
    named = {str(e).strip().lstrip("&").split("<", 1)[0].strip().lstrip(":") for e in exprs}
    out, seen = [], set()
    for k in kernels:
        short = k.qualified.rsplit("::", 1)[-1]
        if k.template and k.qualified not in seen and not named & {k.qualified, short}:
            seen.add(k.qualified)
            out.append(f"{k.where}: note: kernel template '{k.qualified}' has no instances "
                       f"(no name expression such as '{k.qualified}<...>' names it), so it "
                       "is not a kernel of the module\n")
    return "".join(out)


_BAD_EXPR_RE = re.compile(r"[;{}#\"'\n\\]|//|/\*")


def _generate(entries: list, source_name: str, blocks: Optional[dict] = None,
              abi: int = 0, lean=frozenset()) -> str:
    """The code after the user's source: one entry per kernel and the table.

    Entry n is on line n + 1 of <pyemu-generated>; diagnostics rely on it.
    `blocks` maps kernels to their block functions (pyemu._regions); `abi`:
    PYEMU_ABI_VERSION; `lean`: the numbers of the entries whose blocks run
    as pyemu_run_block_lean (kernel_entry.hpp: their plain loop is only a
    fallback).  It follows preprocessed text: no pyemu macro is defined
    there (the unit's head holds PYEMU_MODULE_BINDING).
    """
    lines = [f"#line 1 {c_string(GENERATED_NAME)}"]
    for n, e in enumerate(entries):
        b = _regions.block_expr(e.expr, blocks or {})
        extra = f", ::pyemu_entry::pyemu_block_fn<decltype(&{b}), &{b}> " if b else ""
        # a kernel named like an overloaded function (div, exp, exit): by its type
        fn = f"static_cast<{e.signature}>(&{e.expr})" if e.signature else f"&{e.expr}"
        lines.append("typedef ::pyemu_entry::pyemu_kernel<decltype(::pyemu_entry::"
                     f"pyemu_kernel_type({fn})), {fn}{extra}> "
                     f"pyemu_k{n};")
    if entries:
        lines.append("static const pyemu_kernel_desc pyemu_kernels[] = {")
        for n, e in enumerate(entries):
            k = f"pyemu_k{n}"
            run = "pyemu_run_block_lean" if n in lean else "pyemu_run_block"
            lines.append(f" {{{c_string(e.name)}, {k}::{run}, {k}::pyemu_run_thread, "
                         f"{k}::pyemu_nparams, {k}::pyemu_indexed::pyemu_params, "
                         f"{k}::pyemu_args_size, {{{', '.join(f'(unsigned)({x})' for x in e.reqd)}}}, "
                         f"(unsigned)({e.max_threads}), "
                         f"pyemu_smem_seg<{_smem.segment(e.name)}ul>::pyemu_layout, "
                         "pyemu_smem_seg<0ul>::pyemu_layout},")
        lines.append("};")
        # the attributes' values, as g++ evaluates them (read back by
        # pyemu.compiler.probe after the build)
        vals = ", ".join(f"(unsigned long)({x})" for e in entries for x in e.reqd + e.hint)
        lines.append('extern "C" __attribute__((__visibility__("default"), __used__)) '
                     f"const unsigned long pyemu_attr_values[] = {{{vals}}};")
    table = "pyemu_kernels" if entries else "0"
    lines += ["namespace pyemu_generated {",
              'extern "C" __attribute__((__visibility__("default"))) const pyemu_module_info',
              f"    pyemu_module_info = {{{abi}u, {len(entries)}, {table}, "
              f"{c_string(source_name)}, pyemu_bind}};",
              "}"]
    lines += _default_helpers(entries)
    lines.append("")
    return "\n".join(lines)


def _lean(entries: list, blocks) -> set:
    """The entries whose blocks do not run in the plain loop: a block function
    (or fiber variant) runs them, or the regions pass sent them to fibers
    for their barriers or warp collectives.  Their run_block is not
    flattened (kernel_entry.hpp); the others' is."""
    out = set()
    for n, e in enumerate(entries):
        path = blocks.paths.get(e.name) or blocks.paths.get(e.name.split("<")[0])
        if _regions.block_expr(e.expr, blocks.kernels) or (path and path[0] == "fibers"):
            out.add(n)
    return out


_IDENT_RE = re.compile(r"[A-Za-z_]\w*$")


def _default_helpers(entries: list) -> list:
    """For each default argument of a kernel's parameter (C++: `int *p =
    NULL`), a function, exported as the pointer pyemu_default_<kernel>_<parameter>,
    whose call (out) writes the bytes of the parameter's value initialised from it: in
    the kernel's namespace, so that its names mean what they mean at the
    declaration, and called at each launch that leaves the parameter out
    (pyemu/cuda/module.py), as C++ evaluates a default argument at each
    call."""
    out, shared = [], False
    for n, e in enumerate(entries):
        space = list(e.space) if e.tparams else e.expr.lstrip(":").split("::")[:-1]
        if not e.defaults or not all(_IDENT_RE.match(x) for x in space):
            continue
        if not out:
            out += ["namespace pyemu_defaults {",
                    "template <unsigned pyemu_I, class pyemu_F> struct pyemu_nth;",
                    "template <class pyemu_R, class pyemu_A, class... pyemu_B>",
                    "struct pyemu_nth<0u, pyemu_R (*)(pyemu_A, pyemu_B...)> "
                    "{ typedef pyemu_A pyemu_type; };",
                    "template <unsigned pyemu_I, class pyemu_R, class pyemu_A, class... pyemu_B>",
                    "struct pyemu_nth<pyemu_I, pyemu_R (*)(pyemu_A, pyemu_B...)> { typedef "
                    "typename pyemu_nth<pyemu_I - 1u, pyemu_R (*)(pyemu_B...)>::pyemu_type "
                    "pyemu_type; };",
                    "}"]
        if e.tparams:
            out += _template_default_helpers(n, e, space, not shared)
            shared = True
            continue
        fn = f"static_cast<{e.signature}>(&{e.expr})" if e.signature else f"&{e.expr}"
        for i, text in e.defaults:
            name = f"pyemu_default_{n}_{i}"
            out.append("".join(f"namespace {x} {{ " for x in space))
            out.append(f"static void {name}_fn(void *pyemu_o) {{")
            out.append(f"    typedef ::pyemu_defaults::pyemu_nth<{i}u, decltype({fn})>"
                       "::pyemu_type pyemu_T;")
            out.append(f"    pyemu_T pyemu_v = {text};")
            out.append("    __builtin_memcpy(pyemu_o, &pyemu_v, sizeof pyemu_v);")
            out.append("}" + " }" * len(space))
            # a variable, so that the module's symbol table (csrc/symbols.c) has
            # it: this instance's address of the function
            out.append('extern "C" __attribute__((__visibility__("default"), __used__)) '
                       f"void (*const {name})(void *) = "
                       f"&{''.join(x + '::' for x in [''] + space)}{name}_fn;")
    return out


def _template_default_helpers(n: int, e: _Entry, space: list, first: bool) -> list:
    """_default_helpers for an instance of a kernel template (name expression
    `k<int, 4>`): the default's text may name the template's parameters, so
    it is the result of a function template with the template's head
    (`pyemu_default_<n>_<i>_at<int, 4>(0)`); where that text is ill-formed
    for this instance (C++ instantiates a default argument only where a call
    uses it: SFINAE picks the overload returning pyemu_none), the exported
    pointer is null and a launch must pass the parameter."""
    out = []
    if first:
        out += ["namespace pyemu_defaults {",
                "struct pyemu_none {};",
                "template <class pyemu_T, class pyemu_G, class pyemu_R> struct pyemu_put {",
                "    static void pyemu_fn(void *pyemu_o) { pyemu_T pyemu_v = pyemu_G::pyemu_get();"
                " __builtin_memcpy(pyemu_o, &pyemu_v, sizeof pyemu_v); }",
                "    static constexpr void (*pyemu_ptr())(void *) { return &pyemu_fn; }",
                "};",
                "template <class pyemu_T, class pyemu_G> struct pyemu_put<pyemu_T, pyemu_G, "
                "pyemu_none> {",
                "    static constexpr void (*pyemu_ptr())(void *) { return nullptr; }",
                "};",
                "}"]
    for i, text in e.defaults:
        name = f"pyemu_default_{n}_{i}"
        at = f"{name}_at<{e.targs}>(0)"
        out.append("".join(f"namespace {x} {{ " for x in space))
        out.append(f"{e.tparams} auto {name}_at(int) -> decltype({text}) {{ return {text}; }}")
        out.append(f"{e.tparams} ::pyemu_defaults::pyemu_none {name}_at(...) "
                   "{ return ::pyemu_defaults::pyemu_none(); }")
        out.append(f"struct {name}_get {{ static auto pyemu_get() -> decltype({at}) "
                   f"{{ return {at}; }} }};")
        out.append(f"typedef ::pyemu_defaults::pyemu_put<::pyemu_defaults::pyemu_nth<{i}u, "
                   f"decltype(&{e.expr})>::pyemu_type, {name}_get, decltype({at})> {name}_put;")
        out.append(" ".join("}" * len(space)))
        # not const: a null constant would go to .rodata, which the module's
        # symbol table (csrc/symbols.c) does not list, and the launch could not
        # tell an ill-formed default from a parameter without one
        out.append('extern "C" __attribute__((__visibility__("default"), __used__)) '
                   f"void (*{name})(void *) = "
                   f"{''.join(x + '::' for x in [''] + space)}{name}_put::pyemu_ptr();")
    return out


# ----------------------------------------------------------- diagnostics

_DIAG_RE = re.compile(r"^(?P<file>[^:]+?)(?::(?P<line>\d+))?(?::\d+)?: (?P<msg>.*)$")
_ASSERT_RE = re.compile(r"static assertion failed: (pyemu: .*)$")


def _clean_diagnostics(text: str, entries: Sequence[_Entry] = ()) -> str:
    """g++'s diagnostics, told in terms of the user's source.

    Errors in pyemu's generated entries are reported once per kernel, at the
    kernel; a static assertion of kernel_entry.hpp (reference parameter,
    non-void return) replaces the instantiation backtrace that leads to it;
    context lines ("In file included from", "In function") are kept only
    for diagnostics that are kept.
    """
    out, context, keep, entry, reported, asserted = [], [], False, None, set(), False
    for line in text.splitlines():
        m = _DIAG_RE.match(line)
        if line.startswith(" ") and not line.lstrip().startswith("from ") or not m:
            if keep:                        # excerpt and caret lines
                out.append(line)
            continue
        file, msg = m.group("file").strip(), m.group("msg")
        if line.startswith("In file included from") or line.lstrip().startswith("from "):
            context.append(line)
            continue
        if m.group("line") is None and not msg.startswith(("error", "warning", "note")):
            context.append(line)            # "x.cu: In function 'void k()':"
            continue
        if file == GENERATED_NAME and entries:
            entry = entries[min(max(int(m.group("line")) - 1, 0), len(entries) - 1)]
        internal = file == GENERATED_NAME or file.endswith("kernel_entry.hpp")
        a = _ASSERT_RE.search(msg)
        if a:
            asserted = True
            e = entry or (entries[0] if entries else None)
            where = f"{e.where}: error: " if e else "error: "
            out.append(where + a.group(1) + (f" (kernel '{e.name}')" if e else ""))
            keep, entry, context = False, None, []
            continue
        if internal and " required from" in msg:   # instantiation backtrace
            if file == GENERATED_NAME and entry is not None:
                context.append(f"{entry.where}:   required for kernel '{entry.name}'")
            continue
        if internal and asserted:
            keep, context = False, []
            continue
        if file == GENERATED_NAME:
            keep = False
            if msg.startswith("error") and entry is not None and entry.name not in reported:
                reported.add(entry.name)
                out.append(f"{entry.where}: error: in kernel '{entry.name}': "
                           + msg.split(": ", 1)[-1])
            context = []
            continue
        keep = True
        out.extend(c for c in context if "kernel_entry.hpp" not in c)
        context = []
        out.append(line)
    return "\n".join(out).strip() or text.strip()


# ----------------------------------------------------------------- compile

def compile_source(source: str, *, dialect: str = "cuda", options=(), name_expressions=(),
                   source_name: Optional[str] = None) -> CompiledModule:
    """Compiles kernel source to a cached shared object and lists its kernels.

    `options` (a list, or one string split like a shell would) are, for
    CUDA, nvcc/nvrtc-style: -D, -U, -I, -std=c++11/14/17/20, -O0..-O3,
    -w and -Werror; nvcc-only ones (-arch, -lineinfo, ...) are ignored with a
    note in the log; for OpenCL, clBuildProgram's (-D, -I, -cl-std=,
    -cl-fast-relaxed-math, ...).  Any other raises CompileOptionError.
    `name_expressions` (CUDA)
    instantiate template kernels ("reduce<256>"); users look them up by that
    exact string.  Raises CompileError with g++'s diagnostics on failure.
    """
    if dialect not in _DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r} (have: {', '.join(_DIALECTS)})")
    raw = _source_bytes(source)
    source = raw.decode("utf-8", "replace")    # for CompileError.dump()
    if source_name is None:
        source_name = "program.cl" if dialect == "opencl" else "kernel.cu"
    options = options or ()
    opt_list = [options] if isinstance(options, str) else list(options)
    exprs = [name_expressions] if isinstance(name_expressions, str) else list(name_expressions or ())

    def fail(msg: str, log: str = "") -> CompileError:
        return CompileError(msg, source=source, options=opt_list, log=log, source_name=source_name)

    try:
        opts = _parse_cl_options(options) if dialect == "opencl" else _parse_options(options)
    except ValueError as e:
        raise CompileOptionError(str(e), source=source, options=opt_list,
                                 source_name=source_name) from None
    try:
        _entries([], exprs, source_name)  # validates the name expressions
    except ValueError as e:
        raise fail(str(e)) from None
    d = _DIALECTS[dialect]
    root = _include_root()
    cxx = _config.cxx()
    flags = _base_flags(d, root, opts)
    key_parts = [_abi_version(str(root)), dialect, hashlib.sha256(raw).hexdigest(), source_name,
                 list(opts.user),
                 opts.std, opts.opt, [str(e).strip() for e in exprs],
                 _include_digest(str(root)), _cxx_version(cxx), _cpu_id(), flags,
                 _regions.VERSION, FRONT_VERSION, _warps.VERSION]
    key = hashlib.sha256(json.dumps(key_parts).encode()).hexdigest()
    notes = "".join(f"note: ignoring nvcc-only option '{o}'\n" for o in opts.ignored)
    cache = open_cache()

    entry = cache.load(key)
    if entry is not None and _deps_unchanged(entry.meta.get("deps", {})):
        return CompiledModule(str(entry.so_path), tuple(entry.meta["kernel_names"]), key,
                              notes + entry.meta.get("log", ""),
                              tuple(entry.meta.get("block_kernels", ())),
                              entry.meta.get("kernel_info") or {},
                              {k: tuple(v) for k, v in (entry.meta.get("paths") or {}).items()})

    with cache.staging() as tmp:
        so, names, log, deps, blocked, info, paths = _build(raw, source_name, d, root, cxx,
                                                            flags, opts, exprs, Path(tmp), fail,
                                                            cache.root)
        entry = cache.store(key, so, {"kernel_names": names, "log": log, "deps": deps,
                                      "source_name": source_name, "block_kernels": blocked,
                                      "kernel_info": info, "paths": paths})
    return CompiledModule(str(entry.so_path), tuple(names), key, notes + log, tuple(blocked),
                          info, {k: tuple(v) for k, v in paths.items()})


def _source_bytes(source) -> bytes:
    """The exact bytes g++ reads: a str as UTF-8, bytes as they are."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if not isinstance(source, str):
        raise TypeError(f"kernel source must be str or bytes, not {type(source).__name__}")
    try:
        return source.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        raise CompileError(f"the source is not text that UTF-8 can encode: {e}",
                           source=source.encode("utf-8", "replace").decode("utf-8")) from None


def _wire(text: str) -> str:
    """User text as the build passes see it (its UTF-8 bytes, one character each)."""
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def _unwire(obj):
    """What the build passes read back, as user text (recursively in lists and dicts)."""
    if isinstance(obj, str):
        return obj.encode("latin-1").decode("utf-8", "replace")
    if isinstance(obj, list):
        return [_unwire(o) for o in obj]
    if isinstance(obj, dict):
        return {_unwire(k): _unwire(v) for k, v in obj.items()}
    return obj


def _deps_unchanged(deps: dict) -> bool:
    """True when every user header the module was built from is as it was."""
    try:
        return all(file_sha256(p) == h for p, h in deps.items())
    except OSError:
        return False


def _build(raw: bytes, user_name, d, root, cxx, flags, opts, exprs, tmp: Path, fail,
           cache_root=None):
    """Scans, generates and compiles `raw` in `tmp`; returns (so, names, log, deps,
    names of the kernels with block functions, OpenCL kernel info), as user text."""
    so, names, log, deps, blocked, info, paths = _build_wire(
        raw.decode("latin-1"), raw, user_name, d, root, cxx, flags, opts,
        [_wire(str(e)) for e in exprs], tmp, lambda msg, log="": fail(_unwire(msg), _unwire(log)),
        cache_root)
    return (so, _unwire(names), _unwire(log), deps, _unwire(blocked), _unwire(info),
            _unwire(paths))


def _build_wire(source, raw, user_name, d, root, cxx, flags, opts, exprs, tmp: Path, fail,
                cache_root=None):
    """_build on wire text (see the module doc): `source` is `raw` as Latin-1.

    One preprocessing (g++ -E, the scan's markers on), one parse of its
    output by the front end (pyemu.compiler.frontend), the edits made in that
    text, one compile of it with the generated code.  Nothing here reads a
    compiler's messages to decide what to do."""
    source_name = _wire(user_name)
    base = shlex.split(cxx) + flags
    unit = _prepare(source, raw, user_name, d, root, base, opts, tmp, fail, cache_root)
    text, functions, model, pre_diag = unit.text, unit.functions, unit.model, unit.pre_diag
    kernels = model.kernels
    if model.errors:
        raise fail("\n".join(f"{w}: error: {msg}" for w, msg in model.errors))
    clashes = [k for k in kernels if k.qualified in model.builtin_clashes]
    if clashes:
        raise fail("\n".join(f"{k.where}: error: kernel '{k.name}' has the name of a built-in "
                             "function of OpenCL C, which a program may not redefine"
                             for k in clashes))
    info = {} if d.name != "opencl" else _opencl_info(kernels, model.symbols)
    entries = [e if e.name not in info else
               replace(e, reqd=tuple(info[e.name].pop("reqd_work_group_size_expr",
                                                      ("0", "0", "0"))),
                       hint=tuple(info[e.name].pop("work_group_size_hint_expr",
                                                   ("0", "0", "0"))))
               for e in _entries(kernels, exprs, source_name)]
    log = "".join(f"{k.where}: note: kernel '{k.qualified}' is declared but not defined; "
                  "it is not exported\n" for k in kernels if not k.defined and not k.template)
    log += _uninstantiated_notes(kernels, exprs)
    log += "".join(f"{w}: warning: pyemu's front end (libclang) could not read this as g++ "
                   f"does ({msg}); OpenCL vector literals, vector selects and __local or "
                   "__shared__ declarations there may not be rewritten\n"
                   for w, msg in model.problems[:5])

    blocks = _regions.Blocks()
    warp = model.uses_warps     # warp collectives: cuts, else fibers (warps.py)
    if not any(o.split("=")[0] == "-D" + _regions.DISABLE_MACRO for o in opts.user):
        implicit = not any(o.split("=")[0] == "-D" + _regions.NO_IMPLICIT_MACRO
                           for o in opts.user)
        blocks = _regions.generate(text, d.marker, str(root), implicit=implicit, warp=warp,
                                   functions=functions)
    # the compile: the preprocessed unit as it is now, with the markers of the
    # scan defined away (its own options are applied already: no -include,
    # -D, -U or -I again)
    cmd = ([a for a in _without_include(base)]
           + [o for o in opts.user if o[:2] not in ("-D", "-U", "-I")]
           + [f"-D{k}={v}" for k, v in _COMPILE_MARKERS[d.name].items()])
    if warp:
        text = _warps.to_warp_form(text)
    so = tmp / "module.so"
    # the unit's head (pyemu's headers) from a precompiled header (unitpch.py)
    head_end = _unitpch.split(text)
    pch = _unitpch.header(cache_root, cmd, _cxx_version(cxx), text[:head_end], _run) \
        if head_end else None

    def compile_with(attempt, out=so):
        generated = _generate(entries, source_name, attempt.kernels, _abi_version(str(root)),
                              _lean(entries, attempt))
        if attempt.body:
            # the block functions use pyemu's macros (pyemu_tctx, ...), which
            # preprocessed text no longer defines: pyemu_tctx is written out
            # here, and code that names another is preprocessed alone
            direct = _direct_generated(attempt.plain, root, _COMPILE_MARKERS[d.name])
            generated = (direct if direct is not None else
                         _preprocess_generated(base, attempt.text, tmp, fail)) + generated
        if pch is not None:
            # the unit less its head, which -include reads precompiled: a
            # compile error (status 1) is the unit's; g++ crashing (an
            # internal error, a signal) is the precompiled header's, which
            # goes, and the whole unit is compiled
            (tmp / _UNIT_NAME).write_bytes((text[head_end:] + generated).encode("latin-1"))
            r = _run(cmd + ["-include", str(pch), "-x", "c++", _UNIT_NAME, "-o", out.name],
                     cwd=str(tmp))
            if r.returncode in (0, 1):
                return r
            _unitpch.discard(pch)
        (tmp / _UNIT_NAME).write_bytes((text + generated).encode("latin-1"))
        return _run(cmd + ["-x", "c++", _UNIT_NAME, "-o", out.name], cwd=str(tmp))

    def blocks_failed(failed) -> bool:
        _regions.compile_failed(_unwire(failed.stderr))
        warnings.warn(f"pyemu: the block functions of {_unwire(source_name)} did not "
                      "compile (a bug of pyemu.compiler.regions, please report it); its "
                      "kernels run on the fiber path", RuntimeWarning, stacklevel=5)
        return True

    # Decided by exit statuses alone: a unit that fails with its block
    # functions is built again without them; when that succeeds, the block
    # functions were wrong (a bug of pyemu.compiler.regions: RegionsBug
    # under PYEMU_REGIONS_STRICT=1, else a warning and the plain build),
    # and when it fails too, its diagnostics are the user's.  Where libclang
    # found errors in the user's code, g++ most likely fails on them too: the
    # unit is built without its block functions first, so that a failure is
    # the user's alone (one g++ run), and only when that succeeds (clang read
    # it wrong) with them.
    fell_back = False
    if blocks.body and model.problems:
        r = compile_with(_regions.Blocks())
        if r.returncode == 0:
            with_blocks = compile_with(blocks, tmp / "module_blocks.so")
            if with_blocks.returncode == 0:
                os.replace(tmp / "module_blocks.so", so)
                r = with_blocks
            else:
                fell_back = blocks_failed(with_blocks)
    else:
        r = compile_with(blocks)
        if r.returncode != 0 and blocks.body:
            first = r
            r = compile_with(_regions.Blocks())
            if r.returncode == 0:
                fell_back = blocks_failed(first)
    if r.returncode != 0 or fell_back:
        blocks = _regions.Blocks()
    stderr = r.stderr
    diag = _clean_diagnostics(stderr, entries) if stderr.strip() else ""
    diag = "\n".join(x for x in (pre_diag, diag) if x)
    if r.returncode != 0 or not so.is_file():
        raise fail(diag or f"{cmd[0]} exited with status {r.returncode}", r.stderr)
    built = _probe.read_module(str(so), 6 * len(entries)) if entries else \
        {"static_smem": {}, "attr_values": []}     # no kernel instances: nothing to read
    for n, e in enumerate(entries):      # the attributes as g++ evaluated them
        if e.name in info:
            vals = built["attr_values"][6 * n:6 * n + 6]
            if any(v == 0 or v > 0xFFFFFFFF for v in vals[:3]) and any(vals[:3]):
                raise fail(f"{e.where}: error: reqd_work_group_size of kernel '{e.name}' "
                           f"is ({', '.join(map(str, e.reqd))}) = {tuple(vals[:3])}: "
                           "each size must be a positive integer")
            info[e.name]["reqd_work_group_size"] = vals[:3]
            info[e.name]["work_group_size_hint"] = vals[3:] if any(vals[3:]) else [0, 0, 0]
    if d.name == "cuda" and "pyemu_smem<" in text:
        too_big = [(k, b) for k, b in built["static_smem"].items() if b > _smem.STATIC_LIMIT]
        if too_big:
            where = {e.name: e.where for e in entries}
            raise fail("\n".join(
                f"{where.get(n, source_name)}: error: kernel '{n}' uses too much shared data "
                f"(0x{b:x} bytes, 0x{_smem.STATIC_LIMIT:x} max): its static __shared__ "
                "variables may take 48 KiB at most, as ptxas says (use dynamic shared "
                "memory and cudaFuncSetAttribute for more)" for n, b in too_big))
    deps = _read_deps(tmp / "deps.d", root, tmp)
    blocked = [e.name for e in entries if _regions.block_expr(e.expr, blocks.kernels)]
    disabled = any(o.split("=")[0] == "-D" + _regions.DISABLE_MACRO for o in opts.user)
    paths = {}
    for e in entries:
        p = blocks.paths.get(e.name) or blocks.paths.get(e.name.split("<")[0]) or \
            blocks.paths.get("*")
        if disabled:
            p = ("fibers", f"-D{_regions.DISABLE_MACRO}")
        elif fell_back:
            p = ("fibers", "its unit's block functions did not compile (a bug of pyemu)")
        elif p is None or (p[0] == "block function" and e.name not in blocked):
            p = ("block function", "") if e.name in blocked else ("plain loop", "")
        if warp and e.name not in blocked and p[0] != "fibers":
            p = ("fibers", _warps.REASON)   # run_block's warp form (warps.py)
        paths[e.name] = list(p)
    return (so, [e.name for e in entries], log + (diag + "\n" if diag else ""), deps, blocked,
            {e.name: info[e.name] for e in entries if e.name in info}, paths)


@dataclass(frozen=True)
class _Unit:
    """A translation unit made ready for g++ (before the block functions)."""
    text: str            # the preprocessed unit after the front end's edits (wire text)
    functions: list      # the front end's function records, offsets into `text`
    model: object        # the front end's Model (pyemu.compiler.frontend)
    pre_diag: str        # the preprocessor's own diagnostics (#warning), or ''


def _prepare(source, raw, user_name, d, root, base, opts, tmp: Path, fail,
             cache_root=None) -> _Unit:
    """The preprocessing (g++ -E, the scan's markers on) of wire text `source`
    (`raw` as Latin-1) in `tmp`, the front end's parse of it and its edits:
    the unit g++ compiles, without the generated code."""
    source_name = _wire(user_name)
    prepared = (rewrite_opencl(source, _swizzle_rules(str(root))) if d.name == "opencl"
                else source)
    if not prepared.endswith("\n"):
        prepared += "\n"
    # the user's part: CUDA's __shared__ becomes a marker the front end sees
    # (the headers keep theirs); a pragma line marks where it starts
    head = ('#include "pyemu/detail/kernel_entry.hpp"\n'
            + (f"#undef __shared__\n#define __shared__ {_frontend.SHARED_MARK}\n"
               if d.name == "cuda" else "")
            + f"PYEMU_MODULE_BINDING\n{_DYN_PROBE}\n{_USER_PART}\n#line 1 {c_string(source_name)}\n")
    # g++ shows the lines it complains about from the file #line names.  Not
    # where the source names a file of that name (`#include "kernel.cu"` from
    # an -I directory, as Rodinia's bfs.cu): the quoted include would find
    # this copy, the source itself, first.
    if (not os.path.isabs(user_name) and ".." not in Path(user_name).parts
            and Path(user_name).name.encode("latin-1", "replace") not in raw):
        try:
            (tmp / user_name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / user_name).write_bytes(raw)
        except (OSError, ValueError):
            pass
    (tmp / _SRC_NAME).write_bytes((head + prepared).encode("latin-1"))
    r = _run(base + list(opts.user) + ["-E", "-D__PYEMU_SCAN__", "-MMD", "-MF", "deps.d",
                                       "-MT", "pyemu", "-x", "c++", _SRC_NAME, "-o", _PRE_NAME],
             cwd=str(tmp))
    if r.returncode != 0:
        raise fail(_clean_diagnostics(r.stderr) or "the preprocessor failed", r.stderr)
    pre_diag = _clean_diagnostics(r.stderr) if r.stderr.strip() else ""   # #warning
    pre = (tmp / _PRE_NAME).read_bytes().decode("latin-1")
    split = pre.find("\n" + _USER_PART + "\n")
    probe = _DYN_PROBE_RE.search(pre, 0, split if split > 0 else len(pre))
    model = _frontend.parse(pre, d.name, str(root), opts.std, split_at=max(split + 1, 0),
                            pch_dir=_pch_dir(cache_root),
                            dyn_base=probe.group(1) if probe else "pyemu_tctx.dyn_smem_base")
    text = _frontend.apply(pre, model.edits)
    # what the edits left of the markers the front end alone reads; where
    # each character of `pre` is now (the regions pass reads the front
    # end's function records in `text`)
    moved = [_frontend.Moved.of(model.edits)]
    text, m = _frontend.Moved.sub(_USER_PART_RE, "\n\n", text, count=1)
    moved.append(m)
    functions = [f.moved(lambda p: moved[1](moved[0](p)),
                         lambda p: moved[1].left(moved[0].left(p)),
                         lambda p: moved[1].last(moved[0].last(p)))
                 for f in model.functions]
    return _Unit(text, functions, model, pre_diag)


def unit_of(source, dialect: str = "cuda", options=(), source_name: Optional[str] = None):
    """(text, functions, include root) of `source` as compile_source makes its
    unit before the block functions: the preprocessed text after the front
    end's edits (wire text) and the front end's function records in it, what
    pyemu.compiler.regions reads (its tests use this).  Raises CompileError
    where compile_source would before its g++ run."""
    import tempfile
    raw = _source_bytes(source)
    d = _DIALECTS[dialect]
    source_name = source_name or ("program.cl" if dialect == "opencl" else "kernel.cu")
    opts = _parse_cl_options(options) if dialect == "opencl" else _parse_options(options)
    root = _include_root()

    def fail(msg, log=""):
        return CompileError(msg, source=raw.decode("utf-8", "replace"), source_name=source_name)

    base = shlex.split(_config.cxx()) + _base_flags(d, root, opts)
    with tempfile.TemporaryDirectory(prefix="pyemu-unit-") as tmp:
        unit = _prepare(raw.decode("latin-1"), raw, source_name, d, root, base, opts, Path(tmp),
                        fail, open_cache().root)
    return unit.text, unit.functions, str(root)


_USER_PART = "#pragma pyemu_user_part"
# what pyemu_tctx.dyn_smem_base is in preprocessed text (the base of the
# launch's dynamic shared memory, which `extern __shared__` arrays point to)
_DYN_PROBE = "inline void *pyemu_dyn_smem_probe() { return pyemu_tctx.dyn_smem_base; }"
_DYN_PROBE_RE = re.compile(r"pyemu_dyn_smem_probe\(\) \{ return (.*?); \}")
_SRC_NAME = _TU_NAME        # the user's source after the head (tests read it)
_UNIT_NAME = "pyemu_unit.cpp"
_PRE_NAME = "pyemu_pre.ii"
_USER_PART_RE = re.compile(re.escape("\n" + _USER_PART + "\n"))
# the scan's markers (include/pyemu/detail/*_qualifiers.h, smem.h), defined
# away for the compile as the headers do outside the scan
_COMPILE_MARKERS = {
    "cuda": {"__pyemu_global__": "", "__launch_bounds__(...)": "", "__pyemu_smem__": ""},
    "opencl": {**{m: "" for m in ("__pyemu_kernel__", "__pyemu_as_global__", "__pyemu_as_local__",
                                  "__pyemu_as_constant__", "__pyemu_as_private__",
                                  "__pyemu_acc_read_only__", "__pyemu_acc_write_only__",
                                  "__pyemu_acc_read_write__", "__pyemu_smem__")},
               "reqd_work_group_size(...)": "", "work_group_size_hint(...)": "",
               "vec_type_hint(...)": ""},
}


_GENERATED_PART = "#pragma pyemu_generated_part"


def _preprocess_generated(base: list, code: str, tmp: Path, fail) -> str:
    """`code` (pyemu's generated C++, which uses the headers' macros)
    preprocessed against the same headers, without them.

    Its line markers (the user's lines, which the block functions' tokens
    keep) get flag 3, a system header's: g++ warns about the user's code
    once, at the user's kernel, and not again in the copies pyemu made of
    it (errors it still reports).  A marker without flags after it ends that."""
    (tmp / "pyemu_gen.cpp").write_bytes((f"{_GENERATED_PART}\n" + code).encode("latin-1"))
    r = _run(base + ["-E", "-x", "c++", "pyemu_gen.cpp"], cwd=str(tmp))
    at = r.stdout.find(_GENERATED_PART + "\n")
    if r.returncode != 0 or at < 0:
        raise fail(_clean_diagnostics(r.stderr) or "the preprocessor failed", r.stderr)
    out = _MARKER_LINE_RE.sub(r'\1 3', r.stdout[at + len(_GENERATED_PART) + 1:])
    return f'\n# 1 "{_REGIONS_NAME}" 3\n' + out + f'\n# 1 "{_REGIONS_NAME}"\n'


def _header_macros(root: Path) -> tuple:
    """(the names pyemu's headers under `root` #define, the body of abi.h's
    pyemu_tctx or None), read once a process."""
    key = str(root)
    if key not in _HEADER_MACROS:
        names, tctx = set(), None
        for f in sorted(Path(root).rglob("*.h*")):
            text = f.read_text("latin-1")
            names.update(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", text, re.M))
            m = re.search(r"^#define pyemu_tctx((?:[^\n]*\\\n)*[^\n]*)$", text, re.M)
            if m and f.name == "abi.h":
                tctx = " ".join(m.group(1).replace("\\\n", " ").split())
        _HEADER_MACROS[key] = (frozenset(names), tctx)
    return _HEADER_MACROS[key]


_HEADER_MACROS: dict = {}
# a string or character literal (left as it is), or the name pyemu_tctx
_TCTX_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|\bpyemu_tctx\b')
_HASH_LINE_RE = re.compile(r'^#line (\d+ "(?:[^"\\\n]|\\.)*")$', re.M)


def _direct_generated(plain: str, root: Path, markers: dict) -> Optional[str]:
    """What _preprocess_generated makes of the block functions' code
    `plain` (regions.Blocks.plain), without running the preprocessor: where
    the only header macro it names is pyemu_tctx (written out here as abi.h
    defines it) and the only marker ones the compile defines, else None.
    The compile sees no user macro (the unit is preprocessed text, built
    without the user's -D), so the names need no protection; each #line
    becomes a line marker with flag 3, as the preprocessor's would."""
    defined, tctx = _header_macros(root)
    ours = {n for n in re.findall(r"\b(?:__)?(?:pyemu|PYEMU)_\w*", plain)}
    macros = (ours & defined) | {n for n in ours if n.startswith("__pyemu_")}
    # a raw string literal could hold what looks like a literal's end
    if tctx is None or re.search(r'R"', plain) or \
            macros - {"pyemu_tctx"} - {m.split("(")[0] for m in markers}:
        return None
    out = _TCTX_RE.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else tctx, plain)
    out = _HASH_LINE_RE.sub(r"# \1 3", out)
    return f'\n# 1 "{_REGIONS_NAME}" 3\n' + out + f'\n# 1 "{_REGIONS_NAME}"\n'


_REGIONS_NAME = "<pyemu-regions>"
# a line marker of g++ -E output: `# 12 "kernel.cu"`, flags 1 and 2 kept (no 3 yet)
_MARKER_LINE_RE = re.compile(r'^(# \d+ "(?:[^"\\\n]|\\.)*"(?: [12])*)$', re.M)


def _without_include(args: list) -> list:
    """`args` less `-include <header>` (the preprocessed unit holds it)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "-include":
            skip = True
        else:
            out.append(a)
    return out


def _pch_dir(cache_root) -> Optional[Path]:
    """Where the front end keeps its precompiled headers: under the cache."""
    return Path(cache_root) / "frontend" if cache_root is not None else None


def _opencl_info(kernels: list, symbols: list = ()) -> dict:
    """{kernel: clGetKernelArgInfo and attribute info} (see CompiledModule):
    the attribute values are filled in after the build (pyemu.compiler.probe);
    "constants": [[name, bytes], ...], the kernel's kernel-scope __constant
    variables, which clBuildProgram counts in the 64 KiB."""
    consts = {}
    for s in symbols:
        if s.kind == "kernel_constant":
            kern, name = s.qualified.split("::", 1)
            consts.setdefault(kern, []).append([name, s.size])
    out = {}
    for k in kernels:
        name = k.name
        if not k.defined and name in out:
            continue
        info = {"args": [{"name": p.name, "type_name": p.type_name, "address": p.address,
                          "access": p.access, "type_qualifiers": list(p.type_qualifiers)}
                         for p in k.params],
                "reqd_work_group_size": [0, 0, 0], "work_group_size_hint": [0, 0, 0],
                "constants": consts.get(k.qualified, [])}
        written = []
        for aname, args in k.attributes:
            if aname in ("reqd_work_group_size", "work_group_size_hint"):
                exprs = (list(args) + ["1", "1", "1"])[:3]
                info[aname + "_expr"] = exprs
                try:        # plain numbers are known here already
                    info[aname] = [int(x.rstrip("uUlL"), 0) for x in exprs]
                except ValueError:
                    pass
            written.append(f"{aname}({','.join(args)})".replace(" ", ""))
        info["attributes"] = " ".join(written)
        out[name] = info
    return out


def _read_deps(path: Path, root: Path, tmp: Path) -> dict:
    """{header: sha256} of the user's headers in a g++ -MMD file."""
    try:
        text = path.read_text(errors="surrogateescape")
    except OSError:
        return {}
    text = text.replace("\\\n", " ")
    _, _, text = text.partition(": ")
    files = [f.replace("\\ ", " ") for f in re.findall(r"(?:\\ |[^\s])+", text)]
    deps = {}
    for f in files:
        p = Path(f) if os.path.isabs(f) else tmp / f
        p = p.resolve()
        if p.is_relative_to(root.resolve()) or p.is_relative_to(tmp.resolve()):
            continue
        deps[str(p)] = file_sha256(p)
    return deps
