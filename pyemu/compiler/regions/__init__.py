"""Barrier-region block functions: a kernel with __syncthreads() cut into the
regions between its barriers, each run as a loop over the block's threads.

    blocks.py   what can be cut, and the driver's interface (generate, Blocks)
    syntax.py   the statement structure of a kernel's body
    gen.py      the C++ of the block function
    inline.py   device functions that reach a barrier, inlined into the kernel
    variant.py  the fiber variant (soft barriers where the block function
                starts regions) of a kernel that takes the fiber path
    uniform.py  which values are uniform, and PoCL's implicit loop barriers,
                placed alike for both paths
"""
