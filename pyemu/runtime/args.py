"""Kernel arguments: one converter from Python values to the bytes of the
argument buffer, for both facades.

The compiler reports each parameter's kind, size and offset (kernel.py's
Param); this module turns one Python value into that parameter's bytes, or
a whole launch's values into the packed buffer.  What the converter cannot
take it reports through the facade's `bad(reason, message)`, which raises
the facade's coded error and never returns:

    VALUE   the value is of the wrong kind or does not fit the type
            (cudaErrorInvalidValue; CL_INVALID_ARG_VALUE)
    SIZE    raw bytes (or vector components) of the wrong count
            (cudaErrorInvalidValue; CL_INVALID_ARG_SIZE)
    MEMORY  a pointer parameter given something that is no device memory
            (cudaErrorInvalidValue; CL_INVALID_MEM_OBJECT)

No Python value reaches a raw TypeError, ValueError or OverflowError: a
float for an integer, a string for a number, an integer or float outside
its type's range (a negative value for an unsigned type, 1e39 for a float,
70000.0 for a half) are all VALUE.  What C converts implicitly and exactly
is taken: an int or a bool for a floating-point parameter, a bool for an
integer, any number for `bool` (non-zero is true).
"""
from __future__ import annotations

import operator
import re
import struct

import numpy as np

from .kernel import PARAM_FLOAT, PARAM_POINTER, PARAM_SIGNED, PARAM_UNSIGNED, code_of

VALUE, SIZE, MEMORY = "value", "size", "memory"

_VEC_RE = re.compile(r"(?:cl_)?(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)"
                     r"(2|3|4|8|16)?")
_ELEM = {"char": (PARAM_SIGNED, "b"), "uchar": (PARAM_UNSIGNED, "B"),
         "short": (PARAM_SIGNED, "h"), "ushort": (PARAM_UNSIGNED, "H"),
         "int": (PARAM_SIGNED, "i"), "uint": (PARAM_UNSIGNED, "I"),
         "long": (PARAM_SIGNED, "q"), "ulong": (PARAM_UNSIGNED, "Q"),
         "float": (PARAM_FLOAT, "f"), "double": (PARAM_FLOAT, "d"), "half": (PARAM_FLOAT, "e")}
_NUMBERS = (int, float, bool, np.number, np.bool_)


def vector_of(type_name: str, size: int):
    """(kind, struct code, components, stored components) of a vector type
    such as "float4" or "uint3" whose declared size matches, else None.  A
    scalar type by name ("half", which the ABI passes as a 2-byte struct) is
    a vector of 1."""
    m = _VEC_RE.fullmatch(type_name.replace(" ", ""))
    if not m:
        return None
    kind, code = _ELEM[m.group(1)]
    n = int(m.group(2) or 1)
    stored = 4 if n == 3 else n
    if struct.calcsize("<" + code) * stored != size:
        return None
    return kind, "<" + code, n, stored


def raw_bytes(value):
    """The bytes of a buffer-protocol value (bytes, NumPy, ctypes), or None."""
    if isinstance(value, (np.ndarray, np.generic)):
        return np.ascontiguousarray(value).tobytes()
    if isinstance(value, (str, int, float, complex)):
        return None
    try:
        return bytes(memoryview(value).cast("B"))
    except (TypeError, ValueError):
        return None


def _range(kind, code) -> str:
    bits = 8 * struct.calcsize(code)
    if kind == PARAM_SIGNED:
        return f"{-(1 << bits - 1)} to {(1 << bits - 1) - 1}"
    return f"0 to {(1 << bits) - 1}"


