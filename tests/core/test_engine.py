"""The command engine (csrc/engine.c) through the core API: user events,
completion callbacks, wait lists, local-memory kernel arguments."""
import threading
import time

import numpy as np
import pytest

from pyemu.runtime import core as _core
from pyemu.runtime.core import ffi, lib
from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy
from pyemu.cuda import cudaMemcpyDeviceToHost
from pyemu.cuda.runtime import default_queue


def _event():
    return ffi.new("pyemu_cmd **")


def test_user_event_gates_a_copy_and_callbacks_run_once():
    q = default_queue()
    user, ev = _event(), _event()
    assert lib.pyemu_user_event_create(user) == 0
    d = cudaMalloc(16)
    src = np.arange(4, dtype=np.int32)
    got = []
    done = threading.Event()
    assert lib.pyemu_enqueue_copy(q, ffi.cast("void *", int(d)), ffi.from_buffer(src), 16,
                                  user, 1, ev) == 0
    _core.on_complete(ev[0], lambda st: (got.append(st), done.set()))
    time.sleep(0.05)
    assert lib.pyemu_cmd_status(ev[0]) == lib.PYEMU_CMD_QUEUED     # still waiting for the user
    assert got == []
    assert lib.pyemu_user_event_set(user[0], 0) == 0
    assert done.wait(10)
    out = np.zeros(4, np.int32)
    cudaMemcpy(out, d, 16, cudaMemcpyDeviceToHost)
    assert out.tolist() == [0, 1, 2, 3] and got == [0]
    cudaFree(d)
    for e in (user, ev):
        lib.pyemu_cmd_release(e[0])


def test_user_event_failure_fails_what_waits_for_it():
    q = default_queue()
    user, marker = _event(), _event()
    lib.pyemu_user_event_create(user)
    lib.pyemu_enqueue_marker(q, 0, user, 1, marker)
    assert lib.pyemu_user_event_set(user[0], -5) == 0
    assert lib.pyemu_cmd_wait(marker[0], lib.PYEMU_WAIT_FOREVER) == lib.PYEMU_E_DEP_FAILED
    assert lib.pyemu_cmd_status(user[0]) == -5
    assert lib.pyemu_user_event_set(user[0], 0) == lib.PYEMU_E_NOT_READY   # set once only
    late = []
    _core.on_complete(user[0], late.append)                            # already failed: at once
    assert late == [-5]
    for e in (user, marker):
        lib.pyemu_cmd_release(e[0])


def test_user_event_set_to_positive_status_is_invalid():
    user = _event()
    lib.pyemu_user_event_create(user)
    assert lib.pyemu_user_event_set(user[0], 1) == lib.PYEMU_E_INVALID_VALUE
    assert lib.pyemu_user_event_set(user[0], 0) == 0
    lib.pyemu_cmd_release(user[0])


def test_local_pointer_arguments_get_per_block_memory():
    m = SourceModule(r"""
__global__ void k(int *out, int *a, int *b) {
    a[threadIdx.x] = 2 * threadIdx.x; b[threadIdx.x] = 1;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] =
        a[blockDim.x - 1 - threadIdx.x] + b[threadIdx.x] + (int)((char *)b - (char *)a);
}""")
    out = cudaMalloc(4 * 64 * 3)
    data = m.k.pack((out, 0, 0))
    local = ffi.new("unsigned int[]", [8, 64 * 4, 16, 64 * 4])   # (offset, bytes) pairs
    launch = ffi.new("pyemu_launch *", {"module": m.handle, "kernel": 0, "grid": [3, 1, 1],
                                        "block": [64, 1, 1], "work_dim": 3,
                                        "smem_limit": 49152, "local_args": local, "num_local": 2})
    assert lib.pyemu_enqueue_kernel(default_queue(), launch, data, len(data),
                                    ffi.NULL, 0, ffi.NULL) == 0
    cudaDeviceSynchronize()
    h = np.zeros(64 * 3, np.int32)
    cudaMemcpy(h, out, h.nbytes, cudaMemcpyDeviceToHost)
    t = np.tile(np.arange(64), 3)
    assert np.array_equal(h, 2 * (63 - t) + 1 + 256)
    cudaFree(out)


