"""OpenCL C source, made ready for g++, and what clGetKernelArgInfo reports.

pyemu compiles OpenCL C 1.2 as C++17 against include/pyemu/opencl_device.h.
The two languages differ in a few places that no header can bridge; the
rewrite here closes them, token by token, keeping every line where it was
(diagnostics point at the user's lines):

* a vector literal `(float4)(a, b, c, d)` would be a C-style cast of a comma
  expression in C++; it becomes `float4(a, b, c, d)`;
* a kernel-scope `__local` variable is one per work-group: it becomes a
  reference into the work-group's shared memory arena (pyemu.compiler.smem),
  as CUDA's `__shared__` does (`static __thread` where that cannot read the
  declaration: one per worker, unguarded); a kernel-scope `__constant`
  variable becomes `static`;
* identifiers that are keywords in C++ only (`new`, `class`, `this`, ...)
  are renamed `pyemu_kw_<name>` (g++ runs with -fno-operator-names, so
  `and`, `or`, `not` need nothing);
* `get_local_id(0)` and the other work-item functions with a literal
  dimension become the field they read (cl_workitem.h), which
  pyemu/compiler/regions/ knows as the thread index or a uniform value;
* a swizzle that the vector classes have no member for (`v.s3c5`, `v.odd.lo`)
  is spelled as gen_cl.py says (`v.pyemu_sw3<0x3c5>()`); `__local`
  declarations in `#define` bodies are treated as in code.

vector_ternary() turns one `c ? a : b` into `pyemu_vternary(c, a, b)`, a
component-wise select: pyemu.compiler calls it where g++ found that `c` is a
vector (C++ cannot overload ?:), and builds again.

kernel_info() reads the kernels' declarations in the preprocessed scan
(where the header turned `__kernel`, `__global`, ... into marker tokens):
argument names, types, address and type qualifiers, and the attributes.

Pure functions of text; no compiler runs here.
"""
from __future__ import annotations

import re

from . import smem as _smem
from .source import (_TOKEN_RE, _Tok, _decl_tokens, _skip_group,
                               _without_system_headers)

__all__ = ["rewrite_opencl", "kernel_info", "vector_ternary", "KERNEL_MARKER"]

KERNEL_MARKER = "__pyemu_kernel__"
_SPACES = {"__pyemu_as_global__": "global", "__pyemu_as_local__": "local",
           "__pyemu_as_constant__": "constant", "__pyemu_as_private__": "private"}
_ACCESS = {"__pyemu_acc_read_only__": "read_only", "__pyemu_acc_write_only__": "write_only",
           "__pyemu_acc_read_write__": "read_write"}

# Keywords of C++17/20 that are ordinary identifiers in OpenCL C.
CXX_ONLY = frozenset("""alignas alignof catch char8_t char16_t char32_t class concept
    const_cast consteval constexpr constinit co_await co_return co_yield decltype delete
    dynamic_cast explicit export friend mutable namespace new noexcept nullptr operator
    protected public reinterpret_cast requires static_assert static_cast template this
    thread_local throw try typeid typename using virtual wchar_t""".split())

_SCALARS = r"(?:u?char|u?short|u?int|u?long|float|double|half|bool)"
_VECTOR_RE = re.compile(_SCALARS + r"(?:2|3|4|8|16)")
_LOCAL = {"__local", "local"}
_CONSTANT = {"__constant", "constant"}
_NOT_BEFORE_LITERAL = {"sizeof", "alignof", "__alignof__", "_Alignof", "vec_step"}


def _tokens(text: str) -> list:
    """Every token outside comments; tokens of preprocessor lines have kinds
    "pp" + kind, and the `#` that starts one has kind "ppstart"."""
    out, at_line_start, in_directive = [], True, False
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup if m.lastgroup != "delim" else "raw"
        if kind == "nl":
            at_line_start, in_directive = True, False
            continue
        if kind in ("ws", "comment"):
            continue
        start = at_line_start and m.group() == "#"
        if start:
            in_directive = True
        at_line_start = False
        out.append(_Tok("ppstart" if start else "pp" + kind if in_directive else kind,
                        m.group(), m.start(), m.end()))
    return out


