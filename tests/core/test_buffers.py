"""Reference-counted buffers (csrc/buffer.c), host view counts (memory.c) and
the rectangular copy and fill commands (engine.c), through the core API."""
import numpy as np
import pytest

from pyemu.cuda import cudaDeviceSynchronize
from pyemu.cuda.runtime import default_queue
from pyemu.runtime.core import ffi, lib


def _buffer(size=4096):
    b = ffi.new("pyemu_buffer **")
    a = ffi.new("unsigned long long *")
    assert lib.pyemu_buffer_alloc(size, b, a) == 0
    return b[0], a[0]


def _live(addr) -> bool:
    s = ffi.new("unsigned long long *")
    n = ffi.new("unsigned long long *")
    return lib.pyemu_mem_find(addr, s, n) == 0


def test_a_command_holds_its_buffers_until_it_completes():
    """The owner's release does not free memory a queued command uses; the
    completion does, and the allocation count the core reports says so."""
    q = default_queue()
    buf, addr = _buffer()
    user, ev = ffi.new("pyemu_cmd **"), ffi.new("pyemu_cmd **")
    assert lib.pyemu_user_event_create(user) == 0
    src = np.arange(1024, dtype=np.int32)
    assert lib.pyemu_enqueue_copy(q, ffi.cast("void *", addr), ffi.from_buffer(src), 4096,
                                  user, 1, ev) == 0
    bufs = ffi.new("pyemu_buffer *[]", [buf, buf])   # named twice: two references
    assert lib.pyemu_cmd_use_buffers(ev[0], bufs, 2) == 0
    assert lib.pyemu_buffer_refs(buf) == 3
    live = lib.pyemu_mem_live()
    assert lib.pyemu_buffer_release(buf, b"clReleaseMemObject") == 0
    assert lib.pyemu_mem_live() == live and _live(addr)
    assert lib.pyemu_user_event_set(user[0], 0) == 0
    assert lib.pyemu_cmd_wait(ev[0], lib.PYEMU_WAIT_FOREVER) == 0
    assert lib.pyemu_mem_live() == live - 1 and not _live(addr)
    # a complete command takes no more references
    other, oaddr = _buffer()
    assert lib.pyemu_cmd_use_buffers(ev[0], ffi.new("pyemu_buffer *[]", [other]), 1) == 0
    assert lib.pyemu_buffer_refs(other) == 1
    assert lib.pyemu_buffer_release(other, ffi.NULL) == 0
    assert not _live(oaddr)
    for e in (user, ev):
        lib.pyemu_cmd_release(e[0])


def test_buffer_calls_refuse_what_is_not_a_buffer():
    assert lib.pyemu_buffer_retain(ffi.NULL) == lib.PYEMU_E_INVALID_HANDLE
    assert lib.pyemu_buffer_release(ffi.NULL, ffi.NULL) == lib.PYEMU_E_INVALID_HANDLE
    assert lib.pyemu_buffer_refs(ffi.NULL) == -lib.PYEMU_E_INVALID_HANDLE
    b = ffi.new("pyemu_buffer **")
    a = ffi.new("unsigned long long *")
    assert lib.pyemu_buffer_alloc(0, b, a) == lib.PYEMU_E_INVALID_VALUE
    assert lib.pyemu_buffer_wrap(12345, b) == lib.PYEMU_E_INVALID_VALUE
    ev = ffi.new("pyemu_cmd **")
    assert lib.pyemu_user_event_create(ev) == 0
    assert lib.pyemu_cmd_use_buffers(ev[0], ffi.new("pyemu_buffer *[]", [ffi.NULL]), 1) == \
        lib.PYEMU_E_INVALID_HANDLE
    lib.pyemu_user_event_set(ev[0], 0)
    lib.pyemu_cmd_release(ev[0])


def test_retained_buffer_lives_until_the_last_release():
    buf, addr = _buffer()
    assert lib.pyemu_buffer_retain(buf) == 0          # a sub-buffer's reference
    assert lib.pyemu_buffer_release(buf, b"clReleaseMemObject") == 0
    assert _live(addr)
    assert lib.pyemu_buffer_release(buf, ffi.NULL) == 0
    assert not _live(addr)


