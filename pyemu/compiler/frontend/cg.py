"""Cooperative groups in the front end's walk (parse._Walk): which kernels
use them beyond the block's own calls, and the thread_block syncs that
become plain barriers.

What a block does on its own (this_thread_block(), class thread_block:
sync, thread_rank, size, group_index, ...; cg::sync of a thread_block)
keeps a kernel's block function: a plain `b.sync()` or `cg::sync(b)` is
rewritten to __syncthreads()'s expansion (cg_sync_call), so the regions
pass sees the barrier.  Anything else of namespace cooperative_groups
(tiles, coalesced groups, grids, reduce, thread_group) is a warp collective
of every kernel that reaches it through the call graph (cg_reasons gives
each such kernel its reason to run on fibers, Function.cg).  Names are
resolved by clang, never by spelling: a user's own `sync` or
`tiled_partition` is not theirs.
"""
from __future__ import annotations

from .. import warps as _warps
from .model import Edit


class CgWalk:
    """The cooperative-groups part of parse._Walk (a mixin: it uses the
    walk's K, ci, tu, m, functions, cursors, where() and span(), and
    keeps its state in cg, cg_uses and cg_kernel)."""

    def lookup_known(self, call) -> bool:
        """A dependent call `f(x)` or `f<T>(x)` that clang leaves open (an
        unresolved lookup): at instantiation it calls one of the candidates
        its lookup found (edges of the call graph: reference) or a function
        named f that argument-dependent lookup finds in the namespaces of
        the arguments' types.  True when that cannot be one of cooperative
        groups: no candidate is theirs and nothing of namespace
        cooperative_groups is named f (cg_names)."""
        K, lib = self.K, self.ci.conf.lib
        found = self.open_callee(call)
        if found is None:
            return False
        callee = found[0]
        if callee.spelling in self.cg_names():
            return False
        return not any(_cg_kind(lib.clang_getOverloadedDecl(callee, i), K) is not None
                       for i in range(lib.clang_getNumOverloadedDecls(callee)))

    def cg_names(self) -> set:
        """The names of everything declared in namespace cooperative_groups
        (pyemu's header), its nested namespaces and classes."""
        if self.cg.get("names") is None:
            names, todo = set(), [c for c in self.tu.cursor.get_children()
                                  if c.kind == self.K.NAMESPACE
                                  and c.spelling == _warps.COOPERATIVE]
            while todo:
                c = todo.pop()
                for ch in c.get_children():
                    if ch.spelling:
                        names.add(ch.spelling)
                    if ch.kind in _scopes(self.K):
                        todo.append(ch)
            self.cg["names"] = names
        return self.cg["names"]

    def cg_use(self, fn) -> "_CgUse":
        """What function record `fn` (None: code outside functions) uses of
        cooperative groups."""
        return self.cg_uses.setdefault(id(fn) if fn is not None else None, _CgUse(fn))

    def cg_reference(self, r, fn, type_only: bool = False) -> None:
        """A function or type of namespace cooperative_groups that user code
        names, in function record `fn`: what a block does on its own
        (this_thread_block(), class thread_block: sync, thread_rank, size,
        group_index, ...; sync(g) of a thread_block) keeps a kernel that
        reaches it off the warp form; anything else (tiles, coalesced groups,
        grids, reduce, thread_group) is a warp collective (warps.py) of the
        kernels that reach `fn` (cg_reasons).  A type named outside functions
        (`type_only`: a typedef, a prototype's parameter) does nothing by
        itself: what is done with it is a call, seen where it is made."""
        what = _cg_kind(r, self.K)
        if what is None:
            return
        self.cg["named"] = True
        if what == "block" or (type_only and fn is None):
            return
        use = self.cg_use(fn)
        if what == "sync":
            use.syncs += 1
        elif not use.other:
            use.other = _cg_name(r, self.K)

    def cg_reasons(self) -> None:
        """Each kernel's reason to run its cooperative groups on fibers
        (self.cg_kernel, Function.cg): a function it reaches through the call
        graph (its own body, the functions, templates, methods and lambdas it
        calls or names) uses them beyond the block's own calls.  Code outside
        functions that does, or a destructor or conversion function (called
        implicitly: the call graph has no edge to it), gives the reason to
        every kernel of the unit, whose thread_block syncs then stay the
        header's (no cg-sync edit).  Any reason makes the unit use warps."""
        if not self.cg["named"]:
            return
        own = {k: u.why() for k, u in self.cg_uses.items()}
        own = {k: w for k, w in own.items() if w}
        if not own:
            return
        self.m.uses_warps = True
        kernels = [f for f in self.functions if f[0] == "kernel"]
        unit = ""
        implicit = (self.K.DESTRUCTOR, self.K.CONVERSION_FUNCTION)
        for k, why in own.items():
            c = self.cursors.get(k, (None,))[0] if k is not None else None
            if k is None or (c is not None and c.kind in implicit):
                where = "outside functions" if k is None else f"in {c.spelling}"
                unit = f"the unit uses cooperative groups {where} ({why})"
                break
        if unit:
            self.m.edits = [e for e in self.m.edits if e.why != "cg-sync"]
            for f in kernels:
                self.cg_kernel[id(f)] = unit + ", whose collectives run on fibers"
            return
        by_key, by_name = {}, {}
        for f in self.functions:
            if f[7]:
                by_key.setdefault(f[7], []).append(f)
            if f[1]:
                by_name.setdefault(f[1], []).append(f)
        for f in kernels:
            seen, todo = {id(f)}, [(f, "")]
            while todo:
                g, via = todo.pop(0)
                why = own.get(id(g))
                if why:
                    lead = f"it calls {via}, which uses" if via else "it uses"
                    self.cg_kernel[id(f)] = (f"{lead} cooperative groups beyond the block "
                                             f"({why}), whose collectives run on fibers")
                    break
                for key in sorted(g[-2]):
                    for h in (by_name.get(key[5:], []) if key.startswith("name:")
                              else by_key.get(key, [])):
                        if id(h) not in seen:
                            seen.add(id(h))
                            todo.append((h, via or (h[1] or "a lambda or method")))

    def cg_sync_call(self, call, fn) -> None:
        """`cg::sync(b)` or `b.sync()` for a thread_block b (a variable, or
        this_thread_block()): the call becomes __syncthreads()'s expansion, so
        that the regions pass sees the barrier (it does not read pyemu's
        headers) and the function that holds it reaches one."""
        r = call.referenced
        if r is None or _cg_kind(r, self.K) != "sync":
            return
        kids = [k for k in call.get_children()]
        if not kids or not all(_simple_block(k, self.K) for k in kids):
            return
        start, end = self.span(call)
        self.cg["rewritten"] += 1
        self.cg_use(fn).rewritten += 1
        site = f"{self.where(call)}#cg{self.cg['rewritten']}".replace("\\", "/").replace('"', "'")
        self.m.edits.append(Edit(start, end, f'pyemu_barrier("{site}")', "cg-sync"))
        if fn is not None:
            fn[-2].add("pyemu_barrier")
            fn[-1].add("pyemu_barrier")


