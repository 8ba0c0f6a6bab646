"""runtime/args.py: the one argument converter both facades use, on
parameters described as the compiler describes them (no compiler needed).
Every wrong value must reach the facade's `bad` with a reason, never a raw
TypeError/ValueError/OverflowError, and every right one the exact bytes."""
import ctypes
import struct

import numpy as np
import pytest

from pyemu.runtime.args import MEMORY, SIZE, VALUE, Packer, number_bytes, value_bytes, vector_of
from pyemu.runtime.kernel import (PARAM_FLOAT, PARAM_POINTER, PARAM_SIGNED, PARAM_STRUCT,
                                  PARAM_UNSIGNED, KernelDesc, layout)


class P:
    """A Param as runtime/kernel.py reads it from the core."""

    def __init__(self, type_name, kind, size, offset=0):
        self.type_name, self.kind, self.size, self.offset = type_name, kind, size, offset
        self.align, self.flags, self.is_bool = size, 0, type_name == "bool"


class Bad(Exception):
    pass


def bad(reason, msg):
    raise Bad(reason, msg)


def reason_of(param, value, vec=None, raw=True):
    try:
        value_bytes(param, vec, value, bad, raw_scalars=raw)
    except Bad as exc:
        return exc.args[0]
    return None


INT = P("int", PARAM_SIGNED, 4)
UINT = P("unsigned int", PARAM_UNSIGNED, 4)
FLOAT = P("float", PARAM_FLOAT, 4)
HALF = P("half", PARAM_FLOAT, 2)
DOUBLE = P("double", PARAM_FLOAT, 8)
BOOL = P("bool", PARAM_UNSIGNED, 1)


@pytest.mark.parametrize("param, value", [
    (FLOAT, 1e39), (FLOAT, -1e39), (FLOAT, 10 ** 400), (HALF, 70000.0), (FLOAT, "1.0"),
    (FLOAT, b"abcd"[:3]), (FLOAT, 1j), (FLOAT, np.complex64(1)), (FLOAT, None), (FLOAT, [1.0]),
    (INT, "5"), (INT, 1.5), (INT, np.float32(2)), (INT, 2 ** 31), (INT, -2 ** 31 - 1),
    (UINT, -1), (UINT, 2 ** 32), (UINT, np.int64(-1)), (INT, None), (INT, object()),
    (INT, 1j), (BOOL, 0.5), (DOUBLE, "x"),
], ids=lambda v: repr(v)[:20])
def test_value_bytes_refuses_with_a_reason_not_a_raw_exception(param, value):
    assert reason_of(param, value, raw=False) in (VALUE, SIZE)


def test_value_bytes_out_of_range_is_value_and_wrong_byte_count_is_size():
    assert reason_of(FLOAT, 1e39) == VALUE
    assert reason_of(UINT, -1) == VALUE
    assert reason_of(INT, b"abc") == SIZE            # raw bytes of the wrong count
    assert reason_of(INT, b"abc", raw=False) == VALUE  # CUDA takes no raw bytes for a number


@pytest.mark.parametrize("param, value, expect", [
    (INT, -7, struct.pack("<i", -7)), (INT, True, struct.pack("<i", 1)),
    (INT, np.int8(-3), struct.pack("<i", -3)), (INT, np.array(9), struct.pack("<i", 9)),
    (UINT, 2 ** 32 - 1, b"\xff" * 4), (FLOAT, 3, struct.pack("<f", 3.0)),
    (FLOAT, float("inf"), struct.pack("<f", float("inf"))), (FLOAT, np.float64(0.5),
                                                              struct.pack("<f", 0.5)),
    (HALF, 1.5, struct.pack("<e", 1.5)), (DOUBLE, 1e300, struct.pack("<d", 1e300)),
    (BOOL, 5, b"\x01"), (BOOL, 0, b"\x00"), (INT, b"\x01\x00\x00\x00", b"\x01\x00\x00\x00"),
])
def test_value_bytes_packs_what_c_converts(param, value, expect):
    assert value_bytes(param, None, value, bad) == expect


def test_vectors_and_structs():
    f4 = P("float4", PARAM_STRUCT, 16)
    vec = vector_of("float4", 16)
    assert value_bytes(f4, vec, (1, 2, 3, 4), bad) == struct.pack("<4f", 1, 2, 3, 4)
    i3 = P("int3", PARAM_STRUCT, 16)
    assert value_bytes(i3, vector_of("int3", 16), [1, 2, 3], bad) == struct.pack("<4i", 1, 2, 3, 0)
    assert vector_of("float3", 12) is None            # CUDA's float3 is 12 bytes: raw bytes
    assert reason_of(f4, (1, 2, 3), vec) == SIZE
    assert reason_of(f4, (1, 2, 3, 1e39), vec) == VALUE
    assert reason_of(f4, 1.0, vec) == VALUE
    s = P("S", PARAM_STRUCT, 8)

    class S(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_float)]
    assert value_bytes(s, None, S(1, 2.0), bad) == bytes(S(1, 2.0))
    assert reason_of(s, b"1234") == SIZE
    assert reason_of(s, 5) == VALUE


def test_number_bytes_range_message_names_the_range():
    with pytest.raises(Bad) as info:
        number_bytes(PARAM_UNSIGNED, "<B", 256, bad)
    assert info.value.args == (VALUE, "cannot hold the value 256 (range 0 to 255)")


class Desc:
    def __init__(self, params, args_size):
        self.name, self.params, self.args_size = "k", params, args_size
        self.struct = layout("k", params, args_size)

    def bytes_struct(self):
        return KernelDesc.bytes_struct(self)


class Ptr(int):
    pass


def test_packer_fast_and_checked_paths_give_the_same_bytes():
    ptr, n, x = P("float*", PARAM_POINTER, 8, 0), P("int", PARAM_SIGNED, 4, 8), \
        P("float", PARAM_FLOAT, 4, 12)
    desc = Desc([ptr, n, x], 16)
    pk = Packer(desc, Ptr)
    seen = []

    def pointer(v, bad_i):
        seen.append(v)
        if not isinstance(v, int):
            bad_i(MEMORY, "not a pointer")
        return int(v)

    def bad3(i, reason, msg):
        raise Bad(i, reason, msg)
    fast = pk.pack((Ptr(0x1000), 5, 2.5), pointer, bad3)
    assert not seen                                  # the fast path converts nothing
    slow = pk.pack((0x1000, np.int32(5), np.float32(2.5)), pointer, bad3)
    assert fast == slow == struct.pack("<Qif", 0x1000, 5, 2.5)
    with pytest.raises(Bad) as info:                 # 1e39 on the fast path: no OverflowError
        pk.pack((Ptr(0x1000), 5, 1e39), pointer, bad3)
    assert info.value.args[:2] == (2, VALUE)
    with pytest.raises(Bad) as info:
        pk.pack((Ptr(0x1000), 2 ** 40, 1.0), pointer, bad3)
    assert info.value.args[:2] == (1, VALUE)
    with pytest.raises(Bad) as info:
        pk.pack(("host", 1, 1.0), pointer, bad3)
    assert info.value.args[:2] == (0, MEMORY)
    with pytest.raises(Bad) as info:
        pk.pack((Ptr(0x1000), 1), pointer, bad3)
    assert info.value.args == (-1, VALUE, "2 given")
