"""`python -m pyemu conformance`: the OpenCL C corpus on pyemu and on PoCL.

Every case of the corpus (pyemu/tools/conformance/corpus/, shipped with
the package) runs the same kernel source, build options and inputs through
pyemu.opencl (clCreateProgramWithSource, clBuildProgram, clCreateKernel,
clCreateBuffer, clCreateImage, clCreateSampler, clSetKernelArg,
clEnqueueNDRangeKernel, clEnqueueReadBuffer, clEnqueueReadImage, as a C host
program would) and through PyOpenCL on PoCL (Buffer, Image, Sampler).  Outputs are compared as the
case says: integers exactly, floats within the OpenCL specification's ulp
bound for the built-in that made them (twice it, as PoCL may be off the other
way), printf output as text; where a case has a NumPy reference, both sides
must also match it.  Where an output names elements PoCL is known to get
wrong (`pocl_differs`), those are held to the reference alone, and the table's
"held to" column says how many.  One line per case: pass or fail, the largest error, and
the kernel's run time on each side (enqueue to clFinish; builds are cached
and not counted).  The exit status is 1 if any case failed.

No PyOpenCL, or no PoCL platform, is a failure of every case, not a skip.
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import fnmatch
import importlib.util
import io
import json
import os
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..progress import Progress

DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus"

# an Image's OpenCL C type -> the CL_MEM_OBJECT_* it is created as (the corpus's
# model.IMAGE_TYPES; repeated here, as the corpus may be another directory)
IMAGE_TYPES = {"image1d_t": "IMAGE1D", "image1d_buffer_t": "IMAGE1D_BUFFER",
               "image1d_array_t": "IMAGE1D_ARRAY", "image2d_t": "IMAGE2D",
               "image2d_array_t": "IMAGE2D_ARRAY", "image3d_t": "IMAGE3D"}


class CorpusError(Exception):
    """The corpus directory is missing or unreadable."""


class SideError(Exception):
    """A side could not run a case (no PoCL, build failure, CL error...)."""


# --- the corpus -----------------------------------------------------------

def find_corpus(path=None) -> Path:
    """The corpus directory: `path`, or the corpus shipped with pyemu
    (pyemu/tools/conformance/corpus/)."""
    d = Path(path) if path else DEFAULT_CORPUS
    if not (d / "cases.py").is_file() or not (d / "kernels").is_dir():
        raise CorpusError(
            f"no conformance corpus at {d} (expected cases.py and kernels/); pass --corpus "
            "DIR, or leave it out for the corpus shipped with pyemu")
    return d


def load_corpus(path=None):
    """Import the corpus package at `path`; returns its `cases` module, which
    has CASES (names in order), QUICK (a small subset) and build(name)."""
    d = find_corpus(path)
    pkg = f"_pyemu_conformance_{abs(hash(str(d.resolve())))}"
    if pkg + ".cases" in sys.modules:
        return sys.modules[pkg + ".cases"]
    init = d / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        pkg, init if init.is_file() else None, submodule_search_locations=[str(d)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[pkg] = module
    if init.is_file():
        spec.loader.exec_module(module)
    cases = importlib.import_module(pkg + ".cases")
    cases.CORPUS_DIR = d
    return cases


# --- capturing printf -------------------------------------------------------

_libc = ctypes.CDLL(None)


@contextlib.contextmanager
def capture_stdout():
    """Capture what is written to fd 1 (PoCL's printf, from C) and to
    sys.stdout (pyemu's, written at synchronising calls); yields a list that
    holds the text afterwards."""
    out = []
    sys.stdout.flush()
    _libc.fflush(None)
    saved = os.dup(1)
    old_stdout = sys.stdout
    text = io.StringIO()
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        sys.stdout = text
        try:
            yield out
        finally:
            sys.stdout = old_stdout
            _libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace") + text.getvalue())


# --- the two sides ----------------------------------------------------------

@dataclass
class SideResult:
    outputs: dict = field(default_factory=dict)     # buffer name -> array
    stdout: str = ""
    seconds: float = 0.0


class PoclSide:
    """PyOpenCL on the platform whose name contains 'Portable' (PoCL)."""

    name = "PoCL"

    def __init__(self):
        try:
            import pyopencl as cl
        except ImportError as exc:
            raise SideError(f"PyOpenCL is not installed ({exc}); pip install pyopencl") from exc
        try:
            platforms = cl.get_platforms()
        except Exception as exc:
            raise SideError(f"no OpenCL platform ({exc}); install PoCL: apt-get install "
                            "pocl-opencl-icd ocl-icd-libopencl1") from exc
        pocl = [p for p in platforms if "Portable" in p.name]
        if not pocl:
            names = ", ".join(p.name for p in platforms) or "none"
            raise SideError(f"no PoCL platform among [{names}]; install PoCL: apt-get "
                            "install pocl-opencl-icd ocl-icd-libopencl1")
        self.cl = cl
        self.device = pocl[0].get_devices()[0]
        self.context = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.context)
        self.programs = {}

    def _program(self, source, options, key):
        if key not in self.programs:
            cl = self.cl
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    self.programs[key] = cl.Program(self.context, source).build(options=options)
                except cl.RuntimeError as exc:
                    raise SideError(f"PoCL build failed: {exc}") from exc
        return self.programs[key]

    def _image(self, a):
        """A PyOpenCL image for Image `a` (a 1-D buffer image over a buffer of
        its own, returned too), CL_MEM_COPY_HOST_PTR from its data."""
        cl = self.cl
        mf = cl.mem_flags
        order, ctype = a.format
        fmt = cl.ImageFormat(getattr(cl.channel_order, order[3:]),
                             getattr(cl.channel_type, ctype[3:]))
        access = mf.WRITE_ONLY if a.is_output else mf.READ_ONLY
        if a.image_type == "image1d_buffer_t":
            buf = cl.Buffer(self.context, access | mf.COPY_HOST_PTR, hostbuf=a.data)
            return cl.create_image(self.context, access, fmt, shape=a.shape, buffer=buf), buf
        # a cl_image_desc, as clCreateImage takes it (PyOpenCL's shape= form makes a
        # 1-D array of one layer)
        desc = cl.ImageDescriptor()
        desc.image_type = getattr(cl.mem_object_type, IMAGE_TYPES[a.image_type])
        w, h, d = (tuple(a.shape) + (1, 1))[:3]
        if a.image_type == "image1d_array_t":
            desc.shape, desc.array_size = (w, 1, 1), h
        elif a.image_type == "image2d_array_t":
            desc.shape, desc.array_size = (w, h, 1), d
        else:
            desc.shape, desc.array_size = (w, h, d), 0
        desc.pitches = (0, 0)
        desc.num_mip_levels = desc.num_samples = 0
        return cl.Image(self.context, access | mf.COPY_HOST_PTR, fmt, desc=desc,
                        hostbuf=a.data), None

    def _write_input(self, a, mem):
        cl = self.cl
        if type(a).__name__ == "Buf":
            cl.enqueue_copy(self.queue, mem, a.data)
        elif type(a).__name__ == "Image" and a.is_output:
            # (a read-only image keeps its CL_MEM_COPY_HOST_PTR contents; PoCL 3.1's
            # clEnqueueWriteImage to a 1-D array corrupts its heap)
            image, buf = mem
            if buf is not None:
                cl.enqueue_copy(self.queue, buf, a.data)
            else:
                # clEnqueueWriteImage itself: enqueue_copy takes no 1-D image types
                cl._cl._enqueue_write_image(self.queue, image, (0, 0, 0),
                                            (tuple(a.shape) + (1, 1))[:3], a.data,
                                            is_blocking=True)

    def run(self, case, source) -> SideResult:
        """Build (cached), set the arguments, launch twice (warm-up, timed),
        read the outputs back."""
        cl = self.cl
        mf = cl.mem_flags
        kernel = cl.Kernel(self._program(source, case.options, (case.file, case.options)),
                           case.kernel)
        bufs = {}
        for i, a in enumerate(case.args):
            kind = type(a).__name__
            if kind == "Buf":
                flags = (mf.READ_ONLY if a.readonly else mf.READ_WRITE) | mf.COPY_HOST_PTR
                bufs[a.name] = cl.Buffer(self.context, flags, hostbuf=a.data)
                kernel.set_arg(i, bufs[a.name])
            elif kind == "Image":
                bufs[a.name] = self._image(a)
                kernel.set_arg(i, bufs[a.name][0])
            elif kind == "Sampler":
                bufs[a.name] = cl.Sampler(self.context, a.normalized,
                                          getattr(cl.addressing_mode, a.addressing),
                                          getattr(cl.filter_mode, a.filter))
                kernel.set_arg(i, bufs[a.name])
            elif kind == "Local":
                kernel.set_arg(i, cl.LocalMemory(a.nbytes))
            else:
                kernel.set_arg(i, np.asarray(a.value))
        res = SideResult()
        for _ in range(2):     # a warm-up launch, then the timed one
            for a in case.args:
                self._write_input(a, bufs.get(a.name))
            self.queue.finish()
            with capture_stdout() if case.printf else contextlib.nullcontext() as cap:
                t0 = time.perf_counter()
                cl.enqueue_nd_range_kernel(self.queue, kernel, case.global_size,
                                           case.local_size, global_work_offset=case.offset)
                self.queue.finish()
                res.seconds = time.perf_counter() - t0
            if case.printf:
                res.stdout = cap[0]
        for b in case.outputs():
            host = np.empty_like(b.data)
            if type(b).__name__ == "Image":
                image, buf = bufs[b.name]
                if buf is not None:
                    cl.enqueue_copy(self.queue, host, buf)
                else:
                    cl._cl._enqueue_read_image(self.queue, image, (0, 0, 0),
                                               (tuple(b.shape) + (1, 1))[:3], host,
                                               is_blocking=True)
            else:
                cl.enqueue_copy(self.queue, host, bufs[b.name])
            res.outputs[b.name] = host.reshape(-1)
        return res


PYEMU_CALLS = ("clGetPlatformIDs", "clGetDeviceIDs", "clCreateContext", "clCreateCommandQueue",
               "clCreateBuffer", "clCreateProgramWithSource", "clBuildProgram",
               "clGetProgramBuildInfo", "clCreateKernel", "clSetKernelArg",
               "clEnqueueNDRangeKernel", "clEnqueueReadBuffer", "clEnqueueWriteBuffer", "clFinish",
               "clWaitForEvents",
               "clReleaseMemObject", "clReleaseKernel", "clCreateImage", "clCreateSampler",
               "clEnqueueWriteImage", "clEnqueueReadImage", "clReleaseSampler")


class PyemuSide:
    """pyemu.opencl, through the OpenCL API calls a C host program makes."""

    name = "pyemu"

    def __init__(self):
        try:
            import pyemu.opencl as cl
        except Exception as exc:
            raise SideError(f"import pyemu.opencl failed: {exc}") from exc
        missing = [n for n in PYEMU_CALLS if not hasattr(cl, n)]
        if missing:
            raise SideError("pyemu.opencl has no " + ", ".join(missing))
        self.cl = cl
        platform = cl.clGetPlatformIDs()[0]
        self.device = cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_ALL)[0]
        self.context = cl.clCreateContext(None, [self.device])
        self.queue = cl.clCreateCommandQueue(self.context, self.device, 0)
        self.programs = {}

    def _program(self, source, options, key):
        cl = self.cl
        if key not in self.programs:
            program = cl.clCreateProgramWithSource(self.context, [source])
            try:
                cl.clBuildProgram(program, [self.device], options)
                self.programs[key] = program
            except cl.CLError as exc:
                try:
                    log = cl.clGetProgramBuildInfo(program, self.device, cl.CL_PROGRAM_BUILD_LOG)
                except Exception:
                    log = ""
                text = str(exc) if log.strip() in str(exc) else f"{exc}\n{log}"
                self.programs[key] = SideError(f"pyemu build failed: {text}")
        if isinstance(self.programs[key], SideError):
            raise self.programs[key]
        return self.programs[key]

    def _image(self, a):
        """clCreateImage for Image `a`: CL_MEM_COPY_HOST_PTR from its data, or
        for a 1-D buffer image, over a buffer made so (returned too)."""
        cl = self.cl
        order, ctype = a.format
        fmt = cl.cl_image_format(getattr(cl, order), getattr(cl, ctype))
        access = cl.CL_MEM_WRITE_ONLY if a.is_output else cl.CL_MEM_READ_ONLY
        w, h, d = (tuple(a.shape) + (0, 0))[:3]
        itype = getattr(cl, "CL_MEM_OBJECT_" + IMAGE_TYPES[a.image_type])
        if a.image_type == "image1d_buffer_t":
            buf = cl.clCreateBuffer(self.context, access | cl.CL_MEM_COPY_HOST_PTR,
                                    a.data.nbytes, a.data)
            desc = cl.cl_image_desc(itype, w, buffer=buf)
            return cl.clCreateImage(self.context, access, fmt, desc, None), buf
        if a.image_type == "image1d_array_t":
            desc = cl.cl_image_desc(itype, w, image_array_size=h)
        elif a.image_type == "image2d_array_t":
            desc = cl.cl_image_desc(itype, w, h, image_array_size=d)
        else:
            desc = cl.cl_image_desc(itype, w, h, d)
        return cl.clCreateImage(self.context, access | cl.CL_MEM_COPY_HOST_PTR, fmt, desc,
                                a.data), None

    @staticmethod
    def _region(a):
        return (tuple(a.shape) + (1, 1))[:3]

    def run(self, case, source) -> SideResult:
        """As a C host program: clCreateBuffer / clCreateImage
        (CL_MEM_COPY_HOST_PTR), clCreateSampler, clSetKernelArg,
        clEnqueueNDRangeKernel twice (warm-up, timed; inputs rewritten with
        clEnqueueWriteBuffer / clEnqueueWriteImage before each), clFinish,
        clEnqueueReadBuffer / clEnqueueReadImage."""
        cl = self.cl
        program = self._program(source, case.options, (case.file, case.options))
        kernel = cl.clCreateKernel(program, case.kernel)
        mems = {}
        extra = []          # 1-D buffer images' buffers, samplers
        try:
            for i, a in enumerate(case.args):
                kind = type(a).__name__
                if kind == "Buf":
                    flags = cl.CL_MEM_READ_ONLY if a.readonly else cl.CL_MEM_READ_WRITE
                    mems[a.name] = cl.clCreateBuffer(self.context, flags | cl.CL_MEM_COPY_HOST_PTR,
                                                     a.data.nbytes, a.data)
                    cl.clSetKernelArg(kernel, i, 8, mems[a.name])   # sizeof(cl_mem)
                elif kind == "Image":
                    image, buf = self._image(a)
                    mems[a.name] = image
                    if buf is not None:
                        extra.append(buf)
                        mems[a.name + "/buffer"] = buf
                    cl.clSetKernelArg(kernel, i, 8, image)          # sizeof(cl_mem)
                elif kind == "Sampler":
                    sampler = cl.clCreateSampler(self.context, cl.CL_TRUE if a.normalized
                                                 else cl.CL_FALSE,
                                                 getattr(cl, "CL_ADDRESS_" + a.addressing),
                                                 getattr(cl, "CL_FILTER_" + a.filter))
                    extra.append(sampler)
                    cl.clSetKernelArg(kernel, i, 8, sampler)        # sizeof(cl_sampler)
                elif kind == "Local":
                    cl.clSetKernelArg(kernel, i, a.nbytes, None)
                else:
                    value = np.asarray(a.value)
                    cl.clSetKernelArg(kernel, i, value.nbytes, value)
            dims = len(case.global_size)
            res = SideResult()
            for _ in range(2):     # a warm-up launch, then the timed one
                for a in case.args:
                    kind = type(a).__name__
                    if kind == "Buf" or (kind == "Image" and a.name + "/buffer" in mems):
                        mem = mems[a.name + "/buffer"] if kind == "Image" else mems[a.name]
                        cl.clEnqueueWriteBuffer(self.queue, mem, cl.CL_TRUE, 0,
                                                a.data.nbytes, a.data)
                    elif kind == "Image" and a.is_output:     # read-only ones are as made
                        cl.clEnqueueWriteImage(self.queue, mems[a.name], cl.CL_TRUE, (0, 0, 0),
                                               self._region(a), 0, 0, a.data)
                with capture_stdout() if case.printf else contextlib.nullcontext() as cap:
                    t0 = time.perf_counter()
                    event = cl.clEnqueueNDRangeKernel(self.queue, kernel, dims, case.offset,
                                                      case.global_size, case.local_size)
                    cl.clFinish(self.queue)
                    res.seconds = time.perf_counter() - t0
                cl.clWaitForEvents([event])     # raises if the kernel failed
                if case.printf:
                    res.stdout = cap[0]
            for b in case.outputs():
                host = np.empty_like(b.data)
                if type(b).__name__ == "Image":
                    if b.name + "/buffer" in mems:
                        cl.clEnqueueReadBuffer(self.queue, mems[b.name + "/buffer"], cl.CL_TRUE,
                                               0, host.nbytes, host)
                    else:
                        cl.clEnqueueReadImage(self.queue, mems[b.name], cl.CL_TRUE, (0, 0, 0),
                                              self._region(b), 0, 0, host)
                else:
                    cl.clEnqueueReadBuffer(self.queue, mems[b.name], cl.CL_TRUE, 0, host.nbytes,
                                           host)
                res.outputs[b.name] = host.reshape(-1)
            return res
        except Exception:
            # a failed command fails the commands queued after it: start afresh
            self.queue = cl.clCreateCommandQueue(self.context, self.device, 0)
            raise
        finally:
            for name, m in mems.items():
                if not name.endswith("/buffer"):
                    cl.clReleaseMemObject(m)
            for x in extra:
                (cl.clReleaseMemObject if isinstance(x, cl.cl_mem) else cl.clReleaseSampler)(x)
            cl.clReleaseKernel(kernel)


# --- comparing --------------------------------------------------------------

@dataclass
class CaseResult:
    name: str
    ok: bool
    error: str = ""             # the worst pyemu-vs-PoCL error, as the table shows it
    check: str = ""             # what that output is held to
    t_pyemu: Optional[float] = None
    t_pocl: Optional[float] = None
    problems: list = field(default_factory=list)

    def as_json(self) -> dict:
        return {"name": self.name, "ok": self.ok, "error": self.error, "check": self.check,
                "t_pyemu": self.t_pyemu, "t_pocl": self.t_pocl, "problems": self.problems}


def _show(x) -> str:
    x = np.asarray(x)
    if x.ndim:
        return "(" + ", ".join(_show(v) for v in x) + ")"
    if x.dtype.kind == "f":
        bits = x.view(np.uint32 if x.dtype.itemsize == 4 else np.uint64)
        return f"{float(x)!r} [0x{int(bits):0{x.dtype.itemsize * 2}x}]"
    return str(x.item())


def _inputs_at(case, out, index) -> str:
    """The input elements that (probably) produced out[index]."""
    parts = []
    n_out = out.data.size
    for a in case.args:
        if type(a).__name__ != "Buf" or a is out or a.is_output:
            continue
        n = a.data.size
        if n == n_out:
            parts.append(f"{a.name}={_show(a.data[index])}")
        elif n and n_out % n == 0:
            parts.append(f"{a.name}[{index // (n_out // n)}]={_show(a.data[index // (n_out // n)])}")
        elif n_out and n % n_out == 0:
            r = n // n_out
            parts.append(f"{a.name}[{index * r}:{index * r + r}]={_show(a.data[index * r:index * r + r])}")
    for a in case.args:
        if type(a).__name__ == "Scalar":
            parts.append(f"{a.name}={_show(a.value)}")
    return ", ".join(parts)


def _problem(case, out, verdict, who, got, want, want_name, sel=None) -> str:
    """The message for a failed comparison; `sel` (flat, boolean) names the
    output's elements that were compared (default: its mask, or all)."""
    what = out.cmp.describe()
    msg = (f"{case.kernel}() output '{out.name}' ({what}): {verdict.text()} "
           f"(allowed {verdict.bound:g})")
    if verdict.note:
        return msg + ": " + verdict.note
    sel = out.mask if sel is None else sel
    i = verdict.index
    if i is not None and i < got.size:
        j = int(np.flatnonzero(sel)[i]) if sel is not None else i
        msg += (f" at [{j}]: {_inputs_at(case, out, j)}; {who}={_show(got.reshape(-1)[i])}, "
                f"{want_name}={_show(want.reshape(-1)[i])}")
    return msg


def _selections(out, inputs):
    """(all, with PoCL): flat boolean selections of an output's elements: those
    compared at all (its mask), and those of them compared with PoCL (not
    where `pocl_differs` says PoCL is wrong or differs legitimately)."""
    n = out.data.size
    every = np.ones(n, bool) if out.mask is None else np.asarray(out.mask, bool).reshape(-1)
    differs = getattr(out, "pocl_differs", None)
    if differs is None:
        return every, every
    off = np.asarray(differs(inputs), bool).reshape(-1)
    if off.size != n:
        raise ValueError(f"pocl_differs of '{out.name}' has {off.size} elements, not {n}")
    if out.ref is None:
        raise ValueError(f"'{out.name}' has pocl_differs but no NumPy reference")
    return every, every & ~off


def _sub_inputs(inputs, out, sel):
    """The inputs a comparator sees for the elements `sel` of `out`: a
    tolerance computed per element (Abs with a function) is cut to them too,
    through the key '_select' the comparator applies."""
    d = dict(inputs)
    d["_select"] = sel
    return d


def compare(case, mine: Optional[SideResult], pocl: SideResult) -> CaseResult:
    """pyemu's results against PoCL's (and both against the references);
    with `mine` None, PoCL's against the references only.  Where an output's
    `pocl_differs` names elements, PoCL is left out there: pyemu is held to the
    reference alone."""
    pocl_only = mine is None
    mine = mine or pocl
    res = CaseResult(case.name, True, t_pyemu=None if pocl_only else mine.seconds,
                     t_pocl=pocl.seconds)
    worst = (-1.0, None, None)
    inputs = case.inputs()
    left_out = 0
    for out in case.outputs():
        every, with_pocl = _selections(out, inputs)
        left_out += int(every.sum() - with_pocl.sum())
        got_all = mine.outputs[out.name].reshape(-1)
        want_all = pocl.outputs[out.name].reshape(-1)
        got, want = got_all[with_pocl], want_all[with_pocl]
        v = out.cmp.pair(got, want, _sub_inputs(inputs, out, with_pocl))
        ratio = v.err / v.bound if v.bound else (0.0 if v.err == 0 else np.inf)
        if ratio > worst[0]:
            worst = (ratio, v, out)
        if not v.ok:
            res.ok = False
            res.problems.append(_problem(case, out, v, "pyemu", got, want, "PoCL", with_pocl))
        if out.ref is not None:
            with np.errstate(all="ignore"):
                expect_all = np.asarray(out.ref(inputs)).reshape(-1)
            if expect_all.size == int(every.sum()) != out.data.size:
                full = np.zeros(out.data.size, expect_all.dtype)    # a reference of the
                full[every] = expect_all                           # masked elements only
                expect_all = full
            if expect_all.size != out.data.size:
                raise ValueError(f"the reference of '{out.name}' has {expect_all.size} "
                                 f"elements, not {out.data.size}")
            checks = [("PoCL", want_all, with_pocl)]
            if not pocl_only:
                checks.insert(0, ("pyemu", got_all, every))
            for who, arr, sel in checks:
                rv = out.cmp.ref(arr[sel], expect_all[sel], _sub_inputs(inputs, out, sel))
                if not rv.ok:
                    res.ok = False
                    res.problems.append("reference: " + _problem(case, out, rv, who, arr[sel],
                                                                 expect_all[sel], "NumPy", sel))
    if case.printf is not None:
        v = case.printf.pair(mine.stdout, pocl.stdout)
        if not v.ok:
            res.ok = False
            res.problems.append(f"{case.kernel}() printf output differs: {v.note}")
        if case.printf_ref is not None:
            for who, text in ((("PoCL", pocl.stdout),) if pocl_only
                              else (("pyemu", mine.stdout), ("PoCL", pocl.stdout))):
                rv = case.printf.ref(text, case.printf_ref)
                if not rv.ok:
                    res.ok = False
                    res.problems.append(f"reference: {who} printf output: {rv.note}")
        if worst[1] is None:
            worst = (0.0, v, None)
    if worst[1] is not None:
        res.error = worst[1].text()
        res.check = worst[2].cmp.describe() if worst[2] is not None else "printf text"
    if left_out:        # elements where PoCL is known to differ: held to NumPy only
        res.check += f" (NumPy only at {left_out})"
    return res


def run_case(cases, name, sides) -> CaseResult:
    """Build and run case `name` on both sides; compare."""
    try:
        case = cases.build(name)
        source = (cases.CORPUS_DIR / "kernels" / case.file).read_text()
    except Exception as exc:
        return CaseResult(name, False, problems=[f"corpus error: {exc!r}"])
    results = {}
    problems = []
    if case.pocl_skip:
        # PoCL cannot run it: pyemu against the references alone
        missing = [o.name for o in case.outputs() if o.ref is None]
        if missing:
            return CaseResult(name, False, problems=[
                f"corpus error: {name} has pocl_skip but no NumPy reference for {missing}"])
        sides = {k: v for k, v in sides.items() if k != "PoCL"}
        if not sides:           # --pocl-only: nothing to run
            return CaseResult(name, True, check=f"not run on PoCL: {case.pocl_skip}")
    for side_name, side in sides.items():
        if isinstance(side, SideError):
            problems.append(f"{side_name}: {side}")
            continue
        try:
            results[side_name] = side.run(case, source)
        except SideError as exc:
            problems.append(f"{side_name}: {exc}")
        except Exception as exc:
            tb = traceback.format_exception_only(type(exc), exc)
            problems.append(f"{side_name}: {''.join(tb).strip()}")
    if problems:
        r = CaseResult(name, False, problems=problems)
        r.t_pyemu = getattr(results.get("pyemu"), "seconds", None)
        r.t_pocl = getattr(results.get("PoCL"), "seconds", None)
        return r
    if "pyemu" not in results:          # --pocl-only: PoCL against the references
        return compare(case, None, results["PoCL"])
    if "PoCL" not in results:           # pocl_skip: pyemu against the references
        return compare_references(case, results["pyemu"])
    return compare(case, results["pyemu"], results["PoCL"])


def compare_references(case, mine: SideResult) -> CaseResult:
    """pyemu's results of a case PoCL cannot run (`pocl_skip`) against the
    NumPy references alone."""
    res = CaseResult(case.name, True, t_pyemu=mine.seconds)
    worst = (-1.0, None, None)
    inputs = case.inputs()
    for out in case.outputs():
        every, _ = _selections(out, inputs)
        got_all = mine.outputs[out.name].reshape(-1)
        with np.errstate(all="ignore"):
            expect_all = np.asarray(out.ref(inputs)).reshape(-1)
        if expect_all.size != out.data.size:
            raise ValueError(f"the reference of '{out.name}' has {expect_all.size} "
                             f"elements, not {out.data.size}")
        v = out.cmp.ref(got_all[every], expect_all[every], _sub_inputs(inputs, out, every))
        ratio = v.err / v.bound if v.bound else (0.0 if v.err == 0 else np.inf)
        if ratio > worst[0]:
            worst = (ratio, v, out)
        if not v.ok:
            res.ok = False
            res.problems.append("reference: " + _problem(case, out, v, "pyemu", got_all[every],
                                                         expect_all[every], "NumPy", every))
    if worst[1] is not None:
        res.error = worst[1].text()
        res.check = worst[2].cmp.describe()
    res.check += f" (NumPy only: {case.pocl_skip})"
    return res


# --- the table --------------------------------------------------------------

def _ms(t) -> str:
    if t is None:
        return "-"
    return f"{t * 1e3:.3g} ms" if t >= 1e-3 else f"{t * 1e6:.3g} us"


def format_table(results, markdown=False) -> str:
    """One row per case: name, pass/FAIL, worst error, its bound, both times."""
    head = ["case", "result", "max error", "held to", "pyemu", "PoCL"]
    rows = [[r.name, "pass" if r.ok else "FAIL", r.error or "-", r.check or "-",
             _ms(r.t_pyemu), _ms(r.t_pocl)] for r in results]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|---|---|---:|---|---:|---:|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    right = {2, 4, 5}
    fmt = lambda row: "  ".join(str(x).rjust(w) if i in right else str(x).ljust(w)  # noqa: E731
                                for i, (x, w) in enumerate(zip(row, widths))).rstrip()
    return "\n".join([fmt(head), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows])


def select_cases(cases, patterns, quick):
    """The case names to run, in corpus order (patterns are globs)."""
    names = list(cases.CASES)
    if quick:
        names = [n for n in names if n in set(cases.QUICK)]
    if patterns:
        chosen = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
        unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in names)]
        if unknown:
            raise CorpusError(f"no case matches {', '.join(unknown)} (--list shows them)")
        names = chosen
    return names


