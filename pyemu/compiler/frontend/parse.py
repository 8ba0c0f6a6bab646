"""One parse of a preprocessed translation unit, and the Model read from it.

The walk visits only declarations from the user's files (by the line
markers: not a system header, not pyemu's own headers under the include
root), in order of the text, and records:

* kernels (declarations carrying the pyemu.kernel annotation), their
  parameters and attributes;
* file-scope variables (__constant__, __device__, texture references);
* the edits that make the unit valid C++ with OpenCL C's or CUDA's meaning:
  vector literals `(T)(a, b)` whose T is a vector type, whatever its
  spelling (typedefs included); `?:` whose condition is a vector (a
  component-wise select); kernel-scope __local / __constant and CUDA
  __shared__ declarations (pyemu.compiler.smem writes their replacement);
* an implicit pyemu_warp_step() after each statement that stores through a
  volatile-qualified lvalue (warp-synchronous code such as the unrolled
  last-warp reduction: csrc/block.c runs each such statement by all lanes of
  a warp before any runs the next); the statement `E;` becomes
  `{E; pyemu_warp_step(); }`, so that it stays one statement under an if;
  none in a unit that takes locks with atomics (volatile_steps says why);
* for the regions pass, every function definition (Function): kernels,
  functions and function templates at namespace scope, and as 'other' the
  methods, lambdas and out-of-line member definitions outside functions;
  where each is and which functions it calls or names (by clang's
  resolution: overloads, template specializations, every candidate of a
  call a template leaves unresolved); for kernels and functions at
  namespace scope also their statements and parameters (stmts.py);
* whether user code uses warp collectives or takes locks with atomics
  (pyemu.compiler.warps says which names count), and for each kernel why
  its cooperative groups run on fibers (cg_reasons);
* for the regions pass, which names of variables may change them
  (lvalues.py) and which whole call arguments are passed by value
  (call_args).
"""
from __future__ import annotations

from .. import warps as _warps

import bisect
import hashlib
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Optional

from .. import smem as _smem
from . import args as _args
from .cg import CgWalk
from . import lex as _lex
from .clangargs import clang_args
from .edits import c_string
from .libclang import cindex, index, presumed
from . import lvalues as _lvalues
from . import stmts as _stmts
from .model import Edit, Function, Kernel, Model, Symbol

UNIT_NAME = "pyemu_tu.cpp"
SHARED_MARK = "__pyemu_shared__"     # CUDA's __shared__ in the user's part (driver.py)
_VECTOR_PREFIXES = ("pyemu_vec<", "pyemu_mask", "pyemu_swz")
_RECORD = 105      # CXType_Record
_NOT_BEFORE_LITERAL = {"sizeof", "alignof", "__alignof__", "_Alignof", "vec_step"}
_ATTRS = ("__launch_bounds__", "reqd_work_group_size", "work_group_size_hint", "vec_type_hint")


def parse(text: str, dialect: str, internal_root: str, std: str = "c++17",
          split_at: int = 0, pch_dir: Optional[Path] = None,
          dyn_base: str = "pyemu_tctx.dyn_smem_base") -> Model:
    """The Model of `text` (wire text: g++ -E output of the scan, see
    clangargs).  `internal_root`: pyemu's include directory, whose files are
    not the user's.

    text[:split_at] is pyemu's headers alone (what comes before the user's
    source): with `pch_dir`, clang reads it from a precompiled header kept
    there (built once, without function bodies, keyed by its text and the
    arguments), so that a unit costs only the parse of the user's part.
    `dyn_base`: the expression `extern __shared__` arrays point to."""
    ci = cindex()
    t0 = time.perf_counter()
    args = clang_args(dialect, std)
    base, tu = 0, None
    if split_at and pch_dir is not None:
        pch = _pch(ci, text[:split_at], args, Path(pch_dir))
        if pch is not None:
            try:
                tu = index().parse(UNIT_NAME, args + ["-include-pch", str(pch)],
                                   unsaved_files=[(UNIT_NAME, text[split_at:].encode("latin-1"))])
            except ci.TranslationUnitLoadError:
                tu = None
            if tu is None or any(d.severity >= ci.Diagnostic.Fatal for d in tu.diagnostics):
                tu = None       # a damaged or foreign precompiled header: without it
                try:
                    pch.unlink()
                except OSError:
                    pass
            else:
                base = split_at
    if tu is None:
        tu = index().parse(UNIT_NAME, args, unsaved_files=[(UNIT_NAME, text.encode("latin-1"))])
    model = Model()
    _Walk(ci, tu, text[base:], dialect, internal_root, model, dyn_base,
          user_from=max(split_at - base, 0)).run()
    if base:
        model.edits = [Edit(e.start + base, e.end + base, e.text, e.why) for e in model.edits]
        model.functions = [f.moved(lambda p: p + base) for f in model.functions]
    model.parse_seconds = time.perf_counter() - t0
    return model


def _clang_version(ci) -> str:
    try:
        from importlib.metadata import version
        return "libclang " + version("libclang")
    except Exception:
        return ci.__file__