def number_bytes(kind, code, v, bad, is_bool=False) -> bytes:
    """v packed with struct format `code` as a number of `kind`."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, (bool, np.bool_)):
        v = int(v)
    if kind == PARAM_FLOAT:
        if isinstance(v, (str, bytes)) or not isinstance(v, (int, float, np.integer, np.floating)):
            bad(VALUE, f"is a floating-point number; got {type(v).__name__}")
        try:
            return struct.pack(code, float(v))
        except (OverflowError, struct.error):
            bad(VALUE, f"cannot hold the value {v!r} (out of range)")
    if isinstance(v, (float, np.floating, complex, np.complexfloating)):
        bad(VALUE, f"is an integer; got the floating-point value {v!r}")
    try:
        n = operator.index(v)
    except TypeError:
        bad(VALUE, f"is an integer; got {type(v).__name__}")
    if is_bool:
        n = 1 if n else 0        # C++ converts any non-zero value to true (byte 1)
    try:
        return struct.pack(code, n)
    except struct.error:
        bad(VALUE, f"cannot hold the value {n} (range {_range(kind, code[-1])})")


def value_bytes(param, vec, value, bad, raw_scalars=True) -> bytes:
    """The argument buffer's bytes for a value parameter (scalar, vector,
    struct).  `vec` is vector_of(...) of its type (None for others);
    raw_scalars lets bytes of the right size stand for a scalar (OpenCL's
    clSetKernelArg takes a pointer to the value)."""
    p = param
    if p.kind in (PARAM_SIGNED, PARAM_UNSIGNED, PARAM_FLOAT):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        if isinstance(value, _NUMBERS):
            return number_bytes(p.kind, "<" + code_of(p), value, bad, p.is_bool)
        data = raw_bytes(value) if raw_scalars else None
        if data is None:
            what = "an integer" if p.kind != PARAM_FLOAT else "a floating-point number"
            bad(VALUE, f"is {what}; got {type(value).__name__}")
        if len(data) != p.size:
            bad(SIZE, f"is {p.size} bytes; got {len(data)} bytes")
        return data
    if vec is not None:
        kind, code, n, stored = vec
        if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and
                                                value.dtype.fields is None):
            items = list(np.ravel(value)) if isinstance(value, np.ndarray) else list(value)
            if len(items) not in (n, stored):
                bad(SIZE, f"has {n} components; got {len(items)} values")
            items += [0] * (stored - len(items))
            return b"".join(number_bytes(kind, code, v, bad) for v in items)
        if isinstance(value, _NUMBERS) and n == 1:
            return number_bytes(kind, code, value, bad)
        if isinstance(value, _NUMBERS):
            bad(VALUE, f"is a vector of {n}; got the scalar {value!r} "
                "(pass a tuple or a NumPy array)")
    data = raw_bytes(value)
    if data is None:
        bad(VALUE, f"is {p.size} bytes by value; got {type(value).__name__} "
            "(pass bytes, a NumPy structured scalar or a ctypes.Structure)")
    if len(data) != p.size:
        bad(SIZE, f"is {p.size} bytes; got {len(data)} bytes")
    return data


class Packer:
    """A whole launch's arguments packed at once (the CUDA facade's
    `k[grid, block](args)`), with one fast path: `ok(args)` says that every
    pointer argument is of `pointer_type` and every floating-point one a
    float, and then struct packs the tuple directly (it checks the count,
    that each integer is an int of its type's range, and that each float
    fits: OverflowError); anything else takes the checked path, which
    converts each value with value_bytes and says which argument is wrong.
    A kernel with a bool or struct parameter always takes the checked path."""

    __slots__ = ("params", "vecs", "struct", "bytes_struct", "ok")

    def __init__(self, desc, pointer_type):
        self.params = desc.params
        self.vecs = [vector_of(p.type_name, p.size) for p in self.params]
        self.struct = desc.struct
        self.bytes_struct = desc.bytes_struct()
        self.ok = _fast_check(self.params, pointer_type)

    def pack(self, args, pointer, bad) -> bytes:
        """The packed buffer.  pointer(value, bad_i) -> the device address of a
        pointer argument; bad(i, reason, message) raises for argument i (i is
        -1 for a wrong count, and the message "N given")."""
        if self.ok(args):
            try:
                return self.struct.pack(*args)
            except (struct.error, OverflowError, TypeError, ValueError):
                pass              # the checked path says which argument
        return self.pack_checked(args, pointer, bad)

    def pack_checked(self, args, pointer, bad) -> bytes:
        params = self.params
        if len(args) != len(params):
            bad(-1, VALUE, f"{len(args)} given")
        parts = []
        for i, (p, v) in enumerate(zip(params, args)):
            def bad_i(reason, msg, i=i):
                bad(i, reason, msg)
            if p.kind == PARAM_POINTER:
                addr = pointer(v, bad_i)
                try:
                    parts.append(addr.to_bytes(p.size, "little"))
                except OverflowError:
                    bad_i(MEMORY, f"is a pointer; 0x{addr:x} is not device memory")
            else:
                parts.append(value_bytes(p, self.vecs[i], v, bad_i, raw_scalars=False))
        return self.bytes_struct.pack(*parts)


def fast_test(params) -> str:
    """The condition of Packer's fast path for these parameters, as Python
    source over `args` (and `P`, the pointer type): a type test for each
    pointer and floating-point argument (integers need none: struct takes
    only ints, within range; it also tests the count), "True" when there
    are none, "False" when a parameter always needs converting."""
    tests = []
    for i, p in enumerate(params):
        if p.kind == PARAM_POINTER:
            tests.append(f"type(args[{i}]) is P")
        elif p.kind == PARAM_FLOAT:
            tests.append(f"type(args[{i}]) is float")
        elif p.kind not in (PARAM_SIGNED, PARAM_UNSIGNED) or p.is_bool:
            return "False"
    if not tests:
        return "True"
    return f"len(args) == {len(params)} and " + " and ".join(tests)


def _fast_check(params, pointer_type):
    """ok(args): fast_test compiled (its text is made of parameter indices only)."""
    scope = {"P": pointer_type}
    exec(f"def ok(args):\n    return {fast_test(params)}\n", scope)  # noqa: S102
    return scope["ok"]

__all__ = ["VALUE", "SIZE", "MEMORY", "vector_of", "raw_bytes", "number_bytes", "value_bytes",
           "Packer", "fast_test"]
