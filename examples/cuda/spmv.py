"""Sparse matrix-vector product y = A*x with A in CSR format.

Ports csrmul_kernel (one thread per row, with the device function
multiply_row) and csrmul_cached (the same, caching the block's window of x[]
in __shared__ memory) from J. Nickolls, I. Buck, M. Garland, K. Skadron,
"Scalable Parallel Programming with CUDA", ACM Queue 6(2), 2008.
`blocksize` is a compile-time constant in the paper: -Dblocksize=128 here.

What it shows:
  * compressed sparse row storage: Av holds the non-zeros row by row, Aj their
    column indices, Ap[row]..Ap[row+1] the range of row `row` (the paper's
    4 x 4 example is rebuilt and checked first);
  * a __device__ function called from a kernel, pointer arithmetic on device
    pointers (Aj+row_begin);
  * csrmul_cached: every thread loads x[row] into a __shared__ cache, then
    __syncthreads(), then reads x[j] from the cache when column j falls in the
    block's own rows.  That pays off for matrices whose non-zeros cluster near
    the diagonal, like the banded matrix built here.

Run:  python spmv.py [num_rows]       (default num_rows = 4096)
"""
import sys

import numpy as np
from pyemu.cuda import *

blocksize = 128         # or any size up to 512

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__device__ float multiply_row(unsigned int rowsize,
                              unsigned int *Aj,  // column indices for row
                              float *Av,         // non-zero entries for row
                              float *x)          // the RHS vector
{
    float sum = 0;

    for(unsigned int column=0; column<rowsize; ++column)
        sum += Av[column] * x[Aj[column]];

    return sum;
}

__global__
void csrmul_kernel(unsigned int *Ap, unsigned int *Aj,
                   float *Av, unsigned int num_rows,
                   float *x, float *y)
{
    unsigned int row = blockIdx.x*blockDim.x + threadIdx.x;

    if( row<num_rows )
    {
        unsigned int row_begin = Ap[row];
        unsigned int row_end = Ap[row+1];

        y[row] = multiply_row(row_end-row_begin, Aj+row_begin,
                              Av+row_begin, x);
    }
}

__global__
void csrmul_cached(unsigned int *Ap, unsigned int *Aj,
                   float *Av, unsigned int num_rows,
                   const float *x, float *y)
{
    // Cache the rows of x[] corresponding to this block.
    __shared__ float cache[blocksize];

    unsigned int block_begin = blockIdx.x * blockDim.x;
    unsigned int block_end = block_begin + blockDim.x;
    unsigned int row = block_begin + threadIdx.x;

    // Fetch and cache our window of x[].
    if( row<num_rows)  cache[threadIdx.x] = x[row];
    __syncthreads();

    if( row<num_rows )
    {
        unsigned int row_begin = Ap[row];
        unsigned int row_end = Ap[row+1];
        float sum = 0, x_j;

        for(unsigned int col=row_begin; col<row_end; ++col)
        {
            unsigned int j = Aj[col];

            // Fetch x_j from our cache when possible
            if( j>=block_begin && j<block_end )
                x_j = cache[j-block_begin];
            else
                x_j = x[j];

            sum += Av[col] * x_j;
        }

        y[row] = sum;
    }
}
""", options=[f"-Dblocksize={blocksize}"])
csrmul_kernel = mod.get_function("csrmul_kernel")
csrmul_cached = mod.get_function("csrmul_cached")


# ------------------------------------------------------------------ host code
def dense_to_csr(A):
    """CSR arrays (Ap, Aj, Av) of a dense matrix, row by row, with NumPy only."""
    rows, cols = np.nonzero(A)                  # row-major order: row by row
    Av = A[rows, cols].astype(np.float32)
    Aj = cols.astype(np.uint32)
    Ap = np.zeros(A.shape[0] + 1, dtype=np.uint32)
    Ap[1:] = np.cumsum(np.count_nonzero(A, axis=1))
    return Ap, Aj, Av


def paper_example():
    """The paper's 4 x 4 example and its CSR arrays."""
    A = np.array([[3, 0, 1, 0],
                  [0, 0, 0, 0],
                  [0, 2, 4, 1],
                  [1, 0, 0, 1]], dtype=np.float32)
    Ap, Aj, Av = dense_to_csr(A)
    assert list(Av) == [3, 1, 2, 4, 1, 1, 1]
    assert list(Aj) == [0, 2, 1, 2, 3, 0, 3]
    assert list(Ap) == [0, 2, 2, 5, 7]
    return A


def banded_matrix(num_rows, rng):
    """Non-zeros near the diagonal, a few far from it, and some empty rows."""
    A = np.zeros((num_rows, num_rows), dtype=np.float32)
    for d in range(-3, 4):                          # the band: diagonals -3..3
        i = np.arange(max(0, -d), min(num_rows, num_rows - d))
        A[i, i + d] = rng.uniform(-1, 1, size=i.size) * (rng.random(i.size) < 0.7)
    i = rng.integers(0, num_rows, size=2 * num_rows)  # about 2 scattered per row
    j = rng.integers(0, num_rows, size=2 * num_rows)
    A[i, j] = rng.uniform(-1, 1, size=i.size)
    A[rng.random(num_rows) < 0.02] = 0              # some empty rows
    return A


def spmv_on_device(kernel, A, x):
    """Allocate, copy in, launch one thread per row, copy out, free."""
    num_rows = A.shape[0]
    Ap, Aj, Av = dense_to_csr(A)
    y = np.empty(num_rows, dtype=np.float32)

    d_Ap = cudaMalloc(Ap.nbytes)
    d_Aj = cudaMalloc(max(Aj.nbytes, 4))
    d_Av = cudaMalloc(max(Av.nbytes, 4))
    d_x = cudaMalloc(x.nbytes)
    d_y = cudaMalloc(y.nbytes)
    cudaMemcpy(d_Ap, Ap, Ap.nbytes, cudaMemcpyHostToDevice)
    cudaMemcpy(d_Aj, Aj, Aj.nbytes, cudaMemcpyHostToDevice)
    cudaMemcpy(d_Av, Av, Av.nbytes, cudaMemcpyHostToDevice)
    cudaMemcpy(d_x, x, x.nbytes, cudaMemcpyHostToDevice)

    nblocks = (num_rows + blocksize - 1) // blocksize
    kernel[nblocks, blocksize](d_Ap, d_Aj, d_Av, num_rows, d_x, d_y)

    cudaMemcpy(y, d_y, y.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_Ap); cudaFree(d_Aj); cudaFree(d_Av); cudaFree(d_x); cudaFree(d_y)
    return y


def main(num_rows=4096):
    rng = np.random.default_rng(2008)
    ok = True
    for label, A in (("paper's 4x4 example", paper_example()),
                     (f"banded {num_rows}x{num_rows}", banded_matrix(num_rows, rng))):
        x = rng.uniform(-1, 1, size=A.shape[0]).astype(np.float32)
        reference = A.astype(np.float64) @ x.astype(np.float64)
        for name, kernel in (("csrmul_kernel", csrmul_kernel),
                             ("csrmul_cached", csrmul_cached)):
            y = spmv_on_device(kernel, A, x)
            good = np.allclose(y, reference, rtol=1e-5, atol=1e-5)
            print(f"{name:14s} {label}: {'ok' if good else 'MISMATCH'}")
            ok = ok and good

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