def _pch(ci, header: str, args: list, pch_dir: Path) -> Optional[Path]:
    """The precompiled form of `header` (pyemu's headers, preprocessed) for
    `args`, built now if it is not in `pch_dir` yet; None if it cannot be."""
    version = _clang_version(ci)
    key = hashlib.sha256(repr((version, args)).encode() + b"\0"
                         + header.encode("latin-1")).hexdigest()[:32]
    path = pch_dir / f"{key}.pch"
    try:
        if path.stat().st_size > 0:
            return path
    except OSError:
        pass
    try:
        pch_dir.mkdir(parents=True, exist_ok=True)
        name = "pyemu_headers.hpp"
        hargs = ["c++-header" if a == "c++" else a for a in args]
        opts = (ci.TranslationUnit.PARSE_INCOMPLETE
                | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
        tu = index().parse(name, hargs, unsaved_files=[(name, header.encode("latin-1"))],
                           options=opts)
        tmp = pch_dir / f"{key}.{os.getpid()}.tmp"
        tu.save(str(tmp))
        os.replace(tmp, path)
        return path
    except Exception:           # unwritable directory, a failed save: parse it all
        return None


def _is_vector(t) -> bool:
    """An OpenCL vector (a class of cl_vectors_gen.h), not a pointer to one."""
    c = t.get_canonical()
    if c._kind_id != _RECORD:       # (kind ids this cindex has no name for exist)
        return False
    s = c.spelling
    for q in ("const ", "volatile "):
        s = s.replace(q, "")
    return s.startswith(_VECTOR_PREFIXES)


class _Walk(CgWalk):
    def __init__(self, ci, tu, text, dialect, internal_root, model, dyn_base, user_from=0):
        self.dyn = dyn_base
        self.user_from = user_from      # where the user's part of `text` starts
        self.ci, self.tu, self.text, self.dialect = ci, tu, text, dialect
        self.root, self.m = str(internal_root), model
        self.K = ci.CursorKind
        self.kernels = {}        # qualified -> Kernel
        self.smem_id = 1
        self.const_starts = set()   # where an OpenCL __constant declaration got its section
        self.const_done = set()     # where one got `const` (constant_const)
        self.assignments = (self.K.BINARY_OPERATOR, self.K.COMPOUND_ASSIGNMENT_OPERATOR,
                            self.K.UNARY_OPERATOR)
        self.vector_names = set()   # typedefs of vector types in function bodies
        self.functions = []         # [Function fields, calls, callees] (see record)
        # cooperative groups (see cg_reference): named at all; and for each
        # function record (id, None: code outside functions) what it uses of
        # them (_CgUse); cg_reasons() makes each kernel's reason of them
        self.cg = {"named": False, "rewritten": 0}
        self.cg_uses = {}
        self.cg_kernel = {}         # id(kernel record) -> why its cg run on fibers
        self.call_refs = {}         # id(record) -> (by_value, by_ref) offsets (call_args)
        self.lvalues = {}           # id(record) -> {offset: "mod" / "read"} (lvalues.py)
        self.member_kernels = set()     # USRs of __global__ member functions, refused
        # namespace-scope declarations in the user's files: (offset, name,
        # USR), '*' for a using-directive; those at the top of the headers
        # with offset -1 (see later_names)
        self.declared = []
        # (offset, name) of each name user code takes from namespace scope
        # (or that a template leaves open): see Function.outer
        self.outer_refs = []
        self.cursors = {}           # id(record) -> (function cursor, body cursor)
        self.scopes = {}            # id(record) -> (Function.scope, Function.space)
        _init_holders(self.K)

    # ------------------------------------------------------------ helpers
    def user(self, cursor) -> bool:
        loc = cursor.location
        if loc.file is None or loc.file.name != UNIT_NAME or loc.is_in_system_header:
            return False
        name, _ = presumed(loc)
        return not (name.startswith(self.root) or name.startswith("<"))

    def where(self, cursor) -> str:
        name, line = presumed(cursor.location)
        return f"{name}:{line}"

    def shared_initializer(self, var) -> None:
        """nvcc refuses `__shared__ T x = v;` and `__shared__ T x{v};` (a
        block's shared memory is not initialised); so does pyemu.  Read in
        clang's tokens of the declarator: after its name (where clang puts
        the variable), past array bounds and attributes, an `=` or a `{`."""
        name, (_, end) = var.location.offset, self.span(var)
        toks = self.tokens(name, end)
        if not toks or toks[0][1] != name or toks[0][0] != var.spelling:
            return
        depth = 0
        for tok, _ in toks[1:]:
            if tok in ("(", "["):
                depth += 1
            elif tok in (")", "]"):
                depth -= 1
            elif depth == 0 and tok in ("=", "{"):
                self.m.errors.append((self.where(var), "initializer not allowed for __shared__ "
                                      f"variable '{var.spelling}' (a block's shared memory "
                                      "starts undefined: assign it in the kernel)"))
                return

    def shared_marks(self) -> None:
        """The markers of CUDA's __shared__ (SHARED_MARK: what the unit's
        head makes of __shared__ in the user's part) that no edit replaced
        (a file-scope variable, a declaration pyemu.compiler.smem does not
        rewrite) become `static __thread`, as pyemu's headers define
        __shared__: one copy a worker thread, which runs one block at a time.
        Found in clang's tokens of the user's part."""
        if SHARED_MARK not in self.text[self.user_from:]:
            return
        spans = sorted((e.start, e.end) for e in self.m.edits if e.end > e.start)
        starts = [a for a, _ in spans]
        for kind, a, b in _lex.in_unit(self.tu, self.text, self.user_from, len(self.text)):
            if kind != "id" or self.text[a:b] != SHARED_MARK:
                continue
            i = bisect.bisect_right(starts, a) - 1
            if i < 0 or spans[i][1] <= a:       # not in a replaced range
                self.m.edits.append(Edit(a, b, "static __thread", "shared-static"))

    def notes(self, cursor) -> set:
        return {c.spelling[6:] for c in cursor.get_children()
                if c.kind == self.K.ANNOTATE_ATTR and c.spelling.startswith("pyemu.")}

    def span(self, cursor) -> tuple:
        return cursor.extent.start.offset, cursor.extent.end.offset

    def tokens(self, start: int, end: int) -> list:
        """The raw tokens (spelling, offset) of text[start:end] (clang's
        lexer, lex.py; the spelling is our text: a string literal may not be
        UTF-8)."""
        return [(self.text[a:b], a) for k, a, b in _lex.in_unit(self.tu, self.text, start, end)
                if k != "comment"]

    def decl_tokens(self, start: int, end: int) -> list:
        """The tokens (kind, start, end) of text[start:end], offsets from start."""
        return [(k, a - start, b - start)
                for k, a, b in _lex.in_unit(self.tu, self.text, start, end)]

    # --------------------------------------------------------------- walk
    def run(self) -> None:
        top = list(self.tu.cursor.get_children())
        for c in top:
            if self.user(c):
                self.decl(c, [], ())
            elif c.spelling:        # the headers' declarations (see later_names)
                self.declared.append((-1, c.spelling, c.get_usr()))
        self.m.kernels = list(self.kernels.values())
        self.cg_reasons()
        if self.m.takes_locks:      # no warp steps (volatile_steps says why)
            self.m.edits = [e for e in self.m.edits if e.why != "warp-step"]
        else:
            self.step_calls()
        self.m.functions = [self.function(f) for f in sorted(self.functions, key=lambda f: f[4])]
        self.shared_marks()
        if self.dialect == "opencl":
            self.failed_literals(top)
            self.builtin_names(top)
        self.m.functions = self.with_call_args(self.m.functions)
        # errors where the edits are made: a vector select (C++ has no
        # vector ?:), a vector literal C++ read as a cast of a comma expression
        selects = {e.start for e in self.m.edits if e.text == "pyemu_vternary("}
        selects |= {e.start for e in self.m.edits if e.why == "vector-literal"}
        for d in self.tu.diagnostics:
            loc = d.location
            if (d.severity >= self.ci.Diagnostic.Error and loc.file is not None
                    and loc.file.name == UNIT_NAME and loc.offset not in selects):
                name, line = presumed(loc)
                if not (name.startswith(self.root) or name.startswith("<")
                        or loc.is_in_system_header):
                    self.m.problems.append((f"{name}:{line}", d.spelling))

    def decl(self, c, ns: list, heads: tuple) -> None:
        """A declaration at namespace scope, in namespaces `ns` whose heads
        (offsets (start, brace)) are `heads`."""
        K = self.K
        if c.kind == K.USING_DIRECTIVE:
            self.declared.append((c.extent.start.offset, "*", ""))
        elif c.spelling and c.kind not in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            self.declared.append((c.extent.start.offset, c.spelling, c.get_usr()))
        if c.kind == K.ENUM_DECL:       # its enumerators are names of the scope too
            self.declared.extend((ch.extent.start.offset, ch.spelling, ch.get_usr())
                                 for ch in c.get_children() if ch.kind == K.ENUM_CONSTANT_DECL)
        if c.kind == K.NAMESPACE:
            brace = self.text.find("{", c.location.offset)
            if not heads or heads[-1][1] != brace:      # `namespace a::b {`: one head
                heads = heads + ((c.extent.start.offset, brace),)
            for ch in c.get_children():
                self.decl(ch, ns + [c.spelling] if c.spelling else ns, heads)
        elif c.kind in (K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            for ch in c.get_children():
                self.decl(ch, ns, heads)
        elif c.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
            notes = self.notes(c)
            name = None
            if "kernel" in notes:
                name = self.kernel(c, ns)
            kind = None
            if c.is_definition():
                kind = "kernel" if "kernel" in notes else "function"
            self.body(c, name, kind, ns, heads)
        elif c.kind == K.VAR_DECL:
            self.symbol(c, ns)
            self.body(c, None, None, ns, heads)
        else:
            self.body(c, None, None, ns, heads)

    # ------------------------------------------------- functions, calls
    def record(self, c, children: list, kind: str, ns: list, heads: tuple):
        """The record of function definition `c` (see Function), as a list
        [fields..., calls, callees] whose sets the walk of its body fills;
        None when it has no body that the regions pass could read."""
        K = self.K
        body = next((ch for ch in reversed(children) if ch.kind == K.COMPOUND_STMT), None)
        if body is None:
            return None
        a, b = body.extent.start.offset, body.extent.end.offset - 1
        if self.text[a:a + 1] != "{" or self.text[b:b + 1] != "}":
            return None
        name = c.spelling if c.kind != K.LAMBDA_EXPR else ""
        template = c.kind == K.FUNCTION_TEMPLATE
        scope = None
        if kind in ("kernel", "function"):
            special = c.kind == K.FUNCTION_DECL and c.get_num_template_arguments() >= 0
            if special and kind == "kernel":
                name = ""           # an explicit specialization of a kernel template
            elif c.semantic_parent != c.lexical_parent:   # `void ns::f() {...}`
                if kind == "kernel":
                    # a namespace's kernel defined outside it: its block
                    # function goes in that namespace, reopened by name
                    scope = _scope(K, c)
                    ns = _namespaces(K, c)
                    name = name if scope is not None else ""
                else:
                    kind = "other"
            template = template or special
        key = c.get_usr() if c.kind != K.LAMBDA_EXPR else ""
        rec = [kind, name, "::".join(list(ns) + [name]) if name else "", heads,
               (c.extent.start.offset, a), (a, b), template, key or "", set(), set()]
        self.scopes[id(rec)] = (scope, _scope(K, c))
        self.functions.append(rec)
        self.cursors[id(rec)] = (c, body)
        return rec

    def function(self, f: list) -> Function:
        """The Function of record f, with its statements when the regions
        pass may read them (a kernel or a function at namespace scope)."""
        scope, space = self.scopes.get(id(f), (None, None))
        fn = Function(*f[:-2], calls=frozenset(f[-2]), callees=frozenset(f[-1]),
                      scope=scope, space=space, cg=self.cg_kernel.get(id(f), ""))
        if fn.kind == "kernel":
            lo, hi = fn.head[0], fn.body[1]
            fn = replace(fn, later=self.later_names(hi),
                         outer=frozenset(n for at, n in self.outer_refs if lo <= at <= hi))
        if fn.kind in ("kernel", "function") and id(f) in self.cursors:
            try:
                self.lvalues[id(f)] = _lvalues.uses(self, self.cursors[id(f)][1])
            except RecursionError:      # a body nested too deep: the tokens decide
                pass
            body, unread, params, parens, head = _stmts.read(self, *self.cursors[id(f)])
            fn = replace(fn, stmts=body, unread=unread, params=params, parens=parens,
                         template_head=head)
        return fn

    def outer_ref(self, node, kind) -> None:
        """A name in user code: noted (outer_refs) unless clang resolved it
        to a local variable, a parameter or a member, which no declaration
        at namespace scope can hide."""
        K = self.K
        r = node.referenced if kind != K.OVERLOADED_DECL_REF else None
        if r is not None:
            owner = r.semantic_parent
            if owner is not None and owner.kind not in (K.TRANSLATION_UNIT, K.NAMESPACE,
                                                         K.LINKAGE_SPEC):
                return
            name = r.spelling
        else:
            name = node.spelling
        if name:
            self.outer_refs.append((node.extent.start.offset, name))

    def later_names(self, end: int) -> frozenset:
        """The names that a namespace-scope declaration after offset `end`
        gives a meaning they had not there: a new overload, variable, type,
        using-declaration ('*': a using-directive).  A redeclaration of an
        entity declared before (the definition of a function prototyped
        above) is none.  Code written at the end of the unit from a body
        that ends at `end` (the regions pass's) would see them."""
        before = {usr for off, _, usr in self.declared if off <= end and usr}
        return frozenset(name for off, name, usr in self.declared
                         if off > end and (not usr or usr not in before))
    def with_call_args(self, functions: list) -> list:
        """The records with their by_value / by_ref (call_args), less the
        names inside a range an edit replaces (the text there is another)."""
        spans = sorted((e.start, e.end) for e in self.m.edits if e.end > e.start)
        starts = [a for a, _ in spans]

        def kept(p):
            i = bisect.bisect_right(starts, p) - 1
            return i < 0 or spans[i][1] <= p

        recs = {}
        for f in self.functions:
            if id(f) in self.call_refs or id(f) in self.lvalues:
                recs[(f[4], f[5])] = (self.call_refs.get(id(f), ((), ())),
                                      self.lvalues.get(id(f), {}))
        out = []
        for fn in functions:
            got = recs.get((fn.head, fn.body))
            if got is not None:
                (byval, byref), uses = got
                fn = replace(fn, by_value=frozenset(p for p in byval if kept(p)),
                             by_ref=frozenset(p for p in byref if kept(p)),
                             changed=frozenset(p for p, u in uses.items()
                                               if u == "mod" and kept(p)),
                             unchanged=frozenset(p for p, u in uses.items()
                                                 if u == "read" and kept(p)))
            out.append(fn)
        return out

    def step_calls(self) -> None:
        """The implicit warp steps (volatile_steps) are calls of
        pyemu_warp_step() in the text g++ compiles: the unit uses warps
        (its steps run on fibers, warps.py), and the function that holds
        each step calls it (the regions pass inlines such a function)."""
        steps = [e.start for e in self.m.edits if e.why == "warp-step" and e.text != "{"]
        if not steps:
            return
        self.m.uses_warps = True
        for at in steps:
            inner = [f for f in self.functions if f[5][0] < at <= f[5][1]]
            if inner:
                f = max(inner, key=lambda f: f[5][0])
                f[-2].add("pyemu_warp_step")
                f[-1].add("pyemu_warp_step")

    def reference(self, node, kind, fn) -> None:
        """A call or a name of a function in user code: what uses_warps and
        takes_locks say, and an edge of the call graph of record `fn`."""
        K, lib = self.K, self.ci.conf.lib
        if kind == K.OVERLOADED_DECL_REF:   # a call a template leaves open: every candidate
            targets = [lib.clang_getOverloadedDecl(node, i)
                       for i in range(lib.clang_getNumOverloadedDecls(node))]
            if not targets:
                self.named(node.spelling, "name:" + node.spelling, fn)
        else:
            targets = [node.referenced]
        if kind == K.CALL_EXPR:
            self.cg_sync_call(node, fn)
            if fn is not None:
                self.call_args(node, targets, fn)
            if targets[0] is None and not _construction(node, K) and not self.lookup_known(node):
                # a call clang leaves open (a template's dependent call: g.sync() on a
                # template parameter, f(x) found at instantiation, op(a, b)): it may be
                # a collective of cooperative groups (cg_reference)
                self.cg_use(fn).open = self.cg_use(fn).open or self.where(node)
        for r in targets:
            if r is None or r.kind not in _FUNCTIONS:
                continue
            if kind != K.CALL_EXPR:
                self.cg_reference(r, fn)
            self.named(r.spelling, r.get_usr(), fn)
            t = lib.clang_getSpecializedCursorTemplate(r)    # f<int>: the template f too
            if t is not None:
                self.named(r.spelling, t.get_usr(), fn)

    def named(self, name: str, key: str, fn) -> None:
        if _warps.is_collective(name):
            self.m.uses_warps = True
        if _warps.takes_lock(name):
            self.m.takes_locks = True
        if fn is not None:
            fn[-2].add(key)
            fn[-1].add(name)

    def call_args(self, call, targets, fn) -> None:
        """For each argument of `call` that is a variable's name alone (`f(a,
        x)`), whether the call may change that variable, as clang's tree says
        (record `fn`'s by_value / by_ref, offsets of the names): only by a
        reference parameter, or through the elements of an array (it decays
        to a pointer), or by a user copy constructor that takes a non-const
        reference.  Known where clang resolved the callee, or where the
        lookup of a dependent call found candidates and no explicit template
        arguments make their parameters' types (ADL may find more at
        instantiation: the regions pass takes such calls as before)."""
        K = self.K
        cands = [t for t in targets if t is not None and t.kind in _FUNCTIONS]
        if not cands:
            callee = self.open_callee(call)
            if callee is None or callee[1]:
                return
            lib = self.ci.conf.lib
            cands = [lib.clang_getOverloadedDecl(callee[0], i)
                     for i in range(lib.clang_getNumOverloadedDecls(callee[0]))]
            cands = [c for c in cands if c is not None and c.kind in _FUNCTIONS]
            if not cands:
                return
            known = False
        else:
            known = True
        if call.spelling.startswith("operator"):
            return          # an operator's call: its operands are no argument list
        args = list(call.get_arguments())
        for i, a in enumerate(args):
            a = _bare_expr(a, K)
            if a.kind != K.DECL_REF_EXPR or a.referenced is None or \
                    a.referenced.kind not in (K.VAR_DECL, K.PARM_DECL):
                continue
            try:
                safe = self.copied(a.referenced.type) and all(
                    _by_value_param(c, i, K, self.ci.TypeKind) for c in cands)
            except ValueError:      # a type kind this cindex has no name for
                continue
            if safe or known:
                byval, byref = self.call_refs.setdefault(id(fn), (set(), set()))
                (byval if safe else byref).add(a.extent.start.offset)

    def copied(self, t) -> bool:
        """A value of type t passed by value is a copy the callee cannot use to
        change the variable: a scalar, a pointer, a reference's referee of
        those, a class without a user copy constructor taking a non-const
        reference; not an array (a pointer to its elements), not a type that
        depends on template parameters."""
        TK = self.ci.TypeKind
        c = t.get_canonical()
        if c.kind in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE):
            c = c.get_pointee().get_canonical()
        if c._kind_id in _SCALAR_IDS or c.kind in (TK.POINTER, TK.ENUM):
            return True
        if c.kind != TK.RECORD:
            return False
        d = c.get_declaration()
        if d is None or d.kind not in (self.K.STRUCT_DECL, self.K.CLASS_DECL, self.K.UNION_DECL):
            return False
        for ch in d.get_children():
            if ch.kind == self.K.CONSTRUCTOR and ch.is_copy_constructor():
                ps = list(ch.get_arguments())
                if not ps or not ps[0].type.get_pointee().is_const_qualified():
                    return False
        return True

    def open_callee(self, call):
        """(the OVERLOADED_DECL_REF a dependent call's callee names, whether
        explicit template arguments follow it), or None."""
        K = self.K
        callee = next(iter(call.get_children()), None)
        explicit = False
        while callee is not None and callee.kind in (K.UNEXPOSED_EXPR, K.DECL_REF_EXPR):
            kids = list(callee.get_children())
            if callee.kind == K.UNEXPOSED_EXPR:     # an implicit conversion of the callee
                callee = kids[0] if len(kids) == 1 else None
            else:           # `f<T>` or `ns::f`: the lookup's result after any qualifier
                explicit = any(k.kind not in (K.OVERLOADED_DECL_REF, K.NAMESPACE_REF)
                               for k in kids)
                callee = next((k for k in kids if k.kind == K.OVERLOADED_DECL_REF), None)
        if callee is None or callee.kind != K.OVERLOADED_DECL_REF or not callee.spelling:
            return None
        return callee, explicit

    def kernel(self, c, ns: list) -> str:
        if c.semantic_parent != c.lexical_parent:   # `void ns::k() {...}`: ns's kernel
            ns = _namespaces(self.K, c)
        qual = "::".join(ns + [c.spelling])
        start, end = self.span(c)
        body = next((ch for ch in c.get_children() if ch.kind == self.K.COMPOUND_STMT), None)
        head = self.tokens(start, body.extent.start.offset if body is not None else end)
        attrs, bounds = [], ""
        for n, (tok, _) in enumerate(head):
            if tok in _ATTRS and n + 1 < len(head) and head[n + 1][0] == "(":
                args = _split_args(head, n + 1)
                if tok == "__launch_bounds__":
                    bounds = args[0] if args else ""
                else:
                    attrs.append((tok, tuple(args)))
        template = c.kind == self.K.FUNCTION_TEMPLATE
        params = ()
        if self.dialect == "opencl":
            parms = [ch for ch in c.get_children() if ch.kind == self.K.PARM_DECL]
            params = tuple(_args.param(self.ci, p, i, self.notes(p)) for i, p in enumerate(parms))
        signature = ""
        ftype = c.type.get_canonical().spelling              # "void (float *)"
        if not template and not any(w in ftype for w in ("(anonymous", "(lambda", "(unnamed")):
            # named by its type: a kernel may share its name with functions of
            # the C library (div, exp, exit), which C++ overloads
            ret, _, rest = ftype.partition("(")
            if self.dialect == "opencl" and any(self.const_pointee(p) for p in parms):
                # the parameters as g++ sees them: a __constant pointer's
                # pointee made const (constant_const)
                rest = ", ".join(self.const_pointee(p) or p.type.get_canonical().spelling
                                 for p in parms) + ")"
            signature = f"{ret.strip()} (*)({rest}"
        spelled = c.spelling[len("pyemu_cl_"):] if c.spelling.startswith("pyemu_cl_") else ""
        defaults = self.defaults(c) if self.dialect == "cuda" else ()
        tparams = self.template_params(c) if template and defaults else ""
        if template and defaults and not tparams:
            defaults = ()           # (a head this cannot read: a launch must pass them all)
        k = Kernel(qual, self.where(c), c.is_definition(), template, bounds, params,
                   tuple(attrs), signature, spelled, defaults, tparams)
        old = self.kernels.get(qual)
        if old is not None:
            # a definition after a prototype: its place, the attributes of both
            # (C++ gives each default argument in one declaration of them)
            k = Kernel(qual, k.where if k.defined else old.where, k.defined or old.defined,
                       k.template or old.template, k.max_threads or old.max_threads,
                       k.params if k.defined or not old.params else old.params,
                       k.attributes or old.attributes, k.signature or old.signature, spelled,
                       tuple(sorted(dict(old.defaults + k.defaults).items())),
                       # a template's default arguments are all in one of its declarations
                       # (C++ [dcl.fct.default]): its names are that declaration's
                       k.template_params if k.defaults else old.template_params)
        self.kernels[qual] = k
        return k.name

    def template_params(self, c) -> str:
        """The template head of kernel template c, `template <class T, int
        N = 4>` as written: from its start to the '>' after its last
        template parameter (clang's extents); '' when that is not where it
        should be (a `>>` closing a default argument too)."""
        K = self.K
        tps = [ch for ch in c.get_children() if ch.kind in (
            K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER,
            K.TEMPLATE_TEMPLATE_PARAMETER)]
        start = c.extent.start.offset
        if not tps:
            return ""
        toks = self.tokens(tps[-1].extent.end.offset, c.extent.end.offset)
        head = self.tokens(start, start + 1)
        if not toks or toks[0][0] != ">" or not head or head[0][0] != "template":
            return ""
        return " ".join(x.strip() for x in self.text[start:toks[0][1] + 1].splitlines()
                        if not x.lstrip().startswith("#"))      # (g++ -E's line markers)

    def defaults(self, c) -> tuple:
        """((index, text), ...): the default arguments of the parameters of
        declaration c, the text after the `=` that follows the parameter's
        name (clang's tokens of the parameter, outside brackets)."""
        out = []
        parms = [ch for ch in c.get_children() if ch.kind == self.K.PARM_DECL]
        for i, p in enumerate(parms):
            start, end = self.span(p)
            name = p.location.offset if p.spelling else start
            depth = 0
            for tok, at in self.tokens(name, end):
                if tok in ("(", "[", "{"):
                    depth += 1
                elif tok in (")", "]", "}"):
                    depth -= 1
                elif tok == "=" and depth <= 0:
                    # less g++ -E's line markers (NULL of a system header
                    # comes between two): text of one line
                    text = " ".join(x for x in self.text[at + 1:end].splitlines()
                                    if not x.lstrip().startswith("#")).strip()
                    if text:
                        out.append((i, text))
                    break
        return tuple(out)

    def symbol(self, c, ns: list) -> None:
        notes = self.notes(c)
        qual = "::".join(ns + [c.spelling])
        tspell = c.type.spelling
        start, end = self.span(c)
        if "shared" in notes:
            kind = "shared"
            if c.storage_class == self.ci.StorageClass.EXTERN:
                self.dynamic_shared(c, file_scope=True)
                return
            self.shared_initializer(c)
        elif tspell.startswith(("texture<", "pyemu_texture")):
            kind = "texture"
        elif "constant" in notes or 'section("pyemu_const.' in self.text[start:end]:
            kind = "constant"
            if self.dialect == "opencl" and "constant" in notes:
                self.constant_section(start)
                self.constant_const(c)
        else:
            kind = "device" if self.dialect == "cuda" else "global"
        self.m.symbols.append(Symbol(qual, kind, tspell, self.where(c)))

    # ------------------------------------------------------------ bodies
    def body(self, c, kernel, fkind=None, ns=(), heads=()) -> None:
        """Walks the code under `c` (in function `kernel`, a kernel's name, or
        None).  `fkind`: c is a function definition of that kind (record);
        the definitions under c outside functions (methods, lambdas) are
        'other' ones; the calls made in each are its own (a lambda's and a
        local class's in a function are the function's)."""
        stack = [(c, kernel, None)]
        K = self.K
        opencl = self.dialect == "opencl"
        while stack:
            node, kern, fn = stack.pop()
            kind = node.kind
            if kind in _OUTER_REFS:
                self.outer_ref(node, kind)
            if kind in _REFERENCES:
                self.reference(node, kind, fn)
            elif kind == K.NAMESPACE_REF:
                if node.spelling == _warps.COOPERATIVE:
                    self.cg["named"] = True
            elif kind in (K.TYPE_REF, K.TEMPLATE_REF):
                self.cg_reference(node.referenced, fn, type_only=True)
            elif kind == K.DECL_STMT:
                if self.local_decl(node, kern):
                    continue
            elif opencl and kind == K.PARM_DECL:
                self.constant_const(node)
            elif not opencl and kind in self.assignments:
                self.constant_write(node, kind)
            elif opencl and kind == K.TYPEDEF_DECL and _is_vector(node.underlying_typedef_type):
                self.vector_names.add(node.spelling)
            elif opencl and kind == K.CSTYLE_CAST_EXPR and _is_vector(node.type):
                self.vector_literal(node)
            elif opencl and kind in (K.CONDITIONAL_OPERATOR, K.UNEXPOSED_EXPR):
                self.vector_select(node)
            elif kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD) and node is not c:
                kern = None
            if kind in (K.CXX_METHOD, K.FUNCTION_TEMPLATE) and not opencl:
                self.member_kernel(node)
            children = list(node.get_children())
            if node is c and fkind is not None:
                fn = self.record(c, children, fkind, ns, heads)
            elif fn is None and (kind == K.LAMBDA_EXPR or (
                    kind in _FUNCTIONS and node.is_definition())):
                fn = self.record(node, children, "other", ns, heads)
            if kind in _STMT_HOLDERS:
                self.volatile_steps(kind, children)
            stack.extend((ch, kern, fn) for ch in reversed(children))

    def member_kernel(self, f) -> None:
        """nvcc refuses a __global__ member function (static or not, of a
        class or a class template): "A __global__ function or function
        template cannot be a member function" (nvcc 13,
        tests/data/ground_truth/static_member_kernel_nvcc13.txt); so does pyemu."""
        K = self.K
        owner = f.semantic_parent
        if (owner is None or owner.kind not in (K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL,
                                                 K.CLASS_TEMPLATE,
                                                 K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)
                or "kernel" not in self.notes(f) or not self.user(f)):
            return
        key = f.get_usr()
        if key in self.member_kernels:
            return
        self.member_kernels.add(key)
        self.m.errors.append((self.where(f), "A __global__ function or function template "
                              "cannot be a member function"))

    def local_decl(self, stmt, kern) -> bool:
        """A declaration statement in a function body: __local, __constant,
        __shared__ ones get their edits.  True when the statement is done."""
        var = [ch for ch in stmt.get_children() if ch.kind == self.K.VAR_DECL]
        if not var:
            return False
        notes = self.notes(var[0])
        start, end = self.span(stmt)
        seg = _smem.segment(kern) if kern else 0
        if "shared" in notes:
            if var[0].storage_class == self.ci.StorageClass.EXTERN:
                self.dynamic_shared(var[0], file_scope=False, stmt=stmt)
                return True
            for v in var:
                self.shared_initializer(v)
            done = _smem.rewrite_decl(self.text[start:end], self.smem_id, seg,
                                      self.decl_tokens(start, end))
            if done:
                self.smem_id += done[1]
                self.m.edits.append(Edit(start, end, done[0], "shared"))
                return True
            return False
        if self.dialect != "opencl":
            return False
        pointer = var[0].type.kind == self.ci.TypeKind.POINTER
        if "local" in notes and not pointer:
            done = _smem.rewrite_decl(self.text[start:end], self.smem_id, seg,
                                      self.decl_tokens(start, end))
            if done:
                self.smem_id += done[1]
                self.m.edits.append(Edit(start, end, done[0], "local"))
                return True
            self.m.edits.append(Edit(start, start, "static __thread ", "local"))
        elif "constant" in notes and not pointer:
            # not in a section: the regions pass copies the kernel's body (and
            # with it the variable), so the core would count it twice; the
            # 64 KiB count takes it from here (driver._opencl_info, clBuildProgram)
            self.m.edits.append(Edit(start, start, "static ", "constant"))
            for v in var:
                self.constant_const(v)
                self.m.symbols.append(Symbol(f"{kern or ''}::{v.spelling}", "kernel_constant",
                                             v.type.spelling, self.where(v),
                                             max(v.type.get_size(), 0)))
        elif "constant" in notes:
            for v in var:       # a local pointer to constant memory: to const
                self.constant_const(v)
        return False

    def constant_write(self, node, kind) -> None:
        """CUDA: an assignment, compound assignment, ++ or -- whose target is
        (an element or member of) a __constant__ variable is an error, as
        nvcc's: constant memory is written from the host only
        (cudaMemcpyToSymbol).  A __constant__ pointer's pointee is other
        memory: writing through it is no write to constant memory.  The
        operator's tokens are read only when the target is such a variable."""
        ch = list(node.get_children())
        if not ch or (kind == self.K.BINARY_OPERATOR and len(ch) != 2):
            return
        target, through = ch[0], False
        K = self.K
        while True:
            if target.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
                pass
            elif target.kind in (K.ARRAY_SUBSCRIPT_EXPR, K.MEMBER_REF_EXPR):
                through = True
            else:
                break
            sub = next(iter(target.get_children()), None)
            if sub is None:
                return
            target = sub
        if target.kind != K.DECL_REF_EXPR:
            return
        var = target.referenced
        if var is None or var.kind != K.VAR_DECL:
            return
        a, b = self.span(var)
        if "constant" not in self.notes(var) and 'section("pyemu_const.' not in self.text[a:b]:
            return
        if through and var.type.get_canonical().kind == self.ci.TypeKind.POINTER:
            return          # the pointee of a __constant__ pointer
        if kind == K.BINARY_OPERATOR:
            between = self.tokens(ch[0].extent.end.offset, ch[1].extent.start.offset)
            if not between or between[0][0] != "=":
                return
        elif kind == K.UNARY_OPERATOR:
            toks = self.tokens(*self.span(node))
            if not toks or not ({toks[0][0], toks[-1][0]} & {"++", "--"}):
                return
        self.m.errors.append((self.where(node), f"a __constant__ variable ('{var.spelling}') "
                              "cannot be written in device code: constant memory is set from "
                              "the host (cudaMemcpyToSymbol)"))

    def const_pointee(self, p) -> str:
        """The canonical type of __constant pointer parameter `p` once
        constant_const made its pointee const; '' when it makes none."""
        t = p.type.get_canonical()
        if ("constant" not in self.notes(p) or t.kind != self.ci.TypeKind.POINTER
                or t.get_pointee().is_const_qualified()):
            return ""
        return f"const {t.get_pointee().spelling} *"

    def constant_const(self, c) -> None:
        """An OpenCL __constant variable or pointer parameter `c`: what it
        names becomes const for g++ (`const` before the declaration), so that
        a write to constant memory does not compile, as the OpenCL C spec
        says ("It is illegal to write to a variable in the constant address
        space and will result in a compilation error").  Nothing when it is
        const already, or not __constant."""
        if "constant" not in self.notes(c):
            return
        t = c.type
        TK = self.ci.TypeKind
        while t.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
            t = t.get_pointee() if t.kind == TK.POINTER else t.get_array_element_type()
            if c.kind == self.K.PARM_DECL:
                break       # a parameter: what the pointer points to
        if t.is_const_qualified():
            return
        start = self.span(c)[0]
        if start in self.const_done:
            return          # one declaration, several declarators
        self.const_done.add(start)
        self.m.edits.append(Edit(start, start, "const ", "constant"))

    def constant_section(self, start: int) -> None:
        """An OpenCL program-scope __constant variable declared at `start`: in
        a section "pyemu_const.clN" of its own, as CUDA's __constant__
        (include/pyemu/detail/cuda_qualifiers.h), so that the core counts it in the module's 64 KiB of constant data at
        load (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE; csrc/symbols.c) and flags it
        constant memory (the enqueue adds the __constant buffer arguments to
        it: pyemu/opencl/kernel.py).  One edit per declaration: its
        declarators share the section."""
        if start in self.const_starts:
            return
        self.const_starts.add(start)
        self.m.edits.append(Edit(start, start, "__attribute__((used, section(\"pyemu_const.cl"
                                 f"{len(self.const_starts)}\"))) ", "constant"))

    def dynamic_shared(self, var, file_scope: bool, stmt=None) -> None:
        """`extern __shared__ T s[];`: a pointer to the launch's dynamic shared memory."""
        name = var.spelling
        elem = var.type.get_array_element_type() if var.type.kind in (
            self.ci.TypeKind.INCOMPLETEARRAY, self.ci.TypeKind.CONSTANTARRAY) else var.type
        espell = elem.spelling
        base, br, dims = espell.partition("[")
        dims = br + dims
        ttype = base.strip()
        if dims:
            ptr, cast = f"{ttype} (*const {name}){dims}", f"({ttype} (*){dims})"
        else:
            ptr, cast = f"{ttype} *const {name}", f"({ttype} *)"
        start, end = self.span(stmt if stmt is not None else var)
        if not file_scope:
            nl = self.text.count("\n", start, end)
            self.m.edits.append(Edit(start, end, f"{ptr} = {cast}{self.dyn};"
                                     + "\n" * nl, "dynamic-shared"))
            return
        # at file scope: a macro for the rest of the unit, on lines of its own
        # that the #line markers around it keep out of the numbering
        semi = self.text.find(";", end)
        end = semi + 1 if semi >= 0 and not self.text[end:semi].strip() else end
        file, line = presumed(var.extent.start)
        _, last = presumed(var.extent.end)
        q = c_string(file)
        self.m.edits.append(Edit(start, end, f"\n#line {line} {q}\n"
                                 f"#define {name} ({cast}{self.dyn})\n"
                                 f"#line {last} {q}\n", "dynamic-shared"))

    def builtin_names(self, top: list) -> None:
        """OpenCL kernels named like a built-in function of OpenCL C (which
        pyemu's headers declare): an OpenCL compiler refuses them."""
        names = {k.qualified for k in self.m.kernels if "::" not in k.qualified}
        kinds = (self.K.FUNCTION_DECL, self.K.FUNCTION_TEMPLATE, self.K.USING_DECLARATION)
        for c in top:
            if c.kind in kinds and c.spelling in names:
                loc = c.location
                if loc.file is not None and presumed(loc)[0].startswith(self.root):
                    self.m.builtin_clashes.add(c.spelling)

    def failed_literals(self, top: list) -> None:
        """Vector literals whose C++ reading (a cast of a comma expression)
        clang rejected, which leaves no cast in the tree: `(float8)(v4, w4)`.
        Found in the user's tokens, by the names that the tree says are
        vector types (typedefs included)."""
        names = set(self.vector_names)
        for c in top:
            if c.kind == self.K.TYPEDEF_DECL and _is_vector(c.underlying_typedef_type):
                names.add(c.spelling)
        first = min((self.span(c)[0] for c in top if self.user(c)), default=None)
        if first is None:
            return
        done = {e.start for e in self.m.edits if e.why == "vector-literal"}
        toks = self.tokens(first, len(self.text))
        for i in range(len(toks) - 3):
            if not (toks[i][0] == "(" and toks[i + 1][0] in names and toks[i + 2][0] == ")"
                    and toks[i + 3][0] == "(") or toks[i][1] in done:
                continue
            prev = toks[i - 1][0] if i else ""
            if prev in (")", "]") or prev in _NOT_BEFORE_LITERAL or (
                    (prev[:1].isalnum() or prev[:1] == "_")
                    and prev not in ("return", "case", "else", "do")):
                continue        # a call's or declarator's parameter list, sizeof(T)
            self.m.edits.append(Edit(toks[i][1], toks[i][1] + 1, " ", "vector-literal"))
            self.m.edits.append(Edit(toks[i + 2][1], toks[i + 2][1] + 1, " ", "vector-literal"))

    def vector_literal(self, cast) -> None:
        """`(T)(a, b, c)` with T a vector type: `T (a, b, c)`, a constructor call."""
        start, end = self.span(cast)
        toks = self.tokens(start, end)
        if not toks or toks[0][0] != "(":
            return
        depth = 0
        for n, (tok, off) in enumerate(toks):
            depth += (tok == "(") - (tok == ")")
            if depth == 0:
                break
        else:
            return
        if n + 1 >= len(toks) or toks[n + 1][0] != "(":
            return
        self.m.edits.append(Edit(toks[0][1], toks[0][1] + 1, " ", "vector-literal"))
        self.m.edits.append(Edit(off, off + 1, " ", "vector-literal"))

    # ------------------------------------------------ volatile stores
    def volatile_steps(self, kind, children) -> None:
        """Puts pyemu_warp_step() after each expression statement among
        `children` that stores through a volatile lvalue.  Not in a unit
        whose code takes locks with atomics (atomicCAS, atomicExch, OpenCL's
        atomic_cmpxchg/xchg): a lane that holds a lock would hand the worker,
        at its volatile stores, to the next lane of its warp, which spins on
        the lock for ever (a GPU since Volta schedules such lanes apart):
        run() drops them when the walk found such a call."""
        for st in _statements(self.K, kind, children):
            if not st.kind.is_expression() or not self.stores_volatile(st):
                continue
            start, end = self.span(st)
            semi = end
            while semi < len(self.text) and self.text[semi] in " \t\r\n":
                semi += 1
            if semi >= len(self.text) or self.text[semi] != ";":
                continue      # a for's header, a condition: not a statement
            self.m.edits.append(Edit(start, start, "{", "warp-step"))
            self.m.edits.append(Edit(semi + 1, semi + 1, " pyemu_warp_step(); }", "warp-step"))

    def _own_variable(self, lhs) -> bool:
        """lhs names a thread's own automatic scalar (not __local or
        __shared__ memory, not a reference, not through a pointer or an
        index): no other lane sees a store to it, so it needs no warp step."""
        K = self.K
        while lhs.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
            ch = list(lhs.get_children())
            if len(ch) != 1:
                return False
            lhs = ch[0]
        if lhs.kind != K.DECL_REF_EXPR:
            return False
        ref = lhs.referenced
        from clang.cindex import StorageClass
        return (ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL)
                and ref.storage_class in (StorageClass.NONE, StorageClass.AUTO,
                                          StorageClass.REGISTER)
                and ref.semantic_parent is not None
                and ref.semantic_parent.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE,
                                                 K.CXX_METHOD)
                and not ref.type.get_canonical().kind.name.endswith(("ARRAY", "REFERENCE"))
                and not self.notes(ref) & {"local", "global", "constant", "shared"})

    def stores_volatile(self, expr) -> bool:
        """Does `expr` assign to (=, op=, ++, --) a volatile-qualified lvalue?"""
        K, text = self.K, self.text
        stack = [expr]
        while stack:
            e = stack.pop()
            if e.kind == K.LAMBDA_EXPR:
                continue
            ch = list(e.get_children())
            if ch and e.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR,
                                 K.UNARY_OPERATOR) and _volatile(ch[0]) \
                    and not self._own_variable(ch[0]):
                a, b = self.span(e)
                ca, cb = self.span(ch[0])
                if e.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
                    return True
                if e.kind == K.BINARY_OPERATOR and len(ch) == 2:
                    if text[cb:ch[1].extent.start.offset].strip() == "=":
                        return True
                elif e.kind == K.UNARY_OPERATOR:
                    if (text[a:ca] + text[cb:b]).strip() in ("++", "--"):
                        return True
            stack.extend(ch)
        return False

    def vector_select(self, node) -> None:
        """`c ? a : b` with a vector c: pyemu_vternary(c, a, b), component-wise."""
        ch = list(node.get_children())
        if len(ch) != 3 or not _is_vector(ch[0].type):
            return
        c_end = ch[0].extent.end.offset
        a_start, a_end = self.span(ch[1])
        b_start, b_end = self.span(ch[2])
        q, colon = self.text[c_end:a_start], self.text[a_end:b_start]
        if q.strip() != "?" or colon.strip() != ":":
            return
        qpos, cpos = c_end + q.index("?"), a_end + colon.index(":")
        self.m.edits += [Edit(ch[0].extent.start.offset, ch[0].extent.start.offset,
                              "pyemu_vternary(", "vector-select"),
                         Edit(qpos, qpos + 1, ",", "vector-select"),
                         Edit(cpos, cpos + 1, ",", "vector-select"),
                         Edit(b_end, b_end, ")", "vector-select")]


