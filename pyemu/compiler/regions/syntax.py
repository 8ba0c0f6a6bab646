"""Syntax for pyemu.compiler.regions: tokens of preprocessed C++ (the text
the pass writes its output from), the brace groups of the unit's functions,
and the statement tree the pass works on (Stmt, Decl, Declarator over token
indices).

The tokens read the output of `g++ -E` (line markers, no comments, no
macros left), so what they show is what g++ compiles.  The groups and the
statements are the front end's (pyemu.compiler.frontend: clang's tree;
tree.py builds Stmt trees from its records); nothing here parses C++.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional


class Unsupported(Exception):
    """The kernel cannot be run region by region; str() says why."""


# ------------------------------------------------------------------ tokens

class Tok:
    """One token: kind (id, num, str, chr, raw, op, pragma), text, file index,
    line, and its offset in the text tokenize() read (-1: a token the pass made)."""
    __slots__ = ("kind", "text", "file", "line", "pos")

    def __init__(self, kind, text, file, line, pos=-1):
        self.kind, self.text, self.file, self.line, self.pos = kind, text, file, line, pos

    def __repr__(self):
        return f"Tok({self.text!r}@{self.line})"


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


# a line marker of g++ -E output: `# 12 "kernel.cu" 1 3` (not C++ to tokenize:
# the preprocessor's record of where the lines after it come from)
_MARKLINE_RE = re.compile(r'^[ \t]*\#[ \t]*(\d+)[ \t]+"((?:[^"\\\n]|\\.)*)"([ \d]*)$', re.M)


def tokenize(pre: str, files: list, skip_system: bool = True, skip_root: str = "") -> list:
    """Tokens of preprocessed text, each with the file and line it came from.

    `files` collects the file names (Tok.file indexes it).  Text from system
    headers (flag 3 of a line marker) is left out when skip_system, and text
    of the files under `skip_root` (pyemu's own headers: the pass works on the
    user's functions alone, which the front end records), without being
    scanned; #pragma lines become single 'pragma' tokens; other directives
    are dropped.  The text that is kept is lexed by clang, in one buffer
    (pyemu.compiler.frontend.lex).
    """
    index = {name: i for i, name in enumerate(files)}

    def file_index(name: str) -> int:
        if name not in index:
            index[name] = len(files)
            files.append(name)
        return index[name]

    parts, pos, fidx, line, system = [], 0, file_index("<stdin>"), 1, False
    marks = list(_MARKLINE_RE.finditer(pre))
    for n, mk in enumerate(marks + [None]):
        end = mk.start() if mk else len(pre)
        if not system and end > pos:
            parts.append((pos, end, fidx, line))
        if mk is None:
            break
        name = mk.group(2)
        name = _unescape(name) if "\\" in name else name
        was = fidx
        fidx, line = file_index(name), int(mk.group(1))
        system = (skip_system and " 3" in mk.group(3)
                  and not _system_macro(mk, marks[n + 1] if n + 1 < len(marks) else None,
                                        system, was == fidx)) \
            or bool(skip_root and name.startswith(skip_root))
        pos = mk.end() + 1
    return _scan(pre, parts)


def _flags(mk) -> set:
    return set(mk.group(3).split())


def _system_macro(mk, nxt, system: bool, same_file: bool) -> bool:
    """Whether line marker `mk` (flag 3, a system header's text) only marks
    the expansion of a system header's macro in the user's line: g++ -E
    writes `NULL` of <stddef.h> in the user's `if (p != NULL)` as
    `# 9 "kernel.cu" 3 4` / `__null` / `# 9 "kernel.cu"`.  Those tokens are
    the user's code: the marker stays in the current (non-system) file,
    neither enters (flag 1) nor returns to (flag 2) another, and the next
    marker goes back to the same file as non-system text."""
    f = _flags(mk)
    if system or not same_file or f & {"1", "2"} or nxt is None:
        return False
    g = _flags(nxt)
    return nxt.group(2) == mk.group(2) and not g & {"1", "2", "3"}


def _scan(pre: str, parts: list) -> list:
    """The tokens of the parts (start, end, file, line) of `pre`: each starts
    a line, at line `line` of file `file`."""
    from ..frontend import lex as _lex
    pieces, starts, at = [], [], 0
    for start, end, _, _ in parts:
        piece = pre[start:end]
        if not piece.endswith("\n"):
            piece += "\n"          # no token runs into the next part
        starts.append(at)
        pieces.append(piece)
        at += len(piece)
    buf = "".join(pieces)
    out, n, directive = [], -1, False
    seg_end, delta, fidx, line, counted = -1, 0, 0, 1, 0
    code = _lex.code(buf, _lex.lex(buf))
    for i, (kind, a, b, first) in enumerate(code):
        while a >= seg_end:             # the part this token is in
            n += 1
            seg_end = starts[n] + len(pieces[n])
            start, _, fidx, line = parts[n]
            delta, counted = start - starts[n], start
        p = a + delta                   # its offset in `pre`
        line += pre.count("\n", counted, p)
        counted = p
        if first:
            directive = kind == "op" and buf[a:b] in ("#", "%:")
            if directive:               # to the end of the logical line
                bol = pre.rfind("\n", 0, p) + 1
                nxt = code[i + 1] if i + 1 < len(code) else None
                if nxt is not None and not nxt[3] and buf[nxt[1]:nxt[2]] == "pragma":
                    eol = pre.find("\n", p)
                    out.append(Tok("pragma", pre[bol:eol if eol >= 0 else len(pre)].strip(),
                                   fidx, line, bol))
        if directive:
            continue
        out.append(Tok(kind, buf[a:b], fidx, line, p))
    return out


def identifiers(text: str) -> set:
    """The identifiers and keywords of C++ text (the pass's output) outside
    directives, literals and comments, by clang's lexer."""
    from ..frontend import lex as _lex
    out, directive = set(), False
    for kind, a, b, first in _lex.code(text, _lex.lex(text)):
        if first:
            directive = kind == "op" and text[a:b] in ("#", "%:")
        if kind == "id" and not directive:
            out.add(text[a:b])
    return out


def pragma_words(tok: Tok) -> list:
    """The spellings of the tokens of a 'pragma' token's line after
    `#pragma` (clang's lexer): `#pragma GCC unroll 4` gives GCC, unroll, 4."""
    from ..frontend import lex as _lex
    words = [tok.text[a:b] for kind, a, b, _ in _lex.code(tok.text, _lex.lex(tok.text))]
    return words[2:] if words[:2] in (["#", "pragma"], ["%:", "pragma"]) else []


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def match(toks: list, i: int, hi: Optional[int] = None) -> int:
    """Index of the bracket that closes the one at toks[i] ((, [ or {)."""
    hi = len(toks) if hi is None else hi
    stack = [_CLOSE[toks[i].text]]
    j = i + 1
    while j < hi:
        t = toks[j].text
        if t in _CLOSE:
            stack.append(_CLOSE[t])
        elif t in (")", "]", "}"):
            if t != stack[-1]:
                raise Unsupported(f"unbalanced '{t}' at line {toks[j].line}")
            stack.pop()
            if not stack:
                return j
        j += 1
    raise Unsupported("unbalanced brackets")


def split_top(toks: list, lo: int, hi: int, sep: str) -> list:
    """[(lo, hi)] of toks[lo:hi] split at `sep` outside brackets."""
    parts, depth, start = [], 0, lo
    for j in range(lo, hi):
        t = toks[j].text
        if t in _CLOSE:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif t == sep and depth == 0:
            parts.append((start, j))
            start = j + 1
    parts.append((start, hi))
    return parts


# ------------------------------------------------------- translation unit

@dataclass
class Group:
    """A function's brace group (blocks._groups makes them from the front end's records)."""
    kind: str                 # 'kernel', 'function', 'template', 'other'
    head: tuple               # (lo, hi) tokens before the '{'
    body: tuple               # (lo, hi) tokens inside the braces
    name: str = ""            # function or kernel name ('' when none)
    namespaces: tuple = ()    # (lo, hi) heads of the enclosing namespaces, outermost first
    qualified: str = ""       # ns::name of a kernel
    # the front end's records (pyemu.compiler.frontend.Function; tree.py
    # reads them): offsets into the text of `origin`, the unit's tokens
    stmts: Optional[tuple] = None
    unread: str = ""
    params: Optional[tuple] = ()
    parens: tuple = ()
    template_head: tuple = ()
    scope: Optional[tuple] = None   # a kernel defined outside its namespaces: their names
    space: Optional[tuple] = None   # the namespaces it is a member of (Function.space)
    key: str = ""             # its identity, clang's USR (Function.key)
    later: frozenset = frozenset()   # names declared anew after it (Function.later)
    outer: frozenset = frozenset()   # names it takes from namespace scope (Function.outer)
    origin: Optional[list] = field(default=None, repr=False, compare=False)
    pos: Optional[list] = field(default=None, repr=False, compare=False)
    # (tokens, statements, declarations) of the body in those tokens: tree.py's
    # for `origin`; a rewrite of the body (inline.py, uniform.py, ...) gives its own
    tree: Optional[tuple] = field(default=None, repr=False, compare=False)


# -------------------------------------------------------------- statements

TYPE_WORDS = {"void", "bool", "char", "wchar_t", "char8_t", "char16_t", "char32_t", "short",
              "int", "long", "signed", "unsigned", "float", "double", "__int128", "auto",
              "__fp16", "_Float16", "__bf16"}
CV_WORDS = {"const", "volatile"}
STORAGE_WORDS = {"static", "extern", "register", "thread_local", "__thread", "mutable",
                 "__pyemu_smem__",   # a static shared variable (pyemu/compiler/smem.py)
                 "inline", "constexpr", "__extension__",
                 # OpenCL C's address spaces and access qualifiers, as the scan marks them
                 "__pyemu_as_global__", "__pyemu_as_local__", "__pyemu_as_constant__",
                 "__pyemu_as_private__", "__pyemu_acc_read_only__", "__pyemu_acc_write_only__",
                 "__pyemu_acc_read_write__"}
PTR_QUALS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
@dataclass
class Declarator:
    name: str
    name_at: int              # token index of the name
    ptr: tuple                # (lo, hi) pointer operators before the name
    suffix: tuple             # (lo, hi) array bounds after the name
    init_kind: str            # '', '=', '(', '{'
    init: tuple               # (lo, hi) of the initializer (inside the brackets for ( and {)
    whole: tuple              # (lo, hi) of the whole declarator with its initializer
    ptr_texts: frozenset      # the pointer operators and qualifiers used
    ref: Optional[bool] = None  # a reference, as clang resolves its type (None: by ptr_texts)

    @property
    def is_ref(self) -> bool:
        if self.ref is not None:
            return self.ref
        return bool(self.ptr_texts & {"&", "&&"})


@dataclass
class Decl:
    spec: tuple               # (lo, hi) decl-specifiers (type and storage class)
    words: set                # the keywords among them
    decls: list               # [Declarator]

    @property
    def is_static(self):
        return bool(self.words & {"static", "extern", "thread_local", "__thread", "constexpr",
                                  "__pyemu_smem__"})


@dataclass
class Stmt:
    kind: str                 # compound if for while do switch return break continue goto
    #                           label barrier decl expr empty pragma other (a local type,
    #                           typedef, using, static_assert: no variables)
    lo: int                   # tokens [lo, hi) of the whole statement
    hi: int
    kids: list = field(default_factory=list)   # compound: statements; if: [then, else?]; loops: [body]
    cond: tuple = ()          # (lo, hi) of the condition (if, while, do, switch, for)
    init: Optional["Stmt"] = None               # for: its init statement (decl, expr or empty)
    inc: tuple = ()           # for: (lo, hi) of the increment
    decl: Optional[Decl] = None
    barrier: bool = False     # a barrier somewhere inside
    flags: set = field(default_factory=set)     # constexpr, rangefor, condecl, ...
    # a call statement (`f(a);`, `v = f(a);`, `T v = f(a);`, as clang's tree
    # says: the front end's Statement.call): (the callee's key, the index of
    # the call's first token)
    call: tuple = ()


def walk(stmts: list):
    """Every statement of a tree, parents first."""
    for st in stmts:
        yield st
        if st.init is not None:
            yield st.init
        yield from walk(st.kids)
