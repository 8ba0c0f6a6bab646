"""Guarded regions as ranges of threadIdx.x: `if (i < n)` without the `if`.

A region whose statements are a few side-effect-free declarations and then
`if (cond) { ... }` (vector add: `int i = blockIdx.x * blockDim.x +
threadIdx.x; if (i < n) c[i] = a[i] + b[i];`) keeps g++ from vectorizing
its loop over threads ("control flow in loop").  When cond is a comparison
(<, <=, >, >=), or a conjunction (&&) of such, between an *index* and a
*uniform* value, the threads for which it holds are one contiguous range of
threadIdx.x in each row (y, z) of the block, and the region runs the body
without the `if` over that range only:

* an index is an index polynomial (intidx.py: +, * and integer casts over
  the block's indices and non-negative literals), written out or as a
  variable of an integer type of at least 32 bits that a leading declaration
  of the region (or a recomputed variable, blocks.py) sets to one and that
  nothing modifies;
* a uniform value is an expression without effects or memory reads over
  parameters and uniform variables (gen.uniform) and not of a class type
  (checked by g++: `__is_class`, where an overloaded operator could make the
  comparison anything).

Why a range: every part of a polynomial is non-negative, so its value never
decreases as threadIdx.x grows, and while no part exceeds INT_MAX (the guard
of intidx.py, checked here once per block) it is exact in every integer
type the index may have; converting values 0..INT_MAX to the comparison's
common type (int, unsigned, long, float, ...) keeps their order.  So `index
< u` and `index <= u` hold on a prefix of the row and `index > u`, `index >=
u` on a suffix, whatever the types, the sign of u or its overflow.  The ends
are found by bisection on the condition itself, evaluated exactly as the
thread would (same declarations, same types): one evaluation per conjunct
when the whole row passes, about log2(blockDim.x) on the row where the range
ends.  One conjunct may instead be `lane == u` (or `u == lane`), where lane is
`x % C` or `x & (C - 1)` (C a positive integer literal, a power of 2 for
`&`), written out or as an index variable set to it, and x an index
polynomial whose threadIdx.x term is threadIdx.x itself (`threadIdx.x %
32`, `(blockIdx.x * blockDim.x + threadIdx.x) & 31`): x grows by one from
one thread of the row to the next, so lane repeats with period C, and the
threads for which `lane == u` holds are every C-th of the row from the
first.  The region probes at most C threads of the row for that first one
(the condition itself again) and runs the body at it and every C-th after.
`!=`, `||` and anything else keep the `if`; so does a block
whose guard fails, or a condition on a class type (the region's loop with
the `if` is written too, and the block picks one at run time).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import intidx
from . import syntax as S
from .blocks import PREFIX as P, _dim_at

# integer type words of an index variable: at least 32 bits, so that every
# value 0..INT_MAX is exact in it
_INDEX_WORDS = {"int", "unsigned", "signed", "long", "const", "size_t", "uint", "ulong",
                "ptrdiff_t", "intptr_t", "uintptr_t"}
# what a leading declaration may be: arithmetic types only (no constructor)
_PLAIN_WORDS = _INDEX_WORDS | {"float", "double", "short", "char", "bool", "ushort", "uchar"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# the binary operators that may split an expression at depth 0
_BINARY = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=",
           "&&", "||", "?", ":", "=", ",", "<=>", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=",
           "&=", "|=", "^="}
_LOWER = {"==", "!=", "&", "^", "|", "&&", "||", "?", ":", "=", ",", "<=>"} | {
    "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}


@dataclass
class Conjunct:
    """One comparison of the condition: tokens (lo, hi); `prefix` when it
    holds on a prefix of the row (index < u, index <= u), else on a suffix;
    the index's polynomial and the uniform side's tokens."""
    lo: int
    hi: int
    prefix: bool
    poly: intidx.Poly
    uniform: tuple
    op: str = "<"             # index op uniform
    index: tuple = ()         # tokens of the index side
    stride: int = 0           # C of `lane == u` (lane = x % C), else 0: a range
    cmp: str = ""             # probe `(index) cmp (uniform)`, not the conjunct's text (eq)


@dataclass
class Plan:
    """A region run over ranges: its leading declarations, the `if` whose
    condition gives the range, and the condition's conjuncts."""
    decls: list
    if_stmt: S.Stmt
    conjuncts: list


