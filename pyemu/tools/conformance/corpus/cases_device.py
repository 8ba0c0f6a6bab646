"""Atomics, asynchronous copies, printf, predefined macros, build options."""
from __future__ import annotations

import numpy as np

from .compare import Exact, Text
from .model import Case, In, InOut, Local, Out, Scalar, case, uniform

INT_MIN, INT_MAX = -2**31, 2**31 - 1


def _counters_init():
    c = np.zeros(11, np.int32)
    c[4], c[5], c[6], c[9] = INT_MAX, INT_MIN, -1, INT_MIN
    return c


def _counters_ref(v):
    """What BODY of atomics.cl leaves in the counters after the values v."""
    v64 = v.astype(np.int64)
    wrap = lambda x: np.array([x & 0xFFFFFFFF], np.uint32).view(np.int32)[0]  # noqa: E731
    and_v = np.bitwise_and.reduce(v | np.int32(0x7ffbfff7))
    or_v = np.bitwise_or.reduce(v & np.int32(0x10204001))
    c = [wrap(int(v64.sum())), wrap(-int(v64.sum())), len(v), wrap(-len(v)), v.min(), v.max(),
         and_v, or_v, np.bitwise_xor.reduce(v), max(v.max(), INT_MIN), len(v)]
    u = v.view(np.uint32)
    uc = [u.min(), u.max(), int(u.astype(np.uint64).sum()) & 0xFFFFFFFF, len(v)]
    return np.array(c, np.int32), np.array(uc, np.uint32)


def _global_atomics(name, rng):
    n = 4096
    vals = rng.integers(-100000, 100000, n, dtype=np.int32)
    cells = (np.arange(n) * 3).astype(np.int32)
    c, u = _counters_ref(vals)
    ucounters = np.array([0xFFFFFFFF, 0, 0, 0], np.uint32)
    outs = [In("vals", vals),
            InOut("counters", _counters_init(), Exact(f"{name.split('_')[0]}_* on int"),
                  ref=lambda d: c),
            InOut("ucounters", ucounters, Exact("on uint"), ref=lambda d: u),
            Out("seen", np.int32, n, Exact("return values of _inc"), ref=lambda d: np.ones(n)),
            InOut("cells", cells, Exact("_xchg"),
                  ref=lambda d: -np.arange(n) + 1000 * d["cells"]),
            InOut("fcells", uniform(rng, -1, 1, n), Exact("atomic_xchg on float"),
                  ref=(lambda d: d["fcells"] + np.arange(n) * np.float32(0.5))
                  if name == "atomics_global" else (lambda d: np.arange(n)))]
    return Case(name, "atomics.cl", name, outs, global_size=(n,), local_size=(64,))


@case
def atomics_global(rng):
    """atomic_add ... atomic_cmpxchg on __global int and uint; atomic_xchg on float."""
    return _global_atomics("atomics_global", rng)


@case
def atom_global(rng):
    """atom_add ... atom_cmpxchg (cl_khr_global_int32_*_atomics) on __global."""
    return _global_atomics("atom_global", rng)


def _local_atomics(name, rng):
    groups, wg = 48, 64
    n = groups * wg
    vals = rng.integers(-100000, 100000, n, dtype=np.int32)

    def refs(d):
        cs, us = zip(*(_counters_ref(d["vals"][g * wg:(g + 1) * wg]) for g in range(groups)))
        return np.concatenate(cs), np.concatenate(us)

    lid = np.arange(n) % wg
    return Case(name, "atomics.cl", name,
                [In("vals", vals),
                 Out("counters", np.int32, 11 * groups, Exact("on __local int"),
                     ref=lambda d: refs(d)[0]),
                 Out("ucounters", np.uint32, 4 * groups, Exact("on __local uint"),
                     ref=lambda d: refs(d)[1]),
                 Out("seen", np.int32, n, Exact("return values of _inc"),
                     ref=lambda d: np.ones(n)),
                 Out("cells", np.int32, n, Exact("_xchg"), ref=lambda d: -lid + 3000 * lid)],
                global_size=(n,), local_size=(wg,))


@case
def atomics_local(rng):
    """atomic_* on __local int and uint."""
    return _local_atomics("atomics_local", rng)


@case
def atom_local(rng):
    """atom_* (cl_khr_local_int32_*_atomics) on __local."""
    return _local_atomics("atom_local", rng)


@case
def atom_int64(rng):
    """atom_* on __global long and ulong (cl_khr_int64_*_atomics)."""
    n = 2048
    vals = rng.integers(-2**60, 2**60, n, dtype=np.int64)
    c0 = np.zeros(10, np.int64)
    c0[4], c0[5], c0[6], c0[9] = 2**63 - 1, -2**63, -1, -2**63
    u0 = np.array([0, 0, 2**64 - 1], np.uint64)
    cells = np.arange(n, dtype=np.int64) * 7

    def cref(d):
        v = d["vals"]
        s = int(v.astype(object).sum())
        wrap = lambda x: np.array([x % 2**64], np.uint64).view(np.int64)[0]  # noqa: E731
        return np.array([wrap(s), wrap(-s), n, -n, v.min(), v.max(),
                         np.bitwise_and.reduce(v | np.int64(0x7ffffffbfffffff7)),
                         np.bitwise_or.reduce(v & np.int64(0x1020400000000001)),
                         np.bitwise_xor.reduce(v), v.max()], np.int64)

    def uref(d):
        u = d["vals"].view(np.uint64)
        return np.array([int(u.astype(object).sum()) % 2**64, u.max(), u.min()], np.uint64)

    return Case("atom_int64", "atom_int64.cl", "atom_int64",
                [In("vals", vals), InOut("c", c0, Exact("atom_* on long"), ref=cref),
                 InOut("u", u0, Exact("atom_* on ulong"), ref=uref),
                 InOut("cells", cells, Exact("atom_xchg on long"),
                       ref=lambda d: (np.arange(n, dtype=np.int64) << 33) + d["cells"])],
                global_size=(n,), local_size=(64,))


