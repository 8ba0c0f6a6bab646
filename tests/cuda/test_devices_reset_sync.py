"""cudaDeviceReset and cudaDeviceSynchronize act on the current device only
when there are several (PYEMU_DEVICE_COUNT=2): another device's memory,
streams, events, running work and sticky error are left alone.  Each test
runs in its own process, with the variable set."""
TWO = {"PYEMU_DEVICE_COUNT": "2", "PYEMU_DEVICE_MEMORY": str(64 << 20)}

GATED = r'''
__global__ void gated(const volatile int *gate, int *out) {
    while (gate[0] == 0) { }
    out[0] = 7;
}
__global__ void inc(int *p) { p[threadIdx.x] += 1; }
__global__ void bad(int *p) { p[1 << 28] = 1; }
'''


def _ok(res):
    assert res.returncode == 0, res.explain()
    return res.R


def test_reset_of_device_0_leaves_device_1s_memory_streams_and_events(run_cuda):
    R = _ok(run_cuda("""
        mod = SourceModule(SRC)
        cudaSetDevice(1)
        d1 = cudaMalloc(128)
        cudaMemset(d1, 0, 128)
        s1 = cudaStreamCreate()
        e1 = cudaEventCreate()
        used1 = cudaMemGetInfo()
        cudaSetDevice(0)
        d0 = cudaMalloc(1 << 20)
        s0 = cudaStreamCreate()
        e0 = cudaEventCreate()
        R["used0_before"] = cudaMemGetInfo()[1] - cudaMemGetInfo()[0]
        cudaDeviceReset()
        R["used0_after"] = cudaMemGetInfo()[1] - cudaMemGetInfo()[0]
        R["free_d0"] = code_of(cudaFree, d0)              # freed by the reset
        R["s0"] = code_of(cudaStreamSynchronize, s0)      # destroyed by the reset
        R["e0"] = code_of(cudaEventRecord, e0, 0)
        cudaSetDevice(1)
        R["used1"] = cudaMemGetInfo() == used1
        mod.inc[1, 32, 0, s1](d1)                         # device 1's stream and memory work
        cudaEventRecord(e1, s1)
        cudaEventSynchronize(e1)
        out = np.zeros(32, np.int32)
        cudaMemcpy(out, d1, 128, cudaMemcpyDeviceToHost)
        R["out1"] = out.tolist()
        cudaFree(d1)
    """, env=TWO, consts={"SRC": GATED}))
    assert R["used0_before"] >= 1 << 20 and R["used0_after"] == 0
    assert R["free_d0"] == 1           # cudaErrorInvalidValue: not an allocation any more
    assert R["s0"] == 400 and R["e0"] == 400      # cudaErrorInvalidResourceHandle
    assert R["used1"]
    assert R["out1"] == [1] * 32


def test_synchronize_and_reset_of_device_0_do_not_wait_for_device_1(run_cuda):
    R = _ok(run_cuda("""
        mod = SourceModule(SRC)
        gate = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32)
        gate[0] = 0
        cudaSetDevice(1)
        out1 = cudaMalloc(4)
        s1 = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        mod.gated[1, 1, 0, s1](gate, out1)          # runs until the gate opens
        e1 = cudaEventCreate()
        cudaEventRecord(e1, s1)
        cudaSetDevice(0)
        d0 = cudaMalloc(128)
        cudaMemset(d0, 0, 128)
        mod.inc[1, 32](d0)
        t0 = time.time()
        cudaDeviceSynchronize()                     # device 0's work only
        R["sync_s"] = time.time() - t0
        R["e1_during_sync"] = int(cudaEventQuery(e1))
        out = np.zeros(32, np.int32)
        cudaMemcpy(out, d0, 128, cudaMemcpyDeviceToHost)
        R["out0"] = out.tolist()
        cudaDeviceReset()                           # device 0 only: returns too
        R["e1_during_reset"] = int(cudaEventQuery(e1))
        gate[0] = 1
        cudaSetDevice(1)
        cudaDeviceSynchronize()                     # device 1's: waits for the kernel
        R["e1_after"] = int(cudaEventQuery(e1))
        o = np.zeros(1, np.int32)
        cudaMemcpy(o, out1, 4, cudaMemcpyDeviceToHost)
        R["out1"] = int(o[0])
    """, env=TWO, consts={"SRC": GATED}))
    assert R["e1_during_sync"] == 600 and R["e1_during_reset"] == 600   # cudaErrorNotReady
    assert R["out0"] == [1] * 32
    assert R["sync_s"] < 5
    assert R["e1_after"] == 0 and R["out1"] == 7


def test_reset_clears_the_current_devices_sticky_error_only(run_cuda):
    R = _ok(run_cuda("""
        mod = SourceModule(SRC)
        cudaSetDevice(1)
        d1 = cudaMalloc(128)
        mod.bad[1, 1](d1)
        R["sync1"] = code_of(cudaDeviceSynchronize)
        cudaSetDevice(0)
        d0 = cudaMalloc(128)
        mod.bad[1, 1](d0)
        R["sync0"] = code_of(cudaDeviceSynchronize)
        cudaDeviceReset()                            # device 0's fault forgotten
        R["after0"] = code_of(cudaMalloc, 16)
        cudaSetDevice(1)
        R["still1"] = code_of(cudaMalloc, 16)        # device 1 still poisoned
        cudaDeviceReset()
        R["after1"] = code_of(cudaMalloc, 16)
    """, env=TWO, consts={"SRC": GATED}))
    assert R["sync1"] == 700 and R["sync0"] == 700
    assert R["after0"] == 0
    assert R["still1"] == 700
    assert R["after1"] == 0


def test_reset_drops_peer_access_both_ways(run_cuda):
    R = _ok(run_cuda("""
        cudaSetDevice(0)
        cudaDeviceEnablePeerAccess(1, 0)
        cudaSetDevice(1)
        cudaDeviceEnablePeerAccess(0, 0)
        cudaSetDevice(0)
        cudaDeviceReset()
        R["again0"] = code_of(cudaDeviceEnablePeerAccess, 1, 0)   # was dropped: enables again
        cudaSetDevice(1)
        R["again1"] = code_of(cudaDeviceEnablePeerAccess, 0, 0)
    """, env=TWO))
    assert R["again0"] == 0 and R["again1"] == 0