_WORKITEM = {"get_local_id", "get_group_id", "get_local_size", "get_enqueued_local_size",
             "get_num_groups", "get_global_offset", "get_global_size", "get_global_id"}
_DIM_LITERAL = {"0": "x", "1": "y", "2": "z", "0u": "x", "1u": "y", "2u": "z",
                "0U": "x", "1U": "y", "2U": "z"}


def vector_typedefs(pre: str) -> frozenset:
    """Names that `typedef` makes for vector types in a preprocessed unit
    (`typedef float4 vec4;`, chains too), so that `(vec4)(1, 2, 3, 4)` is
    read as the vector literal it is."""
    found = {m.group(2): m.group(1) for m in _TYPEDEF_RE.finditer(pre)}
    names, changed = set(), True
    while changed:
        changed = False
        for new, old in found.items():
            if new not in names and (_VECTOR_RE.fullmatch(old) or old in names) \
                    and not _VECTOR_RE.fullmatch(new):
                names.add(new)
                changed = True
    return frozenset(names)


_TYPEDEF_RE = re.compile(r"\btypedef\s+(?:(?:const|volatile|__attribute__\s*\(\([^;]*?\)\))\s+)*"
                         r"([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*(?:__attribute__\s*\(\([^;]*?\)\)\s*)?;")


def rewrite_opencl(source: str, swizzles=None) -> str:
    """OpenCL C source as clang and g++ can parse it, line for line (see
    the module doc): keywords of C++ only as names, swizzles, work-item
    functions of a literal dimension.  Vector literals, vector selects and
    __local declarations are the front end's (pyemu.compiler.frontend),
    which finds them by their types in the preprocessed unit.

    `swizzles`: pyemu/compiler/gen_cl.py (the module), whose
    swizzle_member() says how a swizzle that is no member of the vector
    classes is spelled (v.s3c5 -> v.pyemu_sw3<0x3c5>()); without it swizzles
    are left as written."""
    toks = _tokens(source)
    edits = []      # (start, end, replacement)
    directive = []      # the words of the directive we are in
    chained = False     # the member access before was a swizzle of several components
    i = -1
    while i + 1 < len(toks):
        i += 1
        t = toks[i]
        if t.kind == "ppstart":
            directive = []
            continue
        pp = t.kind.startswith("pp")
        kind = t.kind[2:] if pp else t.kind
        if pp:
            directive.append(t.text)
        # member access: swizzles no vector class has as a member
        if t.text == "." and i + 1 < len(toks) and toks[i + 1].kind.endswith("id"):
            name = toks[i + 1]
            rep = swizzles.swizzle_member(name.text, chained) if swizzles else None
            if rep is None and name.text in CXX_ONLY:
                rep = "pyemu_kw_" + name.text          # s.new, a field renamed with it
            if rep is not None:
                edits.append((name.start, name.end, rep))
            chained = rep is not None or bool(swizzles and swizzles.is_swizzle(name.text))
            i += 1
            continue
        chained = False
        if (kind == "id" and t.text in _WORKITEM and i + 3 < len(toks)
                and toks[i + 1].text == "(" and toks[i + 2].text in _DIM_LITERAL
                and toks[i + 3].text == ")"):
            # get_local_id(0) -> the field itself (cl_workitem.h)
            c = _DIM_LITERAL[toks[i + 2].text]
            edits.append((t.start, toks[i + 3].end, f"pyemu_cl_{t.text}_{c}"))
            i += 3
        elif kind == "id" and t.text in CXX_ONLY:
            # in a directive: not the directive's name, nor what #include,
            # #pragma or #error name
            if not pp or (len(directive) > 1 and directive[0] not in
                          ("include", "pragma", "error", "warning", "line")):
                edits.append((t.start, t.end, "pyemu_kw_" + t.text))
    out, last = [], 0
    for start, end, text in sorted(edits):
        out.append(source[last:start])
        out.append(text)
        last = end
    out.append(source[last:])
    return "".join(out)


