"""Writes cl_vectors_gen.h: the repetitive part of pyemu's OpenCL C device header.

    python -m pyemu.compiler.gen_cl [OUT]   # from a checkout: rewrites
                                            # include/pyemu/detail/cl_vectors_gen.h

A build-time tool whose output is checked in (a test checks it is current);
at run time the compiler imports only its swizzle rules (swizzle_member,
is_swizzle), which must agree with the classes it wrote.

What it writes, for the OpenCL C scalar types char ... double:
  - pyemu_vec<T, N> for N = 2, 3, 4, 8, 16: components (.x .s0 .sA ...) and
    swizzles (.xy .s10 .even ...) as members of one union over the storage;
  - the typedefs char2 ... double16;
  - convert_T[n][_sat][_rte|_rtz|_rtp|_rtn], as_T[n], vloadn and vstoren,
    vload_half[n], vloada_half[n], vstore[a]_half[n][_rte|_rtz|_rtp|_rtn].
The operators and helpers these use are in cl_vector_ops.h and cl_convert.h.

Swizzles (6.1.7): a vector of 2, 3 or 4 components has every swizzle of 2, 3
or 4 of its components, in .xyzw and in .s / .S notation.  A vector of 8 or 16
has every pair (.s73), every run with a step of -2, -1, 1 or 2 (.s0123,
.s3210, .s0246, .s76543210) and .lo .hi .even .odd; other combinations of
8/16-vectors (.s0a1b, .sAbC) would need thousands of members each: the
compiler's rewrite spells those v.pyemu_sw<0, 10, 1, 11>() (any vector and
swizzle has that member template, cl_vector_ops.h).
An aligned run of 2, 4 or 8 components (.lo, .hi, .xy, .zw, .s4567) is a
pyemu_vec itself, so it has components and swizzles too (v.lo.x, v.hi.lo).
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

TYPES = [("char", "char"), ("uchar", "unsigned char"), ("short", "short"),
         ("ushort", "unsigned short"), ("int", "int"), ("uint", "unsigned int"),
         ("long", "long"), ("ulong", "unsigned long"), ("float", "float"),
         ("double", "double")]
SIZES = [2, 3, 4, 8, 16]
FLOATS = {"float", "double"}
ROUNDING = ["", "_rte", "_rtz", "_rtp", "_rtn"]
HEX = "0123456789abcdef"


def storage(n: int) -> int:
    """Components a vector occupies: a 3-vector takes the room of a 4-vector."""
    return 4 if n == 3 else n


def _runs(n: int) -> list:
    """Index tuples of the multi-component swizzles of an 8- or 16-vector."""
    out = [(a, b) for a in range(n) for b in range(n)]
    for k in (3, 4, 8, 16):
        for step in (-2, -1, 1, 2):
            for start in range(n):
                idx = tuple(start + step * j for j in range(k))
                if all(0 <= i < n for i in idx):
                    out.append(idx)
    return out


def swizzles(n: int) -> dict:
    """{member name: indices} of the multi-component swizzles of an n-vector."""
    out = {}
    if n <= 4:
        for k in (2, 3, 4):
            for idx in itertools.product(range(n), repeat=k):
                out["".join("xyzw"[i] for i in idx)] = idx
                out["s" + "".join(HEX[i] for i in idx)] = idx
                out["S" + "".join(HEX[i] for i in idx)] = idx
    else:
        for idx in _runs(n):
            for s in "sS":
                out[s + "".join(HEX[i] for i in idx)] = idx
                out[s + "".join(HEX[i].upper() for i in idx)] = idx
    ns = storage(n)
    if n > 2:   # lo/hi/even/odd of a 3-vector see it as a 4-vector
        out["lo"] = tuple(range(ns // 2))
        out["hi"] = tuple(range(ns // 2, ns))
        out["even"] = tuple(range(0, ns, 2))
        out["odd"] = tuple(range(1, ns, 2))
    return out


def is_subvector(idx: tuple, n: int) -> bool:
    """An aligned run of 2, 4 or 8 of a longer vector: a pyemu_vec member."""
    k = len(idx)
    return (k in (2, 4, 8) and k < storage(n) and idx[0] % k == 0
            and idx == tuple(range(idx[0], idx[0] + k)))


def vector_class(n: int) -> str:
    ns = storage(n)
    T = "pyemu_T"
    lines = [f"template <class {T}> struct alignas(sizeof({T}) * {ns}) pyemu_vec<{T}, {n}>",
             f"    : pyemu_vops<pyemu_vec<{T}, {n}>, {T}, {n}> {{",
             f"    typedef {T} pyemu_elem;",
             "    union {",
             f"        {T} pyemu_s[{ns}];"]
    if n <= 4:
        lines.append(f"        struct {{ {T} " + ", ".join("xyzw"[:n]) + "; };")
    for s in "sS":
        lines.append(f"        struct {{ {T} " + ", ".join(s + HEX[i] for i in range(n)) + "; };")
        if n == 16:
            upper = [f"pyemu_{s}{i}" if i < 10 else s + HEX[i].upper() for i in range(16)]
            lines.append(f"        struct {{ {T} " + ", ".join(upper) + "; };")
    if n == 2:
        lines.append(f"        struct {{ {T} lo, hi; }};")
        lines.append(f"        struct {{ {T} even, odd; }};")
    by_idx: dict = {}
    for name, idx in swizzles(n).items():
        by_idx.setdefault(idx, []).append(name)
    for idx, names in by_idx.items():
        k = len(idx)
        if is_subvector(idx, n):
            # a struct puts it at its offset, after padding of whole vectors
            off = idx[0] // k
            for name in names:   # one struct each: members of a struct follow each other
                skip = f"pyemu_vec<{T}, {k}> pyemu_skip_{name}[{off}]; " if off else ""
                lines.append(f"        struct {{ {skip}pyemu_vec<{T}, {k}> {name}; }};")
        else:
            lines.append(f"        pyemu_swz<pyemu_vec<{T}, {k}>, {T}, {ns}, {', '.join(map(str, idx))}> "
                         f"{', '.join(names)};")
    pad_body = f"pyemu_s[3] = {T}();" if ns != n else ""
    lines += [
        "    };",
        "    /* constexpr, so that arrays of vectors can be `static __thread` (the",
        "     * compiler's __local): g++ wants constant initialization there */",
        "    constexpr pyemu_vec() : pyemu_s() {}",
        "    constexpr pyemu_vec(const pyemu_vec &) = default;",
        f"    constexpr pyemu_vec({T} pyemu_v) : pyemu_s()",
        "    {",
        f"        for (int pyemu_i = 0; pyemu_i < {ns}; ++pyemu_i)",
        "            pyemu_s[pyemu_i] = pyemu_v;",
        "    }",
        "    template <class pyemu_A0, class pyemu_A1, class... pyemu_R>",
        "    constexpr pyemu_vec(const pyemu_A0 &pyemu_a0, const pyemu_A1 &pyemu_a1, const pyemu_R &...pyemu_r)",
        "        : pyemu_s()",
        "    {",
        f"        static_assert(pyemu_ncomp<pyemu_A0, pyemu_A1, pyemu_R...>::pyemu_v == {n},",
        f"                      \"a {n}-vector literal needs {n} components\");",
        "        int pyemu_k = 0;",
        "        pyemu_put(pyemu_s, pyemu_k, pyemu_a0);",
        "        pyemu_put(pyemu_s, pyemu_k, pyemu_a1);",
        "        (pyemu_put(pyemu_s, pyemu_k, pyemu_r), ...);",
        "    }",
        "    pyemu_vec &operator=(const pyemu_vec &pyemu_o)",
        "    {",
        "        __builtin_memcpy(pyemu_s, pyemu_o.pyemu_s, sizeof pyemu_s);",
        "        return *this;",
        "    }",
        f"    constexpr void pyemu_pad() {{ {pad_body} }}",
        "    /* any swizzle, by its indices: v.pyemu_sw<3, 0>() is v.s30 (a T& for one) */",
        "    template <int... pyemu_J> typename pyemu_sw_of<pyemu_T, pyemu_J...>::pyemu_t pyemu_sw()",
        "    {",
        "        return pyemu_sw_of<pyemu_T, pyemu_J...>::pyemu_make(pyemu_s);",
        "    }",
        "    template <int... pyemu_J> typename pyemu_sw_of<const pyemu_T, pyemu_J...>::pyemu_t pyemu_sw() const",
        "    {",
        "        return pyemu_sw_of<const pyemu_T, pyemu_J...>::pyemu_make(pyemu_s);",
        "    }",
        f"    PYEMU_SW_NAMED(, {n}, {ns})",
        f"    PYEMU_SW_NAMED(const, {n}, {ns})",
        f"    {T} &operator[](int pyemu_i) {{ return pyemu_s[pyemu_i]; }}",
        f"    const {T} &operator[](int pyemu_i) const {{ return pyemu_s[pyemu_i]; }}",
        "};",
        "",
    ]
    return "\n".join(lines)


# ---- for the compiler's source rewrite (pyemu/compiler/opencl.py) ----------

_PARTS = ("lo", "hi", "even", "odd")


def _swizzle_indices(name: str):
    """The component indices a swizzle spelling names, or None."""
    if len(name) >= 2 and name[0] in "sS" and all(c in "0123456789abcdefABCDEF" for c in name[1:]):
        return [int(c, 16) for c in name[1:]]
    if 1 <= len(name) <= 4 and all(c in "xyzw" for c in name):
        return ["xyzw".index(c) for c in name]
    return None


_MEMBERS: dict = {}


def _members(n: int) -> set:
    """Every component and swizzle member name of pyemu_vec<T, n>."""
    if n not in _MEMBERS:
        names = set(swizzles(n)) | {s + HEX[i] for s in "sS" for i in range(n)}
        names |= {s + HEX[i].upper() for s in "sS" for i in range(n)}
        if n <= 4:
            names |= set("xyzw"[:n])
        _MEMBERS[n] = names
    return _MEMBERS[n]


def swizzle_member(name: str, chained: bool):
    """What the member access `.name` becomes in the rewritten source, or
    None to keep it.  `chained`: the object is itself a swizzle (the access
    follows a multi-component swizzle or lo/hi/even/odd, or a rewritten one).

    A spelling that pyemu_vec<T, n> has as a member for every n it could
    apply to stays (so a user struct's field `xy` or `lo` is untouched);
    any other swizzle (.s3c5, .sCdEf, .s0312 on an 8-vector) and every
    swizzle of a swizzle (v.odd.lo, v.xy.x) becomes pyemu_swN<0x..>() or
    pyemu_lo() .. pyemu_odd(), which every vector, swizzle and view has
    (cl_vector_ops.h); the hex digits are the indices, so no comma can split
    a macro argument."""
    if name in _PARTS:
        return f"pyemu_{name}()" if chained else None
    idx = _swizzle_indices(name)
    if idx is None or len(idx) not in (1, 2, 3, 4, 8, 16):
        return None
    sizes = [n for n in SIZES if n > max(idx) and (n <= 4 or name[0] in "sS")]
    if not sizes:
        return None
    if not chained and all(name in _members(n) for n in sizes):
        return None
    return f"pyemu_sw{len(idx)}<0x{''.join(HEX[i] for i in idx)}>()"


def is_swizzle(name: str) -> bool:
    """Does `.name` make a swizzle of several components (so a member access
    after it is chained)?"""
    idx = _swizzle_indices(name)
    return name in _PARTS or (idx is not None and len(idx) > 1)


def typedefs() -> str:
    out = []
    for cl, c in TYPES:
        out.append(" ".join(f"typedef pyemu_vec<{c}, {n}> {cl}{n};" for n in SIZES))
    return "\n".join(out) + "\n"


def conversions() -> str:
    # the result type is a defaulted template parameter, so that declaring
    # these instantiates no vector class (a non-dependent return type would)
    out = []
    for cl, _ in TYPES:
        for n in [""] + [str(s) for s in SIZES]:
            t = f"{cl}{n}"
            for sat in ("", "_sat"):
                if sat and cl in FLOATS:
                    continue
                for r in ROUNDING:
                    mode = ROUNDING.index(r)
                    out.append(f"template <class pyemu_S, class pyemu_D = {t}> inline pyemu_D convert_{t}{sat}{r}"
                               f"(const pyemu_S &pyemu_x) {{ return pyemu_convert<pyemu_D, {int(bool(sat))}, {mode}>(pyemu_x); }}")
            out.append(f"template <class pyemu_S, class pyemu_D = {t}> inline pyemu_D as_{t}(const pyemu_S &pyemu_x) "
                       f"{{ return pyemu_as<pyemu_D>(pyemu_x); }}")
    return "\n".join(out) + "\n"


def loads_stores() -> str:
    out = []
    for n in SIZES:
        out.append(f"template <class pyemu_T> inline pyemu_vec<typename pyemu_remove_cvq<pyemu_T>::pyemu_t, {n}>\n"
                   f"vload{n}(size_t pyemu_o, const pyemu_T *pyemu_p) {{ return pyemu_vload<{n}>(pyemu_o, pyemu_p); }}")
        out.append(f"template <class pyemu_V, class pyemu_T>\n"
                   f"inline void vstore{n}(const pyemu_V &pyemu_v, size_t pyemu_o, pyemu_T *pyemu_p) "
                   f"{{ pyemu_vstore<{n}>(pyemu_v, pyemu_o, pyemu_p); }}")
    # half: one float per half; vloada/vstorea read a 3-vector as 4 (6.12.7).
    # Templates, so that no vector class is instantiated before a kernel uses it.
    for n in [""] + [str(s) for s in SIZES]:
        k = int(n) if n else 1
        ret = "pyemu_F" if not n else f"pyemu_vec<pyemu_F, {n}>"
        for a, stride in (("", k), ("a", storage(k))):
            out.append(f"template <class pyemu_F = float> inline {ret} vload{a}_half{n}(size_t pyemu_o, const half *pyemu_p) "
                       f"{{ return pyemu_vload_half<{ret}, {k}>(pyemu_o * {stride}, pyemu_p); }}")
        for r in ROUNDING:
            mode = ROUNDING.index(r)
            for a, stride in (("", k), ("a", storage(k))):
                out.append(f"template <class pyemu_V> inline void vstore{a}_half{n}{r}(const pyemu_V &pyemu_v, size_t pyemu_o, half *pyemu_p) "
                           f"{{ pyemu_vstore_half<{k}, {mode}>(pyemu_v, pyemu_o * {stride}, pyemu_p); }}")
    return "\n".join(out) + "\n"


def generate() -> str:
    parts = ["/* AUTOGENERATED by pyemu/compiler/gen_cl.py - do not edit; run python -m pyemu.compiler.gen_cl.\n"
             " * OpenCL C vector classes, typedefs, convert_T, as_T, vloadn/vstoren, half loads/stores. */",
             "#ifndef PYEMU_DETAIL_INSIDE",
             '#error "include <pyemu/opencl_device.h>, not this file"',
             "#endif", ""]
    parts += [vector_class(n) for n in SIZES]
    parts += [typedefs(), conversions(), loads_stores()]
    return "\n".join(parts)


def main(argv: list) -> int:
    out = Path(argv[1]) if len(argv) > 1 else \
        Path(__file__).resolve().parents[2] / "include" / "pyemu" / "detail" / "cl_vectors_gen.h"
    out.write_text(generate())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
