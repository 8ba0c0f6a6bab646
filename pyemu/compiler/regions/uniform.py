"""Uniform values and PoCL's implicit loop barriers, for kernels with barriers.

PoCL (lib/llvmopencl's implicit-loop-barriers, for kernels that have a
work-group barrier) puts a barrier at the start and at the end of the body
of each innermost barrier-free loop that every work-item of a group enters
and whose exit condition is the same for all of them; the loop, and any
branch around it, then holds a barrier, so the work-items of a group run it
iteration by iteration (a printf in the loop prints iteration 0 of every
work-item before any iteration 1).  pyemu places them in such loops whose
body calls a function (printf, atomics, device functions: where the order
of the threads shows); one that only computes stays inside one thread loop,
which g++ vectorizes better (_pick_loops).  Both of pyemu's paths place the
same ones: `with_loop_barriers` inserts `pyemu_barrier("<implicit barrier>");`
into the kernel's tokens before the block function (blocks._Kernel) or the
fiber variant (variant.py) reads them, so the block function starts regions
there and the variant has soft barriers there.

A value is *uniform* when every thread of a block holds the same: literals,
the block's indices other than threadIdx (get_group_id, get_local_size,
get_num_groups, ... become them), kernel parameters, and local variables
whose every store is `v = e`, `v op= e`, `++v` or `v++` (a statement of its
own, or a for loop's init or increment) of a uniform `e` in uniform control
flow (every enclosing condition uniform; no return or goto, and no break or
continue leaving a loop under a condition that is not uniform: such a loop's
body is not uniform control), found as the largest such set (a fixed point:
start from all candidates, drop each one that has another store).  So the
counter of `volatile int a = 0; do { ... ++a; } while (a < 2);` is uniform,
and anything derived from threadIdx (get_local_id, get_global_id) is not.
A variable whose address is taken, that a reference binds, that is passed to
a function that may write it, an array or a class object never is; memory
reads and calls are not uniform either, but calls of the pure math functions
of blocks._MATH (sqrtf, __log2f, floorf, min, OpenCL's clamp, mad24, ...)
whose arguments are uniform, where the unit defines no function of that name.
Where that cannot be proven, no implicit barrier: a wrong proof would make
the block function evaluate a loop's condition once for threads that differ.

A break or continue whose ifs up to its loop all have uniform conditions is
a *uniform loop exit* (`exits`): every thread of the block leaves the loop,
or goes to its next iteration, together, so a loop holding barriers may have
one (Rodinia's hotspot: `if (i == iteration - 1) break;`).

gen.py also uses `Uniformity.cond` for conditions of statements that hold
barriers: a condition proven uniform that reads per-thread copies is read
from one thread, instead of every thread's being compared (which, through
pyemu_barrier_diverged, would send the kernel to the fiber variant).
"""
from __future__ import annotations


from . import syntax as S
from . import tree as _tree
from .syntax import Unsupported

IMPLICIT = '"<implicit barrier>"'     # blocks.IMPLICIT_SITE, as a string token
WARP_CUT = '"<warp cut>"'             # warpcut.WARP_SITE: a cut, not a barrier
_LOOPS = ("for", "while", "do")
# statements that could take a block's threads apart anywhere: no analysis
_STOP = {"return", "goto", "co_return", "co_await", "co_yield", "throw", "setjmp", "longjmp",
         "__builtin_setjmp", "__builtin_longjmp"}


def _key(st: S.Stmt) -> tuple:
    """A statement by its place (both paths parse the same tokens apart)."""
    return st.kind, st.lo, st.hi


def _scalar_words(k, d) -> bool:
    """True when declaration d names a scalar type (or d's declarator is a pointer)."""
    from .blocks import _TYPEDEFS
    ok = S.TYPE_WORDS | S.CV_WORDS | S.STORAGE_WORDS | _TYPEDEFS | {
        "size_t", "__private", "__pyemu_as_private__"}
    words = {k.toks[j].text for j in range(*d.spec)}
    return words <= ok and "auto" not in words