def _local_decl_end(toks: list, i: int):
    """The index of the `;` that ends the __local variable declaration that
    starts at toks[i] (attributes may come first), or None when the statement
    there is something else (a pointer to __local memory, an expression)."""
    j, words = i, []
    while j < len(toks) and toks[j].text not in (";", "{", "}"):
        if toks[j].kind.startswith("pp"):
            return None
        if toks[j].text == "__attribute__" and j + 1 < len(toks) and toks[j + 1].text == "(":
            j = _skip_group(toks, j + 1)
            continue
        words.append(toks[j].text)
        j += 1
    if j >= len(toks) or toks[j].text != ";" or not _LOCAL & set(words) or "*" in words:
        return None
    return j


def _directive_end(toks: list, i: int) -> int:
    """Index after the last token of the directive whose `#` is toks[i]."""
    j = i + 1
    while j < len(toks) and toks[j].kind.startswith("pp") and toks[j].kind != "ppstart":
        j += 1
    return j


def _is_vector_literal(toks: list, i: int, directive=None, vectors=frozenset()) -> bool:
    """toks[i:] is `( float4 ) (` in a place where a cast can stand.
    `directive`: the words so far of the #directive it is in, if any."""
    if i + 3 >= len(toks):
        return False
    a, b, c = toks[i + 1], toks[i + 2], toks[i + 3]
    if not (a.kind in ("id", "ppid") and (_VECTOR_RE.fullmatch(a.text) or a.text in vectors)
            and b.text == ")"
            and c.text == "("):
        return False
    if i == 0:
        return True
    p = toks[i - 1]
    if directive is not None and len(directive) == 3 and directive[0] == "define":
        return p.end < toks[i].start    # `#define ONE (float4)(1)`, not `#define F(x)`
    if p.text in (")", "]") or p.text in _NOT_BEFORE_LITERAL:
        return False
    # after a name, `(float4)` is a call's or a declarator's parameter list
    return p.kind not in ("id", "ppid") or p.text in ("return", "case", "else", "do")


def _scope_prefix(toks: list, i: int, end: int, min_words: int = 1) -> str:
    """`static __thread ` for a __local variable declared at toks[i] in a
    function body, `static ` for a __constant one, '' for anything else (a
    pointer to __local memory, a cast, an expression).  `end`: where to stop
    looking; `min_words`: qualifier, type and name, in a #define's body."""
    words, j = [], i
    while j < end and toks[j].text not in (";", "{", "}", "=", "(", "["):
        words.append(toks[j].text)
        j += 1
    if "*" in words or len(words) < min_words:
        return ""
    if _LOCAL & set(words):
        return "static __thread "
    if _CONSTANT & set(words):
        return "static "
    return ""


# ------------------------------------------------------------- argument info

_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}
_TYPE_QUALS = ("const", "volatile", "restrict")


def kernel_info(pre: str) -> dict:
    """{kernel: info} for the kernels of a preprocessed scan (see module doc).

    info = {"args": [{"name", "type_name", "address", "access",
    "type_qualifiers"}], "reqd_work_group_size": [x, y, z],
    "work_group_size_hint": [x, y, z], "attributes": str}."""
    if KERNEL_MARKER not in pre:
        return {}
    pre = _without_system_headers(pre)
    found = {}
    for m in re.finditer(r"\b%s\b" % KERNEL_MARKER, pre):
        toks = _decl_tokens(pre, m.start())
        parsed = _parse_kernel(toks)
        if parsed is not None:
            name, info, defined = parsed
            if defined or name not in found:
                found[name] = info
    return found


