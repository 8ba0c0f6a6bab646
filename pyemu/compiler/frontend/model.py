"""What the front end reads from a translation unit (pyemu.compiler.frontend).

Offsets are into the preprocessed text that was parsed (wire text, one
character a byte): the rewrites are made in that same text.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional


@dataclass(frozen=True)
class Param:
    """A kernel parameter, with what clGetKernelArgInfo reports of it."""
    name: str
    type_name: str          # OpenCL spelling: "float*", "uint", "struct pair"
    address: str = "private"    # global, local, constant, private
    access: str = "none"        # read_only, write_only, read_write, none
    type_qualifiers: tuple = ()  # of const, volatile, restrict (pointers only)


@dataclass(frozen=True)
class Kernel:
    qualified: str       # how generated code names it: "ns::k"
    where: str           # "file:line" of the declaration users look at
    defined: bool        # a definition was seen (not only a prototype)
    template: bool       # a function template: instantiated by name expressions only
    max_threads: str = ""    # __launch_bounds__' first argument, as an expression
    params: tuple = ()       # Param, in order
    # OpenCL attributes: name -> the argument expressions (text), as written
    # after preprocessing ("4*2"); their values are the compiler's business
    attributes: tuple = ()   # ((name, (expr, ...)), ...)
    signature: str = ""      # C++ function pointer type "void (*)(float *)": the
                             # name alone may be ambiguous (an overload of `div`)
    spelled: str = ""        # its name as the user wrote it, where a header macro
                             # renamed it (OpenCL's abs is pyemu_cl_abs), else ''
    # CUDA: the parameters' C++ default arguments, ((index, expression text
    # of the parsed unit), ...)
    defaults: tuple = ()
    # of a template with defaults: its template head as written (`template
    # <class T, int N = 4>`), whose names the defaults' text may use
    template_params: str = ""

    @property
    def name(self) -> str:
        """The unqualified name users look the kernel up by."""
        return self.spelled or self.qualified.rsplit("::", 1)[-1]


@dataclass(frozen=True)
class Symbol:
    """A file-scope variable: __constant__, __device__, a texture reference;
    or an OpenCL kernel-scope __constant one ("kernel::name")."""
    qualified: str
    kind: str            # "constant", "device", "texture", "shared", "kernel_constant"
    type: str            # C++ spelling of its type
    where: str
    size: int = 0        # bytes (kept for "kernel_constant": the 64 KiB count)


@dataclass(frozen=True)
class Function:
    """A function definition in the user's files, as the regions pass
    (pyemu.compiler.regions) needs it: where it is and what it names.

    Offsets are into the parsed text (see the module doc); moved() gives the
    record for the text after the edits."""
    kind: str            # 'kernel' (defined in its namespace or outside it,
    #                      `void ns::k() {...}`: see scope); 'function' (at
    #                      namespace scope, a template too); 'other' (a method,
    #                      a lambda, a friend, an out-of-line definition of a
    #                      namespace's function)
    name: str            # as the text spells it; '' for a lambda and for a
    #                      kernel's explicit specialization
    qualified: str       # ns::name
    namespaces: tuple    # ((start, brace), ...): the enclosing namespaces' heads, outermost first
    head: tuple          # (start, brace): the declaration up to its body's '{'
    body: tuple          # (brace, close): the offsets of the body's '{' and '}'
    template: bool = False
    key: str = ""        # its identity (clang's USR), as `calls` names it
    calls: frozenset = frozenset()     # keys of the functions it calls or names
    #                                    (a template's, for a specialization; every
    #                                    candidate of a call not resolved in a template)
    callees: frozenset = frozenset()   # the names of those functions
    # the statements of its body as clang sees them (Statement, in order;
    # stmts.py), or None with `unread` saying why they could not be recorded
    stmts: Optional[tuple] = None
    unread: str = ""
    params: Optional[tuple] = ()   # Declaration of each named parameter, in order
    #                                (stmts.py); None: one could not be read
    parens: tuple = ()   # (open, close): offsets of its parameter list's ( and )
    template_head: tuple = ()   # (start, close): `template <...>`'s first and '>' offsets
    # a kernel defined outside the namespaces it belongs to (`void ns::k()
    # {...}`): their names, outermost first ('' an unnamed one), which code
    # about it reopens; None: it is defined in them (`namespaces`)
    scope: Optional[tuple] = None
    # the namespaces it is a member of, so named (for every function); None:
    # a class or a function holds it
    space: Optional[tuple] = None
    # a kernel's: the names that declarations after its body give a new
    # meaning ('*': a using-directive), which code generated at the end of
    # the unit from its body would see (parse.later_names)
    later: frozenset = frozenset()
    # a kernel's: the names its text takes from namespace scope, or that a
    # template leaves to its instantiation (parse.outer_ref); not its
    # locals, parameters or members
    outer: frozenset = frozenset()
    # a kernel's reason to run on fibers for its cooperative groups: it
    # reaches (itself, or a function, template, method or lambda it calls)
    # a use of them beyond the block's own (tiles, grids, cg::reduce, ...),
    # whose collectives the block functions cannot cut; '' none (parse.py)
    cg: str = ""
    # the offsets of the variable names that are a whole argument of a call
    # clang resolved (or whose candidates it knows): passed by value (the
    # call cannot change the variable), or possibly changed (a reference
    # parameter, an array's elements); a name in neither: clang cannot say
    by_value: frozenset = frozenset()
    by_ref: frozenset = frozenset()
    # the offsets of the names of variables that may change the variable
    # there (an assignment's target, ++, &, a reference bound to it, ...), or
    # that only read it; a name in neither: clang's tree cannot say (lvalues.py)
    changed: frozenset = frozenset()
    unchanged: frozenset = frozenset()

    def moved(self, where, left=None, last=None) -> "Function":
        """This record with each offset p replaced by where(p) (a character's
        place); a statement's first offset by left(p) (before the text
        inserted at p) and its last character's by last(p) (a character a
        replacement removed: the replacement's last); both default to where."""
        left, last = left or where, last or where
        pair = lambda ab: (where(ab[0]), where(ab[1]))
        mv = Mover(where, left, last)
        return replace(self, namespaces=tuple(pair(h) for h in self.namespaces),
                       head=pair(self.head), body=pair(self.body),
                       stmts=None if self.stmts is None else tuple(mv.stmt(s) for s in self.stmts),
                       params=None if self.params is None else tuple(mv.decl(d)
                                                                    for d in self.params),
                       parens=pair(self.parens) if self.parens else (),
                       template_head=(left(self.template_head[0]), where(self.template_head[1]))
                       if self.template_head else (),
                       by_value=frozenset(where(p) for p in self.by_value),
                       by_ref=frozenset(where(p) for p in self.by_ref),
                       changed=frozenset(where(p) for p in self.changed),
                       unchanged=frozenset(where(p) for p in self.unchanged))