@pytest.mark.parametrize("local,why", [([4, 16], "not a pointer slot"),
                                       ([8, 0], "size 0"),
                                       ([8, 60000], "over the limit")])
def test_local_pointer_arguments_checked(local, why):
    m = SourceModule("__global__ void k(int *out, int *a) { }")
    data = m.k.pack((0, 0))
    arr = ffi.new("unsigned int[]", local)
    launch = ffi.new("pyemu_launch *", {"module": m.handle, "kernel": 0, "grid": [1, 1, 1],
                                        "block": [1, 1, 1], "work_dim": 3, "smem_limit": 49152,
                                        "local_args": arr, "num_local": 1})
    st = lib.pyemu_enqueue_kernel(default_queue(), launch, data, len(data), ffi.NULL, 0, ffi.NULL)
    assert st in (lib.PYEMU_E_INVALID_VALUE, lib.PYEMU_E_SMEM_TOO_LARGE), why
    assert st == (lib.PYEMU_E_SMEM_TOO_LARGE if why == "over the limit" else lib.PYEMU_E_INVALID_VALUE)


def test_enqueue_checks_that_pointer_arguments_are_device_memory():
    """The core refuses a pointer argument outside device memory (a host
    address would fault far from its cause); null is allowed."""
    import struct as _struct
    m = SourceModule("__global__ void k(int *out, int n) { if (out) out[0] = n; }")
    launch = ffi.new("pyemu_launch *", {"module": m.handle, "kernel": 0, "grid": [1, 1, 1],
                                        "block": [1, 1, 1], "work_dim": 3})
    host = np.zeros(4, np.int32)
    for addr, want in ((host.ctypes.data, lib.PYEMU_E_BAD_POINTER), (0x1000, lib.PYEMU_E_BAD_POINTER),
                       (0, 0)):
        data = _struct.pack("<Qi4x", addr, 5)
        st = lib.pyemu_enqueue_kernel(default_queue(), launch, data, len(data), ffi.NULL, 0,
                                      ffi.NULL)
        assert st == want, hex(addr)
        if st:
            assert "is not device memory" in ffi.string(lib.pyemu_last_error()).decode()
    cudaDeviceSynchronize()
    assert not host.any()


def test_launch_flags_are_a_field_and_work_dim_only_a_dimension_count():
    """PYEMU_LAUNCH_COOPERATIVE is pyemu_launch.flags (cudaLaunchCooperativeKernel):
    a work_dim over 3 (as the flag or'ed into it once was) and unknown flag
    bits are refused; a cooperative description runs this_grid().sync()."""
    m = SourceModule(r"""
    #include <cooperative_groups.h>
    __global__ void k(int *out) {
        cooperative_groups::this_grid().sync();
        if (threadIdx.x == 0) atomicAdd(out, 1);
    }""")
    d = cudaMalloc(4)
    data = m.k.pack((d,))

    def launch(**fields):
        desc = {"module": m.handle, "kernel": 0, "grid": [2, 1, 1], "block": [4, 1, 1],
                "work_dim": 3}
        desc.update(fields)
        return lib.pyemu_enqueue_kernel(default_queue(), ffi.new("pyemu_launch *", desc), data,
                                        len(data), ffi.NULL, 0, ffi.NULL)

    assert launch(work_dim=3 | 256) == lib.PYEMU_E_INVALID_VALUE
    assert "work_dim 259" in ffi.string(lib.pyemu_last_error()).decode()
    assert launch(flags=2) == lib.PYEMU_E_INVALID_VALUE
    assert launch(flags=lib.PYEMU_LAUNCH_COOPERATIVE) == 0
    cudaDeviceSynchronize()
    out = np.zeros(1, np.int32)
    cudaMemcpy(out, d, 4, cudaMemcpyDeviceToHost)
    assert out[0] == 2
    cudaFree(d)


