// select_kernel.cuh — the one tile kernel behind merge and the four multiset
// operations: global partition (Merge Path or Balanced Path at every tile boundary)
// -> load tile -> per-thread path search in shared memory -> VT serial steps ->
// bitmask scan -> coalesced store. Merge writes each tile at its diagonal; the set
// operations find their tile's output offset with CUB's single-pass decoupled
// look-back (ScanTileState + TilePrefixCallbackOp), so outputs are compacted in one
// pass over the inputs.
#pragma once

#include "cuda/cta.cuh"
#include "cuda/tile_scan.cuh"

namespace mergepath {
namespace cuda {

// Serial steps, in the shape serial_select expects: the cursor they walk and one step.
struct CheckedCursor {
    template <class K>
    __device__ static auto cursor(const K* a, int ai, int a_end, const K* b, int bi, int b_end) {
        return algo::make_cursor(a, ai, a_end, b, bi, b_end);
    }
};

struct MergeStep : CheckedCursor {
    template <class C, class E>
    __device__ static bool step(C& c, E& e) {
        if (c.done()) return false;
        algo::merge_step(c, e);
        return true;
    }
};

template <SetOp Op>
struct SetOpStep : CheckedCursor {
    template <class C, class E>
    __device__ static bool step(C& c, E& e) {
        return algo::set_op_step<Op>(c, e);
    }
};

// The same multiset step as flags on a FlagCursor (reads one key past each end: the
// tile's key array is padded for it).
template <SetOp Op>
struct SetOpFlagStep {
    template <class K>
    __device__ static auto cursor(const K* a, int ai, int a_end, const K* b, int bi, int b_end) {
        return algo::FlagCursor<K, int>(a, ai, a_end, b, bi, b_end);
    }
    template <class C, class E>
    __device__ static bool step(C& c, E& e) {
        return algo::set_op_step_flags<Op>(c, e);
    }
};

template <class Box, class Path, class Step, bool Compact, class K>
__global__ void __launch_bounds__(Box::NT)
    select_kernel(const K* a, const K* b, const PathPoint* points, TaggedOut<K> out, TileState state,
                  unsigned long long* total) {
    using BlockScan = cub::BlockScan<int, Box::NT>;
    __shared__ typename BlockScan::TempStorage scan_temp;
    __shared__ TilePrefix::TempStorage prefix_temp;
    __shared__ K keys[Box::NV + 2];  // + 1 for a starred tile, + 1 read past the end by FlagCursor
    static_assert(Box::NV < 65536, "tile positions are stored in 16 bits");
    // The threads' starts are dead once they are read (block scan barriers follow
    // before any compacted position is written), so the two share memory.
    __shared__ union {
        int2 starts[Box::NT + 1];
        uint16_t compacted[Box::NV];
    } reuse;

    int tile = blockIdx.x;
    TileRange r = tile_range(points, tile);
    load_tile<Box>(a, b, r, keys);
    __syncthreads();
    ThreadRange t = thread_range<Box, Path>(keys, r, reuse.starts);
    int sel[Box::VT];
    unsigned mask = serial_select<Box::VT, Step>(keys, r.na, t, sel);
    int thread_offset, tile_count;
    BlockScan(scan_temp).ExclusiveSum(__popc(mask), thread_offset, tile_count);
    long long tile_offset = Compact ? look_back(state, prefix_temp, tile, tile_count) : (long long)tile * Box::NV;
    store_selected<Box>(keys, r, sel, mask, thread_offset, tile_count, tile_offset, reuse.compacted, out);
    if (Compact && threadIdx.x == 0 && tile == gridDim.x - 1) *total = tile_offset + tile_count;
}

// Runs the select kernel over A and B; returns the number of outputs written.
template <class Path, class Step, bool Compact, class K, class Box = TileBox<K>>
size_t run_select(Context& ctx, const K* a, int64_t na, const K* b, int64_t nb, TaggedOut<K> out) {
    int64_t total = na + nb;
    if (total == 0) return 0;
    int64_t num_tiles = ceil_div<int64_t>(total, Box::NV);
    if (num_tiles > INT32_MAX) throw Error("mergepath: input too large for one launch");
    Buffer<PathPoint> points = partition<Path>(ctx, a, na, b, nb, Box::NV, num_tiles);
    Buffer<unsigned char> state_memory;
    TileState state = Compact ? make_tile_state(ctx, num_tiles, state_memory) : TileState();
    Buffer<unsigned long long> count = ctx.alloc<unsigned long long>(1);
    select_kernel<Box, Path, Step, Compact><<<unsigned(num_tiles), Box::NT, 0, stream_of(ctx)>>>(
        a, b, points.data(), out, state, count.data());
    launched("select_kernel");
    if (!Compact) {
        synchronize(ctx, "select_kernel");
        return size_t(total);
    }
    unsigned long long written = 0;
    check(cudaMemcpyAsync(&written, count.data(), sizeof written, cudaMemcpyDeviceToHost, stream_of(ctx)),
          "copy of the output count");
    synchronize(ctx, "select_kernel");
    return size_t(written);
}

}  // namespace cuda
}  // namespace mergepath