def plan(gen, items: list, chain: list, ret: bool, eq: bool = False) -> Optional[Plan]:
    """The Plan for a region's statements `items`, or None (keep the `if`).
    With `eq`, a conjunct may also be `q == u` for q monotone in threadIdx.x
    (_monotone: `warp == 0`, warp = threadIdx.x / 32), as the two conjuncts
    `q >= u` and `q <= u` (gen.predicated's spans only)."""
    if ret:
        return None
    live = [st for st in items if st.kind not in ("empty", "pragma")]
    if not live or live[-1].kind != "if" or len(live[-1].kids) != 1 or live[-1].flags:
        return None
    st, decls = live[-1], live[:-1]
    if st.kids[0].kind in ("decl", "pragma", "label"):
        return None
    k, toks = gen.k, gen.toks
    index_vars, inits = {}, {}
    for d in decls:
        if d.kind != "decl" or not _plain(toks, d.decl.spec, _PLAIN_WORDS):
            return None
        for dd in d.decl.decls:
            v = k.vars.get(dd.name_at)
            if v is None or v.kind not in ("local", "remat") or v.mods or k.declared[dd.name] != 1:
                return None
            if dd.init_kind != "=" or toks[dd.init[0]].text == "{" or dd.ptr_texts \
                    or dd.suffix[0] != dd.suffix[1] or _divides(toks, *dd.init):
                return None
            if _plain(toks, d.decl.spec, _INDEX_WORDS):
                inits[dd.name] = dd.init
            if not k._pure(*dd.init, gen.uniform_names(chain) | set(index_vars) | _remat(gen, chain),
                           True):
                return None
            p = intidx.parse(toks, dd.init[0], dd.init[1], _dim_at)
            if p is not None and _plain(toks, d.decl.spec, _INDEX_WORDS):
                index_vars[dd.name] = p
            else:
                index_vars[dd.name] = None
    conjuncts = []
    for lo, hi in S.split_top(toks, *st.cond, "&&"):
        c = _conjunct(gen, chain, lo, hi, index_vars, inits)
        if c is None and eq:
            pair = _eq_range(gen, chain, lo, hi, index_vars, inits)
            if pair is None:
                return None
            conjuncts += pair
            continue
        if c is None:
            return None
        conjuncts.append(c)
    if sum(1 for c in conjuncts if c.stride) > 1:
        return None
    # the strided conjunct last: open_loop narrows the ranges first
    return Plan(decls, st, sorted(conjuncts, key=lambda c: c.stride != 0))


def _plain(toks: list, spec: tuple, allowed: set) -> bool:
    words = [toks[j].text for j in range(*spec)]
    return bool(words) and set(words) <= allowed


def _divides(toks: list, lo: int, hi: int) -> bool:
    """True when toks[lo:hi] may divide (a fault the skipped threads would
    miss): a / or % by anything but a positive integer literal."""
    return any(toks[j].text in ("/", "%") and not (
        j + 1 < hi and (_literal(toks[j + 1]) or 0) > 0 and (
            j + 2 == hi or toks[j + 2].text in (")", ";", ",", "+", "-", "*", "/", "%", "&",
                                                "|", "^", "<", ">", "<=", ">=", "==", "!=",
                                                "&&", "||", "?", ":", "]", "<<", ">>")))
        for j in range(lo, hi))


def _literal(tok) -> Optional[int]:
    """The value of a decimal integer literal token (suffixes allowed), else None."""
    m = intidx._LIT.match(tok.text) if tok.kind == "num" else None
    return int(m.group(1)) if m else None


