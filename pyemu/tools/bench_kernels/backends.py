"""The three backends the benchmark runs its kernels on.

All offer the same small interface (compile, kernel, to_device, empty,
upload, download, launcher, sync, free, close), so a case is written once:
:class:`PyemuBackend` runs the ``.cu`` sources through pyemu's CUDA runtime,
:class:`PyemuOpenclBackend` the ``.cl`` sources through pyemu's OpenCL API,
and :class:`PoclBackend` the same ``.cl`` sources on PoCL's CPU device
through PyOpenCL.  A launch takes a CUDA grid and block; an OpenCL global
size is their product, its local size the block, so every side uses the
same work-groups.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import KERNEL_DIR


def one_line(exc: BaseException) -> str:
    """An exception as ``Type: first line of its message``."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


class Buffer:
    """A device allocation with its size, as both backends hand it out."""

    def __init__(self, handle: Any, nbytes: int):
        self.handle = handle
        self.nbytes = nbytes


def check_cuda(ret: Any, what: str) -> Any:
    """Raise when a CUDA runtime call reports an error code."""
    err = ret[0] if isinstance(ret, tuple) and ret else ret
    if isinstance(err, (int, np.integer)) and not isinstance(err, bool) and int(err) != 0:
        raise RuntimeError(f"{what} returned error {int(err)} ({err!r})")
    return ret


