"""The statements of a function as the regions pass uses them (syntax.Stmt,
Decl, Declarator over token indices), made from the front end's records
(pyemu.compiler.frontend.model.Statement: clang's tree, offsets into the
text the tokens were read from, Tok.pos).

A token the tree does not place (between two statements of a block, other
than a #pragma line, which becomes a 'pragma' statement) or a statement kind
the pass has no place for raises Unsupported: the kernel keeps the fiber path.
"""
from __future__ import annotations

import bisect

from . import syntax as S
from .syntax import Unsupported

BARRIER = "pyemu_barrier"
_SPEC_WORDS = S.TYPE_WORDS | S.CV_WORDS | S.STORAGE_WORDS | {"struct", "class", "union", "enum",
                                                             "typename"}
_PTR = {"*", "&", "&&"}


class Builder:
    """Builds Stmt trees for tokens `toks` (of which `pos` are the offsets)."""

    def __init__(self, toks: list, pos: list = None):
        self.toks = toks
        self.pos = pos if pos is not None else [t.pos for t in toks]
        self.decls: list = []

    # ------------------------------------------------------------ places
    def first(self, off: int) -> int:
        return bisect.bisect_left(self.pos, off)

    def at(self, off: int) -> int:
        j = bisect.bisect_left(self.pos, off)
        if j >= len(self.pos) or self.pos[j] != off:
            raise Unsupported("a statement of the front end's is not where the tokens are")
        return j

    def end(self, off: int) -> int:
        """Index after the token that holds the statement's last character."""
        return bisect.bisect_right(self.pos, off)

    def line(self, j: int) -> int:
        return self.toks[min(j, len(self.toks) - 1)].line

    # -------------------------------------------------------- statements
    def block(self, records, lo: int, hi: int) -> list:
        """The statements of toks[lo:hi] (a block's inside) from `records`."""
        out, j = [], lo
        for r in records:
            got = self.stmt(r)
            for st in got:
                j = self.gap(j, st.lo, out)
                out.append(st)
                j = st.hi
        self.gap(j, hi, out)
        return out

    def gap(self, j: int, to: int, out: list) -> int:
        """Tokens toks[j:to] between statements: #pragma lines, else Unsupported."""
        if to < j:
            raise Unsupported(f"statements overlap at line {self.line(to)}")
        for k in range(j, to):
            if self.toks[k].kind != "pragma":
                raise Unsupported(f"'{self.toks[k].text}' at line {self.toks[k].line} lies "
                                  "outside the statements of the front end's tree")
            out.append(S.Stmt("pragma", k, k + 1))
        return to

    def stmt(self, r) -> list:
        lo, hi = self.first(r.first), self.end(r.last)
        toks = self.toks
        kind = r.kind
        if kind == "unsupported":
            raise Unsupported(r.why)
        if kind == "smem":
            return self.smem(r, lo, hi)
        if kind == "expr" and hi - lo == 5 and [t.text for t in toks[lo:lo + 2]] == [BARRIER, "("] \
                and toks[lo + 2].kind == "str" and [t.text for t in toks[lo + 3:hi]] == [")", ";"]:
            # the whole statement is a call the front end's edits made a
            # barrier (cooperative groups' block sync, parse.cg_sync_call):
            # clang saw a call of a member function there
            st = S.Stmt("barrier", lo, hi, cond=(lo + 2, lo + 3))
            st.barrier = True
            return [st]
        if kind in ("expr", "decl", "other") and any(
                toks[k].text == BARRIER for k in range(lo, hi)):
            raise Unsupported(f"barrier inside an expression at line {toks[lo].line}")
        if kind == "compound":
            kids = self.block(r.kids, lo + 1, hi - 1)
            st = S.Stmt("compound", lo, hi, kids=kids)
        elif kind == "barrier":
            st = S.Stmt("barrier", lo, hi, cond=(self.at(r.cond[0]) + 1, self.at(r.cond[1])))
            st.barrier = True
            return [st]
        elif kind in ("if", "while", "switch", "do"):
            kids = [self.one(k) for k in r.kids]
            st = S.Stmt(kind, lo, hi, kids=kids, cond=(self.at(r.cond[0]) + 1,
                                                       self.at(r.cond[1])),
                        flags=set(r.flags))
        elif kind == "for":
            body = self.one(r.kids[0])
            st = S.Stmt("for", lo, hi, kids=[body], flags=set(r.flags))
            if "rangefor" not in r.flags:
                s1, s2, cl = self.at(r.cond[0]), self.at(r.cond[1]), self.at(r.inc[1])
                st.cond, st.inc = (s1 + 1, s2), (s2 + 1, cl)
                init = self.one(r.init)
                st.init = init
                if init.hi != s1 + 1:
                    raise Unsupported(f"a for loop's init at line {toks[lo].line}")
        elif kind == "expr" and "step" in r.flags:
            # `{E; pyemu_warp_step(); }` (the front end's implicit warp step)
            close = S.match(toks, lo, len(toks)) if toks[lo].text == "{" else -1
            if close < hi:
                raise Unsupported(f"an implicit warp step at line {toks[lo].line}")
            st = S.Stmt("compound", lo, close + 1,
                        kids=[S.Stmt("expr", lo + 1, hi), S.Stmt("expr", hi, close)])
            return [st]
        elif kind == "decl":
            st = S.Stmt("decl", lo, hi, decl=self.decl(r.decl, lo), call=self.call(r))
        elif kind in ("return", "break", "continue", "goto", "empty", "other", "expr"):
            st = S.Stmt(kind, lo, hi, call=self.call(r) if kind == "expr" else ())
        elif kind == "label":
            st = S.Stmt("label", lo, hi, flags=set(r.flags))
        else:
            raise Unsupported(f"a {kind} statement at line {toks[lo].line}")
        if st.kind != "compound" and st.kids:   # a last statement that an implicit warp
            st.hi = max(st.hi, st.kids[-1].hi)    # step grew (its `}` is after clang's end)
        st.barrier = any(k.barrier for k in st.kids) or (st.init is not None and st.init.barrier)
        return [st]

    def call(self, r) -> tuple:
        """Stmt.call of record r: its callee and the index of the call's first token."""
        return (r.call[0], self.at(r.call[1])) if r.call else ()

    def one(self, r) -> S.Stmt:
        got = self.stmt(r)
        if len(got) != 1:
            raise Unsupported(f"statements in a place of one at line {self.line(got[0].lo)}")
        return got[0]

    # ------------------------------------------------------ declarations
    def decl(self, d, lo: int = None) -> S.Decl:
        """The Decl of a front-end Declaration."""
        toks = self.toks
        slo = self.first(d.first) if lo is None else lo
        shi = self.first(d.spec_end)
        out = []
        for x in d.declarators:
            a, name_at = self.first(x.first), self.at(x.at)
            after, end = self.at(x.after), self.at(x.end)
            if toks[name_at].text != x.name:
                raise Unsupported(f"the front end's '{x.name}' is not where the tokens are")
            if x.init_kind == "=":
                init = (self.first(x.init[0]), self.at(x.init[1]))
            elif x.init_kind:
                init = (self.at(x.init[0]) + 1, self.at(x.init[1]))
            else:
                init = (after, after)
            ptr = (a, name_at)
            texts = frozenset(toks[k].text for k in range(*ptr))
            out.append(S.Declarator(x.name, name_at, ptr, (name_at + 1, after), x.init_kind,
                                    init, (a, end), texts, ref=x.ref))
        dd = S.Decl((slo, shi), self.words(slo, shi), out)
        self.decls.append(dd)
        return dd

    def words(self, lo: int, hi: int) -> set:
        """The keywords among the decl-specifiers toks[lo:hi] (outside brackets)."""
        out, depth = set(), 0
        for k in range(lo, hi):
            t = self.toks[k].text
            if t in ("(", "[", "{", "<"):
                depth += 1
            elif t in (")", "]", "}", ">"):
                depth -= 1
            elif t == ">>":
                depth -= 2
            elif depth <= 0 and t in _SPEC_WORDS:
                out.add(t)
        return out

    def smem(self, r, lo: int, hi: int) -> list:
        """A declaration pyemu.compiler.smem replaced: for a __shared__ or
        __local array, `__pyemu_smem__ auto &x = (pyemu_smem<...>());` per
        variable; for extern __shared__, `T *const x = (T *)base;` or, with
        array dimensions, `T (*const x)[n] = ...` (an expression to the pass)."""
        toks = self.toks
        if "dynamic-shared" in r.flags:
            eq = next((k for k in range(lo, hi) if toks[k].text == "="), None)
            if eq is None or toks[hi - 1].text != ";":
                raise Unsupported(f"extern __shared__ at line {toks[lo].line}")
            name_at = eq - 1
            if toks[name_at].kind != "id":
                return [S.Stmt("expr", lo, hi)]
            p = name_at
            while p > lo and toks[p - 1].text in _PTR | S.PTR_QUALS:
                p -= 1
            while p < name_at and toks[p].text not in _PTR:
                p += 1
            texts = frozenset(toks[k].text for k in range(p, name_at))
            d = S.Decl((lo, p), self.words(lo, p),
                       [S.Declarator(toks[name_at].text, name_at, (p, name_at),
                                     (name_at + 1, name_at + 1), "=", (eq + 1, hi - 1),
                                     (p, hi - 1), texts, ref=False)])
            self.decls.append(d)
            return [S.Stmt("decl", lo, hi, decl=d)]
        starts = [k for k in range(lo, hi) if toks[k].text == "__pyemu_smem__"]
        if len(starts) != len(r.names) or not starts or starts[0] != lo:
            raise Unsupported(f"a __shared__ declaration at line {toks[lo].line}")
        out = []
        for n, a in enumerate(starts):
            b = starts[n + 1] if n + 1 < len(starts) else hi
            name_at = a + 3
            if [t.text for t in toks[a + 1:a + 3]] != ["auto", "&"] or \
                    toks[name_at].text != r.names[n] or toks[a + 4].text != "=" or \
                    toks[b - 1].text != ";":
                raise Unsupported(f"a __shared__ declaration at line {toks[lo].line}")
            d = S.Decl((a, a + 2), {"__pyemu_smem__", "auto"},
                       [S.Declarator(r.names[n], name_at, (a + 2, name_at),
                                     (name_at + 1, name_at + 1), "=", (a + 5, b - 1),
                                     (a + 2, b - 1), frozenset({"&"}), ref=True)])
            self.decls.append(d)
            out.append(S.Stmt("decl", a, b, decl=d))
        return out


