"""``python -m pyemu bench``: pyemu against PoCL on the same algorithms.

Each comparison case runs one CUDA C kernel in pyemu and, in the same
process, the same kernel written as natural OpenCL C (same work-group sizes)
twice: through pyemu's OpenCL API (the ``pyemu-CL`` column) and on PoCL's CPU
device through PyOpenCL.  Each pyemu path has its own ratio to PoCL and its
own target check (the case's target holds for both).  The kernel sources
live in ``pyemu/tools/bench_kernels/`` as ``NAME.cu`` / ``NAME.cl`` pairs, so the
two can be read side by side; ``bench_kernels/cases.py`` holds the inputs,
NumPy references and targets, ``bench_kernels/backends.py`` the three
backends.

Only kernels are timed: the data is on the device before the clock starts.
Each side runs once to warm up, then ``repeat`` more times, the sides
taking turns so that a passing load on a shared machine hits all alike; a
run is timed with :func:`time.perf_counter` from the launch to the end of a
synchronise (``cudaDeviceSynchronize`` / ``clFinish`` / ``queue.finish()``),
and the row shows the median.  Every result, on every side, is checked
against NumPy: a wrong result is shown as FAIL, never as a time.

A case that has a NumPy counterpart (``vector_add``: ``np.add(a, b,
out=c)`` on the same arrays, the machine's bandwidth floor) times it in the
same turns, in the NumPy column, with pyemu's ratio to it.

Two rows time launches, side by side with PoCL's: ``launch`` an empty
kernel, ``launch_args`` the vector add with four arguments (three buffers
and n), each as 1000 launches and one synchronise, shown per launch; their
results are checked as the others' are (a counting kernel's storm, and a
vector add that adds into its output).

Three rows are pyemu's alone: the construction of a :class:`SourceModule`
whose source was already built (the kernel cache), and cudaMalloc(256) +
cudaFree per allocation with 10^4 and 10^6 allocations live (``alloc_1e4``,
``alloc_1e6``; 10^5 with ``--quick``), timed in a process of their own with
PYEMU_DEVICE_MEMORY large enough (pyemu/tools/bench_alloc.py): the larger
count's time per allocation must stay within 2x of the smaller's.

Tests use :func:`run_cases` and read the :class:`Result` rows it returns;
they should assert on ``Result.verified``, never on timings.
"""
from __future__ import annotations

import argparse
import datetime
import faulthandler
import io
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from . import bench_streams as _bs
from .bench_kernels import KERNEL_DIR
from .bench_kernels.backends import (Buffer, PoclBackend, PyemuBackend, PyemuOpenclBackend,
                                     check_cuda, find_pocl_device, one_line)
from .bench_kernels.cases import (COMPARE_CASES, HOST_NUMPY, Case, Histogram, LaunchArgs, Renamed,
                                  LaunchEmpty, MatmulNaive, MatmulTiled, Prepared, Reduce, Staged,
                                  Transpose, Transpose32, VectorAdd, cdiv, time_once)
from .bench_alloc import run_in_child as _alloc_in_child
from .progress import Progress

__all__ = [
    "main", "run_cases", "run_case", "open_backends", "format_table", "format_seconds",
    "machine_line", "notes", "Result", "Side", "Environment", "CASE_NAMES", "COMPARE_CASES",
    "PYEMU_ONLY", "OK", "FAIL", "ERROR", "NA", "KERNEL_DIR", "Buffer", "Case", "VectorAdd",
    "MatmulNaive", "MatmulTiled", "Reduce", "Histogram", "Transpose", "Transpose32", "LaunchEmpty",
    "LaunchArgs", "PyemuBackend",
    "PyemuOpenclBackend", "HEADERS",
    "PoclBackend", "find_pocl_device",
]

# ---------------------------------------------------------------------------
# Result rows
# ---------------------------------------------------------------------------

