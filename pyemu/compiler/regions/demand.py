"""Lane demand: the lanes of a warp whose result a shuffle loop must compute.

The warp-sum of the reduction kernels

    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffff, v, off);
    if (lane == 0) partial[warp] = v;       // only lane 0 reads v afterwards

is written by warpcut.py as an in-place shuffle (each lane reads lane
l + off's copy of v) in a thread loop inside the uniform `off` loop: every
lane of every warp at every step, 5 x 32 per warp, although only lane 0's
final value is read.  Lane l's value after a step depends on lanes l and
l + off before it, so if lanes [0, m) are needed after a step, lanes
[0, m + off) are needed before it.  Only lane 0 is needed after the last
step (off = 1); with offsets halving (off /= 2 or off >>= 1 of an integer,
while off > 0), each step's off is at most half the one before, so the
lanes [0, off) of each step are all the next step reads, and the lanes
[0, min(off, 32)) of each step are enough: 16 + 8 + 4 + 2 + 1 lanes per warp
instead of 160, computed exactly as before (the same operations in the same
order, so a float sum is bit for bit the one of the full loop).  Lanes
past that keep values that nothing reads.

`loops(k)` finds such loops: a `for` whose body is one in-place shfl_down
cut (CutTok.down: the shuffled variable v, the offset, width 32) whose
offset is the loop's variable, an integer that the loop halves while it is
positive and nothing else writes, in no other loop of the kernel; and after
it, on every path to the kernel's end, v (and any variable copied from it,
`T w = v;`, `w = (v);`) is read only under `if (lane == 0)` or is assigned
anew before it is read.  `lane` is `x % C` or `x & (C - 1)` (C a multiple
of 32), or the name of a variable that is never modified and set to it,
where x (or the variable it names, never modified) is threadIdx.x plus
multiples of blockDim.x or of 32
(`blockIdx.x * blockDim.x + threadIdx.x`, OpenCL's linear local id): where
blockDim.x is a multiple of 32 that is the lane in the warp, and gen.py
narrows the loop only there (elsewhere the loop takes every lane).  Any
other read of v (a condition, a loop, a `?:`, its address, anything this
module does not read) keeps every lane.
"""
from __future__ import annotations

from . import intidx
from . import syntax as S
from .blocks import _dim_at
from .warpcut import CutTok, MARK, PEER, WARP_SITE

_INT_WORDS = {"int", "unsigned", "signed", "long", "short", "const", "size_t", "uint", "ulong",
              "ushort", "ptrdiff_t", "intptr_t", "uintptr_t"}
