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

The front end (frontend/parse.py) decides it from the syntax tree: user
code (a user file, not pyemu's headers) that calls or names a function
is_collective() accepts, uses cooperative groups for more than the block
(anything of the namespace but thread_block, this_thread_block() and the
block's sync, whose calls become __syncthreads(); or, in a unit that names
the namespace, a call whose callee clang leaves open and may find one of
theirs: a template's dependent g.sync() on a template parameter, f(x) where
the namespace declares an f), or gets implicit warp steps
(pyemu_warp_step(), after stores through volatile lvalues) sets
Model.uses_warps; one that calls an atomic takes_lock() accepts sets
Model.takes_locks.  Cooperative groups then decide per kernel
(parse.cg_reasons, Function.cg): a kernel that reaches such a use, itself or
through what it calls, runs on fibers with that reason; one whose use is the
block's alone takes block functions (cuda-samples' reduction: reduce0-3 next
to reduce4+'s tiles).
"""
from __future__ import annotations

VERSION = 7   # in the cache key: change it when the test changes

REASON = ("the unit uses warp collectives and the kernel has no block function: "
          "it runs on fibers")

# the warp collectives and the queries of warps and sub-groups, as whole names
_EXACT = {"__ballot_sync", "__any_sync", "__all_sync", "__uni_sync", "__activemask",
          "__match_any_sync", "__match_all_sync", "__syncwarp"}
# names that start so and go on (`pyemu_warp_` alone is none); __shfl* and __reduce_*_sync
_PREFIXES = ("pyemu_warp_", "sub_group_", "get_sub_group_")
# the sub-group queries: functions of the work-group size and the local id,
# no collective (detail/cl_subgroup.h writes them as macros of the indices,
# so they reach the preprocessed unit only where a user #undef's them)
_QUERIES = {"get_sub_group_local_id", "get_sub_group_id", "get_num_sub_groups",
            "get_enqueued_num_sub_groups", "get_max_sub_group_size", "get_sub_group_size"}
COOPERATIVE = "cooperative_groups"    # the namespace: naming it counts

# atomics that build locks: a lane that holds one may be waited for by the
# next lane of its warp, spinning (see parse.py's warp steps); any name that
# starts so (atomicCAS_block, atomic_exchange_explicit, ...)
_LOCKS = ("atomicCAS", "atomicExch", "atomic_cmpxchg", "atomic_xchg", "atom_cmpxchg",
          "atom_xchg", "atomic_compare_exchange", "atomic_exchange")

# In a unit that uses them, run_block's call after thread 0 (kernel_entry.hpp)
# becomes the warp form, which runs the other threads as fibers (the
# preprocessed unit: the declarations of both, `(void)`, stay as they are).
CALL, WARP_CALL = "pyemu_first_thread_done()", "pyemu_first_thread_done_warp()"


def is_collective(name: str) -> bool:
    """True for the name of a warp collective (not a sub-group query)."""
    if name in _QUERIES:
        return False
    if name in _EXACT or name.startswith("__shfl"):
        return True
    if name.startswith("__reduce_") and name.endswith("_sync") and len(name) > 14:
        return True
    return any(name.startswith(p) and len(name) > len(p) for p in _PREFIXES)


def takes_lock(name: str) -> bool:
    """True for an atomic that code takes locks with (atomicCAS, atomic_xchg, ...)."""
    return name.startswith(_LOCKS)


def to_warp_form(text: str) -> str:
    """The preprocessed unit `text` with run_block's calls in the warp form."""
    return text.replace(CALL, WARP_CALL)
