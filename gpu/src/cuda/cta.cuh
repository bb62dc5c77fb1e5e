// cta.cuh — block-level building blocks of the merge-like kernels (moderngpu's
// two-layer structure): a tile is the stretch of the path between two partition
// points; the block loads its A and B ranges into shared memory, each thread finds
// its own start on the path inside the tile (Merge Path or Balanced Path search in
// shared memory), runs VT serial steps in registers, and the selected outputs are
// compacted with a block scan of per-thread counts (a bitmask per thread) and stored
// with coalesced writes.
#pragma once

#include <cub/block/block_scan.cuh>

#include "algo/serial_steps.h"
#include "cuda/common.cuh"

namespace mergepath {
namespace cuda {

// The tile's ranges of A and B (global positions) and their lengths.
struct TileRange {
    int64_t a0, b0;
    int na, nb;
    __device__ int count() const { return na + nb; }
};

__device__ inline TileRange tile_range(const PathPoint* points, int64_t tile) {
    PathPoint p0 = points[tile], p1 = points[tile + 1];
    return {p0.a, p0.b, int(p1.a - p0.a), int(p1.b - p0.b)};
}

// Loads A[a0, a0+na) then B[b0, b0+nb) into keys[0, na+nb) (na + nb <= NV + 1).
// Tiles of NV - 1 or more elements (every tile but the last: a starred start point
// makes a Balanced Path tile one short, a starred end one long) take the unrolled
// path, with a range check only in the last step; addresses are tile pointers plus
// 32-bit offsets.
template <class Box, class K>
__device__ void load_tile(const K* a, const K* b, const TileRange& r, K* keys) {
    const K* a_tile = a + r.a0;
    const K* b_tile = b + r.b0;
    int n = r.count();
    if (n >= Box::NV - 1) {
#pragma unroll
        for (int j = 0; j < Box::VT; ++j) {
            int i = j * Box::NT + threadIdx.x;
            if (j < Box::VT - 1 || i < n) keys[i] = i < r.na ? a_tile[i] : b_tile[i - r.na];
        }
        if (threadIdx.x == 0 && n > Box::NV) keys[Box::NV] = b_tile[Box::NV - r.na];
    } else {
        for (int i = threadIdx.x; i < n; i += Box::NT) keys[i] = i < r.na ? a_tile[i] : b_tile[i - r.na];
    }
}

// Every thread's range inside the tile: starts[t] is thread t's path point at local
// diagonal t * VT; the range ends where thread t + 1 starts.
struct ThreadRange {
    int a, a_end, b, b_end;
};

template <class Box, class Path, class K>
__device__ ThreadRange thread_range(const K* keys, const TileRange& r, int2* starts) {
    int diag = min(int(threadIdx.x) * Box::VT, r.count());
    int ai, bi;
    Path::search(keys, r.na, keys + r.na, r.nb, diag, ai, bi);
    starts[threadIdx.x] = make_int2(ai, bi);
    if (threadIdx.x == 0) starts[Box::NT] = make_int2(r.na, r.nb);
    __syncthreads();
    int2 end = starts[threadIdx.x + 1];
    return {ai, end.x, bi, end.y};
}

// Runs VT serial steps of Step over the thread's range; the emitted elements' tile
// positions (A at [0, na), B at na + j) go to sel[], flagged in the returned bitmask.
template <int VT, class Step, class K>
__device__ unsigned serial_select(const K* keys, int na, ThreadRange t, int (&sel)[VT]) {
    static_assert(VT <= 32, "one bit per step in a 32-bit mask");
    auto c = Step::cursor(keys, t.a, t.a_end, keys + na, t.b, t.b_end);
    unsigned mask = 0;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
        algo::Emit<K, int> e;
        if (Step::step(c, e)) {
            sel[i] = e.from_b ? na + e.pos : e.pos;
            mask |= 1u << i;
        }
    }
    return mask;
}

// Output of the select kernels: keys and/or tagged indices (either may be null).
template <class K>
struct TaggedOut {
    K* keys;
    uint64_t* indices;
};

// Compacts the threads' selections (tile positions, 16 bits: half the shared memory
// of int indices, so larger tiles fit) into shared memory (block scan of the bitmask
// counts) and stores the tile's outputs at out + tile_offset, coalesced.
template <class Box, class K>
__device__ void store_selected(const K* keys, const TileRange& r, const int (&sel)[Box::VT], unsigned mask,
                               int thread_offset, int tile_count, int64_t tile_offset, uint16_t* compacted,
                               TaggedOut<K> out) {
#pragma unroll
    for (int i = 0; i < Box::VT; ++i)
        if (mask & (1u << i)) compacted[thread_offset++] = uint16_t(sel[i]);
    __syncthreads();
    for (int i = threadIdx.x; i < tile_count; i += Box::NT) {
        int s = compacted[i];
        if (out.keys) out.keys[tile_offset + i] = keys[s];
        if (out.indices)
            out.indices[tile_offset + i] = s < r.na ? uint64_t(r.a0 + s) : (uint64_t(r.b0 + s - r.na) | kFromB);
    }
}

}  // namespace cuda
}  // namespace mergepath