def _remat(gen, chain: list) -> set:
    """Names of the recomputed index variables visible in the region."""
    out = set()
    for scope in chain:
        for name, v in scope.items():
            if v.kind == "remat" and not v.subst and _index_remat(gen, v) is not None:
                out.add(name)
    return out


def _index_remat(gen, v) -> Optional[intidx.Poly]:
    toks = gen.toks
    if v.kind != "remat" or v.subst or not _plain(toks, v.decl.spec, _INDEX_WORDS) \
            or v.d.ptr_texts or gen.k.declared[v.name] != 1:
        return None
    return intidx.parse(toks, v.d.init[0], v.d.init[1], _dim_at)


def _strip(toks: list, lo: int, hi: int) -> tuple:
    while hi - lo >= 2 and toks[lo].text == "(":
        try:
            if S.match(toks, lo, hi) != hi - 1:
                break
        except S.Unsupported:
            break
        lo, hi = lo + 1, hi - 1
    return lo, hi


def _unit_x(node) -> bool:
    """True when polynomial `node` is threadIdx.x plus terms without it."""
    def terms(n):
        return terms(n[1]) + terms(n[2]) if n[0] == "+" else [n]

    def has_x(n):
        return (n[0] == "dim" and n[1] == "threadIdx" and n[2] == "x") or (
            n[0] in "+*" and (has_x(n[1]) or has_x(n[2])))
    xs = [t for t in terms(node) if has_x(t)]
    return len(xs) == 1 and xs[0] == ("dim", "threadIdx", "x")


def _init_of(gen, chain: list, lo: int, hi: int, inits: dict):
    """For toks[lo:hi] (stripped) one name: the (lo, hi) of the text it stands
    for (its entry of `inits`, or the initializer of an index variable that
    is recomputed, declared once), or () when it stands for none that may
    be read so; None when toks[lo:hi] is not one name."""
    toks = gen.toks
    if hi - lo != 1 or toks[lo].kind != "id":
        return None
    name = toks[lo].text
    if name in inits:
        return tuple(inits[name])
    v = gen.lookup(chain, name)
    if v is None or v.kind != "remat" or v.subst or not _plain(toks, v.decl.spec, _INDEX_WORDS) \
            or v.d.ptr_texts or gen.k.declared[v.name] != 1:
        return ()
    return tuple(v.d.init)


def _lane(gen, chain: list, lo: int, hi: int, index_vars: dict, inits: dict,
          named: bool = True):
    """(Poly, C) when toks[lo:hi] is a lane of period C along the row (the
    module's doc), else None."""
    toks = gen.toks
    lo, hi = _strip(toks, lo, hi)
    at = _init_of(gen, chain, lo, hi, inits) if named else None
    if at is not None:
        return _lane(gen, chain, *at, index_vars, inits, False) if at else None
    ops = [j for j, _ in _top(toks, lo, hi) if toks[j].text in (
        "%", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "?", ":", "=", ",",
        "<<", ">>", "/", "-")]
    if len(ops) != 1 or ops[0] + 2 != hi or toks[ops[0]].text not in ("%", "&"):
        return None
    at = ops[0]
    c = _literal(toks[at + 1])
    if toks[at].text == "&":
        c = c + 1 if c is not None and c & (c + 1) == 0 else None
    elif not _factor(toks, lo, at):
        return None     # x % C: x one factor (% binds tighter than +)
    if not c or c > 1024:
        return None
    a, b = _strip(toks, lo, at)
    poly = _poly(gen, chain, a, b, index_vars)
    if poly is None or not _unit_x(poly.node):
        return None
    return poly, c


