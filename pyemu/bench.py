"""``python -m pyemu bench``: pyemu against PoCL on the same algorithms.

Each comparison case runs one CUDA C kernel in pyemu and, in the same
process, the same kernel written as natural OpenCL C (same work-group sizes)
on PoCL's CPU device through PyOpenCL.  The kernel sources live beside this
module in ``pyemu/bench_kernels/`` as ``NAME.cu`` / ``NAME.cl`` pairs, so the
two sides can be read side by side.

Only kernels are timed: the data is on the device before the clock starts.
Each side runs once to warm up, then ``repeat`` more times; a run is timed
with :func:`time.perf_counter` from the launch to the end of a synchronise
(``cudaDeviceSynchronize`` / ``queue.finish()``), and the row shows the
median.  Every result, on both sides, is checked against NumPy: a wrong
result is shown as FAIL, never as a time.

Two rows are pyemu's alone: the cost of one asynchronous launch of an empty
kernel (1000 launches, then one synchronise) and the construction of a
:class:`SourceModule` whose source was already built (the kernel cache).

Tests use :func:`run_cases` and read the :class:`Result` rows it returns;
they should assert on ``Result.verified``, never on timings.
"""
from __future__ import annotations

import argparse
import datetime
import faulthandler
import os
import platform
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

KERNEL_DIR = Path(__file__).resolve().parent / "bench_kernels"

# ---------------------------------------------------------------------------
# Result rows
# ---------------------------------------------------------------------------

OK = "ok"          # ran, and the result matched NumPy
FAIL = "FAIL"      # ran, and the result was wrong
ERROR = "error"    # raised before a result could be checked
NA = "n/a"         # this side was not run (PoCL missing, --no-pocl)


@dataclass
class Side:
    """One backend's outcome for one case.

    ``seconds`` is the median time of the timed runs (per launch for the
    launch row); ``status`` is one of ``"ok"``, ``"FAIL"``, ``"error"`` or
    ``"n/a"``; ``detail`` says what went wrong, or why the side did not run.
    """

    status: str = NA
    seconds: float | None = None
    detail: str = ""
    samples: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when this side ran and its result matched NumPy."""
        return self.status == OK


@dataclass
class Result:
    """One row of the benchmark table.

    For a comparison case ``target_ratio`` is the largest pyemu/PoCL time
    ratio that meets the target; for a pyemu-only case ``target_seconds`` is
    the time pyemu must stay under.  ``reference_pocl_seconds`` is the PoCL
    time the targets were set against (full sizes only), used for the ratio
    when PoCL itself could not run.
    """

    name: str
    size: str
    pyemu: Side
    pocl: Side
    target_ratio: float | None = None
    target_seconds: float | None = None
    target_text: str = ""
    reference_pocl_seconds: float | None = None
    quick: bool = False

    @property
    def pyemu_only(self) -> bool:
        """True for rows that have no PoCL counterpart."""
        return self.target_ratio is None

    @property
    def verified(self) -> bool:
        """True when every side that ran produced a correct result.

        A side that was not run (``n/a``) does not spoil it, but pyemu's side
        must always have run.
        """
        if not self.pyemu.ok:
            return False
        return self.pocl.status in (OK, NA)

    @property
    def ratio(self) -> float | None:
        """pyemu time / PoCL time, or None when either is missing.

        When PoCL did not run but the case ran at its full size, the ratio
        is taken against the reference PoCL time (see ``ratio_is_reference``).
        """
        if self.pyemu_only or not self.pyemu.ok or self.pyemu.seconds is None:
            return None
        if self.pocl.ok and self.pocl.seconds:
            return self.pyemu.seconds / self.pocl.seconds
        if self.ratio_is_reference:
            return self.pyemu.seconds / self.reference_pocl_seconds
        return None

    @property
    def ratio_is_reference(self) -> bool:
        """True when ``ratio`` compares with the reference PoCL time."""
        return (not self.pyemu_only and self.pocl.status == NA and not self.quick
                and self.reference_pocl_seconds is not None)

    @property
    def met(self) -> bool | None:
        """Whether the target is met; None when it cannot be judged."""
        if not self.verified:
            return False
        if self.pyemu_only:
            if self.pyemu.seconds is None:
                return None
            return self.pyemu.seconds < self.target_seconds
        r = self.ratio
        return None if r is None else r <= self.target_ratio


# ---------------------------------------------------------------------------
# Backends: the same small interface over pyemu's CUDA runtime and PyOpenCL
# ---------------------------------------------------------------------------


class _Buffer:
    """A device allocation with its size, as both backends hand it out."""

    def __init__(self, handle: Any, nbytes: int):
        self.handle = handle
        self.nbytes = nbytes


def _check_cuda(ret: Any, what: str) -> Any:
    """Raise when a CUDA runtime call reports an error code."""
    err = ret[0] if isinstance(ret, tuple) and ret else ret
    if isinstance(err, (int, np.integer)) and not isinstance(err, bool) and int(err) != 0:
        raise RuntimeError(f"{what} returned error {int(err)} ({err!r})")
    return ret


def _host_scalar(value: Any) -> Any:
    """NumPy scalars to the Python numbers pyemu's launch takes."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


