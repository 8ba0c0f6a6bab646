"""Static shared memory declarations as references into the block's arena.

CUDA's `__shared__ float tile[32][33];` (in a function body) and OpenCL's
kernel-scope `__local float tile[32][33];` become, on the same line,

    __pyemu_smem__ auto &tile = (pyemu_smem<K, 7, float, 0, (32), (33)>());

(include/pyemu/detail/smem.h): a reference to the running block's copy of
static shared variable 7 of segment K (the kernel's, see segment()), which lives in the block's shared memory arena,
before the dynamic part and flush with it, so that an index past the last
variable faults.  `__pyemu_smem__` tells the block functions
(pyemu/compiler/regions/) that the declaration is static.

A declaration this module cannot read (an initializer, a function
declarator, parentheses) is left to the header's fallback (`static
__thread`: each worker's own copy, correct but unguarded).
"""
from __future__ import annotations

import zlib
from typing import Optional

from .frontend import lex as _lex

STATIC_LIMIT = 48 * 1024      # ptxas: static shared memory of one kernel

# words that say where the variable lives: dropped from its type
_QUALIFIERS = {"__shared__", "__pyemu_shared__", "__local", "local", "static",
               "__pyemu_as_local__"}
_ALIGN_WORDS = {"__align__", "alignas", "_Alignas"}


def _tokens(text: str, tokens=None) -> Optional[list]:
    """(kind, text) of the tokens of `text` without comments (clang's lexer,
    frontend/lex.py; `tokens`: its tokens where the caller has them), or None
    when it holds a string or character literal."""
    out = []
    for kind, a, b in _lex.lex(text) if tokens is None else tokens:
        if kind == "comment":
            continue
        if kind in ("str", "chr", "raw"):
            return None
        out.append((kind, text[a:b]))
    return out


def _group_end(toks: list, i: int) -> int:
    """Index after the balanced group that opens at toks[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[toks[i][1]]]
    i += 1
    while i < len(toks) and stack:
        t = toks[i][1]
        if t in pairs:
            stack.append(pairs[t])
        elif t == stack[-1]:
            stack.pop()
        i += 1
    return i


def segment(kernel: Optional[str]) -> int:
    """The segment (detail/smem.h) of the static shared variables declared in
    the body of kernel `kernel` ("k", "ns::k", "k<256>": every kernel of that
    unqualified name shares one), or 0 outside kernels (device functions)."""
    if not kernel:
        return 0
    name = kernel.split("<", 1)[0].rsplit("::", 1)[-1].strip()
    return zlib.crc32(name.encode("latin-1", "replace")) | 1


def rewrite_decl(text: str, first_id: int, seg: int = 0, tokens=None) -> Optional[tuple]:
    """(replacement, number of variables) for the declaration statement
    `text` (qualifiers to the `;` included) in segment `seg`, or None when it
    is not one this module rewrites.  The replacement keeps every newline of
    `text`.  `tokens`: the tokens of `text` (frontend.lex, offsets into it),
    where the caller has them already."""
    if text.rstrip()[-1:] != ";":
        return None
    toks = _tokens(text, tokens)
    while toks and toks[-1] == ("op", ";"):
        toks.pop()
    if not toks:
        return None
    words, align, i = [], "0", 0
    while i < len(toks):
        kind, t = toks[i]
        if t in _QUALIFIERS:
            i += 1
            continue
        if t in _ALIGN_WORDS and i + 1 < len(toks) and toks[i + 1][1] == "(":
            end = _group_end(toks, i + 1)
            align = "(" + " ".join(x[1] for x in toks[i + 2:end - 1]) + ")"
            i = end
            continue
        if t == "__attribute__" and i + 1 < len(toks) and toks[i + 1][1] == "(":
            end = _group_end(toks, i + 1)
            inner = [x[1] for x in toks[i + 2:end - 1]]
            # ((aligned(n))): the only attribute a shared variable's layout needs
            if len(inner) >= 5 and inner[1] in ("aligned", "__aligned__") and inner[2] == "(":
                align = "(" + " ".join(inner[3:-2]) + ")"
            elif inner[1:] and inner[1] in ("aligned", "__aligned__"):
                align = "16"
            i = end
            continue
        if t in ("=", "(", "{", ":", "extern", "typedef", "operator", "template", "::*") or \
                t == "[" and i + 1 < len(toks) and toks[i + 1][1] == "[":
            return None
        words.append(toks[i])
        i += 1
    # words: type... declarator (, declarator)*; a declarator is
    # [* | &]... name [dims]...
    at, angle = len(words), 0
    for n, w in enumerate(words):
        angle += w[1].count("<") - w[1].count(">") if w[1] in ("<", ">", ">>") else 0
        if angle == 0 and w[1] in ("[", ","):
            at = n
            break
    if at < 2 or words[at - 1][0] != "id":
        return None
    j = at - 1
    while j > 0 and words[j - 1][1] == "*":
        j -= 1
    base = [w[1] for w in words[:j]]
    if not base or base[-1] in ("const", "volatile") and j < at - 1:
        return None
    decls, n = [], j
    while n < len(words):
        stars = []
        while n < len(words) and words[n][1] == "*":
            stars.append("*")
            n += 1
        if n >= len(words) or words[n][0] != "id":
            return None
        name = words[n][1]
        n += 1
        dims_at = n
        while n < len(words) and words[n][1] == "[":
            n = _group_end(words, n)
        dims, k = [], dims_at
        while k < n:            # each [n] as (n): no bracket in the expression
            end = _group_end(words, k)
            if end == k + 2:
                return None     # `T s[]`: no size (extern __shared__'s business)
            dims.append("(" + " ".join(w[1] for w in words[k + 1:end - 1]) + ")")
            k = end
        decls.append((name, " ".join(base + stars), dims))
        if n < len(words):
            if words[n][1] != ",":
                return None
            n += 1
    parts = [f"__pyemu_smem__ auto &{name} = (pyemu_smem<{seg}ul, {first_id + k}, {ttype}, {align}"
             + "".join(", " + d for d in dims) + ">());"
             for k, (name, ttype, dims) in enumerate(decls)]
    return " ".join(parts) + "\n" * text.count("\n"), len(decls)

