"""Syntax for pyemu._regions: tokens of preprocessed C++, the brace groups
of the unit's functions (found by the front end, pyemu.compiler.frontend),
and the statements of a kernel body.

Everything here reads the output of `g++ -E` (line markers, no comments, no
macros left), so what it sees is what g++ compiles.  It is no C++ parser: it
knows statements, declarations of local variables and balanced brackets, and
raises Unsupported for anything it cannot place, so that the caller keeps the
kernel on the fiber path.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional


class Unsupported(Exception):
    """The kernel cannot be run region by region; str() says why."""


# ------------------------------------------------------------------ tokens

_TOKEN_RE = re.compile(r"""
  (?P<nl>\n)
| (?P<ws>[ \t\r\f\v]+|\\\n)
| (?P<dir>(?<![^\n])[ \t]*\#[^\n]*)
| (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
| (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
| (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
| (?P<num>\.?\d(?:[eEpP][+-]|[\w.]|'\w)*)
| (?P<id>[A-Za-z_$][\w$]*)
| (?P<op>>>=|<<=|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\*|\#\#|.)
""", re.S | re.X)


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


_MARKLINE_RE = re.compile(r'^[ \t]*\#[ \t]*(\d+)[ \t]+"((?:[^"\\\n]|\\.)*)"([ \d]*)$', re.M)


def tokenize(pre: str, files: list, skip_system: bool = True, skip_root: str = "") -> list:
    """Tokens of preprocessed text, each with the file and line it came from.

    `files` collects the file names (Tok.file indexes it).  Text from system
    headers (flag 3 of a line marker) is left out when skip_system, and text
    of the files under `skip_root` (pyemu's own headers: the pass works on the
    user's functions alone, which the front end records), without being
    scanned; #pragma lines become single 'pragma' tokens; other directives
    are dropped.
    """
    index = {name: i for i, name in enumerate(files)}

    def file_index(name: str) -> int:
        if name not in index:
            index[name] = len(files)
            files.append(name)
        return index[name]

    out, pos, fidx, line, system = [], 0, file_index("<stdin>"), 1, False
    for mk in list(_MARKLINE_RE.finditer(pre)) + [None]:
        end = mk.start() if mk else len(pre)
        if not system:
            _scan(pre, pos, end, fidx, line, out)
        if mk is None:
            break
        name = _unescape(mk.group(2))
        fidx, line = file_index(name), int(mk.group(1))
        system = (skip_system and " 3" in mk.group(3)) or bool(skip_root
                                                              and name.startswith(skip_root))
        pos = mk.end() + 1
    return out


def _scan(pre: str, pos: int, end: int, fidx: int, line: int, out: list):
    """Appends the tokens of pre[pos:end], which starts at `line`."""
    for m in _TOKEN_RE.finditer(pre, pos, end):
        kind = m.lastgroup if m.lastgroup != "delim" else "raw"
        text = m.group()
        if kind == "nl":
            line += 1
            continue
        if kind == "ws":
            line += text.count("\n")
            continue
        if kind == "dir":
            if re.match(r"[ \t]*#[ \t]*pragma\b", text):
                out.append(Tok("pragma", text.strip(), fidx, line, m.start()))
            continue
        out.append(Tok(kind, text, fidx, line, m.start()))
        line += text.count("\n")


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
    origin: Optional[list] = field(default=None, repr=False, compare=False)
    pos: Optional[list] = field(default=None, repr=False, compare=False)
    # (tokens, statements, declarations) of the body in those tokens: tree.py's
    # for `origin`; a rewrite of the body (inline.py, uniform.py, ...) gives its own
    tree: Optional[tuple] = field(default=None, repr=False, compare=False)


_ATTR_WORDS = {"__attribute__", "__declspec", "alignas", "__align__", "__launch_bounds__"}


def _skip_angle(toks: list, i: int, hi: int) -> int:
    """Index after the <...> that starts at toks[i] (brackets inside count)."""
    depth, j = 0, i
    while j < hi:
        t = toks[j].text
        if t in ("(", "["):
            j = match(toks, j, hi) + 1
            continue
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
        elif t == ">>":
            depth -= 2
        j += 1
        if depth <= 0:
            return j
    raise Unsupported("unbalanced template brackets")


def kernel_parts(toks: list, g: Group) -> tuple:
    """(template_head (lo, hi) or None, params (lo, hi)) of a kernel's head."""
    lo, hi = g.head
    tmpl = None
    j = lo
    if toks[j].text == "template":
        end = _skip_angle(toks, j + 1, hi)
        tmpl = (j, end)
    while j < hi:
        t = toks[j].text
        if t in _ATTR_WORDS and j + 1 < hi and toks[j + 1].text == "(":
            j = match(toks, j + 1, hi) + 1
            continue
        if t == "template" and j + 1 < hi and toks[j + 1].text == "<":
            j = _skip_angle(toks, j + 1, hi)
            continue
        if t == "(" and j > lo and toks[j - 1].text == g.name:
            return tmpl, (j + 1, match(toks, j, hi))
        j += 1
    raise Unsupported("cannot find the kernel's parameter list")


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
_EXPR_WORDS = {"sizeof", "alignof", "new", "delete", "this", "true", "false", "nullptr",
               "static_cast", "const_cast", "reinterpret_cast", "dynamic_cast", "decltype",
               "throw", "noexcept", "typeid", "operator", "__builtin_offsetof"}
_OTHER_WORDS = {"typedef", "using", "struct", "class", "union", "enum", "static_assert",
                "namespace", "template", "asm", "__asm__", "__asm", "try", "co_return",
                "co_await", "co_yield", "friend"}


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
    #                           label barrier decl expr empty pragma other
    lo: int                   # tokens [lo, hi) of the whole statement
    hi: int
    kids: list = field(default_factory=list)   # compound: statements; if: [then, else?]; loops: [body]
    cond: tuple = ()          # (lo, hi) of the condition (if, while, do, switch, for)
    init: Optional["Stmt"] = None               # for: its init statement (decl, expr or empty)
    inc: tuple = ()           # for: (lo, hi) of the increment
    decl: Optional[Decl] = None
    barrier: bool = False     # a barrier somewhere inside
    flags: set = field(default_factory=set)     # constexpr, rangefor, condecl, ...


class BodyParser:
    """Statements of a kernel body (tokens toks[lo:hi], without the braces)."""

    def __init__(self, toks: list, known: set, barrier: str = "pyemu_barrier"):
        self.toks = toks
        self.known = set(known)     # names of variables seen so far
        self.barrier = barrier
        self.decls: List[Decl] = []

    def block(self, lo: int, hi: int) -> list:
        out, i = [], lo
        while i < hi:
            st = self.stmt(i, hi)
            out.append(st)
            i = st.hi
        return out

    def _text(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) else ""

    def _end(self, i: int, hi: int) -> int:
        """Index after the ';' that ends the simple statement at toks[i]."""
        j = i
        while j < hi:
            t = self.toks[j].text
            if t == ";":
                return j + 1
            if t in _CLOSE:
                j = match(self.toks, j, hi)
            j += 1
        raise Unsupported(f"statement without ';' at line {self.toks[i].line}")

    def _paren(self, i: int, hi: int, what: str) -> int:
        if self._text(i) != "(":
            raise Unsupported(f"'{what}' without '(' at line {self.toks[i - 1].line}")
        return match(self.toks, i, hi)

    def stmt(self, i: int, hi: int) -> Stmt:
        toks, t = self.toks, self.toks[i]
        w = t.text
        if t.kind == "pragma":
            return Stmt("pragma", i, i + 1)
        if w == "{":
            end = match(toks, i, hi)
            st = Stmt("compound", i, end + 1, kids=self.block(i + 1, end))
        elif w == ";":
            st = Stmt("empty", i, i + 1)
        elif w == "if":
            j = i + 1
            flags = set()
            if self._text(j) == "constexpr":
                flags.add("constexpr")
                j += 1
            close = self._paren(j, hi, "if")
            if len(split_top(toks, j + 1, close, ";")) > 1:
                flags.add("condinit")
            then = self.stmt(close + 1, hi)
            kids, end = [then], then.hi
            if end < hi and self._text(end) == "else":
                other = self.stmt(end + 1, hi)
                kids.append(other)
                end = other.hi
            st = Stmt("if", i, end, kids=kids, cond=(j + 1, close), flags=flags)
            self._cond_decl(st)
        elif w in ("while", "switch"):
            close = self._paren(i + 1, hi, w)
            body = self.stmt(close + 1, hi)
            st = Stmt(w, i, body.hi, kids=[body], cond=(i + 2, close))
            self._cond_decl(st)
        elif w == "do":
            body = self.stmt(i + 1, hi)
            j = body.hi
            if self._text(j) != "while":
                raise Unsupported(f"do without while at line {t.line}")
            close = self._paren(j + 1, hi, "while")
            if self._text(close + 1) != ";":
                raise Unsupported(f"do-while without ';' at line {t.line}")
            st = Stmt("do", i, close + 2, kids=[body], cond=(j + 2, close))
        elif w == "for":
            st = self._for(i, hi)
        elif w in ("return", "break", "continue", "goto", "co_return"):
            end = self._end(i, hi)
            st = Stmt(w if w != "co_return" else "other", i, end)
        elif w in ("case", "default"):
            j = i + 1
            while j < hi and toks[j].text != ":":
                if toks[j].text in _CLOSE:
                    j = match(toks, j, hi)
                j += 1
            st = Stmt("label", i, j + 1, flags={"case"})
        elif t.kind == "id" and self._text(i + 1) == ":" and w not in _EXPR_WORDS:
            st = Stmt("label", i, i + 2)
        elif w in _OTHER_WORDS:
            end = self._end(i, hi) if w not in ("try", "asm", "__asm__", "__asm") else hi
            st = Stmt("other", i, end)
            if w in ("try", "asm", "__asm__", "__asm"):
                raise Unsupported(f"'{w}' in the kernel")
        else:
            end = self._end(i, hi)
            if w == self.barrier:
                st = self._barrier(i, end)
            elif any(toks[k].text == self.barrier for k in range(i, end)):
                raise Unsupported(f"barrier inside an expression at line {t.line}")
            else:
                d = self.declaration(i, end - 1)
                if d is not None:
                    st = Stmt("decl", i, end, decl=d)
                    for dd in d.decls:
                        self.known.add(dd.name)
                    self.decls.append(d)
                else:
                    st = Stmt("expr", i, end)
        if st.kind not in ("barrier",):
            st.barrier = st.barrier or any(k.barrier for k in st.kids) or (
                st.init is not None and st.init.barrier)
        return st

    def _cond_decl(self, st: Stmt):
        """Marks a condition that declares a variable (`if (int x = f())`)."""
        lo, hi = st.cond
        if "condinit" in st.flags:
            return
        if lo < hi and self.declaration(lo, hi, in_condition=True) is not None:
            st.flags.add("condecl")

    def _barrier(self, i: int, end: int) -> Stmt:
        toks = self.toks
        if not (self._text(i + 1) == "(" and match(toks, i + 1, end) == end - 2
                and toks[end - 1].text == ";"):
            raise Unsupported(f"barrier inside an expression at line {toks[i].line}")
        st = Stmt("barrier", i, end, cond=(i + 2, end - 2))
        st.barrier = True
        return st

    def _for(self, i: int, hi: int) -> Stmt:
        toks = self.toks
        close = self._paren(i + 1, hi, "for")
        parts = split_top(toks, i + 2, close, ";")
        flags = set()
        if len(parts) != 3:
            flags.add("rangefor")
            body = self.stmt(close + 1, hi)
            return Stmt("for", i, body.hi, kids=[body], flags=flags)
        (a, b), (c, d), (e, f) = parts
        if a == b:
            init = Stmt("empty", a, b + 1)
        else:
            dcl = self.declaration(a, b)
            if dcl is not None:
                init = Stmt("decl", a, b + 1, decl=dcl)
                for dd in dcl.decls:
                    self.known.add(dd.name)
                self.decls.append(dcl)
            else:
                init = Stmt("expr", a, b + 1)
        body = self.stmt(close + 1, hi)
        st = Stmt("for", i, body.hi, kids=[body], cond=(c, d), init=init, inc=(e, f))
        if c < d and self.declaration(c, d, in_condition=True) is not None:
            flags.add("condecl")
        st.flags = flags
        return st

    # ------------------------------------------------------ declarations

    def declaration(self, lo: int, hi: int, in_condition: bool = False) -> Optional[Decl]:
        """The declaration toks[lo:hi] (without ';'), or None for an expression."""
        toks = self.toks
        j, words, typed = lo, set(), False
        first = toks[lo].text if lo < hi else ""
        if toks[lo].kind != "id" and first != "::":
            return None
        if first in self.known or first in _EXPR_WORDS or first == self.barrier:
            return None
        while j < hi:
            t = toks[j]
            w = t.text
            if w in TYPE_WORDS or w in CV_WORDS or w in STORAGE_WORDS:
                words.add(w)
                typed = typed or w in TYPE_WORDS
                j += 1
                continue
            if w in _ATTR_WORDS and j + 1 < hi and toks[j + 1].text == "(":
                j = match(toks, j + 1, hi) + 1
                continue
            if w in ("struct", "class", "union", "enum", "typename") and j + 1 < hi:
                words.add(w)
                j += 1
                continue
            if not typed and (t.kind == "id" or w == "::") and w not in self.known:
                j = self._type_name(j, hi)
                if j is None:
                    return None
                typed = True
                continue
            break
        if not typed or j >= hi:
            return None
        spec = (lo, j)
        out = []
        for a, b in split_top(toks, j, hi, ","):
            d = self._declarator(a, b)
            if d is None:
                return None
            out.append(d)
        if in_condition and len(out) != 1:
            return None
        return Decl(spec, words, out)

    def _type_name(self, j: int, hi: int) -> Optional[int]:
        """Index after a type name (a::b<c>::d) that starts at toks[j]."""
        toks = self.toks
        if toks[j].text == "::":
            j += 1
        while j < hi and toks[j].kind == "id":
            if toks[j].text in _EXPR_WORDS:
                return None
            j += 1
            if j < hi and toks[j].text == "<":
                try:
                    j = _skip_angle(toks, j, hi)
                except Unsupported:
                    return None
            if j < hi and toks[j].text == "::":
                j += 1
                continue
            return j
        return None

    def _declarator(self, a: int, b: int) -> Optional[Declarator]:
        toks = self.toks
        j = a
        ptr_texts = set()
        while j < b and toks[j].text in {"*", "&", "&&"} | PTR_QUALS:
            ptr_texts.add(toks[j].text)
            j += 1
        while j < b and toks[j].text in _ATTR_WORDS and j + 1 < b and toks[j + 1].text == "(":
            j = match(toks, j + 1, b) + 1
        if j >= b or toks[j].kind != "id" or toks[j].text in TYPE_WORDS | CV_WORDS | _EXPR_WORDS:
            return None
        name_at = j
        j += 1
        s0 = j
        while j < b and toks[j].text == "[":
            j = match(toks, j, b) + 1
        suffix = (s0, j)
        while j < b and toks[j].text in _ATTR_WORDS and j + 1 < b and toks[j + 1].text == "(":
            j = match(toks, j + 1, b) + 1
        kind, init = "", (j, j)
        if j < b:
            w = toks[j].text
            if w == "=":
                kind, init = "=", (j + 1, b)
                if j + 1 >= b:
                    return None
            elif w in ("(", "{"):
                end = match(toks, j, b)
                if end != b - 1:
                    return None
                kind, init = w, (j + 1, end)
            else:
                return None
        return Declarator(toks[name_at].text, name_at, (a, name_at), suffix, kind, init, (a, b),
                          frozenset(ptr_texts))


def walk(stmts: list):
    """Every statement of a tree, parents first."""
    for st in stmts:
        yield st
        if st.init is not None:
            yield st.init
        yield from walk(st.kids)
