"""Block functions: a kernel with barriers run region by region, without fibers.

A kernel whose __syncthreads() calls sit in "structured" places (straight
code, the bodies of for/while/do loops and if statements) gets a second C++
function, `bool pyemu_rg_<name>(params)`, that runs a whole block at once,
the way PoCL runs OpenCL work-groups ("work-item loops"):

* the body is split at its barriers into regions; each region becomes a loop
  over the threads of the block (z, y, x; x innermost) in which threadIdx is
  the loop counters (stored in pyemu_tctx too where the region calls out or
  can fault, so messages name the right thread; elsewhere g++ may vectorize);
* a local variable whose lifetime crosses a barrier gets one copy per thread
  (an array on the worker's stack, indexed by the linear thread index; a
  block needing more than 4 MiB of copies is declined and runs on fibers),
  unless it is *uniform* (one copy: set from literals, blockIdx/blockDim/
  gridDim, unmodified parameters, and changed only by increments of loops
  that hold barriers) or *recomputed* (never modified, set from threadIdx and
  uniform values: recomputed in each region);
* an innermost barrier-free loop with a uniform condition, entered by all
  threads, whose body calls a function (printf, atomics), gets a barrier at
  the start and end of its body (PoCL's implicit loop barriers, uniform.py;
  the fiber variant gets the same ones), so a block runs it iteration by
  iteration;
* a condition around a barrier is evaluated once (from thread 0's copies
  where uniform.py proves it uniform); one that is not provably
  uniform sends the kernel to the fiber path (its variant, variant.py),
  which decides from what really runs whether part of the block reaches a
  barrier (a loop whose trip count differs between threads may hold a
  barrier that none reaches); loop inits and increments run per thread,
  their uniform parts once;
* `return` marks the thread as exited; a barrier reached by the others then
  fails the launch through pyemu_barrier_diverged (abi.h), like the fiber path.

The pass reads the preprocessed translation unit (what g++ -E printed for the
kernel scan), so macros are expanded and __syncthreads() is the call
`pyemu_barrier("file:line")`; it writes the block functions after the user's
source, each identifier of the user's protected from the user's macros, with
#line directives that keep diagnostics at the user's lines.  Device functions
that reach a barrier are inlined first (inline.py).  What it cannot place
safely (goto, switch around a barrier, a break or continue in a loop that
holds one but for a uniform loop exit (uniform.py: the whole block leaves
the loop, or goes on, together), __syncthreads_count, a
function that cannot be inlined, recursion, lambdas, references or `auto`
crossing a barrier, ...) raises Unsupported and the kernel takes the fiber
path through its variant, whose soft barriers sit where the block function
would start regions, so both paths give the same result; Blocks.paths keeps
each kernel's path and why (PYEMU_DEBUG_PATHS=1 prints it).  An internal
error keeps the fiber path too, or raises RegionsBug under
PYEMU_REGIONS_STRICT=1.  pyemu.compiler calls generate(); see block_expr
and compile_failed for the rest of its hook.
"""
from __future__ import annotations

import bisect
import contextvars
import hashlib
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from . import syntax as S
from . import tree as _tree
from .syntax import Unsupported

__all__ = ["Blocks", "generate", "block_expr", "compile_failed", "VERSION",
           "DISABLE_MACRO", "NO_IMPLICIT_MACRO", "RegionsBug", "FORCE_ENV", "STRICT_ENV",
           "DEBUG_ENV"]