_CG_BLOCK_FUNCTIONS = {"this_thread_block"}


class _CgUse:
    """What one function record (or code outside functions) uses of
    cooperative groups: the first name beyond the block's own (`other`),
    the thread_block syncs it names and those made pyemu_barrier calls
    (cg_sync_call), the first call clang leaves open (`open`: where)."""

    def __init__(self, fn):
        self.fn, self.other, self.syncs, self.rewritten, self.open = fn, "", 0, 0, ""

    def why(self) -> str:
        """'' when every use is the block's own, else what is not."""
        if self.other:
            return self.other
        if self.syncs != self.rewritten:
            return "a thread_block sync that is not a plain call on a thread_block"
        if self.open:
            return (f"a call clang leaves open at {self.open}, a template's dependent call "
                    "that may be one of their collectives")
        return ""


def _cg_name(r, K) -> str:
    """`r`'s name with its namespaces and classes: cooperative_groups::tiled_partition."""
    parts, p = [], r
    while p is not None and p.kind != K.TRANSLATION_UNIT:
        if p.spelling:
            parts.append(p.spelling)
        p = p.semantic_parent
    return "::".join(reversed(parts))


def _cg_kind(r, K):
    """None: `r` is not of namespace cooperative_groups; "sync": the
    thread_block's sync (its method, or cg::sync(const thread_block &));
    "block": another part of class thread_block, or this_thread_block();
    "other": anything else there."""
    if r is None:
        return None
    chain, p = [], r
    while p is not None and p.kind != K.TRANSLATION_UNIT:
        chain.append(p)
        p = p.semantic_parent
    spaces = [c for c in chain if c.kind == K.NAMESPACE]
    if not spaces or spaces[-1].spelling != _warps.COOPERATIVE:
        return None
    if len(spaces) != 1:
        return "other"
    owner = r.semantic_parent
    if owner is not None and owner.kind in (K.CLASS_DECL, K.STRUCT_DECL):
        if owner.spelling != "thread_block":
            return "other"
        return "sync" if r.spelling == "sync" else "block"
    if r.kind in (K.CLASS_DECL, K.STRUCT_DECL):
        return "block" if r.spelling == "thread_block" else "other"
    if r.kind == K.FUNCTION_DECL and r.spelling == "sync":
        args = list(r.get_arguments())
        t = args[0].type.get_pointee().get_canonical() if len(args) == 1 else None
        if t is not None and t.spelling.replace("const ", "").strip() == \
                "cooperative_groups::thread_block":
            return "sync"
        return "other"
    if r.kind == K.FUNCTION_DECL and r.spelling in _CG_BLOCK_FUNCTIONS \
            and not list(r.get_arguments()):
        return "block"
    return "other"


def _simple_block(e, K) -> bool:
    """An operand of a thread_block sync that can be dropped: a name (of the
    variable, the function, with its namespace), this_thread_block(), a
    thread_block's copy, through implicit conversions."""
    kids = list(e.get_children())
    if e.kind == K.UNEXPOSED_EXPR:
        return len(kids) == 1 and _simple_block(kids[0], K)
    if e.kind == K.MEMBER_REF_EXPR:         # b.sync: b (none: this, inside the class)
        return all(_simple_block(k, K) for k in kids)
    if e.kind == K.DECL_REF_EXPR:
        return all(k.kind in (K.NAMESPACE_REF, K.TYPE_REF, K.TEMPLATE_REF) for k in kids)
    if e.kind in (K.NAMESPACE_REF, K.TYPE_REF):
        return True
    if e.kind == K.CALL_EXPR:
        r = e.referenced
        return (r is not None and _cg_kind(r, K) == "block"
                and (r.kind == K.CONSTRUCTOR or r.spelling == "this_thread_block")
                and all(_simple_block(k, K) for k in kids))
    return False


_SCOPES = set()         # cursor kinds that declare names inside (cg_names)


def _scopes(K) -> set:
    if not _SCOPES:
        _SCOPES.update({K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL,
                        K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
                        K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.FRIEND_DECL})
    return _SCOPES