@case
def async_copy(rng):
    """async_work_group_copy, async_work_group_strided_copy, prefetch, wait_group_events."""
    groups, wg = 16, 64
    n = groups * wg
    x = uniform(rng, -10, 10, 4 * n)
    matrix = uniform(rng, -10, 10, wg * groups)      # wg rows of `groups` columns

    def out_ref(d):
        t = d["in"].reshape(groups, wg, 4)[:, ::-1, :] * np.float32(2)
        return t.reshape(-1)

    def col_ref(d):
        m = d["matrix"].reshape(wg, groups)
        return (m + np.arange(wg, dtype=np.float32)[:, None]).reshape(-1)

    return Case("async_copy", "async_copy.cl", "async_copy",
                [In("in", x), Out("out", np.float32, 4 * n, Exact(), ref=out_ref),
                 In("matrix", matrix),
                 Out("columns", np.float32, wg * groups, Exact("strided copies"), ref=col_ref),
                 Local("tile", 16 * wg), Local("col", 4 * wg), Scalar("stride", np.int32(groups))],
                global_size=(n,), local_size=(wg,))


@case
def async_copy_chain(rng):
    """Two copies sharing one event (the second call is given the first's)."""
    groups, wg = 20, 32
    n = groups * wg
    a = rng.integers(-1000, 1000, n, dtype=np.int32)
    b = rng.integers(-1000, 1000, n, dtype=np.int32)
    ref = lambda d: (d["a"].reshape(groups, wg) * d["b"].reshape(groups, wg)[:, ::-1]).reshape(-1)  # noqa: E731,E501
    return Case("async_copy_chain", "async_copy.cl", "async_copy_chain",
                [In("a", a), In("b", b), Out("out", np.int32, n, Exact(), ref=ref),
                 Local("la", 4 * wg), Local("lb", 4 * wg)],
                global_size=(n,), local_size=(wg,))


@case
def printf_formats(rng):
    """printf: d i u x X o c s %%, f e E g G a, flags, widths, precisions, l h hh."""
    n = 24
    ints = rng.integers(-100000, 100000, n, dtype=np.int32)
    ints[:3] = [0, -1, 2**31 - 1]
    floats = uniform(rng, -1000, 1000, n)
    floats[:4] = [0.0, -0.0, 1.5, np.float32(1) / np.float32(3)]
    return Case("printf_formats", "printf.cl", "printf_formats",
                [In("ints", ints), In("floats", floats),
                 Out("ret", np.int32, n, Exact("printf's return value"),
                     ref=lambda d: np.zeros(n))],
                global_size=(n,), local_size=(8,), printf=Text())


@case
def printf_vectors(rng):
    """printf's vector specifier: %v4hlf, %v2hld, %v4hhd, %v8hd, %v2ld, %.1v3hlf."""
    n = 16
    return Case("printf_vectors", "printf.cl", "printf_vectors",
                [In("v", uniform(rng, -100, 100, 4 * n)),
                 In("w", rng.integers(-5000, 5000, 4 * n, dtype=np.int32))],
                global_size=(n,), local_size=(4,), printf=Text())


@case
def builtin_macros(rng):
    """__OPENCL_C_VERSION__, CL_VERSION_*, __ENDIAN_LITTLE__, __LINE__ (19), <limits.h>,
    <float.h> constants, M_*_F and M_* constants."""
    f32 = np.float32
    fl = [np.e, np.log2(np.e), np.log10(np.e), np.log(2), np.log(10), np.pi, np.pi / 2,
          np.pi / 4, 1 / np.pi, 2 / np.pi, 2 / np.sqrt(np.pi), np.sqrt(2), np.sqrt(0.5)]
    iref = [120, 100, 110, 120, 1, 1, 19, 8, 127, -128, 127, -128, 255, 32767, -32768, 65535,
            2**31 - 1, -2**31, -1, 6, 24, 38, 128, -37, -125, 2, 15, 53, 1024, -1021,
            0x7f7fffff, 0x00800000, 0x34000000, 0x7f7fffff, 0x7f800000, 0x7f800000, 1,
            8888, 38]
    d = np.array([np.pi, np.e, np.finfo(np.float64).max, np.finfo(np.float64).tiny,
                  np.finfo(np.float64).eps, np.inf])
    lref = [2**63 - 1, -2**63, -1] + list(d.view(np.int64))
    return Case("builtin_macros", "builtin_macros.cl", "builtin_macros",
                [Out("o", np.int32, 39, Exact(), ref=lambda _: np.array(iref)),
                 Out("f", np.float32, 13, Exact(), ref=lambda _: np.array(fl, f32)),
                 Out("l", np.int64, 9, Exact(), ref=lambda _: np.array(lref, np.int64))],
                global_size=(64,), local_size=(64,), options="-cl-std=CL1.2")


@case
def build_options(rng):
    """-D NAME=value, -D NAME, -DNAME=value, with other options beside them."""
    n = 1024
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    return Case("build_options", "build_options.cl", "build_options",
                [In("in", x), Out("out", np.int32, n, Exact(), ref=lambda d: d["in"] * 3 - 7 + 8)],
                global_size=(n,), local_size=(64,),
                options="-D SCALE=3 -D WITH_OFFSET -DOFFSET=-7 -D TYPE=long -cl-mad-enable -w")
