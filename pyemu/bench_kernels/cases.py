"""The comparison cases: inputs, the NumPy reference, and how to run them.

Each case runs the same way on either backend (see :mod:`.backends`): it
builds ``NAME.cu`` or ``NAME.cl``, puts its inputs on the device, times the
kernel with :func:`time_runs`, and hands the output back for
:meth:`Case.check` to compare with NumPy.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np




def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def time_runs(be: Any, run: Callable[[], None], repeat: int,
               reset: Callable[[], None] | None = None) -> list[float]:
    """Warm up once, then time ``repeat`` runs of ``run`` + synchronise.

    ``reset`` (untimed) puts the output back in its initial state first.
    """
    samples = []
    for i in range(repeat + 1):
        if reset is not None:
            reset()
        be.sync()
        t0 = time.perf_counter()
        run()
        be.sync()
        t1 = time.perf_counter()
        if i:
            samples.append(t1 - t0)
    return samples


@dataclass
class Prepared:
    inputs: dict[str, np.ndarray]
    expected: Any
    params: dict[str, int]


class Case:
    """A comparison case: a kernel pair, inputs, a NumPy reference and a target."""

    name = ""
    target_ratio = 1.5
    reference_pocl_seconds: float | None = None
    full_size = 0
    quick_size = 0

    def size_text(self, size: int) -> str:
        """The problem size as shown in the table."""
        return f"2^{size.bit_length() - 1}" if size & (size - 1) == 0 else str(size)

    def prepare(self, size: int) -> Prepared:
        """Make the inputs (seeded) and the NumPy reference."""
        raise NotImplementedError

    def run(self, be: Any, prep: Prepared, repeat: int) -> tuple[list[float], Any]:
        """Run on backend ``be``; return the timed samples and the output."""
        raise NotImplementedError

    def check(self, out: Any, prep: Prepared) -> tuple[bool, str]:
        """Compare an output with the reference; (ok, what differs)."""
        expected = prep.expected
        if out.shape != expected.shape:
            return False, f"shape {out.shape} != {expected.shape}"
        if np.array_equal(out, expected):
            return True, ""
        bad = np.flatnonzero(out.ravel() != expected.ravel())
        i = int(bad[0])
        return False, (f"{bad.size} of {out.size} elements differ; first at {i}: "
                       f"got {out.ravel()[i]!r}, expected {expected.ravel()[i]!r}")


class VectorAdd(Case):
    """c = a + b over 2^24 floats, 1024 threads per block."""

    name = "vector_add"
    target_ratio = 1.5
    reference_pocl_seconds = 0.007
    full_size = 1 << 24
    quick_size = 1 << 16
    block = 1024

    def prepare(self, size: int) -> Prepared:
        rng = np.random.default_rng(1)
        a = rng.random(size, dtype=np.float32)
        b = rng.random(size, dtype=np.float32)
        return Prepared({"a": a, "b": b}, a + b, {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name), "add")
        da, db = be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"])
        dc = be.empty(4 * n)
        try:
            go = be.launcher(k, (cdiv(n, self.block),), (self.block,), (da, db, dc, np.int32(n)))
            samples = time_runs(be, go, repeat)
            return samples, be.download(dc, np.empty(n, np.float32))
        finally:
            for buf in (da, db, dc):
                be.free(buf)


class MatmulNaive(Case):
    """C = A @ B, N x N floats, one output per thread, blocks of 32x32."""

    name = "matmul_naive"
    kernel_name = "matrixMul"
    target_ratio = 1.0
    reference_pocl_seconds = 2.0
    full_size = 1024
    quick_size = 128
    tile = 32
    options: tuple[str, ...] = ()

    def size_text(self, size: int) -> str:
        return f"{size}x{size}"

    def prepare(self, size: int) -> Prepared:
        rng = np.random.default_rng(2)
        a = rng.random((size, size), dtype=np.float32)
        b = rng.random((size, size), dtype=np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        return Prepared({"a": a, "b": b}, ref, {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name, self.options), self.kernel_name)
        da, db = be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"])
        dc = be.empty(4 * n * n)
        try:
            grid = (cdiv(n, self.tile), cdiv(n, self.tile))
            go = be.launcher(k, grid, (self.tile, self.tile), (da, db, dc, np.int32(n)))
            samples = time_runs(be, go, repeat)
            return samples, be.download(dc, np.empty((n, n), np.float32))
        finally:
            for buf in (da, db, dc):
                be.free(buf)

    def check(self, out, prep):
        ref = prep.expected
        if out.shape != ref.shape:
            return False, f"shape {out.shape} != {ref.shape}"
        # float32 sums of N products in [0, 1): allow float32 rounding growth.
        close = np.isclose(out, ref, rtol=1e-4, atol=1e-5 * prep.params["n"])
        if close.all():
            return True, ""
        i = int(np.flatnonzero(~close.ravel())[0])
        return False, (f"{int((~close).sum())} of {out.size} elements differ; first at {i}: "
                       f"got {out.ravel()[i]!r}, expected {ref.ravel()[i]!r}")


class MatmulTiled(MatmulNaive):
    """C = A @ B with 16x16 tiles staged in shared / local memory."""

    name = "matmul_tiled"
    kernel_name = "MatrixMulKernel"
    target_ratio = 2.0
    reference_pocl_seconds = 0.40
    tile = 16
    options = ("-DTILE_WIDTH=16",)


class Reduce(Case):
    """Sum of 2^24 ints: block tree reduction, then atomicAdd of block sums."""

    name = "reduce"
    target_ratio = 1.5
    reference_pocl_seconds = 0.089
    full_size = 1 << 24
    quick_size = 1 << 16
    block = 256

    def prepare(self, size: int) -> Prepared:
        rng = np.random.default_rng(3)
        x = rng.integers(0, 100, size, dtype=np.int32)
        return Prepared({"x": x}, np.array([x.sum(dtype=np.int64)], dtype=np.int64), {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name, (f"-Dblocksize={self.block}",)), "plus_reduce")
        dx = be.to_device(prep.inputs["x"])
        zero = np.zeros(1, np.int32)
        dt = be.to_device(zero)
        try:
            go = be.launcher(k, (cdiv(n, self.block),), (self.block,), (dx, np.uint32(n), dt))
            samples = time_runs(be, go, repeat, reset=lambda: be.upload(dt, zero))
            return samples, be.download(dt, np.empty(1, np.int32)).astype(np.int64)
        finally:
            be.free(dx)
            be.free(dt)


class Histogram(Case):
    """256-bin histogram of 2^24 bytes with global atomicAdd ("CUDA by Example").

    As in the book, the grid is fixed at twice the number of multiprocessors
    (pyemu's worker threads; the same grid on both sides) and walks the buffer
    with a grid-stride loop; blocks of 256.
    """

    name = "histogram"
    target_ratio = 1.5
    reference_pocl_seconds = 0.150
    full_size = 1 << 24
    quick_size = 1 << 16
    block = 256
    bins = 256

    def prepare(self, size: int) -> Prepared:
        rng = np.random.default_rng(4)
        data = rng.integers(0, self.bins, size, dtype=np.uint8)
        ref = np.bincount(data, minlength=self.bins).astype(np.uint32)
        return Prepared({"data": data}, ref, {"n": size, "blocks": 4})

    def run(self, be, prep, repeat):
        n, blocks = prep.params["n"], prep.params["blocks"]
        k = be.kernel(be.compile(self.name), "histo_kernel")
        dd = be.to_device(prep.inputs["data"])
        zero = np.zeros(self.bins, np.uint32)
        dbins = be.to_device(zero)
        try:
            go = be.launcher(k, (blocks,), (self.block,), (dd, np.int64(n), dbins))
            samples = time_runs(be, go, repeat, reset=lambda: be.upload(dbins, zero))
            return samples, be.download(dbins, np.empty(self.bins, np.uint32))
        finally:
            be.free(dd)
            be.free(dbins)


class Transpose(Case):
    """Coalesced transpose of an N x N float matrix: 32x32 tiles (+1 pad), block 32x8.

    The kernel is transposeNoBankConflicts of Ruetsch & Micikevicius (2009).
    """

    name = "transpose"
    target_ratio = 1.5
    reference_pocl_seconds = 0.028
    full_size = 4096
    quick_size = 256
    tile_dim = 32
    block_rows = 8

    def size_text(self, size: int) -> str:
        return f"{size}x{size}"

    def prepare(self, size: int) -> Prepared:
        rng = np.random.default_rng(5)
        a = rng.random((size, size), dtype=np.float32)
        return Prepared({"a": a}, np.ascontiguousarray(a.T), {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        opts = (f"-DTILE_DIM={self.tile_dim}", f"-DBLOCK_ROWS={self.block_rows}")
        k = be.kernel(be.compile(self.name, opts), "transposeNoBankConflicts")
        di = be.to_device(prep.inputs["a"])
        do = be.empty(4 * n * n)
        try:
            grid = (cdiv(n, self.tile_dim), cdiv(n, self.tile_dim))
            go = be.launcher(k, grid, (self.tile_dim, self.block_rows),
                             (do, di, np.int32(n), np.int32(n), np.int32(1)))
            samples = time_runs(be, go, repeat)
            return samples, be.download(do, np.empty((n, n), np.float32))
        finally:
            be.free(di)
            be.free(do)


COMPARE_CASES: tuple[Case, ...] = (VectorAdd(), MatmulNaive(), MatmulTiled(),
                                   Reduce(), Histogram(), Transpose())
