"""The statements of a function body as clang sees them, for the regions
pass (pyemu.compiler.regions): model.Statement records, offsets into the
parsed text (model.py says which offsets move how through the edits).

parse.py's walk calls read() for each user function definition it records.
The tree is clang's; the parts a statement's cursor does not give (the
parentheses of a condition, a for loop's two ';', the end of a declarator)
come from clang's tokens of the function, matched by bracket.  What clang's
tree holds that the regions pass has no statement kind for is recorded as
kind 'unsupported' with the reason, and a body whose tokens do not fit the
tree (code clang could not read) raises Unreadable: the pass then keeps the
kernel on the fiber path.
"""
from __future__ import annotations

import bisect
import ctypes

from .clangargs import MARKERS
from .model import Declaration, Declarator, Statement

BARRIER = "pyemu_barrier"
_PTR = {"*", "&", "&&"}
_PTR_QUALS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
_ATTR_WORDS = {"__attribute__", "__declspec", "alignas", "__align__"}
_OPEN = {"(": ")", "[": "]", "{": "}"}


# the scan's markers, which clang's preprocessor expands (clangargs): a
# declaration's extent starts after those that lead it
_MARKER_WORDS = {w for d in MARKERS.values() for w in d if "(" not in w}


class Unreadable(Exception):
    """The body's tokens do not fit clang's tree (str(): where and why)."""


def _steps(edits: list) -> set:
    """Offsets where an implicit warp step's `{` was inserted."""
    return {e.start for e in edits if e.why == "warp-step" and e.text == "{"}


def _smem(edits: list) -> dict:
    """start offset -> edit, of the declarations pyemu.compiler.smem replaced."""
    return {e.start: e for e in edits if e.why in ("shared", "local", "dynamic-shared")
            and e.end > e.start}


def _tokens(walk, start: int, end: int) -> tuple:
    """(offsets, spellings) of clang's tokens of walk.text[start:end].

    One call of clang_tokenize, and for each token only its place (cindex's
    Token objects would ask for its extent and a file, line and column too:
    most of the time of this module).  A spelling is the token's text up to
    the next token's place, less white space: what this module compares
    (punctuation, keywords, names) has none inside."""
    ci, tu, text = walk.ci, walk.tu, walk.text
    lib = ci.conf.lib
    f = tu.get_file(tu.spelling)
    rng = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, f, start),
                                        ci.SourceLocation.from_offset(tu, f, end))
    arr, count = ctypes.POINTER(ci.Token)(), ctypes.c_uint()
    lib.clang_tokenize(tu, rng, ctypes.byref(arr), ctypes.byref(count))
    offs = []
    try:
        loc, place = lib.clang_getTokenLocation, _place(ci)
        off = ctypes.c_uint()
        ref = ctypes.byref(off)
        for i in range(count.value):
            place(loc(tu, arr[i]), None, None, None, ref)
            if off.value >= end:
                break
            offs.append(off.value)
    finally:
        if count.value:
            lib.clang_disposeTokens(tu, arr, count)
    spell = [text[a:b].split(None, 1)[0] if text[a:b].strip() else text[a:b]
             for a, b in zip(offs, offs[1:] + [end])]
    return offs, spell


_PLACE = []


def _place(ci):
    """clang_getInstantiationLocation, taking NULL for what is not wanted."""
    if not _PLACE:        # a function object of its own: cindex's keeps its argtypes
        lib = ci.conf.lib
        fn = lib._FuncPtr(("clang_getInstantiationLocation", lib))
        fn.argtypes = [ci.SourceLocation, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p]
        fn.restype = None
        _PLACE.append(fn)
    return _PLACE[0]


