"""Occupancy and cooperative launches: cudaOccupancyMaxActiveBlocksPerMultiprocessor,
cudaOccupancyMaxPotentialBlockSize, cudaLaunchCooperativeKernel.

Occupancy follows the H100 the device reports (cudaGetDeviceProperties):
at most 32 resident blocks and 2048 resident threads (whole warps of 32)
a multiprocessor, and 228 KiB of shared memory a multiprocessor of which
each block also takes 1 KiB for the system.  pyemu's workers are the
multiprocessors (PYEMU_NUM_THREADS).

A cooperative launch keeps every block of its grid resident at once, so
that cooperative_groups::this_grid().sync() is a barrier of the whole grid:
the core hosts several blocks a worker as fiber groups and switches
between them at the grid barrier (csrc/grid.c).  grid.sync() in a kernel
launched the ordinary way fails the launch with cudaErrorLaunchFailure (an
H100 runs it while the blocks happen to be resident, and hangs when not)."""
from __future__ import annotations

import operator

from . import _errors as E
from ._types import as_dim3
from .module import Function, _check_kernel, _Launch
from ..runtime.core import lib

MAX_BLOCKS_PER_SM = 32
MAX_THREADS_PER_SM = 2048
SHARED_PER_SM = 233472
RESERVED_SHARED_PER_BLOCK = 1024
WARP = 32


def _int(value, what, call) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {type(value).__name__}", call)
    return v


def _active_blocks(func: Function, block_size: int, dynamic_smem: int, call) -> int:
    if block_size <= 0:
        E.fail(E.cudaErrorInvalidValue, f"blockSize must be positive, not {block_size}", call)
    if dynamic_smem < 0:
        E.fail(E.cudaErrorInvalidValue, f"dynamicSMemSize must not be negative ({dynamic_smem})",
               call)
    if block_size > func.max_threads or dynamic_smem > func.max_dynamic_shared:
        return 0
    warps = -(-block_size // WARP)
    by_threads = MAX_THREADS_PER_SM // (warps * WARP)
    by_smem = SHARED_PER_SM // (dynamic_smem + RESERVED_SHARED_PER_BLOCK)
    return max(0, min(MAX_BLOCKS_PER_SM, by_threads, by_smem))


def cudaOccupancyMaxActiveBlocksPerMultiprocessor(func, blockSize, dynamicSMemSize=0) -> int:
    """cudaOccupancyMaxActiveBlocksPerMultiprocessor(func, blockSize, dynamicSMemSize):
    numBlocks, the blocks of blockSize threads that fit on one multiprocessor
    (returned; C writes it through its first argument).  The kernel's static
    __shared__ memory is not counted (pyemu does not measure it)."""
    call = "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
    _check_kernel(func, call)
    return _active_blocks(func, _int(blockSize, "blockSize", call),
                          _int(dynamicSMemSize, "dynamicSMemSize", call), call)


def cudaOccupancyMaxPotentialBlockSize(func, dynamicSMemSize=0, blockSizeLimit=0):
    """cudaOccupancyMaxPotentialBlockSize(func, dynamicSMemSize=0, blockSizeLimit=0):
    (minGridSize, blockSize), the block size (a multiple of 32 up to the
    kernel's limit and blockSizeLimit, 0 = none) that keeps the most threads
    resident, the larger one on a tie, and the grid that fills every
    multiprocessor with it (the C++ template's outputs, returned)."""
    call = "cudaOccupancyMaxPotentialBlockSize"
    _check_kernel(func, call)
    smem = _int(dynamicSMemSize, "dynamicSMemSize", call)
    limit = _int(blockSizeLimit, "blockSizeLimit", call)
    if limit < 0:
        E.fail(E.cudaErrorInvalidValue, f"blockSizeLimit must not be negative ({limit})", call)
    top = min(func.max_threads, limit) if limit else func.max_threads
    best = (0, 0)   # (resident threads, block size)
    for size in range(WARP, top + 1, WARP):
        best = max(best, (_active_blocks(func, size, smem, call) * size, size))
    if best[1] == 0 and top > 0:            # a limit under one warp
        best = (_active_blocks(func, top, smem, call) * top, top)
    block = best[1]
    blocks = _active_blocks(func, block, smem, call) if block else 0
    return blocks * lib.pyemu_num_workers(), block


def cudaLaunchCooperativeKernel(func, gridDim, blockDim, args=(), sharedMem=0, stream=0):
    """cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem=0, stream=0):
    cudaLaunchKernel for a grid whose blocks must all be resident at once:
    more blocks than cudaOccupancyMaxActiveBlocksPerMultiprocessor times the
    multiprocessors fail with cudaErrorCooperativeLaunchTooLarge.  The
    kernel may call cooperative_groups::this_grid().sync()."""
    call = "cudaLaunchCooperativeKernel"
    _check_kernel(func, call)
    try:
        g, b = as_dim3(gridDim), as_dim3(blockDim)
    except (TypeError, ValueError) as e:
        E.fail(E.cudaErrorInvalidValue, str(e), call)
    threads = b[0] * b[1] * b[2]
    blocks = g[0] * g[1] * g[2]
    if threads > 0 and blocks > 0:
        per_sm = _active_blocks(func, threads, _int(sharedMem, "sharedMem", call), call)
        fit = per_sm * lib.pyemu_num_workers()
        if blocks > fit:
            E.fail(E.cudaErrorCooperativeLaunchTooLarge,
                   f"{blocks} blocks of {threads} threads cannot all be resident: at most {fit} "
                   f"({per_sm} a multiprocessor, {lib.pyemu_num_workers()} multiprocessors)", call)
    if args is None:
        args = ()
    try:
        args = tuple(args)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"args is {type(args).__name__}, not a sequence of the "
               "kernel's arguments", call)
    if isinstance(stream, int) and stream == 0:
        stream = None
    launch = _Launch(func, gridDim, blockDim, sharedMem, stream)
    launch.desc.flags = lib.PYEMU_LAUNCH_COOPERATIVE   # csrc/grid.c
    return launch(*args)


__all__ = ["cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxPotentialBlockSize",
           "cudaLaunchCooperativeKernel"]