def _statements(K, kind, children: list) -> list:
    """The children of a statement `kind` that are statements of their own."""
    if kind == K.COMPOUND_STMT:
        return children
    if kind == K.IF_STMT:
        return children[1:]        # then, else (a condition is followed by ')')
    if kind == K.DO_STMT:
        return children[:1]
    return children[-1:]           # the body of a loop, a case or a label


# clang's builtin arithmetic types (CXTypeKind ids: Bool .. NullPtr, Float128,
# Half, Float16, BFloat16, Ibm128; not Overload or Dependent)
_SCALAR_IDS = set(range(3, 25)) | {30, 31, 32, 39, 40}


def _bare_expr(e, K):
    """Expression cursor e without the implicit nodes around it."""
    while e.kind == K.UNEXPOSED_EXPR:
        kids = list(e.get_children())
        if len(kids) != 1:
            break
        e = kids[0]
    return e


def _by_value_param(c, i: int, K, TK) -> bool:
    """Function (or template) c takes its argument i by value: its i-th
    parameter is no reference and no pack comes before it (or c is a copy
    constructor taking a const reference: a class passed by value, which
    copied() checks); past its parameters, a C variadic function's `...`."""
    params = [ch for ch in c.get_children() if ch.kind == K.PARM_DECL]
    if c.kind != K.FUNCTION_TEMPLATE:
        params = list(c.get_arguments()) or params
    for p in params[:i + 1]:
        if "..." in p.type.spelling:
            return False        # a function parameter pack
    if i < len(params):
        t = params[i].type
        if i == 0 and c.kind == K.CONSTRUCTOR and c.is_copy_constructor() and \
                t.get_canonical().get_pointee().is_const_qualified():
            return True         # a copy (class by value): its source is const
        kind = t.get_canonical().kind if t.kind != TK.UNEXPOSED else t.kind
        return kind not in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE) and \
            t.kind not in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE)
    return c.kind != K.FUNCTION_TEMPLATE and c.type.kind == TK.FUNCTIONPROTO and \
        c.type.is_function_variadic()


