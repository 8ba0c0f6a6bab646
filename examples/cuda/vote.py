"""Warp votes: __any_sync, __all_sync, __ballot_sync, and a stream compaction
built on them.

After cuda-samples' simpleVoteIntrinsics (the any/all tests, per warp and per
half warp) and the warp-aggregated compaction of A. Adinetz, "Optimized
Filtering with Warp-Aggregated Atomics" (NVIDIA blog, 2014), written here in
converged code with a full mask.

What it shows:
  * vote_any / vote_all: every lane of a warp gets the same answer, computed
    over the 32 lanes (the second half of warp 1 votes differently);
  * ballot: one bit per lane; __popc counts the lanes that voted yes;
  * compact: each warp counts its kept elements with one ballot, lane 0
    reserves room with one atomicAdd, __shfl_sync hands the base to the
    warp, and each lane writes at base + the yes-votes of the lanes below it
    (__popc(ballot & __lanemask_lt())).  The output keeps each warp's order.

Run:  python vote.py [N]         (default N = 2^20 elements to compact)
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void votes(const int *pred, unsigned int *any, unsigned int *all,
                      unsigned int *ballot)
{
    int tx = threadIdx.x;
    any[tx] = __any_sync(0xffffffff, pred[tx]);
    all[tx] = __all_sync(0xffffffff, pred[tx]);
    ballot[tx] = __ballot_sync(0xffffffff, pred[tx]);
}

__global__ void compact(const int *in, int *out, int *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = i < n ? in[i] : 0;
    int keep = i < n && x > 0;
    unsigned int yes = __ballot_sync(0xffffffff, keep);
    int base = 0;
    if (lane == 0 && yes) base = atomicAdd(count, __popc(yes));
    base = __shfl_sync(0xffffffff, base, 0);
    if (keep) out[base + __popc(yes & __lanemask_lt())] = x;
}
""")


# ------------------------------------------------------------------ host code
def check_votes():
    n = 96                                      # three warps
    tx = np.arange(n)
    pred = (tx >= 48).astype(np.int32)          # warp 0 none, warp 1 its upper half, warp 2 all
    d_pred, d_any, d_all, d_bal = (cudaMalloc(4 * n) for _ in range(4))
    cudaMemcpy(d_pred, pred, pred.nbytes, cudaMemcpyHostToDevice)
    mod.votes[1, n](d_pred, d_any, d_all, d_bal)
    got = {}
    for name, d in (("any", d_any), ("all", d_all), ("ballot", d_bal)):
        got[name] = np.empty(n, np.uint32)
        cudaMemcpy(got[name], d, 4 * n, cudaMemcpyDeviceToHost)
        cudaFree(d)
    cudaFree(d_pred)
    want_any = np.repeat([0, 1, 1], 32)
    want_all = np.repeat([0, 0, 1], 32)
    want_bal = np.repeat([0, 0xffff0000, 0xffffffff], 32)
    ok = (np.array_equal(got["any"], want_any) and np.array_equal(got["all"], want_all)
          and np.array_equal(got["ballot"], want_bal))
    print(f"any per warp {got['any'][::32]}, all per warp {got['all'][::32]}, "
          f"ballot per warp {[hex(int(b)) for b in got['ballot'][::32]]}")
    return ok


def check_compact(N):
    h_in = np.random.randint(-50, 50, size=N, dtype=np.int32)
    d_in, d_out, d_count = cudaMalloc(h_in.nbytes), cudaMalloc(h_in.nbytes), cudaMalloc(4)
    cudaMemcpy(d_in, h_in, h_in.nbytes, cudaMemcpyHostToDevice)
    cudaMemset(d_count, 0, 4)
    mod.compact[(N + 255) // 256, 256](d_in, d_out, d_count, N)
    count = np.zeros(1, np.int32)
    cudaMemcpy(count, d_count, 4, cudaMemcpyDeviceToHost)
    h_out = np.empty(int(count[0]), np.int32)
    cudaMemcpy(h_out, d_out, h_out.nbytes, cudaMemcpyDeviceToHost)
    for d in (d_in, d_out, d_count):
        cudaFree(d)
    kept = h_in[h_in > 0]
    # warps reserve their room in any order: compare as multisets
    ok = len(h_out) == len(kept) and np.array_equal(np.sort(h_out), np.sort(kept))
    print(f"compacted {N} elements to {len(h_out)} positive ones (NumPy: {len(kept)})")
    return ok


def main(N=1 << 20):
    ok = check_votes() and check_compact(N)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