class Reader:
    """Reads the statements of one function (cursor `fn`, body cursor `body`)."""

    def __init__(self, walk, fn, body):
        self.w, self.K = walk, walk.K
        self.offs, self.text = _tokens(walk, fn.extent.start.offset, body.extent.end.offset)
        self.close, stack = {}, []
        for i, t in enumerate(self.text):
            if t in _OPEN:
                stack.append(i)
            elif t in (")", "]", "}") and stack:
                self.close[stack.pop()] = i
        self.steps = _steps(walk.m.edits)
        self.smem = _smem(walk.m.edits)

    # ----------------------------------------------------------- tokens
    def at(self, off: int) -> int:
        """Index of the token at offset off (the first after it)."""
        return bisect.bisect_left(self.offs, off)

    def lead(self, off: int) -> int:
        """The offset of a declaration that clang starts at `off`, with the
        markers before it (`__pyemu_smem__ auto &x = ...`)."""
        i = self.at(off)
        while i > 0 and self.text[i - 1] in _MARKER_WORDS:
            i -= 1
        return self.offs[i] if i < len(self.offs) else off

    def tok(self, i: int) -> str:
        return self.text[i] if 0 <= i < len(self.text) else ""

    def match(self, i: int, what: str) -> int:
        if self.tok(i) not in _OPEN or i not in self.close:
            raise Unreadable(f"{what}: no bracket where clang's tree has one")
        return self.close[i]

    def end_of(self, c) -> int:
        """Index of the last token of cursor c's extent."""
        return self.at(c.extent.end.offset) - 1

    def semi_after(self, c, what: str) -> int:
        """Index of the ';' that ends the statement of expression cursor c."""
        j = self.end_of(c) + 1
        if self.tok(j) != ";":
            raise Unreadable(f"{what} without ';' where clang ends it")
        return j

    def where(self, c) -> str:
        return self.w.where(c)

    # ------------------------------------------------------- statements
    def body(self, body) -> tuple:
        return tuple(self.block(list(body.get_children())))

    def block(self, cursors: list) -> list:
        out = []
        for c in cursors:
            out += self.stmts(c)
        return out

    def one(self, c) -> Statement:
        """The statement in a place of one (a branch, a loop body)."""
        got = self.stmts(c)
        if len(got) != 1:       # a label there: its statement is a part of it
            first, last = got[0].first, got[-1].last
            return Statement("unsupported", first, last,
                             why=f"a label as the body of a statement at {self.where(c)}")
        return got[0]

    def stmts(self, c) -> list:
        """The statements of cursor c: one, or a label and those of its statement."""
        K = self.K
        k = c.kind
        first = c.extent.start.offset
        if k == K.COMPOUND_STMT:
            i = self.at(first)
            if self.tok(i) != "{":
                raise Unreadable(f"a block without '{{' at {self.where(c)}")
            close = self.match(i, "a block")
            return [Statement("compound", first, self.offs[close],
                              kids=tuple(self.block(list(c.get_children()))))]
        if k == K.IF_STMT:
            return [self.branch(c, "if")]
        if k in (K.WHILE_STMT, K.SWITCH_STMT):
            return [self.branch(c, "while" if k == K.WHILE_STMT else "switch")]
        if k == K.DO_STMT:
            return [self.do(c)]
        if k == K.FOR_STMT:
            return [self.for_(c)]
        if k == getattr(K, "CXX_FOR_RANGE_STMT", None):
            kids = list(c.get_children())
            body = self.one(kids[-1])
            return [Statement("for", first, body.last, kids=(body,),
                              flags=frozenset({"rangefor"}))]
        if k in (K.RETURN_STMT, K.BREAK_STMT, K.CONTINUE_STMT, K.GOTO_STMT,
                 K.INDIRECT_GOTO_STMT):
            kind = {K.RETURN_STMT: "return", K.BREAK_STMT: "break",
                    K.CONTINUE_STMT: "continue"}.get(k, "goto")
            semi = self.semi_after(c, kind)
            return [Statement(kind, first, self.offs[semi])]
        if k == K.NULL_STMT:
            return [Statement("empty", first, first)]
        if k in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT):
            kids = list(c.get_children())
            sub = kids[-1] if kids and (kids[-1].kind.is_statement()
                                        or kids[-1].kind.is_expression()
                                        or kids[-1].kind.is_declaration()) else None
            if sub is None or k == K.CASE_STMT and len(kids) < 2:
                raise Unreadable(f"a label without its statement at {self.where(c)}")
            colon = self.at(sub.extent.start.offset) - 1
            while colon > 0 and self.tok(colon) != ":":
                colon -= 1
            flags = frozenset() if k == K.LABEL_STMT else frozenset({"case"})
            return [Statement("label", first, self.offs[colon], flags=flags)] + self.stmts(sub)
        if k == K.DECL_STMT:
            return [self.declaration(c)]
        if k == K.UNEXPOSED_STMT:
            # an attributed statement (#pragma unroll, [[likely]]): the
            # statement itself; the pragma's tokens are the pass's business
            kids = [ch for ch in c.get_children() if ch.kind.is_statement()
                    or ch.kind.is_expression()]
            if len(kids) == 1:
                return self.stmts(kids[0])
        if k.is_expression():
            return [self.expression(c)]
        name = k.name.lower().replace("_stmt", "").replace("_", " ")
        last = self.end_of(c)
        if self.tok(last + 1) == ";" and not name.endswith(("try", "block")):
            last += 1
        return [Statement("unsupported", first, self.offs[max(last, 0)],
                          why=f"a {name} statement at {self.where(c)}")]

    def expression(self, c) -> Statement:
        first = c.extent.start.offset
        semi = self.semi_after(c, "an expression statement")
        if first in self.steps:
            # `{E; pyemu_warp_step(); }`: the regions pass takes it whole
            return Statement("expr", first, self.offs[semi], flags=frozenset({"step"}))
        i = self.at(first)
        if c.kind == self.K.CALL_EXPR and c.spelling == BARRIER and self.tok(i) == BARRIER \
                and self.tok(i + 1) == "(" and self.close.get(i + 1) == semi - 1:
            return Statement("barrier", first, self.offs[semi],
                             cond=(self.offs[i + 1], self.offs[semi - 1]))
        K = self.K
        e = _bare(K, c)
        if e.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = list(e.get_children())
            e = _bare(K, kids[1]) if len(kids) == 2 and \
                _bare(K, kids[0]).kind == K.DECL_REF_EXPR else None
        return Statement("expr", first, self.offs[semi], call=self.call(e))

    def call(self, e) -> tuple:
        """Statement.call of expression cursor e when it is a call of a
        function (clang's CallExpr naming one), else ()."""
        if e is None or e.kind != self.K.CALL_EXPR:
            return ()
        r = e.referenced
        if r is None or r.kind not in (self.K.FUNCTION_DECL, self.K.FUNCTION_TEMPLATE):
            return ()
        return (r.get_usr() or "", e.extent.start.offset)

    def parens(self, c, i: int, what: str) -> tuple:
        """(index of '(' at or after token i, index of its ')')."""
        if self.tok(i) != "(":
            raise Unreadable(f"'{what}' without '(' at {self.where(c)}")
        return i, self.match(i, what)

    def branch(self, c, kind: str) -> Statement:
        """if, while, switch."""
        first = c.extent.start.offset
        i = self.at(first)
        flags = set()
        j = i + 1
        if kind == "if" and self.tok(j) == "constexpr":
            flags.add("constexpr")
            j += 1
        o, cl = self.parens(c, j, kind)
        inside = [ch for ch in c.get_children() if ch.extent.start.offset < self.offs[cl]]
        after = [ch for ch in c.get_children() if ch.extent.start.offset > self.offs[cl]]
        if any(ch.kind in (self.K.VAR_DECL, self.K.DECL_STMT) for ch in inside):
            flags.add("condecl")
        if any(self.text[x] == ";" for x in self.top(o)):
            flags.add("condinit")
            flags.discard("condecl")
        if not after or len(after) > (2 if kind == "if" else 1):
            raise Unreadable(f"'{kind}' with {len(after)} statements at {self.where(c)}")
        kids = tuple(self.one(ch) for ch in after)
        return Statement(kind, first, kids[-1].last, kids=kids,
                         cond=(self.offs[o], self.offs[cl]), flags=frozenset(flags))

    def top(self, o: int) -> list:
        """Indices of the tokens directly inside the brackets that open at o."""
        out, x, cl = [], o + 1, self.close[o]
        while x < cl:
            out.append(x)
            x = self.close[x] + 1 if x in self.close else x + 1
        return out

    def do(self, c) -> Statement:
        first = c.extent.start.offset
        kids = list(c.get_children())
        body = self.one(kids[0])
        w = bisect.bisect_right(self.offs, body.last)
        if self.tok(w) != "while":
            raise Unreadable(f"do without while at {self.where(c)}")
        o, cl = self.parens(c, w + 1, "while")
        if self.tok(cl + 1) != ";":
            raise Unreadable(f"do-while without ';' at {self.where(c)}")
        return Statement("do", first, self.offs[cl + 1], kids=(body,),
                         cond=(self.offs[o], self.offs[cl]))

    def for_(self, c) -> Statement:
        first = c.extent.start.offset
        i = self.at(first)
        o, cl = self.parens(c, i + 1, "for")
        semis = [x for x in self.top(o) if self.text[x] == ";"]
        if len(semis) != 2:
            raise Unreadable(f"a for loop's header at {self.where(c)}")
        s1, s2 = semis
        kids = list(c.get_children())
        body = [ch for ch in kids if ch.extent.start.offset > self.offs[cl]]
        if len(body) != 1:
            raise Unreadable(f"a for loop's body at {self.where(c)}")
        init = None
        head = [ch for ch in kids if ch.extent.start.offset < self.offs[s1]]
        if not head:
            init = Statement("empty", self.offs[s1], self.offs[s1])
        elif head[0].kind == self.K.DECL_STMT:
            init = self.declaration(head[0])
        else:
            init = Statement("expr", head[0].extent.start.offset, self.offs[s1])
        if init.last != self.offs[s1]:
            raise Unreadable(f"a for loop's init at {self.where(c)}")
        flags = set()
        if any(ch.kind in (self.K.VAR_DECL, self.K.DECL_STMT) for ch in kids
               if self.offs[s1] < ch.extent.start.offset < self.offs[s2]):
            flags.add("condecl")
        b = self.one(body[0])
        return Statement("for", first, b.last, kids=(b,), cond=(self.offs[s1], self.offs[s2]),
                         init=init, inc=(self.offs[s2], self.offs[cl]), flags=frozenset(flags))

    # ----------------------------------------------------- declarations
    def declaration(self, c) -> Statement:
        first = self.lead(c.extent.start.offset)
        last = self.end_of(c)
        if self.tok(last) != ";":
            raise Unreadable(f"a declaration without ';' at {self.where(c)}")
        kids = list(c.get_children())
        e = self.smem.get(c.extent.start.offset)
        if e is not None:
            return Statement("smem", min(first, e.start), self.offs[last], flags=frozenset(
                {e.why}), names=tuple(v.spelling for v in kids))
        if not kids or any(v.kind != self.K.VAR_DECL for v in kids):
            # a typedef, a local class, static_assert, using: no variables
            return Statement("other", first, self.offs[last])
        d = self.declarators(self.at(first), kids, last)
        if d is None:
            return Statement("other", first, self.offs[last])
        init = [ch for ch in kids[0].get_children() if ch.kind.is_expression()]
        call = self.call(_bare(self.K, init[-1])) if len(kids) == 1 and init else ()
        return Statement("decl", first, self.offs[last], decl=d, call=call)

    def declarators(self, lo: int, vars_: list, stop: int):
        """The Declaration of variables `vars_` (cursors) whose decl-specifiers
        start at token lo and whose last declarator ends at token stop (its
        ',' ';' or ')'); None where a declarator is not `ptr-ops name [n]...
        [= e | (a) | {a}]`."""
        ci = self.w.ci
        out, spec_end, start = [], None, lo
        for n, v in enumerate(vars_):
            x = self.at(v.location.offset)
            if self.tok(x) != v.spelling or not v.spelling:
                return None
            if n == 0:
                r = x
                while r > lo and self.text[r - 1] in _PTR | _PTR_QUALS:
                    r -= 1
                while r < x and self.text[r] not in _PTR:
                    r += 1
                spec_end = start = r
            if any(self.text[j] not in _PTR | _PTR_QUALS for j in range(start, x)):
                return None
            j = x + 1
            while self.tok(j) == "[":
                j = self.match(j, "array bounds") + 1
            after = j
            while self.tok(j) in _ATTR_WORDS and self.tok(j + 1) == "(":
                j = self.match(j + 1, "an attribute") + 1
            end = self.at(v.extent.end.offset)    # (`x(3)`'s extent ends before its ')')
            while end < stop and self.text[end] not in (",", ";"):
                end = self.close[end] + 1 if end in self.close else end + 1
            if n == len(vars_) - 1:
                if end > stop:
                    return None
                end = stop
            if self.tok(end) not in (",", ";", ")") or end < j:
                return None
            if j == end:
                kind, init = "", ()
            elif self.tok(j) == "=" and j + 1 < end:
                kind, init = "=", (self.offs[j + 1], self.offs[end])
            elif self.tok(j) in ("(", "{") and self.close.get(j) == end - 1:
                kind, init = self.tok(j), (self.offs[j], self.offs[end - 1])
            else:
                return None
            t = v.type
            tk = t.get_canonical().kind
            storage = v.storage_class.name.lower() if v.storage_class not in (
                ci.StorageClass.NONE, ci.StorageClass.INVALID) else ""
            out.append(Declarator(v.spelling, self.offs[start], self.offs[x], self.offs[after],
                                  kind, init, self.offs[end],
                                  ref=tk in (ci.TypeKind.LVALUEREFERENCE,
                                             ci.TypeKind.RVALUEREFERENCE),
                                  array=tk.name.endswith("ARRAY"), storage=storage,
                                  type=t.spelling))
            start = end + 1
        return Declaration(self.offs[lo], self.offs[spec_end], tuple(out))

    # ------------------------------------------------------- parameters
    def params(self, fn, body) -> tuple:
        """(Declaration of each named parameter (None when one cannot be
        read), (open, close) of the list, template head (start, '>') or ())."""
        K = self.K
        parms = [ch for ch in fn.get_children() if ch.kind == K.PARM_DECL]
        name_at = self.at(fn.location.offset)
        if self.tok(name_at + 1) != "(":
            # `operator()`, a template-id, a qualified name: its list after the name
            j = name_at + 1
            while j < len(self.text) and self.text[j] != "(":
                j += 1
            name_at = j - 1
        o = name_at + 1
        cl = self.match(o, "a parameter list")
        out = []
        ends = [x for x in self.top(o) if self.text[x] == ","] + [cl]
        for p in parms:
            if not p.spelling:
                continue
            a = self.at(self.lead(p.extent.start.offset))
            end = next((x for x in ends if x >= self.at(p.extent.end.offset)), cl)
            d = self.declarators(a, [p], end)
            if d is None:
                out = None
                break
            out.append(d)
        head = ()
        if fn.kind == K.FUNCTION_TEMPLATE:
            t = self.at(fn.extent.start.offset)
            if self.tok(t) == "template" and self.tok(t + 1) == "<":
                depth, j = 0, t + 1
                while j < len(self.text):
                    s = self.text[j]
                    if s in ("(", "[", "{"):
                        j = self.match(j, "a template head")
                    elif s == "<":
                        depth += 1
                    elif s in (">", ">>"):
                        depth -= len(s)
                        if depth <= 0:
                            break
                    j += 1
                head = (self.offs[t], self.offs[j])
        return None if out is None else tuple(out), (self.offs[o], self.offs[cl]), head


def _bare(K, e):
    """Expression cursor e without the implicit nodes around it (clang's
    casts and cleanups, which libclang shows as one-child UNEXPOSED_EXPR)."""
    while e.kind == K.UNEXPOSED_EXPR:
        kids = list(e.get_children())
        if len(kids) != 1:
            break
        e = kids[0]
    return e


def read(walk, fn, body) -> tuple:
    """(statements, unread, params, parens, template_head) of function `fn` (a
    cursor) with body `body`: Function's fields (model.py)."""
    try:
        r = Reader(walk, fn, body)
        params, parens, head = r.params(fn, body)
        return r.body(body), "", params, parens, head
    except Unreadable as e:
        return None, str(e), (), (), ()
    except (IndexError, KeyError, ValueError) as e:
        return None, f"its statements could not be read ({e!r})", (), (), ()
