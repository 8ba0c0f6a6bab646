"""Hostile input for CUDA's device, error and synchronisation calls
(expectations: CUDA 13 on an H100, tests/data/ground_truth/cuda_h100.json)."""
from hostile_cases import Case

C = Case
FAULT = ("m = SourceModule('__global__ void k(int *p) { p[1 << 28] = 1; }')\n"
         "d = cudaMalloc(16); m.k[1, 1](d)\n"
         "try:\n    cudaDeviceSynchronize()\nexcept CudaError:\n    pass\n")

CASES = [
    C("cudaSetDevice_1", "cudaSetDevice(1)", 101),
    C("cudaSetDevice_negative", "cudaSetDevice(-1)", 101),
    C("cudaSetDevice_string", "cudaSetDevice('0x')", 1),
    C("cudaSetDevice_none", "cudaSetDevice(None)", 1),
    C("cudaSetDevice_numpy_zero", "cudaSetDevice(np.int64(0))", "ok"),
    C("cudaGetDeviceProperties_1", "cudaGetDeviceProperties(1)", 101),
    C("cudaDeviceGetAttribute_unknown", "cudaDeviceGetAttribute(9999, 0)", 1),
    C("cudaDeviceGetAttribute_string", "cudaDeviceGetAttribute('x', 0)", 1),
    C("cudaDeviceGetAttribute_device_1", "cudaDeviceGetAttribute(cudaDevAttrWarpSize, 1)", 101),
    C("cudaDeviceGetAttribute_numpy_attr",
      "assert cudaDeviceGetAttribute(np.int32(cudaDevAttrWarpSize), 0) == 32", "ok"),
    C("cudaGetErrorString_unknown_code",
      "assert cudaGetErrorString(12345) == 'unrecognized error code'\n"
      "assert cudaGetErrorName(-1) == 'unrecognized error code'", "ok"),
    C("cudaGetErrorString_string",
      "assert cudaGetErrorString('x') == 'unrecognized error code'", "ok"),
    C("cudaGetErrorName_none",
      "assert cudaGetErrorName(None) == 'unrecognized error code'", "ok"),
    C("cudaGetLastError_resets_after_bad_launch",
      "k = cuda_kernel('__global__ void k() {}')\n"
      "try:\n    k[1, 1025]()\nexcept CudaError:\n    pass\n"
      "assert cudaPeekAtLastError() == 1 and cudaGetLastError() == 1\n"
      "assert cudaGetLastError() == 0; cudaDeviceSynchronize()", "ok"),
    C("cudaDeviceSynchronize_after_bad_launch_is_success",
      "k = cuda_kernel('__global__ void k() {}')\n"
      "try:\n    k[(1, 65536), 1]()\nexcept CudaError:\n    pass\ncudaDeviceSynchronize()", "ok"),
    C("sticky_fault_fails_cudaMalloc", FAULT + "cudaMalloc(16)", 700),
    C("sticky_fault_fails_cudaMemcpy", FAULT + "cudaMemcpy(np.zeros(4, np.int32), d, 16, "
      "cudaMemcpyDeviceToHost)", 700),
    C("sticky_fault_fails_cudaMemGetInfo", FAULT + "cudaMemGetInfo()", 700),
    C("sticky_fault_fails_cudaFree", FAULT + "cudaFree(d)", 700),
    C("sticky_fault_fails_next_launch", FAULT + "m.k[1, 1](d); cudaDeviceSynchronize()", 700),
    C("sticky_fault_leaves_cudaDeviceGetAttribute",
      FAULT + "assert cudaDeviceGetAttribute(cudaDevAttrWarpSize, 0) == 32\n"
      "assert cudaDriverGetVersion() >= 12000", "ok"),
    C("sticky_fault_cudaGetLastError_once", FAULT + "assert cudaGetLastError() == 700\n"
      "assert cudaGetLastError() == 0; cudaMalloc(4)", 700),
    C("sticky_fault_cleared_by_cudaDeviceReset", FAULT + "cudaDeviceReset(); cudaGetLastError()\n"
      "p = cudaMalloc(16); cudaMemset(p, 1, 16); cudaDeviceSynchronize()", "ok"),
    C("cudaDeviceReset_twice", "cudaDeviceReset(); cudaDeviceReset()", "ok"),
    C("cudaDeviceReset_with_a_kernel_running",
      "m = SourceModule('__global__ void k(int *p) { for (int i = 0; i < 20000000; i++) "
      "atomicAdd(p, 1); }')\nd = cudaMalloc(4); m.k[1, 1](d); cudaDeviceReset()\n"
      "e = cudaMalloc(4); cudaMemset(e, 0, 4); cudaDeviceSynchronize()", "ok"),
    C("cudaDeviceReset_from_another_thread_while_launching",
      "import threading\nm = SourceModule(VADD); stop = []; bad = []\n"
      "def loop():\n    while not stop:\n        try:\n            d = cudaMalloc(64)\n"
      "            m.vadd[1, 16](d, d, d, 16); cudaDeviceSynchronize()\n"
      "        except CudaError as e:\n            if e.code not in (1, 700):\n                bad.append(e)\n"
      "t = threading.Thread(target=loop); t.start()\n"
      "for _ in range(20):\n    cudaDeviceReset()\nstop.append(1); t.join(); cudaGetLastError()\n"
      "assert not bad, bad",
      "ok"),
]