def _construction(call, K) -> bool:
    """A call cursor that makes a value of a type (`T(3)`, `SharedMemory<T>()`
    in a template, whose constructor clang has not chosen yet): its type
    comes first, not a callee."""
    first = next(iter(call.get_children()), None)
    return first is not None and first.kind in (K.TYPE_REF, K.TEMPLATE_REF)


_STMT_HOLDERS = set()
_FUNCTIONS = set()      # cursor kinds of functions (a call's or a name's target)
_REFERENCES = set()     # cursor kinds that call or name a function
_OUTER_REFS = set()     # cursor kinds that name a declaration (Walk.outer_ref)


def _init_holders(K) -> None:
    if not _STMT_HOLDERS:
        _FUNCTIONS.update({K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR,
                           K.DESTRUCTOR, K.CONVERSION_FUNCTION})
        _REFERENCES.update({K.CALL_EXPR, K.DECL_REF_EXPR, K.MEMBER_REF_EXPR,
                            K.OVERLOADED_DECL_REF})
        _OUTER_REFS.update({K.CALL_EXPR, K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF, K.TYPE_REF,
                            K.TEMPLATE_REF})
        _STMT_HOLDERS.update({K.COMPOUND_STMT, K.IF_STMT, K.WHILE_STMT, K.FOR_STMT, K.DO_STMT,
                              K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT,
                              getattr(K, "CXX_FOR_RANGE_STMT", K.FOR_STMT)})


