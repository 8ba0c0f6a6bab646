"""Command queues: clCreateCommandQueue(WithProperties), clFinish, clFlush.

A cl_command_queue is a queue of the core's command engine, the same object
a CUDA stream is: in order unless CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
(PYEMU_QUEUE_OUT_OF_ORDER: commands wait only on their wait lists and
barriers).  Commands go to the workers as soon as they are enqueued, so
clFlush has nothing to do.
"""
from __future__ import annotations


from ..runtime import core as _core
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.sync import flush_printf
from ..runtime.core import CoreError, ffi, lib
from . import _constants as K
from ._base import CLObject, as_int, check, info, release, retain
from ._errors import (check_sticky, CL_INVALID_COMMAND_QUEUE, CL_INVALID_DEVICE, CL_INVALID_QUEUE_PROPERTIES,
                      CL_INVALID_VALUE, fail, raise_core)
from .platform import QUEUE_PROPERTIES, check_context, cl_device_id

_KNOWN = (K.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | K.CL_QUEUE_PROFILING_ENABLE |
          K.CL_QUEUE_ON_DEVICE | K.CL_QUEUE_ON_DEVICE_DEFAULT)


class cl_command_queue(CLObject):
    """An OpenCL command queue: a queue of the core's engine, as a CUDA stream is."""

    _kind = "command queue"

    def __init__(self, handle, context, device, properties, props_array):
        super().__init__()
        self.handle = handle
        self.context = context
        self.device = device
        self.properties = K.cl_command_queue_properties(properties)
        self.props_array = props_array

    @property
    def profiling(self) -> bool:
        return bool(self.properties & K.CL_QUEUE_PROFILING_ENABLE)

    def _destroy(self):
        # queued work still runs (the core keeps the queue until it is done)
        if self.handle is not None and lib is not None:
            _views.invalidate()      # enqueues may have kept this queue's id
            lib.pyemu_queue_release(self.handle)
            self.handle = None

    def __del__(self):
        self._destroy()


def check_queue(queue, call) -> cl_command_queue:
    return check(queue, cl_command_queue, CL_INVALID_COMMAND_QUEUE, call)


def _create(context, device, properties, props_array, call):
    ctx = check_context(context, call)
    check(device, cl_device_id, CL_INVALID_DEVICE, call, "device")
    if device not in ctx.devices:
        fail(CL_INVALID_DEVICE, "the device is not in the context", call)
    p = as_int(properties, call, "properties")
    if p & ~int(_KNOWN):
        fail(CL_INVALID_VALUE, f"0x{p:x} has bits that are not queue properties", call)
    if p & ~int(QUEUE_PROPERTIES):
        fail(CL_INVALID_QUEUE_PROPERTIES, f"{K.cl_command_queue_properties(p)!r}: on-device "
             "queues are not supported", call)
    flags = lib.PYEMU_QUEUE_OUT_OF_ORDER if p & K.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE else 0
    out = ffi.new("pyemu_queue **")
    try:
        _core.check(lib.pyemu_queue_create(flags, out))
    except CoreError as exc:
        raise_core(exc, call)
    return cl_command_queue(out[0], ctx, device, p, props_array)


def clCreateCommandQueue(context, device, properties) -> cl_command_queue:
    """clCreateCommandQueue(context, device, properties): a queue (deprecated in 2.0, kept)."""
    return _create(context, device, properties, [], "clCreateCommandQueue")


def clCreateCommandQueueWithProperties(context, device, properties) -> cl_command_queue:
    """clCreateCommandQueueWithProperties(context, device, properties): properties is
    None or [CL_QUEUE_PROPERTIES, bits, ..., 0]."""
    call = "clCreateCommandQueueWithProperties"
    bits = 0
    items = []
    if properties is not None:
        try:
            items = [int(x) for x in properties]
        except (TypeError, ValueError):
            fail(CL_INVALID_VALUE, "properties must be a list of ints ending in 0", call)
        if items and items[-1] == 0 and len(items) % 2:
            items = items[:-1]
        if len(items) % 2:
            fail(CL_INVALID_VALUE, "properties must be name, value pairs ending in 0", call)
        seen = set()
        for name, value in zip(items[::2], items[1::2]):
            if name in seen:
                fail(CL_INVALID_VALUE, f"property 0x{name:x} is given twice", call)
            seen.add(name)
            if name == K.CL_QUEUE_PROPERTIES:
                bits = value
            elif name == K.CL_QUEUE_SIZE:
                # a size only goes with an on-device queue, which is not supported
                fail(CL_INVALID_VALUE if not bits & K.CL_QUEUE_ON_DEVICE
                     else CL_INVALID_QUEUE_PROPERTIES, "CL_QUEUE_SIZE needs CL_QUEUE_ON_DEVICE",
                     call)
            else:
                fail(CL_INVALID_VALUE, f"0x{name:x} is not a queue property", call)
    return _create(context, device, bits, items + [0] if items else [], call)


def clGetCommandQueueInfo(command_queue, param_name):
    """clGetCommandQueueInfo(command_queue, param_name)."""
    q = check_queue(command_queue, "clGetCommandQueueInfo")
    return info({
        K.CL_QUEUE_CONTEXT: lambda: q.context,
        K.CL_QUEUE_DEVICE: lambda: q.device,
        K.CL_QUEUE_REFERENCE_COUNT: lambda: q._refs,
        K.CL_QUEUE_PROPERTIES: lambda: q.properties,
        K.CL_QUEUE_PROPERTIES_ARRAY: lambda: list(q.props_array),
        K.CL_QUEUE_SIZE: lambda: fail(CL_INVALID_COMMAND_QUEUE, "not an on-device queue",
                                      "clGetCommandQueueInfo"),
        K.CL_QUEUE_DEVICE_DEFAULT: lambda: None,
    }, param_name, "clGetCommandQueueInfo", "cl_command_queue_info")


def clFinish(command_queue):
    """clFinish(command_queue): wait until every command of the queue is complete.

    Differs from the specification's list of errors as GPU drivers do: when a
    command failed (a kernel's illegal access), clFinish raises its error
    (CL_OUT_OF_RESOURCES), which then sticks to later calls."""
    q = check_queue(command_queue, "clFinish")
    _sync.wait_queue(q.handle)
    flush_printf()
    check_sticky("clFinish")    # as GPU drivers do: a faulted kernel fails the clFinish after it
    return 0


def clFlush(command_queue):
    """clFlush(command_queue): commands are submitted when enqueued; nothing to do."""
    check_queue(command_queue, "clFlush")
    return 0


def clRetainCommandQueue(command_queue):
    """clRetainCommandQueue: one more reference."""
    return retain(command_queue, cl_command_queue, CL_INVALID_COMMAND_QUEUE,
                  "clRetainCommandQueue")


def clReleaseCommandQueue(command_queue):
    """clReleaseCommandQueue: one reference less; at 0 the queue goes once its work is done
    (as the C call, it does not wait)."""
    return release(command_queue, cl_command_queue, CL_INVALID_COMMAND_QUEUE,
                   "clReleaseCommandQueue")


__all__ = ["cl_command_queue", "clCreateCommandQueue", "clCreateCommandQueueWithProperties",
           "clGetCommandQueueInfo", "clFinish", "clFlush", "clRetainCommandQueue",
           "clReleaseCommandQueue"]
