"""Warp collectives in block functions: a collective statement becomes a cut.

A kernel whose statements call a warp collective (__shfl*_sync, __ballot_sync,
__any/__all_sync, __match_*_sync, __reduce_*_sync, __syncwarp, and the OpenCL
sub-group calls that are one collective: sub_group_all/any/barrier/
broadcast/ballot/shuffle*) gets its block function when each call is one of

    COLL(args);   v = COLL(args);   v op= COLL(args);   T v = COLL(args);

(or any statement that calls one collective unconditionally: not under ?:,
&& or ||) with operands free of side effects, in straight code or in
uniform loops.
The statement is written three times:

    (void)(pyemu_warp_phase(1u), COLL(args));   every thread records its operands
    pyemu_barrier("<warp cut>");                the cut: gen.py writes
                                                pyemu_warp_block_done(0u) there
    v = (pyemu_warp_phase(2u), COLL(args));     every thread reads its result

so the intrinsic's own overload and type conversions are kept; the core
(csrc/warp_block.c) checks the masks and computes every lane's result with
the fiber path's routine (warp.c), one implementation of each collective.
The operands are evaluated twice: hence no side effects.

A shuffle (__shfl*_sync with a literal full mask, sub_group_shuffle*,
sub_group_broadcast) whose width is a literal power of 2 (or absent) has a
fast form, with no call and no per-lane work in the core:

    F[lin] = (var);  [A[lin] = (int)(conv)(lane arg);]  [IN[lin] = 1; SITE = "op line file";]
    pyemu_barrier("<warp cut>");
    v = static_cast<T>(<the source lane's F, by the lane arithmetic of warp.c>);

T is the type the intrinsic's overload resolution picks (pyemu_wt_* of the
device headers), F the worker's typed slots of it (pyemu_warp_buf.fv, abi.h),
lin the block function's linear thread index.  The lane argument is
evaluated again after the cut when nothing the statement writes can change
it (the statement assigns a local variable), else recorded.  With every lane
of the block known to arrive (no if, switch, return, break, continue or goto
around the site or in the kernel), nothing is checked at the cut: partial
warps read 0 past the block's end, as warp.c's lanes that are not there.
Otherwise each thread marks its arrival (IN) and the cut checks that each
warp arrived whole or not at all, failing as the general form does.

`v op= __shfl_down_sync(full, v, d[, W])` with v a local variable (the value
shuffled is the one assigned) is computed in place: lane l's source l + d is
ahead of it in the ascending thread loop, not yet written, so each thread
reads the source's own copy of v (PEER: gen.py's per-thread array, padded
with 32 zeros past the block) and nothing is recorded.  Where every lane
arrives that is the only form.  Under a branch (a kernel with no early
exit) the statement holds both forms, chosen by MARK: where the block
function finds that every warp takes the branch whole or not at all (a
uniform condition, or the predicated if's flags agree in each warp:
abi.h's pyemu_warp_pred_whole) in place, with no record and no check;
elsewhere the lanes record and mark their arrival and the cut checks the
marks (gen.py writes such a thread loop once for each value of MARK).  The
unit must not define a function of the intrinsic's name itself.  Anything else
(a collective in a condition, cooperative groups, __activemask, OpenCL
sub-group reductions and scans, a cut inside a branch whose condition is not
uniform) raises Unsupported and the kernel runs on fibers in the warp form.
"""
from __future__ import annotations

import re

from .. import warps as _warps
from . import syntax as S
from . import tree as _tree
from .blocks import PREFIX as P, _dim_at
from .syntax import Tok, Unsupported

WARP_SITE = '"<warp cut>"'
# the calls that are one collective of the core each (blocks._BY_VALUE names them too)
CUTS = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
        "__ballot_sync", "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync",
        "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
        "__reduce_or_sync", "__reduce_xor_sync", "__syncwarp",
        "sub_group_all", "sub_group_any", "sub_group_barrier", "sub_group_broadcast",
        "sub_group_ballot", "sub_group_shuffle", "sub_group_shuffle_xor",
        "sub_group_shuffle_up", "sub_group_shuffle_down"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