def _find(addr):
    start, size = ffi.new("unsigned long long *"), ffi.new("unsigned long long *")
    return lib.pyemu_mem_find(addr, start, size)


def test_the_allocation_table_refuses_a_pointer_whose_queued_free_has_not_run():
    """cudaFreeAsync's queued state is the core's (memory.c): until the free
    command runs, a second pyemu_enqueue_free, a plain pyemu_mem_free and a
    look-up of any address inside the allocation are refused; then it is
    freed; other allocations are not affected."""
    q = default_queue()
    user, gate, free, again = _event(), _event(), _event(), _event()
    assert lib.pyemu_user_event_create(user) == 0
    d, other = cudaMalloc(4096), cudaMalloc(4096)
    addr = int(d)
    assert lib.pyemu_enqueue_marker(q, 0, user, 1, gate) == 0          # holds the free back
    assert lib.pyemu_enqueue_free(q, addr, 0, ffi.NULL, 0, free) == 0
    assert lib.pyemu_cmd_status(free[0]) == lib.PYEMU_CMD_QUEUED
    assert lib.pyemu_enqueue_free(q, addr, 0, ffi.NULL, 0, again) == lib.PYEMU_E_INVALID_VALUE
    assert "still queued" in _core.last_error()
    assert lib.pyemu_mem_free(addr, b"cudaFree") == lib.PYEMU_E_INVALID_VALUE
    assert "still queued" in _core.last_error()
    assert _find(addr + 100) == lib.PYEMU_E_INVALID_VALUE
    assert "cudaFreeAsync still queued" in _core.last_error()
    assert lib.pyemu_mem_queued(addr + 100) == 1 and lib.pyemu_mem_queued(int(other)) == 0
    assert _find(int(other)) == 0
    assert lib.pyemu_user_event_set(user[0], 0) == 0
    assert lib.pyemu_cmd_wait(free[0], lib.PYEMU_WAIT_FOREVER) == 0
    assert lib.pyemu_mem_queued(addr) == 0
    assert _find(addr) == lib.PYEMU_E_INVALID_VALUE                    # freed now
    assert lib.pyemu_enqueue_free(q, addr, 0, ffi.NULL, 0, again) == lib.PYEMU_E_INVALID_VALUE
    assert "not the start of a device allocation" in _core.last_error()
    cudaFree(other)
    for e in (user, gate, free):
        lib.pyemu_cmd_release(e[0])


def test_a_queued_free_that_does_not_run_gives_the_allocation_back():
    """A free command that completes without running (what it waits for
    failed) leaves the allocation its owner's: usable, and freed by cudaFree."""
    q = default_queue()
    user, free = _event(), _event()
    lib.pyemu_user_event_create(user)
    d = cudaMalloc(64)
    addr = int(d)
    assert lib.pyemu_enqueue_free(q, addr, 0, user, 1, free) == 0
    assert lib.pyemu_mem_queued(addr) == 1
    assert lib.pyemu_user_event_set(user[0], -5) == 0
    assert lib.pyemu_cmd_wait(free[0], lib.PYEMU_WAIT_FOREVER) == lib.PYEMU_E_DEP_FAILED
    assert lib.pyemu_mem_queued(addr) == 0 and _find(addr) == 0
    src = np.arange(16, dtype=np.int32)
    from pyemu.cuda import cudaMemcpyHostToDevice
    cudaMemcpy(d, src, 64, cudaMemcpyHostToDevice)
    out = np.zeros(16, np.int32)
    cudaMemcpy(out, d, 64, cudaMemcpyDeviceToHost)
    assert out.tolist() == src.tolist()
    cudaFree(d)
    assert _find(addr) == lib.PYEMU_E_INVALID_VALUE
    for e in (user, free):
        lib.pyemu_cmd_release(e[0])
