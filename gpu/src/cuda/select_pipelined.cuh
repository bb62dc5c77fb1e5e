// select_pipelined.cuh — a software-pipelined form of select_kernel (the Balanced
// Path / Merge Path tile kernel of the multiset operations and merge), to test
// whether overlapping loads with compute beats the one-shot kernel. The blocks are
// persistent: as many as fit on the device at once, block b taking tiles b, b + G,
// b + 2G, ... (G = gridDim.x) in increasing order. Each block keeps its tiles' keys
// in two shared-memory buffers and, while it computes one tile (per-thread path
// search, serial steps, block scan, decoupled look-back, store: the same steps as
// select_kernel), the next tile's keys arrive in the other buffer by asynchronous
// copies (cp.async through the <cuda_pipeline.h> primitives), so DRAM keeps
// streaming while the block computes.
//
// Look-back stays deadlock-free: every block is resident (the grid is capped at the
// occupancy limit and launched cooperatively, which guarantees it) and a tile waits
// only on lower tiles, which their blocks reach before any higher tile of their own.
#pragma once

#include <cuda_pipeline.h>

#include <algorithm>

#include "cuda/select_kernel.cuh"

namespace mergepath {
namespace cuda {

// Key slots of one tile buffer: NV, + 1 for a starred tile, + 1 read past the end
// by FlagCursor (as in select_kernel).
template <class Box>
constexpr int pipelined_slots() { return Box::NV + 2; }

// Dynamic shared memory of the pipelined kernel: two tile buffers.
template <class Box, class K>
constexpr size_t pipelined_smem_bytes() { return 2 * size_t(pipelined_slots<Box>()) * sizeof(K); }

// Starts the asynchronous copy of one key from global to shared memory, in pieces of
// the key's alignment (4, 8 or 16 bytes: cp.async needs both addresses aligned to
// the piece size; a 128-bit key aligned to 8 bytes takes two pieces).
template <class K>
__device__ void copy_key_async(K* dst, const K* src) {
    constexpr size_t piece = alignof(K) < 16 ? alignof(K) : 16;
    static_assert(piece == 4 || piece == 8 || piece == 16, "cp.async copies 4, 8 or 16 bytes");
    static_assert(sizeof(K) % piece == 0, "keys are whole pieces");
#pragma unroll
    for (size_t off = 0; off < sizeof(K); off += piece)
        __pipeline_memcpy_async(reinterpret_cast<char*>(dst) + off, reinterpret_cast<const char*>(src) + off, piece);
}

// load_tile with asynchronous copies: A[a0, a0+na) then B[b0, b0+nb) into
// keys[0, na+nb), committed as one batch of this thread's copies. The keys may be
// read once every thread has waited for the batch and the block has synchronized.
template <class Box, class K>
__device__ void load_tile_async(const K* a, const K* b, const TileRange& r, K* keys) {
    auto source = [&](int i) { return i < r.na ? a + (r.a0 + i) : b + (r.b0 + (i - r.na)); };
    int n = r.count();
    if (n >= Box::NV) {
#pragma unroll
        for (int j = 0; j < Box::VT; ++j) {
            int i = j * Box::NT + threadIdx.x;
            copy_key_async(keys + i, source(i));
        }
        if (threadIdx.x == 0 && n > Box::NV) copy_key_async(keys + Box::NV, source(Box::NV));
    } else {
        for (int i = threadIdx.x; i < n; i += Box::NT) copy_key_async(keys + i, source(i));
    }
    __pipeline_commit();
}

// Shared memory of the pipelined kernel besides its two key buffers.
template <class Box>
struct PipelinedScratch {
    typename cub::BlockScan<int, Box::NT>::TempStorage scan;
    TilePrefix::TempStorage prefix;
    int2 starts[Box::NT + 1];
    uint16_t compacted[Box::NV];
};

// select_kernel's body for one tile whose keys are in shared memory: path search,
// serial steps, block scan, look-back and store. Synchronizes the block.
template <class Box, class Path, class Step, bool Compact, class K>
__device__ void select_tile(const K* keys, const TileRange& r, int tile, int num_tiles, PipelinedScratch<Box>& s,
                            TileState& state, TaggedOut<K> out, unsigned long long* total) {
    ThreadRange t = thread_range<Box, Path>(keys, r, s.starts);
    int sel[Box::VT];
    unsigned mask = serial_select<Box::VT, Step>(keys, r.na, t, sel);
    int thread_offset, tile_count;
    cub::BlockScan<int, Box::NT>(s.scan).ExclusiveSum(__popc(mask), thread_offset, tile_count);
    long long tile_offset = Compact ? look_back(state, s.prefix, tile, tile_count) : (long long)tile * Box::NV;
    store_selected<Box>(keys, r, sel, mask, thread_offset, tile_count, tile_offset, s.compacted, out);
    if (Compact && threadIdx.x == 0 && tile == num_tiles - 1) *total = tile_offset + tile_count;
}

// Persistent, double-buffered select kernel (gridDim.x <= num_tiles). One barrier
// per tile, at the top of the loop: after it, (1) every thread's copies of the
// current tile have landed (each waited for its own before the barrier), and (2)
// every thread has finished the previous tile, the last reader of the other buffer,
// so the prefetch may overwrite it. The scratch (starts, scan, prefix, compacted) is
// reused across tiles behind the barriers inside select_tile and this one.
template <class Box, class Path, class Step, bool Compact, class K>
__global__ void __launch_bounds__(Box::NT)
    select_kernel_pipelined(const K* a, const K* b, const PathPoint* points, TaggedOut<K> out, TileState state,
                            unsigned long long* total, int num_tiles) {
    static_assert(Box::NV < 65536, "tile positions are stored in 16 bits");
    __shared__ PipelinedScratch<Box> scratch;
    extern __shared__ __align__(16) unsigned char pipelined_keys[];
    K* keys = reinterpret_cast<K*>(pipelined_keys);  // the current tile's buffer
    K* spare = keys + pipelined_slots<Box>();          // the next tile's

    int tile = blockIdx.x;
    load_tile_async<Box>(a, b, tile_range(points, tile), keys);
    for (;;) {
        bool has_next = tile < num_tiles - int(gridDim.x);
        TileRange r = tile_range(points, tile);
        TileRange next = has_next ? tile_range(points, tile + gridDim.x) : TileRange{};
        __pipeline_wait_prior(0);
        __syncthreads();
        if (has_next) load_tile_async<Box>(a, b, next, spare);
        select_tile<Box, Path, Step, Compact>(keys, r, tile, num_tiles, scratch, state, out, total);
        if (!has_next) break;
        tile += gridDim.x;
        K* done = keys;
        keys = spare;
        spare = done;
    }
}

// Blocks of the pipelined kernel that fit on one SM (0 if none does). Sets the
// kernel's attributes first: its dynamic shared memory limit (over the 48 KB
// default), and a preference for the largest shared-memory carveout, so that the
// launch gets the residency counted here.
template <class Box, class Path, class Step, bool Compact, class K>
int pipelined_blocks_per_sm() {
    auto kernel = select_kernel_pipelined<Box, Path, Step, Compact, K>;
    int smem = int(pipelined_smem_bytes<Box, K>());
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
          "cudaFuncSetAttribute(select_kernel_pipelined, dynamic shared memory)");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
          "cudaFuncSetAttribute(select_kernel_pipelined, carveout)");
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Box::NT, size_t(smem)),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor(select_kernel_pipelined)");
    return blocks;
}

