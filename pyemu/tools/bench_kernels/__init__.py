"""Kernels of ``python -m pyemu bench``, and the code that runs them.

Each comparison case has a pair of sources here, ``NAME.cu`` (CUDA C, run by
pyemu) and ``NAME.cl`` (the same kernel in natural OpenCL C, same work-group
sizes, run by pyemu's OpenCL API and by PoCL), so the two can be read side by
side; ``empty.cu`` is the kernel of the launch-overhead row.  :mod:`.backends`
runs them on each side, :mod:`.cases` defines the inputs, references and
targets.
"""
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent
