"""The comparison cases: inputs, the NumPy reference, and how to launch them.

A case is written once for both backends (see :mod:`.backends`).
:meth:`Case.prepare` makes seeded inputs and the NumPy reference;
:meth:`Case.stage` builds ``NAME.cu`` or ``NAME.cl`` on one backend, puts
the inputs on its device and returns a :class:`Staged` launch, which the
benchmark times (see :func:`time_once`) and whose output
:meth:`Case.check` compares with the reference.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


def cdiv(a: int, b: int) -> int:
    """Ceiling division: blocks needed to cover ``a`` items ``b`` at a time."""
    return (a + b - 1) // b


@dataclass
class Prepared:
    """A case's inputs (host arrays), its NumPy reference and its sizes."""

    inputs: dict[str, np.ndarray]
    expected: Any
    params: dict[str, int]


@dataclass
class Staged:
    """One case made ready on one backend: the data is on the device.

    ``go`` launches the kernel (asynchronously), ``reset`` (untimed) puts the
    output back in its initial state before a run, ``fetch`` copies the output
    back to the host, and ``release`` frees the device memory.
    """

    backend: Any
    go: Callable[[], None]
    fetch: Callable[[], np.ndarray]
    reset: Callable[[], None] | None = None
    buffers: list = field(default_factory=list)

    def release(self) -> None:
        """Free every device buffer of this launch."""
        while self.buffers:
            self.backend.free(self.buffers.pop())


def time_once(staged: Staged) -> float:
    """Reset (untimed), then time one launch up to the end of a synchronise."""
    be = staged.backend
    if staged.reset is not None:
        staged.reset()
    be.sync()
    t0 = time.perf_counter()
    staged.go()
    be.sync()
    return time.perf_counter() - t0


def time_runs(be: Any, run: Callable[[], None], repeat: int) -> list[float]:
    """Run ``run`` + synchronise once to warm up, then time ``repeat`` runs."""
    staged = Staged(be, run, lambda: np.empty(0))
    time_once(staged)
    return [time_once(staged) for _ in range(repeat)]


class Case:
    """A comparison case: a kernel pair, inputs, a NumPy reference and a target."""

    name = ""
    source = ""            # the kernel files' name (NAME.cu, NAME.cl) when not the case's
    per_call = False       # the row shows the time per launch of a storm of ``size``
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

    def stage(self, be: Any, prep: Prepared) -> Staged:
        """Build the kernel on ``be`` and put the inputs on its device."""
        raise NotImplementedError

    def stage_numpy(self, prep: Prepared) -> Staged | None:
        """The same work done by NumPy on the host (the NumPy column), or None
        when the case has no NumPy counterpart worth timing."""
        return None

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


class HostNumpy:
    """The "backend" of the NumPy column: arrays on the host, nothing to wait for."""

    name = "NumPy"

    def sync(self) -> None:
        """Nothing runs asynchronously on the host."""

    def free(self, buf: Any) -> None:
        """Host arrays are freed by Python."""


HOST_NUMPY = HostNumpy()


def _staged(be: Any, go: Callable[[], None], out: Any, shape: tuple, dtype: Any,
            buffers: list, reset: Callable[[], None] | None = None) -> Staged:
    return Staged(be, go, lambda: be.download(out, np.empty(shape, dtype)), reset, buffers)