OK = "ok"          # ran, and the result matched NumPy
FAIL = "FAIL"      # ran, and the result was wrong
ERROR = "error"    # raised before a result could be checked
NA = "n/a"         # this side was not run (PoCL missing, --no-pocl, no pyemu OpenCL)


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

    ``pyemu`` is the CUDA path, ``opencl`` the same ``.cl`` source as PoCL's
    run through pyemu.opencl (n/a on pyemu-only rows).  For a comparison case
    ``target_ratio`` is the largest pyemu/PoCL time ratio that meets the
    target, on either path; for a pyemu-only case ``target_seconds`` is
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
    opencl: Side = field(default_factory=Side)
    numpy: Side = field(default_factory=Side)
    note: str = ""      # a line under the table about this row (streams_4x: its parts)

    @property
    def pyemu_only(self) -> bool:
        """True for rows that have no PoCL counterpart."""
        return self.target_ratio is None

    @property
    def verified(self) -> bool:
        """True when every side that ran produced a correct result.

        A side that was not run (``n/a``) does not spoil it, but pyemu's
        (CUDA) side must always have run.
        """
        if not self.pyemu.ok:
            return False
        return all(s.status in (OK, NA) for s in (self.pocl, self.opencl, self.numpy))

    def _ratio_of(self, side: Side) -> float | None:
        if self.pyemu_only or not side.ok or side.seconds is None:
            return None
        if self.pocl.ok and self.pocl.seconds:
            return side.seconds / self.pocl.seconds
        if self.ratio_is_reference:
            return side.seconds / self.reference_pocl_seconds
        return None

    @property
    def ratio(self) -> float | None:
        """pyemu (CUDA) time / PoCL time, or None when either is missing.

        When PoCL did not run but the case ran at its full size, the ratio
        is taken against the reference PoCL time (see ``ratio_is_reference``).
        """
        return self._ratio_of(self.pyemu)

    @property
    def opencl_ratio(self) -> float | None:
        """pyemu OpenCL time / PoCL time, as :attr:`ratio` for the OpenCL path."""
        return self._ratio_of(self.opencl)

    @property
    def numpy_ratio(self) -> float | None:
        """pyemu (CUDA) time / NumPy time on the same arrays, when the case has
        a NumPy counterpart and both ran correctly."""
        if not (self.pyemu.ok and self.numpy.ok and self.pyemu.seconds and self.numpy.seconds):
            return None
        return self.pyemu.seconds / self.numpy.seconds

    @property
    def ratio_is_reference(self) -> bool:
        """True when ``ratio`` compares with the reference PoCL time."""
        return (not self.pyemu_only and self.pocl.status == NA and not self.quick
                and self.reference_pocl_seconds is not None)

    @property
    def met(self) -> bool | None:
        """Whether the CUDA path meets the target; None when it cannot be judged."""
        if not self.pyemu.ok or self.pocl.status not in (OK, NA):
            return False
        if self.pyemu_only:
            if self.pyemu.seconds is None:
                return None
            return self.pyemu.seconds < self.target_seconds
        r = self.ratio
        return None if r is None else r <= self.target_ratio

    @property
    def opencl_met(self) -> bool | None:
        """Whether the OpenCL path meets the target; None when it did not run
        or cannot be judged."""
        if self.pyemu_only or self.opencl.status == NA:
            return None
        if not self.opencl.ok or self.pocl.status not in (OK, NA):
            return False
        r = self.opencl_ratio
        return None if r is None else r <= self.target_ratio


SLOW_RUN_S = 1.0
MODULE_CACHE_TARGET_S = 50e-3
ALLOC_TARGET_S = 20e-6          # cudaMalloc(256) + cudaFree, 10^4 live
ALLOC_GROWTH = 2.0              # 10^6 live: at most this many times 10^4's time
PYEMU_ONLY = ("module_cache", "alloc_1e4", "alloc_1e6") + _bs.NAMES
_PYEMU_ONLY_TARGETS = {"module_cache": (MODULE_CACHE_TARGET_S, "< 50 ms"),
                       "alloc_1e4": (ALLOC_TARGET_S, "< 20 us"),
                       "alloc_1e6": (None, f"<= {ALLOC_GROWTH:.0f}x 1e4's"),
                       **_bs.TARGETS}
CASE_NAMES: tuple[str, ...] = tuple(c.name for c in COMPARE_CASES) + PYEMU_ONLY

