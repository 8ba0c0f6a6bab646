"""The conformance cases, in the order the table lists them.

Each topic module registers its cases with @model.case; this module collects
them.  The runner (pyemu/tools/conformance/runner.py) uses CASES, QUICK and build(name).
"""
from __future__ import annotations

from . import (cases_slides, cases_language, cases_convert, cases_math,  # noqa: F401
               cases_builtins, cases_device, cases_images)  # noqa: F401  (they register the cases)
from .model import REGISTRY, build  # noqa: F401

CASES = list(REGISTRY)

# a few cases for `python -m pyemu conformance --quick`: one of each kind
QUICK = ["vector_add", "matmul_tiled", "reduce", "histogram", "image2d_linear_repeat_norm"]