def _namespaces(K, c) -> list:
    """The names of the namespaces that declaration `c` belongs to (its
    semantic parents), outermost first; unnamed ones are left out."""
    out, p = [], c.semantic_parent
    while p is not None and p.kind != K.TRANSLATION_UNIT:
        if p.kind == K.NAMESPACE and p.spelling:
            out.append(p.spelling)
        p = p.semantic_parent
    return out[::-1]


def _scope(K, c):
    """The namespaces (names, outermost first; '' an unnamed one) that
    function `c` is a member of (for a definition outside them, `void
    ns::k() {...}`, those it belongs to); None when something other than a
    namespace holds it (a class, a function)."""
    out, p = [], c.semantic_parent
    while p is not None and p.kind != K.TRANSLATION_UNIT:
        if p.kind == K.NAMESPACE:
            out.append(p.spelling)
        elif p.kind not in (K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            return None
        p = p.semantic_parent
    return tuple(out[::-1])


def _volatile(lhs) -> bool:
    t = lhs.type
    return t.is_volatile_qualified() or t.get_canonical().is_volatile_qualified()


def _split_args(toks: list, open_at: int) -> list:
    """The top-level arguments (text) of the group that opens at toks[open_at]."""
    out, cur, depth = [], [], 0
    for tok, _ in toks[open_at:]:
        if tok in ("(", "[", "{"):
            depth += 1
            if depth == 1:
                continue
        elif tok in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        if tok == "," and depth == 1:
            out.append(" ".join(cur))
            cur = []
        else:
            cur.append(tok)
    if cur:
        out.append(" ".join(cur))
    return out