def _order(stmts: list) -> list:
    """The Decls of a tree in the order of the text (a for loop's init first)."""
    out = []
    for st in S.walk(stmts):
        if st.decl is not None:
            out.append(st.decl)
    return out


def body(toks: list, g: S.Group) -> tuple:
    """(statements, declarations in the order of the text) of group g's body
    toks[g.body[0]:g.body[1]], from the front end's records; Unsupported
    where they cannot be used."""
    if g.tree is not None and g.tree[0] is toks:
        return g.tree[1], g.tree[2]
    if g.origin is not toks:
        # a rewrite that did not give its tree: a bug of the pass
        raise RuntimeError(f"the statements of {g.name or 'a function'} were rewritten "
                           "without their tree")
    if g.stmts is None:
        raise Unsupported(g.unread or "the front end has no statements for it")
    b = Builder(toks, g.pos)
    stmts = b.block(g.stmts, *g.body)
    decls = _order(stmts)
    g.tree = (toks, stmts, decls)
    return stmts, decls


def head(g: S.Group) -> tuple:
    """(template head (lo, hi) or None, parameter list (lo, hi), [Decl] of
    the named parameters) of function group g, in the tokens of its unit
    (a rewritten body leaves the head's tokens where they were)."""
    if not g.parens:
        raise Unsupported("cannot find the function's parameter list")
    b = Builder(g.origin, g.pos)
    o, cl = b.at(g.parens[0]), b.at(g.parens[1])
    tmpl = None
    if g.template_head:
        tmpl = (b.at(g.template_head[0]), b.at(g.template_head[1]) + 1)
    if g.params is None:
        raise Unsupported("cannot read a parameter")
    return tmpl, (o + 1, cl), [b.decl(d) for d in g.params]