# the shuffles with a fast form: name -> (op, how many operands before the
# value (the mask), how the lane argument converts, the header's type trait)
FAST = {"__shfl_sync": (0, 1, "int", "pyemu_wt_shfl"),
        "__shfl_up_sync": (1, 1, "unsigned", "pyemu_wt_shfl"),
        "__shfl_down_sync": (2, 1, "unsigned", "pyemu_wt_shfl"),
        "__shfl_xor_sync": (3, 1, "int", "pyemu_wt_shfl"),
        "sub_group_shuffle": (0, 0, "unsigned", "pyemu_wt_sg"),
        "sub_group_shuffle_up": (1, 0, "unsigned", "pyemu_wt_sg"),
        "sub_group_shuffle_down": (2, 0, "unsigned", "pyemu_wt_sg"),
        "sub_group_shuffle_xor": (3, 0, "unsigned", "pyemu_wt_sg"),
        "sub_group_broadcast": (0, 0, "unsigned", "pyemu_wt_bc")}
SLOTS = 1056        # PYEMU_WARP_FAST_SLOTS (abi.h)
EXITS = {"return", "break", "continue", "goto", "co_return", "throw", "longjmp"}
# the block function's name for whether a marked site's lanes mark their
# arrival now (gen.py writes its condition there: _Gen.mark)
MARK = P + "mark"
# the block function's name for another thread's copy of a variable in the
# in-place shfl_down: PEER(v) is gen.py's (&v)[pyemu_wa]
PEER = P + "peer"


class CutTok(Tok):
    """The string token of a cut, with what gen.py writes there: `cut` is
    "whole" (a fast-form shuffle every lane reaches: nothing), "marked" (a
    fast-form one whose lanes mark their arrival: the marks' check) or None
    (the core computes the collective).  `down`, for an in-place shfl_down
    (`v op= __shfl_down_sync(full, v, d[, W])`): (v, d's tokens' texts, W),
    which demand.py reads."""
    __slots__ = ("cut", "down")

    def __init__(self, kind, text, file, line, cut=None, down=None):
        super().__init__(kind, text, file, line)
        self.cut = cut
        self.down = down


def is_collective(name: str) -> bool:
    """True for a name warps.py counts as a warp collective, or cooperative groups."""
    return _warps.is_collective(name) or name == _warps.COOPERATIVE


def names(toks: list, lo: int, hi: int) -> set:
    """The collective names among toks[lo:hi]."""
    return {t.text for t in toks[lo:hi] if t.kind == "id" and is_collective(t.text)}


