"""Kernels: clCreateKernel, clCreateKernelsInProgram, clSetKernelArg, the
kernel Info calls, clRetainKernel, clReleaseKernel (their execution is
pyemu/opencl/ndrange.py).

A kernel object keeps the value of each argument as the bytes the argument
buffer gets (a scalar, vector or struct converted by its declared OpenCL
type), the cl_mem of a __global/__constant pointer, or the size of a __local
pointer.  Each clSetKernelArg also writes the argument's bytes into the
kernel's packed argument buffer (ArgState), so an enqueue hands the core the
bytes as they stand without packing anything (the core copies them: changing
an argument afterwards does not change a command already enqueued).
"""
from __future__ import annotations

import ctypes
import operator

from ..runtime.args import MEMORY, SIZE, VALUE, raw_bytes, value_bytes, vector_of
from ..runtime.core import ffi
from ..runtime.kernel import PARAM_POINTER
from ..runtime.launch import Launches, max_threads
from . import _constants as K
from ._base import CLObject, as_int, check, info, release, retain
from ._errors import (CL_INVALID_ARG_INDEX, CL_INVALID_ARG_SIZE, CL_INVALID_ARG_VALUE,
                      CL_INVALID_DEVICE, CL_INVALID_KERNEL,
                      CL_INVALID_KERNEL_ARGS, CL_INVALID_KERNEL_NAME, CL_INVALID_MEM_OBJECT,
                      CL_INVALID_SAMPLER,
                      CL_INVALID_VALUE, CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                      CL_OUT_OF_RESOURCES, fail)
from .memory import cl_mem
from .platform import MAX_CONSTANT_ARGS, MAX_CONSTANT_BUFFER_SIZE
from .program import KernelEntry, require_built, check_program

MEM_SIZE = ctypes.sizeof(ctypes.c_void_p)       # sizeof(cl_mem)
PREFERRED_MULTIPLE = 32                          # CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
_MEM, _LOCAL, _VALUE = 0, 1, 2                  # what an argument slot holds
# runtime/args.py's reasons as clSetKernelArg's codes
_ARG_CODES = {VALUE: CL_INVALID_ARG_VALUE, SIZE: CL_INVALID_ARG_SIZE, MEMORY: CL_INVALID_MEM_OBJECT}


class LocalMemory:
    """LocalMemory(size): the value of a __local pointer argument, `size` bytes of
    local memory per work-group (PyOpenCL's cl.LocalMemory).  Passing it is the
    C call clSetKernelArg(kernel, arg_index, size, NULL)."""

    __slots__ = ("size",)

    def __init__(self, size):
        try:
            self.size = operator.index(size)
        except TypeError:
            fail(CL_INVALID_ARG_SIZE, f"the size of local memory is {type(size).__name__}, "
                 "not an int", "LocalMemory")
        if self.size < 0:
            fail(CL_INVALID_ARG_SIZE, f"the size of local memory is {self.size}", "LocalMemory")

    def __repr__(self):
        return f"LocalMemory({self.size})"


# ---- what clGetKernelArgInfo answers ----

_ADDRESS = {"global": K.CL_KERNEL_ARG_ADDRESS_GLOBAL, "local": K.CL_KERNEL_ARG_ADDRESS_LOCAL,
            "constant": K.CL_KERNEL_ARG_ADDRESS_CONSTANT,
            "private": K.CL_KERNEL_ARG_ADDRESS_PRIVATE}
_ACCESS = {"none": K.CL_KERNEL_ARG_ACCESS_NONE, "read_only": K.CL_KERNEL_ARG_ACCESS_READ_ONLY,
           "write_only": K.CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
           "read_write": K.CL_KERNEL_ARG_ACCESS_READ_WRITE}
_QUALIFIER = {"const": K.CL_KERNEL_ARG_TYPE_CONST, "restrict": K.CL_KERNEL_ARG_TYPE_RESTRICT,
              "volatile": K.CL_KERNEL_ARG_TYPE_VOLATILE, "pipe": K.CL_KERNEL_ARG_TYPE_PIPE}


