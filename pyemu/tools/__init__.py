"""The tools around the library: the command line (cli.py), the benchmark
(bench.py), the terminology table (terms.py) and the OpenCL C conformance
run (conformance/)."""

import os as _os
import sys as _sys


def prog(command: str = "") -> str:
    """How the user started the command line, for usage lines: `pyemu` (the
    installed script) or `python -m pyemu`, then the command's name."""
    name = "pyemu" if _os.path.basename(_sys.argv[0] or "") == "pyemu" else "python -m pyemu"
    return f"{name} {command}".strip()
