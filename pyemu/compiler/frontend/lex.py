"""Tokens of C/C++ text by clang's own lexer (libclang's clang_tokenize):
the one tokenizer of pyemu's kernel compiler.

Every pass that reads source as tokens gets them here, so they all split
text exactly as a C++ compiler does (raw strings, digit separators,
digraphs, line splices, comments): the OpenCL pre-pass on the user's source
(pyemu.compiler.opencl), the declarations of shared memory
(pyemu.compiler.smem), the regions pass on the preprocessed unit
(pyemu.compiler.regions.syntax) and the front end's reading of attribute
arguments and vector literals (pyemu.compiler.frontend.parse).

lex(text) lexes a buffer of its own: a translation unit of just that text,
wrapped in `#if 0` ... `#endif` so that clang's preprocessor skips it and
nothing is parsed, nor any file included; clang_tokenize then lexes it raw,
as the lexer does before preprocessing (directives are tokens like any
others: `#`, `define`, ...).  It is read as C++17, what g++ compiles every
unit as (OpenCL C included).  in_unit() gives the tokens of a range of a
unit the front end has parsed already.

A token is (kind, start, end): offsets into the text, and kind one of
'id' (identifiers and keywords), 'num', 'str', 'chr', 'raw' (a raw string
literal), 'op' (punctuation) and 'comment'.

cindex's Token objects cost several calls into libclang each (about 30 us a
token); the tokens are read here straight from the array clang_tokenize
returns, whose words hold each token's kind, location and length.  That
layout is libclang's own (CXToken is opaque in its API), so each call checks
it on tokens whose place is known (the `#if 0` wrapper; in a unit, the first
and last token through the public API) and else reads every token the
public way.
"""
from __future__ import annotations

import atexit
import ctypes
import threading

from .libclang import cindex, index

__all__ = ["lex", "in_unit", "kind_of", "code"]

_PREFIX = "#if 0\n"
_SUFFIX = "\n#endif\n"
_NAME = "pyemu_lex.cpp"
_ARGS = ["-x", "c++", "-std=c++17", "-undef", "-nostdinc", "-nostdinc++", "-w",
         "-Wno-everything", "-ferror-limit=0"]
# CXTokenKind
_KINDS = ("op", "id", "id", None, "comment")
_LITERAL = 3


def kind_of(spelling: str) -> str:
    """The kind of a literal's spelling: 'num', 'str', 'chr' or 'raw'."""
    c = spelling[:1]
    if c.isdigit() or c == ".":
        return "num"
    q = min((i for i in (spelling.find('"'), spelling.find("'")) if i >= 0), default=-1)
    if q < 0:
        return "num"
    if spelling[q] == "'":
        return "chr"
    return "raw" if spelling[:q].endswith("R") else "str"


def lex(text: str) -> list:
    """The tokens (kind, start, end) of `text` (wire text: one character a
    byte), comments included, in order."""
    if not text:
        return []
    ci = cindex()
    buf = _PREFIX + text + _SUFFIX
    data = buf.encode("latin-1")
    with _lock:
        tu = _buffer_unit(ci, data)
        f = tu.get_file(_NAME)
        raw, _ = _tokenize(ci, tu, f, 0, len(data))
    n = len(_PREFIX)
    # the wrapper's tokens are where this module put them: `#` `if` `0` ... `#` `endif`
    ok = (len(raw) >= 5 and [(k, s, ln) for k, s, ln in raw[:3]] == [(0, raw[0][1], 1),
                                                                   (1, raw[0][1] + 1, 2),
                                                                   (3, raw[0][1] + 4, 1)]
          and raw[-1][2] == 5 and raw[-1][1] - raw[0][1] == len(data) - 6)
    if not ok:
        return _public(ci, tu, f, text, 0, len(text), -n)
    base = raw[0][1] + n
    out = []
    for k, s, ln in raw[3:-2]:
        start = s - base
        out.append((_KINDS[k] if k != _LITERAL else kind_of(text[start:start + ln]),
                    start, start + ln))
    return out


_lock = threading.Lock()
_unit = []      # the buffer's translation unit, reparsed for each text (a third of a parse)
atexit.register(_unit.clear)    # disposed while cindex is still there


