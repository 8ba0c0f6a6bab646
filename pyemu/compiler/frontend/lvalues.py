"""Which names of a variable in a function body may change it, from clang's tree.

For the regions pass (regions/blocks.py: _Kernel._modifies), which keeps one
copy of a variable that crosses a barrier only where nothing changes it per
thread.  Each name of a variable or parameter (a DECL_REF_EXPR) is followed up
through what still designates the variable's own storage: parentheses,
implicit conversions, `.member` of it, `a[i]` of an array (not of a pointer:
that changes the pointee), the second or third operand of `?:`, the right
operand of `,`.  What it then is decides:

* "mod": the left operand of an assignment or compound assignment, the
  operand of ++, -- or unary & (the address may be written through later),
  the object of a non-const member function call, a reference bound to it
  (a reference variable, a cast to a reference type), an argument for a
  reference parameter, an array passed to a function (it decays to a pointer
  to its elements), a class copied by a copy constructor that takes a
  non-const reference;
* "read": any other operand, an argument a resolved call takes by value;
* not recorded ("unknown": the pass reads the tokens as before): an argument
  of a call clang leaves unresolved (a template's dependent call, whose
  callee argument-dependent lookup finds at instantiation), a range-for's
  range, a `return` (the function may return a reference), a lambda's
  capture, a __shared__ or __local variable (its declaration becomes a
  pointer into the block's memory: pyemu.compiler.smem), what this module
  does not know.

The operator of a BINARY_OPERATOR or UNARY_OPERATOR is the token clang lexed
between (or next to) its operands: libclang 18's Python binding has no
operator kinds.
"""
from __future__ import annotations

# __shared__ and __local variables: pyemu.compiler.smem makes their declarations
# pointers or references into the block's memory, which the tree does not show
_SMEM = {"shared", "local"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_ARRAY_KINDS = ("CONSTANTARRAY", "INCOMPLETEARRAY", "VARIABLEARRAY", "DEPENDENTSIZEDARRAY")


def uses(walk, body) -> dict:
    """{offset of a variable's name: "mod" or "read"} in cursor `body`."""
    K, TK = walk.K, walk.ci.TypeKind
    arrays = {getattr(TK, n) for n in _ARRAY_KINDS if hasattr(TK, n)}
    refs = (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE)
    out = {}

    def kind_of(t):
        try:
            return t.get_canonical().kind
        except ValueError:          # a type kind this cindex has no name for
            return None

    def op_between(a, b) -> str:
        toks = walk.tokens(a.extent.end.offset, b.extent.start.offset)
        return toks[0][0] if toks else ""

    def unary_op(p, child) -> str:
        if p.extent.start.offset < child.extent.start.offset:
            toks = walk.tokens(p.extent.start.offset, child.extent.start.offset)
        else:
            toks = walk.tokens(child.extent.end.offset, p.extent.end.offset)
        return toks[0][0] if toks else ""

    def decide(chain, d) -> str:
        """"mod", "read" or "" (unknown) for DECL_REF_EXPR d, whose ancestors
        (innermost last) are `chain`."""
        node, cur = d, d.type       # cur: the type of what node designates, undecayed
        for p in reversed(chain):
            kids = list(p.get_children())
            k = p.kind
            if k in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(kids) == 1:
                node = p
                continue
            if k == K.MEMBER_REF_EXPR:
                if kind_of(cur) == TK.POINTER:
                    return "read"               # p->m: the pointee's
                r = p.referenced
                if r is not None and r.kind == K.CXX_METHOD:
                    return "read" if r.is_const_method() else "mod"
                node, cur = p, p.type
                continue
            if k == K.ARRAY_SUBSCRIPT_EXPR:
                if kind_of(cur) not in arrays:
                    return "read"               # p[i] of a pointer, or the index
                node, cur = p, p.type
                continue
            if k == K.CONDITIONAL_OPERATOR:
                if kids and kids[0] == node:
                    return "read"
                node = p
                continue
            if k == K.BINARY_OPERATOR and len(kids) == 2:
                op = op_between(kids[0], kids[1])
                if op == ",":
                    if kids[1] == node:
                        node = p
                        continue
                    return "read"
                if op in _ASSIGN:
                    return "mod" if kids[0] == node else "read"
                return "read" if op else ""
            if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
                return "mod" if kids and kids[0] == node else "read"
            if k == K.UNARY_OPERATOR and len(kids) == 1:
                op = unary_op(p, kids[0])
                if op in ("++", "--", "&"):
                    return "mod"
                return "read" if op else ""
            if k in (K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_CONST_CAST_EXPR,
                     K.CXX_REINTERPRET_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR):
                return "mod" if kind_of(p.type) in refs else "read"
            if k == K.VAR_DECL:
                t = p.type
                if kind_of(t) in refs:
                    pointee = t.get_canonical().get_pointee()
                    return "read" if pointee.is_const_qualified() and \
                        kind_of(pointee) not in arrays else "mod"
                return "read" if kind_of(t) not in (None, TK.RECORD) else ""
            if k == K.CALL_EXPR:
                return call_arg(p, node, cur)
            if k in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT, K.FOR_STMT,
                     K.COMPOUND_STMT, K.CASE_STMT):
                return "read"       # a condition, a statement of its own
            return ""
        return ""

    def call_arg(call, node, cur) -> str:
        from .parse import _FUNCTIONS, _by_value_param
        args = list(call.get_arguments())
        i = next((n for n, a in enumerate(args) if a == node), None)
        if i is None or call.spelling.startswith("operator"):
            return ""               # the callee, an operator's operand
        r = call.referenced
        if r is None or r.kind not in _FUNCTIONS:
            return ""               # unresolved: the pass reads the tokens
        if kind_of(cur) in arrays:
            return "mod"
        try:
            ok = _by_value_param(r, i, K, TK) and walk.copied(cur)
        except ValueError:
            return ""
        return "read" if ok else "mod"

    def visit(c, chain):
        for ch in c.get_children():
            if ch.kind == K.DECL_REF_EXPR and ch.referenced is not None and \
                    ch.referenced.kind in (K.VAR_DECL, K.PARM_DECL) and \
                    not walk.notes(ch.referenced) & _SMEM:
                try:
                    got = decide(chain + [c], ch)
                except ValueError:
                    got = ""
                if got:
                    at = ch.extent.start.offset
                    if out.get(at) != "mod":
                        out[at] = got
            if ch.kind == K.LAMBDA_EXPR:
                continue            # its captures and body: tokens, as before
            visit(ch, chain + [c])

    visit(body, [])
    return out
