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
from .symbols import *  # noqa: F401,F403
from .symbols import __all__ as _s
from ._pitched_types import *  # noqa: F401,F403
from ._pitched_types import __all__ as _pt
from .pitched import *  # noqa: F401,F403
from .pitched import __all__ as _p

__all__ = _e + _t + _r + _m + _s + _pt + _p
