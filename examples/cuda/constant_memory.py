"""1-D convolution with the mask in constant memory.

Ports the constant-memory convolution of Kirk & Hwu, *Programming Massively
Parallel Processors* (ch. 7, "1D Parallel Convolution" with `__constant__
float M[MAX_MASK_WIDTH]`, also in the ECE 408 slides): every thread reads all
of the mask, the same element at the same time, which is what the constant
cache serves best; the host sets the mask once with cudaMemcpyToSymbol.

What it shows:
  * a `__constant__` array at file scope, read by the kernel by its name
    (it is not a kernel argument);
  * the host names it with mod.get_global("M") (C passes the variable, M)
    and fills it with cudaMemcpyToSymbol(M, h_M, Mask_Width*sizeof(float));
  * ghost elements: inputs outside N count as 0 (the `if` inside the loop).
The book's kernel writes P[i] for every thread; the grid is rounded up to
whole blocks here, so the kernel guards `i < Width`.

Run:  python constant_memory.py [width] [mask_width]   (default 2^20, 7)
"""
import sys

import numpy as np
from pyemu.cuda import *

MAX_MASK_WIDTH = 10

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__constant__ float M[MAX_MASK_WIDTH];

__global__ void convolution_1D_basic_kernel(float *N, float *P, int Mask_Width, int Width)
{
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < Width) {
        float Pvalue = 0;
        int N_start_point = i - (Mask_Width/2);
        for (int j = 0; j < Mask_Width; j++) {
            if (N_start_point + j >= 0 && N_start_point + j < Width) {
                Pvalue += N[N_start_point + j]*M[j];
            }
        }
        P[i] = Pvalue;
    }
}
""", options=[f"-DMAX_MASK_WIDTH={MAX_MASK_WIDTH}"])
convolution_1D_basic_kernel = mod.get_function("convolution_1D_basic_kernel")
M = mod.get_global("M")             # the symbol: C writes just `M`


# ------------------------------------------------------------------ host code
def convolution_reference(N, h_M):
    """P[i] = sum_j N[i - w/2 + j] * M[j], with zeros outside N, in float64."""
    w = len(h_M)
    padded = np.concatenate([np.zeros(w // 2), N.astype(np.float64), np.zeros(w)])
    return sum(h_M[j] * padded[j:j + len(N)] for j in range(w))


def main(Width=1 << 20, Mask_Width=7):
    if not 1 <= Mask_Width <= MAX_MASK_WIDTH:
        print(f"Mask_Width must be 1..{MAX_MASK_WIDTH}")
        return 2
    h_N = np.random.rand(Width).astype(np.float32)
    h_M = np.random.rand(Mask_Width).astype(np.float32)
    h_P = np.empty(Width, np.float32)
    size = Width * 4

    # the mask goes to constant memory once; N and P to global memory
    cudaMemcpyToSymbol(M, h_M, Mask_Width * 4)
    d_N = cudaMalloc(size)
    d_P = cudaMalloc(size)
    cudaMemcpy(d_N, h_N, size, cudaMemcpyHostToDevice)

    blockSize = 256
    convolution_1D_basic_kernel[(Width + blockSize - 1) // blockSize, blockSize](
        d_N, d_P, Mask_Width, Width)
    cudaMemcpy(h_P, d_P, size, cudaMemcpyDeviceToHost)
    cudaFree(d_N)
    cudaFree(d_P)

    ref = convolution_reference(h_N, h_M)
    ok = np.allclose(h_P, ref, rtol=1e-5, atol=1e-5)
    if not ok:
        bad = np.flatnonzero(~np.isclose(h_P, ref, rtol=1e-5, atol=1e-5))[0]
        print(f"Result verification failed at element {bad}: {h_P[bad]} != {ref[bad]}")
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:3])))
