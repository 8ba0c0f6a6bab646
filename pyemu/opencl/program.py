"""Programs: clCreateProgramWithSource, clBuildProgram, clGetProgramInfo,
clGetProgramBuildInfo, clRetainProgram, clReleaseProgram, and the compiler's
clUnloadPlatformCompiler and clUnloadCompiler.

A program is OpenCL C source; clBuildProgram compiles it with pyemu's
compiler (pyemu.compiler.compile_source, dialect "opencl": g++ against
include/pyemu/opencl_device.h, cached on disk) and loads the module into the
core, the same way a CUDA SourceModule is loaded.  The build runs on the
calling thread: when clBuildProgram returns, pfn_notify has been called and
the program is built or has failed (a failure raises CL_BUILD_PROGRAM_FAILURE
even with a pfn_notify, and the log stays for CL_PROGRAM_BUILD_LOG).

Each kernel object holds a reference to its program (as in PoCL, it shows in
CL_PROGRAM_REFERENCE_COUNT), so a program lives as long as its kernels.
clCreateProgramWithBinary, clCompileProgram and clLinkProgram are not there.
"""
from __future__ import annotations

import re
import shlex

from .. import compiler
from ..runtime.core import CoreError, ffi, lib
from ..runtime.kernel import PARAM_POINTER, KernelDesc, Loaded
from . import _constants as K
from ._base import CLObject, check, info, release, retain
from ._errors import (CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS, CL_INVALID_DEVICE,
                      CL_INVALID_OPERATION, CL_INVALID_PROGRAM, CL_INVALID_PROGRAM_EXECUTABLE,
                      CL_INVALID_VALUE, CL_OUT_OF_HOST_MEMORY, CL_SUCCESS, fail)
from .platform import MAX_CONSTANT_BUFFER_SIZE, _platform, check_context, cl_device_id

SOURCE_NAME = "program.cl"     # the file name the build log gives the source


class KernelEntry:
    """A kernel of a built program: its core description (parameters, layout)
    and what the compiler read from the OpenCL source (kernel_info)."""

    def __init__(self, desc: KernelDesc, kinfo: dict):
        self.desc = desc
        self.name = desc.name
        self.args = kinfo["args"]
        self.reqd = tuple(int(x) for x in kinfo.get("reqd_work_group_size", (0, 0, 0)))
        self.hint = tuple(int(x) for x in kinfo.get("work_group_size_hint", (0, 0, 0)))
        self.attributes = kinfo.get("attributes", "")
        self.specs = None           # the arguments' conversion rules (pyemu.opencl.kernel)
        self.bytes_struct = None    # packs one bytes value per argument into the buffer
        self.image_counts = None    # its image and sampler arguments (kernel.image_limits)


def _default_info(desc: KernelDesc) -> dict:
    """kernel_info for a kernel the compiler did not describe: from the C++ types."""
    args = []
    for i, p in enumerate(desc.params):
        address = "global" if p.kind == PARAM_POINTER else "private"
        args.append({"name": f"arg{i}", "type_name": p.type_name.replace(" ", ""),
                     "address": address, "access": "none", "type_qualifiers": []})
    r = list(desc.reqd_block) if any(desc.reqd_block) else [0, 0, 0]
    return {"args": args, "reqd_work_group_size": r, "work_group_size_hint": [0, 0, 0],
            "attributes": ""}


class cl_program(CLObject):
    """A program: its source, build options, build log and the compiled module."""

    _kind = "program"

    def __init__(self, context, source):
        super().__init__()
        self.context = context
        self.devices = list(context.devices)
        self.source = source
        self.status = K.CL_BUILD_NONE
        self.options = ""
        self.log = ""
        self.arg_info = False       # built with -cl-kernel-arg-info
        self.compiled = None
        self.binary = None          # CL_PROGRAM_BINARIES' bytes, read when built
        self.loaded = None
        self.kernels = {}           # name -> KernelEntry, in source order
        self.constant_bytes = 0     # its program-scope __constant variables take
        self.live_kernels = 0       # kernel objects not released yet
        self._building = False

    @property
    def built(self) -> bool:
        return self.status == K.CL_BUILD_SUCCESS and self.loaded is not None

    def _destroy(self):
        self.kernels = {}
        self.loaded = None          # the core module goes once no command uses it


def check_program(program, call) -> cl_program:
    """program, if it is a live cl_program; else CL_INVALID_PROGRAM."""
    return check(program, cl_program, CL_INVALID_PROGRAM, call)


