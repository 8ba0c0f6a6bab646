"""OpenCL C source, made ready for the front end and g++: what no header
can bridge and must be done before anything parses it.

pyemu compiles OpenCL C 1.2 as C++17 against include/pyemu/opencl_device.h.
This pass works on the user's source, token by token (clang's lexer,
pyemu/compiler/frontend/lex.py), keeping every line where it was (diagnostics point at the user's lines):

* identifiers that are keywords in C++ only (`new`, `class`, `this`, ...)
  are renamed `pyemu_kw_<name>` (g++ runs with -fno-operator-names, so
  `and`, `or`, `not` need nothing): no C++ parser reads them as names;
* `get_local_id(0)` and the other work-item functions with a literal
  dimension become the field they read (cl_workitem.h), which
  pyemu/compiler/regions/ knows as the thread index or a uniform value;
* a swizzle that the vector classes have no member for (`v.s3c5`, `v.odd.lo`)
  is spelled as gen_cl.py says (`v.pyemu_sw3<0x3c5>()`).

What needs types (vector literals, vector conditions of ?:, kernel-scope
__local and __constant variables) and what clGetKernelArgInfo reports are
the front end's (pyemu.compiler.frontend), which reads the preprocessed unit.

Pure functions of text: no compiler runs here, only clang's lexer (in process).
"""
from __future__ import annotations

from .frontend import lex as _lex

__all__ = ["rewrite_opencl", "KERNEL_MARKER", "CXX_ONLY"]

KERNEL_MARKER = "__pyemu_kernel__"

# Keywords of C++17/20 that are ordinary identifiers in OpenCL C.
CXX_ONLY = frozenset("""alignas alignof catch char8_t char16_t char32_t class concept
    const_cast consteval constexpr constinit co_await co_return co_yield decltype delete
    dynamic_cast explicit export friend mutable namespace new noexcept nullptr operator
    protected public reinterpret_cast requires static_assert static_cast template this
    thread_local throw try typeid typename using virtual wchar_t""".split())



class _Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start, end):
        self.kind, self.text, self.start, self.end = kind, text, start, end


def _tokens(text: str) -> list:
    """Every token outside comments, by clang's lexer (frontend/lex.py);
    tokens of preprocessor lines have kinds "pp" + kind, and the `#` that
    starts one has kind "ppstart"."""
    out, in_directive = [], False
    for kind, a, b, first in _lex.code(text, _lex.lex(text)):
        start = False
        if first:
            in_directive = start = text[a:b] in ("#", "%:")
        out.append(_Tok("ppstart" if start else "pp" + kind if in_directive else kind,
                        text[a:b], a, b))
    return out


_WORKITEM = {"get_local_id", "get_group_id", "get_local_size", "get_enqueued_local_size",
             "get_num_groups", "get_global_offset", "get_global_size", "get_global_id"}
_DIM_LITERAL = {"0": "x", "1": "y", "2": "z", "0u": "x", "1u": "y", "2u": "z",
                "0U": "x", "1U": "y", "2U": "z"}


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