def _compare(case: Case, prep: Prepared, backends: dict[str, Any], repeat: int,
             slow_repeat: int | None = None) -> dict[str, Side]:
    """Run ``case`` on every backend, the timed runs of the sides interleaved.

    Each side is staged (kernel built, inputs on the device) and run once to
    warm up; then each repetition runs every side in turn, so a load that
    comes and goes on a shared machine falls on both sides alike.  When
    ``slow_repeat`` is given and a warm-up took over SLOW_RUN_S, only that
    many repetitions run.  The output of each side's last run is checked
    against NumPy.
    """
    sides: dict[str, Side] = {}
    staged: dict[str, Staged] = {}
    samples: dict[str, list[float]] = {}
    try:
        for label, be in backends.items():
            try:
                staged[label] = (case.stage_numpy(prep) if be is HOST_NUMPY
                                 else case.stage(be, prep))
                if time_once(staged[label]) > SLOW_RUN_S and slow_repeat is not None:
                    repeat = min(repeat, slow_repeat)
                samples[label] = []
            except Exception as exc:
                sides[label] = Side(ERROR, None, one_line(exc))
        for _ in range(repeat):
            for label in samples:
                if label in sides:
                    continue
                try:
                    samples[label].append(time_once(staged[label]))
                except Exception as exc:
                    sides[label] = Side(ERROR, None, one_line(exc))
        for label, runs in samples.items():
            if label in sides:
                continue
            try:
                ok, why = case.check(staged[label].fetch(), prep)
            except Exception as exc:
                sides[label] = Side(ERROR, None, one_line(exc))
                continue
            sides[label] = Side(OK if ok else FAIL, statistics.median(runs), why, runs)
    finally:
        for st in staged.values():
            try:
                st.release()
            except Exception:
                pass
    return sides


