"""Several virtual devices (PYEMU_DEVICE_COUNT=2, pyemu/cuda/devices.py):
the current device per host thread, each device's memory share, streams
and events that belong to a device, peer access and peer copies.  Each test
runs in its own process, with the variable set."""
import pytest

TWO = {"PYEMU_DEVICE_COUNT": "2", "PYEMU_DEVICE_MEMORY": str(64 << 20)}


def _ok(res):
    assert res.returncode == 0, res.explain()
    return res.R


def test_cudaSetDevice_is_per_host_thread_and_checks_the_ordinal(run_cuda):
    R = _ok(run_cuda("""
        R["count"] = cudaGetDeviceCount()
        R["bad"] = code_of(cudaSetDevice, 2)
        R["neg"] = code_of(cudaSetDevice, -1)
        cudaSetDevice(1)
        seen = []
        t = threading.Thread(target=lambda: seen.append(cudaGetDevice()))
        t.start(); t.join()
        R["main"], R["other"] = cudaGetDevice(), seen[0]
        p0, p1 = cudaGetDeviceProperties(0), cudaGetDeviceProperties(1)
        R["uuid_differ"] = p0.uuid != p1.uuid
        R["sm"] = [p0.multiProcessorCount, p1.multiProcessorCount,
                   cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount, 1)]
        R["mem"] = [p0.totalGlobalMem, p1.totalGlobalMem]
        R["prop3"] = code_of(cudaGetDeviceProperties, 2)
    """, env=TWO))
    assert R["count"] == 2
    assert R["bad"] == 101 and R["neg"] == 101            # cudaErrorInvalidDevice
    assert R["main"] == 1 and R["other"] == 0
    assert R["uuid_differ"]
    import os
    workers = int(os.environ.get("PYEMU_NUM_THREADS") or os.cpu_count())
    assert R["sm"] == [max(1, workers // 2)] * 3
    assert R["mem"] == [32 << 20, 32 << 20]
    assert R["prop3"] == 101


def test_each_device_has_its_own_memory_share(run_cuda):
    R = _ok(run_cuda("""
        free0, total0 = cudaMemGetInfo()
        a = cudaMalloc(24 << 20)                     # on device 0
        R["again0"] = code_of(cudaMalloc, 24 << 20)  # over device 0's 32 MiB
        cudaSetDevice(1)
        free1, total1 = cudaMemGetInfo()
        b = cudaMalloc(24 << 20)                     # device 1 has its own share
        R["free1_after"] = cudaMemGetInfo()[0]
        cudaSetDevice(0)
        R["free0_after"] = cudaMemGetInfo()[0]
        cudaFree(a)
        R["free0_freed"] = cudaMemGetInfo()[0]
        cudaFree(b)
        R["totals"] = [total0, total1]
        R["free1"] = free1
    """, env=TWO))
    assert R["totals"] == [32 << 20, 32 << 20]
    assert R["again0"] == 2                               # cudaErrorMemoryAllocation
    assert R["free1"] == 32 << 20 and R["free1_after"] == 8 << 20
    assert R["free0_after"] == 8 << 20 and R["free0_freed"] == 32 << 20


def test_streams_and_events_belong_to_their_device(run_cuda):
    R = _ok(run_cuda("""
        mod = SourceModule("__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }")
        d = cudaMalloc(128)
        s0, e0 = cudaStreamCreate(), cudaEventCreate()
        cudaSetDevice(1)
        cudaDeviceEnablePeerAccess(0, 0)                 # device 1's kernel writes d
        s1, e1 = cudaStreamCreate(), cudaEventCreate()
        R["record_other_stream"] = code_of(cudaEventRecord, e1, s0)
        R["record_other_event"] = code_of(cudaEventRecord, e0, s1)
        R["launch_other"] = code_of(lambda: mod.k[1, 32, 0, s0](d))
        mod.k[1, 32, 0, s1](d)                           # its own stream: fine
        cudaEventRecord(e1, s1)
        R["copy_other"] = code_of(cudaMemsetAsync, d, 0, 4, s0)   # copies may (CUDA)
        R["wait_other"] = code_of(cudaStreamWaitEvent, s0, e1, 0) # and waits
        cudaEventSynchronize(e1)
        cudaSetDevice(0)
        cudaEventRecord(e0, s0)
        cudaEventSynchronize(e0)
        R["elapsed_mixed"] = code_of(cudaEventElapsedTime, e0, e1)
        cudaDeviceSynchronize()
        out = np.zeros(32, np.int32)
        cudaMemcpy(out, d, 128, cudaMemcpyDeviceToHost)
        R["out"] = out.tolist()
    """, env=TWO))
    assert R["record_other_stream"] == 400 and R["record_other_event"] == 400
    assert R["launch_other"] == 400                       # cudaErrorInvalidResourceHandle
    assert R["copy_other"] == 0 and R["wait_other"] == 0
    assert R["elapsed_mixed"] == 400
    assert R["out"][1:] == list(range(1, 32))


def test_peer_access_and_peer_copies_between_two_devices(run_cuda):
    R = _ok(run_cuda("""
        R["can"] = [cudaDeviceCanAccessPeer(0, 1), cudaDeviceCanAccessPeer(1, 0),
                    cudaDeviceCanAccessPeer(1, 1)]
        R["self"] = code_of(cudaDeviceEnablePeerAccess, 0, 0)
        R["not_enabled"] = code_of(cudaDeviceDisablePeerAccess, 1)
        cudaDeviceEnablePeerAccess(1, 0)
        R["again"] = code_of(cudaDeviceEnablePeerAccess, 1, 0)
        cudaDeviceDisablePeerAccess(1)
        R["none"] = code_of(cudaDeviceEnablePeerAccess, 2, 0)
        a = np.arange(1024, dtype=np.float32)
        d0 = cudaMalloc(a.nbytes)
        cudaMemcpy(d0, a, a.nbytes, cudaMemcpyHostToDevice)
        cudaSetDevice(1)
        d1 = cudaMalloc(a.nbytes)
        cudaMemcpyPeer(d1, 1, d0, 0, a.nbytes)
        out = np.zeros_like(a)
        cudaMemcpy(out, d1, a.nbytes, cudaMemcpyDefault)
        R["peer"] = bool((out == a).all())
        cudaMemset(d0, 0, a.nbytes)
        s = cudaStreamCreate()
        cudaMemcpyPeerAsync(d1, 1, d0, 0, a.nbytes, s)
        cudaStreamSynchronize(s)
        cudaMemcpy(out, d1, a.nbytes, cudaMemcpyDeviceToHost)
        R["peer_async"] = not out.any()
    """, env=TWO))
    assert R["can"] == [1, 1, 0]
    assert R["self"] == 101 and R["none"] == 101
    assert R["not_enabled"] == 705 and R["again"] == 704
    assert R["peer"] and R["peer_async"]


def test_bad_PYEMU_DEVICE_COUNT_is_refused_with_a_message(run_cuda):
    res = run_cuda("R['n'] = cudaGetDeviceCount()", env={"PYEMU_DEVICE_COUNT": "zero"})
    assert res.returncode != 0 and "PYEMU_DEVICE_COUNT" in res.stderr


def test_a_kernel_fault_poisons_its_device_only(run_cuda):
    R = _ok(run_cuda("""
        mod = SourceModule("__global__ void bad(int *p) { p[1 << 28] = 1; }"
                           "__global__ void inc(int *p) { p[threadIdx.x] += 1; }")
        d0 = cudaMalloc(128)
        cudaSetDevice(1)
        d1 = cudaMalloc(128)
        mod.bad[1, 1](d1)
        R["sync1"] = code_of(cudaDeviceSynchronize)
        R["malloc1"] = code_of(cudaMalloc, 16)
        R["stream1"] = code_of(cudaStreamCreate)
        cudaSetDevice(0)
        R["malloc0"] = code_of(cudaMalloc, 16)
        mod.inc[1, 32](d0)
        s = cudaStreamCreate()
        mod.inc[1, 32, 0, s](d0)
        R["sync0"] = code_of(cudaDeviceSynchronize)
        out = np.zeros(32, np.int32)
        cudaMemcpy(out, d0, 128, cudaMemcpyDeviceToHost)
        R["out0"] = out.tolist()
        seen = []
        def other():                     # a thread on device 1 sees its error too
            cudaSetDevice(1)
            seen.append(code_of(cudaMalloc, 16))
        t = threading.Thread(target=other); t.start(); t.join()
        R["thread1"] = seen[0]
        cudaSetDevice(1)
        cudaDeviceReset()
        R["after_reset"] = code_of(cudaMalloc, 16)
    """, env=TWO))
    assert R["sync1"] == 700                              # cudaErrorIllegalAddress
    assert R["malloc1"] == 700 and R["stream1"] == 700 and R["thread1"] == 700
    assert R["malloc0"] == 0 and R["sync0"] == 0
    assert R["out0"] == [2] * 32
    assert R["after_reset"] == 0


def test_each_device_has_its_own_legacy_default_stream(run_cuda):
    # device 1's legacy stream does not wait for device 0's blocking stream
    R = _ok(run_cuda("""
        mod = SourceModule(r'''
        __global__ void gated(const volatile int *gate, int *out) {
            while (gate[0] == 0) { }
            out[0] = 1;
        }
        __global__ void one(int *out) { out[0] = 1; }''')
        gate = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32)
        gate[0] = 0
        out0 = cudaMalloc(4)
        s0 = cudaStreamCreate()                     # blocking, device 0
        mod.gated[1, 1, 0, s0](gate, out0)
        cudaSetDevice(1)
        out1 = cudaMalloc(4)
        mod.one[1, 1](out1)                         # device 1's legacy stream
        e = cudaEventCreate()
        cudaEventRecord(e, 0)
        t0 = time.time()
        while cudaEventQuery(e) == cudaErrorNotReady and time.time() - t0 < 10:
            time.sleep(0.001)
        R["done1"] = cudaEventQuery(e) == cudaSuccess
        gate[0] = 1
        cudaSetDevice(0)
        cudaDeviceSynchronize()
    """, env=TWO))
    assert R["done1"]


def test_cudaMallocAsync_and_cudaFreeAsync_count_against_the_device(run_cuda):
    R = _ok(run_cuda("""
        cudaSetDevice(1)
        s = cudaStreamCreate()
        before = cudaMemGetInfo()[0]
        p = cudaMallocAsync(8 << 20, s)
        R["during"] = before - cudaMemGetInfo()[0]
        cudaFreeAsync(p, s)
        cudaStreamSynchronize(s)
        R["after"] = before - cudaMemGetInfo()[0]
        cudaSetDevice(0)
        R["dev0_used"] = cudaMemGetInfo()[1] - cudaMemGetInfo()[0]
    """, env=TWO))
    assert R["during"] == 8 << 20 and R["after"] == 0
    assert R["dev0_used"] == 0


def test_a_kernel_given_another_devices_memory_faults_unless_peer_access(run_cuda):
    R = _ok(run_cuda("""
        mod = SourceModule("__global__ void inc(int *p) { p[threadIdx.x] += 1; }")
        cudaSetDevice(1)
        d1 = cudaMalloc(128)
        cudaSetDevice(0)
        mod.inc[1, 32](d1)                         # no peer access: the access faults
        try:
            cudaDeviceSynchronize()
            R["sync"] = 0
        except CudaError as e:
            R["sync"], R["msg"] = int(e.code), str(e)
        R["after0"] = code_of(cudaMalloc, 16)      # device 0 is poisoned ...
        cudaSetDevice(1)
        R["after1"] = code_of(cudaMalloc, 16)      # ... device 1 is not
        cudaSetDevice(0)
        cudaDeviceReset()                          # device 0's error only
        cudaSetDevice(1)
        R["d1_kept"] = code_of(cudaMemset, d1, 0, 128)   # device 1's memory survived
        d1 = cudaMalloc(128)
        cudaSetDevice(0)
        cudaDeviceEnablePeerAccess(1, 0)
        mod.inc[1, 32](d1)                         # with peer access: it runs
        R["sync_peer"] = code_of(cudaDeviceSynchronize)
        out = np.zeros(32, np.int32)
        cudaMemcpy(out, d1, 128, cudaMemcpyDeviceToHost)
        R["out"] = out.tolist()
    """, env=TWO))
    assert R["sync"] == 700, R
    assert "no peer access" in R["msg"]
    assert R["after0"] == 700 and R["after1"] == 0
    assert R["d1_kept"] == 0
    assert R["sync_peer"] == 0 and R["out"] == [1] * 32