def _buffer_unit(ci, data: bytes):
    """The translation unit of buffer `data` (under _lock)."""
    if _unit:
        try:
            _unit[0].reparse(unsaved_files=[(_NAME, data)])
            return _unit[0]
        except ci.TranslationUnitLoadError:
            _unit.clear()
    tu = index().parse(_NAME, _ARGS, unsaved_files=[(_NAME, data)],
                       options=ci.TranslationUnit.PARSE_INCOMPLETE
                       | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    _unit[:] = [tu]
    return tu


def in_unit(tu, text: str, start: int, end: int) -> list:
    """The tokens (kind, start, end) of text[start:end] that start before
    `end`: a range of the main file of `tu`, which was parsed from `text`."""
    ci = cindex()
    f = tu.get_file(tu.spelling)
    raw, ends = _tokenize(ci, tu, f, start, end, check=True)
    if not raw:
        return []
    (a0, b0), (a1, b1) = ends      # the first and last token, the public way
    base = raw[0][1] - a0
    if not (b0 - a0 == raw[0][2] and a1 == raw[-1][1] - base
            and b1 - a1 == raw[-1][2]):
        return _public(ci, tu, f, text, start, end)
    out = []
    for k, s, ln in raw:
        a = s - base
        if a >= end:
            break
        out.append((_KINDS[k] if k != _LITERAL else kind_of(text[a:a + ln]), a, a + ln))
    return out


def code(text: str, toks: list, lo: int = 0) -> list:
    """The tokens of `toks` (lex() of text, or of a part of it that starts
    at offset `lo`, a line's start) without comments, as (kind, start, end, first): `first`
    says the token is the first of its logical line (a newline that no
    backslash splices lies before it, outside comments: a comment is
    whitespace, and one that spans lines does not end a directive)."""
    out, prev, newline = [], lo, True
    for kind, a, b in toks:
        gap = text[prev:a]
        if "\n" in gap and "\n" in gap.replace("\\\r\n", "").replace("\\\n", ""):
            newline = True
        prev = b
        if kind == "comment":
            continue
        out.append((kind, a, b, newline))
        newline = False
    return out


class _CXToken(ctypes.Structure):
    _fields_ = [("int_data", ctypes.c_uint * 4), ("ptr_data", ctypes.c_void_p)]


def _tokenize(ci, tu, f, start: int, end: int, check: bool = False) -> tuple:
    """clang_tokenize of [start, end) of file f: ([(CXTokenKind, raw location,
    length)], and with `check` the offsets (start, end) of the first and the
    last token as libclang's public API gives them)."""
    lib = ci.conf.lib
    rng = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, f, start),
                                        ci.SourceLocation.from_offset(tu, f, end))
    mem, count = ctypes.POINTER(ci.Token)(), ctypes.c_uint()
    lib.clang_tokenize(tu, rng, ctypes.byref(mem), ctypes.byref(count))
    n = count.value
    if n < 1:
        return [], None
    try:
        size = ctypes.sizeof(ci.Token)
        if size != ctypes.sizeof(_CXToken) or size % 4:
            return [], None
        words = memoryview(ctypes.string_at(mem, n * size)).cast("I")
        step = size // 4
        raw = list(zip(words[0::step], words[1::step], words[2::step]))
        ends = None
        if check:
            ends = []
            for i in (0, n - 1):
                t = ci.Token()
                t.int_data, t.ptr_data, t._tu = mem[i].int_data, mem[i].ptr_data, tu
                e = lib.clang_getTokenExtent(tu, t)
                ends.append((e.start.offset, e.end.offset))
        return raw, ends
    finally:
        lib.clang_disposeTokens(tu, mem, count)


def _public(ci, tu, f, text, start, end, delta=0) -> list:
    """The tokens of text[start:end] through cindex's Token objects (slow):
    the way when the token array is not laid out as _tokenize reads it."""
    rng = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, f, start - delta),
                                        ci.SourceLocation.from_offset(tu, f, end - delta))
    out = []
    for t in tu.get_tokens(extent=rng):
        e = t.extent
        a, b = e.start.offset + delta, min(e.end.offset + delta, end)
        if a >= end:
            break
        k = t.kind.value
        out.append((_KINDS[k] if k != _LITERAL else kind_of(text[a:b]), a, b))
    return out
