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

    @property
    def name(self) -> str:
        """The unqualified name users look the kernel up by."""
        return self.spelled or self.qualified.rsplit("::", 1)[-1]


@dataclass(frozen=True)
class Symbol:
    """A file-scope variable: __constant__, __device__, a texture reference."""
    qualified: str
    kind: str            # "constant", "device", "texture", "shared"
    type: str            # C++ spelling of its type
    where: str


@dataclass(frozen=True)
class Function:
    """A function definition in the user's files, as the regions pass
    (pyemu.compiler.regions) needs it: where it is and what it names.

    Offsets are into the parsed text (see the module doc); moved() gives the
    record for the text after the edits."""
    kind: str            # 'kernel'; 'function' (at namespace scope, a template
    #                      too); 'other' (a method, a lambda, a friend, an
    #                      out-of-line definition of a namespace member)
    name: str            # as the text spells it; '' for a lambda and for a
    #                      kernel's explicit specialization or out-of-line definition
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

    def moved(self, where) -> "Function":
        """This record with each offset p replaced by where(p)."""
        pair = lambda ab: (where(ab[0]), where(ab[1]))
        return replace(self, namespaces=tuple(pair(h) for h in self.namespaces),
                       head=pair(self.head), body=pair(self.body))


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