def test_a_view_keeps_freed_pages_mapped_until_it_goes():
    buf, addr = _buffer()
    ffi.cast("int *", addr)[5] = 42
    assert lib.pyemu_mem_view(addr, 1) == 0
    assert lib.pyemu_buffer_release(buf, b"clReleaseMemObject") == 0
    assert not _live(addr)                             # no longer an allocation ...
    assert ffi.cast("int *", addr)[5] == 0             # ... but readable: zeros
    assert lib.pyemu_mem_view(addr, -1) == 0           # the last view: unmapped now
    assert lib.pyemu_mem_view(addr, -1) == lib.PYEMU_E_INVALID_VALUE


def test_a_buffer_made_before_a_reset_frees_nothing_after_it():
    from pyemu.cuda import cudaDeviceReset
    old, _ = _buffer()
    cudaDeviceReset()
    new, naddr = _buffer()
    live = lib.pyemu_mem_live()
    assert lib.pyemu_buffer_release(old, b"clReleaseMemObject") == 0
    assert lib.pyemu_mem_live() == live and _live(naddr)
    assert lib.pyemu_buffer_release(new, ffi.NULL) == 0


# ---- rectangles ----

def test_copy_rect_and_fill_rect_against_numpy():
    q = default_queue()
    src = np.arange(6 * 9 * 11, dtype=np.uint8).reshape(6, 9, 11)
    dst = np.full((5, 8, 13), 0xEE, np.uint8)
    ev = ffi.new("pyemu_cmd **")
    s = ffi.cast("char *", ffi.from_buffer(src)) + (1 * 99 + 2 * 11 + 3)
    d = ffi.cast("char *", ffi.from_buffer(dst)) + (2 * 104 + 1 * 13 + 4)
    assert lib.pyemu_enqueue_copy_rect(q, d, 13, 104, s, 11, 99, 7, 6, 3, ffi.NULL, 0, ev) == 0
    assert lib.pyemu_cmd_wait(ev[0], lib.PYEMU_WAIT_FOREVER) == 0
    lib.pyemu_cmd_release(ev[0])
    want = np.full((5, 8, 13), 0xEE, np.uint8)
    want[2:5, 1:7, 4:11] = src[1:4, 2:8, 3:10]
    np.testing.assert_array_equal(dst, want)
    pat = np.array([1, 2, 3, 4], np.uint8)
    f = np.zeros((4, 10), np.uint8)
    assert lib.pyemu_enqueue_fill_rect(q, ffi.cast("char *", ffi.from_buffer(f)) + 12, 10, 0,
                                       ffi.from_buffer(pat), 4, 8, 3, 1, ffi.NULL, 0, ev) == 0
    assert lib.pyemu_cmd_wait(ev[0], lib.PYEMU_WAIT_FOREVER) == 0
    lib.pyemu_cmd_release(ev[0])
    want = np.zeros((4, 10), np.uint8)
    want[1:4, 2:10] = np.tile(pat, 2)
    np.testing.assert_array_equal(f, want)
    cudaDeviceSynchronize()


@pytest.mark.parametrize("args", [
    (8, 0, 8, 0, 16, 2, 1),          # destination row pitch < width, two rows
    (16, 16, 16, 32, 16, 2, 2),      # destination slice pitch < 2 rows of 16
    (16, 32, 8, 16, 16, 2, 2),       # source row pitch < width
    (1 << 62, 0, 16, 0, 16, 5, 1),   # a rectangle larger than the address space
])
def test_copy_rect_refuses_bad_pitches(args):
    q = default_queue()
    buf = np.zeros(64, np.uint8)
    p = ffi.cast("char *", ffi.from_buffer(buf))
    drow, dslc, srow, sslc, w, h, d = args
    ev = ffi.new("pyemu_cmd **")
    assert lib.pyemu_enqueue_copy_rect(q, p, drow, dslc, p, srow, sslc, w, h, d,
                                       ffi.NULL, 0, ev) == lib.PYEMU_E_INVALID_VALUE
    assert lib.pyemu_enqueue_fill_rect(q, p, 16, 0, ffi.from_buffer(buf), 3, 16, 1, 1,
                                       ffi.NULL, 0, ev) == lib.PYEMU_E_INVALID_VALUE