def _alloc_row(name: str, env: Any, quick: bool) -> Result:
    """cudaMalloc(256) + cudaFree per allocation, with 10^4 (alloc_1e4) or 10^6
    (alloc_1e6; 10^5 when quick) allocations live, from one run in a child
    process shared by both rows (env.alloc); the child checks that the
    allocations were distinct and kept what was copied into them."""
    counts = (10**4, 10**5) if quick else (10**4, 10**6)
    big = name == "alloc_1e6"
    size = f"{counts[big]:,} x 256 B"
    target, text = _PYEMU_ONLY_TARGETS[name]
    try:
        if env.alloc is None:
            env.alloc = _alloc_in_child(counts)
        rows = env.alloc
        r = rows[big]
        per = r["malloc_s"] + r["free_s"]
        if big:
            target = ALLOC_GROWTH * (rows[0]["malloc_s"] + rows[0]["free_s"])
        side = Side(OK if r["ok"] else FAIL, per, r["why"], [per])
    except Exception as exc:
        side = Side(ERROR, None, one_line(exc))
    return Result(name, size, side, Side(NA), target_seconds=target, target_text=text,
                  quick=quick)


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
            be.launcher(be.kernel(mod, "add"), (cdiv(n, 256),), (256,),
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
        side = Side(ERROR, None, one_line(exc))
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
    opencl: Any = None
    opencl_why: str = ""
    alloc: Any = None       # the allocation rows' child run, once measured

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
        """Release every backend."""
        for be in (self.pyemu, self.opencl, self.pocl):
            if be is not None:
                be.close()


def open_backends(pocl: bool = True, opencl: bool = True) -> Environment:
    """Start pyemu's CUDA runtime, pyemu's OpenCL API (unless ``opencl`` is
    False) and PoCL (unless ``pocl`` is False).

    Never raises: a backend that cannot start is None, with a one-line reason.
    """
    env = Environment()
    try:
        env.pyemu = PyemuBackend()
    except Exception as exc:
        env.pyemu_why = f"pyemu's CUDA runtime is not available ({one_line(exc)})"
    if not opencl:
        env.opencl_why = "pyemu's OpenCL path not run (--no-opencl)"
    else:
        try:
            env.opencl = PyemuOpenclBackend()
        except Exception as exc:
            env.opencl_why = f"pyemu's OpenCL API is not available ({one_line(exc)})"
    if not pocl:
        env.pocl_why = "PoCL not run (--no-pocl)"
        return env
    device, why = find_pocl_device()
    if device is None:
        env.pocl_why = why
        return env
    try:
        env.pocl = PoclBackend(device)
    except Exception as exc:
        env.pocl_why = f"PoCL could not start ({one_line(exc)})"
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
    """Run one case on the backends of ``env`` and return its row.

    ``repeat`` timed runs follow the warm-up; by default 5 (3 when ``quick``,
    and 3 for a case whose warm-up run took over a second).
    """
    slow_repeat = None
    if repeat is None:
        repeat = 3 if quick else 5
        slow_repeat = 3
    if name in _bs.NAMES:
        return _bs.row(name, env, quick, repeat)
    if name in PYEMU_ONLY:
        if name != "module_cache":
            return _alloc_row(name, env, quick)
        if env.pyemu is None:
            target, text = _PYEMU_ONLY_TARGETS[name]
            return Result(name, "-", Side(ERROR, None, env.pyemu_why), Side(NA),
                          target_seconds=target, target_text=text, quick=quick)
        return _module_cache_row(env.pyemu, quick, repeat)
    case = next(c for c in COMPARE_CASES if c.name == name)
    size = case.quick_size if quick else case.full_size
    prep = case.prepare(size)
    if "blocks" in prep.params:
        prep.params["blocks"] = 2 * env.multiprocessors()
    backends = {label: be for label, be in (("pyemu", env.pyemu), ("pyemu-CL", env.opencl),
                                            ("PoCL", env.pocl))
                if be is not None}
    if type(case).stage_numpy is not Case.stage_numpy:
        backends["NumPy"] = HOST_NUMPY
    baseline = getattr(case, "BASELINE", None)      # reduce_shfl: see _baseline_target
    if baseline and env.pyemu is not None:
        backends[baseline] = Renamed(env.pyemu, baseline)
    sides = _compare(case, prep, backends, repeat, slow_repeat)
    if case.per_call:       # a storm of `size` launches: the time of one
        for side in sides.values():
            if side.seconds is not None:
                side.seconds /= size
                side.samples = [t / size for t in side.samples]
    pyemu_side = sides.get("pyemu") or Side(ERROR, None, env.pyemu_why)
    pocl_side = sides.get("PoCL") or Side(NA, None, env.pocl_why)
    opencl_side = sides.get("pyemu-CL") or Side(NA, None, env.opencl_why)
    target_ratio, target_text = case.target_ratio, f"<= {case.target_ratio:.1f}x"
    if baseline:
        target_ratio, target_text = _baseline_target(sides, baseline)
    return Result(case.name, case.size_text(size), pyemu_side, pocl_side,
                  target_ratio=target_ratio, target_text=target_text,
                  reference_pocl_seconds=case.reference_pocl_seconds, quick=quick,
                  opencl=opencl_side, numpy=sides.get("NumPy", Side(NA)))


# ---- a target measured in the run (reduce_shfl, issue 13) ----

def _baseline_target(sides: dict[str, Side], baseline: str) -> tuple[float, str]:
    """(target ratio, text) of a case whose target is another pyemu kernel's
    time in the same run (reduce_shfl: no slower than pyemu's shared-memory
    reduction): that time over PoCL's, so that the usual pyemu/PoCL ratio
    meets it exactly when pyemu is no slower than the baseline."""
    base, pocl = sides.get(baseline), sides.get("PoCL")
    if not (base and base.ok and base.seconds):
        return 0.0, f"<= pyemu smem ({base.status if base else 'not run'})"
    text = f"<= pyemu smem {format_seconds(base.seconds)}"
    if not (pocl and pocl.ok and pocl.seconds):
        return 0.0, text + " (no PoCL time)"
    return base.seconds / pocl.seconds, text + f" ({base.seconds / pocl.seconds:.2f}x)"


def run_cases(names: Sequence[str] | None = None, quick: bool = False,
              repeat: int | None = None, pocl: bool = True,
              env: Environment | None = None, opencl: bool = True,
              progress: Callable[[Result], None] | None = None) -> list[Result]:
    """Run the named cases (default: all) and return their rows in table order.

    ``quick`` uses small sizes; ``repeat`` is the number of timed runs after
    the warm-up (default 5, or 3 when quick); ``pocl=False`` skips PoCL,
    ``opencl=False`` pyemu's OpenCL path.
    ``progress`` is called with each row as it finishes.
    """
    selected = _select(names)
    own = env is None
    if env is None:
        env = open_backends(pocl=pocl, opencl=opencl)
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


def _ratio_cell(row: Result, r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x" + ("*" if row.ratio_is_reference else "")


def _met_cell(met: bool | None, side: Side, pocl: Side) -> str:
    if not side.ok and side.status != NA or pocl.status in (ERROR, FAIL):
        return FAIL
    if met is None:
        return NA
    return "yes" if met else "no"


def _cells(row: Result) -> list[str]:
    if row.pyemu_only:
        pocl, ratio, opencl, cl_ratio, cl_met = "-", "-", "-", "-", "-"
    else:
        pocl = _side_cell(row.pocl)
        ratio = _ratio_cell(row, row.ratio)
        opencl = _side_cell(row.opencl)
        cl_ratio = _ratio_cell(row, row.opencl_ratio)
        cl_met = _met_cell(row.opencl_met, row.opencl, row.pocl)
    met_text = _met_cell(row.met, row.pyemu, row.pocl)
    pyemu = _side_cell(row.pyemu)
    if row.name.startswith("launch"):
        pyemu, pocl, opencl = (c + "/launch" if c[:1].isdigit() else c
                               for c in (pyemu, pocl, opencl))
    numpy = _side_cell(row.numpy) if row.numpy.status != NA else "-"
    nratio = "-" if row.numpy_ratio is None else f"{row.numpy_ratio:.2f}x"
    return [row.name, row.size, pyemu, pocl, ratio, row.target_text, met_text,
            opencl, cl_ratio, cl_met, numpy, nratio]


HEADERS = ["case", "size", "pyemu", "PoCL", "pyemu/PoCL", "target", "met",
           "pyemu-CL", "CL/PoCL", "CL met", "NumPy", "pyemu/NumPy"]
"""The table's columns: the CUDA path (pyemu), PoCL, the OpenCL path
(pyemu-CL), and NumPy doing the same work on the host where a case has that."""


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
    """The lines under the table: why PoCL is n/a, errors, wrong results, and
    the rows' own notes."""
    out = []
    seen = set()
    if env is not None and env.pyemu is None and env.pyemu_why:
        out.append(f"pyemu: {env.pyemu_why}")
        seen.add(("pyemu", env.pyemu_why))
    if env is not None and env.pocl is None and env.pocl_why:
        out.append(f"PoCL: n/a: {env.pocl_why}")
    if env is not None and env.opencl is None and env.opencl_why:
        out.append(f"pyemu-CL: n/a: {env.opencl_why}")
    if any(r.ratio_is_reference and r.ratio is not None for r in rows):
        out.append("*: ratio against the reference PoCL time the target was set with, not measured in this run")
    for r in rows:
        for label, side in (("pyemu", r.pyemu), ("pyemu-CL", r.opencl), ("PoCL", r.pocl),
                            ("NumPy", r.numpy)):
            if side.status in (ERROR, FAIL) and side.detail:
                key = (label, side.detail)
                if key in seen:
                    continue
                seen.add(key)
                out.append(f"{r.name}: {label} {side.status}: {side.detail}")
    out.extend(f"{r.name}: {r.note}" for r in rows if r.note)
    return out


def format_table(rows: Sequence[Result], markdown: bool = False,
                 env: Environment | None = None) -> str:
    """The result table as plain text, or as Markdown with a date/machine line."""
    body = [_cells(r) for r in rows]
    extra = notes(rows, env)
    if markdown:
        mode = " (--quick sizes)" if any(r.quick for r in rows) else ""
        lines = [f"pyemu bench{mode}, {machine_line(env)}", ""]
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
        description="Time pyemu (CUDA and OpenCL) against PoCL (through PyOpenCL) "
                    "on the same kernels.")
    p.add_argument("--quick", action="store_true",
                   help="small sizes: a smoke test that checks every result")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only these cases (repeatable, or comma-separated): "
                        + ", ".join(CASE_NAMES))
    p.add_argument("--repeat", type=int, metavar="N",
                   help="timed runs after the warm-up (default 5; 3 with --quick or "
                        "when one run takes over a second)")
    p.add_argument("--no-pocl", action="store_true", help="run pyemu only")
    p.add_argument("--no-opencl", action="store_true",
                   help="skip pyemu's OpenCL path (the pyemu-CL column)")
    p.add_argument("--markdown", action="store_true",
                   help="print a Markdown table with a date and machine line")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="abort (with a traceback) if one case runs longer than S seconds")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a target is missed (without it a missed target is "
                        "reported and the exit status stays 0)")
    p.add_argument("--compile", action="store_true",
                   help="instead of the cases: the time to build each bench kernel file "
                        "uncached and cached, beside PoCL's clBuildProgram "
                        "(pyemu/tools/bench_compile.py)")
    return p