class VectorAdd(Case):
    """c = a + b over 2^24 floats, 1024 threads per block."""

    name = "vector_add"
    target_ratio = 1.0
    reference_pocl_seconds = 0.007
    full_size = 1 << 24
    quick_size = 1 << 16
    block = 1024

    def prepare(self, size: int) -> Prepared:
        rng = np.random.default_rng(1)
        a = rng.random(size, dtype=np.float32)
        b = rng.random(size, dtype=np.float32)
        return Prepared({"a": a, "b": b}, a + b, {"n": size})

    def stage(self, be, prep):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name), "add")
        bufs = [be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"]), be.empty(4 * n)]
        go = be.launcher(k, (cdiv(n, self.block),), (self.block,), (*bufs, np.int32(n)))
        return _staged(be, go, bufs[2], (n,), np.float32, bufs)

    def stage_numpy(self, prep):
        """np.add(a, b, out=c) on the same arrays: the machine's bandwidth floor."""
        a, b = prep.inputs["a"], prep.inputs["b"]
        c = np.empty_like(a)
        return Staged(HOST_NUMPY, lambda: np.add(a, b, out=c), lambda: c)


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

    def stage(self, be, prep):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name, self.options), self.kernel_name)
        bufs = [be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"]), be.empty(4 * n * n)]
        grid = (cdiv(n, self.tile), cdiv(n, self.tile))
        go = be.launcher(k, grid, (self.tile, self.tile), (*bufs, np.int32(n)))
        return _staged(be, go, bufs[2], (n, n), np.float32, bufs)

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
        return Prepared({"x": x}, np.array([x.sum(dtype=np.int64)], dtype=np.int32), {"n": size})

    def stage(self, be, prep):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name, (f"-Dblocksize={self.block}",)), "plus_reduce")
        zero = np.zeros(1, np.int32)
        bufs = [be.to_device(prep.inputs["x"]), be.to_device(zero)]
        go = be.launcher(k, (cdiv(n, self.block),), (self.block,), (bufs[0], np.uint32(n), bufs[1]))
        return _staged(be, go, bufs[1], (1,), np.int32, bufs, lambda: be.upload(bufs[1], zero))


class Histogram(Case):
    """256-bin histogram of 2^24 bytes with global atomicAdd ("CUDA by Example").

    As in the book, the grid is fixed at twice the number of multiprocessors
    (pyemu's worker threads; the same grid on both sides) and walks the buffer
    with a grid-stride loop; blocks of 256.
    """

    name = "histogram"
    target_ratio = 1.0
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

    def stage(self, be, prep):
        n, blocks = prep.params["n"], prep.params["blocks"]
        k = be.kernel(be.compile(self.name), "histo_kernel")
        zero = np.zeros(self.bins, np.uint32)
        bufs = [be.to_device(prep.inputs["data"]), be.to_device(zero)]
        go = be.launcher(k, (blocks,), (self.block,), (bufs[0], np.int64(n), bufs[1]))
        return _staged(be, go, bufs[1], (self.bins,), np.uint32, bufs,
                       lambda: be.upload(bufs[1], zero))


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

    def stage(self, be, prep):
        n = prep.params["n"]
        opts = (f"-DTILE_DIM={self.tile_dim}", f"-DBLOCK_ROWS={self.block_rows}")
        k = be.kernel(be.compile(self.name, opts), "transposeNoBankConflicts")
        bufs = [be.empty(4 * n * n), be.to_device(prep.inputs["a"])]
        grid = (cdiv(n, self.tile_dim), cdiv(n, self.tile_dim))
        go = be.launcher(k, grid, (self.tile_dim, self.block_rows),
                         (*bufs, np.int32(n), np.int32(n), np.int32(1)))
        return _staged(be, go, bufs[0], (n, n), np.float32, bufs)


class Transpose32(Transpose):
    """The course's transpose: blocks of 32x32, one element per thread, a
    [32][33] tile in shared / local memory (transpose32.cu / .cl)."""

    name = "transpose32"
    target_ratio = 1.0
    reference_pocl_seconds = 0.028

    def stage(self, be, prep):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name), "transpose32")
        bufs = [be.empty(4 * n * n), be.to_device(prep.inputs["a"])]
        grid = (cdiv(n, 32), cdiv(n, 32))
        go = be.launcher(k, grid, (32, 32), (*bufs, np.int32(n), np.int32(n)))
        return _staged(be, go, bufs[0], (n, n), np.float32, bufs)


