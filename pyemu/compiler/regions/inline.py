"""Inlining of the device functions that reach a barrier, as PoCL does.

A kernel that calls `void f(params) { ...; __syncthreads(); ... }` as a
statement of its own (`f(a, b);`) gets f's body in place of the call, so that
its block function (and its fiber variant) cuts regions at f's barriers as if
they were written in the kernel:

    P0 pyemu_il3_p0 = (a); P1 pyemu_il3_p1 = (b); <f's body, its names renamed>

(f's parameters and locals renamed pyemu_il<n>_<name>, so that no braces are
needed and the regions run on across the call, as PoCL's do).  f's tokens keep their file and line, so diagnostics point
at f.  What this cannot inline returns None and the kernel takes the fiber
path: a void function with a `return` statement, one returning a value
other than by one `return e;` at its end (it is inlined when called as
`f(a);`, `v = f(a);`, `v op= f(a);` or `T v = f(a);`: the body, then
`v = (e);`), a template, an overloaded name, array or variadic parameters,
a call inside an expression (`if (f(a))`, `x = 1 + f(a)`), recursion, or
nesting deeper than _DEPTH.
"""
from __future__ import annotations

from typing import Optional

from . import syntax as S
from . import tree as _tree
from .syntax import Tok, Unsupported

IL = "pyemu_il"
_DEPTH = 8


class _Func:
    def __init__(self, toks, g: S.Group):
        self.toks, self.g = toks, g
        lo, hi = g.head
        words = [t.text for t in toks[lo:hi]]
        if "template" in words or "operator" in words:
            raise Unsupported("a template or operator")
        _, (plo, _), decls = _tree.head(g)
        ret = [t.text for t in toks[lo:plo - 2]]
        self.value = "void" not in ret    # returns a value: one `return e;`, its last statement
        if "*" in ret or "&" in ret or "auto" in ret:
            raise Unsupported(f"'{g.name}' returns a pointer or a reference")
        self.params = []          # (spec (lo, hi), declarator)
        for d in decls:
            dd = d.decls[0]
            if dd.suffix[0] != dd.suffix[1] or dd.init_kind:
                raise Unsupported(f"an array or default parameter of '{g.name}'")
            self.params.append((d.spec, dd))
        returns = [j for j in range(g.body[0], g.body[1]) if toks[j].text == "return"]
        if any(toks[j].text in ("goto", "co_return", "...") for j in range(g.body[0], g.body[1])):
            raise Unsupported(f"'{g.name}' has a goto")
        if not self.value and returns:
            raise Unsupported(f"'{g.name}' has a return statement")
        # the names f declares (renamed where it is inlined) and those it
        # takes from outside (its globals, types, functions): these must mean
        # the same where the kernel's code goes (_call)
        stmts, locals_ = _tree.body(toks, g)
        if any(st.kind == "other" for st in S.walk(stmts)):
            # a typedef, a local class, `using`: not renamed, it would be
            # the kernel's from the call on (no braces around the body)
            raise Unsupported(f"'{g.name}' declares a type or uses `using`")
        self.declared = frozenset(dd.name for d in decls + locals_ for dd in d.decls)
        self.free = frozenset(_free(toks, g.head[0], g.body[1])) - self.declared
        if self.value:
            last, _ = _tree.body(toks, g)
            if len(returns) != 1 or not last or last[-1].kind != "return" or \
                    last[-1].lo != returns[0] or last[-1].hi - last[-1].lo < 3:
                raise Unsupported(f"'{g.name}' returns a value other than by one `return e;` "
                                  "at its end")