def missed_targets(rows: Sequence[Result]) -> list[str]:
    """'case (path)' for every target a row misses, CUDA or OpenCL path."""
    missed = []
    for row in rows:
        if row.met is False:
            missed.append(f"{row.name} (pyemu)")
        if row.opencl_met is False:
            missed.append(f"{row.name} (pyemu-CL)")
    return missed


def _arm_watchdog(seconds: float, name: str) -> bool:
    """Kill the process, with every thread's traceback, if ``name`` hangs.

    A kernel that deadlocks (PoCL 3.1 can, on a divergent barrier) would
    otherwise hang the benchmark forever.  Returns False when no stream with
    a file descriptor is at hand (e.g. under pytest's capture).
    """
    for stream in (sys.stderr, sys.__stderr__):
        try:
            stream.flush()
            faulthandler.dump_traceback_later(seconds, exit=True, file=stream)
        except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
            continue
        return True
    return False


def main(argv: list[str]) -> int:
    """Entry point of ``python -m pyemu bench``; returns the exit status.

    0 when every row's result verified (a missed target is reported but does
    not fail the run: timings are noisy), 1 when a result was wrong or a case
    failed to run, or with ``--check`` when a target was missed; 2 on bad
    arguments.  Progress: one line per case as it finishes (on stderr with
    ``--markdown``), or a rewritten line on a terminal.
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
    if args.compile:
        from . import bench_compile
        return bench_compile.run(repeat=args.repeat or 3, pocl=not args.no_pocl,
                                 markdown=args.markdown)
    try:
        names = _select(args.only)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    env = open_backends(pocl=not args.no_pocl, opencl=not args.no_opencl)
    if not args.markdown:
        print(f"pyemu bench ({'quick' if args.quick else 'full sizes'}): {machine_line(env)}",
              flush=True)
    progress = Progress(len(names), lines=sys.stderr if args.markdown else None)
    rows = []
    try:
        for name in names:
            progress.start(name)
            armed = args.timeout > 0 and _arm_watchdog(args.timeout, name)
            try:
                row = run_case(name, env, quick=args.quick, repeat=args.repeat)
            finally:
                if armed:
                    faulthandler.cancel_dump_traceback_later()
            rows.append(row)
            progress.done(f"{name}: pyemu {_side_cell(row.pyemu)}, pyemu-CL "
                          f"{_side_cell(row.opencl)}, PoCL {_side_cell(row.pocl)}")
    finally:
        progress.close()
        env.close()
    return report(rows, env, markdown=args.markdown, check=args.check)


def report(rows: Sequence[Result], env: Environment | None, markdown: bool = False,
           check: bool = False) -> int:
    """Print the table and the missed targets; the exit status (see main)."""
    print(format_table(rows, markdown=markdown, env=env))
    missed = missed_targets(rows)
    if missed:
        print(f"\ntarget missed: {', '.join(missed)}"
              + ("" if check else " (exit status 0 without --check)"),
              file=sys.stderr if markdown else sys.stdout, flush=True)
    if not all(r.verified for r in rows):
        return 1
    return 1 if check and missed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
