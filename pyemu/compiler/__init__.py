"""The kernel compiler: CUDA C++ and OpenCL C source to a module the core loads.

    driver.py    compile_source(): options, the steps, g++, diagnostics
    cache.py     the on-disk cache of compiled modules
    frontend/    libclang: the one parse of each unit (kernels, edits) and the lexer
    opencl.py    the OpenCL C pre-pass (C++-only keywords, work-item fields, swizzles)
    smem.py      static shared memory declarations as references into the arena
    regions/     barrier-region block functions (a block run without fibers)
"""
from .driver import CompiledModule, CompileError, CompileOptionError, compile_source

__all__ = ["CompiledModule", "CompileError", "CompileOptionError", "compile_source"]