class Uniformity:
    """Which variables of a kernel (toks, group g) are uniform (`names`: the
    token indices of their declarations' names; a name is resolved by scope,
    so each `for (int i = ...` is its own variable), which statements run in
    uniform control flow, and which barrier-free loops take implicit barriers
    (`loops`).  `ok` is False when the kernel has something that stops the
    analysis (return, goto, a lambda, a local type, a label, a declaration in
    a condition): then nothing is uniform but what blocks._Kernel proves."""

    def __init__(self, toks: list, files: list, g: S.Group, holders: set = frozenset(),
                 user_funcs=None):
        from .blocks import _BY_VALUE, _MATH, _PURE, _Kernel
        # without the unit's function names (user_funcs, both paths pass the
        # same), assume that any builtin name but pyemu's own may be one of
        # the user's; with them, the math functions of blocks._MATH that the
        # unit does not define are pure (a call of uniform arguments is uniform)
        maybe = {n for n in _BY_VALUE | _PURE if not n.startswith("pyemu_")}
        if user_funcs is not None:
            maybe = (maybe - _MATH) | set(user_funcs)
        self.k = k = _Kernel(toks, files, g, maybe)
        k.math = user_funcs is not None
        self.toks, self.holders = toks, set(holders)
        self.names: set = set()
        self.control: dict = {}      # _key(stmt) -> runs in uniform control
        self.body_control: dict = {}  # _key(loop) -> its body runs in uniform control
        self.loops: list = []        # the loops that take implicit barriers
        self.ok = False
        try:
            k._check_brackets()
            self.params = k._parse_params()
            self.body, self.decls = _tree.body(toks, k.g)
        except Unsupported:
            return
        if any(t.text in _STOP for t in toks[k.lo:k.hi]):
            return
        for st in S.walk(self.body):
            if st.kind in ("other", "label", "goto", "return") or st.flags & {
                    "rangefor", "condecl", "condinit"}:
                return
        self.ok = True
        self._solve()
        self._pick_loops()

    # ------------------------------------------------------------ analysis

    def expr(self, lo: int, hi: int) -> bool:
        """toks[lo:hi] is a uniform expression (no effects, no memory reads)."""
        if lo >= hi:
            return False
        names = {n for n in self.k._names(lo, hi) if self._resolve(n, lo) in self.names}
        return self.k._pure(lo, hi, names, False)

    def cond(self, st: S.Stmt) -> bool:
        """st (an if or a loop) runs in uniform control and its condition is uniform."""
        return self.ok and self.control.get(_key(st), False) and self.expr(*st.cond)

    def _scopes(self):
        """self.scopes: name -> [(token index of the name, end of its scope, decl, declarator)]."""
        self.scopes = {}

        def add(d, end):
            for dd in d.decls:
                self.scopes.setdefault(dd.name, []).append((dd.name_at, end, d, dd))

        def visit(stmts, end):
            for st in stmts:
                if st.kind == "decl":
                    add(st.decl, end)
                elif st.kind == "compound":
                    visit(st.kids, st.hi)
                else:
                    if st.kind == "for" and st.init is not None and st.init.kind == "decl":
                        add(st.init.decl, st.hi)
                    for kid in st.kids:
                        visit([kid], kid.hi)
        for v in self.params:
            self.scopes.setdefault(v.name, []).append((v.d.name_at, self.k.hi, v.decl, v.d))
        visit(self.body, self.k.hi)

    def _resolve(self, name: str, j: int):
        """The declaration (its name's token index) that `name` at toks[j] names, or None."""
        best = None
        for at, end, _, _ in self.scopes.get(name, ()):
            if at <= j < end and (best is None or at > best):
                best = at
        return best

    def _candidates(self) -> dict:
        """token index of a name -> (decl, declarator) of the variables that may be uniform."""
        k, out = self.k, {}
        params = {v.d.name_at for v in self.params}
        for entries in self.scopes.values():
            for at, _, d, dd in entries:
                if (d.is_static and at not in params) or dd.is_ref or dd.suffix[0] != dd.suffix[1]:
                    continue
                if "*" not in dd.ptr_texts and not _scalar_words(k, d):
                    continue
                if at in params or dd.init_kind == "" or (
                        dd.init_kind == "=" and dd.init[0] < dd.init[1]
                        and self.toks[dd.init[0]].text != "{"):
                    out[at] = (d, dd)
        return out

    def _solve(self):
        from .blocks import _paren_parents, _update
        k, toks = self.k, self.toks
        self._scopes()
        cands = self._candidates()
        decl_stmt = {}                 # token index of a name -> the statement declaring it
        stores = {}                    # token index of a stored name -> (rhs or None, stmt, where)
        for st in S.walk(self.body):
            if st.kind == "decl":
                for dd in st.decl.decls:
                    decl_stmt[dd.name_at] = st
            if st.kind == "expr":
                u = _update(toks, st.lo, st.hi - 1)
                if u is not None:
                    stores[u[0]] = (u[1], st, "stmt")
            if st.kind == "for":
                if st.init is not None and st.init.kind == "decl":
                    for dd in st.init.decl.decls:
                        decl_stmt[dd.name_at] = st          # the loop's outer control
                ranges = [(st.inc, "inc")]
                if st.init is not None and st.init.kind == "expr":
                    ranges.append(((st.init.lo, st.init.hi - 1), "stmt"))
                for (a, b), where in ranges:
                    for x, y in S.split_top(toks, a, b, ","):
                        u = _update(toks, x, y)
                        if u is not None:
                            stores[u[0]] = (u[1], st, where)
        parent = _paren_parents(toks, k.lo, k.hi)
        bad, updates = set(), {}
        for j in range(k.lo, k.hi):
            t = toks[j]
            if t.kind != "id" or t.text not in self.scopes or j in cands:
                continue
            if toks[j - 1].text in (".", "->", "::") or toks[j + 1].text == "::":
                continue
            at = self._resolve(t.text, j)
            if at not in cands:
                continue
            if j in stores:
                updates.setdefault(at, []).append(stores[j])
                continue
            if self._math_arg(j, parent):
                continue
            mod = k._modifies(j, parent)
            if mod == "self" or (mod == "index" and "*" not in cands[at][1].ptr_texts):
                bad.add(at)
        for d in self.decls:          # a store through a reference would not be seen
            for dd in d.decls:
                if (dd.is_ref or ("auto" in d.words and dd.ptr_texts & {"&", "&&"})) \
                        and dd.init_kind:
                    for j in range(*dd.init):
                        if toks[j].kind == "id" and toks[j].text in self.scopes:
                            bad.add(self._resolve(toks[j].text, j))
        names = set(cands) - bad
        while True:
            self.names = names
            self._control()
            drop = set()
            for at in names:
                d, dd = cands[at]
                st = decl_stmt.get(at)
                if st is not None and (not self.control.get(_key(st), False) or (
                        dd.init_kind and not self.expr(*dd.init))):
                    drop.add(at)
                    continue
                for rhs, st, where in updates.get(at, ()):
                    ctl = (self.body_control if where == "inc" else self.control).get(
                        _key(st), False)
                    if not ctl or (rhs is not None and not self.expr(*rhs)):
                        drop.add(at)
                        break
            if not drop:
                return
            names = names - drop

    def _math_arg(self, j: int, parent: dict) -> bool:
        """toks[j] is a whole argument of a call of a pure math function
        (blocks._MATH, the unit defining none of that name), which reads it
        (OpenCL's built-ins take `const T &`: clang's tree calls that a
        binding, not a read)."""
        from .blocks import _MATH
        toks, k = self.toks, self.k
        at = parent.get(j)
        if not k.math or at is None or toks[j - 1].text not in ("(", ",") \
                or toks[j + 1].text not in (")", ","):
            return False
        f = toks[at - 1]
        return f.kind == "id" and f.text in _MATH and f.text not in k.user_funcs \
            and toks[at - 2].text not in (".", "->", "::")

    def _control(self):
        """control[_key(st)]: st runs in uniform control; body_control[_key(loop)]:
        its body (and a for's increment) does."""
        self.control, self.body_control = {}, {}

        def visit(stmts, uni):
            for st in stmts:
                self.control[_key(st)] = uni
                if st.init is not None:
                    self.control[_key(st.init)] = uni
                if st.kind == "if":
                    u = uni and self.expr(*st.cond)
                    for kid in st.kids:
                        visit([kid], u)
                elif st.kind in _LOOPS:
                    # a for without a condition (`for (;;)`): the same for all
                    bare = st.kind == "for" and st.cond[0] >= st.cond[1]
                    u = uni and (bare or self.expr(*st.cond)) and self._exits_ok(st.kids[0])
                    self.body_control[_key(st)] = u
                    visit(st.kids, u)
                elif st.kind == "compound":
                    visit(st.kids, uni)
                else:                    # a switch: its cases may take threads apart
                    visit(st.kids, False)
        visit(self.body, True)

    def _exits_ok(self, st: S.Stmt) -> bool:
        """Every break or continue in st (a loop's body) that leaves the loop
        lies under ifs of uniform conditions only (no switch, no other loop
        between): every thread of a block leaves, or goes on, together."""
        from .blocks import _escapes, _escapes_continue
        if st.kind in _LOOPS:
            return True                  # its breaks are its own
        if st.kind == "switch":
            return not any(_escapes_continue(k) for k in st.kids)
        if st.kind == "if" and not self.expr(*st.cond):
            return not _escapes(st)
        if st.kind in ("if", "compound"):
            return all(self._exits_ok(k) for k in st.kids)
        return st.kind in ("break", "continue") or not _escapes(st)

    def exits(self) -> set:
        """The uniform loop exits: _key of each break or continue that leaves
        a loop holding a barrier whose body runs in uniform control (so every
        if between them has a uniform condition, _exits_ok), and of those ifs
        and the compounds between.  Both paths mark them (tree.mark): the
        block function leaves the loop, or goes to its next iteration, with
        the whole block (gen.py); the fiber variant has soft barriers around
        the ifs, where the block function starts regions (variant.py).  Any
        other break or continue in such a loop sends the kernel to fibers."""
        out = set()
        if not self.ok:
            return out

        def visit(st, chain):
            if st.kind in ("break", "continue"):
                out.add(_key(st))
                out.update(chain)
            elif st.kind in ("if", "compound"):
                for kid in st.kids:
                    visit(kid, chain + [_key(st)])
        for st in S.walk(self.body):
            if st.kind in _LOOPS and st.barrier and self.control.get(_key(st)) \
                    and self.body_control.get(_key(st)):
                visit(st.kids[0], [])
        return out

    # ------------------------------------------------------------- loops

    def _holds(self, st: S.Stmt) -> bool:
        return st.barrier or bool(self.holders) and any(
            t.kind == "id" and t.text in self.holders for t in self.toks[st.lo:st.hi])

    def _calls(self, st: S.Stmt) -> bool:
        """st calls a function (printf, an atomic, a device function...),
        whose effects show the order in which threads run it."""
        from .blocks import _CASTS, _PURE, _TYPEDEFS, _dim_at, _tctx_at
        toks = self.toks
        plain = S.TYPE_WORDS | S.CV_WORDS | _CASTS | _TYPEDEFS | _PURE | {
            "sizeof", "alignof", "decltype", "if", "while", "for", "switch", "return",
            "noexcept", "size_t"}
        j = st.lo
        while j < st.hi:
            dim = _dim_at(toks, j, st.hi)      # threadIdx.x and the like: no call
            if dim is not None:
                j = dim[2]
                continue
            ctx = _tctx_at(toks, j, st.hi) if toks[j].text == "(" else None
            if ctx is not None:
                j = ctx
                continue
            t = toks[j]
            if t.kind == "id" and (t.text == "pyemu_api" or (
                    toks[j + 1].text == "(" and t.text not in plain)):
                return True
            j += 1
        return False

    def _pick_loops(self):
        """PoCL's choice: innermost barrier-free loops entered in uniform
        control, with a uniform condition and no break or continue; of
        those, pyemu takes the ones whose body calls a function (printf,
        atomics, ...), where the order of the threads shows.  A loop that
        only computes keeps running inside one thread loop, where g++
        vectorizes it (transpose's copy loops ran 1.6x slower as a loop of
        thread loops); only a race could tell the difference, and both
        paths make the same choice."""
        from .blocks import _escapes
        toks = self.toks
        real = [st for st in S.walk(self.body) if st.kind == "barrier"
                and toks[st.cond[0]].text not in (IMPLICIT, WARP_CUT)]
        if not real and not any(t.kind == "id" and t.text in self.holders
                                for t in toks[self.k.lo:self.k.hi]):
            return                       # PoCL: none in a kernel without barriers
        if any("auto" in d.words and not d.is_static for d in self.decls):
            # it could then cross a new barrier, which the block function
            # declines (blocks._Kernel._classify): keep both paths alike
            return
        for st in S.walk(self.body):
            if st.kind not in _LOOPS or self._holds(st) or st.flags & {"constexpr"}:
                continue
            if any(x.kind in _LOOPS for x in S.walk(st.kids)):
                continue                 # not innermost
            if _escapes(st.kids[0]):
                continue                 # a break or continue: PoCL's single exit
            if not self._calls(st.kids[0]):
                continue                 # nothing shows the order: vectorize instead
            if self.body_control.get(_key(st)) and self.control.get(_key(st)):
                self.loops.append(st)


def with_loop_barriers(toks: list, files: list, g: S.Group, barrier: str,
                       holders: set = frozenset(), user_funcs=None):
    """(tokens, group) of kernel g with PoCL's implicit loop barriers: a
    `barrier("<implicit barrier>");` at the start and end of the body of each
    loop Uniformity picks; (toks, g) themselves when there is none."""
    u = Uniformity(toks, files, g, holders, user_funcs)
    if not u.loops:
        return toks, g
    return _tree.loop_barriers(toks, g, u.loops, IMPLICIT, name=barrier)