_ARITH_WORDS = _INT_WORDS | {"float", "double", "char", "bool", "uchar", "half", "__half"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


def loops(k) -> dict:
    """{token index of the in-place statement: the offset variable's name}
    for each shuffle loop of kernel k (blocks._Kernel) whose lanes [0,
    min(off, 32)) of each warp are enough (the module's doc)."""
    out = {}
    for path in _paths(k.body, []):
        st = path[-1]
        found = _halving_shuffle(k, st)
        if found is None or any(p.kind in ("for", "while", "do", "switch") for p in path[:-1]):
            continue
        stmt, var, off = found
        if _read_by_lane0_only(k, path, {var}):
            out[stmt.lo] = off
    return out


def _paths(stmts: list, above: list):
    """[ancestors..., st] for every for statement of the tree."""
    for st in stmts:
        here = above + [st]
        if st.kind == "for":
            yield here
        yield from _paths(st.kids, here)


def shuffle_loop(k, st):
    """(the in-place statement, v, the offset's token texts) when for
    statement st's body is one in-place shfl_down of width 32 as warpcut.py
    wrote it (its cut, the marking form's records `if (MARK) ...;` before
    it where it has them, the statement), else None."""
    toks = k.toks
    body = st.kids[0] if st.kind == "for" and st.kids else None
    if body is None or body.kind != "compound":
        return None
    cuts = [x for x in body.kids if x.kind == "barrier"]
    rest = [x for x in body.kids if x.kind not in ("barrier", "empty")]
    if len(cuts) != 1 or not rest:
        return None
    site = toks[cuts[0].cond[0]]
    down = getattr(site, "down", None) if isinstance(site, CutTok) else None
    if site.text != WARP_SITE or down is None:
        return None
    var, delta, width = down
    stmt = rest[-1]
    if any(toks[x.lo].text != "if" or toks[x.lo + 2].text != MARK for x in rest[:-1]) or \
            body.kids.index(cuts[0]) > body.kids.index(stmt) or stmt.kind != "expr" or \
            toks[stmt.lo].text != var or not any(
                t.kind == "gen" and t.text == PEER for t in toks[stmt.lo:stmt.hi]):
        return None
    if width != 32:
        return None
    return stmt, var, delta


def _halving_shuffle(k, st):
    """(the in-place statement, v, off) when for statement st is
    `for (...; off > 0; off /= 2) v op= __shfl_down_sync(full, v, off);` as
    warpcut.py wrote it, else None."""
    toks = k.toks
    found = shuffle_loop(k, st)
    if found is None or len(found[2]) != 1:
        return None
    stmt, var, (off,) = found
    cond = _words(toks, *st.cond)
    inc = _words(toks, *st.inc)
    if cond not in ([off, ">", "0"], ["0", "<", off], [off, ">=", "1"]) or inc not in (
            [off, "/=", "2"], [off, ">>=", "1"], [off, "=", off, "/", "2"],
            [off, "=", off, ">>", "1"]):
        return None
    found = _declarator(k, off)
    v = k.vars.get(found[1].name_at) if found is not None else None
    if v is None or v.kind != "uniform" or not _integer(k, off) or _written(k, off, st.inc) \
            or var == off:
        return None
    return stmt, var, off


def _words(toks: list, lo: int, hi: int) -> list:
    """The texts of toks[lo:hi] without enclosing parentheses, integer
    literals without suffixes."""
    lo, hi = _strip(toks, lo, hi)
    out = []
    for t in toks[lo:hi]:
        m = intidx._LIT.match(t.text) if t.kind == "num" else None
        out.append(m.group(1) if m else t.text)
    return out


def _strip(toks: list, lo: int, hi: int) -> tuple:
    while hi - lo >= 2 and toks[lo].text == "(":
        try:
            if S.match(toks, lo, hi) != hi - 1:
                break
        except S.Unsupported:
            break
        lo, hi = lo + 1, hi - 1
    return lo, hi


def _declarator(k, name: str):
    """(decl, declarator) of a name the kernel declares once (not a
    parameter), else None."""
    if k.declared.get(name, 0) != 1:
        return None
    for d in k.decls:
        for dd in d.decls:
            if dd.name == name:
                return d, dd
    return None


def _integer(k, name: str) -> bool:
    """`name` is a variable of an integer type the kernel declares once."""
    found = _declarator(k, name)
    if found is None:
        return False
    d, dd = found
    words = [k.toks[j].text for j in range(*d.spec)]
    return bool(words) and set(words) <= _INT_WORDS and not dd.ptr_texts and not dd.is_ref \
        and dd.suffix[0] == dd.suffix[1]


def _plain_local(k, name: str) -> bool:
    """`name` is a variable of an arithmetic type that the kernel declares
    once: each thread has its own (not shared memory, a reference, static)."""
    found = _declarator(k, name)
    if found is None:
        return False
    d, dd = found
    words = [k.toks[j].text for j in range(*d.spec)]
    return bool(words) and set(words) <= _ARITH_WORDS and not dd.ptr_texts and not dd.is_ref \
        and dd.suffix[0] == dd.suffix[1]


def _written(k, name: str, allowed: tuple = ()) -> bool:
    """`name` is assigned, incremented or has its address taken anywhere in
    the kernel outside tokens `allowed` (lo, hi), its declaration aside."""
    toks = k.toks
    for j in range(k.lo, k.hi):
        t = toks[j]
        if t.kind != "id" or t.text != name or toks[j - 1].text in (".", "->", "::"):
            continue
        if allowed and allowed[0] <= j < allowed[1]:
            continue
        nxt, prev = toks[j + 1].text, toks[j - 1].text
        if nxt in _ASSIGN and not _is_declaration(k, j) or nxt in ("++", "--") or \
                prev in ("++", "--", "&"):
            return True
    return False


def _is_declaration(k, j: int) -> bool:
    found = _declarator(k, k.toks[j].text)
    return found is not None and found[1].name_at == j


# ------------------------------------------------------------ reads after the loop

class _Fail(Exception):
    pass


def _read_by_lane0_only(k, path: list, tracked: set) -> bool:
    """After path[-1] (the loop), on every path to the kernel's end, the
    names in `tracked` are read only by lane 0 or assigned first."""
    try:
        live = set(tracked)
        # the statements after each enclosing statement, innermost first
        for depth in range(len(path) - 1, -1, -1):
            st = path[depth]
            siblings = path[depth - 1].kids if depth else k.body
            if depth and path[depth - 1].kind == "if":
                siblings = [st]     # the branch itself: nothing after it inside the if
            elif depth and path[depth - 1].kind != "compound":
                raise _Fail
            at = next(i for i, x in enumerate(siblings) if x is st)
            live = _seq(k, siblings[at + 1:], live)
            if not live:
                return True
        return True
    except _Fail:
        return False


def _seq(k, stmts: list, live: set) -> set:
    for st in stmts:
        live = _stmt(k, st, live)
        if not live:
            break
    return live


def _stmt(k, st, live: set) -> set:
    toks = k.toks
    if not (k._names(st.lo, st.hi) & live):
        return live
    if st.kind == "compound":
        return _seq(k, st.kids, live)
    if st.kind == "if":
        if k._names(*st.cond) & live:
            raise _Fail
        if _lane0(k, st.cond):
            # the branch runs on lane 0 only, whose values are all computed
            return live | (_stmt(k, st.kids[1], live) if len(st.kids) > 1 else set())
        then = _stmt(k, st.kids[0], live)
        other = _stmt(k, st.kids[1], live) if len(st.kids) > 1 else live
        return then | other
    if st.kind == "expr":
        lo, hi = st.lo, st.hi - 1           # less the ';'
        if hi - lo >= 3 and toks[lo].kind == "id" and toks[lo + 1].text == "=":
            return _assign(k, toks[lo].text, (lo + 2, hi), live)
        raise _Fail
    if st.kind == "decl":
        for dd in st.decl.decls:
            if dd.init_kind != "=" or dd.ptr_texts or dd.is_ref or dd.suffix[0] != dd.suffix[1]:
                if k._names(*dd.whole) & live:
                    raise _Fail
                continue
            live = _assign(k, dd.name, dd.init, live)
        return live
    raise _Fail


def _assign(k, name: str, value: tuple, live: set) -> set:
    """`name = value`: a copy of a live name makes `name` live; a value
    that reads no live name kills `name`; anything else fails."""
    reads = k._names(*value) & live
    if not reads:
        return live - {name}
    lo, hi = _strip(k.toks, *value)
    if hi - lo == 1 and k.toks[lo].text in live and _plain_local(k, name):
        return live | {name}
    raise _Fail


def _lane0(k, cond: tuple) -> bool:
    """Condition toks[cond] holds only on lane 0 of a warp where blockDim.x
    is a multiple of 32: one of its top-level && conjuncts is `lane == 0`
    (the module's doc)."""
    toks = k.toks
    for lo, hi in S.split_top(toks, *_strip(toks, *cond), "&&"):
        lo, hi = _strip(toks, lo, hi)
        eq = [j for j in range(lo, hi) if toks[j].text == "==" and _depth0(toks, lo, j)]
        if len(eq) != 1:
            continue
        at = eq[0]
        for (a, b), (x, y) in (((lo, at), (at + 1, hi)), ((at + 1, hi), (lo, at))):
            if _words(toks, x, y) == ["0"] and _lane(k, a, b, named=True):
                return True
    return False


def _depth0(toks: list, lo: int, j: int) -> bool:
    depth = 0
    for i in range(lo, j):
        w = toks[i].text
        depth += w in ("(", "[", "{")
        depth -= w in (")", "]", "}")
    return depth == 0


def _lane(k, lo: int, hi: int, named: bool) -> bool:
    """toks[lo:hi] is `x % C`, `x & (C - 1)` or a never-written variable
    declared once with such an initializer (the module's doc)."""
    toks = k.toks
    lo, hi = _strip(toks, lo, hi)
    if named and hi - lo == 1 and toks[lo].kind == "id":
        found = _declarator(k, toks[lo].text)
        if found is None or not _integer(k, toks[lo].text) or _written(k, toks[lo].text) or \
                found[1].init_kind != "=":
            return False
        return _lane(k, *found[1].init, named=False)
    if hi - lo < 3 or toks[hi - 2].text not in ("%", "&") or not _depth0(toks, lo, hi - 2):
        return False
    m = intidx._LIT.match(toks[hi - 1].text) if toks[hi - 1].kind == "num" else None
    if m is None:
        return False
    c = int(m.group(1))
    if toks[hi - 2].text == "&":
        if c & (c + 1):
            return False
        c += 1
    elif not _one_factor(toks, lo, hi - 2):
        return False            # x % C: x one factor (% binds tighter than +)
    if c % 32:
        return False
    a, b = _strip(toks, lo, hi - 2)
    if b - a == 1 and toks[a].kind == "id":      # x named: a variable set to it once
        found = _declarator(k, toks[a].text)
        if found is None or not _integer(k, toks[a].text) or _written(k, toks[a].text) or \
                found[1].init_kind != "=":
            return False
        a, b = _strip(toks, *found[1].init)
    poly = intidx.parse(toks, a, b, _dim_at)
    return poly is not None and _x_plus_multiples(poly.node)


def _one_factor(toks: list, lo: int, hi: int) -> bool:
    if hi - lo == 1:
        return toks[lo].kind == "id"
    d = _dim_at(toks, lo, hi)
    if d is not None:
        return d[2] == hi
    try:
        return toks[lo].text == "(" and S.match(toks, lo, hi) == hi - 1
    except S.Unsupported:
        return False


def _x_plus_multiples(node) -> bool:
    """Polynomial `node` is threadIdx.x plus terms that are each a multiple
    of blockDim.x or of 32."""
    def terms(n):
        return terms(n[1]) + terms(n[2]) if n[0] == "+" else [n]

    def factors(n):
        return factors(n[1]) + factors(n[2]) if n[0] == "*" else [n]
    x = ("dim", "threadIdx", "x")
    ts = terms(node)
    if ts.count(x) != 1:
        return False
    for t in ts:
        if t == x:
            continue
        fs = factors(t)
        if ("dim", "blockDim", "x") not in fs and not any(
                f[0] == "lit" and f[1] % 32 == 0 for f in fs):
            return False
    return True
