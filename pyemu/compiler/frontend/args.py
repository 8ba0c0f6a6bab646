"""What clGetKernelArgInfo reports of a kernel parameter, from its clang type."""
from __future__ import annotations

from .model import Param

_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}
_QUALS = ("const", "volatile", "restrict")
_SPACES = ("global", "local", "constant", "private")
_ACCESS = ("read_only", "write_only", "read_write")


def _base_name(spelling: str) -> str:
    """An OpenCL type name of a C++ type spelling without qualifiers."""
    words = [w for w in spelling.replace("__restrict", " ").split() if w not in _QUALS]
    if len(words) >= 2 and words[0] == "unsigned":
        words = [_UNSIGNED.get(words[1], "u" + words[1])] + words[2:]
    elif words == ["unsigned"]:
        words = ["uint"]
    elif words and words[0] == "signed" and len(words) > 1:
        words = words[1:]
    return " ".join(words).replace("pyemu_kw_", "")


def param(ci, cursor, index: int, notes: set) -> Param:
    """The Param of a PARM_DECL cursor; `notes`: its pyemu.* annotations."""
    address = next((s for s in _SPACES if s in notes), "private")
    access = next((a for a in _ACCESS if a in notes), "none")
    t = cursor.type
    quals = []
    arrays = (ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.CONSTANTARRAY)
    if t.kind == ci.TypeKind.POINTER or t.kind in arrays:
        pointee = t.get_array_element_type() if t.kind in arrays else t.get_pointee()
        depth = 1
        while pointee.kind == ci.TypeKind.POINTER:
            pointee, depth = pointee.get_pointee(), depth + 1
        if pointee.is_const_qualified():
            quals.append("const")
        if pointee.is_volatile_qualified():
            quals.append("volatile")
        if t.is_restrict_qualified():
            quals.append("restrict")
        if address == "constant" and "const" not in quals:
            quals.insert(0, "const")
        type_name = _base_name(pointee.spelling) + "*" * depth
    else:
        type_name = _base_name(t.spelling)
    name = (cursor.spelling or f"arg{index}").replace("pyemu_kw_", "")
    return Param(name, type_name, address, access, tuple(q for q in _QUALS if q in quals))