def inline_calls(toks: list, groups: list, g: S.Group, holders: set, internal) -> Optional[tuple]:
    """(group, tokens) of kernel `g` with the calls of the functions in
    `holders` inlined, or None when one cannot be."""
    funcs, seen = {}, set()
    for f in groups:
        if f.kind in ("function", "template") and f.name in holders:
            if f.name in seen or f.kind == "template" or internal(toks[f.head[0]].file):
                return None           # overloaded, a template, or one of pyemu's own
            seen.add(f.name)
            try:
                funcs[f.name] = _Func(toks, f)
            except (Unsupported, StopIteration):
                return None
    if set(holders) - set(funcs) & _names(toks, *g.body):
        return None
    if g.space is None or any(f.g.space != g.space for f in funcs.values()):
        # a function of another namespace (`using a::f;`): its body's names
        # are looked up there, not where the kernel is
        return None
    counter = [0]
    lo, hi = g.body
    try:
        tmpl, _, params = _tree.head(g)
        _, decls = _tree.body(toks, g)
        outer = frozenset(dd.name for d in params + decls for dd in d.decls)
        for st in S.walk(_tree.body(toks, g)[0]):
            if st.kind == "other":     # a typedef, a local class, `using` of the kernel's
                names = _names(toks, st.lo, st.hi)
                if "using" in names:
                    return None
                outer |= names
        if tmpl is not None:
            outer |= _names(toks, *tmpl)
        body, stmts = _expand(toks, g, funcs, holders, counter, 0, lo, outer)
    except Unsupported:
        return None
    new = toks[:lo] + body + toks[hi:]
    return _tree.with_tree(g, new, stmts, (lo, lo + len(body))), new


def _names(toks, lo, hi) -> set:
    return {t.text for t in toks[lo:hi] if t.kind == "id"}


def _free(toks, lo, hi) -> set:
    """The names in toks[lo:hi] as the renaming in _call sees them (not a
    member after . -> ::, nor a qualifier before ::)."""
    return {toks[k].text for k in range(lo, hi) if toks[k].kind == "id"
            and toks[k - 1].text not in (".", "->", "::")
            and (k + 1 >= len(toks) or toks[k + 1].text != "::")}


def _expand(toks: list, g: S.Group, funcs: dict, holders: set, counter: list,
            depth: int, base: int = 0, outer: frozenset = frozenset()) -> tuple:
    """(tokens, statements) of the body of function group g with the
    holders' calls inlined; the statements index the tokens from `base`.
    `outer`: the names declared where that body goes (the kernel's, and
    those of the functions it is inlined into)."""
    if depth > _DEPTH:
        raise Unsupported("nested too deep (or recursive)")
    stmts, _ = _tree.body(toks, g)
    lo, hi = g.body
    calls = {}                  # token index of a call statement -> (statement, call's start)
    for st in S.walk(stmts):
        at = _call_at(toks, st, funcs)
        if at is not None:
            calls[st.lo] = (st, at)
    inside = {j for st, _ in calls.values() for j in range(st.lo, st.hi)}
    for j in range(lo, hi):
        t = toks[j]
        if j not in inside and t.kind == "id" and t.text in holders \
                and toks[j - 1].text not in (".", "->", "::"):
            raise Unsupported(f"'{t.text}' is called inside an expression")

    def fn(st, rw):
        if st.lo not in calls or calls[st.lo][0] is not st:
            return None
        at = calls[st.lo][1]
        out, got = _call(toks, st, at, funcs[toks[at].text], funcs, holders, counter, depth,
                         outer)
        start, _ = rw.new(out)
        return [_tree.shift(x, start) for x in got]
    rw = _tree.Rewrite(toks, base, fn)
    got = rw.stmts(stmts)
    return rw.out, got


def _call_at(toks, st: S.Stmt, funcs: dict):
    """Where the call of a function of `funcs` starts in statement st when
    clang's tree says st is `f(args);`, or, for a function returning a value,
    `v = f(args);`, `v op= f(args);` or `T v = f(args);` (one variable v), a
    call of that very function (Stmt.call: clang's CallExpr and the callee it
    resolved) by its plain name; else None."""
    if not st.call or st.kind not in ("expr", "decl") or st.hi - st.lo < 4:
        return None
    key, at = st.call
    f = funcs.get(toks[at].text)
    if f is None or f.g.key != key or toks[at + 1].text != "(" or \
            S.match(toks, at + 1, st.hi) != st.hi - 2:
        return None
    if at == st.lo:
        return at if st.kind == "expr" else None
    before = toks[st.lo:at]
    if not funcs[toks[at].text].value or before[-1].text not in _ASSIGN or \
            not all(t.kind == "id" for t in before[:-1]):
        return None
    if st.kind == "expr" and len(before) != 2:
        return None
    return at