def cut(toks: list, g: S.Group):
    """(group, tokens) of kernel `g` with each collective statement written as
    record, cut, fetch (see above); Unsupported when one cannot be."""
    lo, hi = g.body
    stmts, _ = _tree.body(toks, g)
    listed = {st.lo for st in stmts} | {k.lo for st in S.walk(stmts) if st.kind == "compound"
                                        for k in st.kids}
    sites = {}                  # token index of a statement -> (its statement, call lo, call hi)
    for st in S.walk(stmts):
        if st.kind not in ("expr", "decl"):
            continue
        at = [j for j in range(st.lo, st.hi) if toks[j].kind == "id"
              and is_collective(toks[j].text)]
        if not at:
            continue
        sites[st.lo] = (st,) + _call(toks, st, at)
    covered = {j for st, _, _ in sites.values() for j in range(st.lo, st.hi)}
    for j in range(lo, hi):
        if toks[j].kind == "id" and is_collective(toks[j].text) and j not in covered:
            raise Unsupported(f"'{toks[j].text}' in a condition or loop header at line "
                              f"{toks[j].line}")
    # the sites every thread of the block reaches: no early exit in the
    # kernel, no branch around them (loops around a cut are uniform, blocks.py)
    exits = any(t.kind == "id" and t.text in EXITS for t in toks[lo:hi])
    branched = set()

    def under_branch(sts, inside):
        for st in sts:
            if inside:
                branched.add(st.lo)
            deeper = inside or st.kind in ("if", "switch")
            under_branch(st.kids, deeper)
    under_branch(stmts, False)
    locals_ = _locals(stmts, lo, hi)
    own = _own_definitions(toks, lo, hi)
    nfast = 0

    def fn(st, rw):
        nonlocal nfast
        if st.lo not in sites or sites[st.lo][0] is not st:
            return None
        _, a, b = sites[st.lo]
        at = toks[a]

        def mk(kind, text):
            return Tok(kind, text, at.file, at.line)

        def phased(p):
            return [mk("op", "("), mk("id", "pyemu_warp_phase"), mk("op", "("), mk("num", p),
                    mk("op", ")"), mk("op", ",")] + list(toks[a:b]) + [mk("op", ")")]
        wrap = st.lo not in listed      # the body of an if or a loop: one statement
        if wrap:
            first, _ = rw.new([mk("op", "{")])
        whole = not exits and st.lo not in branched
        fast = None if at.text in own else _fast(toks, st, a, b, whole, locals_, mk, nfast % 2,
                                                 ranged=not exits)
        site = CutTok("str", WARP_SITE, at.file, at.line,
                      None if fast is None else "whole" if whole else "marked",
                      None if fast is None else fast[2])
        if fast is not None:
            nfast += 1
            record, value, _ = fast
        else:
            record = [mk("op", "("), mk("id", "void"), mk("op", ")")] + phased("1u") + \
                [mk("op", ";")]
            value = phased("2u")
        start, _ = rw.new(record)
        got = [S.Stmt("expr", start + x, start + y + 1) for x, y in
               S.split_top(record, 0, len(record), ";")[:-1]]
        got.append(rw.barrier(WARP_SITE, at, site_tok=site))
        got.append(_respan(st, a, b, value, rw))
        if wrap:
            rw.new([mk("op", "}")])
            c = S.Stmt("compound", first, rw.here(), kids=got)
            c.barrier = True
            return [c]
        return got
    new, ng = _tree.rewrite(toks, g, fn)
    return ng, new


def _respan(st: S.Stmt, a: int, b: int, value: list, rw) -> S.Stmt:
    """Statement st (expr or decl) written with `value` in place of its
    tokens toks[a:b] (the collective's call)."""
    lo = rw.here()
    rw.copy(st.lo, a)
    rw.new(value)
    rw.copy(b, st.hi)
    grow = len(value) - (b - a)
    p = lambda j: j - st.lo + lo + (grow if j >= b else 0)
    pair = lambda ab: (p(ab[0]), p(ab[1])) if ab else ab
    dec = None
    if st.decl is not None:
        dec = S.Decl(pair(st.decl.spec), set(st.decl.words),
                     [S.Declarator(x.name, p(x.name_at), pair(x.ptr), pair(x.suffix),
                                   x.init_kind, pair(x.init), pair(x.whole), x.ptr_texts, x.ref)
                      for x in st.decl.decls])
    return S.Stmt(st.kind, lo, rw.here(), decl=dec, flags=set(st.flags))


def _own_definitions(toks: list, lo: int, hi: int) -> set:
    """The names of FAST that the unit defines outside the kernel toks[lo:hi]
    with a function body of its own, other than the device headers' (whose
    parameters end with the call site, pyemu_l): a user's overload, which
    the fast form would bypass."""
    out = set()
    for j, t in enumerate(toks):
        if t.kind != "id" or t.text not in FAST or lo <= j < hi or j + 1 >= len(toks) \
                or toks[j + 1].text != "(" or toks[j - 1].text in (".", "->", "::"):
            continue
        try:
            close = S.match(toks, j + 1)
        except Unsupported:
            continue
        k = close + 1
        while k < len(toks) and toks[k].kind == "id" and toks[k].text in ("const", "noexcept",
                                                                            "override"):
            k += 1
        if k < len(toks) and toks[k].text in ("{", "->") and not any(
                x.text == "pyemu_l" for x in toks[j + 2:close]):
            out.add(t.text)
    return out