# ---------------------------------------------------------------- statements
# Offsets in these records are of three sorts, which move differently through
# the edits: `first` (a range's first token: text inserted there belongs to
# the range: left), `at` (a token's own place, as a delimiter: where), `last`
# (the last character of a statement: last).

@dataclass(frozen=True)
class Declarator:
    """One declarator of a declaration: `*p = e`, `a[4]`, `&r = x`."""
    name: str
    first: int           # its first token (a pointer operator or the name)
    at: int              # the name
    after: int           # the token after the name and its array bounds
    init_kind: str       # '', '=', '(', '{'
    init: tuple          # '=': (first token, the ',' or ';' after it); '(' '{': (the bracket, its close)
    end: int             # the ',', ';' or ')' that ends it
    ref: bool = False    # its type is a reference (as clang resolves it)
    array: bool = False  # an array
    storage: str = ""    # clang's storage class: 'static', 'extern', ... ('' none)
    type: str = ""       # its type as clang spells it


@dataclass(frozen=True)
class Declaration:
    """A declaration statement (or a parameter): its decl-specifiers
    text[first:spec_end] and its declarators."""
    first: int
    spec_end: int        # first token of the first declarator
    declarators: tuple


@dataclass(frozen=True)
class Statement:
    """A statement of a function body as clang sees it.

    kind: compound if for while do switch return break continue goto label
    barrier decl expr empty smem unsupported.  `cond`: the ( and ) around the
    condition (if, while, do, switch; a barrier's arguments), for a for loop
    its two ';'; `inc`: a for loop's second ';' and ')'; `kids`: a compound's
    statements (a label and its statement are neighbours), an if's then and
    else, a loop's or a switch's body.  flags: constexpr, condinit (an if or
    switch with an init statement), condecl (a condition that declares a
    variable), rangefor, case (a case or default label), step (an implicit
    warp step wraps it: `{E; pyemu_warp_step(); }`), smem (a __shared__ or
    __local declaration pyemu.compiler.smem replaced); `names`: the
    variables of an smem one; `why`: what is unsupported."""
    kind: str
    first: int
    last: int
    kids: tuple = ()
    cond: tuple = ()
    init: Optional["Statement"] = None
    inc: tuple = ()
    decl: Optional[Declaration] = None
    flags: frozenset = frozenset()
    names: tuple = ()
    why: str = ""
    # a statement that is a call of a function (`f(a);`), or assigns or
    # declares one variable with one (`v = f(a);`, `v += f(a);`, `T v =
    # f(a);`): (the callee's key, clang's USR; the offset of the call's first
    # token, where clang's CallExpr starts)
    call: tuple = ()