def clCreateProgramWithSource(context, strings) -> cl_program:
    """clCreateProgramWithSource(context, strings): `strings` is a list of str or
    bytes, joined as C joins them; the lengths array is implied.  A single str
    is taken as a list of one.  Bytes are compiled exactly as given (a Latin-1
    comment builds, as with GPU drivers); a str is UTF-8.  CL_PROGRAM_SOURCE
    gives a str, or the bytes when they are not UTF-8."""
    call = "clCreateProgramWithSource"
    ctx = check_context(context, call)
    if isinstance(strings, (str, bytes, bytearray)):
        strings = [strings]
    if strings is None or isinstance(strings, CLObject):
        fail(CL_INVALID_VALUE, "strings must be a non-empty list of strings", call)
    try:
        items = list(strings)
    except TypeError:
        fail(CL_INVALID_VALUE, f"strings is {type(strings).__name__}, not a list of strings",
             call)
    if not items:
        fail(CL_INVALID_VALUE, "strings is empty", call)
    parts = []
    for i, s in enumerate(items):
        if isinstance(s, (bytes, bytearray, memoryview)):
            s = bytes(s)
        elif isinstance(s, str):
            try:
                s = s.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError as exc:
                fail(CL_INVALID_VALUE, f"strings[{i}] cannot be encoded as UTF-8: {exc}", call)
        else:
            fail(CL_INVALID_VALUE, f"strings[{i}] is {type(s).__name__}, not a string", call)
        parts.append(s)
    source = b"".join(parts)
    try:
        return cl_program(ctx, source.decode("utf-8"))
    except UnicodeDecodeError:
        return cl_program(ctx, source)


def _options(options, call) -> str:
    if options is None:
        return ""
    if isinstance(options, (bytes, bytearray)):
        try:
            return bytes(options).decode("utf-8")
        except UnicodeDecodeError:
            fail(CL_INVALID_BUILD_OPTIONS, "options are not UTF-8", call)
    if isinstance(options, str):
        return options
    try:
        return " ".join(shlex.quote(str(o)) for o in options)
    except TypeError:
        fail(CL_INVALID_BUILD_OPTIONS, f"options is {type(options).__name__}, not a string",
             call)


def _devices(program, device_list, call):
    if device_list is None:
        return
    if isinstance(device_list, CLObject):
        device_list = [device_list]
    try:
        devs = list(device_list)
    except TypeError:
        fail(CL_INVALID_VALUE, "device_list must be a list of devices", call)
    for d in devs:
        check(d, cl_device_id, CL_INVALID_DEVICE, call, "a device of device_list")
        if d not in program.devices:
            fail(CL_INVALID_DEVICE, "a device of device_list is not a device of the program", call)


def _load(program, compiled):
    """Load the built module and describe its kernels (KernelEntry, in source order)."""
    loaded = Loaded(compiled.path)
    infos = compiled.kernel_info
    entries = {}
    for i in range(loaded.count):
        desc = KernelDesc(loaded, i)
        kinfo = infos.get(desc.name) or _default_info(desc)
        if len(kinfo["args"]) != len(desc.params):
            raise CoreError(0, f"kernel {desc.name}: the compiler reported "
                            f"{len(kinfo['args'])} arguments and the module "
                            f"{len(desc.params)}")
        entries[desc.name] = KernelEntry(desc, kinfo)
    return loaded, {n: entries[n] for n in compiled.kernel_names if n in entries}


def constant_bytes(loaded) -> int:
    """The bytes a loaded module's program-scope __constant variables take
    (the core flags them PYEMU_SYM_CONSTANT: the front end puts each in a
    pyemu_const section, pyemu/compiler/frontend/parse.py).  The
    kernel-scope ones come from the compiler's kernel_info (_build)."""
    count = ffi.new("unsigned int *")
    if lib.pyemu_module_symbol_count(loaded.handle, count):
        return 0
    view = ffi.new("pyemu_symbol_view *")
    total = 0
    for i in range(count[0]):
        if lib.pyemu_module_symbol(loaded.handle, i, view) == 0 and \
                view.flags & lib.PYEMU_SYM_CONSTANT:
            total += int(view.size)
    return total


# the core's refusal of a module over its 64 KiB of constant data (csrc/symbols.c)
_CONST_LIMIT_RE = re.compile(r"the module's __constant__ variables take (\d+) bytes; "
                             r"a module may have at most \d+ \(64 KiB, as on a GPU\): (.*)",
                             re.S)


