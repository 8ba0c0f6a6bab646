/* <cooperative_groups.h> for kernels (namespace cooperative_groups, often
 * aliased cg): this_thread_block(), tiled_partition (runtime n and
 * template N), thread_block_tile's sync/shfl/vote/match, coalesced_threads.
 * Tiles are warp collectives of pyemu's core (csrc/warp.c, through
 * detail/cuda_warp.h); thread_block::sync() is __syncthreads().
 * this_grid() is the grid; its sync() is a barrier of every thread of the
 * grid under cudaLaunchCooperativeKernel (csrc/grid.c) and fails the
 * launch in a kernel launched the ordinary way.
 * Not here yet: cluster groups, labeled partitions. */
#ifndef PYEMU_COOPERATIVE_GROUPS_H
#define PYEMU_COOPERATIVE_GROUPS_H

#ifndef PYEMU_CUDA_DEVICE_H
#include "cuda_device.h"
#endif

namespace cooperative_groups {

namespace pyemu_detail {
static inline unsigned linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
static inline unsigned tile_mask(unsigned n) {
    unsigned lane = linear_tid() & 31u;
    unsigned m = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
    return n >= 32 ? m : m << (lane / n * n);
}
/* a tile's shfl moves any trivially copyable type, as CUDA's does: values
 * over 8 bytes (uint4, a struct) go in 8-byte pieces, one collective each */
template <class pyemu_T, bool pyemu_small = (sizeof(pyemu_T) <= 8)> struct shfl_any {
    static pyemu_T run(int op, unsigned m, pyemu_T v, int a, int w, const char *f, unsigned l) {
        return pyemu_wshfl<pyemu_T>(op, m, v, a, w, f, l);
    }
};
template <class pyemu_T> struct shfl_any<pyemu_T, false> {
    static pyemu_T run(int op, unsigned m, pyemu_T v, int a, int w, const char *f, unsigned l) {
        enum { pieces = (sizeof(pyemu_T) + 7) / 8 };
        unsigned long long p[pieces] = {};
        __builtin_memcpy(p, &v, sizeof v);
        for (unsigned k = 0; k < pieces; k++)
            p[k] = pyemu_warp_op(op, m, p[k], a, w, f, l, 0u);
        __builtin_memcpy(&v, p, sizeof v);
        return v;
    }
};
}  // namespace pyemu_detail

/* A group of threads: the block, a tile of it, or the coalesced lanes. */
class thread_group {
  protected:
    unsigned pyemu_kind;   /* 0 block, 1 tile, 2 coalesced */
    unsigned pyemu_n;      /* tile size / lanes */
    unsigned pyemu_mask;   /* lanes of the warp in the group (tiles, coalesced) */
  public:
    thread_group(unsigned kind, unsigned n, unsigned mask) : pyemu_kind(kind), pyemu_n(n), pyemu_mask(mask) {}
    /* sync(): __syncthreads() for a block, __syncwarp(mask) for a tile */
    void sync(PYEMU_WLOC) const {
        if (pyemu_kind == 0)
            __syncthreads();
        else
            pyemu_warp_op(PYEMU_WARP_SYNC, pyemu_mask, 0, 0, 32, PYEMU_WARGS);
    }
    unsigned long long num_threads() const { return pyemu_kind == 0 ? pyemu_detail::block_threads() : pyemu_n; }
    unsigned long long size() const { return num_threads(); }
    unsigned long long thread_rank() const {
        unsigned t = pyemu_detail::linear_tid();
        if (pyemu_kind == 0)
            return t;
        if (pyemu_kind == 1)
            return t % pyemu_n;
        return __popc(pyemu_mask & __lanemask_lt());
    }
    bool is_valid() const { return pyemu_n != 0; }
    unsigned get_type() const { return pyemu_kind == 0 ? 4u : pyemu_kind == 1 ? 1u : 2u; }
};

/* this_thread_block(): the block */
class thread_block : public thread_group {
  public:
    unsigned long long *pyemu_scratch; /* block_tile_memory, for tiles over 32 threads */
    thread_block() : thread_group(0, 0, 0), pyemu_scratch(0) {}
    static void sync() { __syncthreads(); }
    static unsigned long long thread_rank() { return pyemu_detail::linear_tid(); }
    static unsigned long long size() { return pyemu_detail::block_threads(); }
    static unsigned long long num_threads() { return pyemu_detail::block_threads(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static dim3 dim_threads() { return group_dim(); }
    static bool is_valid() { return true; }
};
static inline thread_block this_thread_block() { return thread_block(); }

/* block_tile_memory<MaxBlockSize>: the shared memory tiles of more than 32
 * threads work through (__shared__ cg::block_tile_memory<256> m;
 * this_thread_block(m)); pyemu keeps one 8-byte slot per warp in it. */
template <unsigned int pyemu_MaxBlockSize = 1024> struct block_tile_memory {
    unsigned long long pyemu_slots[32];
};
template <unsigned int pyemu_M>
static inline thread_block this_thread_block(block_tile_memory<pyemu_M> &pyemu_m) {
    thread_block pyemu_b;
    pyemu_b.pyemu_scratch = pyemu_m.pyemu_slots;
    return pyemu_b;
}

/* this_grid(): every thread of the launch.  is_valid() is true in any
 * launch, as on an H100 with CUDA 13 (tests/data/ground_truth/grid_probe.cu);
 * sync() needs cudaLaunchCooperativeKernel. */
class grid_group {
  public:
    void sync(PYEMU_WLOC) const { pyemu_warp_op(PYEMU_GRID_SYNC, 0u, 0ull, 0, 32, PYEMU_WARGS); }
    static bool is_valid() { return true; }
    static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    static unsigned long long block_rank() {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    static unsigned long long num_threads() { return num_blocks() * pyemu_detail::block_threads(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank() {
        return block_rank() * pyemu_detail::block_threads() + pyemu_detail::linear_tid();
    }
    static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static dim3 group_dim() { return dim_threads(); }
};
static inline grid_group this_grid() { return grid_group(); }

/* tiled_partition(parent, n): a thread_group of n threads (a power of 2 up to 32) */
static inline thread_group tiled_partition(const thread_group &parent, unsigned tilesz) {
    (void)parent;
    if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)))
        __builtin_trap(); /* CUDA: a power of 2 up to 32 */
    return thread_group(1, tilesz, pyemu_detail::tile_mask(tilesz));
}

/* thread_block_tile<N>: N lanes of one warp, N a power of 2 up to 32; or
 * (CUDA 11.1's multi-warp tiles) N = 64 to 1024 threads of whole warps,
 * with sync, thread_rank, meta_group_* and cg::reduce: their sync is a
 * barrier of the tile's threads only (a tile that never syncs is not
 * waited for) */
template <unsigned pyemu_N, class pyemu_Parent = void>
class thread_block_tile : public thread_group {
    static_assert(pyemu_N > 0 && pyemu_N <= 1024 && (pyemu_N & (pyemu_N - 1)) == 0,
                  "cooperative_groups: tiled_partition<N> needs N a power of 2 up to 1024");
    unsigned pyemu_meta, pyemu_nmeta;
  public:
    unsigned long long *pyemu_scratch; /* tiles over 32 threads: block_tile_memory */
    thread_block_tile(unsigned meta, unsigned nmeta, unsigned long long *scratch = 0)
        : thread_group(1, pyemu_N, pyemu_detail::tile_mask(pyemu_N)), pyemu_meta(meta), pyemu_nmeta(nmeta),
          pyemu_scratch(scratch) {}
    template <class pyemu_P>
    thread_block_tile(const thread_block_tile<pyemu_N, pyemu_P> &o)
        : thread_group(1, pyemu_N, pyemu_detail::tile_mask(pyemu_N)), pyemu_meta(o.meta_group_rank()),
          pyemu_nmeta(o.meta_group_size()), pyemu_scratch(o.pyemu_scratch) {}
    static constexpr unsigned long long size() { return pyemu_N; }
    static constexpr unsigned long long num_threads() { return pyemu_N; }
    unsigned long long thread_rank() const { return pyemu_detail::linear_tid() % pyemu_N; }
    unsigned long long meta_group_rank() const { return pyemu_meta; }
    unsigned long long meta_group_size() const { return pyemu_nmeta; }
    void sync(PYEMU_WLOC) const {
        if (pyemu_N > 32)
            pyemu_warp_op(PYEMU_TILE_SYNC, pyemu_N, 0, 0, 32, PYEMU_WARGS);
        else
            pyemu_warp_op(PYEMU_WARP_SYNC, pyemu_mask, 0, 0, 32, PYEMU_WARGS);
    }
    template <class pyemu_T> pyemu_T shfl(pyemu_T v, int src, PYEMU_WLOC) const {
        return pyemu_detail::shfl_any<pyemu_T>::run(PYEMU_WARP_SHFL, pyemu_mask, v, src, (int)pyemu_N, PYEMU_WFL);
    }
    template <class pyemu_T> pyemu_T shfl_up(pyemu_T v, unsigned d, PYEMU_WLOC) const {
        return pyemu_detail::shfl_any<pyemu_T>::run(PYEMU_WARP_SHFL_UP, pyemu_mask, v, (int)d, (int)pyemu_N, PYEMU_WFL);
    }
    template <class pyemu_T> pyemu_T shfl_down(pyemu_T v, unsigned d, PYEMU_WLOC) const {
        return pyemu_detail::shfl_any<pyemu_T>::run(PYEMU_WARP_SHFL_DOWN, pyemu_mask, v, (int)d, (int)pyemu_N, PYEMU_WFL);
    }
    template <class pyemu_T> pyemu_T shfl_xor(pyemu_T v, unsigned m, PYEMU_WLOC) const {
        return pyemu_detail::shfl_any<pyemu_T>::run(PYEMU_WARP_SHFL_XOR, pyemu_mask, v, (int)m, (int)pyemu_N, PYEMU_WFL);
    }
    /* votes and match: bit i is the tile's thread of rank i */
    unsigned ballot(int pred, PYEMU_WLOC) const {
        return (unsigned)(pyemu_warp_op(PYEMU_WARP_BALLOT, pyemu_mask, pred != 0, 0, 32, PYEMU_WARGS) >> pyemu_base());
    }
    int any(int pred, PYEMU_WLOC) const {
        return (int)pyemu_warp_op(PYEMU_WARP_ANY, pyemu_mask, pred != 0, 0, 32, PYEMU_WARGS);
    }
    int all(int pred, PYEMU_WLOC) const {
        return (int)pyemu_warp_op(PYEMU_WARP_ALL, pyemu_mask, pred != 0, 0, 32, PYEMU_WARGS);
    }
    template <class pyemu_T> unsigned match_any(pyemu_T v, PYEMU_WLOC) const {
        return (unsigned)(pyemu_warp_op(PYEMU_WARP_MATCH_ANY, pyemu_mask, pyemu_wbits(v), 0, 32, PYEMU_WARGS) >> pyemu_base());
    }
    template <class pyemu_T> unsigned match_all(pyemu_T v, int &pred, PYEMU_WLOC) const {
        unsigned r = (unsigned)pyemu_warp_op(PYEMU_WARP_MATCH_ALL, pyemu_mask, pyemu_wbits(v), 0, 32, PYEMU_WARGS);
        pred = r != 0;
        return r >> pyemu_base();
    }
    unsigned pyemu_tile_mask() const { return pyemu_mask; }
    unsigned pyemu_base() const { return (pyemu_detail::linear_tid() & 31u) / pyemu_N * pyemu_N; }
};

template <unsigned pyemu_N>
static inline thread_block_tile<pyemu_N, thread_block> tiled_partition(const thread_block &pyemu_b) {
    unsigned t = pyemu_detail::linear_tid();
    return thread_block_tile<pyemu_N, thread_block>(t / pyemu_N, (pyemu_detail::block_threads() + pyemu_N - 1) / pyemu_N,
                                                    pyemu_b.pyemu_scratch);
}
template <unsigned pyemu_N, unsigned pyemu_M, class pyemu_P>
static inline thread_block_tile<pyemu_N, thread_block_tile<pyemu_M, pyemu_P> >
tiled_partition(const thread_block_tile<pyemu_M, pyemu_P> &parent) {
    static_assert(pyemu_N <= pyemu_M, "cooperative_groups: a tile of a tile must not be larger than it");
    return thread_block_tile<pyemu_N, thread_block_tile<pyemu_M, pyemu_P> >((unsigned)parent.thread_rank() / pyemu_N, pyemu_M / pyemu_N);
}

/* coalesced_threads(): the lanes of the warp that are here.  pyemu cannot see
 * a branch's lanes: it is every lane of the warp that has not returned. */
class coalesced_group : public thread_group {
  public:
    explicit coalesced_group(unsigned mask) : thread_group(2, (unsigned)__popc(mask), mask) {}
    unsigned long long meta_group_rank() const { return 0; }
    unsigned long long meta_group_size() const { return 1; }
    template <class pyemu_T> pyemu_T shfl(pyemu_T v, int rank, PYEMU_WLOC) const {
        unsigned src = __fns(pyemu_mask, 0, rank + 1);
        return pyemu_detail::shfl_any<pyemu_T>::run(PYEMU_WARP_SHFL, pyemu_mask, v, (int)src, 32, PYEMU_WFL);
    }
    unsigned ballot(int pred, PYEMU_WLOC) const {
        unsigned b = (unsigned)pyemu_warp_op(PYEMU_WARP_BALLOT, pyemu_mask, pred != 0, 0, 32, PYEMU_WARGS);
        unsigned r = 0, k = 0; /* compact to ranks */
        for (unsigned l = 0; l < 32; l++)
            if (pyemu_mask >> l & 1u)
                r |= (b >> l & 1u) << k++;
        return r;
    }
    int any(int pred, PYEMU_WLOC) const {
        return (int)pyemu_warp_op(PYEMU_WARP_ANY, pyemu_mask, pred != 0, 0, 32, PYEMU_WARGS);
    }
    int all(int pred, PYEMU_WLOC) const {
        return (int)pyemu_warp_op(PYEMU_WARP_ALL, pyemu_mask, pred != 0, 0, 32, PYEMU_WARGS);
    }
};
static inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <class pyemu_G> static inline void sync(const pyemu_G &g) { g.sync(); }

}  // namespace cooperative_groups

#endif /* PYEMU_COOPERATIVE_GROUPS_H */