# ------------------------------------------------------------------ rewrites

def words(toks: list, lo: int, hi: int) -> set:
    """The keywords among the decl-specifiers toks[lo:hi] (outside brackets)."""
    return Builder(toks, []).words(lo, hi)


def shift(st: S.Stmt, d: int) -> S.Stmt:
    """A copy of statement st (a tree) with every token index moved by d."""
    sh = lambda ab: (ab[0] + d, ab[1] + d) if ab else ab
    dec = None
    if st.decl is not None:
        dec = S.Decl(sh(st.decl.spec), set(st.decl.words),
                     [S.Declarator(x.name, x.name_at + d, sh(x.ptr), sh(x.suffix), x.init_kind,
                                   sh(x.init), sh(x.whole), x.ptr_texts, x.ref)
                      for x in st.decl.decls])
    return S.Stmt(st.kind, st.lo + d, st.hi + d, kids=[shift(k, d) for k in st.kids],
                  cond=sh(st.cond), init=None if st.init is None else shift(st.init, d),
                  inc=sh(st.inc), decl=dec, barrier=st.barrier, flags=set(st.flags),
                  call=(st.call[0], st.call[1] + d) if st.call else ())


class Rewrite:
    """Writes a body's tokens and statements anew, `fn` replacing some
    statements: fn(st, rw) returns None (keep st, its parts rewritten) or
    the statements it wrote through rw in st's place.  A place of one
    statement (a branch, a loop body) that gets several has them in braces.
    The result's statements index the new tokens (Rewrite.done)."""

    def __init__(self, src: list, base: int, fn):
        self.src, self.base, self.fn = src, base, fn
        self.out: list = []
        self.map: dict = {}

    def here(self) -> int:
        return self.base + len(self.out)

    def copy(self, a: int, b: int) -> None:
        """Copies src[a:b]."""
        for j in range(a, b):
            self.map[j] = self.base + len(self.out)
            self.out.append(self.src[j])

    def new(self, tokens: list) -> tuple:
        """Writes tokens of the pass's own; their (lo, hi)."""
        lo = self.here()
        self.out.extend(tokens)
        return lo, self.here()

    def leaf(self, st: S.Stmt) -> S.Stmt:
        """Copies statement st whole (its tokens as they are)."""
        lo = self.here()
        self.copy(st.lo, st.hi)
        return shift(st, lo - st.lo)

    def barrier(self, site: str, like, name: str = BARRIER, site_tok=None) -> S.Stmt:
        """Writes `pyemu_barrier(site);` (site: a string literal's text;
        site_tok: the token to write for it, as warpcut.CutTok, else one is made)."""
        mk = lambda kind, text: S.Tok(kind, text, like.file, like.line)
        lo, hi = self.new([mk("id", name), mk("op", "("), site_tok or mk("str", site),
                           mk("op", ")"), mk("op", ";")])
        st = S.Stmt("barrier", lo, hi, cond=(lo + 2, lo + 3))
        st.barrier = True
        return st

    def stmts(self, stmts: list) -> list:
        out = []
        for st in stmts:
            out += self.stmt(st)
        return out

    def stmt(self, st: S.Stmt) -> list:
        got = self.fn(st, self) if self.fn is not None else None
        return got if got is not None else [self.keep(st)]

    def one(self, st: S.Stmt) -> S.Stmt:
        """st rewritten, in a place of one statement."""
        at = len(self.out)
        got = self.stmt(st)
        if len(got) == 1:
            return got[0]
        like = self.src[st.lo]
        self.out.insert(at, S.Tok("op", "{", like.file, like.line))
        got = [shift(x, 1) for x in got]
        self.map = {j: (k + 1 if k >= self.base + at else k) for j, k in self.map.items()}
        end = self.src[st.hi - 1]
        self.new([S.Tok("op", "}", end.file, end.line)])
        c = S.Stmt("compound", self.base + at, self.here(), kids=got)
        c.barrier = any(x.barrier for x in got)
        return c

    def keep(self, st: S.Stmt) -> S.Stmt:
        """st with its parts rewritten."""
        if not st.kids and st.init is None:
            return self.leaf(st)
        lo = self.here()
        parts = sorted(([st.init] if st.init is not None else []) + list(st.kids),
                       key=lambda x: x.lo)
        cur, done = st.lo, {}
        for p in parts:
            self.copy(cur, p.lo)
            done[id(p)] = self.stmts([p]) if st.kind == "compound" else [self.one(p)]
            cur = p.hi
        self.copy(cur, st.hi)
        m = self.map
        sh = lambda ab: (m[ab[0]], m[ab[1]]) if ab else ab
        kids = [x for k in st.kids for x in done[id(k)]]
        new = S.Stmt(st.kind, lo, self.here(), kids=kids, cond=sh(st.cond),
                     init=None if st.init is None else done[id(st.init)][0], inc=sh(st.inc),
                     flags=set(st.flags))
        new.barrier = any(k.barrier for k in kids) or (new.init is not None and new.init.barrier)
        return new


