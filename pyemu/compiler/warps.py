"""Does a kernel unit use warp collectives (pyemu/compiler/driver.py asks)?

Warp collectives (__shfl_sync, __ballot_sync, __syncwarp, cooperative
groups, OpenCL sub-groups) are rendezvous of the lanes of a warp.  In a
unit that uses any of them, the regions pass (pyemu/compiler/regions/)
cuts a kernel's block function at each collective statement it can split
safely (regions/warpcut.py: straight code and uniform loops, the
collectives of inlined device functions); the core computes each warp's
results at the cut (csrc/warp_block.c) with the fiber path's routine.  A
kernel it declines runs its threads after thread 0 as fibers
(pyemu_first_thread_done_warp, abi.h; csrc/warp.c): run_block's call is
the warp form in the whole unit, so a kernel of it without collectives and
without a block function takes fibers too (correct, slower).
The test looks at the preprocessed text of the user's own files (not
pyemu's headers), so a collective in a header of the user's counts too.
"""
from __future__ import annotations

import re

_MARKER = re.compile(r'^# \d+ "((?:[^"\\]|\\.)*)"([ \d]*)$', re.M)
_NAMES = re.compile(
    r"\b(?:__shfl\w*|__ballot_sync|__any_sync|__all_sync|__uni_sync|__activemask"
    r"|__match_(?:any|all)_sync"
    r"|__reduce_\w+_sync|__syncwarp|cooperative_groups|pyemu_warp_\w+|sub_group_\w+"
    r"|get_sub_group_\w+|get_num_sub_groups|get_max_sub_group_size|get_enqueued_num_sub_groups)\b")

VERSION = 3   # in the cache key: change it when the test changes

REASON = ("the unit uses warp collectives and the kernel has no block function: "
          "it runs on fibers")

# In a unit that uses them, run_block's call after thread 0 (kernel_entry.hpp)
# becomes the warp form, which runs the other threads as fibers (the
# preprocessed unit: the declarations of both, `(void)`, stay as they are).
CALL, WARP_CALL = "pyemu_first_thread_done()", "pyemu_first_thread_done_warp()"


def to_warp_form(text: str) -> str:
    """The preprocessed unit `text` with run_block's calls in the warp form."""
    return text.replace(CALL, WARP_CALL)


def uses_warps(pre: str, internal_root: str) -> bool:
    """True when a user file of the preprocessed unit `pre` names a warp
    collective; files under `internal_root` (pyemu's headers) do not count."""
    return user_code_names(pre, internal_root, _NAMES)


# atomics that build locks: a lane that holds one may be waited for by the
# next lane of its warp, spinning (see parse.py's warp steps)
LOCKS = re.compile(r"\b(?:atomicCAS|atomicExch|atomic_cmpxchg|atomic_xchg|atom_cmpxchg"
                   r"|atom_xchg|atomic_compare_exchange\w*|atomic_exchange\w*)\w*\s*\(")


def user_code_names(pre: str, internal_root: str, names: "re.Pattern") -> bool:
    """True when `names` matches in a user file of the preprocessed unit
    `pre` (not in files under `internal_root`, pyemu's headers)."""
    pos, user = 0, True
    for m in _MARKER.finditer(pre):
        if user and names.search(pre, pos, m.start()):
            return True
        name, flags = m.group(1), m.group(2).split()
        user = not (name.startswith(internal_root) or name.startswith("<") or "3" in flags)
        pos = m.end()
    return user and names.search(pre, pos) is not None