def _locals(stmts: list, lo: int, hi: int) -> dict:
    """name -> [(from, to)]: the token ranges where a name declared once in
    the kernel body toks[lo:hi] names that local variable (not a reference,
    not static: each thread has its own)."""
    found, seen = {}, {}

    def visit(sts, scope_hi):
        for st in sts:
            decls = [st] if st.kind == "decl" else []
            if st.init is not None and st.init.kind == "decl":
                decls.append(st.init)
            for d in decls:
                for x in d.decl.decls:
                    seen[x.name] = seen.get(x.name, 0) + 1
                    if not x.is_ref and not d.decl.is_static:
                        found[x.name] = [(x.name_at, st.hi if d is st.init else scope_hi)]
            for kid in st.kids:
                visit(kid.kids if kid.kind == "compound" else [kid],
                      kid.hi if kid.kind == "compound" else st.hi)
    visit(stmts, hi)
    return {k: v for k, v in found.items() if seen[k] == 1}


def _literal(tok) -> "int | None":
    """The value of an integer literal token, else None."""
    if tok.kind != "num":
        return None
    text = tok.text.replace("'", "").rstrip("uUlLzZ")
    try:
        return int(text, 0) if not (len(text) > 1 and text[0] == "0" and text[1] in "0123456789") \
            else int(text, 8)
    except ValueError:
        return None