def loop_barriers(toks: list, g: S.Group, loops: list, site: str, start: bool = True,
                  name: str = BARRIER) -> tuple:
    """(tokens, group) of g with `name(site);` at the start (when `start`)
    and at the end of the body of each loop of `loops` (statements of
    body(toks, g)), a body that is no block put in braces."""
    bodies = {(st.kids[0].lo, st.kids[0].hi) for st in loops}

    def fn(st, rw):
        if (st.lo, st.hi) not in bodies:
            return None
        first, last = toks[st.lo], toks[st.hi - 1]
        if st.kind == "compound":
            lo = rw.here()
            rw.copy(st.lo, st.lo + 1)
            kids = [rw.barrier(site, first, name)] if start else []
            kids += rw.stmts(st.kids) + [rw.barrier(site, last, name)]
            rw.copy(st.hi - 1, st.hi)
        else:
            lo, _ = rw.new([S.Tok("op", "{", first.file, first.line)])
            kids = [rw.barrier(site, first, name)] if start else []
            kids += [rw.keep(st), rw.barrier(site, last, name)]
            rw.new([S.Tok("op", "}", last.file, last.line)])
        c = S.Stmt("compound", lo, rw.here(), kids=kids)
        c.barrier = True
        return [c]
    return rewrite(toks, g, fn)


