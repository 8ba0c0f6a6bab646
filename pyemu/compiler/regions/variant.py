"""Fiber variants: a kernel that takes the fiber path, with soft barriers.

A block function (gen.py) runs the threads of a block region by region: all
threads finish the code before a branch or loop that holds a barrier before
any enters it, and all finish an iteration of such a loop before any starts
the next (PoCL's implicit barriers).  The fiber path runs each thread alone
up to its next barrier, so a kernel with a race that GPUs and PoCL tolerate
(every work-item clears a __local array, then a uniform branch stores into
it before a barrier) would give another result there.

The variant is the kernel's body with a *soft barrier* at each place where
the block function starts a new region: before and after a branch or loop
that holds a barrier (or calls a function that reaches one, or holds a
uniform loop exit: uniform.Uniformity.exits, marked as the block function
marks them), at the start of
each of its branches and at the start and end of each loop body; the barriers
the pass itself adds (IMPLICIT_SITE: PoCL's implicit loop barriers, which
uniform.with_loop_barriers puts into the tokens exactly as for the block
function) become soft too.  Its runner, the
kernel's `pyemu_rg_<name>`, makes the core run the block on fibers with the
variant as every thread's entry (csrc/block.c, PYEMU_OP_FIBERS); a soft
barrier waits until no thread of the block can go on, and never reports
divergence itself: only a real barrier that part of the block reaches does.
So a kernel gives the same result whichever path it takes.
"""
from __future__ import annotations

from . import syntax as S
from . import tree as _tree
from .syntax import Unsupported
from .writer import Writer, cstr as _cstr

FV = "pyemu_fv_"
OP_SOFT, OP_FIBERS = 3, 4       # barrier_reduce's ops for the core (csrc/block.c)


class _Writer(Writer):
    """Tokens back to text, each user token on its own file and line."""

    func = ""      # the kernel's name: what __func__ says in its variant

    def emit(self, lo: int, hi: int):
        for j in range(lo, hi):
            t = self.toks[j]
            if self.func and t.kind == "id" and t.text in ("__func__", "__FUNCTION__"):
                self.tok(t, _cstr(self.func))      # an assert names the kernel, not the variant
            else:
                self.tok(t)


class _Variant:
    def __init__(self, toks, files, barrier: str, implicit_site: str, holders: set):
        self.w = _Writer(toks, files)
        self.toks = toks
        self.barrier = barrier
        self.implicit = '"' + implicit_site + '"'
        self.holders = holders
        self.soft_at = None

    def soft(self):
        self.w.raw(f'pyemu_barrier_reduce("<implicit barrier>", 0, {OP_SOFT});')

    def holds(self, st: S.Stmt) -> bool:
        """st holds a barrier, or a call of a function that reaches one."""
        if st.barrier:
            return True
        return bool(self.holders) and any(
            t.kind == "id" and t.text in self.holders for t in self.toks[st.lo:st.hi])

    def stmts(self, stmts: list):
        for st in stmts:
            self.stmt(st)

    def body(self, st: S.Stmt):
        """A branch or loop body, in braces, with soft barriers at its ends."""
        self.w.raw("{")
        self.soft()
        self.stmts(st.kids if st.kind == "compound" else [st])
        self.w.raw("}")

    def stmt(self, st: S.Stmt):
        toks, w = self.toks, self.w
        if st.kind == "barrier":
            if toks[st.cond[0]].text == self.implicit and st.cond[1] - st.cond[0] == 1:
                self.soft()
            else:
                w.emit(st.lo, st.hi)
            return
        if not self.holds(st) or st.kind in ("switch", "other", "label", "expr", "decl",
                                             "return", "empty", "pragma", "goto", "break",
                                             "continue"):
            if st.kind in ("expr", "decl") and self.holds(st):
                self.soft()          # a call that reaches a barrier: its own region
                w.emit(st.lo, st.hi)
                self.soft()
                return
            w.emit(st.lo, st.hi)
            return
        if st.kind == "compound":
            w.raw("{")
            self.stmts(st.kids)
            w.raw("}")
            return
        self.soft()
        if st.kind == "if":
            then = st.kids[0]
            w.emit(st.lo, then.lo)
            self.body(then)
            if len(st.kids) > 1:
                other = st.kids[1]
                w.emit(then.hi, other.lo)     # else
                self.body(other)
        elif st.kind in ("for", "while"):
            b = st.kids[0]
            w.emit(st.lo, b.lo)
            w.raw("{")
            self.soft()
            self.stmts(b.kids if b.kind == "compound" else [b])
            self.soft()
            w.raw("}")
        elif st.kind == "do":
            b = st.kids[0]
            w.emit(st.lo, b.lo)
            w.raw("{")
            self.soft()
            self.stmts(b.kids if b.kind == "compound" else [b])
            self.soft()
            w.raw("}")
            w.emit(b.hi, st.hi)
        else:
            raise Unsupported(f"a barrier inside {st.kind}")
        self.soft()


def variant(toks: list, files: list, g: S.Group, params: set, barrier: str,
            implicit_site: str, holders: set, runner: str, user_funcs=None) -> str:
    """The fiber variant of kernel group `g` and its runner `runner` (the name
    the driver calls as the kernel's block function)."""
    from .uniform import with_loop_barriers
    toks, g = with_loop_barriers(toks, files, g, barrier, holders,   # as the block function
                                 user_funcs)
    tmpl, plist, decls = _tree.head(g)
    if tmpl is not None:
        raise Unsupported("a kernel template has no fiber variant")
    body, _ = _tree.body(toks, g)
    from .uniform import Uniformity
    # uniform loop exits, as the block function finds them: soft barriers around their ifs
    _tree.mark(body, Uniformity(toks, files, g, holders, user_funcs).exits())
    v = _Variant(toks, files, barrier, implicit_site, holders)
    w = v.w
    w.func = g.name
    w.parts.append("\n")
    w.raw(f"static void {FV}{g.name} (")
    for a, b in _tree.without_defaults(plist, decls):
        w.emit(a, b)
    w.raw(") {")
    v.stmts(body)
    w.raw("}")
    fv = f"{FV}{g.name}"
    w.raw(f"static bool {runner} (")
    for a, b in _tree.without_defaults(plist, decls):
        w.emit(a, b)
    w.raw(") { pyemu_barrier_reduce(reinterpret_cast<const char *>(&::pyemu_entry::pyemu_kernel<"
          f"decltype(::pyemu_entry::pyemu_kernel_type(&{fv})), &{fv}>::pyemu_run_thread), 0, "
          f"{OP_FIBERS}); return true; }}\n")
    return "".join(w.parts)