def _poly(gen, chain: list, a: int, b: int, index_vars: dict):
    """toks[a:b] as a polynomial of the thread index: a name of one (an index
    variable, or a local the pass rematerializes), else the expression read
    by intidx; None when it is neither."""
    toks = gen.toks
    if b - a == 1 and toks[a].kind == "id":
        name = toks[a].text
        if name in index_vars:
            return index_vars[name]
        v = gen.lookup(chain, name)
        return _index_remat(gen, v) if v is not None else None
    return intidx.parse(toks, a, b, _dim_at)


def _factor(toks: list, lo: int, hi: int) -> bool:
    """True when toks[lo:hi] is one name, threadIdx.x and the like, or (...)."""
    if hi - lo == 1:
        return toks[lo].kind == "id"
    d = _dim_at(toks, lo, hi)
    if d is not None:
        return d[2] == hi
    try:
        return toks[lo].text == "(" and S.match(toks, lo, hi) == hi - 1
    except S.Unsupported:
        return False


def _conjunct(gen, chain: list, lo: int, hi: int, index_vars: dict,
              inits: dict) -> Optional[Conjunct]:
    toks = gen.toks
    lo, hi = _strip(toks, lo, hi)
    eq = [j for j, d in _top(toks, lo, hi) if toks[j].text == "=="]
    if len(eq) == 1:
        at = eq[0]
        for (a, b), (x, y) in (((lo, at), (at + 1, hi)), ((at + 1, hi), (lo, at))):
            if x >= y or a >= b or not gen.uniform((x, y), chain) or _divides(toks, x, y):
                continue
            found = _lane(gen, chain, a, b, index_vars, inits)
            if found is not None:
                return Conjunct(lo, hi, False, found[0], (x, y), "==", (a, b), found[1])
        return None
    ops = []
    for j, _ in _top(toks, lo, hi):
        w = toks[j].text
        if w in _FLIP:
            ops.append(j)
        elif w in _LOWER:
            return None
    if len(ops) != 1:
        return None
    at = ops[0]
    op = toks[at].text
    for (a, b), (x, y), o in (((lo, at), (at + 1, hi), op), ((at + 1, hi), (lo, at), _FLIP[op])):
        if x >= y or a >= b or not gen.uniform((x, y), chain) or _divides(toks, a, b):
            continue
        a, b = _strip(toks, a, b)
        poly = _poly(gen, chain, a, b, index_vars)
        if poly is not None:
            return Conjunct(lo, hi, o in ("<", "<="), poly, (x, y), o, (a, b))
    return None


def _monotone(gen, chain: list, lo: int, hi: int, index_vars: dict, inits: dict,
              named: bool = True):
    """The Poly of x when toks[lo:hi] is an index x, `x / C` or `x >> S`
    with x one factor that is an index, C a positive and S a 1..31 integer
    literal, written out or as an index variable set to one (as _lane reads
    names), else None.  Each never decreases as threadIdx.x grows (x is
    exact and not negative under its guard, and so are x / C and x >> S,
    its floor divided by 2**S: OpenCL's get_sub_group_id() is lin >> 5)."""
    toks = gen.toks
    lo, hi = _strip(toks, lo, hi)
    poly = _poly(gen, chain, lo, hi, index_vars)
    if poly is not None:
        return poly
    at = _init_of(gen, chain, lo, hi, inits) if named else None
    if at is not None:
        return _monotone(gen, chain, *at, index_vars, inits, False) if at else None
    ops = [j for j, _ in _top(toks, lo, hi) if toks[j].text in _BINARY]
    if len(ops) != 1 or toks[ops[0]].text not in ("/", ">>") or ops[0] + 2 != hi:
        return None
    at = ops[0]
    c = _literal(toks[at + 1]) or 0
    if not (c > 0 if toks[at].text == "/" else 0 < c < 32) or not _factor(toks, lo, at):
        return None
    a, b = _strip(toks, lo, at)
    return _poly(gen, chain, a, b, index_vars)