def _fast(toks: list, st: S.Stmt, a: int, b: int, whole: bool, locals_: set, mk, bank: int,
          ranged: bool = False):
    """(record, value, down) of the fast form (see the module's docstring)
    of the shuffle toks[a:b] in statement st (tokens, and CutTok.down for an
    in-place shfl_down, else None), or None where it does not apply.
    `ranged`: the kernel has no early exit, so a site under a branch is
    reached by whole warps wherever the block function's MARK is false (the
    branch's flags agree within each warp, or its condition is uniform)."""
    name = toks[a].text
    if name not in FAST:
        return None
    op, nmask, conv, trait = FAST[name]
    args = S.split_top(toks, a + 2, b - 1, ",")
    # CUDA's shuffles: mask, var, lane[, width]; OpenCL's: var, lane (a third
    # argument would be the call site's default, pyemu_f)
    if len(args) not in ((3, 4) if nmask else (2,)) or any(x == y for x, y in args):
        return None
    if nmask:
        m0, m1 = args[0]
        if m1 - m0 != 1 or _literal(toks[m0]) is None or \
                _literal(toks[m0]) & 0xFFFFFFFF != 0xFFFFFFFF:
            return None
    width = 32
    if len(args) == nmask + 3:
        w0, w1 = args[-1]
        width = _literal(toks[w0]) if w1 - w0 == 1 else None
        if width not in (1, 2, 4, 8, 16, 32):
            return None
    (v0, v1), (g0, g1) = args[nmask], args[nmask + 1]
    # the lane argument after the cut: again, when the statement writes
    # nothing but a local variable (or declares one), else as recorded
    first, end = toks[st.lo], b + 1 == st.hi
    again = end and ((st.kind == "decl" and st.decl.decls[0].init_kind == "=" and
                      st.decl.decls[0].init == (a, b)) or st.lo == a or (
        first.kind == "id" and toks[st.lo + 1].text in _ASSIGN and st.lo + 2 == a and any(
            x <= st.lo < y for x, y in locals_.get(first.text, ()))))
    lit = g1 - g0 == 1 and _literal(toks[g0]) is not None
    # v op= __shfl_down_sync(full, v, off[, w]) with v a local variable: in place
    in_place = (again or lit) and v1 - v0 == 1 and first.kind == "id" and \
        toks[v0].text == first.text and st.kind == "expr" and toks[st.lo + 1].text in _ASSIGN \
        and st.lo + 2 == a and any(x <= st.lo < y for x, y in locals_.get(first.text, ()))

    def T(text):
        # the block function's own names (its context, its linear thread
        # index) are tokens of kind "gen": the analysis does not take them
        # for the user's names (blocks.py declines those with its prefix)
        return [Tok("gen" if x.startswith(P) else "id" if re.match(r"[A-Za-z_]\w*$", x)
                    else "num" if x[0].isdigit() else "op", x, toks[a].file, toks[a].line)
                for x in text.split()]
    var = [mk("op", "(")] + list(toks[v0:v1]) + [mk("op", ")")]
    ty = T(f"{trait} < decltype (") + var + T(") >")
    buf = T("pyemu_warp_fast_buf ->")
    # two banks, alternating from site to site: the threads after this cut
    # still read its slots while they write the next site's
    slots = T("reinterpret_cast <") + ty + T("* > (") + buf + T(f"fv + {16 * SLOTS * bank}u + "
                                                               "sizeof (") + ty + \
        T(f") * {SLOTS}u )")
    lin = f"{P}lin"
    # static_cast, not a C cast: blocks.py takes `(type)(x)` for a call through a pointer
    lane_arg = T(f"static_cast < {conv} > (") + list(toks[g0:g1]) + T(")")
    record = slots + T(f"[ {lin} ] =") + var + T(";")
    if again or lit:
        arg = T("( static_cast < unsigned > (") + lane_arg + T(") & 31u )")
    else:
        record += buf + T(f"fa [ {lin} ] = static_cast < int > (") + lane_arg + T(") ;")
        arg = T("( static_cast < unsigned > (") + buf + T(f"fa [ {lin} ] ) & 31u )")
    if not whole:
        # the call site, as the general form's __builtin_FILE/LINE name it
        # (the block functions are preprocessed: __FILE__ follows their line
        # markers), where the block function says the lanes mark (MARK)
        record += T(f"if ( {MARK} )") + buf + T(f"fin [ {lin} ] = static_cast < unsigned > ( reinterpret_cast < "
                          "unsigned long > (") + \
            [mk("str", f'"{op} {toks[a].line} "'), mk("id", "__FILE__")] + \
            T(") - reinterpret_cast < unsigned long > ( & pyemu_warp_fast_anchor ) ) ;")
    W = f"{width - 1}u"
    peer = down = None
    if op == 2 and in_place and (whole or ranged):
        # in place (see the module's docstring): no record; the source lane's
        # value is its own copy of the variable, read before it is written
        lin32 = f"( static_cast < unsigned > ( {P}row ) + {P}tx )"
        peer = T("( { const unsigned pyemu_wa =") + arg + T(f"; ( {lin32} & {W} ) + pyemu_wa <= {W} ?") + \
            T("static_cast <") + ty + T(f"> ( {PEER} (") + var + T(") ) : static_cast <") + ty + \
            T("> (") + var + T(") ; } )")
        down = (toks[v0].text, tuple(t.text for t in toks[g0:g1]), width)
        if whole:
            return [], T("static_cast <") + ty + T("> (") + peer + T(")"), down
        # under a branch: where MARK is false at run time (every warp takes
        # the branch whole or not at all) in place too; where it is true the
        # lanes record and mark their arrival, and the cut checks the marks
        record = T(f"if ( {MARK} )") + record
    # a GNU statement expression: the source lane's slot and the own one are
    # both loaded, then one is chosen (a conditional load keeps g++ from
    # vectorizing the thread loop); every index lies in the slots
    # (PYEMU_WARP_FAST_SLOTS: a warp past the block), below lane 0's only
    # for shfl_up's unused load, still inside pyemu_warp_buf.fv
    head = T("( {") + ty + T("* pyemu_wF =") + slots[:] + T("; const unsigned pyemu_wa =") + \
        arg + T(";")
    if op == 0:     # the source lane b[4:0] of the segment
        got = head + T(f"pyemu_wF [ ( {lin} & ~ ( unsigned long ) {W} ) | ( pyemu_wa & {W} ) ] ;") + T("} )")
    else:
        src = {1: f"{lin} - pyemu_wa", 2: f"{lin} + pyemu_wa", 3: f"{lin} ^ pyemu_wa"}[op]
        # the lane in 32 bits, from the row loop's own counter (lin is the
        # row's start plus it): cheaper vectors than lin's 64
        lin32 = f"( static_cast < unsigned > ( {P}row ) + {P}tx )"
        lane = f"( {lin32} & 31u )"
        seg = f"( {lin32} & {W} )"
        cond = {1: f"{seg} >= pyemu_wa",                       # not below the segment
                2: f"{seg} + pyemu_wa <= {W}",                 # not past the segment
                3: f"( {lane} ^ pyemu_wa ) <= ( {lane} | {W} )"}[op]
        got = head + T("const") + ty + T(f"pyemu_wx = pyemu_wF [ {src} ] , pyemu_wy = pyemu_wF [ "
                                         f"{lin} ] ; {cond} ? pyemu_wx : pyemu_wy ;") + T("} )")
    if peer is not None:
        got = T(f"( {MARK} ?") + got + T(":") + peer + T(")")
    value = T("static_cast <") + ty + T("> (") + got + T(")")
    return record, value, (down if peer is not None else None)