class ArgSpec:
    """One kernel argument: its parameter, what it is (memory object, __local
    size, value) and, for a vector, its element format and count."""

    __slots__ = ("index", "param", "info", "what", "address", "type_name", "vec")

    def __init__(self, index, param, ainfo):
        self.index, self.param, self.info = index, param, ainfo
        self.address = ainfo.get("address", "private")
        self.type_name = ainfo.get("type_name", param.type_name)
        self.vec = None
        if self.address == "local":
            self.what = _LOCAL
        elif param.kind == PARAM_POINTER:
            self.what = _MEM
        else:
            self.what = _VALUE
            self.vec = vector_of(self.type_name, param.size)

    def where(self, kernel_name) -> str:
        return f"argument {self.index} ({self.info.get('name', '?')}: {self.type_name}) of " \
               f"{kernel_name}"


def specs_of(entry: KernelEntry) -> list:
    """The ArgSpecs of a program's kernel, made once and shared by its kernel objects."""
    if entry.specs is None:
        entry.specs = [ArgSpec(i, p, a) for i, (p, a) in
                       enumerate(zip(entry.desc.params, entry.args))]
        entry.bytes_struct = entry.desc.bytes_struct()
    return entry.specs


# ---- the packed argument state of a kernel object ----

class ArgState:
    """A kernel object's arguments as the core takes them, kept up to date by
    each clSetKernelArg: `data` (the packed argument buffer), `mems` (the
    distinct memory objects the pointers name), `local_args` (offset, size
    pairs of the __local pointers, a cffi array or NULL) and `unset` (indices
    not set yet).  `launches` caches the enqueue's launch descriptions
    (pyemu/opencl/ndrange.py) by work sizes; they point at `local_args`, so
    a change of a __local size empties it."""

    __slots__ = ("buf", "data", "unset", "mem_at", "mems", "local_at", "local_args",
                 "num_local", "launches")

    def __init__(self, args_size, nargs):
        self.buf = bytearray(args_size)
        self.data = bytes(self.buf)
        self.unset = set(range(nargs))
        self.mem_at = {}             # argument index -> cl_mem
        self.mems = ()
        self.local_at = {}           # argument index -> (offset, size)
        self.local_args = ffi.NULL
        self.num_local = 0
        self.launches = Launches()

    def store(self, i, param, what, payload) -> None:
        """Argument i (its Param) is now (what, payload): update the packed state."""
        if what == _VALUE:
            raw = payload
        elif what == _MEM and payload is not None:
            raw = payload.addr.to_bytes(param.size, "little")
        else:
            raw = bytes(param.size)
        self.buf[param.offset:param.offset + param.size] = raw
        self.data = bytes(self.buf)
        self.unset.discard(i)
        if what == _MEM and payload is not None:
            self.mem_at[i] = payload
        else:
            self.mem_at.pop(i, None)
        self.mems = tuple({id(m): m for m in self.mem_at.values()}.values())
        old = self.local_at.get(i)
        new = (param.offset, payload) if what == _LOCAL else None
        if old != new:
            if new is None:
                del self.local_at[i]
            else:
                self.local_at[i] = new
            flat = [x for k in sorted(self.local_at) for x in self.local_at[k]]
            self.local_args = ffi.new("unsigned int[]", flat) if flat else ffi.NULL
            self.num_local = len(flat) // 2
            self.launches = Launches()   # their descriptions point at the old list


def _store(k, i, what, payload) -> None:
    k.args[i] = (what, payload)
    k.state.store(i, k.specs[i].param, what, payload)
    k._hot = _COLD          # the launch bound to the old arguments (ndrange.py)


_COLD = (None,)             # a kernel._hot that answers for no enqueue


# ---- kernel objects ----

class cl_kernel(CLObject):
    """A kernel of a built program, with the arguments set so far."""

    _kind = "kernel"
    _hot = _COLD            # the enqueue's bound launch (ndrange.py), until one is made

    def __init__(self, program, entry: KernelEntry):
        super().__init__()
        self.program = program
        self.context = program.context
        self.entry = entry
        self.name = entry.name
        self.specs = specs_of(entry)
        self.args = [None] * len(self.specs)     # (what, payload) of each set argument
        self.state = ArgState(entry.desc.args_size, len(self.specs))
        with CLObject._lock:
            program._refs += 1                   # a kernel holds its program
            program.live_kernels += 1

    def _destroy(self):
        p = self.program
        with CLObject._lock:
            p.live_kernels -= 1
        if p._release():
            p._destroy()
        self.args = []
        self.state = ArgState(0, 0)              # lets go of the memory objects
        self._hot = _COLD                        # and of the enqueue's kept state
        self.__dict__.pop("_fast", None)         # (ndrange.py: its last event too)

    def __del__(self):
        if getattr(self, "_refs", 0) > 0 and getattr(self, "program", None) is not None:
            self._refs = 0
            try:
                self._destroy()
            except Exception:   # at interpreter exit the modules may be gone already
                pass