def host_scalar(value: Any) -> Any:
    """NumPy scalars to the Python numbers pyemu's launch takes."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


class PyemuBackend:
    """Runs the ``.cu`` kernels through pyemu's CUDA runtime API."""

    name = "pyemu"

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

    def to_device(self, host: np.ndarray) -> Buffer:
        """Allocate device memory and copy ``host`` into it."""
        buf = self.empty(host.nbytes)
        self.upload(buf, host)
        return buf

    def empty(self, nbytes: int) -> Buffer:
        """Allocate ``nbytes`` of device memory."""
        return Buffer(self.cuda.cudaMalloc(nbytes), nbytes)

    def upload(self, buf: Buffer, host: np.ndarray) -> None:
        """Copy ``host`` to the device buffer (blocking)."""
        host = np.ascontiguousarray(host)
        check_cuda(self.cuda.cudaMemcpy(buf.handle, host, host.nbytes,
                                         self.cuda.cudaMemcpyHostToDevice), "cudaMemcpy")

    def download(self, buf: Buffer, out: np.ndarray) -> np.ndarray:
        """Copy the device buffer into ``out`` and return it (blocking)."""
        check_cuda(self.cuda.cudaMemcpy(out, buf.handle, out.nbytes,
                                         self.cuda.cudaMemcpyDeviceToHost), "cudaMemcpy")
        return out

    def launcher(self, kernel: Any, grid: tuple, block: tuple, args: Sequence[Any]) -> Callable[[], None]:
        """A no-argument function that runs ``kernel[grid, block](*args)``.

        The launch is asynchronous, as in CUDA; grid and block are dim3s
        made once, so a timed launch costs what a user's launch costs.
        """
        g, b = self.cuda.dim3(*grid), self.cuda.dim3(*block)
        args = [a.handle if isinstance(a, Buffer) else host_scalar(a) for a in args]

        def go() -> None:
            kernel[g, b](*args)

        return go

    def storm(self, kernel: Any, grid: int, block: int, args: Sequence[Any],
              count: int) -> Callable[[], None]:
        """A function that launches ``kernel[grid, block](*args)`` ``count`` times,
        written as a program writes it (int configuration, Python arguments)."""
        args = tuple(a.handle if isinstance(a, Buffer) else host_scalar(a) for a in args)
        loop = range(count)

        def go() -> None:
            for _ in loop:
                kernel[grid, block](*args)

        return go

    def sync(self) -> None:
        """``cudaDeviceSynchronize()``, raising on a reported error."""
        check_cuda(self.cuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize")

    def free(self, buf: Buffer) -> None:
        """Release a device buffer."""
        self.cuda.cudaFree(buf.handle)

    def close(self) -> None:
        """Nothing to release: the runtime lives as long as the process."""


class PyemuOpenclBackend:
    """Runs the ``.cl`` kernels through pyemu's OpenCL API (pyemu.opencl).

    The calls are the C API's, as a host program makes them: one context and
    one in-order queue on pyemu's device, a program built from source per
    case, arguments set once with clSetKernelArg, and each timed launch one
    clEnqueueNDRangeKernel.
    """

    name = "pyemu-CL"

    def __init__(self) -> None:
        from ... import opencl as cl
        self.cl = cl
        platform = cl.clGetPlatformIDs()[0]
        self.device = cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_GPU)[0]
        self.ctx = cl.clCreateContext(None, [self.device])
        self.queue = cl.clCreateCommandQueue(self.ctx, self.device, 0)

    def compile(self, case: str, options: Sequence[str] = ()) -> Any:
        """clCreateProgramWithSource + clBuildProgram of ``bench_kernels/<case>.cl``."""
        source = (KERNEL_DIR / f"{case}.cl").read_text()
        program = self.cl.clCreateProgramWithSource(self.ctx, [source])
        self.cl.clBuildProgram(program, [self.device], " ".join(options))
        return program

    def kernel(self, module: Any, name: str) -> Any:
        """clCreateKernel(program, name)."""
        return self.cl.clCreateKernel(module, name)

    def to_device(self, host: np.ndarray) -> Buffer:
        """clCreateBuffer with CL_MEM_COPY_HOST_PTR."""
        host = np.ascontiguousarray(host)
        flags = self.cl.CL_MEM_READ_WRITE | self.cl.CL_MEM_COPY_HOST_PTR
        return Buffer(self.cl.clCreateBuffer(self.ctx, flags, max(host.nbytes, 1), host),
                      host.nbytes)

    def empty(self, nbytes: int) -> Buffer:
        """clCreateBuffer of ``nbytes`` (CL_MEM_READ_WRITE)."""
        return Buffer(self.cl.clCreateBuffer(self.ctx, self.cl.CL_MEM_READ_WRITE, nbytes), nbytes)

    def upload(self, buf: Buffer, host: np.ndarray) -> None:
        """A blocking clEnqueueWriteBuffer."""
        host = np.ascontiguousarray(host)
        self.cl.clEnqueueWriteBuffer(self.queue, buf.handle, self.cl.CL_TRUE, 0, host.nbytes, host)

    def download(self, buf: Buffer, out: np.ndarray) -> np.ndarray:
        """A blocking clEnqueueReadBuffer into ``out``."""
        self.cl.clEnqueueReadBuffer(self.queue, buf.handle, self.cl.CL_TRUE, 0, out.nbytes, out)
        return out

    def launcher(self, kernel: Any, grid: tuple, block: tuple, args: Sequence[Any]) -> Callable[[], None]:
        """Set the arguments once; the returned function enqueues the NDRange."""
        gsize = [g * b for g, b in zip(grid, block)]
        lsize = list(block)
        for i, a in enumerate(args):
            self.cl.clSetKernelArg(kernel, i, a.handle if isinstance(a, Buffer) else a)
        enqueue, queue, dims = self.cl.clEnqueueNDRangeKernel, self.queue, len(gsize)

        def go() -> None:
            enqueue(queue, kernel, dims, None, gsize, lsize)

        return go

    def storm(self, kernel: Any, grid: int, block: int, args: Sequence[Any],
              count: int) -> Callable[[], None]:
        """Set the arguments once; the function calls clEnqueueNDRangeKernel
        ``count`` times (the event each returns is dropped, as in C) with the
        same size arrays, as a C program passes them (and as the PoCL side
        passes its tuples)."""
        for i, a in enumerate(args):
            self.cl.clSetKernelArg(kernel, i, a.handle if isinstance(a, Buffer) else a)
        enqueue, queue, loop = self.cl.clEnqueueNDRangeKernel, self.queue, range(count)
        gsize, lsize = [grid * block], [block]

        def go() -> None:
            for _ in loop:
                enqueue(queue, kernel, 1, None, gsize, lsize)

        return go

    def sync(self) -> None:
        """clFinish(queue)."""
        self.cl.clFinish(self.queue)

    def free(self, buf: Buffer) -> None:
        """clReleaseMemObject."""
        self.cl.clReleaseMemObject(buf.handle)

    def close(self) -> None:
        """clFinish, then release the queue and the context."""
        self.cl.clFinish(self.queue)
        self.cl.clReleaseCommandQueue(self.queue)
        self.cl.clReleaseContext(self.ctx)


