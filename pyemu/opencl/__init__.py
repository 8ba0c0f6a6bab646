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
from ._errors import *  # noqa: F401,F403
from ._errors import __all__ as _e
from ._constants import *  # noqa: F401,F403
from ._constants import __all__ as _c
from .platform import *  # noqa: F401,F403
from .platform import __all__ as _p
from .queue import *  # noqa: F401,F403
from .queue import __all__ as _q
from .event import *  # noqa: F401,F403
from .event import __all__ as _ev
from .memory import *  # noqa: F401,F403
from .memory import __all__ as _m
from .program import *  # noqa: F401,F403
from .program import __all__ as _pr
from .kernel import *  # noqa: F401,F403
from .kernel import __all__ as _k
from .ndrange import *  # noqa: F401,F403
from .ndrange import __all__ as _nd

from .subgroup import *  # noqa: F401,F403
from .subgroup import __all__ as _sg

__all__ = _e + _c + _p + _q + _ev + _m + _pr + _k + _nd + _sg