def check_kernel(kernel, call) -> cl_kernel:
    """kernel, if it is a live cl_kernel; else CL_INVALID_KERNEL."""
    return check(kernel, cl_kernel, CL_INVALID_KERNEL, call)


def clCreateKernel(program, kernel_name) -> cl_kernel:
    """clCreateKernel(program, kernel_name): the __kernel function of that name."""
    call = "clCreateKernel"
    p = check_program(program, call)
    if kernel_name is None:
        fail(CL_INVALID_VALUE, "kernel_name is NULL", call)
    if isinstance(kernel_name, (bytes, bytearray)):
        kernel_name = bytes(kernel_name).decode("utf-8", "replace")
    if not isinstance(kernel_name, str):
        fail(CL_INVALID_VALUE, f"kernel_name is {type(kernel_name).__name__}, not a string", call)
    require_built(p, call)
    entry = p.kernels.get(kernel_name)
    if entry is None:
        known = ", ".join(p.kernels) or "none"
        fail(CL_INVALID_KERNEL_NAME, f"no __kernel '{kernel_name}' in the program "
             f"(kernels: {known})", call)
    return cl_kernel(p, entry)


def clCreateKernelsInProgram(program) -> list:
    """clCreateKernelsInProgram(program): a kernel object for each __kernel, in source order."""
    call = "clCreateKernelsInProgram"
    p = require_built(check_program(program, call), call)
    return [cl_kernel(p, e) for e in p.kernels.values()]


_NOT_GIVEN = object()


def _arg_index(k, arg_index, call) -> int:
    """arg_index as an index of k's arguments; else CL_INVALID_ARG_INDEX."""
    try:
        i = operator.index(arg_index)
    except TypeError:
        fail(CL_INVALID_ARG_INDEX, f"arg_index is {type(arg_index).__name__}, not an int", call)
    if not 0 <= i < len(k.specs):
        fail(CL_INVALID_ARG_INDEX, f"{k.name} has {len(k.specs)} argument(s); arg_index is {i}",
             call)
    return i