def find_pocl_device() -> tuple[Any, str]:
    """PoCL's CPU device, or None and a one-line reason why there is none."""
    try:
        import pyopencl as cl
    except ImportError:
        return None, "PyOpenCL is not installed (pip install pyopencl)"
    try:
        platforms = cl.get_platforms()
    except Exception as exc:  # no ICD loader / no platform at all
        return None, (f"no OpenCL platform ({one_line(exc)}); "
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

    def __init__(self, device: Any = None) -> None:
        import pyopencl as cl

        if device is None:
            device, why = find_pocl_device()
            if device is None:
                raise RuntimeError(why)
        self.cl = cl
        self.device = device
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)

    def describe(self) -> str:
        """Platform version and device name, for the table's header."""
        return f"{self.device.platform.version.split(' Linux')[0].strip()} on {self.device.name}"

    def compile(self, case: str, options: Sequence[str] = ()) -> Any:
        """Build ``bench_kernels/<case>.cl`` for the PoCL device."""
        source = (KERNEL_DIR / f"{case}.cl").read_text()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.cl.Program(self.ctx, source).build(options=list(options))

    def kernel(self, module: Any, name: str) -> Any:
        """The kernel ``name`` of a built program."""
        return self.cl.Kernel(module, name)

    def to_device(self, host: np.ndarray) -> Buffer:
        """A device buffer holding a copy of ``host``."""
        host = np.ascontiguousarray(host)
        mf = self.cl.mem_flags
        return Buffer(self.cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host),
                       host.nbytes)

    def empty(self, nbytes: int) -> Buffer:
        """An uninitialised device buffer of ``nbytes``."""
        return Buffer(self.cl.Buffer(self.ctx, self.cl.mem_flags.READ_WRITE, nbytes), nbytes)

    def upload(self, buf: Buffer, host: np.ndarray) -> None:
        """Copy ``host`` to the device buffer (blocking)."""
        self.cl.enqueue_copy(self.queue, buf.handle, np.ascontiguousarray(host), is_blocking=True)

    def download(self, buf: Buffer, out: np.ndarray) -> np.ndarray:
        """Copy the device buffer into ``out`` and return it (blocking)."""
        self.cl.enqueue_copy(self.queue, out, buf.handle, is_blocking=True)
        return out

    def launcher(self, kernel: Any, grid: tuple, block: tuple, args: Sequence[Any]) -> Callable[[], None]:
        """A no-argument function that enqueues ``kernel`` over grid x block."""
        gsize = tuple(g * b for g, b in zip(grid, block))
        lsize = tuple(block)
        kernel.set_args(*[a.handle if isinstance(a, Buffer) else a for a in args])
        cl, queue = self.cl, self.queue

        def go() -> None:
            cl.enqueue_nd_range_kernel(queue, kernel, gsize, lsize)

        return go

    def storm(self, kernel: Any, grid: int, block: int, args: Sequence[Any],
              count: int) -> Callable[[], None]:
        """Set the arguments once; the function calls PyOpenCL's
        ``enqueue_nd_range_kernel`` ``count`` times."""
        kernel.set_args(*[a.handle if isinstance(a, Buffer) else a for a in args])
        enqueue, queue, loop = self.cl.enqueue_nd_range_kernel, self.queue, range(count)
        gsize, lsize = (grid * block,), (block,)

        def go() -> None:
            for _ in loop:
                enqueue(queue, kernel, gsize, lsize)

        return go

    def sync(self) -> None:
        """``queue.finish()``."""
        self.queue.finish()

    def free(self, buf: Buffer) -> None:
        """Release a device buffer."""
        buf.handle.release()

    def close(self) -> None:
        """Wait for the queue; PyOpenCL frees the rest."""
        self.queue.finish()