def main(argv=None) -> int:
    """Run the corpus; print the table; 0 if every case passed, 1 if not,
    2 for a usage or corpus error."""
    parser = argparse.ArgumentParser(prog="python -m pyemu conformance",
                                     description="OpenCL C conformance corpus: pyemu against PoCL")
    parser.add_argument("--case", action="append", default=[], metavar="NAME",
                        help="run only this case (a glob like 'math_*' works; repeatable)")
    parser.add_argument("--quick", action="store_true", help="a small representative subset")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--corpus", metavar="DIR", help="another corpus directory")
    parser.add_argument("--jsonl", metavar="FILE", help="also write one JSON line per case")
    parser.add_argument("--pocl-only", action="store_true",
                        help="run PoCL only and check it against the NumPy references")
    args = parser.parse_args(argv)
    try:
        cases = load_corpus(args.corpus)
        names = select_cases(cases, args.case, args.quick)
    except CorpusError as exc:
        print(f"conformance: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for n in names:
            print(n)
        return 0
    sides = {}
    for cls in ((PoclSide,) if args.pocl_only else (PyemuSide, PoclSide)):
        try:
            sides[cls.name] = cls()
        except SideError as exc:
            sides[cls.name] = exc
        except Exception as exc:
            sides[cls.name] = SideError(f"{type(exc).__name__}: {exc}")
    jsonl = open(args.jsonl, "w") if args.jsonl else None
    # one line per case on a log, a rewritten line on a terminal; Markdown
    # on stdout stays clean (its progress lines go to stderr)
    progress = Progress(len(names), lines=sys.stderr if args.markdown else None)
    results = []
    try:
        for n in names:
            if jsonl:
                jsonl.write(json.dumps({"start": n}) + "\n")
                jsonl.flush()
            progress.start(n)
            r = run_case(cases, n, sides)
            results.append(r)
            progress.done(f"{n}: {'pass' if r.ok else 'FAIL'}"
                          + (f" (max error {r.error})" if r.error else ""))
            if jsonl:
                jsonl.write(json.dumps(r.as_json()) + "\n")
                jsonl.flush()
    finally:
        progress.close()
        if jsonl:
            jsonl.close()
    print(format_table(results, args.markdown))
    failed = [r for r in results if not r.ok]
    print(f"\n{len(results) - len(failed)} passed, {len(failed)} failed"
          + (" (PoCL against the NumPy references only)" if args.pocl_only else ""))
    for r in failed:
        print(f"\nFAIL {r.name}")
        for p in r.problems:
            print("  " + p.replace("\n", "\n    "))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