def clSetKernelArg(kernel, arg_index, arg_size_or_value=_NOT_GIVEN, arg_value=_NOT_GIVEN):
    """clSetKernelArg(kernel, arg_index, arg_value) or, as in C,
    clSetKernelArg(kernel, arg_index, arg_size, arg_value).

    arg_value is a cl_mem (or None / 0 for NULL) for a __global or __constant
    pointer; a number for a scalar (converted to the declared type: a value
    that does not fit is CL_INVALID_ARG_VALUE); a tuple, list or NumPy array of
    n values (or bytes) for a vector type; bytes, a NumPy structured scalar or
    a ctypes.Structure of the right size for a struct.  A __local pointer
    takes LocalMemory(size), or arg_size with arg_value None in the C form.
    In the C form arg_size must be the declared type's size (sizeof(cl_mem)
    for a memory object), else CL_INVALID_ARG_SIZE."""
    call = "clSetKernelArg"
    k = check_kernel(kernel, call)
    if arg_size_or_value is _NOT_GIVEN:
        fail(CL_INVALID_VALUE, "clSetKernelArg takes (kernel, arg_index, arg_value) or "
             "(kernel, arg_index, arg_size, arg_value)", call)
    if arg_value is _NOT_GIVEN:
        size, value = None, arg_size_or_value
        if isinstance(value, LocalMemory):
            size, value = value.size, None
    else:
        size, value = arg_size_or_value, arg_value
        if isinstance(value, LocalMemory):
            fail(CL_INVALID_ARG_VALUE, "LocalMemory goes without arg_size: "
                 "clSetKernelArg(kernel, arg_index, LocalMemory(n))", call)
        size = as_int(size, call, "arg_size", CL_INVALID_ARG_SIZE)
    i = _arg_index(k, arg_index, call)
    spec = k.specs[i]

    def bad(reason, msg):
        fail(_ARG_CODES.get(reason, reason), f"{spec.where(k.name)} {msg}", call)

    if spec.what == _LOCAL:
        if isinstance(value, cl_mem):
            bad(CL_INVALID_ARG_VALUE, "is a __local pointer; a memory object cannot be one")
        if value is not None:
            bad(CL_INVALID_ARG_VALUE, "is a __local pointer: pass LocalMemory(bytes), or "
                "arg_size with arg_value None")
        if size is None or size <= 0:
            bad(CL_INVALID_ARG_SIZE, "is a __local pointer and needs a size > 0 "
                "(LocalMemory(bytes))")
        if size > 0xFFFFFFFF:
            bad(CL_INVALID_ARG_SIZE, f"asks for {size} bytes of local memory")
        _store(k, i, _LOCAL, size)
    elif spec.what == _MEM:
        if size is not None and size != MEM_SIZE:
            bad(CL_INVALID_ARG_SIZE, f"is a memory object: arg_size must be sizeof(cl_mem) = "
                f"{MEM_SIZE}, not {size}")
        if value is None or (type(value) is int and value == 0):
            _store(k, i, _MEM, None)
            return 0
        if not isinstance(value, cl_mem):
            hint = " (host memory: create a buffer with clCreateBuffer)" \
                if raw_bytes(value) is not None else ""
            bad(CL_INVALID_MEM_OBJECT, f"is a pointer; got {type(value).__name__}{hint}")
        if not value._alive:
            bad(CL_INVALID_MEM_OBJECT, "is a pointer; the memory object was released")
        if value.context is not k.context:
            bad(CL_INVALID_MEM_OBJECT, "is a pointer; the memory object is of another context")
        _store(k, i, _MEM, value)
    else:
        if spec.type_name == "sampler_t":
            # a sampler_t takes its cl_sampler: arg_size is sizeof(cl_sampler), and
            # anything but a valid sampler object is CL_INVALID_SAMPLER (clSetKernelArg)
            if size is not None and size != MEM_SIZE:
                bad(CL_INVALID_ARG_SIZE, f"is a sampler: arg_size must be sizeof(cl_sampler) = "
                    f"{MEM_SIZE}, not {size}")
            if not hasattr(value, "pyemu_kernel_arg"):
                got = "NULL" if value is None else type(value).__name__
                bad(CL_INVALID_SAMPLER, f"is a sampler_t; got {got}, not a cl_sampler "
                    "(clCreateSampler)")
        elif size is not None and size != spec.param.size:
            bad(CL_INVALID_ARG_SIZE, f"is {spec.param.size} bytes; arg_size is {size}")
        if hasattr(value, "pyemu_kernel_arg"):     # a cl_sampler: its sampler_t bits (sampler.py)
            if spec.type_name != "sampler_t":
                bad(VALUE, f"is a value of type {spec.type_name}; a cl_sampler goes to a "
                    "sampler_t argument only")
            value = value.pyemu_kernel_arg()
        if isinstance(value, (cl_mem, LocalMemory)) or value is None:
            what = "a memory object" if isinstance(value, cl_mem) else \
                "NULL" if value is None else "LocalMemory"
            bad(VALUE, f"is a value, not a pointer; got {what}")
        if isinstance(value, CLObject):
            bad(VALUE, f"is a value; got a {type(value).__name__}")
        _store(k, i, _VALUE, value_bytes(spec.param, spec.vec, value, bad))
    return 0


def _local_bytes(k) -> int:
    return k.entry.desc.static_smem + sum(a[1] for a in k.args if a is not None and a[0] == _LOCAL)


def clGetKernelInfo(kernel, param_name):
    """clGetKernelInfo(kernel, param_name): the name, argument count, reference count,
    context, program, or the attributes as written (reqd_work_group_size(...))."""
    call = "clGetKernelInfo"
    k = check_kernel(kernel, call)
    return info({
        K.CL_KERNEL_FUNCTION_NAME: lambda: k.name,
        K.CL_KERNEL_NUM_ARGS: lambda: len(k.specs),
        K.CL_KERNEL_REFERENCE_COUNT: lambda: k._refs,
        K.CL_KERNEL_CONTEXT: lambda: k.context,
        K.CL_KERNEL_PROGRAM: lambda: k.program,
        K.CL_KERNEL_ATTRIBUTES: lambda: k.entry.attributes,
    }, param_name, call, "cl_kernel_info")


def work_group_size(k) -> int:
    """CL_KERNEL_WORK_GROUP_SIZE: the device's limit (and __launch_bounds__ if any)."""
    return max_threads(k.entry.desc)