def _eq_range(gen, chain: list, lo: int, hi: int, index_vars: dict, inits: dict):
    """[q >= u, q <= u] for a conjunct `q == u` (either way round) with q
    monotone (_monotone) and u uniform, else None: for the arithmetic types
    that the comparison converts both sides to, q == u exactly where both
    hold (a NaN fails all three), so the threads are one range of the row."""
    toks = gen.toks
    lo, hi = _strip(toks, lo, hi)
    eq = [j for j, _ in _top(toks, lo, hi) if toks[j].text == "=="]
    if len(eq) != 1 or any(toks[j].text in _LOWER - {"=="} or toks[j].text in _FLIP
                           for j, _ in _top(toks, lo, hi)):
        return None
    at = eq[0]
    for (a, b), (x, y) in (((lo, at), (at + 1, hi)), ((at + 1, hi), (lo, at))):
        if x >= y or a >= b or not gen.uniform((x, y), chain) or _divides(toks, x, y):
            continue
        a, b = _strip(toks, a, b)
        poly = _monotone(gen, chain, a, b, index_vars, inits)
        if poly is not None:
            return [Conjunct(lo, hi, False, poly, (x, y), ">=", (a, b), cmp=">="),
                    Conjunct(lo, hi, True, poly, (x, y), "<=", (a, b), cmp="<=")]
    return None


def _top(toks: list, lo: int, hi: int):
    """(index, depth) of the tokens at depth 0 of toks[lo:hi]."""
    depth = 0
    for j in range(lo, hi):
        w = toks[j].text
        if w in ("(", "[", "{"):
            depth += 1
        elif w in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            yield j, 0


def step(pl: Plan) -> int:
    """How far apart the threads of a row that run the body are (C, or 1)."""
    return max([c.stride for c in pl.conjuncts] + [1])


def open_loop(gen, pl: Plan, chain: list, n: int, index) -> None:
    """Writes the row loops' heads and the search for the row's range
    [xlo, xhi); `n` numbers the names, `index(c)` the thread index stores."""
    ok = sorted(set().union(*(c.poly.guard(P) for c in pl.conjuncts)))
    ok += [f"!__is_class(__typeof__(({gen_text(gen, c.uniform)})))" for c in pl.conjuncts]
    gen.raw(f"const bool {P}rg{n} = " + " && ".join(ok) + ";")
    gen.raw(f"for (unsigned {P}tz = 0; {P}tz < {P}bdz; ++{P}tz) {{ {index('z')} "
            f"for (unsigned {P}ty = 0; {P}ty < {P}bdy; ++{P}ty) {{ {index('y')} "
            f"unsigned {P}xlo = 0, {P}xhi = {P}bdx; "
            f"const unsigned long {P}row = ((unsigned long){P}tz * {P}bdy + {P}ty) * {P}bdx;")
    gen.raw(f"if ({P}rg{n}) {{")
    for c in pl.conjuncts:
        if c.stride:
            # the first thread of [xlo, xhi) where it holds, among C at most
            gen.raw(f"{{ const unsigned {P}se = {P}xlo >= {P}xhi ? {P}xlo : "
                    f"{P}xhi - {P}xlo > {c.stride}u ? "
                    f"{P}xlo + {c.stride}u : {P}xhi; unsigned {P}sf = {P}xhi; "
                    f"for (unsigned {P}sk = {P}xlo; {P}sk < {P}se; ++{P}sk) {{ bool {P}v;")
            _probe(gen, pl, chain, c, f"{P}sk", head=f"{P}v = static_cast<bool>(", whole=True,
                   tail=");")
            gen.raw(f"if ({P}v) {{ {P}sf = {P}sk; break; }} }} {P}xlo = {P}sf; }}")
            continue
        # the first thread where the conjunct is false (prefix) or true
        # (suffix), in [a, b]: first the end that settles a full row, then
        # the linear estimate from the index at threads 0 and 1 and its left
        # neighbour, then bisection (the estimate only saves probes: every
        # step is the condition itself)
        gen.raw(f"{{ unsigned {P}a = 0, {P}b = {P}bdx;")
        _probe(gen, pl, chain, c, f"{P}b - 1u" if c.prefix else "0u")
        gen.raw(f"if ({P}a < {P}b) {{ double {P}x0, {P}x1, {P}u;")
        _probe(gen, pl, chain, c, "0u", f"{P}x0 = (double)(", f"); {P}u = pyemu_rg_num((",
               "), 0);")
        _probe(gen, pl, chain, c, f"{P}bdx > 1u ? 1u : 0u", f"{P}x1 = (double)(", tail=");")
        rnd = (f"__builtin_ceil({P}t)" if c.op in ("<", ">=") else
               f"(__builtin_floor({P}t) + 1.0)")
        gen.raw(f"const double {P}t = {P}x1 != {P}x0 ? ({P}u - {P}x0) / ({P}x1 - {P}x0) : 0.0, "
                f"{P}e = {rnd}; const unsigned {P}k = !({P}e > 0.0) ? 0u : {P}e >= (double){P}b "
                f"? {P}b : (unsigned){P}e;")
        _probe(gen, pl, chain, c, f"{P}k", when=f"{P}a <= {P}k && {P}k < {P}b")
        _probe(gen, pl, chain, c, f"{P}k - 1u", when=f"{P}a < {P}k && {P}k <= {P}b")
        gen.raw(f"while ({P}a < {P}b)")
        _probe(gen, pl, chain, c, f"{P}a + ({P}b - {P}a) / 2u")
        gen.raw("}")
        if c.prefix:
            gen.raw(f"if ({P}a < {P}xhi) {P}xhi = {P}a; }}")
        else:
            gen.raw(f"if ({P}a > {P}xlo) {P}xlo = {P}a; }}")
    gen.raw("}")