def _call(toks: list, st: S.Stmt, at: list) -> tuple:
    """(lo, hi) of the one collective call of statement st, in an accepted form."""
    line = toks[st.lo].line
    name = toks[at[0]].text
    if len(at) != 1 or name not in CUTS:
        raise Unsupported(f"'{name}' at line {line} cannot be cut in a block function"
                          if name not in CUTS else f"two warp collectives in one statement "
                          f"at line {line}")
    a = at[0]
    if a + 1 >= st.hi or toks[a + 1].text != "(":
        raise Unsupported(f"'{name}' at line {line} is not called")
    b = S.match(toks, a + 1, st.hi) + 1
    before = {t.text for t in toks[st.lo:a]}
    if before & {"?", "&&", "||", "sizeof", "alignof", "decltype", "noexcept", "typeid"}:
        raise Unsupported(f"'{name}' at line {line} may not be evaluated (an operand of "
                          "?:, && or ||, or unevaluated)")
    if st.kind == "decl" and len(st.decl.decls) != 1:
        raise Unsupported(f"'{name}' at line {line} in a declaration of several variables")
    j = a + 2
    while j < b - 1:
        dim = _dim_at(toks, j, b - 1)   # threadIdx.x, blockDim.x, ...: no call, though
        if dim is not None:             # the thread context's expansion holds one
            j = dim[2]
            continue
        t = toks[j]
        if t.text in _ASSIGN or t.text in ("++", "--") or (
                t.text == "(" and toks[j - 1].kind == "id"
                and toks[j - 1].text not in ("sizeof", "alignof")):
            raise Unsupported(f"the operands of '{name}' at line {line} may have side "
                              "effects (a call, an assignment or ++/--)")
        j += 1
    return a, b


def hidden(toks: list, groups: list) -> tuple:
    """(reason, names): a reason to keep every kernel of the unit on fibers
    when a method or lambda of the user's ('other' groups) reaches a
    collective (its member calls are not seen), else ''; and the names of
    the user's function templates that reach one, and of the functions that
    call those (not inlined: a kernel calling them runs on fibers)."""
    names, grew = set(), True
    users = [g for g in groups if g.kind in ("other", "function", "template")]
    while grew:
        grew = False
        for g in users:
            body = {t.text for t in toks[g.body[0]:g.body[1]] if t.kind == "id"}
            if g.kind == "function":    # inlined when it names collectives itself
                if body & names and g.name not in names:
                    names.add(g.name)
                    grew = True
                continue
            if not (body & names or any(is_collective(n) for n in body)):
                continue
            if g.kind == "other":
                return "a class or lambda of the unit reaches a warp collective", set()
            if g.name not in names:
                names.add(g.name)
                grew = True
    return "", names
