"""pyemu's C++ front end: one libclang parse of each preprocessed unit.

parse() reads the text that g++ -E wrote for the scan (both dialects) and
gives a Model: the kernels with their parameters and attributes, file-scope
symbols, and the edits (vector literals, vector selects, __local and
__shared__ declarations) that pyemu.compiler.driver makes before g++
compiles that same text (Moved says where a character of it went), and
the function definitions with their calls, statements and parameters, for
the regions pass.  lex is the compiler's one tokenizer, clang's lexer
(lex.lex, lex.in_unit).  libclang comes from the PyPI `libclang` wheel;
without it, FrontendUnavailable says how to install it.
"""
from .edits import Moved, apply
from .libclang import FrontendUnavailable
from .model import Edit, Function, Kernel, Model, Param, Symbol
from .parse import SHARED_MARK, parse

__all__ = ["parse", "apply", "Moved", "Model", "Kernel", "Function", "Param", "Symbol", "Edit",
           "FrontendUnavailable", "SHARED_MARK"]