def _probe(gen, pl: Plan, chain: list, c: Conjunct, at: str, head: str = "", mid: str = "",
           tail: str = "", when: str = "", whole: bool = False) -> None:
    """One evaluation of conjunct `c` as thread `at` of the row would make
    it, narrowing [a, b); with `head`, the index value instead (head, the
    index side, mid, the uniform side, tail), or with `whole` the conjunct's
    value (head, the conjunct, tail)."""
    if when:
        gen.raw(f"if ({when})")
    gen.raw(f"{{ const unsigned {P}tx = {at};")
    names = set().union(*(gen.k._names(d.lo, d.hi) for d in pl.decls)) | gen.k._names(c.lo, c.hi)
    for v in gen.bindings(chain, names):
        gen.bind(v)
    for d in pl.decls:
        gen.emit(d.lo, d.hi, thread=True)
    if whole:
        gen.raw(head)
        gen.emit(c.lo, c.hi, thread=True)
        gen.raw(tail + " }")
        return
    if head:
        gen.raw(head)
        gen.emit(*c.index, thread=True)
        if mid:
            gen.raw(mid)
            gen.emit(*c.uniform, thread=True)
        gen.raw(tail + " }")
        return
    gen.raw(f"const bool {P}v = static_cast<bool>(")
    if c.cmp:
        gen.raw("(")
        gen.emit(*c.index, thread=True)
        gen.raw(f") {c.cmp} (")
        gen.emit(*c.uniform, thread=True)
        gen.raw(")")
    else:
        gen.emit(c.lo, c.hi, thread=True)
    gen.raw(f") == {str(c.prefix).lower()}; {P}a = {P}v ? {P}tx + 1u : {P}a; "
            f"{P}b = {P}v ? {P}b : {P}tx; }}")


def gen_text(gen, rng: tuple) -> str:
    """The C++ of tokens `rng` as the block function writes them (no #line)."""
    mark = len(gen.parts)
    saved = gen.file, gen.line
    gen.emit(*rng)
    text = "".join(gen.parts[mark:])
    del gen.parts[mark:]
    gen.file, gen.line = saved
    return " ".join(line for line in text.splitlines() if not line.startswith("#line"))