_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


def _call(toks, st: S.Stmt, call_at: int, f: _Func, funcs, holders, counter, depth,
          outer: frozenset = frozenset()) -> tuple:
    """(tokens, statements from index 0) that replace call statement st.
    A name f takes from outside that `outer` declares (a kernel's local
    `scale` where f reads the global `scale`) would mean that local there:
    Unsupported."""
    at = toks[call_at]
    clash = sorted(f.free & outer)
    if clash:
        raise Unsupported(f"'{f.g.name}' names '{clash[0]}', which is declared where it "
                          "is called")
    lo = call_at
    args = [] if st.hi - 2 == lo + 2 else S.split_top(toks, lo + 2, st.hi - 2, ",")
    if len(args) != len(f.params):
        raise Unsupported(f"'{f.g.name}' called with {len(args)} arguments")
    counter[0] += 1
    n = counter[0]

    def mk(kind, text, like=at):
        return Tok(kind, text, like.file, like.line)

    # f's parameters and locals get names of their own (no braces around the
    # body: a block function's regions then run on across the call, as
    # PoCL's do)
    ft = f.toks
    _, decls = _tree.body(ft, f.g)
    rename = {dd.name: f"{IL}{n}_{dd.name}" for _, dd in f.params}
    rename.update({dd.name: f"{IL}{n}_{dd.name}" for d in decls for dd in d.decls})
    out, stmts = [], []
    for i, ((slo, shi), dd) in enumerate(f.params):
        a = len(out)
        out += [t for t in ft[slo:shi] if t.text not in S.STORAGE_WORDS]
        p = len(out)
        out += list(ft[dd.ptr[0]:dd.ptr[1]])
        name_at = len(out)
        out += [mk("id", rename[dd.name], ft[dd.name_at]), mk("op", "="), mk("op", "(")]
        out += list(toks[args[i][0]:args[i][1]]) + [mk("op", ")"), mk("op", ";")]
        semi = len(out) - 1
        d = S.Decl((a, p), _tree.words(out, a, p),
                   [S.Declarator(rename[dd.name], name_at, (p, name_at),
                                 (name_at + 1, name_at + 1), "=", (name_at + 2, semi),
                                 (p, semi), frozenset(t.text for t in out[p:name_at]),
                                 ref=dd.ref)])
        stmts.append(S.Stmt("decl", a, semi + 1, decl=d))
    body, got = _expand(ft, f.g, funcs, holders, counter, depth + 1, outer=outer | f.declared)
    start = len(out)
    for k, t in enumerate(body):
        if t.kind == "id" and t.text in rename and (k == 0 or body[k - 1].text not in (
                ".", "->", "::")) and (k + 1 >= len(body) or body[k + 1].text != "::"):
            t = Tok("id", rename[t.text], t.file, t.line)
        out.append(t)
    got = [_tree.shift(x, start) for x in got]
    for x in S.walk(got):               # the declarators' names as renamed
        for dd in x.decl.decls if x.decl is not None else ():
            dd.name = out[dd.name_at].text
    stmts += got
    if f.value:    # `return e;` at the end: `v = (e);`, `T v = (e);` or `(void)(e);`
        r = max(k for k, t in enumerate(out) if t.text == "return")
        last = stmts.pop()
        if last.kind != "return" or last.lo != r:
            raise Unsupported(f"'{f.g.name}' returns other than at its end")
        head = list(toks[st.lo:call_at]) or [mk("op", "("), mk("id", "void"), mk("op", ")")]
        out = out[:r] + head + [mk("op", "(")] + out[r + 1:-1] + [mk("op", ")"), mk("op", ";")]
        semi = len(out) - 1
        if st.kind == "decl":
            d = _tree.shift(S.Stmt("decl", st.lo, st.hi, decl=st.decl), r - st.lo).decl
            dd = d.decls[0]
            eq = r + (call_at - st.lo) - 1
            dd.init, dd.whole = (eq + 1, semi), (dd.whole[0], semi)
            stmts.append(S.Stmt("decl", r, semi + 1, decl=d))
        else:
            stmts.append(S.Stmt("expr", r, semi + 1))
    return out, stmts
