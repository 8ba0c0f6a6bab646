"""Code generation for pyemu._regions: one kernel's block function.

_Gen walks the statement tree that _regions._Kernel analysed.  Statements
that hold a barrier (the skeleton) are written once per block; runs of
statements between barriers (regions) are wrapped in a loop over the block's
threads.  User tokens keep their file and line through #line directives;
everything pyemu adds goes on the line of the user token before it.
"""
from __future__ import annotations

from . import demand as _demand
from . import intidx
from . import ranges as _ranges
from . import syntax as S
from .blocks import (_CASTS, _DIMS, _PURE, PREFIX as P, Unsupported, _dim_at, _Kernel, _update,
                     _value_end, _Var)
from .inline import IL as INLINED
from .warpcut import EXITS, MARK, PEER, WARP_SITE
from .writer import Writer, cstr as _cstr

MAX_THREADS = 1024   # PYEMU_MAX_THREADS_PER_BLOCK (csrc/pyemu_core.h): a block's threads at most
# the body of a thread loop that runs rarely (inside predicated ifs, the
# version that reads the flags: a span that is not dense; a shuffle's lanes
# that mark their arrival):
# g++ vectorizes no loop that holds an asm statement, and a vectorized loop
# (its vector, epilogue and alias-check versions) is most of a block
# function's compile time
COLD = '__asm__ __volatile__("");'

_RESTRICT = {"__restrict__", "__restrict", "restrict"}
_STORAGE = S.STORAGE_WORDS
_NOT_CALLS = S.TYPE_WORDS | S.CV_WORDS | _CASTS | {
    "sizeof", "alignof", "decltype", "if", "while", "for", "switch", "return", "noexcept"}


def _exits(st: S.Stmt) -> bool:
    """st (a loop's body) holds a uniform exit of that loop (a break or
    continue marked barrier, uniform.Uniformity.exits)."""
    if st.kind in ("break", "continue"):
        return st.barrier
    return st.kind in ("if", "compound") and st.barrier and any(_exits(k) for k in st.kids)


