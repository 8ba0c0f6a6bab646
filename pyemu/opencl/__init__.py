"""pyemu.opencl: the OpenCL host API on the CPU.

    from pyemu.opencl import *

gives the cl* calls, the CL_* constants and error codes (real values) and
CLError.  The C signatures become Python by one rule: a count with its array
(num_devices and devices, num_events_in_wait_list and event_wait_list) is one
list; every other argument keeps its C position; output parameters are
returned (an enqueue returns its event); errcode_ret is a CLError.
clSetKernelArg takes (kernel, arg_index, arg_value) as well as the C form
(kernel, arg_index, arg_size, arg_value); LocalMemory(size) is the value of
a __local pointer argument, as in PyOpenCL.
"""
from importlib import import_module as _import

_PARTS = (
    "_errors", "_constants",                           # codes, CL_* constants
    "platform", "queue", "event", "memory", "rect",    # objects, commands, buffers
    "program", "kernel", "ndrange",                    # programs, kernels, launches
    "image", "sampler", "subgroup",                    # images, samplers, sub-groups
)

__all__ = []
for _name in _PARTS:
    _mod = _import("." + _name, __name__)
    for _n in _mod.__all__:
        globals()[_n] = getattr(_mod, _n)
    __all__ += [n for n in _mod.__all__ if n not in __all__]
del _name, _mod, _n, _import