class LaunchEmpty(Case):
    """``size`` launches of an empty one-thread kernel, then one synchronise: what
    a launch costs (the row shows the time per launch).  The result checked
    is a second storm's, of ``tick``, which counts the launches that ran."""

    name = "launch"
    source = "launch"
    per_call = True
    target_ratio = 1.0
    reference_pocl_seconds = 2.3e-6     # PoCL's empty enqueue, per launch
    full_size = 1000
    quick_size = 200

    def size_text(self, size: int) -> str:
        return f"{size} launches"

    def prepare(self, size: int) -> Prepared:
        return Prepared({}, np.array([size], np.int32), {"n": size})

    def stage(self, be, prep):
        n = prep.params["n"]
        mod = be.compile(self.source)
        go = be.storm(be.kernel(mod, "emptyKernel"), 1, 1, (), n)
        count = be.to_device(np.zeros(1, np.int32))
        ticks = be.storm(be.kernel(mod, "tick"), 1, 1, (count,), n)

        def fetch():
            be.upload(count, np.zeros(1, np.int32))
            ticks()
            be.sync()
            return be.download(count, np.empty(1, np.int32))

        return Staged(be, go, fetch, None, [count])


class LaunchArgs(Case):
    """``size`` launches of the vector add with four arguments (three buffers and
    n, one block of 256), then one synchronise: the time per launch.  The
    kernel adds into c, so c = size * (a + b) says every launch ran."""

    name = "launch_args"
    source = "launch"
    per_call = True
    target_ratio = 1.0
    full_size = 1000
    quick_size = 200
    n = 256

    def size_text(self, size: int) -> str:
        return f"{size} launches"

    def prepare(self, size: int) -> Prepared:
        a = (np.arange(self.n) % 7).astype(np.float32)
        b = np.ones(self.n, np.float32)
        return Prepared({"a": a, "b": b}, (size * (a + b)).astype(np.float32), {"count": size})

    def stage(self, be, prep):
        n = self.n
        k = be.kernel(be.compile(self.source), "addTo")
        bufs = [be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"]), be.empty(4 * n)]
        go = be.storm(k, 1, n, (*bufs, np.int32(n)), prep.params["count"])
        zeros = np.zeros(n, np.float32)
        return _staged(be, go, bufs[2], (n,), np.float32, bufs,
                       reset=lambda: be.upload(bufs[2], zeros))


COMPARE_CASES: tuple[Case, ...] = (VectorAdd(), MatmulNaive(), MatmulTiled(),
                                   Reduce(), Histogram(), Transpose(), Transpose32(),
                                   LaunchEmpty(), LaunchArgs())


# ---- the warp-shuffle reduction (issue 13) ---------------------------------

class ReduceShfl(Reduce):
    """Sum of 2^24 ints with __shfl_down_sync per warp (reduce_shfl.cu; the
    OpenCL path sub_group_shuffle_down, reduce_shfl.cl), against PoCL's and
    pyemu's shared-memory reduction (reduce.cl, reduce.cu: the sides named
    in SIDES).  The target is pyemu's shared-memory reduction, measured in
    the same run: the row's target ratio is set from it (bench.py)."""

    name = "reduce_shfl"
    reference_pocl_seconds = None
    # the kernel source and entry point of each side (another backend: pyemu's)
    SIDES = {"pyemu": ("reduce_shfl", "shfl_reduce"), "pyemu-CL": ("reduce_shfl", "shfl_reduce"),
             "PoCL": ("reduce", "plus_reduce"), "pyemu-smem": ("reduce", "plus_reduce")}
    BASELINE = "pyemu-smem"

    def stage(self, be, prep):
        n = prep.params["n"]
        source, entry = self.SIDES.get(be.name, self.SIDES["pyemu"])
        k = be.kernel(be.compile(source, (f"-Dblocksize={self.block}",)), entry)
        zero = np.zeros(1, np.int32)
        bufs = [be.to_device(prep.inputs["x"]), be.to_device(zero)]
        go = be.launcher(k, (cdiv(n, self.block),), (self.block,), (bufs[0], np.uint32(n), bufs[1]))
        return _staged(be, go, bufs[1], (1,), np.int32, bufs, lambda: be.upload(bufs[1], zero))


class Renamed:
    """A backend under another side's name (ReduceShfl's pyemu-smem side)."""

    def __init__(self, be: Any, name: str):
        self._be, self.name = be, name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._be, attr)


COMPARE_CASES = COMPARE_CASES + (ReduceShfl(),)