// The persistent grid: every block resident at once, and no more blocks than tiles.
template <class Box, class Path, class Step, bool Compact, class K>
unsigned pipelined_grid(int64_t num_tiles) {
    int per_sm = pipelined_blocks_per_sm<Box, Path, Step, Compact, K>();
    if (per_sm == 0) throw Error("mergepath: select_kernel_pipelined does not fit on an SM");
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    return unsigned(std::min<int64_t>(num_tiles, int64_t(sms) * per_sm));
}

// Launches the pipelined kernel as a cooperative kernel: the launch fails (rather
// than the look-back hanging) if its blocks cannot all be resident at once.
template <class Box, class Path, class Step, bool Compact, class K>
void launch_pipelined(Context& ctx, unsigned grid, const K* a, const K* b, const PathPoint* points,
                      TaggedOut<K> out, TileState state, unsigned long long* total, int num_tiles) {
    void* args[] = {&a, &b, &points, &out, &state, &total, &num_tiles};
    check(cudaLaunchCooperativeKernel(select_kernel_pipelined<Box, Path, Step, Compact, K>, dim3(grid),
                                      dim3(Box::NT), args, pipelined_smem_bytes<Box, K>(), stream_of(ctx)),
          "select_kernel_pipelined");
}

// run_select with the pipelined kernel: same partition, tile states and result
// (the number of outputs written).
template <class Path, class Step, bool Compact, class K, class Box = TileBox<K>>
size_t run_select_pipelined(Context& ctx, const K* a, int64_t na, const K* b, int64_t nb, TaggedOut<K> out) {
    int64_t total = na + nb;
    if (total == 0) return 0;
    int64_t num_tiles = ceil_div<int64_t>(total, Box::NV);
    if (num_tiles > INT32_MAX) throw Error("mergepath: input too large for one launch");
    unsigned grid = pipelined_grid<Box, Path, Step, Compact, K>(num_tiles);
    Buffer<PathPoint> points = partition<Path>(ctx, a, na, b, nb, Box::NV, num_tiles);
    Buffer<unsigned char> state_memory;
    TileState state = Compact ? make_tile_state(ctx, num_tiles, state_memory) : TileState();
    Buffer<unsigned long long> count = ctx.alloc<unsigned long long>(1);
    launch_pipelined<Box, Path, Step, Compact>(ctx, grid, a, b, points.data(), out, state, count.data(),
                                               int(num_tiles));
    if (!Compact) {
        synchronize(ctx, "select_kernel_pipelined");
        return size_t(total);
    }
    unsigned long long written = 0;
    check(cudaMemcpyAsync(&written, count.data(), sizeof written, cudaMemcpyDeviceToHost, stream_of(ctx)),
          "copy of the output count");
    synchronize(ctx, "select_kernel_pipelined");
    return size_t(written);
}

}  // namespace cuda
}  // namespace mergepath
