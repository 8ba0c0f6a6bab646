"""pyemu.cuda: the CUDA runtime API on the CPU.

    from pyemu.cuda import *

gives the runtime's names (cudaMalloc, cudaMemcpy, cudaDeviceSynchronize,
...), its constants and error codes, dim3, SourceModule and CudaError.
"""
from ._errors import *  # noqa: F401,F403
from ._errors import __all__ as _e
from ._types import *  # noqa: F401,F403
from ._types import __all__ as _t
from .runtime import *  # noqa: F401,F403
from .runtime import __all__ as _r
from .module import *  # noqa: F401,F403
from .module import __all__ as _m

from .stream import *  # noqa: F401,F403
from .stream import __all__ as _s
from .event import *  # noqa: F401,F403
from .event import __all__ as _ev
from .host_func import *  # noqa: F401,F403
from .host_func import __all__ as _hf
from .host_memory import *  # noqa: F401,F403
from .host_memory import __all__ as _hm
from .async_copy import *  # noqa: F401,F403
from .async_copy import __all__ as _ac
from .device import *  # noqa: F401,F403
from .device import __all__ as _dv
from .profiler import *  # noqa: F401,F403
from .profiler import __all__ as _pf
from .stream_alloc import *  # noqa: F401,F403
from .stream_alloc import __all__ as _sa
from .peer import *  # noqa: F401,F403
from .peer import __all__ as _pe

__all__ = _e + _t + _r + _m + _s + _ev + _hf + _hm + _ac + _dv + _pf + _sa + _pe