def _module_error(exc) -> str:
    """The build log's line of a module the core does not load; the constant
    limit in OpenCL's terms, naming the variables."""
    m = _CONST_LIMIT_RE.search(str(exc))
    if m is None:
        return f"error: {exc}"
    return (f"error: the program-scope __constant variables take {m.group(1)} bytes; "
            f"CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is {MAX_CONSTANT_BUFFER_SIZE}: "
            f"{m.group(2).strip()}")


def clBuildProgram(program, device_list=None, options=None, pfn_notify=None, user_data=None):
    """clBuildProgram(program, device_list=None, options=None, pfn_notify=None,
    user_data=None): compile and load the program for its device.

    A failed compile raises CL_BUILD_PROGRAM_FAILURE (the detail and
    CL_PROGRAM_BUILD_LOG hold the diagnostics at the source's own line
    numbers), an option pyemu does not know CL_INVALID_BUILD_OPTIONS, and a
    program that has kernel objects CL_INVALID_OPERATION.  pfn_notify(program,
    user_data) is called before the call returns."""
    call = "clBuildProgram"
    p = check_program(program, call)
    _devices(p, device_list, call)
    if pfn_notify is None and user_data is not None:
        fail(CL_INVALID_VALUE, "user_data without pfn_notify", call)
    if pfn_notify is not None and not callable(pfn_notify):
        fail(CL_INVALID_VALUE, "pfn_notify is not callable", call)
    opts = _options(options, call)
    with CLObject._lock:
        if p.live_kernels:
            fail(CL_INVALID_OPERATION, f"the program has {p.live_kernels} kernel object(s); "
                 "release them before building it again", call)
        if p._building:
            fail(CL_INVALID_OPERATION, "the program is being built by another thread", call)
        p._building = True
    try:
        code, detail = _build(p, opts)
        if code:
            p.status = K.CL_BUILD_ERROR
    except BaseException:
        p.status = K.CL_BUILD_ERROR
        raise
    finally:
        p._building = False
    if pfn_notify is not None:
        pfn_notify(p, user_data)
    if code:
        fail(code, detail, call)
    return 0


def _build(p, opts):
    """Build `p`; (0, '') or (error code, detail).  Leaves p built or failed, never half."""
    p.status, p.options, p.log = K.CL_BUILD_IN_PROGRESS, opts, ""
    p.compiled, p.loaded, p.kernels, p.binary = None, None, {}, None
    try:
        words = shlex.split(opts)
    except ValueError as exc:
        p.log = f"error: invalid build options {opts!r}: {exc}\n"
        return CL_INVALID_BUILD_OPTIONS, p.log.strip()
    try:
        compiled = compiler.compile_source(p.source, dialect="opencl", options=words,
                                           source_name=SOURCE_NAME)
        loaded, kernels = _load(p, compiled)
    except compiler.CompileError as exc:
        p.log = exc.diagnostics.strip() + "\n"
        if isinstance(exc, compiler.CompileOptionError):
            return CL_INVALID_BUILD_OPTIONS, p.log.strip()
        return CL_BUILD_PROGRAM_FAILURE, "the build log says:\n" + p.log.rstrip()
    except CoreError as exc:        # the module does not load
        p.log = _module_error(exc) + "\n"
        return CL_BUILD_PROGRAM_FAILURE, p.log.strip()
    total = constant_bytes(loaded)
    local = [(n, b) for info in compiled.kernel_info.values() for n, b in info.get("constants", ())]
    if local and total + sum(b for _, b in local) > MAX_CONSTANT_BUFFER_SIZE:
        total += sum(b for _, b in local)
        named = ", ".join(f"{n} ({b} bytes)" for n, b in local)
        p.log = (f"error: the program's __constant variables (program and kernel scope) take "
                 f"{total} bytes; CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is "
                 f"{MAX_CONSTANT_BUFFER_SIZE}: kernel scope: {named}\n")
        return CL_BUILD_PROGRAM_FAILURE, p.log.strip()
    p.compiled, p.loaded, p.kernels = compiled, loaded, kernels
    p.constant_bytes = total + sum(b for _, b in local)
    p.binary = _read_binary(compiled.path)
    p.arg_info = "-cl-kernel-arg-info" in words
    p.log = compiled.log
    p.status = K.CL_BUILD_SUCCESS
    return 0, ""


