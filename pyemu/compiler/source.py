"""Source text helpers for pyemu.compiler: the tokenizer of the source-level
passes (opencl.rewrite_opencl, smem.rewrite_decl), c_string, and
rewrite_source, the line-preserving rewrite of `extern __shared__` and
static `__shared__` declarations in CUDA source (the driver has the front end,
pyemu.compiler.frontend, make these edits in the preprocessed unit; the
regions tests build their units with this one).  Kernels are found by the
front end.

Pure functions of text; no compiler runs here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# ----------------------------------------------------------- tokenizing

_TOKEN_RE = re.compile(r"""
  (?P<ws>(?:[ \t\r\f\v]|\\\r?\n)+)
| (?P<nl>\n)
| (?P<comment>//(?:[^\n\\]|\\.|\\\n)*|/\*.*?\*/)
| (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
| (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
| (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
| (?P<num>\.?\d(?:[eEpP][+-]|[\w.]|'\w)*)
| (?P<id>[A-Za-z_$][\w$]*)
| (?P<punct>::|.)
""", re.S | re.X)


@dataclass
class _Tok:
    kind: str
    text: str
    start: int
    end: int


def _code_tokens(text: str) -> list:
    """Tokens of code, without whitespace, comments and preprocessor lines,
    nor the code in `#if 0` blocks (the one condition known without g++)."""
    out, at_line_start, directive, dead = [], True, None, []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup if m.lastgroup != "delim" else "raw"
        if kind == "nl":
            if directive is not None:
                _track_conditional(directive, dead)
            at_line_start, directive = True, None
            continue
        if kind in ("ws", "comment"):
            continue
        if at_line_start and m.group() == "#":
            directive = []
        at_line_start = False
        if directive is not None:
            directive.append(m.group())
        elif not any(dead):
            out.append(_Tok(kind, m.group(), m.start(), m.end()))
    return out


def _track_conditional(words: list, dead: list) -> None:
    """Follows #if/#else/#endif nesting; dead[i] is True inside `#if 0`."""
    name = words[1] if len(words) > 1 else ""
    if name in ("if", "ifdef", "ifndef"):
        dead.append(name == "if" and words[2:] == ["0"])
    elif name in ("else", "elif") and dead:
        dead[-1] = False
    elif name == "endif" and dead:
        dead.pop()


def _skip_group(toks: list, i: int) -> int:
    """Index after the balanced (...) or [...] group that starts at toks[i]."""
    pairs = {"(": ")", "[": "]"}
    stack = [pairs[toks[i].text]]
    i += 1
    while i < len(toks) and stack:
        t = toks[i].text
        if t in pairs:
            stack.append(pairs[t])
        elif t == stack[-1]:
            stack.pop()
        i += 1
    return i


_ATTR_WORDS = {"__attribute__", "__align__", "alignas", "__launch_bounds__", "__declspec"}


def _skip_attribute(toks: list, i: int) -> int:
    """Index after an attribute at toks[i], or i when there is none."""
    t = toks[i].text
    if t in _ATTR_WORDS and i + 1 < len(toks) and toks[i + 1].text == "(":
        return _skip_group(toks, i + 1)
    if t == "[" and i + 1 < len(toks) and toks[i + 1].text == "[":
        return _skip_group(toks, i)
    return i


# ------------------------------------------------- extern __shared__ rewrite

def _is_file_scope(stack: list) -> bool:
    return all(stack)


def _brace_kind(stmt: list) -> bool:
    """True for a namespace or extern "C" brace (still file scope)."""
    words = [t.text for t in stmt]
    return "namespace" in words or (len(stmt) == 2 and words[0] == "extern"
                                    and stmt[1].kind in ("str", "raw"))


def _parse_shared_decl(toks: list, src: str):
    """(type, name, dims) of `extern __shared__ T name[]...`, else None."""
    words, i = [], 0
    while i < len(toks):
        j = _skip_attribute(toks, i)
        if j != i:
            i = j
            continue
        if toks[i].text not in ("extern", "__shared__"):
            words.append(toks[i])
        i += 1
    # words: T... name [ ] ([ n ])*
    try:
        k = next(n for n, t in enumerate(words) if t.text == "[")
    except StopIteration:
        return None
    if k < 2 or words[k - 1].kind != "id" or k + 1 >= len(words) or words[k + 1].text != "]":
        return None
    rest = words[k + 2:]
    if rest and (rest[0].text != "[" or rest[-1].text != "]"):
        return None
    ttype = " ".join(t.text for t in words[:k - 1])
    dims = src[rest[0].start:rest[-1].end] if rest else ""
    return ttype, words[k - 1].text, dims


def rewrite_source(source: str, source_name: str, kernels=None) -> str:
    """Rewrites dynamic shared memory declarations, keeping line numbers.

    In a function body, `extern __shared__ T s[];` becomes
    `T *const s = (T *)pyemu_tctx.dyn_smem_base;` on the same line.  At file
    scope it becomes `#define s ((T *)pyemu_tctx.dyn_smem_base)` on a line
    of its own, between #line directives that keep the numbering (so uses
    of `ns::s` for a declaration inside a namespace do not work).  A static
    `__shared__` variable in a function body becomes a reference into the
    block's shared memory arena (pyemu.compiler.smem), in its kernel's
    segment (`kernels`: the kernel names the scan found, where known).
    """
    from .smem import kernel_segment, rewrite_decl
    toks = _code_tokens(source)
    edits, stack, stmt_start, i, smem_id = [], [], 0, 0, 1
    seg, body_depth = 0, 1 << 30      # the segment of the function we are in
    while i < len(toks):
        t = toks[i].text
        if t == "{":
            if _is_file_scope(stack):   # a function's body, or a namespace's
                words = [x.text for x in toks[stmt_start:i]]
                seg = kernel_segment(words, kernels)
                body_depth = len(stack) + 1
            stack.append(_brace_kind(toks[stmt_start:i]))
            stmt_start = i + 1
        elif t == "}":
            if stack:
                stack.pop()
            if len(stack) < body_depth:
                seg, body_depth = 0, 1 << 30
            stmt_start = i + 1
        elif t == ";":
            stmt_start = i + 1
        elif t in ("extern", "__shared__"):
            j = i
            while j < len(toks) and toks[j].text not in (";", "{", "}"):
                j += 1
            decl = toks[i:j]
            words = {d.text for d in decl}
            if j < len(toks) and toks[j].text == ";" and {"extern", "__shared__"} <= words:
                parsed = _parse_shared_decl(decl, source)
                if parsed:
                    edits.append((toks[i].start, toks[j].end, parsed, _is_file_scope(stack)))
                    i = j
                    continue
            elif (j < len(toks) and toks[j].text == ";" and t == "__shared__"
                  and "extern" not in words and not _is_file_scope(stack)):
                # a static __shared__ variable: in the block's arena (smem.py)
                start = toks[stmt_start].start if stmt_start <= i else toks[i].start
                done = rewrite_decl(source[start:toks[j].end], smem_id, seg)
                if done:
                    smem_id += done[1]
                    edits.append((start, toks[j].end, done[0], None))
                    i = j
                    continue
        i += 1
    out, last = [], len(source)
    for start, end, parsed, file_scope in reversed(edits):
        if file_scope is None:          # written already
            out.append(source[end:last])
            out.append(parsed)
            last = start
            continue
        (ttype, name, dims), span = parsed, source[start:end]
        if dims:
            ptr, cast = f"{ttype} (*const {name}){dims}", f"({ttype} (*){dims})"
        else:
            ptr, cast = f"{ttype} *const {name}", f"({ttype} *)"
        if file_scope:
            # the macro is reported at the declaration's first line
            first, last_line = source.count("\n", 0, start) + 1, source.count("\n", 0, end) + 1
            text = (f"\n#line {first} {c_string(source_name)}\n"
                    f"#define {name} ({cast}pyemu_tctx.dyn_smem_base)\n"
                    f"#line {last_line} {c_string(source_name)}\n")
        else:
            text = f"{ptr} = {cast}pyemu_tctx.dyn_smem_base;" + "\n" * span.count("\n")
        out.append(source[end:last])
        out.append(text)
        last = start
    out.append(source[:last])
    return "".join(reversed(out))


def c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