def _global_work_size(call):
    fail(CL_INVALID_VALUE, "CL_KERNEL_GLOBAL_WORK_SIZE is for custom devices and built-in "
         "kernels only", call)


def clGetKernelWorkGroupInfo(kernel, device, param_name):
    """clGetKernelWorkGroupInfo(kernel, device, param_name).  CL_KERNEL_LOCAL_MEM_SIZE
    counts the kernel-scope __local variables (those of every kernel of the
    program: pyemu lays them out once per program) and the __local pointer
    arguments set so far; CL_KERNEL_PRIVATE_MEM_SIZE is 0 (not measured).
    device may be None: the program has one device."""
    call = "clGetKernelWorkGroupInfo"
    k = check_kernel(kernel, call)
    if device is not None and not any(device is d for d in k.program.devices):
        fail(CL_INVALID_DEVICE, "the device is not a device of the kernel's program", call)
    return info({
        K.CL_KERNEL_WORK_GROUP_SIZE: lambda: work_group_size(k),
        K.CL_KERNEL_COMPILE_WORK_GROUP_SIZE: lambda: list(k.entry.reqd),
        K.CL_KERNEL_LOCAL_MEM_SIZE: lambda: _local_bytes(k),
        K.CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: lambda: PREFERRED_MULTIPLE,
        K.CL_KERNEL_PRIVATE_MEM_SIZE: lambda: 0,
        K.CL_KERNEL_GLOBAL_WORK_SIZE: lambda: _global_work_size(call),
    }, param_name, call, "cl_kernel_work_group_info")


def _type_qualifier(spec):
    q = 0
    for name in spec.info.get("type_qualifiers", ()):
        q |= _QUALIFIER.get(name, 0)
    if spec.address == "constant":
        q |= K.CL_KERNEL_ARG_TYPE_CONST
    return K.cl_kernel_arg_type_qualifier(q)


def clGetKernelArgInfo(kernel, arg_index, param_name):
    """clGetKernelArgInfo(kernel, arg_index, param_name): the address and access
    qualifiers, the type name as written ("float*", "uint4"), the type
    qualifiers and the name.  As the specification says (and PoCL does), only
    for a program built with -cl-kernel-arg-info; else
    CL_KERNEL_ARG_INFO_NOT_AVAILABLE."""
    call = "clGetKernelArgInfo"
    k = check_kernel(kernel, call)
    i = _arg_index(k, arg_index, call)
    s = k.specs[i]
    table = {
        K.CL_KERNEL_ARG_ADDRESS_QUALIFIER: lambda: _ADDRESS[s.address],
        K.CL_KERNEL_ARG_ACCESS_QUALIFIER: lambda: _ACCESS.get(s.info.get("access", "none"),
                                                              K.CL_KERNEL_ARG_ACCESS_NONE),
        K.CL_KERNEL_ARG_TYPE_NAME: lambda: s.type_name,
        K.CL_KERNEL_ARG_TYPE_QUALIFIER: lambda: _type_qualifier(s),
        K.CL_KERNEL_ARG_NAME: lambda: s.info.get("name", ""),
    }
    if not k.program.arg_info:
        try:
            known = int(param_name) in table
        except (TypeError, ValueError):
            known = False
        if known:
            fail(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "build the program with "
                 "-cl-kernel-arg-info to keep argument information", call)
    return info(table, param_name, call, "cl_kernel_arg_info")


def clRetainKernel(kernel):
    """clRetainKernel: one more reference."""
    return retain(kernel, cl_kernel, CL_INVALID_KERNEL, "clRetainKernel")


def clReleaseKernel(kernel):
    """clReleaseKernel: one reference less; at 0 the kernel lets go of its program."""
    return release(kernel, cl_kernel, CL_INVALID_KERNEL, "clReleaseKernel")


def pack_args(k, call) -> ArgState:
    """k's packed argument state, once every argument is set and every memory
    object it names is alive, within the device's constant memory and image
    limits (constant_limits, image_limits); CL_INVALID_KERNEL_ARGS / CL_INVALID_MEM_OBJECT /
    CL_OUT_OF_RESOURCES otherwise."""
    st = k.state
    if st.unset:
        spec = k.specs[min(st.unset)]
        fail(CL_INVALID_KERNEL_ARGS, f"{spec.where(k.name)} is not set (clSetKernelArg)", call)
    for m in st.mems:
        if m._refs <= 0:
            i = next(j for j, v in st.mem_at.items() if v is m)
            fail(CL_INVALID_MEM_OBJECT, f"{k.specs[i].where(k.name)}: its memory object was "
                 "released", call)
    constant_limits(k, call)
    image_limits(k, call)
    return st


