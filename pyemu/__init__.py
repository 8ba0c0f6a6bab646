"""pyemu: CUDA and OpenCL programs on the CPU.

pyemu.cuda and pyemu.opencl are the two facades (the runtime API names);
pyemu.compiler builds kernels, pyemu.runtime holds the C core and its
configuration, pyemu.tools the command line (`python -m pyemu`, `pyemu`).

`__version__` is the one place the version is written: pyproject.toml reads
it from here when a wheel is built.
"""
from __future__ import annotations

__version__ = "0.1.0"


def _installed_copy():
    """Where a regular installation of pyemu lives, when this package is a
    source checkout without a compiled core of its own; None otherwise.

    `pip install .` builds the core (pyemu/_native*.so) into the installed
    copy only.  Python run inside the checkout (`python -m pytest` in the
    repository root puts it first on sys.path) would import this folder and
    fail for want of the core; instead the package's __path__ is pointed at
    the installed copy, so every submodule, the core, the headers and the
    examples come from the installation.  A checkout with a core of its own
    (`pip install -e .`, `python csrc/build_core.py`) runs itself.
    """
    from pathlib import Path

    here = Path(__file__).resolve().parent
    if any(here.glob("_native*")) or not (here.parent / "csrc").is_dir():
        return None
    try:
        from importlib.metadata import distributions
        dists = list(distributions(name="pyemu"))
    except Exception:
        return None
    for dist in dists:
        try:
            there = Path(dist.locate_file("pyemu")).resolve()
        except Exception:
            continue
        if there != here and (there / "__init__.py").is_file() and any(there.glob("_native*")):
            return there
    return None


_there = _installed_copy()
if _there is not None:
    __path__ = [str(_there)]
del _there
