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
The operands are evaluated twice: hence no side effects.  Anything else
(a collective in a condition, cooperative groups, __activemask, OpenCL
sub-group reductions and scans, a cut inside a branch whose condition is not
uniform) raises Unsupported and the kernel runs on fibers in the warp form.
"""
from __future__ import annotations

from dataclasses import replace

from .. import warps as _warps
from . import syntax as S
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
# names of warps.py's test that are no collective (pure functions of the index)
PURE = {"get_sub_group_local_id", "get_sub_group_id", "get_num_sub_groups",
        "get_enqueued_num_sub_groups", "get_max_sub_group_size", "get_sub_group_size"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


def is_collective(name: str) -> bool:
    """True for a name warps.py counts as a warp collective (less the pure getters)."""
    return name not in PURE and (_warps.is_collective(name) or name == _warps.COOPERATIVE)


def names(toks: list, lo: int, hi: int) -> set:
    """The collective names among toks[lo:hi]."""
    return {t.text for t in toks[lo:hi] if t.kind == "id" and is_collective(t.text)}


def cut(toks: list, g: S.Group):
    """(group, tokens) of kernel `g` with each collective statement written as
    record, cut, fetch (see above); Unsupported when one cannot be."""
    lo, hi = g.body
    stmts = S.BodyParser(toks, set()).block(lo, hi)
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
    out, j = [], lo
    while j < hi:
        if j not in sites:
            out.append(toks[j])
            j += 1
            continue
        st, a, b = sites[j]
        at = toks[a]

        def mk(kind, text):
            return Tok(kind, text, at.file, at.line)

        def phased(p):
            return [mk("op", "("), mk("id", "pyemu_warp_phase"), mk("op", "("), mk("num", p),
                    mk("op", ")"), mk("op", ",")] + list(toks[a:b]) + [mk("op", ")")]
        body = [mk("op", "("), mk("id", "void"), mk("op", ")")] + phased("1u") + [mk("op", ";")]
        body += [mk("id", "pyemu_barrier"), mk("op", "("), mk("str", WARP_SITE), mk("op", ")"),
                 mk("op", ";")]
        body += list(toks[st.lo:a]) + phased("2u") + list(toks[b:st.hi])
        if st.lo not in listed:   # the body of an if or a loop: one statement
            body = [mk("op", "{")] + body + [mk("op", "}")]
        out += body
        j = st.hi
    return replace(g, body=(lo, lo + len(out))), toks[:lo] + out + toks[hi:]


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
    for j in range(a + 2, b - 1):
        t = toks[j]
        if t.text in _ASSIGN or t.text in ("++", "--") or (
                t.text == "(" and toks[j - 1].kind == "id"
                and toks[j - 1].text not in ("sizeof", "alignof")):
            raise Unsupported(f"the operands of '{name}' at line {line} may have side "
                              "effects (a call, an assignment or ++/--)")
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
