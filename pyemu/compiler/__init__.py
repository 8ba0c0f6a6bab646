"""The kernel compiler: CUDA C++ and OpenCL C source to a module the core loads.

    driver.py    compile_source(): options, the steps, g++, diagnostics
    cache.py     the on-disk cache of compiled modules
    source.py    scanning the preprocessed source for kernels (CUDA rewrites)
    opencl.py    the OpenCL C rewrite (vector literals, __local, keywords)
    regions/     barrier-region block functions (a block run without fibers)
"""
from .driver import CompiledModule, CompileError, CompileOptionError, compile_source

__all__ = ["CompiledModule", "CompileError", "CompileOptionError", "compile_source"]