class _Gen(Writer):
    """Writes the block function of one analysed kernel."""

    def __init__(self, k: _Kernel):
        super().__init__(k.toks, k.files)
        self.k = k
        self.label = 0            # numbers labels and condition variables
        self.cur_label = None     # the label a `return` jumps to (inside a region)
        self.has_return = any(st.kind == "return" for st in S.walk(k.body))
        self.exits = any(t.kind == "id" and t.text in EXITS for t in k.toks[k.lo:k.hi])
        self.ints = intidx.int_spans(k, _dim_at)   # index polynomials computed in int
        self.guards: set = set()                  # ... under these conditions
        self.preds: list = []     # (flags, negated): a predicated if's threads (predicated)
        self.demand: dict = {}    # in-place shuffle statements whose loop needs fewer lanes
        self.dense_fixed = None   # thread_loop's two versions inside preds: spans dense or not
        self.loops: list = []     # the skeleton's loops: (label number, exits used: loop_body)

    # ------------------------------------------------------------ output

    def emit(self, lo: int, hi: int, thread: bool = False, skip=(), subst=None):
        """User tokens lo..hi: the block's indices become locals, `return`
        (in a region) marks the thread as exited, index polynomials converted
        to int are computed in int (intidx), and the names in `subst` are
        replaced by their (lo, hi) expressions."""
        toks, j = self.toks, lo
        while j < hi:
            t = toks[j]
            span = self.ints.get(j)
            if span is not None and span[0] <= hi:
                self.tok(t, span[1].text(P, _DIMS))
                self.guards |= span[1].guard(P)
                j = span[0]
                continue
            if subst and t.kind == "id" and t.text in subst and toks[j - 1].text not in (
                    ".", "->", "::"):
                rng, spec = subst[t.text]
                self.tok(t, f"static_cast<{spec}>(")
                self.emit(*rng, thread=thread)
                self.raw(")")
                j += 1
                continue
            dim = _dim_at(toks, j, hi)
            if dim is not None and toks[j - 1].text != "&":
                name = _DIMS[dim[0]]
                self.tok(t, f"{P}{name}{dim[1]}")
                j = dim[2]
                continue
            if t.text in ("__func__", "__FUNCTION__"):
                self.tok(t, _cstr(self.k.g.name))
            elif t.kind == "gen" and t.text == MARK:
                self.tok(t, f"({self.mark()})")
            elif t.kind == "gen" and t.text == PEER:
                # PEER ( ( v ) ): lane lin + pyemu_wa's copy of private v
                # (warpcut's in-place shfl_down); the copies are padded
                # with 32 zeros past the block (lanes that are not there)
                name = toks[j + 3].text
                v = self.lookup(self.peer_chain, name)
                if v is None or v.kind != "private" or [x.text for x in toks[j + 1:j + 6]] != \
                        ["(", "(", name, ")", ")"]:
                    raise Unsupported(f"the variable of a shuffle at line {t.line} has no "
                                      "copy per thread")
                self.tok(t, f"({P}p{v.idx}[{P}lin + pyemu_wa])")
                j += 6
                continue
            elif t.text == "return" and thread:
                self.tok(t, f"{{ {P}ex[{P}lin] = 1; ++{P}nexit; goto {P}l{self.cur_label}; }}")
                j += 2
                continue
            elif j not in skip:
                self.tok(t)
            j += 1

    # ------------------------------------------------------- the function

    def run(self) -> str:
        k = self.k
        self.parts.append("\n")
        if k.tmpl:
            self.emit(*k.tmpl)
        self.raw(f"static bool {P}{k.g.name} (")
        for a, b in k.param_spans:      # the parameters, less default arguments
            self.emit(a, b)
        self.raw(") {")
        self.prologue()
        self.demand = _demand.loops(k)
        at = len(self.parts)
        self.block(k.body, [{v.name: v for v in k.param_vars}])
        self.raw("return true; }")
        if self.guards:     # indices computed in int: decline the block when they may not fit
            # the unsigned bounds (intidx.Poly.guard) in a test of their own,
            # before the doubles: g++'s value ranges lose them at the end of
            # that chain (transpose32.cl's second region stayed scalar)
            ints = sorted(g for g in self.guards if g.endswith("u"))
            flts = sorted(g for g in self.guards if not g.endswith("u"))
            self.parts.insert(at, "".join(f" if (!({' && '.join(c)})) return false;"
                                          for c in (ints, flts) if c))
        return "".join(self.parts)

    def prologue(self):
        self.raw(f"pyemu_thread_ctx &{P}c = pyemu_tctx; volatile pyemu_uint3 *const {P}vt = &{P}c.threadIdx;")
        for short, member in (("bd", "blockDim"), ("bi", "blockIdx"), ("gd", "gridDim"),
                              ("go", "global_offset")):
            self.raw(f"const unsigned {P}{short}x = {P}c.{member}.x, {P}{short}y = {P}c.{member}.y, "
                     f"{P}{short}z = {P}c.{member}.z;")
        self.raw(f"const unsigned {P}n = {P}bdx * {P}bdy * {P}bdz;")
        vs = sorted((v for v in self.k.vars.values() if v.kind in ("private", "remat")),
                    key=lambda v: v.idx)
        for v in vs:
            if "auto" not in v.decl.words:
                self.typedef(v)
        size = " + ".join(f"sizeof({P}t{v.idx})" for v in vs if v.kind == "private")
        if size:   # the copies go on the worker's stack (16 MiB): at most 4 MiB of them
            self.raw(f"if (({size}) * {P}n > (4u << 20)) return false;")
        pad = 32 if any(t.kind == "gen" and t.text == PEER
                        for t in self.toks[self.k.lo:self.k.hi]) else 0
        shared = self.shared_storage(vs)
        for v in vs:
            if v.kind == "private" and v.idx in shared:
                self.raw(f"{P}t{v.idx} *const {P}p{v.idx} = {P}p{shared[v.idx]};")
            elif v.kind == "private":
                t = f"{P}t{v.idx}"
                # 32 more: an in-place shfl_down's lanes past the block read zeros there
                count = f"({P}n + {pad}u)" if pad else f"{P}n"
                self.raw(f"{t} *const {P}p{v.idx} = static_cast<{t} *>(__builtin_alloca_with_align("
                         f"sizeof({t}) * {count}, (alignof({t}) > 64 ? 8 * alignof({t}) : 512)));")
                if pad:
                    self.raw(f"__builtin_memset(static_cast<void *>({P}p{v.idx} + {P}n), 0, "
                             f"sizeof({t}) * {pad}u);")
                if v.where == "param":
                    self.raw(f"for (unsigned {P}i = 0; {P}i < {P}n; ++{P}i) {P}p{v.idx}[{P}i] = {v.name};")
        if any(t.text == WARP_SITE for t in self.toks[self.k.lo:self.k.hi]):
            self.raw(f"if ({P}n > {MAX_THREADS}u) return false; pyemu_warp_block_done(3u);")
        if self.has_return:
            self.raw(f"unsigned char *const {P}ex = static_cast<unsigned char *>(__builtin_alloca({P}n));"
                     f" __builtin_memset({P}ex, 0, {P}n); unsigned {P}nexit = 0;")

    def shared_storage(self, vs: list) -> dict:
        """{y.idx: x.idx} for `T y = x;` (or `= (x)`) where x is a local of
        an inlined function (inline.py's pyemu_il<n>_ names: its lifetime
        ended with the call, and nothing names it after this statement) and
        both cross a barrier with the same declared type: y's copies are
        x's, so its initialization stores each value where it already is
        (g++ drops the loop).  The inliner writes this for every
        `T y = f(a);` whose f returns a variable, e.g. the warp-sum of a
        reduction."""
        toks, k = self.toks, self.k
        by_name = {v.name: v for v in vs if v.kind == "private" and k.declared[v.name] == 1}
        out, used = {}, set()
        for y in vs:
            d = y.d
            if y.kind != "private" or y.where != "chunk" or d.init_kind != "=" or \
                    k.declared[y.name] != 1:
                continue
            lo, hi = d.init
            while hi - lo >= 3 and toks[lo].text == "(" and toks[hi - 1].text == ")":
                lo, hi = lo + 1, hi - 1
            x = by_name.get(toks[lo].text) if hi - lo == 1 and toks[lo].kind == "id" else None
            if x is None or x is y or x.where != "chunk" or not x.name.startswith(INLINED) or \
                    x.idx in used or x.idx in out or x.idx >= y.idx:
                continue
            same = [toks[j].text for j in range(*x.decl.spec)] == \
                [toks[j].text for j in range(*y.decl.spec)]
            plain = all(v.d.ptr[0] == v.d.ptr[1] and v.d.suffix[0] == v.d.suffix[1]
                        and not v.d.is_ref for v in (x, y))
            later = any(t.kind == "id" and t.text == x.name for t in toks[d.whole[1]:k.hi])
            if same and plain and not later:
                out[y.idx] = x.idx
                used.add(x.idx)
        return out

    def typedef(self, v: _Var):
        """typedef of a variable's declared type (less storage class, less a
        top-level restrict, and less a top-level const for private copies,
        which are assigned)."""
        toks = self.toks
        lo, hi = v.decl.spec
        plo, phi = v.d.ptr
        strip = v.kind == "private"
        last_ptr = max((j for j in range(plo, phi) if toks[j].text in ("*", "&", "&&")), default=None)
        skip = set()
        depth = 0
        for j in range(lo, hi):
            w = toks[j].text
            depth += (w == "<") - (w == ">") - 2 * (w == ">>")
            if w in _STORAGE or w in _RESTRICT and depth == 0:
                skip.add(j)
            elif strip and w == "const" and depth == 0 and last_ptr is None:
                skip.add(j)
                v.const = True
        if last_ptr is not None:
            for j in range(last_ptr + 1, phi):
                if strip and toks[j].text == "const":
                    skip.add(j)
                    v.const = True
                elif toks[j].text in _RESTRICT:
                    # the copy's own restrict means nothing to the block function,
                    # and g++ rejects static_cast<T *__restrict__ *>(void *)
                    skip.add(j)
        self.raw("typedef")
        self.emit(lo, hi, skip=skip)
        self.emit(plo, phi, skip=skip)
        self.raw(f"{P}t{v.idx}")
        self.emit(*v.d.suffix)
        self.raw(";")

    # ----------------------------------------------------------- skeleton

    @staticmethod
    def lookup(chain: list, name: str):
        for scope in reversed(chain):
            if name in scope:
                return scope[name]
        return None

    def block(self, stmts: list, chain: list):
        chain = chain + [{}]
        i = 0
        while i < len(stmts):
            if stmts[i].barrier:
                self.skeleton(stmts[i], chain)
                i += 1
                continue
            j = i
            while j < len(stmts) and not stmts[j].barrier:
                j += 1
            self.region(stmts[i:j], chain)
            i = j

    def sub(self, st: S.Stmt, chain: list):
        self.block(st.kids if st.kind == "compound" else [st], chain)

    def site(self, st: S.Stmt):
        b = next(x for x in S.walk([st]) if x.kind == "barrier")
        self.emit(*b.cond)

    def skeleton(self, st: S.Stmt, chain: list):
        if st.kind == "barrier" and self.toks[st.cond[0]].text == WARP_SITE:
            # a warp collective's cut (warpcut.py): nothing for a fast-form
            # shuffle that every lane reaches, the marks' check where its
            # lanes marked their arrival, else the core computes it
            kind = getattr(self.toks[st.cond[0]], "cut", None)
            if kind == "marked":
                self.raw(f"if ({self.mark()}) pyemu_warp_block_done(0u);")
            elif kind != "whole":
                self.raw("pyemu_warp_block_done(0u);")
            return
        if st.kind == "barrier":
            if self.has_return:
                self.raw(f"if ({P}nexit) {P}exited(")
                self.emit(*st.cond)
                self.raw(f", {P}ex, {P}n, {P}nexit);")
            return
        if st.kind in ("break", "continue"):
            # a uniform loop exit (uniform.Uniformity.exits): the whole block
            n, used = self.loops[-1]
            used.add(st.kind)
            self.raw(f"goto {P}{'lb' if st.kind == 'break' else 'lc'}{n};")
            return
        if st.kind == "compound":
            self.raw("{")
            self.block(st.kids, chain)
            self.raw("}")
        elif st.kind == "if" and self.predicable(st, chain):
            self.predicated(st, chain)
        elif st.kind == "if":
            c = self.condition(st, chain)
            self.raw("if (")
            self.emit(*st.cond) if c is None else self.raw(c)
            self.raw(") {")
            self.sub(st.kids[0], chain)
            self.raw("}")
            if len(st.kids) > 1:
                self.raw("else {")
                self.sub(st.kids[1], chain)
                self.raw("}")
        elif st.kind == "while":
            if self.uniform(st.cond, chain):
                self.raw("while (")
                self.emit(*st.cond)
                self.raw(") {")
            else:
                self.raw("for (;;) {")
                c = self.condition(st, chain)
                self.raw(f"if (!{c}) break;")
            self.loop_body(st, chain)
            self.raw("}")
            self.loop_end()
        elif st.kind == "do":
            if self.uniform(st.cond, chain):
                self.raw("do {")
                self.loop_body(st, chain)
                self.raw("} while (")
                self.emit(*st.cond)
                self.raw(");")
            else:
                self.label += 1
                c = f"{P}c{self.label}"
                self.raw(f"bool {c} = false; do {{")
                self.loop_body(st, chain)
                self.agreed(st, chain, c, declare=False)
                self.raw(f"}} while ({c});")
            self.loop_end()
        elif st.kind == "for":
            self.for_loop(st, chain)
            self.loop_end()
        else:
            raise Unsupported(f"a barrier inside {st.kind}")

    def loop_body(self, st: S.Stmt, chain: list):
        """The body of loop st (in the skeleton), in a scope of its own: a
        uniform `continue` inside (uniform.Uniformity.exits) jumps to the
        label at its end (past the body's declarations, before a for's
        increment or a do's condition), a `break` to the one after the loop
        (loop_end)."""
        self.label += 1
        self.loops.append((self.label, set()))
        own = _exits(st.kids[0])
        if own:
            self.raw("{")
        self.sub(st.kids[0], chain)
        if own:
            self.raw("}")
        n, used = self.loops[-1]
        if "continue" in used:
            self.raw(f"{P}lc{n}: ;")

    def loop_end(self):
        n, used = self.loops.pop()
        if "break" in used:
            self.raw(f"{P}lb{n}: ;")

    def mark(self) -> str:
        """Whether a fast-form shuffle here must mark its lanes' arrival
        (warpcut.py): the kernel may exit (return, break, ...), or an
        enclosing predicated if leaves some warp in part."""
        if self.exits:
            return "true"
        if getattr(self, "mark_fixed", None):     # thread_loop's two versions
            return self.mark_fixed
        whole = [f"{f}u" for f, _ in self.preds]
        return f"!({' && '.join(whole)})" if whole else "false"

    def predicable(self, st: S.Stmt, chain: list) -> bool:
        """An if whose condition is not uniform and which holds only warp
        collectives' cuts (no barrier), in one branch: its threads can be
        predicated, since
        a collective, unlike a barrier, is reached by the lanes that take the
        branch (the core checks that its mask names no other lane)."""
        if any(x.kind in ("break", "continue") and x.barrier for x in S.walk([st])):
            return False                 # a uniform loop exit: not predicated
        if self.uniform(st.cond, chain) or not all(
                self.toks[b.cond[0]].text == WARP_SITE for b in S.walk([st]) if b.kind == "barrier"):
            return False
        # cuts in both branches: lanes of one warp at two collectives, which
        # the fiber path names exactly ("lane(s) 1 reaches ... instead")
        return len(st.kids) < 2 or not all(k.barrier for k in st.kids)

    def predicated(self, st: S.Stmt, chain: list):
        """`if (c) A else B` with cuts inside: each thread's c into flags, then
        A's regions for the threads whose flag is set, B's for the others.

        The flags start at 0 (threads that exited, or that an enclosing
        predicated if leaves out, keep it).  Each branch's thread loops run
        over the smallest range of linear indices holding its threads
        (abi.h's pyemu_warp_pred_span: `if (warp == 0)`, `if (tid < 32)`
        run over one warp), testing the flags unless every thread there takes
        the branch (pyemu_warp_pred_dense), so any condition gives the right
        threads; and where every warp's flags agree
        (pyemu_warp_pred_whole), the fast form's shuffles inside skip their
        arrival marks and checks (mark()): each warp arrives whole or not at all.

        Without an else branch, in a block of one row (blockDim.y and .z 1),
        a condition that is a range of threadIdx.x (ranges.py, with `q ==
        u` for q monotone: `warp == 0`) needs no flags: its range is the
        branch's span, dense, and whole where its ends are multiples of 32
        (or the block's end).  Elsewhere the flags, as above."""
        self.label += 1
        f = f"{P}pr{self.label}"
        pl = None
        if len(st.kids) == 1 and not self.preds and not self.exits and not self.has_return:
            pl = _ranges.plan(self, [st], chain, False, eq=True)
            if pl is not None and _ranges.step(pl) != 1:
                pl = None
        self.raw(f"{{ unsigned char {f}[{MAX_THREADS}];")
        if pl is not None:
            self.label += 1
            n = self.label
            self.raw(f"bool {f}k = false, {f}u = false, {f}d0 = false; unsigned {f}a0 = 0, "
                     f"{f}b0 = 0; if ({P}bdy == 1u && {P}bdz == 1u) {{")
            _ranges.open_loop(self, pl, chain, n, lambda c: "")
            self.raw(f"if ({P}rg{n}) {{ {f}k = true; {f}a0 = {P}xlo; "
                     f"{f}b0 = {P}xhi > {P}xlo ? {P}xhi : {P}xlo; }} }} }} }}")
            self.raw(f"if ({f}k) {{ {f}d0 = true; {f}u = {f}a0 == {f}b0 || ({f}a0 % 32u == 0u && "
                     f"({f}b0 % 32u == 0u || {f}b0 == {P}n)); }} else {{")
        self.raw(f"__builtin_memset({f}, 0, {P}n);")

        def body():
            self.raw(f"{f}[{P}lin] = static_cast<bool>((")
            self.emit(*st.cond, thread=True)
            self.raw("));")
        self.thread_loop(chain, [st.cond], body)
        if pl is not None:
            self.raw(f"{f}u = pyemu_warp_pred_whole({f}, {P}n); pyemu_warp_pred_span({f}, {P}n, 1, "
                     f"&{f}a0, &{f}b0); {f}d0 = pyemu_warp_pred_dense({f}, {f}a0, {f}b0, 1); }}")
        else:
            self.raw(f"const bool {f}u = pyemu_warp_pred_whole({f}, {P}n);")
            for n in range(len(st.kids)):
                self.raw(f"unsigned {f}a{n}, {f}b{n}; pyemu_warp_pred_span({f}, {P}n, {1 - n}, "
                         f"&{f}a{n}, &{f}b{n}); const bool {f}d{n} = pyemu_warp_pred_dense({f}, "
                         f"{f}a{n}, {f}b{n}, {1 - n});")
        for n, kid in enumerate(st.kids):
            self.preds.append((f, n == 1))
            self.raw("{")
            self.sub(kid, chain)
            self.raw("}")
            self.preds.pop()
        self.raw("}")

    def for_loop(self, st: S.Stmt, chain: list):
        toks = self.toks
        scope = {}
        chain = chain + [scope]
        self.raw("{")
        init = st.init
        if init.kind == "decl":
            for dd in init.decl.decls:
                v = self.k.vars[dd.name_at]
                if v.kind == "uniform":
                    self.emit(*init.decl.spec)
                    self.emit(*dd.whole)
                    self.raw(";")
                elif v.kind == "private" and dd.init_kind:
                    self.thread_loop(chain, [dd.whole], lambda v=v: self.assign_init(v))
                scope[v.name] = v
        elif init.kind == "expr":
            self.updates(init.lo, init.hi - 1, chain)
        lo, hi = st.inc
        parts = S.split_top(toks, lo, hi, ",") if lo < hi else []
        if self.uniform(st.cond, chain) and all(self.uniform_update(a, b, chain) for a, b in parts):
            self.raw("for (;")
            self.emit(*st.cond)
            self.raw(";")
            self.emit(lo, hi)
            self.raw(") {")
            self.loop_body(st, chain)
            self.raw("}")
        else:
            self.raw("for (;;) {")
            if st.cond[0] < st.cond[1]:
                c = self.condition(st, chain)
                if c is None:
                    self.raw("if (!(")
                    self.emit(*st.cond)
                    self.raw(")) break;")
                else:
                    self.raw(f"if (!{c}) break;")
            self.loop_body(st, chain)
            self.updates(lo, hi, chain)
            self.raw("}")
        self.raw("}")

    def uniform_names(self, chain: list) -> set:
        names = set(self.k._template_names()) if self.k.tmpl else set()
        seen = set()
        for scope in reversed(chain):
            for name, v in scope.items():
                if name not in seen:
                    seen.add(name)
                    if v.kind == "uniform":
                        names.add(name)
        return names

    def uniform(self, rng: tuple, chain: list) -> bool:
        lo, hi = rng
        return lo == hi or self.k._pure(lo, hi, self.uniform_names(chain), False)

    def uniform_update(self, a: int, b: int, chain: list) -> bool:
        u = _update(self.toks, a, b)
        if u is None:
            return False
        v = self.lookup(chain, self.toks[u[0]].text)
        return v is not None and v.kind == "uniform" and (
            u[1] is None or self.k._pure(*u[1], self.uniform_names(chain), False))

    def updates(self, lo: int, hi: int, chain: list):
        """A loop init or increment: uniform updates once, the rest per thread."""
        if lo >= hi:
            return
        pending = []
        for a, b in S.split_top(self.toks, lo, hi, ",") + [(hi, None)]:
            if b is not None and not self.uniform_update(a, b, chain):
                pending.append((a, b))
                continue
            if pending:
                todo = list(pending)

                def body(todo=todo):
                    for x, y in todo:
                        self.emit(x, y, thread=True)
                        self.raw(";")
                self.thread_loop(chain, todo, body)
                pending = []
            if b is not None:
                self.emit(a, b)
                self.raw(";")

    def condition(self, st: S.Stmt, chain: list):
        """None when st's condition is uniform (emit it as it is), else the
        name of a bool that every thread's evaluation agreed on."""
        if self.uniform(st.cond, chain):
            return None
        self.label += 1
        c = f"{P}c{self.label}"
        self.agreed(st, chain, c, declare=True)
        return c

    def agreed(self, st: S.Stmt, chain: list, c: str, declare: bool):
        """c = st's condition, which every thread must agree on: read from
        thread 0 when uniform.Uniformity proves it uniform (per-thread copies
        that hold one value; such a kernel has no return, so thread 0 runs),
        else every thread's evaluation compared (check)."""
        u = self.k.uni
        if u is None or not u.cond(st):
            self.check(st, chain, c, declare)
            return
        if declare:
            self.raw(f"bool {c} = false;")
        binds = self.bindings(chain, self.k._names(*st.cond))
        self.raw(f"{{ const unsigned long {P}lin = 0; const unsigned {P}tx = 0, {P}ty = 0, "
                 f"{P}tz = 0; (void){P}lin; (void){P}tx; (void){P}ty; (void){P}tz; {{")
        for v in binds:
            self.bind(v)
        self.raw(f"{c} = static_cast<bool>((")
        self.emit(*st.cond, thread=True)
        self.raw(")); } }")

    def check(self, st: S.Stmt, chain: list, c: str, declare: bool):
        n = self.label
        if declare:
            self.raw(f"bool {c} = false;")
        self.raw(f"{{ bool {P}f{n} = true; unsigned {P}r{n} = 0;")

        def body():
            self.raw(f"const bool {P}v = static_cast<bool>((")
            self.emit(*st.cond, thread=True)
            self.raw(f")); if ({P}f{n}) {{ {c} = {P}v; {P}f{n} = false; {P}r{n} = {P}lin; }} "
                     f"else if ({P}v != {c}) pyemu_barrier_diverged(")
            self.site(st)
            self.raw(f", {P}r{n}, 0);")
        self.thread_loop(chain, [st.cond], body, precise=True)
        self.raw("}")

    # ------------------------------------------------------------- regions

    def thread_loop(self, chain: list, ranges: list, body, label: bool = False,
                    precise: bool = False, plan=None, ranged=None, ivdep: bool = False,
                    demand=None):
        """`body` (the tokens in `ranges`) once per thread of the block, the
        variables it names bound.

        The region reads its indices from the loop counters.  pyemu_tctx gets
        them too (volatile stores: g++ would drop them) when the region may
        need them there: a call (a device function, printf, assert, an atomic)
        whose message names the thread.  Without, g++ may vectorize the loop.
        Something that can only fault (a pointer access, a division) needs no
        store: the core runs a block that faulted again on the precise path
        (pyemu_tctx.precise, csrc/block.c), which names the thread.

        With a `plan` (ranges.py), each row runs `ranged` (the body less its
        `if`) over the row's range of threadIdx.x where the plan's guard
        holds, else `body`.  With a `demand` (demand.py: the name of a shuffle
        loop's offset), a row of whole warps runs lanes 0..15 of each warp
        where the offset is at most 16 (demand.py says that is enough)."""
        m = self.mark()
        marked = m not in ("true", "false") and any(t.kind == "gen" and t.text == MARK
                                                    for a, b in ranges for t in self.toks[a:b])
        if self.preds and self.dense_fixed is None and not label:
            # inside predicated ifs: one loop where every span is dense (no
            # flag read: it vectorizes) and, for a shuffle whose form the run
            # decides (warpcut's MARK), every warp whole (the in-place form);
            # one cold loop (COLD) for the rest, which reads the flags and
            # MARK (a loop with a return's label stays one: the label once)
            dense = " && ".join(f"{f}d{int(neg)}" for f, neg in self.preds)
            self.raw(f"if ({f'!({m}) && ' if marked else ''}{dense}) {{")
            for fixed in (True, False):
                self.dense_fixed = fixed
                self.mark_fixed = "false" if fixed and marked else None
                try:
                    self.thread_loop(chain, ranges, body, label, precise, plan, ranged, ivdep,
                                     demand)
                finally:
                    self.dense_fixed = None
                    self.mark_fixed = None
                self.raw("} else {" if fixed else "}")
            return
        if marked and self.dense_fixed is None:
            # a shuffle whose form the run decides, in a loop with a
            # return's label: one loop for each form, so that neither tests
            # it per thread; the marking one is cold (COLD)
            self.raw(f"if ({m}) {{")
            for fixed in ("true", "false"):
                self.mark_fixed = fixed
                try:
                    self.thread_loop(chain, ranges, body, label, precise, plan, ranged, ivdep,
                                     demand)
                finally:
                    self.mark_fixed = None
                self.raw("} else {" if fixed == "true" else "}")
            return
        if ranges and self.mark() == "false" and all(
                self.toks[a].text == "if" and self.toks[a + 2].kind == "gen"
                and self.toks[a + 2].text == MARK and self.toks[a + 3].text == ")"
                for a, b in ranges):
            return      # a marking shuffle's records (warpcut.py) where it does not mark: nothing
        names = set().union(*(self.k._names(a, b) for a, b in ranges)) if ranges else set()
        binds = self.bindings(chain, names)
        precise = precise or self.may_fault(
            ranges + [v.d.init for v in binds if v.kind == "remat"]) == "call"
        def index(c: str) -> str:
            if not precise:
                return ""
            if self.k.implicit:   # as run_block does: g++ may sink them where nothing reads them
                return f"{P}c.threadIdx.{c} = {P}t{c};"
            return f"{P}vt->{c} = {P}t{c};"
        def row(lo: str, hi: str, lin: str, what, step: int = 1):
            if self.preds:      # the row's part of the predicated ifs' ranges (predicated)
                spans = [(f"{f}a{int(neg)}", f"{f}b{int(neg)}") for f, neg in self.preds]
                self.raw(f"{{ unsigned long {P}pa = {spans[0][0]}, {P}pb = {spans[0][1]};")
                for a, b in spans[1:]:
                    self.raw(f"if ({a} > {P}pa) {P}pa = {a}; if ({b} < {P}pb) {P}pb = {b};")
                self.raw(f"unsigned {P}ra = {lo}, {P}rb = {hi}; "
                         f"if ({P}pa > {P}row && {P}pa - {P}row > {P}ra) "
                         f"{P}ra = {P}pa - {P}row < {P}rb ? (unsigned)({P}pa - {P}row) : {P}rb; "
                         f"if ({P}pb < {P}row + {P}rb) "
                         f"{P}rb = {P}pb > {P}row + {P}ra ? (unsigned)({P}pb - {P}row) : {P}ra;")
                if step > 1:    # the first of lo's stride at or after the range's start
                    self.raw(f"{P}ra = {lo} + ({P}ra - {lo} + {step - 1}u) / {step}u * {step}u;")
                lo, hi, lin = f"{P}ra", f"{P}rb", f"{P}row + {P}ra"
            inc = (f"++{P}tx, ++{P}lin" if step == 1 else
                   f"{P}tx += {step}u, {P}lin += {step}u")
            if demand is not None and step == 1 and not self.has_return and not label and \
                    not precise and self.dense_fixed is not False and self.mark() == "false":
                # lanes 0..15 of each warp (demand.py), where the row's
                # [lo, hi) is whole warps (blockDim.x a multiple of 32, so
                # that threadIdx.x % 32 is the lane) and the offset at most
                # 16: warp after warp (a warp's store is old when the next
                # step loads it), each one vector operation: a loop of
                # constant length from 0, not unrolled before g++ vectorizes.
                # The statement (`v op= __shfl_down_sync(full, v, off)`)
                # reads the row and tx only for the lane, (row + tx) & 31:
                # here row 0 and tx the lane, so that g++ sees that every
                # source lane (k + off <= 31) is in the warp
                self.raw(f"if ({P}bdx % 32u == 0u && {demand} <= 16 && (({lo}) & 31u) == 0u && "
                         f"(({hi}) & 31u) == 0u) {{ for (unsigned {P}wb = {lo}; {P}wb < {hi}; "
                         f"{P}wb += 32u) {{ const unsigned long {P}l0 = {lin} + ({P}wb - ({lo}));"
                         f"\n#pragma GCC ivdep\n#pragma GCC unroll 1\n"
                         f"for (unsigned {P}k = 0; {P}k < 16u; ++{P}k) {{ const unsigned long "
                         f"{P}row = 0; const unsigned {P}tx = {P}k; const unsigned long {P}lin = "
                         f"{P}l0 + {P}k; {{")
                for v in binds:
                    self.bind(v)
                what()
                self.raw("} } } } else ")
            if ivdep and step == 1 and not self.has_return:
                self.raw(f"{{ unsigned long {P}lin = {lin};\n#pragma GCC ivdep\n"
                         f"for (unsigned {P}tx = {lo}; {P}tx < {hi}; {inc}) {{ {index('x')}")
            else:
                self.raw(f"{{ unsigned long {P}lin = {lin}; for (unsigned {P}tx = {lo}; {P}tx < {hi}; "
                         f"{inc}) {{ {index('x')}")
            if self.has_return:
                self.raw(f"if ({P}ex[{P}lin]) continue;")
            if self.dense_fixed is False or getattr(self, "mark_fixed", None) == "true":
                self.raw(COLD)
            if self.dense_fixed is not True:
                for f, neg in self.preds:
                    self.raw(f"if (!{f}d{int(neg)} && {'' if neg else '!'}{f}[{P}lin]) continue;")
            self.raw("{")
            for v in binds:
                self.bind(v)
            what()
            self.raw("}")
            if label:
                self.raw(f"{P}l{self.cur_label}: ;")
            self.raw("} }" + ("}" if self.preds else ""))

        if plan is not None:
            self.label += 1
            n = self.label
            self.raw("{")
            _ranges.open_loop(self, plan, chain, n, index)
            self.raw(f"if ({P}rg{n}) ")
            row(f"{P}xlo", f"{P}xhi", f"{P}row + {P}xlo", ranged, _ranges.step(plan))
            self.raw("else ")
        else:
            self.raw(f"{{ for (unsigned {P}tz = 0; {P}tz < {P}bdz; ++{P}tz) {{ {index('z')} "
                     f"for (unsigned {P}ty = 0; {P}ty < {P}bdy; ++{P}ty) {{ {index('y')} "
                     f"const unsigned long {P}row = ((unsigned long){P}tz * {P}bdy + {P}ty) * {P}bdx;")
        row("0", f"{P}bdx", f"{P}row", body)
        self.raw("} } }")

    def may_fault(self, ranges: list):
        """"call" when tokens in `ranges` may call a function or read
        pyemu_tctx's indices; else "trap" when they may fault: pointer
        accesses (anything but arrays declared in the kernel indexed by
        name), unary *, ->, / and %; else None."""
        toks, k = self.toks, self.k
        trap = None
        for lo, hi in ranges:
            j = lo
            while j < hi:
                dim = _dim_at(toks, j, hi)
                if dim is not None:
                    j = dim[2]
                    continue
                w = toks[j].text
                j += 1
                if w in ("new", "delete", "throw"):
                    return "call"
                if w in ("/", "%", "/=", "%=", "->", "->*", ".*"):
                    trap = "trap"
                if w.startswith("pyemu_tctx"):
                    return "call"
                i = j - 1
                if w == "*" and not _value_end(toks[i - 1]):
                    trap = "trap"
                if w == "[":
                    prev = toks[i - 1]
                    if not (prev.text == "]" or (prev.kind == "id" and prev.text in k.arrays)):
                        trap = "trap"
                if w == "(" and i > lo:
                    prev = toks[i - 1]
                    if prev.kind == "id" and prev.text not in _NOT_CALLS and not (
                            prev.text in _PURE and prev.text not in k.user_funcs):
                        return "call"
                    if prev.text == ">" and not self.cast_before(i - 1):
                        return "call"
        return trap

    def cast_before(self, j: int) -> bool:
        """True when the '>' at toks[j] closes static_cast<...> and the like."""
        toks, depth = self.toks, 0
        while j > self.k.lo:
            depth += {">": 1, ">>": 2, "<": -1}.get(toks[j].text, 0)
            if depth <= 0:
                return toks[j - 1].text in _CASTS
            j -= 1
        return False

    def bindings(self, chain: list, names: set) -> list:
        """The private and recomputed variables a region needs, dependencies first."""
        out, todo = {}, list(names)
        while todo:
            v = self.lookup(chain, todo.pop())
            if v is None or v.kind not in ("private", "remat") or id(v) in out:
                continue
            out[id(v)] = v
            if v.kind == "remat":
                todo.extend(self.k._names(*v.d.init))
        return sorted(out.values(), key=lambda v: v.order)

    def bind(self, v: _Var):
        if v.kind == "private":
            const = " const" if v.const else ""
            self.raw(f"{P}t{v.idx}{const} &{v.name} = {P}p{v.idx}[{P}lin];")
        else:
            self.raw("auto" if "auto" in v.decl.words else f"{P}t{v.idx}")
            self.raw(f"{v.name} = (")
            self.emit(*v.d.init, thread=True, subst=v.subst)
            self.raw(");")

    def constructed(self, v: _Var) -> bool:
        """True when a variable declared without initializer may be of a class
        type (its copy must be default-constructed, not left as it is)."""
        toks = self.toks
        words = [toks[j] for j in range(*v.decl.spec) if toks[j].text not in _STORAGE]
        return not v.d.ptr_texts & {"*"} and any(
            t.kind == "id" and t.text not in S.TYPE_WORDS | S.CV_WORDS for t in words)

    def assign_init(self, v: _Var):
        """Stores the initial value of a private variable in its copy."""
        d = v.d
        if d.suffix[0] != d.suffix[1]:          # an array: through an initialized temporary
            self.raw(f"{{ {P}t{v.idx} {P}i" + (" =" if d.init_kind == "=" else " {"))
            self.emit(*d.init, thread=True)
            self.raw(("" if d.init_kind == "=" else "}") + f"; __builtin_memcpy({P}p{v.idx} + {P}lin, "
                     f"&{P}i, sizeof({P}t{v.idx})); }}")
            return
        self.raw(f"{P}p{v.idx}[{P}lin] =")
        if d.init_kind == "=" and self.toks[d.init[0]].text != "{":
            self.raw("(")
            self.emit(*d.init, thread=True)
            self.raw(");")
        elif d.init_kind == "=":
            self.raw(f"{P}t{v.idx}")
            self.emit(*d.init, thread=True)
            self.raw(";")
        else:
            self.raw(f"{P}t{v.idx} " + d.init_kind)
            self.emit(*d.init, thread=True)
            self.raw((")" if d.init_kind == "(" else "}") + ";")

    def fission(self, stmts: list, chain: list):
        """Where to split a region `S...; if (c) B` in two thread loops: at
        the if, when S only computes the threads' own variables and the if
        alone runs over ranges (ranges.py: `v = x; if (lane == 0) s[w] = v;`
        then runs B for each warp's lane 0 only), else None.

        S may only read and write variables of the kernel's own (parameters,
        per-thread copies, recomputed and uniform values, of arithmetic or
        pointer types; no __shared__ or static one, no array element, no
        access through a pointer, no call), so no thread's S
        reads or writes what another's S or B does, and running every
        thread's S before any thread's B gives what the single loop gives.
        S declares no variable that lives in the region only (it would not
        reach the second loop)."""
        live = [j for j, st in enumerate(stmts) if st.kind not in ("empty", "pragma")]
        if len(live) < 2:
            return None
        last = stmts[live[-1]]
        if last.kind != "if" or len(last.kids) != 1 or last.flags or last.barrier:
            return None
        k, toks = self.k, self.toks
        scope = dict(chain[-1])
        allowed = S.TYPE_WORDS | S.CV_WORDS | _CASTS | {"sizeof"}
        for st in stmts[:live[-1]]:
            if st.kind in ("empty", "pragma"):
                continue
            if st.kind not in ("expr", "decl"):
                return None
            if st.kind == "decl":
                if st.decl.is_static:
                    return None
                for dd in st.decl.decls:
                    v = k.vars.get(dd.name_at)
                    if v is None or v.kind not in ("private", "remat", "uniform") or dd.is_ref:
                        return None
                    scope[v.name] = v
            if self.may_fault([(st.lo, st.hi)]) is not None:
                return None
            j = st.lo
            while j < st.hi:
                dim = _dim_at(toks, j, st.hi)
                if dim is not None:
                    j = dim[2]
                    continue
                t = toks[j]
                if t.text in ("[", "->", ".", "asm", "__asm__", "this", "&&") or (
                        t.text == "&" and not _value_end(toks[j - 1])):
                    return None
                if t.kind == "id" and t.text not in allowed:
                    v = scope.get(t.text) or self.lookup(chain, t.text)
                    if v is None or v.kind not in ("private", "remat", "uniform", "local") or \
                            v.decl is None or v.d is None or v.decl.is_static or \
                            "&" in v.d.ptr_texts or "&&" in v.d.ptr_texts:
                        return None
                    # a pointer, or an arithmetic type: no operator of a class
                    if "*" not in v.d.ptr_texts and not _ranges._plain(
                            toks, v.decl.spec, _ranges._PLAIN_WORDS | {"volatile"}):
                        return None
                j += 1
        if _ranges.plan(self, [last], chain[:-1] + [scope], False) is None:
            return None
        return live[-1]

    def region(self, stmts: list, chain: list):
        """Statements between barriers: hoisted declarations, then a thread
        loop (two where fission() splits them)."""
        outer = getattr(self, "peer_chain", None)
        self.peer_chain = chain     # where PEER's variable is looked up
        try:
            self._region(stmts, chain)
        finally:
            self.peer_chain = outer

    def _region(self, stmts: list, chain: list):
        k, scope = self.k, chain[-1]
        stmts = list(stmts)
        while stmts and stmts[-1].kind == "pragma":
            stmts.pop()
        split = self.fission(stmts, chain)
        if split is not None:
            self.region(stmts[:split], chain)
            self.region(stmts[split:], chain)
            return
        pre, items, own, inside = [], [], [], set()
        for st in stmts:
            if st.kind != "decl":
                items.append(st)
                continue
            vs = [k.vars[dd.name_at] for dd in st.decl.decls]
            own += vs
            if st.decl.is_static and any(v.crossing for v in vs):
                refs = k._names(st.lo, st.hi) - {v.name for v in vs}
                if not all(k._hoistable(v, False) for v in vs) or refs & inside:
                    raise Unsupported(f"a static declaration at line {self.toks[st.lo].line} "
                                      "cannot move out of its region")
                pre.append(("stmt", st, None))
                continue
            for v in vs:
                if v.kind == "uniform":
                    pre.append(("decl", st, v))
                else:
                    inside.add(v.name)
            if any(v.kind != "uniform" for v in vs):
                items.append(st)
        for what, st, v in pre:
            if what == "stmt":
                self.emit(st.lo, st.hi)
            else:
                self.emit(*st.decl.spec)
                self.emit(*v.d.whole)
                self.raw(";")
        live = [st for st in items if st.kind not in ("empty", "pragma") and not (
            st.kind == "decl" and all(k.vars[dd.name_at].kind in ("uniform", "remat") or (
                k.vars[dd.name_at].kind == "private" and not dd.init_kind
                and not self.constructed(k.vars[dd.name_at])) for dd in st.decl.decls))]
        if live:
            names = set().union(*(k._names(st.lo, st.hi) for st in items))
            ret = any(x.kind == "return" for x in S.walk(items))
            if ret:
                self.label += 1
                self.cur_label = self.label
            bound = {v.name for v in self.bindings(chain, names)}
            pl = _ranges.plan(self, items, chain, ret)
            ranged = None
            if pl is not None:
                def ranged():
                    self.region_body(pl.decls + [pl.if_stmt.kids[0]], set(bound))
            # an in-place shfl_down alone in its loop: its only loop-carried
            # dependence is its read ahead (lane lin + pyemu_wa's copy, not
            # yet written), which vector loads before stores keep: without
            # the pragma g++ versions the loop and runs offsets below its
            # vector length scalar
            alone = len(items) == 1 and items[0].kind == "expr" and any(
                t.kind == "gen" and t.text == PEER for t in self.toks[items[0].lo:items[0].hi])
            self.thread_loop(chain, [(st.lo, st.hi) for st in items],
                             lambda: self.region_body(items, set(bound)), label=ret,
                             plan=pl, ranged=ranged, ivdep=alone,
                             demand=self.demand.get(items[0].lo) if alone else None)
            if ret:
                self.raw(f"if ({P}nexit == {P}n) return true;")
        for v in own:
            if v.kind != "local":
                scope[v.name] = v

    def region_body(self, items: list, bound: set):
        opened = 0
        k = self.k
        for st in items:
            if st.kind != "decl":
                self.emit(st.lo, st.hi, thread=True)
                continue
            vs = [k.vars[dd.name_at] for dd in st.decl.decls]
            if all(v.kind in ("local", "remat") for v in vs):
                if any(v.name in bound for v in vs):
                    self.raw("{")
                    opened += 1
                self.emit(st.lo, st.hi, thread=True)
                bound |= {v.name for v in vs}
                continue
            for v in vs:
                if v.kind == "private":
                    self.raw("{")
                    opened += 1
                    if v.d.init_kind:
                        self.assign_init(v)
                    elif self.constructed(v):
                        self.raw(f"{P}p{v.idx}[{P}lin] = {P}t{v.idx}();")
                    self.bind(v)
                elif v.kind in ("local", "remat"):
                    if v.name in bound:
                        self.raw("{")
                        opened += 1
                    self.emit(*st.decl.spec, thread=True)
                    self.emit(*v.d.whole, thread=True)
                    self.raw(";")
                bound.add(v.name)
        self.raw("}" * opened)
