"""Several GPUs: a vector add split over the devices, a peer copy, and a
kernel on one device that reads another device's memory through peer access.

After the CUDA C Programming Guide, "Multi-Device System" (device
enumeration and selection, streams and events per device, peer-to-peer
memory access and copy) and cuda-samples' `simpleMultiGPU` / `simpleP2P`:

    for (int dev = 0; dev < nGPUs; dev++) {
        cudaSetDevice(dev);
        cudaStreamCreate(&stream[dev]);
        cudaMalloc(&d_a[dev], bytes_per_gpu); ...
        cudaMemcpyAsync(d_a[dev], h_a + offset, bytes_per_gpu, cudaMemcpyHostToDevice, stream[dev]);
        vecAdd<<<grid, block, 0, stream[dev]>>>(d_a[dev], d_b[dev], d_c[dev], n_per_gpu);
        cudaMemcpyAsync(h_c + offset, d_c[dev], ...DeviceToHost, stream[dev]);
    }
    cudaDeviceCanAccessPeer(&can, 0, 1);
    cudaSetDevice(0); cudaDeviceEnablePeerAccess(1, 0);
    cudaMemcpyPeer(d_x0, 0, d_c[1], 1, bytes);
    sum<<<...>>>(d_c[1], ...);              // device 0 reads device 1's memory

pyemu's devices are virtual: PYEMU_DEVICE_COUNT=2 (set here when unset)
makes two, each with its share of the cores and of the memory.

Run:  PYEMU_DEVICE_COUNT=2 python multi_gpu.py [n]     (default n = 1,048,576)
"""
import os
import sys

os.environ.setdefault("PYEMU_DEVICE_COUNT", "2")   # before pyemu starts

import numpy as np  # noqa: E402
from pyemu.cuda import *  # noqa: E402,F403

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
// device 0 scales what device 1 computed, reading it through peer access
__global__ void scalePeer(const float *peer, float *out, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * peer[i];
}
""")
vecAdd = mod.get_function("vecAdd")
scalePeer = mod.get_function("scalePeer")


# ------------------------------------------------------------------ host code
def main(n=1 << 20):
    ngpus = cudaGetDeviceCount()
    print(f"CUDA-capable device count: {ngpus}")
    if ngpus < 2:
        print("Two or more GPUs with Peer-to-Peer access capability are required")
        return 1
    for dev in range(ngpus):
        p = cudaGetDeviceProperties(dev)
        print(f"  GPU{dev}: {p.name}, {p.multiProcessorCount} multiprocessors, "
              f"{p.totalGlobalMem >> 20} MiB")
    h_a = cudaMallocHost(4 * n, np.float32)
    h_b = cudaMallocHost(4 * n, np.float32)
    h_c = cudaMallocHost(4 * n, np.float32)
    h_a[:] = np.random.rand(n)
    h_b[:] = np.random.rand(n)

    # split the vector: each device adds its part on its own stream
    parts = np.array_split(np.arange(n), ngpus)
    stream, d_a, d_b, d_c = [], [], [], []
    for dev in range(ngpus):
        cudaSetDevice(dev)
        m = len(parts[dev])
        off = int(parts[dev][0]) if m else 0
        stream.append(cudaStreamCreate())
        d_a.append(cudaMalloc(4 * m))
        d_b.append(cudaMalloc(4 * m))
        d_c.append(cudaMalloc(4 * m))
        cudaMemcpyAsync(d_a[dev], h_a[off:], 4 * m, cudaMemcpyHostToDevice, stream[dev])
        cudaMemcpyAsync(d_b[dev], h_b[off:], 4 * m, cudaMemcpyHostToDevice, stream[dev])
        vecAdd[(m + 255) // 256, 256, 0, stream[dev]](d_a[dev], d_b[dev], d_c[dev], m)
        cudaMemcpyAsync(h_c[off:], d_c[dev], 4 * m, cudaMemcpyDeviceToHost, stream[dev])
    for dev in range(ngpus):
        cudaSetDevice(dev)
        cudaStreamSynchronize(stream[dev])
    ok = bool(np.array_equal(h_c, h_a + h_b))
    print(f"vector add over {ngpus} devices: {'ok' if ok else 'WRONG'}")

    # peer copy: device 1's part to a buffer of device 0
    m1 = len(parts[1])
    cudaSetDevice(0)
    d_x0 = cudaMalloc(4 * m1)
    cudaMemcpyPeer(d_x0, 0, d_c[1], 1, 4 * m1)
    x0 = np.empty(m1, np.float32)
    cudaMemcpy(x0, d_x0, 4 * m1, cudaMemcpyDeviceToHost)
    ok_copy = bool(np.array_equal(x0, h_c[parts[1]]))
    print(f"cudaMemcpyPeer GPU1 -> GPU0: {'ok' if ok_copy else 'WRONG'}")

    # peer access: a kernel on device 0 reads device 1's memory
    can = cudaDeviceCanAccessPeer(0, 1)
    print(f"> Peer access from GPU0 -> GPU1 : {'Yes' if can else 'No'}")
    cudaDeviceEnablePeerAccess(1, 0)
    scalePeer[(m1 + 255) // 256, 256](d_c[1], d_x0, 2.0, m1)
    cudaDeviceSynchronize()
    cudaMemcpy(x0, d_x0, 4 * m1, cudaMemcpyDeviceToHost)
    ok_peer = bool(np.array_equal(x0, 2.0 * h_c[parts[1]]))
    print(f"kernel on GPU0 reading GPU1's memory: {'ok' if ok_peer else 'WRONG'}")
    cudaDeviceDisablePeerAccess(1)

    cudaFree(d_x0)
    for dev in range(ngpus):
        cudaSetDevice(dev)
        cudaStreamDestroy(stream[dev])
        for p in (d_a[dev], d_b[dev], d_c[dev]):
            cudaFree(p)
    for h in (h_a, h_b, h_c):
        cudaFreeHost(h)
    ok = ok and ok_copy and ok_peer
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