def require_built(p, call):
    """p, if it has an executable; else CL_INVALID_PROGRAM_EXECUTABLE."""
    if not p.built:
        fail(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built (clBuildProgram)", call)
    return p


def _read_binary(path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _binary(p) -> bytes:
    if not p.built:
        return b""
    if p.binary is None:
        # read at build time: the process's copy of the module may be gone since
        # (another process cleared the cache); the loaded code is still there
        p.binary = _read_binary(p.compiled.path)
    if p.binary is None:
        fail(CL_OUT_OF_HOST_MEMORY, "the program's binary could not be read back: its file "
             "was removed after the build (python -m pyemu cache --clear?)", "clGetProgramInfo")
    return p.binary


def clGetProgramInfo(program, param_name):
    """clGetProgramInfo(program, param_name).  CL_PROGRAM_BINARIES gives the built
    shared object (a list with one bytes per device; b'' before a build);
    clCreateProgramWithBinary does not take it back."""
    call = "clGetProgramInfo"
    p = check_program(program, call)
    return info({
        K.CL_PROGRAM_REFERENCE_COUNT: lambda: p._refs,
        K.CL_PROGRAM_CONTEXT: lambda: p.context,
        K.CL_PROGRAM_NUM_DEVICES: lambda: len(p.devices),
        K.CL_PROGRAM_DEVICES: lambda: list(p.devices),
        K.CL_PROGRAM_SOURCE: lambda: p.source,
        K.CL_PROGRAM_BINARY_SIZES: lambda: [len(_binary(p))] * len(p.devices),
        K.CL_PROGRAM_BINARIES: lambda: [_binary(p)] * len(p.devices),
        K.CL_PROGRAM_NUM_KERNELS: lambda: len(require_built(p, call).kernels),
        K.CL_PROGRAM_KERNEL_NAMES: lambda: ";".join(require_built(p, call).kernels),
        K.CL_PROGRAM_IL: lambda: None,
        K.CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT: lambda: False,
        K.CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT: lambda: False,
    }, param_name, call, "cl_program_info")


def clGetProgramBuildInfo(program, device, param_name):
    """clGetProgramBuildInfo(program, device, param_name): the build status, the
    options, the log (str) or the binary type of the last build."""
    call = "clGetProgramBuildInfo"
    p = check_program(program, call)
    check(device, cl_device_id, CL_INVALID_DEVICE, call, "device")
    if device not in p.devices:
        fail(CL_INVALID_DEVICE, "the device is not a device of the program", call)
    return info({
        K.CL_PROGRAM_BUILD_STATUS: lambda: K.cl_build_status(p.status),
        K.CL_PROGRAM_BUILD_OPTIONS: lambda: p.options,
        K.CL_PROGRAM_BUILD_LOG: lambda: p.log,
        K.CL_PROGRAM_BINARY_TYPE: lambda: (K.CL_PROGRAM_BINARY_TYPE_EXECUTABLE if p.built
                                           else K.CL_PROGRAM_BINARY_TYPE_NONE),
        K.CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: lambda: 0,
    }, param_name, call, "cl_program_build_info")


def clRetainProgram(program):
    """clRetainProgram: one more reference."""
    return retain(program, cl_program, CL_INVALID_PROGRAM, "clRetainProgram")


def clReleaseProgram(program):
    """clReleaseProgram: one reference less; the program goes at 0 (its kernels
    each hold one)."""
    return release(program, cl_program, CL_INVALID_PROGRAM, "clReleaseProgram")


def clUnloadPlatformCompiler(platform):
    """clUnloadPlatformCompiler(platform) (OpenCL 1.2): a hint that the
    program may release the compiler's resources.  pyemu's compiler is g++
    run per build and libclang in process, which keeps nothing worth
    releasing; a later clBuildProgram works as before.  CL_INVALID_PLATFORM
    for anything but the platform (None is it, as in C)."""
    _platform(platform, "clUnloadPlatformCompiler")
    return CL_SUCCESS


def clUnloadCompiler():
    """clUnloadCompiler() (OpenCL 1.1, deprecated in 1.2): as
    clUnloadPlatformCompiler for the one platform."""
    return CL_SUCCESS


__all__ = ["cl_program", "clCreateProgramWithSource", "clBuildProgram", "clGetProgramInfo",
           "clGetProgramBuildInfo", "clRetainProgram", "clReleaseProgram",
           "clUnloadPlatformCompiler", "clUnloadCompiler"]
