"""OpenCL sub-groups on the host side: clGetKernelSubGroupInfo (OpenCL 2.1
core, cl_khr_subgroups).  pyemu's sub-groups are the executor's warps: 32
work-items in linear local id order, the last one of a work-group shorter
when the work-group size is not a multiple of 32 (detail/cl_subgroup.h)."""
from __future__ import annotations

import operator
from enum import IntEnum

from . import kernel as _kernel
from ._base import as_int, info
from ._errors import CL_INVALID_DEVICE, CL_INVALID_VALUE, fail

SUB_GROUP_SIZE = 32

cl_kernel_sub_group_info = IntEnum("cl_kernel_sub_group_info", [
    ("CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE", 0x2033),
    ("CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE", 0x2034),
    ("CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT", 0x11B8),
    ("CL_KERNEL_MAX_NUM_SUB_GROUPS", 0x11B9),
    ("CL_KERNEL_COMPILE_NUM_SUB_GROUPS", 0x11BA),
])
cl_kernel_sub_group_info.__doc__ = "clGetKernelSubGroupInfo parameters (real values, CL/cl.h)."
globals().update(cl_kernel_sub_group_info.__members__)


def _local_size(value, call) -> int:
    """The work-items of the local size `value` (a list of 1 to 3 sizes)."""
    if value is None:
        fail(CL_INVALID_VALUE, "this parameter needs input_value: the local work size", call)
    try:
        sizes = [operator.index(v) for v in value]
    except (TypeError, ValueError):
        fail(CL_INVALID_VALUE, "input_value must be a list of 1 to 3 local sizes", call)
    if not 1 <= len(sizes) <= 3 or any(s <= 0 for s in sizes):
        fail(CL_INVALID_VALUE, f"the local work size {sizes} is not 1 to 3 positive sizes", call)
    n = 1
    for s in sizes:
        n *= s
    return n


def clGetKernelSubGroupInfo(kernel, device, param_name, input_value=None):
    """clGetKernelSubGroupInfo(kernel, device, param_name, input_value=None).
    input_value is what C passes as (input_value_size, input_value): the local
    work size as a list for the _FOR_NDRANGE parameters, a sub-group count
    for CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT (answered as [count * 32, 1,
    1], or [0, 0, 0] when that is more than the kernel allows).  Sub-groups
    have 32 work-items; CL_KERNEL_COMPILE_NUM_SUB_GROUPS is 0 (pyemu has no
    intel_reqd_sub_group_size-like attribute)."""
    call = "clGetKernelSubGroupInfo"
    k = _kernel.check_kernel(kernel, call)
    if device is not None and not any(device is d for d in k.program.devices):
        fail(CL_INVALID_DEVICE, "the device is not a device of the kernel's program", call)
    max_wg = _kernel.work_group_size(k)

    def for_count():
        count = as_int(input_value, call, "input_value") if input_value is not None else None
        if count is None or count <= 0:
            fail(CL_INVALID_VALUE, "input_value must be a positive sub-group count", call)
        n = count * SUB_GROUP_SIZE
        return [n, 1, 1] if n <= max_wg else [0, 0, 0]

    return info({
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
            lambda: min(SUB_GROUP_SIZE, _local_size(input_value, call)),
        CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
            lambda: -(-_local_size(input_value, call) // SUB_GROUP_SIZE),
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: for_count,
        CL_KERNEL_MAX_NUM_SUB_GROUPS: lambda: max_wg // SUB_GROUP_SIZE,
        CL_KERNEL_COMPILE_NUM_SUB_GROUPS: lambda: 0,
    }, param_name, call, "cl_kernel_sub_group_info")


__all__ = ["clGetKernelSubGroupInfo", "cl_kernel_sub_group_info",
           *cl_kernel_sub_group_info.__members__]