class Mover:
    """Moves the offsets of statement records (see Function.moved)."""

    def __init__(self, where, left, last):
        self.where, self.left, self.last = where, left, last

    def decl(self, d: Declaration) -> Declaration:
        w, f = self.where, self.left
        ds = tuple(replace(x, first=f(x.first), at=w(x.at), after=w(x.after), end=w(x.end),
                           init=(f(x.init[0]) if x.init_kind == "=" else w(x.init[0]),
                                 w(x.init[1])) if x.init else ())
                   for x in d.declarators)
        return Declaration(f(d.first), f(d.spec_end), ds)

    def stmt(self, s: Statement) -> Statement:
        w = self.where
        pair = lambda ab: (w(ab[0]), w(ab[1])) if ab else ()
        return replace(s, first=self.left(s.first), last=self.last(s.last),
                       kids=tuple(self.stmt(k) for k in s.kids), cond=pair(s.cond),
                       inc=pair(s.inc), init=None if s.init is None else self.stmt(s.init),
                       decl=None if s.decl is None else self.decl(s.decl),
                       call=(s.call[0], w(s.call[1])) if s.call else ())


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] by `text` (start == end: an insertion)."""
    start: int
    end: int
    text: str
    why: str = ""        # vector-literal, vector-select, local, constant, shared, ...


@dataclass
class Model:
    kernels: list = field(default_factory=list)     # Kernel, in order of declaration
    symbols: list = field(default_factory=list)     # Symbol
    edits: list = field(default_factory=list)       # Edit
    functions: list = field(default_factory=list)   # Function, in order of the text
    # user code calls (or names) a warp collective (pyemu.compiler.warps.NAMES)
    # or uses cooperative groups; one that takes locks with atomics (warps.LOCKS)
    uses_warps: bool = False
    takes_locks: bool = False
    parse_seconds: float = 0.0
    # errors clang found in the user's code that g++ may not (where, message):
    # the edits may miss something there, which the driver says in the log
    problems: list = field(default_factory=list)
    # OpenCL kernels that have the name of an OpenCL C built-in function
    builtin_clashes: set = field(default_factory=set)
    # (where, message): errors nvcc or an OpenCL compiler reports that g++
    # would not (a __shared__ variable with an initializer)
    errors: list = field(default_factory=list)

    def kernel(self, name: str) -> Optional[Kernel]:
        for k in self.kernels:
            if k.qualified == name or k.qualified.rsplit("::", 1)[-1] == name:
                return k
        return None