def _parse_kernel(toks: list):
    """(name, info, is_definition) of the declaration that starts at the marker."""
    attrs, j = [], 1
    while j < len(toks) and toks[j].text != "(":
        if toks[j].text == "__attribute__" and j + 1 < len(toks) and toks[j + 1].text == "(":
            end = _skip_group(toks, j + 1)
            attrs.append(toks[j + 1:end])
            j = end
            continue
        if toks[j].text in (";", "{", "}"):
            return None
        j += 1
    if j >= len(toks) or toks[j - 1].kind != "id":
        return None
    name = toks[j - 1].text
    end = _skip_group(toks, j)
    params = _split_params(toks[j + 1:end - 1])
    k = end
    while k < len(toks) and toks[k].text not in ("{", ";"):
        if toks[k].text == "__attribute__" and k + 1 < len(toks) and toks[k + 1].text == "(":
            e = _skip_group(toks, k + 1)
            attrs.append(toks[k + 1:e])
            k = e
            continue
        k += 1
    info = {"args": [_arg(p, n) for n, p in enumerate(params)],
            "reqd_work_group_size": [0, 0, 0], "work_group_size_hint": [0, 0, 0],
            "attributes": ""}
    written = []
    for group in attrs:
        for attr in _split_params(group[2:-2] if len(group) > 4 else []):
            text = "".join(t.text if t.kind != "id" or n == 0 else " " + t.text
                           for n, t in enumerate(attr)).strip()
            aname = attr[0].text.strip("_") if attr else ""
            if aname in ("reqd_work_group_size", "work_group_size_hint"):
                # each argument is an integer constant expression (`BS*2` after
                # the preprocessor): g++ evaluates it (pyemu.compiler.driver puts
                # it in the module and reads the value back)
                args = _split_args(attr[2:-1]) if len(attr) > 3 else []
                exprs = ["".join((" " if n and a[n - 1].end != t.start else "") + t.text
                                 for n, t in enumerate(a)) for a in args[:3]]
                info[aname + "_expr"] = (exprs + ["1", "1", "1"])[:3]
                try:        # plain numbers are known here already
                    info[aname] = [int(x.rstrip("uUlL"), 0) for x in info[aname + "_expr"]]
                except ValueError:
                    pass
            if aname in ("reqd_work_group_size", "work_group_size_hint", "vec_type_hint"):
                written.append(text.replace(" ", ""))
    info["attributes"] = " ".join(written)
    return name, info, k < len(toks) and toks[k].text == "{"


def _split_args(toks: list) -> list:
    """Top-level comma-separated expressions (`<` is an operator here)."""
    out, cur, depth = [], [], 0
    for t in toks:
        depth += (t.text in ("(", "[", "{")) - (t.text in (")", "]", "}"))
        if t.text == "," and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    return out + [cur] if cur else out


def _split_params(toks: list) -> list:
    """Top-level comma-separated groups of a parameter list."""
    out, cur, depth = [], [], 0
    for t in toks:
        if t.text in ("(", "[", "{", "<"):
            depth += 1
        elif t.text in (")", "]", "}", ">"):
            depth -= 1
        if t.text == "," and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        out.append(cur)
    if len(out) == 1 and [t.text for t in out[0]] == ["void"]:
        return []
    return out


def _arg(toks: list, index: int) -> dict:
    """One parameter's clGetKernelArgInfo values."""
    address, access, words = "private", "none", []
    for t in toks:
        if t.text in _SPACES:
            address = _SPACES[t.text]
        elif t.text in _ACCESS:
            access = _ACCESS[t.text]
        elif t.text == "__attribute__":
            continue
        else:
            words.append(t.text)
    words = ["restrict" if w in ("__restrict__", "__restrict") else w for w in words]
    name, array = f"arg{index}", False
    while words and words[-1] == "]":      # T a[] and T a[n] are pointers
        words = words[:len(words) - 1 - words[::-1].index("[")]
        array = True
    if words and re.fullmatch(r"[A-Za-z_]\w*", words[-1]) and len(words) > 1 \
            and words[-1] not in _TYPE_QUALS and words[-2] not in ("struct", "union", "enum"):
        name = words.pop()
    if array:
        words.append("*")
    star = words.index("*") if "*" in words else len(words)
    pointee, after = words[:star], words[star:]
    quals = [q for q in _TYPE_QUALS if q in (pointee if after else [])]
    if "restrict" in after:
        quals.append("restrict")
    if address == "constant" and after and "const" not in quals:
        quals.insert(0, "const")
    base = [w for w in pointee if w not in _TYPE_QUALS]
    if len(base) >= 2 and base[0] == "unsigned":
        base = [_UNSIGNED.get(base[1], "u" + base[1])] + base[2:]
    elif base == ["unsigned"]:
        base = ["uint"]
    elif base and base[0] == "signed" and len(base) > 1:
        base = base[1:]
    type_name = " ".join(base) + "*" * after.count("*")
    # names the rewrite renamed (C++ keywords) are reported as written
    name, type_name = (x.replace("pyemu_kw_", "") for x in (name, type_name))
    return {"name": name, "type_name": type_name, "address": address, "access": access,
            "type_qualifiers": [q for q in _TYPE_QUALS if q in quals]}