class PyemuBackend:
    """Runs the ``.cu`` kernels through pyemu's CUDA runtime API."""

    name = "pyemu"
    ext = ".cu"

    def __init__(self) -> None:
        import pyemu.cuda as cuda  # imported late: the bench still runs PoCL without it

        for name in ("SourceModule", "cudaMalloc", "cudaMemcpy", "cudaDeviceSynchronize", "dim3"):
            if not hasattr(cuda, name):
                raise ImportError(f"pyemu.cuda has no {name}")
        self.cuda = cuda

    def compile(self, case: str, options: Sequence[str] = ()) -> Any:
        """Build ``bench_kernels/<case>.cu`` into a SourceModule."""
        source = (KERNEL_DIR / f"{case}.cu").read_text()
        return self.cuda.SourceModule(source, options=list(options))

    def kernel(self, module: Any, name: str) -> Any:
        """The kernel ``name`` of a compiled module."""
        return module.get_function(name)

    def to_device(self, host: np.ndarray) -> _Buffer:
        """Allocate device memory and copy ``host`` into it."""
        buf = self.empty(host.nbytes)
        self.upload(buf, host)
        return buf

    def empty(self, nbytes: int) -> _Buffer:
        """Allocate ``nbytes`` of device memory."""
        ret = self.cuda.cudaMalloc(nbytes)
        handle = ret[1] if isinstance(ret, tuple) else ret
        return _Buffer(handle, nbytes)

    def upload(self, buf: _Buffer, host: np.ndarray) -> None:
        """Copy ``host`` to the device buffer (blocking)."""
        host = np.ascontiguousarray(host)
        _check_cuda(self.cuda.cudaMemcpy(buf.handle, host, host.nbytes,
                                         self.cuda.cudaMemcpyHostToDevice), "cudaMemcpy")

    def download(self, buf: _Buffer, out: np.ndarray) -> np.ndarray:
        """Copy the device buffer into ``out`` and return it (blocking)."""
        _check_cuda(self.cuda.cudaMemcpy(out, buf.handle, out.nbytes,
                                         self.cuda.cudaMemcpyDeviceToHost), "cudaMemcpy")
        return out

    def launch(self, kernel: Any, grid: tuple, block: tuple, args: Sequence[Any]) -> None:
        """``kernel[grid, block](*args)``; asynchronous."""
        kernel[self.cuda.dim3(*grid), self.cuda.dim3(*block)](*[_host_scalar(a) for a in args])

    def launcher(self, kernel: Any, grid: tuple, block: tuple, args: Sequence[Any]) -> Callable[[], None]:
        """A no-argument function that launches ``kernel`` as :meth:`launch` does."""
        g, b = self.cuda.dim3(*grid), self.cuda.dim3(*block)
        args = [a.handle if isinstance(a, _Buffer) else _host_scalar(a) for a in args]

        def go() -> None:
            kernel[g, b](*args)

        return go

    def sync(self) -> None:
        """``cudaDeviceSynchronize()``, raising on a reported error."""
        _check_cuda(self.cuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize")

    def free(self, buf: _Buffer) -> None:
        """Release a device buffer."""
        self.cuda.cudaFree(buf.handle)

    def close(self) -> None:
        """Nothing to release: the runtime lives as long as the process."""


def _find_pocl_device() -> tuple[Any, str]:
    """PoCL's CPU device, or None and a one-line reason why there is none."""
    try:
        import pyopencl as cl
    except ImportError:
        return None, "PyOpenCL is not installed (pip install pyopencl)"
    try:
        platforms = cl.get_platforms()
    except Exception as exc:  # no ICD loader / no platform at all
        return None, (f"no OpenCL platform ({_one_line(exc)}); "
                      "install PoCL: apt-get install pocl-opencl-icd ocl-icd-libopencl1")
    for plat in platforms:
        if "portable computing language" not in plat.name.lower() and "pocl" not in plat.vendor.lower():
            continue
        try:
            devices = plat.get_devices(device_type=cl.device_type.CPU)
        except Exception:
            devices = []
        if devices:
            return devices[0], ""
    names = ", ".join(p.name for p in platforms) or "none"
    return None, (f"no PoCL CPU device among OpenCL platforms ({names}); "
                  "install PoCL: apt-get install pocl-opencl-icd ocl-icd-libopencl1")


class PoclBackend:
    """Runs the ``.cl`` kernels on PoCL's CPU device through PyOpenCL."""

    name = "PoCL"
    ext = ".cl"

    def __init__(self, device: Any = None) -> None:
        import pyopencl as cl

        if device is None:
            device, why = _find_pocl_device()
            if device is None:
                raise RuntimeError(why)
        self.cl = cl
        self.device = device
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)

    def describe(self) -> str:
        """Platform version and device name, for the table's header."""
        return f"{self.device.platform.version.split(' Linux')[0]} on {self.device.name}"

    def compile(self, case: str, options: Sequence[str] = ()) -> Any:
        """Build ``bench_kernels/<case>.cl`` for the PoCL device."""
        source = (KERNEL_DIR / f"{case}.cl").read_text()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.cl.Program(self.ctx, source).build(options=list(options))

    def kernel(self, module: Any, name: str) -> Any:
        """The kernel ``name`` of a built program."""
        return self.cl.Kernel(module, name)

    def to_device(self, host: np.ndarray) -> _Buffer:
        """A device buffer holding a copy of ``host``."""
        host = np.ascontiguousarray(host)
        mf = self.cl.mem_flags
        return _Buffer(self.cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host),
                       host.nbytes)

    def empty(self, nbytes: int) -> _Buffer:
        """An uninitialised device buffer of ``nbytes``."""
        return _Buffer(self.cl.Buffer(self.ctx, self.cl.mem_flags.READ_WRITE, nbytes), nbytes)

    def upload(self, buf: _Buffer, host: np.ndarray) -> None:
        """Copy ``host`` to the device buffer (blocking)."""
        self.cl.enqueue_copy(self.queue, buf.handle, np.ascontiguousarray(host), is_blocking=True)

    def download(self, buf: _Buffer, out: np.ndarray) -> np.ndarray:
        """Copy the device buffer into ``out`` and return it (blocking)."""
        self.cl.enqueue_copy(self.queue, out, buf.handle, is_blocking=True)
        return out

    def launcher(self, kernel: Any, grid: tuple, block: tuple, args: Sequence[Any]) -> Callable[[], None]:
        """A no-argument function that enqueues ``kernel`` over grid x block."""
        gsize = tuple(g * b for g, b in zip(grid, block))
        lsize = tuple(block)
        kernel.set_args(*[a.handle if isinstance(a, _Buffer) else a for a in args])
        cl, queue = self.cl, self.queue

        def go() -> None:
            cl.enqueue_nd_range_kernel(queue, kernel, gsize, lsize)

        return go

    def sync(self) -> None:
        """``queue.finish()``."""
        self.queue.finish()

    def free(self, buf: _Buffer) -> None:
        """Release a device buffer."""
        buf.handle.release()

    def close(self) -> None:
        """Wait for the queue; PyOpenCL frees the rest."""
        self.queue.finish()


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _time_runs(be: Any, run: Callable[[], None], repeat: int,
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
class _Prepared:
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

    def prepare(self, size: int) -> _Prepared:
        """Make the inputs (seeded) and the NumPy reference."""
        raise NotImplementedError

    def run(self, be: Any, prep: _Prepared, repeat: int) -> tuple[list[float], Any]:
        """Run on backend ``be``; return the timed samples and the output."""
        raise NotImplementedError

    def check(self, out: Any, prep: _Prepared) -> tuple[bool, str]:
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

    def prepare(self, size: int) -> _Prepared:
        rng = np.random.default_rng(1)
        a = rng.random(size, dtype=np.float32)
        b = rng.random(size, dtype=np.float32)
        return _Prepared({"a": a, "b": b}, a + b, {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name), "add")
        da, db = be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"])
        dc = be.empty(4 * n)
        try:
            go = be.launcher(k, (_cdiv(n, self.block),), (self.block,), (da, db, dc, np.int32(n)))
            samples = _time_runs(be, go, repeat)
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

    def prepare(self, size: int) -> _Prepared:
        rng = np.random.default_rng(2)
        a = rng.random((size, size), dtype=np.float32)
        b = rng.random((size, size), dtype=np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        return _Prepared({"a": a, "b": b}, ref, {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name, self.options), self.kernel_name)
        da, db = be.to_device(prep.inputs["a"]), be.to_device(prep.inputs["b"])
        dc = be.empty(4 * n * n)
        try:
            grid = (_cdiv(n, self.tile), _cdiv(n, self.tile))
            go = be.launcher(k, grid, (self.tile, self.tile), (da, db, dc, np.int32(n)))
            samples = _time_runs(be, go, repeat)
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

    def prepare(self, size: int) -> _Prepared:
        rng = np.random.default_rng(3)
        x = rng.integers(0, 100, size, dtype=np.int32)
        return _Prepared({"x": x}, np.array([x.sum(dtype=np.int64)], dtype=np.int64), {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        k = be.kernel(be.compile(self.name, (f"-Dblocksize={self.block}",)), "plus_reduce")
        dx = be.to_device(prep.inputs["x"])
        zero = np.zeros(1, np.int32)
        dt = be.to_device(zero)
        try:
            go = be.launcher(k, (_cdiv(n, self.block),), (self.block,), (dx, np.uint32(n), dt))
            samples = _time_runs(be, go, repeat, reset=lambda: be.upload(dt, zero))
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

    def prepare(self, size: int) -> _Prepared:
        rng = np.random.default_rng(4)
        data = rng.integers(0, self.bins, size, dtype=np.uint8)
        ref = np.bincount(data, minlength=self.bins).astype(np.uint32)
        return _Prepared({"data": data}, ref, {"n": size, "blocks": 4})

    def run(self, be, prep, repeat):
        n, blocks = prep.params["n"], prep.params["blocks"]
        k = be.kernel(be.compile(self.name), "histo_kernel")
        dd = be.to_device(prep.inputs["data"])
        zero = np.zeros(self.bins, np.uint32)
        dbins = be.to_device(zero)
        try:
            go = be.launcher(k, (blocks,), (self.block,), (dd, np.int64(n), dbins))
            samples = _time_runs(be, go, repeat, reset=lambda: be.upload(dbins, zero))
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

    def prepare(self, size: int) -> _Prepared:
        rng = np.random.default_rng(5)
        a = rng.random((size, size), dtype=np.float32)
        return _Prepared({"a": a}, np.ascontiguousarray(a.T), {"n": size})

    def run(self, be, prep, repeat):
        n = prep.params["n"]
        opts = (f"-DTILE_DIM={self.tile_dim}", f"-DBLOCK_ROWS={self.block_rows}")
        k = be.kernel(be.compile(self.name, opts), "transposeNoBankConflicts")
        di = be.to_device(prep.inputs["a"])
        do = be.empty(4 * n * n)
        try:
            grid = (_cdiv(n, self.tile_dim), _cdiv(n, self.tile_dim))
            go = be.launcher(k, grid, (self.tile_dim, self.block_rows),
                             (do, di, np.int32(n), np.int32(n), np.int32(1)))
            samples = _time_runs(be, go, repeat)
            return samples, be.download(do, np.empty((n, n), np.float32))
        finally:
            be.free(di)
            be.free(do)


COMPARE_CASES: tuple[Case, ...] = (VectorAdd(), MatmulNaive(), MatmulTiled(),
                                   Reduce(), Histogram(), Transpose())

LAUNCH_TARGET_S = 10e-6
MODULE_CACHE_TARGET_S = 50e-3
PYEMU_ONLY = ("launch", "module_cache")
CASE_NAMES: tuple[str, ...] = tuple(c.name for c in COMPARE_CASES) + PYEMU_ONLY


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _run_side(case: Case, be: Any, prep: _Prepared, repeat: int) -> Side:
    try:
        samples, out = case.run(be, prep, repeat)
    except Exception as exc:
        return Side(ERROR, None, _one_line(exc))
    ok, why = case.check(out, prep)
    return Side(OK if ok else FAIL, statistics.median(samples), why, samples)


def _launch_row(be: Any, quick: bool, repeat: int) -> Result:
    """1000 (quick: 200) empty launches, then one synchronise; time per launch."""
    count = 200 if quick else 1000
    side = Side()
    try:
        k = be.kernel(be.compile("empty"), "emptyKernel")
        go = be.launcher(k, (1,), (1,), ())

        def burst() -> None:
            for _ in range(count):
                go()

        samples = [s / count for s in _time_runs(be, burst, repeat)]
        get_last = getattr(be.cuda, "cudaGetLastError", None)
        if get_last is not None:
            _check_cuda(get_last(), "cudaGetLastError")
        side = Side(OK, statistics.median(samples), "", samples)
    except Exception as exc:
        side = Side(ERROR, None, _one_line(exc))
    return Result("launch", f"{count} launches", side, Side(NA),
                  target_seconds=LAUNCH_TARGET_S, target_text="< 10 us/launch", quick=quick)


def _module_cache_row(be: Any, quick: bool, repeat: int) -> Result:
    """Construct the same SourceModule again and again; time the cached ones.

    The first construction may compile; the timed ones must come from the
    cache.  The last module's add is then run and checked, so a cache that
    hands back a broken module fails the row.
    """
    side = Side()
    try:
        source = (KERNEL_DIR / "vector_add.cu").read_text()
        be.cuda.SourceModule(source)
        samples = []
        mod = None
        for _ in range(max(repeat, 1)):
            t0 = time.perf_counter()
            mod = be.cuda.SourceModule(source)
            samples.append(time.perf_counter() - t0)
        n = 1000
        a = np.arange(n, dtype=np.float32)
        b = np.full(n, 0.5, np.float32)
        da, db, dc = be.to_device(a), be.to_device(b), be.empty(4 * n)
        try:
            be.launcher(be.kernel(mod, "add"), (_cdiv(n, 256),), (256,),
                        (da, db, dc, np.int32(n)))()
            be.sync()
            out = be.download(dc, np.empty(n, np.float32))
        finally:
            for buf in (da, db, dc):
                be.free(buf)
        ok = np.array_equal(out, a + b)
        side = Side(OK if ok else FAIL, statistics.median(samples),
                    "" if ok else "the cached module's add gave a wrong result", samples)
    except Exception as exc:
        side = Side(ERROR, None, _one_line(exc))
    return Result("module_cache", "vector_add.cu", side, Side(NA),
                  target_seconds=MODULE_CACHE_TARGET_S, target_text="< 50 ms", quick=quick)


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


@dataclass
class Environment:
    """What the run had: the backends, and why one is missing."""

    pyemu: Any = None
    pyemu_why: str = ""
    pocl: Any = None
    pocl_why: str = ""

    def multiprocessors(self) -> int:
        """pyemu's multiprocessor count (worker threads), else PoCL's compute
        units, else the CPU count: grids that depend on it use the same
        number on both sides."""
        if self.pyemu is not None:
            try:
                return int(self.pyemu.cuda.cudaGetDeviceProperties(0).multiProcessorCount)
            except Exception:
                pass
        if self.pocl is not None:
            return int(self.pocl.device.max_compute_units)
        return os.cpu_count() or 1

    def close(self) -> None:
        """Release both backends."""
        for be in (self.pyemu, self.pocl):
            if be is not None:
                be.close()


def open_backends(pocl: bool = True) -> Environment:
    """Start pyemu's runtime and (unless ``pocl`` is False) PoCL.

    Never raises: a backend that cannot start is None, with a one-line reason.
    """
    env = Environment()
    try:
        env.pyemu = PyemuBackend()
    except Exception as exc:
        env.pyemu_why = f"pyemu's CUDA runtime is not available ({_one_line(exc)})"
    if not pocl:
        env.pocl_why = "PoCL not run (--no-pocl)"
        return env
    device, why = _find_pocl_device()
    if device is None:
        env.pocl_why = why
        return env
    try:
        env.pocl = PoclBackend(device)
    except Exception as exc:
        env.pocl_why = f"PoCL could not start ({_one_line(exc)})"
    return env


def _select(names: Sequence[str] | None) -> list[str]:
    if not names:
        return list(CASE_NAMES)
    wanted = []
    for item in names:
        for name in item.split(","):
            name = name.strip().replace("-", "_")
            if not name:
                continue
            if name not in CASE_NAMES:
                raise ValueError(f"unknown case {name!r}; cases: {', '.join(CASE_NAMES)}")
            if name not in wanted:
                wanted.append(name)
    return [n for n in CASE_NAMES if n in wanted]


def run_case(name: str, env: Environment, quick: bool = False, repeat: int | None = None) -> Result:
    """Run one case on the backends of ``env`` and return its row."""
    if repeat is None:
        repeat = 3 if quick else 5
    if name in PYEMU_ONLY:
        if env.pyemu is None:
            side = Side(ERROR, None, env.pyemu_why)
            target = LAUNCH_TARGET_S if name == "launch" else MODULE_CACHE_TARGET_S
            text = "< 10 us/launch" if name == "launch" else "< 50 ms"
            return Result(name, "-", side, Side(NA), target_seconds=target,
                          target_text=text, quick=quick)
        row = _launch_row if name == "launch" else _module_cache_row
        return row(env.pyemu, quick, repeat)
    case = next(c for c in COMPARE_CASES if c.name == name)
    size = case.quick_size if quick else case.full_size
    prep = case.prepare(size)
    if "blocks" in prep.params:
        prep.params["blocks"] = 2 * env.multiprocessors()
    if env.pyemu is not None:
        pyemu_side = _run_side(case, env.pyemu, prep, repeat)
    else:
        pyemu_side = Side(ERROR, None, env.pyemu_why)
    if env.pocl is not None:
        pocl_side = _run_side(case, env.pocl, prep, repeat)
    else:
        pocl_side = Side(NA, None, env.pocl_why)
    return Result(case.name, case.size_text(size), pyemu_side, pocl_side,
                  target_ratio=case.target_ratio, target_text=f"<= {case.target_ratio:.1f}x",
                  reference_pocl_seconds=case.reference_pocl_seconds, quick=quick)


def run_cases(names: Sequence[str] | None = None, quick: bool = False,
              repeat: int | None = None, pocl: bool = True,
              env: Environment | None = None,
              progress: Callable[[Result], None] | None = None) -> list[Result]:
    """Run the named cases (default: all) and return their rows in table order.

    ``quick`` uses small sizes; ``repeat`` is the number of timed runs after
    the warm-up (default 5, or 3 when quick); ``pocl=False`` skips PoCL.
    ``progress`` is called with each row as it finishes.
    """
    selected = _select(names)
    own = env is None
    if env is None:
        env = open_backends(pocl=pocl)
    try:
        rows = []
        for name in selected:
            row = run_case(name, env, quick=quick, repeat=repeat)
            rows.append(row)
            if progress is not None:
                progress(row)
        return rows
    finally:
        if own:
            env.close()


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def format_seconds(seconds: float | None) -> str:
    """A duration in the unit that reads best: ``7.12 ms``, ``2.01 s``."""
    if seconds is None:
        return "-"
    if seconds >= 1.0:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.{1 if seconds >= 0.1 else 2}f} ms"
    return f"{seconds * 1e6:.{1 if seconds >= 1e-4 else 2}f} us"


def _side_cell(side: Side) -> str:
    if side.status == OK:
        return format_seconds(side.seconds)
    return side.status


def _cells(row: Result) -> list[str]:
    if row.pyemu_only:
        pocl, ratio = "-", "-"
    else:
        pocl = _side_cell(row.pocl)
        r = row.ratio
        ratio = "-" if r is None else f"{r:.2f}x" + ("*" if row.ratio_is_reference else "")
    met = row.met
    if not row.verified:
        met_text = FAIL
    elif met is None:
        met_text = NA
    else:
        met_text = "yes" if met else "no"
    pyemu = _side_cell(row.pyemu)
    if row.name == "launch" and row.pyemu.ok:
        pyemu += "/launch"
    return [row.name, row.size, pyemu, pocl, ratio, row.target_text, met_text]


HEADERS = ["case", "size", "pyemu", "PoCL", "pyemu/PoCL", "target", "met"]


def machine_line(env: Environment | None = None) -> str:
    """Date, CPU model (from /proc/cpuinfo) and core count, on one line."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    line = (f"{datetime.date.today().isoformat()}, {model}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, NumPy {np.__version__}")
    if env is not None and env.pocl is not None:
        line += f", {env.pocl.describe()}"
    return line


def notes(rows: Sequence[Result], env: Environment | None = None) -> list[str]:
    """The lines under the table: why PoCL is n/a, errors, wrong results."""
    out = []
    seen = set()
    if env is not None and env.pyemu is None and env.pyemu_why:
        out.append(f"pyemu: {env.pyemu_why}")
        seen.add(("pyemu", env.pyemu_why))
    if env is not None and env.pocl is None and env.pocl_why:
        out.append(f"PoCL: n/a: {env.pocl_why}")
    if any(r.ratio_is_reference and r.ratio is not None for r in rows):
        out.append("*: ratio against the PoCL reference time the target was set with")
    for r in rows:
        for label, side in (("pyemu", r.pyemu), ("PoCL", r.pocl)):
            if side.status in (ERROR, FAIL) and side.detail:
                key = (label, side.detail)
                if key in seen:
                    continue
                seen.add(key)
                out.append(f"{r.name}: {label} {side.status}: {side.detail}")
    return out


def format_table(rows: Sequence[Result], markdown: bool = False,
                 env: Environment | None = None) -> str:
    """The result table as plain text, or as Markdown with a date/machine line."""
    body = [_cells(r) for r in rows]
    extra = notes(rows, env)
    if markdown:
        lines = [f"pyemu bench, {machine_line(env)}", ""]
        lines.append("| " + " | ".join(HEADERS) + " |")
        lines.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(HEADERS))) + "|")
        for cells in body:
            lines.append("| " + " | ".join(cells) + " |")
        if extra:
            lines.append("")
            lines.extend(f"- {n}" for n in extra)
        return "\n".join(lines)
    widths = [max(len(h), *(len(c[i]) for c in body)) if body else len(h)
              for i, h in enumerate(HEADERS)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines = [fmt(HEADERS), fmt(["-" * w for w in widths])]
    lines.extend(fmt(c) for c in body)
    lines.extend(extra)
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pyemu bench",
        description="Time pyemu against PoCL (through PyOpenCL) on the same kernels.")
    p.add_argument("--quick", action="store_true",
                   help="small sizes: a smoke test that checks every result")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only these cases (repeatable, or comma-separated): "
                        + ", ".join(CASE_NAMES))
    p.add_argument("--repeat", type=int, metavar="N",
                   help="timed runs after the warm-up (default 5; 3 with --quick)")
    p.add_argument("--no-pocl", action="store_true", help="run pyemu only")
    p.add_argument("--markdown", action="store_true",
                   help="print a Markdown table with a date and machine line")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="abort (with a traceback) if one case runs longer than S seconds")
    return p


def main(argv: list[str]) -> int:
    """Entry point of ``python -m pyemu bench``; returns the exit status.

    0 when every row's result verified (targets missed do not fail the run:
    timings are noisy), 1 when a result was wrong or a case failed to run,
    2 on bad arguments.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.repeat is not None and args.repeat < 1:
        parser.print_usage(sys.stderr)
        print("error: --repeat must be at least 1", file=sys.stderr)
        return 2
    try:
        names = _select(args.only)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    env = open_backends(pocl=not args.no_pocl)
    if not args.markdown:
        print(f"pyemu bench ({'quick' if args.quick else 'full sizes'}): {machine_line(env)}",
              flush=True)
    rows = []
    try:
        for name in names:
            if args.timeout > 0:
                faulthandler.dump_traceback_later(args.timeout, exit=True)
            try:
                row = run_case(name, env, quick=args.quick, repeat=args.repeat)
            finally:
                if args.timeout > 0:
                    faulthandler.cancel_dump_traceback_later()
            rows.append(row)
            if not args.markdown:
                print(f"  {name}: pyemu {_side_cell(row.pyemu)}, PoCL {_side_cell(row.pocl)}",
                      file=sys.stderr, flush=True)
    finally:
        env.close()
    print(format_table(rows, markdown=args.markdown, env=env))
    return 0 if all(r.verified for r in rows) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