_IMAGE_TYPES = frozenset({"image1d_t", "image1d_buffer_t", "image1d_array_t", "image2d_t",
                          "image2d_array_t", "image3d_t"})


def image_limits(k, call) -> None:
    """clEnqueueNDRangeKernel's CL_OUT_OF_RESOURCES examples for images: more
    read-only image arguments than CL_DEVICE_MAX_READ_IMAGE_ARGS, write-only
    ones than CL_DEVICE_MAX_WRITE_IMAGE_ARGS, sampler_t arguments than
    CL_DEVICE_MAX_SAMPLERS."""
    counts = k.entry.image_counts
    if counts is None:
        reads = [s for s in k.specs if s.type_name in _IMAGE_TYPES
                 and s.info.get("access", "none") in ("read_only", "none")]
        writes = [s for s in k.specs if s.type_name in _IMAGE_TYPES
                  and s.info.get("access") == "write_only"]
        samplers = [s for s in k.specs if s.type_name == "sampler_t"]
        counts = k.entry.image_counts = (reads, writes, samplers)
    if not any(counts):
        return
    from .image import MAX_READ_IMAGE_ARGS, MAX_SAMPLERS, MAX_WRITE_IMAGE_ARGS
    for found, limit, what, name in zip(
            counts, (MAX_READ_IMAGE_ARGS, MAX_WRITE_IMAGE_ARGS, MAX_SAMPLERS),
            ("read-only image", "write-only image", "sampler_t"),
            ("CL_DEVICE_MAX_READ_IMAGE_ARGS", "CL_DEVICE_MAX_WRITE_IMAGE_ARGS",
             "CL_DEVICE_MAX_SAMPLERS")):
        if len(found) > limit:
            fail(CL_OUT_OF_RESOURCES, f"{k.name} has {len(found)} {what} arguments; {name} is "
                 f"{limit} ({found[limit].where(k.name)} is one too many)", call)


def constant_limits(k, call) -> None:
    """clEnqueueNDRangeKernel's (and clEnqueueTask's) CL_OUT_OF_RESOURCES for
    constant memory, "insufficient resources needed to execute the kernel":
    more __constant pointer arguments than CL_DEVICE_MAX_CONSTANT_ARGS, or
    the buffers set for them (each argument counted, as the spec counts
    each argument) plus the program-scope __constant variables over
    CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE.  Nothing is enqueued then."""
    consts = [s for s in k.specs if s.what == _MEM and s.address == "constant"]
    if not consts:
        return
    if len(consts) > MAX_CONSTANT_ARGS:
        spec = consts[MAX_CONSTANT_ARGS]
        fail(CL_OUT_OF_RESOURCES, f"{k.name} has {len(consts)} __constant pointer arguments; "
             f"CL_DEVICE_MAX_CONSTANT_ARGS is {MAX_CONSTANT_ARGS} ({spec.where(k.name)} is one "
             "too many)", call)
    total = program = k.program.constant_bytes
    mem_at = k.state.mem_at
    for spec in consts:
        m = mem_at.get(spec.index)
        if m is None:
            continue
        total += m.size
        if total > MAX_CONSTANT_BUFFER_SIZE:
            sizes = ", ".join(f"{s.info.get('name', s.index)} {mem_at[s.index].size}"
                              for s in consts if s.index in mem_at)
            fail(CL_OUT_OF_RESOURCES, f"{spec.where(k.name)}: its buffer of {m.size} bytes "
                 f"takes the kernel's constant memory to {total} bytes, over "
                 f"CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE ({MAX_CONSTANT_BUFFER_SIZE}): the "
                 f"__constant buffers are {sizes} bytes and the program-scope __constant "
                 f"variables {program} bytes", call)


__all__ = ["cl_kernel", "LocalMemory", "clCreateKernel", "clCreateKernelsInProgram",
           "clSetKernelArg", "clGetKernelInfo", "clGetKernelWorkGroupInfo", "clGetKernelArgInfo",
           "clRetainKernel", "clReleaseKernel"]
