// Warp-collective kernels run both on a GPU (warp_probe.cu, ground truth) and
// in pyemu (tests/cuda/test_warp_ground_truth.py); each writes `out` only.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__device__ int gt_val(unsigned t) { return (int)(((t + 7u) * 2654435761u) >> 22) % 1000; }

// 4 shuffles x int, for `arg` and `width`, full mask
__global__ void gt_shfl(int *out, int arg, int width) {
  unsigned t = threadIdx.x, n = blockDim.x;
  int v = gt_val(t);
  out[0 * n + t] = __shfl_sync(0xffffffff, v, arg, width);
  out[1 * n + t] = __shfl_up_sync(0xffffffff, v, arg, width);
  out[2 * n + t] = __shfl_down_sync(0xffffffff, v, arg, width);
  out[3 * n + t] = __shfl_xor_sync(0xffffffff, v, arg, width);
}

// doubles: out holds the bits as two ints each
__global__ void gt_shfl_double(int *out, int arg) {
  unsigned t = threadIdx.x, n = blockDim.x;
  double v = gt_val(t) * 1.0000001 + 1e-12 * t;
  double r[2] = {__shfl_down_sync(0xffffffff, v, arg), __shfl_xor_sync(0xffffffff, v, arg, 16)};
  memcpy(out + 4 * t, r, 16);
  (void)n;
}

// votes, match, reduce, activemask, __fns (unsigned results as ints)
__global__ void gt_votes(int *out) {
  unsigned t = threadIdx.x, n = blockDim.x;
  int p = gt_val(t);
  int k = 0;
  out[k++ * n + t] = __ballot_sync(0xffffffff, p & 1);
  out[k++ * n + t] = __any_sync(0xffffffff, p > 990);
  out[k++ * n + t] = __all_sync(0xffffffff, p >= 0);
  out[k++ * n + t] = __match_any_sync(0xffffffff, p % 3);
  int pred = -1;
  out[k++ * n + t] = __match_all_sync(0xffffffff, p % 3, &pred);
  out[k++ * n + t] = pred;
  out[k++ * n + t] = __match_all_sync(0xffffffff, 5, &pred);
  out[k++ * n + t] = pred;
  out[k++ * n + t] = __reduce_add_sync(0xffffffff, p);
  out[k++ * n + t] = __reduce_min_sync(0xffffffff, p - 500);
  out[k++ * n + t] = __reduce_max_sync(0xffffffff, (unsigned)p);
  out[k++ * n + t] = __reduce_and_sync(0xffffffff, (unsigned)p | 0x400);
  out[k++ * n + t] = __reduce_or_sync(0xffffffff, (unsigned)p);
  out[k++ * n + t] = __reduce_xor_sync(0xffffffff, (unsigned)p);
  out[k++ * n + t] = __activemask();
  out[k++ * n + t] = __fns(0xb0008069u, t & 31, (int)(t % 5) - 2);
  __syncwarp();
}

// partial masks in a branch: lanes 0..15 shuffle among themselves, 16..31 vote
__global__ void gt_half(int *out) {
  unsigned t = threadIdx.x, n = blockDim.x;
  int v = gt_val(t);
  if ((t & 31) < 16) {
    out[t] = __shfl_xor_sync(0x0000ffff, v, 3, 16);
    out[n + t] = __shfl_down_sync(0x0000ffff, v, 4, 8);
  } else {
    out[t] = __ballot_sync(0xffff0000, v & 1);
    out[n + t] = __match_any_sync(0xffff0000, v & 1);
  }
}

template <unsigned N>
__device__ void gt_tile_body(int *out) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(b);
  unsigned t = b.thread_rank(), n = b.size();
  int v = gt_val(t);
  int k = 0;
  out[k++ * n + t] = cg::reduce(tile, v, cg::plus<int>());
  out[k++ * n + t] = cg::reduce(tile, v, cg::less<int>());
  out[k++ * n + t] = cg::reduce(tile, v, cg::greater<int>());
  out[k++ * n + t] = cg::reduce(tile, (unsigned)v, cg::bit_or<unsigned>());
  out[k++ * n + t] = cg::inclusive_scan(tile, v, cg::plus<int>());
  int ex = cg::exclusive_scan(tile, v, cg::plus<int>());
  out[k++ * n + t] = t % N == 0 ? 0 : ex;  // rank 0's value is undefined in CUDA
  out[k++ * n + t] = cg::inclusive_scan(tile, v, cg::greater<int>());
  out[k++ * n + t] = tile.shfl(v, 1);
  out[k++ * n + t] = tile.ballot(v & 1);
  out[k++ * n + t] = tile.meta_group_rank();
  out[k++ * n + t] = tile.meta_group_size();
  float f = v * 0.1f + 0.001f * t;
  float s = cg::reduce(tile, f, cg::plus<float>());
  memcpy(out + k++ * n + t, &s, 4);
}
__global__ void gt_tile4(int *out) { gt_tile_body<4>(out); }
__global__ void gt_tile8(int *out) { gt_tile_body<8>(out); }
__global__ void gt_tile16(int *out) { gt_tile_body<16>(out); }
__global__ void gt_tile32(int *out) { gt_tile_body<32>(out); }
