"""The runtime layer both facades stand on.

    core.py     the C core (pyemu._native) loaded once, with its errors
    config.py   every environment variable pyemu reads
    host.py     host buffers and what the host CPU is
    kernel.py   loaded modules and argument packing
"""
