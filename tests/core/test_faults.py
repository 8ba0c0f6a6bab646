"""What the fault handler recovers, and what it leaves alone (csrc/fault.c).

A fault of kernel code fails the launch; anything else is a crash of the host
program, as it would be without pyemu: abort() in a kernel, a fault in a
copy, a signal sent to the process.  Device printf and device malloc keep
working after faults (per-worker buffers and arenas, no lock a jump can
leave held), writing past the end of a block's dynamic shared memory faults
and says so, and two barriers written on one line are two barriers.

Every case that may crash or hang runs in a fresh interpreter with a time
limit (fixture run_cuda, tests/conftest.py).
"""
import signal

import pytest

# ------------------------------------------------------------------ kernels

SOURCE = r"""
#define SYNC_EITHER(c) if (c) { __syncthreads(); } else { __syncthreads(); }
__global__ void two_on_one_line(int *o) {
    SYNC_EITHER(threadIdx.x < 2)
    o[threadIdx.x] = 1;
}
__global__ void call_abort(int bx) { if (blockIdx.x == bx) abort(); }
__global__ void assert_in(int bx, int tx) {
    assert(!(blockIdx.x == bx && threadIdx.x == tx));
}
__global__ void trap_in(int bx) { if (blockIdx.x == bx) __trap(); }
__global__ void print_then_fault(int *bad, int who) {
    printf("before %d.%d\n", blockIdx.x, threadIdx.x);
    if (blockIdx.x * blockDim.x + threadIdx.x == who) *(volatile int *)bad = 1;
}
__global__ void print_line(int i) { printf("L%d.%d\n", i, threadIdx.x); }
__global__ void print_bad_string(long long s) { printf("[%s]\n", (const char *)s); }
__global__ void smem_past_end(int n, int past) {
    extern __shared__ int dyn[];
    if (threadIdx.x == 0) ((volatile int *)dyn)[n + past] = 1;
}
__global__ void smem_inside(int n, int *o) {
    extern __shared__ int dyn[];
    dyn[threadIdx.x] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = dyn[n - 1 - threadIdx.x];
}
__global__ void alloc_many(unsigned long long *ptrs, int bytes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(bytes);
    if (p) { p[0] = i; p[bytes / 4 - 1] = i; }
    ptrs[i] = (unsigned long long)p;
}
__global__ void free_many(unsigned long long *ptrs, int *ok, int bytes) {
    /* blocks in the other order, so other workers free what one allocated */
    int i = (gridDim.x - 1 - blockIdx.x) * blockDim.x + threadIdx.x;
    int *p = (int *)ptrs[i];
    ok[i] = p && p[0] == i && p[bytes / 4 - 1] == i;
    free(p);
}
__global__ void alloc_big(unsigned long long bytes, int *got) {
    void *p = malloc(bytes);
    got[0] = p != 0;
    free(p);
}
__global__ void corrupt_then_free(void) {
    int *p = (int *)malloc(64);
    p[-4] = 0x12345678;        /* the block's header, just before it */
    free(p);
}
__global__ void count_one(int pred, int *o) {
    o[0] = __syncthreads_count(pred);
    o[1] = __syncthreads_and(pred);
    o[2] = __syncthreads_or(pred);
}
"""

# run LAUNCH, synchronise, record the error, reset, and check the device works
FAULT_SCRIPT = r"""
m = SourceModule(SOURCE)
LAUNCH
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"] = int(e.code)
    R["message"] = str(e)
cudaDeviceReset()
m.print_line[1, 2](-1)
cudaDeviceSynchronize()
R["alive"] = True
"""


