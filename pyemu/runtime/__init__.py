"""The runtime layer both facades stand on.

    core.py     the C core (pyemu._native) loaded once, with its errors
    config.py   every environment variable pyemu reads
    host.py     host buffers and what the host CPU is
    kernel.py   loaded modules, their kernels' parameters and argument layout
    args.py     kernel arguments: one converter, each facade's error codes
    launch.py   launch descriptions, their cache, the block-size limit
    faults.py   kernel faults as records, worded in each facade's terms
    sticky.py   the sticky error after a kernel fault: the one rule
    sync.py     waiting for the device; device printf's output
    holds.py    what an in-flight command keeps alive
    views.py    host views of device memory; the device reset
"""
