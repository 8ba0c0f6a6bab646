"""Histogram of bytes: why atomics are needed.

Ports the global-memory-atomics histogram of J. Sanders & E. Kandrot, "CUDA
by Example", ch. 9 (histo_kernel, hist_gpu_gmem_atomics.cu), and puts in
front of it the same kernel with a plain `histo[buffer[i]]++`.

What it shows:
  * a grid-stride loop: a fixed grid of blocks*2 blocks walks the whole
    buffer, each thread stepping by blockDim.x * gridDim.x;
  * `histo[bin]++` is a read, an add and a write: two threads that increment
    the same bin at the same time can both read the old count, and one update
    is lost, so the non-atomic total may come out below SIZE (whether it does
    in a given run depends on timing);
  * atomicAdd(&histo[bin], 1) makes the read-modify-write indivisible: the
    atomic histogram always sums to SIZE and matches the CPU bin for bin.

Run:  python histogram.py [SIZE]      (default SIZE = 100 * 1024 * 1024 bytes)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void histo_kernel_no_atomics( unsigned char *buffer,
                                         long size,
                                         unsigned int *histo ) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        histo[buffer[i]]++;                     // racy read-modify-write
        i += offset;
    }
}

__global__ void histo_kernel( unsigned char *buffer,
                              long size,
                              unsigned int *histo ) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &(histo[buffer[i]]), 1 );
        i += offset;
    }
}
""")
histo_kernel_no_atomics = mod.get_function("histo_kernel_no_atomics")
histo_kernel = mod.get_function("histo_kernel")


# ------------------------------------------------------------------ host code
def big_random_block(size):
    return np.random.randint(0, 256, size=size, dtype=np.uint8)


def main(SIZE=100 * 1024 * 1024):
    buffer = big_random_block(SIZE)

    # allocate memory on the GPU for the file's data
    dev_buffer = cudaMalloc(SIZE)
    cudaMemcpy(dev_buffer, buffer, SIZE, cudaMemcpyHostToDevice)

    dev_histo = cudaMalloc(256 * 4)              # 256 * sizeof(int)

    # kernel launch - 2x the number of multiprocessors gave best timing
    prop = cudaGetDeviceProperties(0)
    blocks = prop.multiProcessorCount

    # First the racy kernel: a plain histo[bin]++
    cudaMemset(dev_histo, 0, 256 * 4)
    histo_kernel_no_atomics[blocks * 2, 256](dev_buffer, SIZE, dev_histo)

    racy_histo = np.empty(256, dtype=np.uint32)
    cudaMemcpy(racy_histo, dev_histo, 256 * 4, cudaMemcpyDeviceToHost)
    racyCount = int(racy_histo.sum(dtype=np.int64))
    print(f"Histogram Sum (no atomics):  {racyCount}")

    # Then the book's kernel, with atomicAdd
    cudaMemset(dev_histo, 0, 256 * 4)
    histo_kernel[blocks * 2, 256](dev_buffer, SIZE, dev_histo)

    histo = np.empty(256, dtype=np.uint32)
    cudaMemcpy(histo, dev_histo, 256 * 4, cudaMemcpyDeviceToHost)
    histoCount = int(histo.sum(dtype=np.int64))
    print(f"Histogram Sum (atomicAdd):   {histoCount}")

    # verify that we have the same counts via CPU (NumPy, a megabyte at a time)
    cpu_histo = np.zeros(256, dtype=np.int64)
    for start in range(0, SIZE, 1 << 20):
        cpu_histo += np.bincount(buffer[start:start + (1 << 20)], minlength=256)
    ok = True
    for i in np.flatnonzero(histo != cpu_histo):
        print(f"Failure at {i}!")
        ok = False

    # A racy ++ can lose counts, but never invent them
    print(f"Updates lost without atomics: {SIZE - racyCount}")
    if racyCount > SIZE:
        ok = False

    cudaFree(dev_histo)
    cudaFree(dev_buffer)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
