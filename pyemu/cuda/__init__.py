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

__all__ = _e + _t + _r + _m
from .array import *  # noqa: F401,F403
from .array import __all__ as _a
from .texture import *  # noqa: F401,F403
from .texture import __all__ as _tx

__all__ = __all__ + _a + _tx
from .texref import *  # noqa: F401,F403
from .texref import __all__ as _tr

__all__ = __all__ + _tr