def fault(run_cuda, launch, env=None):
    run = run_cuda(FAULT_SCRIPT.replace("LAUNCH", launch), consts={"SOURCE": SOURCE},
                   env=env, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R.get("alive") is True, run.explain()
    return run


# --------------------------------------------- 1. what is recovered, what is not

def test_abort_in_a_kernel_ends_the_process(run_cuda):
    """abort() is not a device fault: the process ends with SIGABRT, as abort()
    in host code would end it (a caught SIGABRT would run on with whatever
    glibc found broken)."""
    run = run_cuda("""
m = SourceModule(SOURCE)
m.call_abort[4, 2](1)
cudaDeviceSynchronize()
print("SURVIVED")
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == -signal.SIGABRT, run.explain()
    assert "SURVIVED" not in run.stdout


def test_device_assert_is_cudaErrorAssert_with_where(run_cuda):
    run = fault(run_cuda, "m.assert_in[3, 8](1, 5)")
    assert run.R["code"] == 710, run.explain()
    msg = run.R["message"]
    assert "kernel 'assert_in'" in msg and "block (1,0,0), thread (5,0,0)" in msg, msg
    assert "!(blockIdx.x == bx && threadIdx.x == tx)" in msg, msg
    line = next(i for i, t in enumerate(SOURCE.splitlines(), 1) if "assert(" in t)
    assert f"kernel.cu:{line} in assert_in" in msg, msg
    assert "Assertion" in run.out_before_result


def test_trap_is_cudaErrorLaunchFailure(run_cuda):
    run = fault(run_cuda, "m.trap_in[4, 2](3)")
    assert run.R["code"] == 719, run.explain()
    assert "__trap()" in run.R["message"] and "block (3,0,0)" in run.R["message"]


def test_a_fault_in_a_copy_is_not_a_device_error(run_cuda):
    """A copy whose host side is bad is a crash of the host program (pyemu's
    copies check their ranges first, so only a bug gets here), not a sticky
    device error: the handler sends it on to the default action."""
    run = run_cuda("""
from pyemu.runtime.core import ffi, lib
d = cudaMalloc(1 << 20)
q = ffi.new("pyemu_queue **")
assert lib.pyemu_queue_create(0, q) == 0
rc = lib.pyemu_enqueue_copy(q[0], ffi.cast("void *", int(d)), ffi.cast("void *", 4096), 1 << 16,
                            ffi.NULL, 0, ffi.NULL)
lib.pyemu_queue_finish(q[0])
print("SURVIVED", rc, code_of(cudaDeviceSynchronize))
""", timeout=120)
    assert run.returncode == -signal.SIGSEGV, run.explain()
    assert "SURVIVED" not in run.stdout


# ----------------------------------------------------- 4. installed once, chained

CHAIN_SCRIPT = r"""
import ctypes, signal
libc = ctypes.CDLL(None)
class SA(ctypes.Structure):
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]
def current():
    sa = SA()
    assert libc.sigaction(signal.SIGSEGV, None, ctypes.byref(sa)) == 0
    return sa.handler
BODY
"""


def test_installed_once_never_put_back_in_front(run_cuda):
    """A handler installed after pyemu's stays first, however many launches
    follow (pyemu used to put itself back in front every 50 ms)."""
    body = """
m = SourceModule(SOURCE)
m.print_line[1, 1](-1)
cudaDeviceSynchronize()
got = []
signal.signal(signal.SIGSEGV, lambda s, f: got.append(s))
theirs = current()
t = time.time()
while time.time() - t < 0.3:
    m.print_line[1, 1](-1)
    cudaDeviceSynchronize()
R["still_theirs"] = current() == theirs
os.kill(os.getpid(), signal.SIGSEGV)
time.sleep(0.05)
R["got"] = got
"""
    run = run_cuda(CHAIN_SCRIPT.replace("BODY", body), consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["still_theirs"] is True, run.R
    assert run.R["got"] == [int(signal.SIGSEGV)], run.R


def test_a_signal_not_ours_reaches_the_handler_before_ours(run_cuda):
    """Installed before pyemu: a SIGSEGV sent to the process is chained to it."""
    body = """
got = []
signal.signal(signal.SIGSEGV, lambda s, f: got.append(s))
m = SourceModule(SOURCE)
m.print_line[1, 1](-1)
cudaDeviceSynchronize()
R["ours_first"] = current() != 0
os.kill(os.getpid(), signal.SIGSEGV)
time.sleep(0.05)
R["got"] = got
"""
    run = run_cuda(CHAIN_SCRIPT.replace("BODY", body), consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["got"] == [int(signal.SIGSEGV)], run.R


def test_an_ignored_signal_stays_ignored_and_default_still_kills(run_cuda):
    ignored = run_cuda(CHAIN_SCRIPT.replace("BODY", """
signal.signal(signal.SIGSEGV, signal.SIG_IGN)
m = SourceModule(SOURCE)
m.print_line[1, 1](-1)
cudaDeviceSynchronize()
os.kill(os.getpid(), signal.SIGSEGV)
R["survived"] = True
"""), consts={"SOURCE": SOURCE}, timeout=120)
    assert ignored.returncode == 0 and ignored.R["survived"] is True, ignored.explain()
    default = run_cuda(CHAIN_SCRIPT.replace("BODY", """
m = SourceModule(SOURCE)
m.print_line[1, 1](-1)
cudaDeviceSynchronize()
os.kill(os.getpid(), signal.SIGSEGV)
time.sleep(1)
print("SURVIVED")
"""), consts={"SOURCE": SOURCE}, timeout=120)
    assert default.returncode == -signal.SIGSEGV, default.explain()
    assert "SURVIVED" not in default.stdout


# ----------------------------------------------- 2. printf and malloc after faults

def test_printf_survives_faults_then_thousands_of_launches(run_cuda):
    """Many threads print, one faults; repeated on every worker; then 3000
    launches print: nothing hangs and every line of the good launches is there."""
    run = run_cuda("""
m = SourceModule(SOURCE)
for rep in range(20):
    m.print_then_fault[8, 64](0, (rep * 37) % 512)
    R.setdefault("codes", []).append(code_of(cudaDeviceSynchronize))
    cudaDeviceReset()
sys.stdout.flush()
print("GOOD-START")
for i in range(3000):
    m.print_line[1, 2](i)
cudaDeviceSynchronize()
print("GOOD-END")
""", consts={"SOURCE": SOURCE}, env={"PYEMU_NUM_THREADS": "4"}, timeout=240)
    assert run.returncode == 0, run.explain()
    assert run.R["codes"] == [700] * 20, run.R
    good = run.stdout.split("GOOD-START\n", 1)[1].split("GOOD-END", 1)[0].splitlines()
    expected = {f"L{i}.{t}" for i in range(3000) for t in range(2)}
    assert len(good) == len(expected) and set(good) == expected, good[:10]


def test_printf_of_a_bad_string_pointer_fails_the_launch_only(run_cuda):
    run = fault(run_cuda, "m.print_bad_string[1, 1](16)")
    assert run.R["code"] == 700, run.explain()
    assert "kernel 'print_bad_string'" in run.R["message"]


def test_device_malloc_freed_by_other_workers_and_reused(run_cuda):
    """Blocks freed by another worker than the one that allocated them go
    back to their owner's arena: 8 rounds of 2048 x 1 KiB fit in the default
    8 MiB heap only if freed memory is reused."""
    run = run_cuda("""
m = SourceModule(SOURCE)
n = 2048
ptrs = cudaMallocManaged(8 * n, dtype=np.uint64)
ok = cudaMallocManaged(4 * n, dtype=np.int32)
for rnd in range(8):
    m.alloc_many[n // 64, 64](ptrs, 1024)
    cudaDeviceSynchronize()
    R.setdefault("nonnull", []).append(int((ptrs != 0).sum()))
    m.free_many[n // 64, 64](ptrs, ok, 1024)
    cudaDeviceSynchronize()
    R.setdefault("ok", []).append(int(ok.sum()))
""", consts={"SOURCE": SOURCE}, env={"PYEMU_NUM_THREADS": "4"}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["nonnull"] == [2048] * 8 and run.R["ok"] == [2048] * 8, run.R


def test_device_malloc_honours_the_heap_size(run_cuda):
    """cudaLimitMallocHeapSize: 8 MiB by default; more is NULL, as on a GPU.
    The size can be set before the first kernel that allocates, not after."""
    run = run_cuda("""
from pyemu.runtime.core import lib
R["default"] = int(lib.pyemu_heap_size())
R["set"] = lib.pyemu_heap_set_size(32 << 20)
m = SourceModule(SOURCE)
got = cudaMallocManaged(4, dtype=np.int32)
for size in (1 << 20, 20 << 20, 40 << 20):
    m.alloc_big[1, 1](size, got)
    cudaDeviceSynchronize()
    R.setdefault("got", []).append(int(got[0]))
R["set_late"] = lib.pyemu_heap_set_size(64 << 20)
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["default"] == 8 << 20 and run.R["set"] == 0, run.R
    assert run.R["got"] == [1, 1, 0], run.R
    assert run.R["set_late"] != 0, run.R


def test_device_heap_corruption_fails_the_launch_and_malloc_goes_on(run_cuda):
    run = run_cuda(FAULT_SCRIPT.replace("LAUNCH", "m.corrupt_then_free[1, 1]()") + """
ptrs = cudaMallocManaged(8 * 256, dtype=np.uint64)
ok = cudaMallocManaged(4 * 256, dtype=np.int32)
m.alloc_many[4, 64](ptrs, 64)
m.free_many[4, 64](ptrs, ok, 64)
cudaDeviceSynchronize()
R["ok_after"] = int(ok.sum())
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] in (700, 719), run.R
    assert "malloc" in run.R["message"], run.R
    assert run.R["ok_after"] == 256, run.R


# ------------------------------------------------------ 5. shared memory guard

def test_writing_past_dynamic_shared_memory_faults_and_says_so(run_cuda):
    run = fault(run_cuda, "m.smem_past_end[2, 4, 1024](256, 0)")
    assert run.R["code"] == 700, run.explain()
    msg = run.R["message"]
    assert "shared memory" in msg and "0 bytes past the end" in msg and "1024 bytes" in msg, msg


def test_dynamic_shared_memory_inside_its_size_still_works(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE)
o = cudaMallocManaged(4 * 96, dtype=np.int32)
m.smem_inside[3, 96, 96 * 4](96, o)
cudaDeviceSynchronize()
R["o"] = o.tolist()
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["o"] == list(range(95, -1, -1)), run.R


# ------------------------------------------------------------ 6. barrier sites

@pytest.mark.parametrize("options", [[], ["-DPYEMU_NO_REGIONS"]], ids=["regions", "fibers"])
def test_two_barriers_on_one_line_are_told_apart(run_cuda, options):
    run = run_cuda(f"""
m = SourceModule(SOURCE, options={options!r})
o = cudaMalloc(4 * 8)
m.two_on_one_line[1, 8](o)
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"] = int(e.code)
    R["message"] = str(e)
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 719, run.R
    msg = run.R["message"]
    assert "__syncthreads() at" in msg and ":4" in msg and "#" not in msg, msg


def test_syncthreads_reductions_of_a_one_thread_block(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE, options=["-DPYEMU_NO_REGIONS"])
o = cudaMallocManaged(12, dtype=np.int32)
for pred in (0, 1):
    m.count_one[1, 1](pred, o)
    cudaDeviceSynchronize()
    R[str(pred)] = o.tolist()
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["0"] == [0, 0, 0] and run.R["1"] == [1, 1, 1], run.R