def rewrite(toks: list, g: S.Group, fn) -> tuple:
    """(tokens, group) of function group g with its body rewritten by fn (see
    Rewrite); the group carries the new statement tree."""
    stmts, _ = body(toks, g)
    lo, hi = g.body
    rw = Rewrite(toks, lo, fn)
    new_stmts = rw.stmts(stmts)
    new = toks[:lo] + rw.out + toks[hi:]
    return new, with_tree(g, new, new_stmts, (lo, lo + len(rw.out)))


def with_tree(g: S.Group, toks: list, stmts: list, body_range: tuple) -> S.Group:
    """Group g for tokens `toks` whose body toks[body_range] has statements `stmts`."""
    from dataclasses import replace
    return replace(g, body=body_range, tree=(toks, stmts, _order(stmts)))


def without_defaults(plist: tuple, decls: list) -> list:
    """The token ranges of parameter list plist (lo, hi) less the default
    arguments (`= e`), which a second declaration of the function may not
    repeat (and whose macros, as NULL, the pass's output has undefined)."""
    out, at = [], plist[0]
    for d in decls:
        x = d.decls[0]
        if x.init_kind == "=":
            out.append((at, x.init[0] - 1))
            at = x.init[1]
    out.append((at, plist[1]))
    return [(a, b) for a, b in out if a < b]


def mark(stmts: list, keys: set):
    """Sets `barrier` on the statements of a tree whose (kind, lo, hi) is in
    keys (uniform.Uniformity.exits: uniform loop exits and the ifs around
    them), which the block function then writes in its skeleton and the
    fiber variant surrounds with soft barriers."""
    if not keys:
        return
    for st in S.walk(stmts):
        if (st.kind, st.lo, st.hi) in keys:
            st.barrier = True