# ------------------------------------------------------ vector conditions

_STOP_BACK = {",", ";", "?", ":", "{", "}", "return", "=", "+=", "-=", "*=", "/=", "%=",
              "&=", "|=", "^=", "<<=", ">>="}
_ASSIGN_START = {"+", "-", "*", "/", "%", "&", "|", "^", "<", ">", "<<", ">>"}


def vector_ternary(text: str, offset: int):
    """`c ? a : b` whose condition g++ found to be a vector (at `offset` of
    `text`) written as `pyemu_vternary(c, a, b)`, a component-wise select, as
    OpenCL C defines ?: for vector conditions (C++ cannot overload ?:).
    Returns the new text, or None when no such ?: is found there."""
    toks = [t for t in _tokens(text) if not t.kind.startswith("pp")]
    toks = _merge_assignments(toks)
    p = next((k for k, t in enumerate(toks) if t.end > offset), None)
    if p is None:
        return None
    depth = 0
    for q in range(p, len(toks)):
        s = toks[q].text
        if s in ("(", "["):
            depth += 1
        elif s in (")", "]"):
            depth = max(depth - 1, 0)   # the condition may be parenthesized
        elif s in (";", "{", "}"):
            return None
        elif s == "?" and depth == 0:
            c0 = _cond_start(toks, q)
            if c0 is None or c0 > p:
                continue
            colon = _branch_end(toks, q + 1, stop_at_colon=True)
            if colon is None or toks[colon].text != ":":
                return None
            end = _branch_end(toks, colon + 1, stop_at_colon=False)
            a, b = toks[c0], toks[end - 1]
            return (text[:a.start] + "pyemu_vternary(" + text[a.start:toks[q].start] + ","
                    + text[toks[q].end:toks[colon].start] + ","
                    + text[toks[colon].end:b.end] + ")" + text[b.end:])
    return None


def _merge_assignments(toks: list) -> list:
    """`+` `=` as one `+=` token (the tokenizer splits punctuation)."""
    out = []
    for t in toks:
        if (t.text == "=" and out and out[-1].end == t.start
                and (out[-1].text in _ASSIGN_START or out[-1].text in ("=", "!"))):
            prev = out.pop()
            out.append(_Tok("punct", prev.text + "=", prev.start, t.end))
        elif t.text in ("<", ">") and out and out[-1].text == t.text and out[-1].end == t.start:
            prev = out.pop()
            out.append(_Tok("punct", prev.text + t.text, prev.start, t.end))
        else:
            out.append(t)
    return out


def _cond_start(toks: list, q: int):
    """Index of the first token of the condition of the ?: at toks[q]."""
    depth, k = 0, q - 1
    while k >= 0:
        s = toks[k].text
        if s in (")", "]"):
            depth += 1
        elif s in ("(", "["):
            if depth == 0:
                return k + 1
            depth -= 1
        elif depth == 0 and s in _STOP_BACK:
            return k + 1
        k -= 1
    return 0


def _branch_end(toks: list, k: int, stop_at_colon: bool):
    """Index of the `:` that ends a true branch, or after the false branch."""
    depth, pending = 0, 0
    while k < len(toks):
        s = toks[k].text
        if s in ("(", "[", "{"):
            depth += 1
        elif s in (")", "]", "}"):
            if depth == 0:
                return None if stop_at_colon else k
            depth -= 1
        elif depth == 0 and s in (",", ";"):
            return None if stop_at_colon else k
        elif depth == 0 and s == "?":
            pending += 1
        elif depth == 0 and s == ":":
            if pending:
                pending -= 1
            elif stop_at_colon:
                return k
            else:
                return k
        k += 1
    return None if stop_at_colon else k
