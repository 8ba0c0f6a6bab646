"""A 2-D array in pitched memory: cudaMallocPitch and a kernel walking rows.

Ports the cudaMallocPitch example of the CUDA C++ Programming Guide
("Device Memory", also on the course's memory slides):

    cudaMallocPitch(&devPtr, &pitch, width * sizeof(float), height);
    MyKernel<<<100, 512>>>(devPtr, pitch, width, height);
    ...
    float* row = (float*)((char*)devPtr + r * pitch);

The guide's kernel only reads each element; here each thread takes one column
and walks down the rows, doubling the element and adding its row number, so
the result can be checked.  The matrix goes in and out with cudaMemcpy2D,
which copies `height` rows of `width*sizeof(float)` bytes between the host's
packed rows and the device's pitched ones.

What it shows:
  * rows of a pitched allocation start `pitch` bytes apart (the width
    rounded up to 512 bytes, as on an H100), so row r is at
    (char*)devPtr + r*pitch, not at devPtr + r*width;
  * the padding at the end of each row is never touched.

Run:  python pitch_2d.py [width] [height]      (default 1000 x 700 floats)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void MyKernel(float* devPtr, size_t pitch, int width, int height)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < width) {
        for (int r = 0; r < height; ++r) {
            float* row = (float*)((char*)devPtr + r * pitch);
            float element = row[c];
            row[c] = 2.0f * element + r;
        }
    }
}
""")
MyKernel = mod.get_function("MyKernel")


# ------------------------------------------------------------------ host code
def main(width=1000, height=700):
    h_A = np.random.rand(height, width).astype(np.float32)
    h_B = np.empty_like(h_A)
    rowBytes = width * 4

    devPtr, pitch = cudaMallocPitch(rowBytes, height)
    print(f"{width} floats a row ({rowBytes} bytes): pitch {pitch} bytes")
    cudaMemcpy2D(devPtr, pitch, h_A, rowBytes, rowBytes, height, cudaMemcpyHostToDevice)

    MyKernel[(width + 511) // 512, 512](devPtr, pitch, width, height)

    cudaMemcpy2D(h_B, rowBytes, devPtr, pitch, rowBytes, height, cudaMemcpyDeviceToHost)
    cudaFree(devPtr)

    ref = 2.0 * h_A.astype(np.float64) + np.arange(height)[:, None]
    ok = np.allclose(h_B, ref, rtol=1e-6)
    if not ok:
        r, c = np.argwhere(~np.isclose(h_B, ref, rtol=1e-6))[0]
        print(f"Result verification failed at row {r}, column {c}: {h_B[r, c]} != {ref[r, c]}")
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:3])))
