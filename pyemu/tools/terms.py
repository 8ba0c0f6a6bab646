"""CUDA and OpenCL side by side: the correspondence tables as data.

``python -m pyemu terms`` prints them (``--markdown`` for Markdown, a section
name or two to print only those).  Each table is a :class:`Table` of rows;
a :class:`Term` row holds the CUDA term, the OpenCL term and a one-line note;
a :class:`HostCall` row (the host API and textures tables) also names the real functions
each of pyemu's facades has for it (``pyemu.cuda`` / ``pyemu.opencl``), so a
test can check that every one exists.  Dotted names (``SourceModule.get_function``)
are attributes of a facade's name.

Names that the real API has but a pyemu facade does not have yet are listed
in :data:`NOT_IN_PYEMU_CUDA` / :data:`NOT_IN_PYEMU_OPENCL`; the printed table
marks them with ``(*)``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

__all__ = ["Term", "HostCall", "Table", "TABLES", "NOT_IN_PYEMU_CUDA", "NOT_IN_PYEMU_OPENCL",
           "table", "format_tables", "main"]


@dataclass(frozen=True)
class Term:
    """One correspondence: the CUDA term, the OpenCL term, a one-line note."""

    cuda: str
    opencl: str
    note: str


@dataclass(frozen=True)
class HostCall(Term):
    """A host-API correspondence, with the functions each facade has for it."""

    cuda_calls: tuple[str, ...] = ()
    opencl_calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """A titled table of rows; ``name`` is what ``python -m pyemu terms NAME`` takes."""

    name: str
    title: str
    rows: tuple[Term, ...]


EXECUTION = Table("execution", "Execution model", (
    Term("thread", "work-item",
         "one instance of the kernel; pyemu runs a block's threads as a loop or as fibers"),
    Term("thread block", "work-group",
         "threads that share fast memory and barriers; at most 1024 on pyemu's device, both APIs"),
    Term("grid", "NDRange",
         "all blocks of a launch; CUDA counts blocks, OpenCL counts work-items (global size)"),
    Term("warp (32 threads)", "sub-group",
         "sub-groups: cl_khr_subgroups, core in 2.1, optional in 3.0; their size is the device's"),
    Term("streaming multiprocessor (SM)", "compute unit",
         "runs whole blocks / work-groups; in pyemu one worker thread each"),
    Term("kernel", "kernel", "the function the host launches over the grid / NDRange"),
    Term("device", "device", "OpenCL adds the platform above it and the context around it"),
))

MEMORY = Table("memory", "Memory spaces", (
    Term("global (device) memory", "global memory",
         "cudaMalloc / clCreateBuffer; visible to every thread and the copy engine"),
    Term("constant memory", "constant memory",
         "read-only in kernels, 64 KiB in all: __constant__ variables / __constant pointers "
         "(8 a kernel) and program constants"),
    Term("shared memory", "local memory",
         "per block / work-group; the same word means per-thread memory in CUDA (next row)"),
    Term("local memory (per-thread spills)", "private memory",
         "a thread's own variables and arrays; registers too"),
    Term("registers", "private memory", "OpenCL does not tell registers from other private memory"),
    Term("unified memory (cudaMallocManaged)", "shared virtual memory (SVM)",
         "SVM is OpenCL 2.0 (clSVMAlloc); OpenCL 1.2 maps buffers instead (clEnqueueMapBuffer)"),
    Term("host memory", "host memory", "NumPy arrays in pyemu, on both sides"),
))

QUALIFIERS = Table("qualifiers", "Qualifiers", (
    Term("__global__", "__kernel",
         "a function the host launches; returns void in both"),
    Term("__device__ (function)", "(none)",
         "any other OpenCL C function is callable from kernels only"),
    Term("__host__", "(none)", "OpenCL host code is a separate program (here: Python)"),
    Term("__shared__", "__local",
         "kernel-scope arrays shared by the block / work-group; `local` without underscores too"),
    Term("extern __shared__ T x[] (dynamic size)", "__local T *x kernel argument",
         "size given at launch (<<<g, b, bytes>>>) / clSetKernelArg(k, i, bytes, None)"),
    Term("__constant__", "__constant",
         "CUDA: a file-scope variable set by the host; OpenCL: a program constant or a pointer arg"),
    Term("T * (global pointer parameter)", "__global T *",
         "in OpenCL the address space is part of every pointer's type"),
    Term("__restrict__", "restrict", "the pointer does not alias another"),
    Term("__launch_bounds__(N)", "__attribute__((reqd_work_group_size(X, Y, Z)))",
         "CUDA bounds the block size, OpenCL fixes the work-group size"),
))

INDEXING = Table("indexing", "Indexing (x, y, z = dimension 0, 1, 2)", (
    Term("gridDim.x", "get_num_groups(0)", "number of blocks / work-groups"),
    Term("blockDim.x", "get_local_size(0)", "threads per block / work-items per work-group"),
    Term("blockIdx.x", "get_group_id(0)", "this block's / work-group's index"),
    Term("threadIdx.x", "get_local_id(0)", "index within the block / work-group"),
    Term("blockIdx.x * blockDim.x + threadIdx.x", "get_global_id(0)",
         "computed by hand in CUDA; OpenCL adds the global offset (get_global_offset)"),
    Term("gridDim.x * blockDim.x", "get_global_size(0)",
         "the grid-stride loop's step"),
    Term("(number of dimensions of the launch)", "get_work_dim()",
         "CUDA launches are always 3D; unused dimensions are 1"),
))

SYNC = Table("sync", "Synchronisation", (
    Term("__syncthreads()", "barrier(CLK_LOCAL_MEM_FENCE)",
         "every thread of the block must reach it; work_group_barrier in OpenCL 2.0"),
    Term("__threadfence_block()", "mem_fence(CLK_LOCAL_MEM_FENCE)",
         "orders memory accesses, waits for nobody"),
    Term("__threadfence()", "mem_fence(CLK_GLOBAL_MEM_FENCE)",
         "ordering of global memory across the device"),
    Term("atomicAdd(p, v)", "atomic_add(p, v)",
         "returns the old value; float atomicAdd has no OpenCL 1.2 built-in (atomic_cmpxchg loop)"),
    Term("atomicSub / atomicExch", "atomic_sub / atomic_xchg", "returns the old value"),
    Term("atomicMin / atomicMax", "atomic_min / atomic_max", "int and unsigned int"),
    Term("atomicAnd / atomicOr / atomicXor", "atomic_and / atomic_or / atomic_xor",
         "returns the old value"),
    Term("atomicCAS(p, cmp, v)", "atomic_cmpxchg(p, cmp, v)", "same argument order"),
    Term("atomicInc(p, limit)", "atomic_inc(p)",
         "not the same: CUDA wraps to 0 past limit, OpenCL adds 1 (atom_* are the 1.0 names)"),
))

HOST_API = Table("host", "Host API", (
    HostCall("(one platform, implicit)", "platform",
             "OpenCL enumerates the installed implementations first",
             (), ("clGetPlatformIDs", "clGetPlatformInfo")),
    HostCall("cudaGetDeviceCount / cudaGetDeviceProperties", "clGetDeviceIDs / clGetDeviceInfo",
             "pyemu shows one device on both sides",
             ("cudaGetDeviceCount", "cudaSetDevice", "cudaGetDeviceProperties"),
             ("clGetDeviceIDs", "clGetDeviceInfo")),
    HostCall("(primary context, implicit)", "context",
             "OpenCL objects belong to an explicit context",
             (), ("clCreateContext", "clCreateContextFromType", "clReleaseContext")),
    HostCall("cudaMalloc", "clCreateBuffer",
             "a DevicePointer you can offset / a cl_mem you cannot (sub-buffers instead)",
             ("cudaMalloc",), ("clCreateBuffer", "clCreateSubBuffer")),
    HostCall("cudaFree", "clReleaseMemObject", "OpenCL objects are reference counted",
             ("cudaFree",), ("clReleaseMemObject",)),
    HostCall("cudaMemcpy(..., cudaMemcpyHostToDevice)", "clEnqueueWriteBuffer",
             "or CL_MEM_COPY_HOST_PTR at clCreateBuffer; OpenCL can make it non-blocking",
             ("cudaMemcpy",), ("clEnqueueWriteBuffer",)),
    HostCall("cudaMemcpy(..., cudaMemcpyDeviceToHost)", "clEnqueueReadBuffer",
             "blocking_read = CL_TRUE waits like cudaMemcpy",
             ("cudaMemcpy",), ("clEnqueueReadBuffer",)),
    HostCall("cudaMemcpy(..., cudaMemcpyDeviceToDevice)", "clEnqueueCopyBuffer",
             "asynchronous to the host in both",
             ("cudaMemcpy",), ("clEnqueueCopyBuffer",)),
    HostCall("cudaMemset", "clEnqueueFillBuffer",
             "CUDA sets bytes, OpenCL repeats a pattern of 1 to 128 bytes",
             ("cudaMemset",), ("clEnqueueFillBuffer",)),
    HostCall("nvcc / NVRTC (pyemu: SourceModule)", "clCreateProgramWithSource + clBuildProgram",
             "both compile at run time in pyemu, with g++ and a disk cache",
             ("SourceModule",), ("clCreateProgramWithSource", "clBuildProgram")),
    HostCall("module.get_function", "clCreateKernel", "a kernel handle by name",
             ("SourceModule.get_function",), ("clCreateKernel",)),
    HostCall("arguments in the launch", "clSetKernelArg",
             "OpenCL sets arguments one by one on the kernel object, before the launch",
             (), ("clSetKernelArg",)),
    HostCall("kernel<<<grid, block>>>(args) / cudaLaunchKernel", "clEnqueueNDRangeKernel",
             "CUDA gives blocks x threads, OpenCL global size = blocks x local size",
             ("cudaLaunchKernel",), ("clEnqueueNDRangeKernel",)),
    HostCall("cudaDeviceSynchronize", "clFinish",
             "CUDA waits for the device, OpenCL for one command queue",
             ("cudaDeviceSynchronize",), ("clFinish",)),
    HostCall("stream (cudaStreamCreate)", "command queue (clCreateCommandQueue)",
             "in-order by default in both; stream 0 is implicit, a queue is created",
             ("cudaStreamCreate", "cudaStreamSynchronize", "cudaStreamDestroy"),
             ("clCreateCommandQueue", "clFinish", "clReleaseCommandQueue")),
    HostCall("event (cudaEventRecord)", "event (returned by each clEnqueue*)",
             "CUDA records events into a stream, every OpenCL enqueue returns one",
             ("cudaEventCreate", "cudaEventRecord", "cudaEventSynchronize",
              "cudaEventElapsedTime"),
             ("clWaitForEvents", "clGetEventProfilingInfo", "clReleaseEvent")),
    HostCall("cudaGetLastError / cudaError_t", "CLError (the cl_int error code)",
             "pyemu raises CudaError / CLError carrying the real code",
             ("cudaGetLastError", "cudaGetErrorString", "CudaError"), ("CLError",)),
))

TEXTURES = Table("textures", "Textures, images, constant and pitched memory", (
    HostCall("texture object (cudaTextureObject_t)", "image (image2d_t ... argument)",
             "one read-only view of data with its sampling modes / a memory object; the same "
             "sampler code in pyemu",
             ("cudaCreateTextureObject", "cudaDestroyTextureObject",
              "cudaGetTextureObjectResourceDesc"),
             ("clCreateImage", "clGetImageInfo", "clReleaseMemObject")),
    HostCall("texture reference (texture<T, dim, mode> at file scope)", "(none: an image argument)",
             "removed in CUDA 12; bound to memory by the host before the launch",
             ("SourceModule.get_texref", "cudaBindTexture", "cudaBindTexture2D",
              "cudaBindTextureToArray", "cudaUnbindTexture"), ("clSetKernelArg",)),
    HostCall("cudaTextureDesc (addressMode, filterMode, normalizedCoords)",
             "sampler_t / cl_sampler",
             "CUDA puts the modes in the texture, OpenCL in a separate sampler (host object or "
             "a CLK_* constant in the kernel)",
             ("cudaTextureDesc", "cudaCreateTextureObject"),
             ("clCreateSampler", "clCreateSamplerWithProperties")),
    HostCall("tex1Dfetch / tex2D / tex3D / tex2DLayered",
             "read_imagef / read_imagei / read_imageui",
             "CUDA's element type is a template argument, OpenCL's is in the function's name; "
             "a layer is an int in CUDA, an rint()ed float coordinate in OpenCL",
             ("cudaCreateTextureObject",), ("clCreateImage",)),
    HostCall("CUDA array (cudaMallocArray, cudaMalloc3DArray)", "image (clCreateImage)",
             "opaque storage with a channel format (cudaCreateChannelDesc / cl_image_format); "
             "layered arrays are image arrays",
             ("cudaMallocArray", "cudaMalloc3DArray", "cudaFreeArray", "cudaCreateChannelDesc",
              "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray", "cudaArrayGetInfo"),
             ("clCreateImage", "clGetSupportedImageFormats", "clEnqueueWriteImage",
              "clEnqueueReadImage")),
    HostCall("surface object (surf2Dwrite / surf2Dread)", "write_image* (__write_only image)",
             "CUDA's x coordinate is in bytes, OpenCL's in elements; out of range: "
             "cudaBoundaryMode* / nothing written",
             ("cudaCreateSurfaceObject", "cudaDestroySurfaceObject"), ("clCreateImage",)),
    HostCall("__constant__ variable + cudaMemcpyToSymbol", "__constant argument or program-scope "
             "__constant variable",
             "CUDA: set by the host through the symbol; OpenCL: a buffer passed as a __constant "
             "pointer, or a constant initialised in the source",
             ("cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaGetSymbolAddress",
              "SourceModule.get_global"), ("clCreateBuffer", "clSetKernelArg")),
    HostCall("pitch (cudaMallocPitch)", "row pitch (image_row_pitch, buffer_row_pitch)",
             "bytes from one row to the next; CUDA picks it (512-byte aligned), OpenCL takes "
             "the caller's or packs the rows",
             ("cudaMallocPitch", "cudaMalloc3D"), ("clCreateImage", "clEnqueueReadBufferRect")),
    HostCall("cudaMemcpy2D / cudaMemcpy3D / cudaMemset2D", "clEnqueue{Read,Write,Copy}BufferRect / "
             "clEnqueueFillImage",
             "a box of bytes between pitched memories: widths in bytes in both, origins in "
             "cudaPos / origin arrays",
             ("cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpy3D", "cudaMemset2D", "cudaMemset3D",
              "make_cudaPitchedPtr", "make_cudaExtent", "make_cudaPos"),
             ("clEnqueueReadBufferRect", "clEnqueueWriteBufferRect", "clEnqueueCopyBufferRect",
              "clEnqueueFillImage")),
    HostCall("cudaMemcpy2DToArray / cudaMemcpy3D to an array", "clEnqueueWriteImage / "
             "clEnqueueCopyBufferToImage",
             "into a texture's storage; OpenCL's origins and regions count elements, not bytes",
             ("cudaMemcpy2DToArray", "cudaMemcpy3D"),
             ("clEnqueueWriteImage", "clEnqueueCopyBufferToImage", "clEnqueueCopyImageToBuffer",
              "clEnqueueCopyImage", "clEnqueueMapImage")),
))

TABLES: tuple[Table, ...] = (EXECUTION, MEMORY, QUALIFIERS, INDEXING, SYNC, HOST_API, TEXTURES)
"""Every table, in the order ``python -m pyemu terms`` prints them."""

NOT_IN_PYEMU_CUDA: frozenset[str] = frozenset()
"""CUDA runtime calls named in HostCall rows that pyemu.cuda does not have yet."""

NOT_IN_PYEMU_OPENCL: frozenset[str] = frozenset()
"""OpenCL calls named in HostCall rows that pyemu.opencl does not have yet."""


def table(name: str) -> Table:
    """The table called ``name`` (execution, memory, qualifiers, indexing, sync, host,
    textures)."""
    for t in TABLES:
        if t.name == name:
            return t
    raise KeyError(f"no table {name!r}; tables: {', '.join(t.name for t in TABLES)}")


def _calls(names: tuple[str, ...], missing: frozenset[str]) -> str:
    return ", ".join(n + (" (*)" if n in missing else "") for n in names) or "-"


def _cells(t: Table, calls: bool) -> tuple[list[str], list[list[str]]]:
    if calls and all(isinstance(r, HostCall) for r in t.rows):
        head = ["CUDA", "OpenCL", "pyemu.cuda", "pyemu.opencl", "note"]
        body = [[r.cuda, r.opencl, _calls(r.cuda_calls, NOT_IN_PYEMU_CUDA),
                 _calls(r.opencl_calls, NOT_IN_PYEMU_OPENCL), r.note] for r in t.rows]
    else:
        head = ["CUDA", "OpenCL", "note"]
        body = [[r.cuda, r.opencl, r.note + _missing_mark(r)] for r in t.rows]
    return head, body


def _missing_mark(row: Term) -> str:
    names = set(getattr(row, "cuda_calls", ())) | set(getattr(row, "opencl_calls", ()))
    return " (*)" if names & (NOT_IN_PYEMU_CUDA | NOT_IN_PYEMU_OPENCL) else ""


def format_tables(tables: tuple[Table, ...] = TABLES, markdown: bool = False) -> str:
    """The tables as aligned text, or as Markdown (whose host table also has a
    column per facade with the functions it has for each row)."""
    out: list[str] = []
    for t in tables:
        head, body = _cells(t, calls=markdown)
        if markdown:
            out += [f"### {t.title}", "", "| " + " | ".join(head) + " |",
                    "|" + "|".join("---" for _ in head) + "|"]
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body]
        else:
            widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(head)]
            widths[-1] = 4                       # the note is last: no padding

            def fmt(cells):
                return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

            out += [t.title, "=" * len(t.title), fmt(head), fmt(["-" * w for w in widths])]
            out += [fmt(row) for row in body]
        out.append("")
    missing = sorted(NOT_IN_PYEMU_CUDA) + sorted(NOT_IN_PYEMU_OPENCL)
    if missing and any(isinstance(r, HostCall) for t in tables for r in t.rows):
        out.append("(*) real API that pyemu's facade does not have yet: " + ", ".join(missing))
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str]) -> int:
    """Entry point of ``python -m pyemu terms [--markdown] [TABLE ...]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m pyemu terms",
                                description="CUDA and OpenCL terms side by side.")
    p.add_argument("tables", nargs="*", metavar="TABLE",
                   help="only these tables: " + ", ".join(t.name for t in TABLES))
    p.add_argument("--markdown", action="store_true", help="print Markdown tables")
    try:
        args = p.parse_args(argv)
        chosen = tuple(table(n) for n in args.tables) or TABLES
    except SystemExit as exc:
        return int(exc.code or 0)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    sys.stdout.write(format_tables(chosen, markdown=args.markdown))
    return 0
