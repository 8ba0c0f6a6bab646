"""int indices for block functions: unsigned index arithmetic that g++ can vectorize.

`int i = blockIdx.x * 32 + threadIdx.x;` computes in unsigned int (size_t
in OpenCL C, `get_group_id(0) * 32 + get_local_id(0)`) and converts the
result to int.  g++ cannot tell that the unsigned sum does not wrap, so
`a[i]` in a loop over threadIdx.x is a "complicated access pattern" to it
and the loop stays scalar.  When such an initializer or right-hand side is
a polynomial of the block's indices and non-negative integer literals (+, *,
parentheses, casts to integer types), the block function computes it in int
instead, which is the same value whenever no part of it exceeds INT_MAX; a
guard checks that once per block with the largest values the indices take
(threadIdx < blockDim, blockIdx < gridDim), and the block function declines
the block otherwise (it then runs on the plain loop / fibers, unchanged).
PoCL's LLVM guards the same loops with an overflow check of its own.
"""
from __future__ import annotations

import re

from . import syntax as S

INT_MAX = 2147483647
_LIT = re.compile(r"^(0|[1-9][0-9]*)[uUlL]*$")
# casts that keep every value 0..INT_MAX (a cast to short or char would not)
_INT_TYPES = {"size_t", "uint", "unsigned", "int", "long", "signed", "ulong",
              "ptrdiff_t", "intptr_t", "uintptr_t"}


class Poly:
    """A parsed index polynomial: ('dim', builtin, comp) | ('lit', value) |
    ('+', a, b) | ('*', a, b)."""

    def __init__(self, node):
        self.node = node

    def text(self, prefix: str, short: dict) -> str:
        """C++ of the value computed in int (the indices cast to int)."""
        def go(n):
            if n[0] == "dim":
                return f"((int){prefix}{short[n[1]]}{n[2]})"
            if n[0] == "lit":
                return str(n[1])
            return f"({go(n[1])} {n[0]} {go(n[2])})"
        return go(self.node)

    def guard(self, prefix: str) -> set:
        """C++ conditions (as doubles, exact here) that every part of the
        polynomial stays <= INT_MAX for every thread and block of the launch,
        and (in unsigned int) that the block's sizes it reads do."""
        out = set()

        def most(n):
            if n[0] == "dim":
                c = n[2]
                # the loop counters' bound also in unsigned int, which g++'s
                # value ranges read (they cannot read the doubles): with it
                # `(int)tx` of the counter cannot wrap, `a[i]` is an affine
                # access, and a store through it is no longer a scatter that
                # "may alias" a load from the shared arena (both region loops
                # of transpose32 stayed scalar without it)
                if n[1] in ("threadIdx", "blockDim"):
                    out.add(f"{prefix}bd{c} <= {INT_MAX}u")
                v = {"threadIdx": f"({prefix}bd{c} - 1u)", "blockIdx": f"({prefix}gd{c} - 1u)",
                     "blockDim": f"{prefix}bd{c}", "gridDim": f"{prefix}gd{c}",
                     "global_offset": f"{prefix}go{c}"}[n[1]]
                text = f"(double){v}"
            elif n[0] == "lit":
                return str(n[1]) + ".0"
            else:
                text = f"({most(n[1])} {n[0]} {most(n[2])})"
            out.add(f"{text} <= {INT_MAX}.0")
            return text
        most(self.node)
        return out


def parse(toks: list, lo: int, hi: int, dim_at):
    """A Poly when toks[lo:hi] is exactly an index polynomial, else None."""
    try:
        node, j = _sum(toks, lo, hi, dim_at)
    except (_No, S.Unsupported):
        return None
    return Poly(node) if j == hi and _has_dim(node) else None


class _No(Exception):
    pass


def _has_dim(n) -> bool:
    return n[0] == "dim" or (n[0] in "+*" and (_has_dim(n[1]) or _has_dim(n[2])))


def _sum(toks, j, hi, dim_at):
    a, j = _product(toks, j, hi, dim_at)
    while j < hi and toks[j].text == "+":
        b, j = _product(toks, j + 1, hi, dim_at)
        a = ("+", a, b)
    return a, j


def _product(toks, j, hi, dim_at):
    a, j = _factor(toks, j, hi, dim_at)
    while j < hi and toks[j].text == "*":
        b, j = _factor(toks, j + 1, hi, dim_at)
        a = ("*", a, b)
    return a, j


def _factor(toks, j, hi, dim_at):
    if j >= hi:
        raise _No
    t = toks[j]
    dim = dim_at(toks, j, hi)
    if dim is not None:
        return ("dim", dim[0], dim[1]), dim[2]
    if t.kind == "num":
        m = _LIT.match(t.text)
        if not m or int(m.group(1)) > INT_MAX:
            raise _No
        return ("lit", int(m.group(1))), j + 1
    if t.text == "(":
        k = j + 1
        while k < hi and toks[k].text in _INT_TYPES:
            k += 1
        if k > j + 1 and k < hi and toks[k].text == ")":     # a cast to an integer type
            return _factor(toks, k + 1, hi, dim_at)
        end = S.match(toks, j, hi)
        node, k = _sum(toks, j + 1, end, dim_at)
        if k != end:
            raise _No
        return node, end + 1
    raise _No


def int_spans(k, dim_at) -> dict:
    """{first token: (end, Poly)} of the initializers and right-hand sides
    in kernel `k` that convert an index polynomial to a plain `int` variable."""
    toks = k.toks
    ints, others = set(), {v.name for v in k.param_vars}
    spans = {}
    for d in k.decls:
        plain = d.words <= {"int", "signed", "const"} and "int" in d.words
        for dd in d.decls:
            simple = plain and not dd.ptr_texts and dd.suffix[0] == dd.suffix[1]
            (ints if simple else others).add(dd.name)
            if simple and dd.init_kind == "=":
                p = parse(toks, dd.init[0], dd.init[1], dim_at)
                if p is not None:
                    spans[dd.init[0]] = (dd.init[1], p)
    ints -= others
    for j in range(k.lo + 1, k.hi - 2):
        t = toks[j]
        if t.kind == "id" and t.text in ints and toks[j + 1].text == "=" and \
                toks[j - 1].text in (";", "{", "}", "else"):
            end = j + 2
            depth = 0
            while end < k.hi:
                w = toks[end].text
                if w in ("(", "[", "{"):
                    depth += 1
                elif w in (")", "]", "}"):
                    depth -= 1
                    if depth < 0:
                        break
                elif w in (";", ",") and depth == 0:
                    break
                end += 1
            if end < k.hi and toks[end].text == ";":
                p = parse(toks, j + 2, end, dim_at)
                if p is not None:
                    spans[j + 2] = (end, p)
    return spans
