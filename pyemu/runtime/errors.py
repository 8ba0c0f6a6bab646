"""The one exception idiom of both facades: CudaError and CLError are
APIError, which keeps the code, the call and what was wrong, and reads
"cudaMalloc failed: cudaErrorMemoryAllocation (out of memory): ..." or
"clFinish failed: CL_OUT_OF_RESOURCES: ..."."""
from __future__ import annotations


class APIError(Exception):
    """A failed call of either facade.  `.code` is the API's error code,
    `.call` the function, `.detail` what was wrong."""

    def __init__(self, code, name: str, detail: str = "", call: str = ""):
        self.code = code
        self.call = call
        self.detail = detail
        text = name
        if call:
            text = f"{call} failed: {text}"
        if detail:
            text = f"{text}: {detail}"
        super().__init__(text)


__all__ = ["APIError"]