BARRIER = "pyemu_barrier"
DISABLE_MACRO = "PYEMU_NO_REGIONS"   # -DPYEMU_NO_REGIONS keeps every kernel on fibers
PREFIX = "pyemu_rg_"
# Implicit barriers at the end of the uniform loops of barrier-free kernels
# (see _implicit), so the loop over threads goes inside them and vectorizes,
# as PoCL does; -DPYEMU_NO_IMPLICIT_BARRIERS turns them off.  Kernels are
# built with -ffp-contract=fast (nvcc's -fmad=true), so a*b+c is one FMA in
# every path a block may take.
NO_IMPLICIT_MACRO = "PYEMU_NO_IMPLICIT_BARRIERS"
IMPLICIT_SITE = "<implicit barrier>"
_SOURCE_VERSION = hashlib.sha256(b"".join(
    p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py")))).hexdigest()[:16]
# PYEMU_FORCE_FIBERS=1 (a test switch): every kernel that has a barrier (or
# implicit barriers) runs its fiber variant (variant.py) instead of its block
# function, so a corpus can be run both ways and compared.
FORCE_ENV = "PYEMU_FORCE_FIBERS"
# PYEMU_REGIONS_STRICT=1 (tests): a block function that g++ rejects, or an
# internal error of this pass, raises RegionsBug instead of falling back.
STRICT_ENV = "PYEMU_REGIONS_STRICT"
# PYEMU_DEBUG_PATHS=1: print, at compile time, which path each kernel takes and why.
DEBUG_ENV = "PYEMU_DEBUG_PATHS"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip() not in ("", "0")


def __getattr__(name):
    # VERSION is part of the kernel cache key: it says whether fibers are forced
    if name == "VERSION":
        return _SOURCE_VERSION + ("-fibers" if _flag(FORCE_ENV) else "")
    raise AttributeError(name)


class RegionsBug(RuntimeError):
    """A block function that does not compile, or an internal error of the
    pass, under PYEMU_REGIONS_STRICT=1 (in tests: a bug must fail)."""

# the block's indices as the headers spell them, and their short names in
# generated code (global_offset: OpenCL's global work offset)
_DIMS = {"threadIdx": "t", "blockIdx": "bi", "blockDim": "bd", "gridDim": "gd",
         "global_offset": "go"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_KEYWORDS = {"return", "case", "sizeof", "alignof", "if", "while", "for", "switch", "do", "else",
             "new", "delete", "throw", "co_return", "co_yield", "decltype", "typeid", "noexcept",
             "static_cast", "const_cast", "reinterpret_cast", "dynamic_cast", "operator"} | \
    S.TYPE_WORDS | S.CV_WORDS | S.STORAGE_WORDS
_CASTS = {"static_cast", "const_cast", "reinterpret_cast"}
# Functions of the CUDA headers and the C library that take their arguments by
# value and have no effect but their result (or, for atomics and printf, one
# through a pointer): a bare variable passed to them is read, not modified.
# Only for calls the front end could not resolve (a template's dependent
# call, whose callee argument-dependent lookup may find at instantiation;
# tokens the pass made): elsewhere clang's tree says (_safe_call).
_BY_VALUE = {
    "pyemu_printf", "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
    "atomicInc", "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor",
    "min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "abs", "labs", "llabs",
    "fabsf", "fabs", "fminf", "fmaxf", "fmin", "fmax", "sqrtf", "sqrt", "rsqrtf", "expf", "exp",
    "logf", "log", "powf", "pow", "sinf", "cosf", "floorf", "ceilf", "floor", "ceil", "roundf",
    "truncf", "__expf", "__logf", "__sinf", "__cosf", "__fdividef", "__powf", "__popc",
    "__popcll", "__clz", "__ffs", "__float2int_rn", "__int2float_rn", "__mul24", "__umul24",
    "make_int2", "make_int3", "make_int4", "make_uint2", "make_uint3", "make_uint4",
    "make_float2", "make_float3", "make_float4", "make_double2",
    # OpenCL C (cl_atomics.h, cl_printf.h, cl_math.h, cl_integer.h, cl_common.h)
    "pyemu_cl_printf", "atomic_add", "atomic_sub", "atomic_xchg", "atomic_inc", "atomic_dec",
    "atomic_cmpxchg", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "atom_add", "atom_sub", "atom_xchg", "atom_inc", "atom_dec", "atom_cmpxchg", "atom_min",
    "atom_max", "atom_and", "atom_or", "atom_xor", "mad", "fma", "clamp", "mix", "dot",
    "length", "distance", "normalize", "cross", "native_sqrt", "native_exp", "native_log",
    "native_sin", "native_cos", "native_divide", "native_recip", "rsqrt", "select", "popcount",
    "clz", "mul24", "mad24", "mul_hi", "rotate", "sin", "cos", "tan", "exp2", "log2",
    # the warp collectives a block function cuts at (warpcut.py), and its phase switch
    "pyemu_warp_phase", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__ballot_sync", "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync", "__syncwarp", "sub_group_all", "sub_group_any",
    "sub_group_barrier", "sub_group_broadcast", "sub_group_ballot", "sub_group_shuffle",
    "sub_group_shuffle_xor", "sub_group_shuffle_up", "sub_group_shuffle_down"}
# Type names of the headers that casts in index expressions use
# ((size_t)get_local_id(0), as OpenCL's work-item functions spell it).
_TYPEDEFS = {"size_t", "ptrdiff_t", "uint", "ushort", "uchar", "ulong", "intptr_t", "uintptr_t"}
# Pure functions allowed in uniform and recomputed expressions.
_PURE = {"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "abs"}
# The math functions that uniform.Uniformity takes as pure (their result
# depends on their arguments only, which they take by value; none writes
# through a pointer: no sincosf, frexpf, modff, remquof, fract): the CUDA
# math library (single and double precision, the __ intrinsics, the integer
# intrinsics) and OpenCL C's math, common and integer built-ins.  A call of
# one of uniform arguments is uniform, unless the unit defines a function of
# that name (the user's own min, which could do anything).
_MATH = _PURE | {
    # CUDA math API: single and double precision
    "sqrtf", "sqrt", "rsqrtf", "rsqrt", "cbrtf", "cbrt", "rcbrtf", "rcbrt", "expf", "exp",
    "exp2f", "exp2", "exp10f", "exp10", "expm1f", "expm1", "logf", "log", "log2f", "log2",
    "log10f", "log10", "log1pf", "log1p", "logbf", "logb", "ilogbf", "ilogb", "powf", "pow",
    "sinf", "sin", "cosf", "cos", "tanf", "tan", "asinf", "asin", "acosf", "acos", "atanf",
    "atan", "atan2f", "atan2", "sinhf", "sinh", "coshf", "cosh", "tanhf", "tanh", "asinhf",
    "asinh", "acoshf", "acosh", "atanhf", "atanh", "sinpif", "sinpi", "cospif", "cospi",
    "floorf", "floor", "ceilf", "ceil", "roundf", "round", "truncf", "trunc", "rintf", "rint",
    "nearbyintf", "nearbyint", "lroundf", "lround", "llroundf", "llround", "lrintf", "lrint",
    "llrintf", "llrint", "fabsf", "fabs", "fminf", "fmin", "fmaxf", "fmax", "fdimf", "fdim",
    "fmodf", "fmod", "remainderf", "remainder", "hypotf", "hypot", "rhypotf", "rhypot",
    "norm3df", "norm3d", "norm4df", "norm4d", "rnorm3df", "rnorm3d", "rnorm4df", "rnorm4d",
    "fmaf", "fma", "copysignf", "copysign", "ldexpf", "ldexp", "scalbnf", "scalbn", "erff",
    "erf", "erfcf", "erfc", "erfinvf", "erfinv", "erfcinvf", "erfcinv", "tgammaf", "tgamma",
    "lgammaf", "lgamma", "fdividef", "labs", "llabs",
    # CUDA intrinsics
    "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__powf", "__sinf", "__cosf",
    "__tanf", "__fdividef", "__saturatef", "__fsqrt_rn", "__fsqrt_rz", "__fsqrt_ru",
    "__fsqrt_rd", "__frsqrt_rn", "__frcp_rn", "__frcp_rz", "__frcp_ru", "__frcp_rd",
    "__fadd_rn", "__fadd_rz", "__fsub_rn", "__fsub_rz", "__fmul_rn", "__fmul_rz",
    "__fdiv_rn", "__fdiv_rz", "__fmaf_rn", "__fmaf_rz", "__dadd_rn", "__dmul_rn",
    "__ddiv_rn", "__dsqrt_rn", "__float2int_rn", "__float2int_rz", "__float2int_rd",
    "__float2int_ru", "__float2uint_rn", "__float2uint_rz", "__int2float_rn",
    "__int2float_rz", "__uint2float_rn", "__double2int_rn", "__double2int_rz",
    "__int2double_rn", "__mul24", "__umul24", "__mulhi", "__umulhi", "__mul64hi",
    "__umul64hi", "__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev",
    "__brevll", "__sad", "__usad", "__hadd", "__uhadd", "__rhadd", "__urhadd",
    # OpenCL C: math, common and integer built-ins
    "pown", "powr", "rootn", "half_sqrt", "half_rsqrt", "half_exp", "half_exp2",
    "half_exp10", "half_log", "half_log2", "half_log10", "half_sin", "half_cos", "half_tan",
    "half_powr", "half_divide", "half_recip", "native_sqrt", "native_rsqrt", "native_exp",
    "native_exp2", "native_exp10", "native_log", "native_log2", "native_log10", "native_sin",
    "native_cos", "native_tan", "native_powr", "native_divide", "native_recip", "mad",
    "asinpi", "acospi", "atanpi", "atan2pi", "tanpi", "maxmag", "minmag", "clamp", "mix",
    "step", "smoothstep", "sign", "degrees", "radians", "abs_diff", "add_sat", "sub_sat",
    "hadd", "rhadd", "mul_hi", "mad_hi", "mad_sat", "mul24", "mad24", "rotate", "popcount",
    "clz", "ctz", "upsample"}


@dataclass
class Blocks:
    """What generate() made: the text to append after the user's source, and
    for each kernel (qualified name) its block function or why it has none.

    `paths` says for every kernel the pass saw which path it takes and why:
    (path, reason) with path 'block function' (region by region), 'fiber
    variant' (fibers with soft barriers, variant.py: its runner is in
    `kernels` too), 'fibers' (the plain loop, fibers once a barrier is
    reached) or 'plain loop' (no barrier: threads one after another).

    `text` is the code protected from every macro (push/undef/pop of its
    names), for a preprocessor run of its own; `plain` the same code
    without that (driver._direct_generated), made from `body` on demand."""
    body: str = ""      # the block functions' code, as the generator wrote it
    kernels: dict = field(default_factory=dict)   # qualified kernel -> qualified block function
    skipped: dict = field(default_factory=dict)   # qualified kernel -> reason
    paths: dict = field(default_factory=dict)     # qualified kernel -> (path, reason)

    @property
    def text(self) -> str:
        return _protect(self.body) if self.body else ""

    @property
    def plain(self) -> str:
        return _quiet(self.body) if self.body else ""


_DIVERGE = ("a branch or loop around a barrier has a condition that is not provably uniform "
            "(the fiber path decides from what really runs whether part of the block reaches it)")


def _internal(what: str, e: Exception) -> str:
    """The reason for an internal error of the pass; under PYEMU_REGIONS_STRICT it raises."""
    if _flag(STRICT_ENV):
        raise RegionsBug(f"pyemu.compiler.regions: {what}: {e!r}") from e
    return f"internal error: {e!r}"


def generate(pre: str, marker: str, internal_root: Optional[str] = None,
             implicit: bool = False, warp: bool = False, functions=None) -> Blocks:
    """Block functions for the barrier kernels of a preprocessed unit.

    `pre` is the g++ -E output in which __global__ became `marker`;
    `internal_root` is the directory of pyemu's own headers (functions
    defined there are not the user's); `implicit`: also barrier-free kernels
    with uniform loops (_implicit); `warp`: the unit uses warp collectives
    (pyemu/compiler/warps.py), whose statements become cuts (warpcut.py).  A
    kernel with barriers that cannot have a block function gets a fiber
    variant (variant.py); one with collectives runs on fibers in the warp form.  With
    PYEMU_DEBUG_PATHS=1 the paths are printed to stderr.

    `functions`: the front end's record of the unit's function definitions
    (pyemu.compiler.frontend.Function, offsets into `pre`: the driver moves
    them through its edits); None parses `pre` with the front end here."""
    if functions is None:
        # as the driver does: the front end's edits made (smem declarations
        # as the statement records have them), its records moved
        from .. import frontend
        dialect = "cuda" if marker == "__pyemu_global__" else "opencl"
        model = frontend.parse(pre, dialect, str(internal_root or "<none>"))
        m = frontend.Moved.of(model.edits)
        pre = frontend.apply(pre, model.edits)
        functions = [f.moved(m, m.left, m.last) for f in model.functions]
    out = _generate(pre, marker, internal_root, implicit, _flag(FORCE_ENV), warp, functions)
    if _flag(DEBUG_ENV):
        for q, (path, why) in out.paths.items():
            print(f"pyemu: kernel {q}: {path}" + (f" ({why})" if why else ""), file=sys.stderr)
    return out


# The front end's facts about call arguments (Function.by_value, by_ref:
# offsets into the unit of the variable names that are a whole argument of a
# call clang resolved), for _Kernel._safe_call, while _generate runs.
_CALL_ARGS = contextvars.ContextVar("pyemu_regions_call_args",
                                    default=(frozenset(),) * 4)


def _generate(pre, marker, internal_root, implicit, force, warp, functions) -> Blocks:
    by_value = frozenset().union(*(f.by_value for f in functions))
    by_ref = frozenset().union(*(f.by_ref for f in functions))
    changed = frozenset().union(*(f.changed for f in functions))
    unchanged = frozenset().union(*(f.unchanged for f in functions)) - changed
    token = _CALL_ARGS.set((by_value, by_ref, changed, unchanged))
    try:
        return _generate_unit(pre, marker, internal_root, implicit, force, warp, functions)
    finally:
        _CALL_ARGS.reset(token)


def _generate_unit(pre, marker, internal_root, implicit, force, warp, functions) -> Blocks:
    from . import inline as _inline
    from . import variant as _variant
    from . import warpcut as _warpcut
    files: list = []
    try:
        toks = S.tokenize(pre, files, skip_root=str(internal_root) if internal_root else "")
        groups = _groups(toks, functions)
    except Exception as e:  # Unsupported, or a bug of this pass: no block functions
        why = f"cannot read the unit: {e}"
        if not isinstance(e, Unsupported):
            why = _internal("reading the unit", e)
        return Blocks(skipped={"*": why}, paths={"*": ("fibers", why)})
    internal = (lambda f: internal_root is not None and files[f].startswith(str(internal_root)))
    holders, poison = _barrier_holders(functions, warp)
    user_funcs = {g.name for g in groups if g.kind in ("function", "template")}
    unnamed = any(g.kind == "kernel" and g.name in ("", "::") for g in groups)
    # collectives the cuts cannot see: a class or lambda of the user's that
    # calls one (every kernel of the unit keeps the fibers' warp form); the
    # cooperative groups beyond the block's own (member calls of a tile, ...)
    # that a kernel reaches, as the front end says (Function.cg)
    warp_poison, hidden = "", set()
    if warp:
        warp_poison, hidden = _warpcut.hidden(toks, groups)
    cg = {f.key: f.cg for f in functions if f.kind == "kernel" and f.cg}
    out = Blocks()
    texts, failed = {}, set()
    gtoks = {}      # (kernel, overload) -> its own tokens (implicit barriers added)
    for g in groups:
        if g.kind != "kernel" or g.name in ("", "::"):
            continue
        q = g.qualified
        gt = toks          # the tokens the kernel's text comes from
        text, why, has_barrier, coll, late = None, "", False, False, ""
        try:
            if poison:
                raise Unsupported(poison)
            calls = {t.text for t in toks[g.body[0]:g.body[1]] if t.kind == "id"} & holders
            has_barrier = bool(calls) or any(t.text == BARRIER for t in toks[g.body[0]:g.body[1]])
            late = _declared_later(g, g.outer)
            if late:
                raise Unsupported(late)
            # collectives here or in a called function: a block function or the warp form
            coll = warp and bool(calls or _warpcut.names(toks, *g.body) or warp_poison)
            if warp_poison:
                raise Unsupported(warp_poison)
            if warp and hidden & {t.text for t in toks[g.body[0]:g.body[1]] if t.kind == "id"}:
                coll = True
                raise Unsupported("it calls a function template that uses warp collectives "
                                  "(not inlined)")
            if warp and cg.get(g.key):
                coll = True
                raise Unsupported(cg[g.key])
            if calls:
                found = _inline.inline_calls(toks, groups, g, holders, internal)
                if found is None:
                    raise Unsupported("it calls a function that reaches __syncthreads() "
                                      "and cannot be inlined, or recurses")
                own = {t.text for t in toks[g.head[0]:g.body[1]] if t.kind == "id"}
                g, gt = found
                # the inlined bodies' names but their locals (renamed) and members
                late = _declared_later(g, {
                    t.text for j, t in enumerate(gt[g.head[0]:g.body[1]], g.head[0])
                    if t.kind == "id" and t.text not in own
                    and gt[j - 1].text not in (".", "->")})
                if late:
                    raise Unsupported(late)
            if coll and _warpcut.names(gt, *g.body):
                has_barrier = True
                g, gt = _warpcut.cut(gt, g)
            k = _Kernel(gt, files, g, user_funcs)
            if unnamed and k.template:
                raise Unsupported("the unit specializes a kernel template")
            text = k.generate()
            if text is not None and "pyemu_barrier_diverged" in text:
                raise Unsupported(_DIVERGE)
            if text is None and implicit and not holders & user_funcs:
                found = _implicit(gt, files, g, user_funcs)
                if found is not None:
                    g, text, gt = found
                    has_barrier = True
                elif not force:
                    text = _single(gt, files, g, user_funcs)
            if text is not None and force:
                raise Unsupported(f"{FORCE_ENV}=1")
        except Unsupported as e:
            why, text = str(e), None
        except Exception as e:  # a bug of this pass must never fail a build
            why, text = _internal(f"kernel {q}", e), None
        if text is None and coll:
            why = f"it uses warp collectives, which run on fibers here: {why}"
        elif text is None and has_barrier and not late and not why.startswith("internal error"):
            # the fiber path, with the implicit barriers the block function would have
            try:
                params = {v.name for v in _Kernel(gt, files, g, user_funcs)._parse_params()}
                text = _variant.variant(gt, files, g, params, BARRIER, IMPLICIT_SITE,
                                        holders if gt is toks else set(), PREFIX + g.name,
                                        user_funcs)
                out.paths[q] = ("fiber variant", why)
                out.skipped[q] = why
            except Unsupported as e:
                why = f"{why}; no fiber variant: {e}"
            except Exception as e:
                why = f"{why}; no fiber variant: {_internal(f'variant of {q}', e)}"
        if text is None:
            failed.add(q)
            if has_barrier or why:
                out.skipped[q] = why or "no barrier"
            out.paths[q] = ("fibers" if has_barrier or coll else "plain loop", why)
            continue
        out.paths.setdefault(q, ("block function", ""))
        n = len(texts.get(q, ()))
        if gt is not toks:
            gtoks[q, n] = gt
        texts.setdefault(q, []).append((g, text))
    parts = []
    for q, items in texts.items():
        if q in failed:
            out.skipped[q] = "an overload of it cannot be transformed"
            out.paths[q] = ("fibers", out.skipped[q])
            continue
        for n, (g, text) in enumerate(items):
            parts.append(_in_namespaces(gtoks.get((q, n), toks), g, text))
        out.kernels[q] = "::".join(q.split("::")[:-1] + [PREFIX + g.name])
    if parts:
        out.body = _PRELUDE + "".join(parts)
    return out


def _declared_later(g: S.Group, names: set) -> str:
    """Why kernel `g` can have no generated code, or '': the block function
    and the fiber variant go at the end of the unit, where a declaration
    after the kernel (an overload of a function it calls, a using-directive)
    could change what `names`, the names its code takes from namespace
    scope, mean.  Then the kernel runs as written, on fibers."""
    if not g.later:
        return ""
    names = set(names) - {g.name}     # the generated code does not name the kernel
    if "*" in g.later and names:
        return ("a using-directive after the kernel would change what its names mean in "
                "code generated at the end of the unit")
    clash = sorted(names & g.later)
    if clash:
        return (f"'{clash[0]}' is declared anew after the kernel (a new overload or meaning), "
                "which code generated at the end of the unit would see")
    return ""


def _implicit(toks: list, files: list, g: S.Group, user_funcs: set):
    """(group, block function text, tokens) for a kernel without barriers
    whose top-level for loops have uniform headers: the end of each such
    loop's body becomes an implicit barrier (PoCL's implicit loop barriers),
    so the loop runs once per block and the thread loop goes inside it, where
    g++ can vectorize across threads.  None when no loop qualifies or the
    block function would need any check that could fail (a condition not
    proven uniform, a return): the kernel then keeps running thread by thread.

    Each thread still does its own operations in the same order; only the
    interleaving between threads changes, which CUDA leaves open without a
    barrier."""
    try:
        k = _Kernel(toks, files, g, user_funcs)
        body, _ = _tree.body(toks, g)
    except Exception:
        return None
    for st in S.walk(body):
        if st.kind in ("return", "goto", "label", "barrier", "other"):
            return None
    if any(t.text in ("return", "goto", "co_return", "co_await", "co_yield", "throw",
                      "setjmp", "longjmp", "__builtin_setjmp")
           for t in toks[k.lo:k.hi]):
        return None
    if any(t.text == "pyemu_cl_printf" for t in toks[k.lo:k.hi]):
        # OpenCL's printf: PoCL, the reference, puts no implicit barrier in
        # a kernel without barriers, so its work-items print one after
        # another (CUDA's keep them: a warp prints in lockstep)
        return None

    def candidates(stmts):
        for st in stmts:
            if st.kind == "compound":
                yield from candidates(st.kids)
            elif (st.kind == "for" and not st.flags & {"rangefor", "condecl", "constexpr"}
                  and st.cond[0] < st.cond[1] and not _escapes(st.kids[0])
                  and not any(x.kind in ("switch",) and _escapes_continue(x)
                              for x in S.walk(st.kids))):
                yield st

    loops = sorted(candidates(body), key=lambda st: st.lo, reverse=True)
    if not loops:
        return None
    new, ng = _tree.loop_barriers(toks, g, loops, '"' + IMPLICIT_SITE + '"', start=False)
    try:
        k = _Kernel(new, files, ng, user_funcs)
        k.implicit = True
        text = k.generate()
    except Exception:
        return None
    # Only loops proven uniform: no check that could fail the launch.
    if text is None or "pyemu_barrier_diverged" in text or PREFIX + "exited" in text \
            or PREFIX + "ex" in text.replace(PREFIX + "exited", ""):
        return None
    return ng, text, new


def _single(toks: list, files: list, g: S.Group, user_funcs: set) -> Optional[str]:
    """A one-region block function for a kernel without barriers that calls
    nothing (no device function, printf, assert or atomic): its loop over
    threads reads the loop counters and computes index polynomials in int,
    so g++ can vectorize it (the plain thread loop of kernel_entry.hpp runs
    the kernel through threadIdx in pyemu_tctx, with unsigned indices).
    None when the kernel calls out (its region would keep threadIdx in
    pyemu_tctx, as the plain loop does) or the pass cannot read it."""
    try:
        k = _Kernel(toks, files, g, user_funcs)
        k.single = True
        text = k.generate()
    except Exception:
        return None
    if text is None or PREFIX + "vt->" in text or PREFIX + "c.threadIdx.x =" in text \
            or "pyemu_barrier_diverged" in text:
        return None
    return text


def block_expr(expr: str, kernels: dict) -> Optional[str]:
    """The block function for a kernel entry's C++ expression ("::ns::k",
    "reduce<256>"), or None when its kernel has none."""
    e = expr.strip().lstrip("&").strip()
    base, rest = (e.split("<", 1) + [""])[:2]
    base = base.strip()
    qual = base.lstrip(":").strip()
    if qual not in kernels:
        return None
    lead = "::" if base.startswith("::") else ""
    out = lead + kernels[qual]
    return out + ("<" + rest if rest else "")


# ------------------------------------------------------------ diagnostics

def compile_failed(stderr: str) -> None:
    """The driver's word that g++ rejected the unit with its block functions
    and accepted it without them (exit statuses, not messages, say so): a
    bug of this pass.  Under PYEMU_REGIONS_STRICT=1 it raises RegionsBug with
    g++'s output; otherwise the driver warns and keeps the build without."""
    if _flag(STRICT_ENV):
        raise RegionsBug("a block function or fiber variant did not compile (a bug of "
                         "pyemu.compiler.regions):\n" + stderr)


# --------------------------------------------------------------- the unit

def _groups(toks: list, functions: list) -> list:
    """The Groups of the front end's function records (their offsets into
    the text that `toks` came from): kind 'kernel', 'function', 'template'
    (a function template or an explicit specialization) or 'other'."""
    pos = [t.pos for t in toks]
    at = {p: j for j, p in enumerate(pos)}
    out = []
    for f in functions:
        brace, close = at.get(f.body[0]), at.get(f.body[1])
        if brace is None or close is None or toks[brace].text != "{" or toks[close].text != "}":
            raise ValueError(f"the body of {f.qualified or f.kind} is not where the front "
                             "end put it")
        nss = []
        for a, b in f.namespaces:
            if toks[at[b]].text != "{":
                raise ValueError(f"a namespace of {f.qualified} is not where the front end put it")
            nss.append((bisect.bisect_left(pos, a), at[b]))
        kind = "template" if f.kind == "function" and f.template else f.kind
        out.append(S.Group(kind, (bisect.bisect_left(pos, f.head[0]), brace), (brace + 1, close),
                           f.name, tuple(nss), f.qualified if f.kind == "kernel" else "",
                           stmts=f.stmts, unread=f.unread, params=f.params, parens=f.parens,
                           template_head=f.template_head, scope=f.scope, space=f.space,
                           key=f.key, later=f.later, outer=f.outer, origin=toks, pos=pos))
    return out


def _barrier_holders(functions: list, warp: bool = False) -> tuple:
    """(names of functions that reach a barrier or recurse, reason to skip
    everything or ''), from the front end's call graph of the user's
    functions (Function.calls: clang's resolution of each call).

    A kernel that calls them keeps the fiber path: a barrier in a function
    needs it, and so does recursion, whose depth the fiber stacks bound
    (PYEMU_STACK_SIZE) where a block function runs every thread on the
    worker's own stack.  With `warp`, a user function that calls a warp
    collective (warpcut.py) is one too: it is inlined, so its collectives
    cut.  A method or lambda that reaches a barrier keeps every kernel of
    the unit on fibers (its calls are not seen by name)."""
    from .warpcut import is_collective
    funcs = [f for f in functions if f.kind != "kernel"]
    by_key, by_name = {}, {}
    for f in funcs:
        if f.key:
            by_key.setdefault(f.key, []).append(f)
        by_name.setdefault(f.name, []).append(f)

    def callees(f) -> list:
        out = []
        for key in f.calls:
            out += by_name.get(key[5:], []) if key.startswith("name:") else by_key.get(key, [])
        return out

    edges = {id(f): callees(f) for f in funcs}
    barrier = {id(f) for f in funcs if f.callees & {BARRIER, "pyemu_barrier_reduce"}}
    direct = set(barrier)
    if warp:
        direct |= {id(f) for f in funcs if f.kind == "function" and not f.template
                   and any(is_collective(n) for n in f.callees)}

    def reach(f) -> set:
        seen, todo = set(), [f]
        while todo:
            for g in edges[id(todo.pop())]:
                if id(g) not in seen:
                    seen.add(id(g))
                    todo.append(g)
        return seen

    holders = set()
    for f in funcs:
        r = reach(f)
        if f.kind == "other":
            if (r | {id(f)}) & barrier:
                return set(), "a class or a lambda outside the kernels reaches __syncthreads()"
        elif id(f) in direct or id(f) in r or r & direct:
            holders.add(f.name)
    return holders, ""


def _in_namespaces(toks: list, g: S.Group, text: str) -> str:
    """`text` (code about kernel g) in g's namespaces: the heads of those it
    is defined in, or, for a definition outside them (`void ns::k()
    {...}`), those it belongs to, reopened by name."""
    if g.scope is not None:
        heads = [f"namespace {n}" if n else "namespace" for n in g.scope]
    else:
        heads = [" ".join(t.text for t in toks[a:b]) for a, b in g.namespaces]
    return "".join(h + " { " for h in heads) + text + " }" * len(heads) + "\n"


def _protect(text: str) -> str:
    """`text` between push/undef and pop of every identifier in it, so that
    no macro of the user's source (or pyemu's headers) expands it again."""
    names = sorted(n for n in S.identifiers(text)
                   # pyemu's own: macros or not, as abi.h says; the scan's
                   # markers (__pyemu_as_global__, ...) must expand to nothing
                   if not n.startswith(("pyemu_", "__pyemu_")))
    push = "".join(f'#pragma push_macro("{n}")\n#undef {n}\n' for n in names)
    pop = "".join(f'#pragma pop_macro("{n}")\n' for n in names)
    return "\n" + push + _quiet(text) + pop


def _quiet(text: str) -> str:
    """`text` with the warnings of _QUIET off (the generated code's unused names)."""
    diag = "".join(f'#pragma GCC diagnostic ignored "-W{w}"\n' for w in _QUIET)
    return "#pragma GCC diagnostic push\n" + diag + text + "\n#pragma GCC diagnostic pop\n"


_QUIET = ("unused-variable", "unused-but-set-variable", "unused-parameter", "unused-function",
          "unused-label", "unused-value", "shadow", "pragmas", "unknown-pragmas")


# pyemu_rg_num(x, 0): x as a double for the range checks (ranges.py); its
# second overload takes a class, whose range is never used.
_PRELUDE = """#line 1 "<pyemu-regions>"
template <class pyemu_rg_T> static inline auto __attribute__((__unused__))
pyemu_rg_num(const pyemu_rg_T &pyemu_rg_v, int) -> decltype((double)pyemu_rg_v) { return (double)pyemu_rg_v; }
template <class pyemu_rg_T> static inline double __attribute__((__unused__))
pyemu_rg_num(const pyemu_rg_T &, long) { return 0.0; }
static void __attribute__((__noinline__, __cold__, __noreturn__, __unused__))
pyemu_rg_exited(const char *pyemu_rg_site, const unsigned char *pyemu_rg_ex, unsigned pyemu_rg_n,
                unsigned pyemu_rg_nexit) {
    unsigned pyemu_rg_first = 0, pyemu_rg_live = 0;
    while (pyemu_rg_first < pyemu_rg_n && !pyemu_rg_ex[pyemu_rg_first]) ++pyemu_rg_first;
    while (pyemu_rg_live < pyemu_rg_n && pyemu_rg_ex[pyemu_rg_live]) ++pyemu_rg_live;
    const pyemu_uint3 pyemu_rg_d = pyemu_tctx.blockDim;
    pyemu_tctx.threadIdx.x = pyemu_rg_live % pyemu_rg_d.x;
    pyemu_tctx.threadIdx.y = pyemu_rg_live / pyemu_rg_d.x % pyemu_rg_d.y;
    pyemu_tctx.threadIdx.z = pyemu_rg_live / (pyemu_rg_d.x * pyemu_rg_d.y);
    pyemu_barrier_diverged(pyemu_rg_site, pyemu_rg_first, pyemu_rg_nexit);
}
"""

# -------------------------------------------------------------- variables


@dataclass
class _Var:
    """A variable declared outside regions (a parameter, a declaration between
    barriers or in the init of a loop that holds one)."""
    name: str
    order: int                 # token index of its name (params: negative)
    decl: Optional[S.Decl]
    d: Optional[S.Declarator]
    where: str                 # 'param', 'chunk', 'forinit'
    crossing: bool = True
    kind: str = "private"      # uniform, remat, private, static, local
    mods: int = 0              # modifications outside uniform updates
    updates: list = field(default_factory=list)   # (lo, hi) right-hand sides of uniform updates
    hoistable: bool = True
    idx: int = 0               # number of its storage / typedef
    const: bool = False        # its storage type lost a top-level const
    subst: dict = field(default_factory=dict)   # recomputed: name -> (lo, hi) of its value


class _Kernel:
    """One kernel: its analysis (variables, uniformity) and its block function."""

    def __init__(self, toks: list, files: list, g: S.Group, user_funcs: set):
        self.toks, self.files, self.g = toks, files, g
        self.user_funcs = user_funcs
        lo, hi = g.body
        self.lo, self.hi = lo, hi
        self.tmpl, self.params, self.param_decls = _tree.head(g)
        self.param_spans = _tree.without_defaults(self.params, self.param_decls)
        self.template = self.tmpl is not None
        self.implicit = False     # its barriers are implicit ones (see _implicit)
        self.single = False       # no barrier: one region (see _single)
        self.uni = None           # uniform.Uniformity of a kernel with barriers
        self.math = False         # _pure takes _MATH's functions as pure (uniform.py's)

    # ---------------------------------------------------------- analysis

    def generate(self) -> Optional[str]:
        toks, lo, hi = self.toks, self.lo, self.hi
        ids = [t.text for t in toks[lo:hi] if t.kind == "id"]
        if BARRIER not in ids and not self.single:
            return None
        bad = {"pyemu_barrier_reduce": "__syncthreads_count/_and/_or",
               "pyemu_first_thread_done": "pyemu_first_thread_done",
               "__PRETTY_FUNCTION__": "__PRETTY_FUNCTION__"}
        for w, why in bad.items():
            if w in ids:
                raise Unsupported(f"it uses {why}")
        if any(w.startswith(PREFIX) for w in ids):
            raise Unsupported(f"it uses names that start with {PREFIX}")
        if not self.implicit and not self.single:
            # PoCL's implicit loop barriers, as the fiber variant places them
            from .uniform import Uniformity, with_loop_barriers
            self.toks, self.g = with_loop_barriers(self.toks, self.files, self.g, BARRIER,
                                                   user_funcs=self.user_funcs)
            toks, (lo, hi) = self.toks, self.g.body
            self.lo, self.hi = lo, hi
            self.uni = Uniformity(self.toks, self.files, self.g, user_funcs=self.user_funcs)
        self._check_brackets()
        self.param_vars = self._parse_params()
        self.body, self.decls = _tree.body(toks, self.g)
        if self.uni is not None:
            _tree.mark(self.body, self.uni.exits())     # uniform breaks: skeleton
        self._check_statements()
        declared = Counter(dd.name for d in self.decls for dd in d.decls)
        self.arrays = {dd.name for d in self.decls for dd in d.decls if dd.suffix[0] < dd.suffix[1]
                       and "*" not in dd.ptr_texts and declared[dd.name] == 1
                       and dd.name not in {v.name for v in self.param_vars}}
        self._collect_vars()
        self._occurrences()
        self._classify()
        from .gen import _Gen   # it builds on this module
        return _Gen(self).run()

    def _check_brackets(self):
        """Refuses lambdas, attributes and pragmas other than loop ones (the
        pass does not rewrite their bodies or follow their meaning).  A
        token check, and exact in the direction that matters: C++ reads a
        `[` after `)`, `]`, a literal or a name (not a keyword) as a
        subscript or an array declarator, never as a lambda's introducer or
        an attribute's `[[`; every other `[` is refused, so no lambda or
        attribute gets through, and what is refused besides (`T{}[i]`,
        `new int[n]`, a structured binding) takes the fiber path with the
        reason.  Pragmas are tokens of their own (clang's tree has none)."""
        toks = self.toks
        for j in range(self.lo, self.hi):
            t = toks[j]
            if t.text == "[":
                prev = toks[j - 1]
                if not (prev.text in (")", "]") or prev.kind in ("num", "str", "chr", "raw")
                        or (prev.kind == "id" and prev.text not in _KEYWORDS)):
                    raise Unsupported(f"a lambda or attribute at line {t.line}")
            elif t.kind == "pragma" and not _loop_pragma(S.pragma_words(t)):
                raise Unsupported(f"'{t.text}' in the kernel")

    def _parse_params(self) -> list:
        """The kernel's named parameters, as the front end read them."""
        return [_Var(d.decls[0].name, -1000 + n, d, d.decls[0], "param")
                for n, d in enumerate(self.param_decls)]

    def _check_statements(self):
        barrier_at = set()
        for st in S.walk(self.body):
            if st.kind == "barrier":
                barrier_at.add(st.lo)
            if st.kind in ("goto", "label") and "case" not in st.flags:
                raise Unsupported(f"goto or a label at line {self.toks[st.lo].line}")
            if st.kind == "return" and st.hi - st.lo != 2:
                raise Unsupported(f"return with a value at line {self.toks[st.lo].line}")
            if st.kind == "other" and st.barrier:
                raise Unsupported("a barrier in a statement pyemu cannot read")
        for d in self.decls:
            if "static" in d.words and not d.words & {"__thread", "const", "constexpr"}:
                raise Unsupported("a static local variable (the block function would have its own)")
        for j in range(self.lo, self.hi):
            if self.toks[j].text == BARRIER and j not in barrier_at:
                raise Unsupported(f"a barrier inside an expression at line {self.toks[j].line}")
        self._check_skeleton(self.body)

    def _check_skeleton(self, stmts: list):
        for st in stmts:
            if not st.barrier:
                continue
            line = self.toks[st.lo].line
            if st.kind in ("switch", "other", "label"):
                raise Unsupported(f"a barrier inside a {st.kind} statement at line {line}")
            if st.flags & {"constexpr", "condinit", "condecl", "rangefor"}:
                raise Unsupported(f"a barrier inside an unusual {st.kind} at line {line}")
            if st.kind in ("for", "while", "do") and _escapes(st.kids[0], plain=True):
                raise Unsupported(f"break or continue in a loop that holds a barrier (line {line})")
            for kid in st.kids:
                self._check_skeleton(kid.kids if kid.kind == "compound" else [kid])

    def _collect_vars(self):
        """The variables declared outside regions, and which of them cross a barrier."""
        self.vars = {}          # name_at -> _Var
        for v in self.param_vars:
            self.vars[v.order] = v

        def block(stmts):
            for i, st in enumerate(stmts):
                if st.kind == "other":
                    raise Unsupported(f"a local type, alias or assertion between barriers "
                                      f"(line {self.toks[st.lo].line})")
                if st.kind == "decl":
                    nxt = next((k for k in range(i + 1, len(stmts)) if stmts[k].barrier), None)
                    later = set()
                    if nxt is not None:
                        for k in stmts[nxt:]:
                            later |= self._names(k.lo, k.hi)
                    for dd in st.decl.decls:
                        self.vars[dd.name_at] = _Var(dd.name, dd.name_at, st.decl, dd, "chunk",
                                                     crossing=dd.name in later)
                elif st.barrier:
                    skeleton(st)

        def skeleton(st):
            if st.kind == "compound":
                block(st.kids)
                return
            if st.kind == "for" and st.init is not None and st.init.kind == "decl":
                for dd in st.init.decl.decls:
                    self.vars[dd.name_at] = _Var(dd.name, dd.name_at, st.init.decl, dd, "forinit")
                    self.scope_end[dd.name_at] = st.hi
            for kid in st.kids:
                block(kid.kids) if kid.kind == "compound" else block([kid])

        self.scope_end = {}     # a for-init variable's name_at -> the end of its loop
        block(self.body)
        counts = Counter(v.name for v in self.param_vars)
        for d in self.decls:
            counts.update(dd.name for dd in d.decls)
        if self.tmpl:
            counts.update(self._template_names())
        self.declared = counts
        # names declared only in for loops' inits (`for (int i = ...` in two
        # loops): each occurrence names the loop around it (_occurrences)
        inits = {id(st.init.decl) for st in S.walk(self.body)
                 if st.kind == "for" and st.init is not None and st.init.kind == "decl"}
        other = {dd.name for d in self.decls if id(d) not in inits for dd in d.decls}
        other |= {v.name for v in self.param_vars}
        if self.tmpl:
            other |= set(self._template_names())
        self.loop_names = {dd.name for d in self.decls if id(d) in inits
                           for dd in d.decls} - other

    def _template_names(self) -> list:
        a, b = self.tmpl
        toks, out = self.toks, []
        for x, y in S.split_top(toks, a + 2, b - 1, ","):
            names = [toks[j].text for j in range(x, y) if toks[j].kind == "id"
                     and toks[j].text not in _KEYWORDS | {"typename", "class", "template"}
                     and (j + 1 >= y or toks[j + 1].text not in ("::", "<"))]
            stop = next((j for j in range(x, y) if toks[j].text == "="), y)
            names = [toks[j].text for j in range(x, stop) if toks[j].text in names]
            if names:
                out.append(names[-1])
        return out

    def _names(self, lo: int, hi: int) -> set:
        """Identifiers in toks[lo:hi] that name variables (not members)."""
        toks, out = self.toks, set()
        for j in range(lo, hi):
            t = toks[j]
            if t.kind == "id" and toks[j - 1].text not in (".", "->", "::") and (
                    j + 1 >= len(toks) or toks[j + 1].text != "::"):
                out.add(t.text)
        return out

    def _occurrences(self):
        """Counts the modifications of each candidate variable; records the
        uniform updates (`v = e`, `v += e`, `++v`, ... in the init or increment
        of a loop that holds a barrier)."""
        toks = self.toks
        cands = {}
        for v in self.vars.values():
            cands.setdefault(v.name, []).append(v)
        update_at = {}          # token index of the name -> rhs (lo, hi) or None
        for st in S.walk(self.body):
            if st.kind == "for" and st.barrier and "rangefor" not in st.flags:
                ranges = [st.inc]
                if st.init is not None and st.init.kind == "expr":
                    ranges.append((st.init.lo, st.init.hi - 1))
                for a, b in ranges:
                    for x, y in S.split_top(toks, a, b, ","):
                        u = _update(toks, x, y)
                        if u is not None:
                            update_at[u[0]] = u[1]
        refs = set()
        for d in self.decls:
            for dd in d.decls:
                if dd.is_ref or (d.words & {"auto"} and dd.ptr_texts & {"&", "&&"}):
                    refs |= self._names(*dd.init) if dd.init_kind else set()
        for st in S.walk(self.body):
            if "rangefor" in st.flags:
                refs |= self._names(st.lo, st.kids[0].lo)
        parent = _paren_parents(toks, self.lo, self.hi)
        decl_at = {v.order for v in self.vars.values()} | {
            dd.name_at for d in self.decls for dd in d.decls}
        for j in range(self.lo, self.hi):
            t = toks[j]
            if t.kind != "id" or t.text not in cands or j in decl_at:
                continue
            if toks[j - 1].text in (".", "->", "::") or toks[j + 1].text == "::":
                continue
            vs = cands[t.text]
            if t.text in self.loop_names:    # the loop whose init declares it, if any
                vs = [v for v in vs if v.order <= j < self.scope_end.get(v.order, -1)][-1:]
            if j in update_at:
                for v in vs:
                    v.updates.append(update_at[j])
                continue
            mod = "self" if t.text in refs else self._modifies(j, parent)
            for v in vs:
                pointer = "*" in v.d.ptr_texts and v.d.suffix[0] == v.d.suffix[1]
                if mod == "self" or (mod == "index" and not pointer):
                    v.mods += 1

    def _modifies(self, j: int, parent: dict) -> Optional[str]:
        """How the occurrence of a variable at toks[j] may change it: None,
        'self' or 'index' (through v[i]..., which for a pointer changes only
        what it points to).  Clang's tree says for the names it could follow
        (Function.changed / unchanged, frontend/lvalues.py); the tokens
        around the name decide for the rest (a template's dependent call, a
        __shared__ variable, a token the pass made)."""
        toks = self.toks
        if toks[j].pos >= 0:
            _, _, changed, unchanged = _CALL_ARGS.get()
            if toks[j].pos in changed:      # clang's tree (Function.changed, unchanged)
                return "self"
            if toks[j].pos in unchanged:
                return None
        prev, prev2 = toks[j - 1], toks[j - 2]
        kind = "index" if toks[j + 1].text == "[" else "self"
        if prev.text in ("++", "--"):
            return kind
        if prev.text == "&" and not _value_end(prev2):
            return kind
        k = j + 1                      # skip .member and [index] chains
        while toks[k].text in (".", "["):
            k = S.match(toks, k) + 1 if toks[k].text == "[" else k + 2
        nxt = toks[k].text
        if nxt in _ASSIGN or nxt in ("++", "--"):
            return kind
        if k > j + 1 and nxt == "(":
            return kind                # a method call
        if prev.text in ("(", ",") and nxt in (")", ","):
            open_at = parent.get(j)
            if open_at is not None and not self._safe_call(open_at, j):
                return kind
        return None

    def _safe_call(self, open_at: int, j: int = -1) -> bool:
        """True when the '(' at open_at is not a call, or a call that cannot
        change the variable toks[j], a whole argument of it.  Where clang
        resolved the call (or knows its candidates), its tree says
        (Function.by_value / by_ref: the parameter's type, the argument's);
        else (a template's dependent call, a token the pass made) the names
        of _BY_VALUE, functions of pyemu's headers that take their arguments
        by value."""
        toks = self.toks
        if j >= 0 and toks[j].pos >= 0:
            by_value, by_ref = _CALL_ARGS.get()[:2]
            if toks[j].pos in by_value:
                return True
            if toks[j].pos in by_ref:
                return False
        before = toks[open_at - 1]
        if before.text == ">":
            depth, k = 0, open_at - 1
            while k > self.lo:
                depth += {">": 1, ">>": 2, "<": -1}.get(toks[k].text, 0)
                if depth <= 0:
                    break
                k -= 1
            name = toks[k - 1].text
            return name in _CASTS
        if before.text == ")" and open_at - 5 >= self.lo and [
                t.text for t in toks[open_at - 5:open_at]] == ["(", "pyemu_api", "->", "printf", ")"]:
            return True                # printf in a module: (pyemu_api->printf)(...)
        if before.kind != "id":
            return before.text not in (")", "]")
        w = before.text
        if w in ("if", "while", "for", "switch", "return", "sizeof", "alignof", "decltype") \
                or w in S.TYPE_WORDS:
            return True
        if toks[open_at - 2].text in (".", "->"):
            return False
        return w in _BY_VALUE and w not in self.user_funcs

    def _classify(self):
        """uniform / remat / private / static / local for every variable."""
        vs = sorted(self.vars.values(), key=lambda v: v.order)
        for v in vs:
            if v.decl is not None and v.decl.is_static and v.where != "param":
                v.kind = "static" if v.crossing else "local"
                continue
            if v.where == "chunk":
                v.hoistable = self._hoistable(v)
        simple = lambda v: (v.kind != "static" and (self.declared[v.name] == 1 or (
            v.where == "forinit" and v.name in self.loop_names))
                            and not v.d.is_ref and v.d.suffix[0] == v.d.suffix[1])
        # by declaration: several loops may declare one name (loop_names)
        uni = {v.order: v for v in vs if simple(v) and v.crossing and v.mods == 0 and (
            v.where == "param" or (v.hoistable and (v.d.init_kind == "" or (
                v.d.init_kind == "=" and self.toks[v.d.init[0]].text != "{"))))}
        tnames = set(self._template_names()) if self.tmpl else set()
        changed = True
        while changed:
            changed = False
            for at, v in list(uni.items()):
                ok = {u.name for u in uni.values()} | tnames
                if v.where != "param" and v.d.init_kind and not self._pure(*v.d.init, ok, False):
                    del uni[at]
                    changed = True
                elif any(r is not None and not self._pure(*r, ok, False) for r in v.updates):
                    del uni[at]
                    changed = True
                elif v.name in self.loop_names and any(
                        u.name == v.name and u.order not in uni for u in vs):
                    del uni[at]          # `ok` is by name: all of that name or none
                    changed = True
        for v in uni.values():
            v.kind = "uniform"
        consts = {v.name for v in uni.values() if not v.updates} | tnames
        # recomputed: crossing variables and the local ones they are computed from
        rem = {v.order: v for v in vs if v.kind == "private" and simple(v) and v.where != "param"
               and self.declared[v.name] == 1
               and v.mods == 0 and not v.updates and v.d.init_kind == "="
               and self.toks[v.d.init[0]].text != "{"}
        changed = True
        while changed:
            changed = False
            for at, v in list(rem.items()):
                if not self._pure(*v.d.init, consts | {u.name for u in rem.values()}, True):
                    del rem[at]
                    changed = True
        for v in rem.values():
            v.kind = "remat"
        self._remat_reassigned(vs, consts, simple)
        for v in vs:
            if v.kind == "private" and not v.crossing:
                v.kind = "local"
        n = 0
        for v in vs:
            if v.kind in ("private", "remat"):
                auto = "auto" in v.decl.words
                if v.kind == "private":
                    if auto:
                        raise Unsupported(f"'auto' variable '{v.name}' crosses a barrier")
                    if v.d.is_ref:
                        raise Unsupported(f"reference '{v.name}' crosses a barrier")
                    if v.d.init_kind == "(" and v.d.suffix[0] != v.d.suffix[1]:
                        raise Unsupported(f"initialized array '{v.name}' crosses a barrier")
                    if v.where == "param" and v.d.suffix[0] != v.d.suffix[1]:
                        raise Unsupported(f"array parameter '{v.name}' is modified")
                v.idx = n
                n += 1

    def _remat_reassigned(self, vs: list, consts: set, simple) -> None:
        """Recomputes crossing variables whose initializer reads local variables
        that were reassigned (`x = blockIdx.y * 32 + threadIdx.x; ... int out =
        x + y * h;`): when each such name's last assignment before the
        declaration, in the same statement list, is `name = e;` (or its own
        declaration) with `e` pure over the block's indices and uniform
        constants, and nothing in between names it, the variable is
        recomputed from its initializer with those names replaced by `(e)`
        (_Var.subst) instead of being stored per thread."""
        toks = self.toks
        addressed = {toks[j].text for j in range(self.lo, self.hi)
                     if toks[j].kind == "id" and toks[j - 1].text == "&"
                     and not _value_end(toks[j - 2])}
        for d in self.decls:
            for dd in d.decls:
                if dd.is_ref and dd.init_kind:
                    addressed |= self._names(*dd.init)
        for v in vs:
            if not (v.kind == "private" and v.crossing and simple(v) and v.where == "chunk"
                    and v.mods == 0 and not v.updates and v.d.init_kind == "="
                    and toks[v.d.init[0]].text != "{"):
                continue
            found = self._statement_list(v.order)
            if found is None:
                continue
            stmts, at = found
            subst = {}
            for name in self._names(*v.d.init) - consts:
                if name in addressed:
                    break
                e = self._last_assignment(stmts, at, name)
                spec = self._integer_type(name, v.order)
                if e is None or spec is None or name in self._names(*e) \
                        or not self._pure(*e, consts, True):
                    break
                subst[name] = (e, spec)
            else:
                if subst and self._pure(*v.d.init, consts | set(subst), True):
                    v.kind, v.subst = "remat", subst

    def _integer_type(self, name: str, before: int):
        """The type words (texts) of `name`'s declaration before token `before`
        when it is a plain integer type, else None."""
        best = None
        for d in [v.decl for v in self.param_vars] + self.decls:
            for dd in d.decls:
                if dd.name == name and dd.name_at < before and (best is None or dd.name_at > best[0]):
                    best = (dd.name_at, d, dd)
        if best is None:
            return None
        _, d, dd = best
        words = [self.toks[j].text for j in range(*d.spec) if self.toks[j].text != "const"]
        ok = {"int", "unsigned", "signed", "long", "short", "char"} | _TYPEDEFS
        if dd.ptr_texts or dd.suffix[0] != dd.suffix[1] or not words or not set(words) <= ok:
            return None
        return " ".join(words)

    def _statement_list(self, at: int):
        """(statement list, index) of the statement that declares token `at`."""
        def visit(stmts):
            for i, st in enumerate(stmts):
                if st.lo <= at < st.hi:
                    if st.kind == "decl":
                        return stmts, i
                    for kid in st.kids:
                        r = visit(kid.kids if kid.kind == "compound" else [kid])
                        if r is not None:
                            return r
                    return None
            return None
        return visit(self.body)

    def _last_assignment(self, stmts: list, at: int, name: str):
        """(lo, hi) of e when the last statement before stmts[at] that names
        `name` is `name = e;` or the declaration `T name = e;`, else None."""
        toks = self.toks
        for st in reversed(stmts[:at]):
            if name not in self._names(st.lo, st.hi):
                continue
            if st.kind == "expr" and st.hi - st.lo >= 4 and toks[st.lo].text == name \
                    and toks[st.lo + 1].text == "=" and toks[st.hi - 1].text == ";":
                return st.lo + 2, st.hi - 1
            if st.kind == "decl" and len(st.decl.decls) == 1:
                dd = st.decl.decls[0]
                if dd.name == name and dd.init_kind == "=" and toks[dd.init[0]].text != "{" \
                        and not dd.ptr_texts and dd.suffix[0] == dd.suffix[1]:
                    return dd.init
            return None
        return None

    def _hoistable(self, v: _Var, returns_matter: bool = True) -> bool:
        """A declaration between barriers can move before its region's thread
        loop when nothing earlier in the region names it (or returns, which
        matters for an initializer that could trap, as n / d)."""
        toks = self.toks
        start = self._chunk_start(v.order)
        for j in range(start, v.order):
            if (toks[j].text == "return" and returns_matter) or (
                    toks[j].text == v.name and toks[j - 1].text not in (".", "->", "::")):
                return False
        return True

    def _chunk_start(self, at: int) -> int:
        """Index of the first token of the region statement list that holds token `at`."""
        best = self.lo

        def visit(stmts):
            nonlocal best
            for i, st in enumerate(stmts):
                if st.lo <= at < st.hi:
                    if st.barrier:
                        for kid in st.kids:
                            visit(kid.kids if kid.kind == "compound" else [kid])
                        return
                    k = i
                    while k > 0 and not stmts[k - 1].barrier:
                        k -= 1
                    best = stmts[k].lo
                    return

        visit(self.body)
        return best

    def _pure(self, lo: int, hi: int, names: set, allow_tid: bool) -> bool:
        """True when toks[lo:hi] is an expression without effects or memory
        reads, over `names`, literals and the block's indices (threadIdx only
        when allow_tid)."""
        toks = self.toks
        j = lo
        while j < hi:
            t, w = toks[j], toks[j].text
            dim = _dim_at(toks, j, hi)
            if dim is not None:
                if dim[0] == "threadIdx" and not allow_tid:
                    return False
                j = dim[2]
                continue
            ctx = _tctx_at(toks, j, hi)
            if ctx is not None:       # the launch's dynamic shared memory
                if [x.text for x in toks[ctx:ctx + 2]] not in ([".", "dyn_smem_base"],
                                                               [".", "dyn_smem"]):
                    return False
                j = ctx + 2
                continue
            if t.kind in ("num", "chr"):
                pass
            elif t.kind == "id":
                nxt = toks[j + 1].text if j + 1 < hi else ""
                if w in names and nxt != "(":
                    pass
                elif w in S.TYPE_WORDS | S.CV_WORDS | _CASTS | _TYPEDEFS | {"sizeof", "true", "false",
                                                                        "nullptr"}:
                    pass
                elif (w in _PURE or (self.math and w in _MATH)) and nxt == "(" \
                        and w not in self.user_funcs and toks[j - 1].text not in (".", "->"):
                    pass
                else:
                    return False
            elif t.kind == "op":
                if w in _ASSIGN or w in ("++", "--", "[", "->", "{", "}", ";", ".*", "->*"):
                    return False
                if w in ("*", "&") and not _value_end(toks[j - 1]):
                    if j == lo or toks[j - 1].text not in S.TYPE_WORDS | S.CV_WORDS | {"*"}:
                        return False
                if w == ".":
                    prev = toks[j - 1]
                    if not (prev.text == ")" or (prev.kind == "id" and prev.text in names)):
                        return False
                    j += 2
                    continue
            else:
                return False
            j += 1
        return True


# the pragmas a kernel's body may hold (the loop hints, which the block
# function keeps on its loops); another sends the kernel to fibers
_LOOP_PRAGMAS = (("unroll",), ("nounroll",), ("GCC", "unroll"), ("GCC", "ivdep"), ("omp", "simd"))


def _loop_pragma(words: list) -> bool:
    """`#pragma unroll`, `#pragma GCC ivdep`, ...: words (pragma_words) of a loop hint."""
    return any(tuple(words[:len(p)]) == p for p in _LOOP_PRAGMAS)


def _update(toks: list, x: int, y: int):
    """(index of v, rhs (lo, hi) or None) when toks[x:y] is `v op= e`, `++v`, ..."""
    if y - x == 2:
        a, b = toks[x], toks[x + 1]
        if a.kind == "id" and b.text in ("++", "--"):
            return x, None
        if b.kind == "id" and a.text in ("++", "--"):
            return x + 1, None
    if y - x >= 3 and toks[x].kind == "id" and toks[x + 1].text in _ASSIGN:
        return x, (x + 2, y)
    return None


def _value_end(t) -> bool:
    """True when an expression can end with token t (so a following * or & is binary)."""
    return t.kind in ("num", "str", "chr", "raw") or t.text in (")", "]") or (
        t.kind == "id" and t.text not in _KEYWORDS)


def _paren_parents(toks: list, lo: int, hi: int) -> dict:
    """{token index: index of the '(' it lies directly in}."""
    out, stack = {}, []
    for j in range(lo, hi):
        t = toks[j].text
        if stack and stack[-1] is not None:
            out[j] = stack[-1]
        if t in ("(", "[", "{"):
            stack.append(j if t == "(" else None)
        elif t in (")", "]", "}") and stack:
            stack.pop()
    return out


def _tctx_at(toks: list, j: int, hi: int) -> Optional[int]:
    """Index after the thread context at toks[j]: `pyemu_tctx`, or what abi.h
    makes of it in a module (a parenthesized expression over pyemu_tctx_...)."""
    t = toks[j]
    if t.text == "pyemu_tctx":
        return j + 1
    if t.text != "(" or j + 2 >= hi or toks[j + 1].text != "*":   # `(*(pyemu_thread_ctx *)...)`
        return None
    try:
        end = S.match(toks, j, hi)
    except Unsupported:
        return None
    if any(x.kind == "id" and x.text.startswith("pyemu_tctx") for x in toks[j + 1:end]):
        return end + 1
    return None


def _dim_at(toks: list, j: int, hi: int):
    """(builtin, component, index after) when toks[j:] is `( <ctx> . threadIdx ) . x`
    (what threadIdx.x and the like become; see _tctx_at)."""
    if toks[j].text != "(" or j + 2 >= hi:
        return None
    k = _tctx_at(toks, j + 1, hi)
    if k is None or k + 5 > hi:
        return None
    w = [t.text for t in toks[k:k + 5]]
    if w[0] == "." and w[1] in _DIMS and w[2] == ")" and w[3] == "." and w[4] in ("x", "y", "z"):
        return w[1], w[4], k + 5
    return None


def _escapes(st: S.Stmt, plain: bool = False) -> bool:
    """True when a break or continue inside st leaves it (targets an outer
    loop); with plain, one that is not a uniform loop exit (marked barrier,
    uniform.Uniformity.exits)."""
    if st.kind in ("break", "continue"):
        return not (plain and st.barrier)
    if st.kind in ("for", "while", "do", "switch"):
        return st.kind == "switch" and any(_escapes_continue(k) for k in st.kids)
    return any(_escapes(k, plain) for k in st.kids)


def _escapes_continue(st: S.Stmt) -> bool:
    if st.kind == "continue":
        return True
    if st.kind in ("for", "while", "do"):
        return False
    return any(_escapes_continue(k) for k in st.kids)

