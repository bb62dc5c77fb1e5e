// cuda_pair_join_deferred.cuh — the second pass of the kernel benchmark's CUDA pair
// join (cuda_pair_join.cu; not what SQL runs: SQL uses sql_join.h's SqlJoin and the
// extension expands the pairs itself), for the tiles the first pass could not expand
// itself (more pairs than its shared memory holds, or past the speculative output
// capacity). Such a tile leaves each of its A rows' first output and first B match in
// global memory and registers itself as deferred; this pass expands all deferred tiles
// together with the load-balancing search (Baxter & Merrill): each deferred tile's
// outputs and rows are cut into chunks of equal path length by Merge Path (outputs
// against row starts, ties B-first: output j belongs to the last row starting at or
// before j), so one huge run of matches is spread over many blocks; each block stages
// its rows' offsets in shared memory, threads walk their path steps, and the (a, b)
// pairs are stored coalesced.
#pragma once

#include <cub/device/device_scan.cuh>

#include "algo/serial_steps.h"
#include "cuda/common.cuh"
#include "pair_join.h"
#include "pair_join_algo.h"

namespace mergepath {
namespace cuda {

constexpr uint64_t kUnmatched = ~uint64_t(0);  // first B match of a row kept without one (left/full)

// A tile whose pairs the second pass writes: A rows [a0, a0 + rows), outputs
// [out0, out0 + pairs).
struct DeferredTile {
    int64_t a0, rows, out0, pairs;
};

// Rows of deferred tiles: output offset and first B match (kUnmatched: kept unmatched).
struct DeferredRows {
    const uint64_t* offsets;
    const uint64_t* lower;
};

using ExpandBox = LaunchBox<256, 8>;

// Output j of row i pairs with B row j + delta[i]; kNoDelta: the row has no match.
constexpr int64_t kNoDelta = INT64_MIN;

// One chunk: outputs [p0.a, p1.a) of rows [p0.b, p1.b) (global positions). Rows
// [first_row, p1.b) are staged as their first output and the distance to their first
// B match; first_row is p0.b - 1 when the chunk's first output belongs to the row
// before p0.b (a chunk cut inside a row), else p0.b (the row before may belong to a
// tile that wrote its pairs itself, whose rows were never written).
static __global__ void __launch_bounds__(ExpandBox::NT)
    expand_kernel(const PathPoint* begins, const PathPoint* ends, DeferredRows rows, int64_t* a_rows,
                  int64_t* b_rows) {
    constexpr int NV = ExpandBox::NV;
    static_assert(NV + 2 < 65536, "chunk rows are stored in 16 bits");
    __shared__ int64_t row_start[NV + 2];
    __shared__ int64_t row_delta[NV + 2];
    __shared__ int2 starts[ExpandBox::NT + 1];
    __shared__ uint16_t row_of[NV];
    PathPoint p0 = begins[blockIdx.x], p1 = ends[blockIdx.x];
    bool cut_inside_row = p0.b > 0 && (p1.b == p0.b || rows.offsets[p0.b] > uint64_t(p0.a));
    int64_t first_row = cut_inside_row ? p0.b - 1 : p0.b;
    int n_out = int(p1.a - p0.a), n_rows = int(p1.b - p0.b), staged = int(p1.b - first_row);
    for (int i = threadIdx.x; i < staged; i += ExpandBox::NT) {
        uint64_t start = rows.offsets[first_row + i], lo = rows.lower[first_row + i];
        row_start[i] = int64_t(start);
        row_delta[i] = lo == kUnmatched ? kNoDelta : int64_t(lo - start);
    }
    __syncthreads();
    const int64_t* chunk_starts = row_start + (p0.b - first_row);
    algo::Counting<int64_t> outputs{p0.a};
    int diag = min(int(threadIdx.x) * ExpandBox::VT, n_out + n_rows);
    int oi = algo::merge_path<algo::Ties::BFirst>(outputs, n_out, chunk_starts, n_rows, diag);
    starts[threadIdx.x] = make_int2(oi, diag - oi);
    if (threadIdx.x == 0) starts[ExpandBox::NT] = make_int2(n_out, n_rows);
    __syncthreads();
    int2 end = starts[threadIdx.x + 1];
    algo::Cursor<algo::Counting<int64_t>, const int64_t*, int64_t, int> c(outputs, oi, end.x, chunk_starts, diag - oi,
                                                                          end.y);
#pragma unroll
    for (int step = 0; step < ExpandBox::VT; ++step) {
        if (c.done()) break;
        int pos, bound;
        if (algo::search_step<algo::Ties::BFirst>(c, pos, bound)) row_of[pos] = uint16_t(int(p0.b - first_row) + bound - 1);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n_out; i += ExpandBox::NT) {
        int row = row_of[i];
        int64_t out = p0.a + i, delta = row_delta[row];
        a_rows[out] = first_row + row;
        b_rows[out] = delta == kNoDelta ? kNoRow : out + delta;
    }
}

// Path length of a deferred tile (outputs + rows) and its number of chunks.
__device__ inline int64_t chunks_of(const DeferredTile& t) { return (t.pairs + t.rows + ExpandBox::NV - 1) / ExpandBox::NV; }

static __global__ void count_chunks(const DeferredTile* tiles, int64_t n, int64_t* chunks) {
    int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) chunks[i] = chunks_of(tiles[i]);
}

// Chunk c's first and last path points: its tile is the first whose inclusive chunk
// sum exceeds c; Merge Path over that tile's outputs and row starts.
static __global__ void partition_chunks(const DeferredTile* tiles, const int64_t* chunk_ends, int64_t n_tiles,
                                        int64_t n_chunks, DeferredRows rows, PathPoint* begins, PathPoint* ends) {
    int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= n_chunks) return;
    int64_t h = algo::binary_search<false>(chunk_ends, int64_t(0), n_tiles, c);
    DeferredTile t = tiles[h];
    int64_t first_chunk = h > 0 ? chunk_ends[h - 1] : 0, length = t.pairs + t.rows;
    int64_t d0 = (c - first_chunk) * ExpandBox::NV, d1 = min(d0 + ExpandBox::NV, length);
    const int64_t* starts = reinterpret_cast<const int64_t*>(rows.offsets) + t.a0;
    algo::Counting<int64_t> outputs{t.out0};
    int64_t o0 = algo::merge_path<algo::Ties::BFirst>(outputs, t.pairs, starts, t.rows, d0);
    int64_t o1 = algo::merge_path<algo::Ties::BFirst>(outputs, t.pairs, starts, t.rows, d1);
    begins[c] = PathPoint{t.out0 + o0, t.a0 + d0 - o0};
    ends[c] = PathPoint{t.out0 + o1, t.a0 + d1 - o1};
}

// Expands the n_tiles deferred tiles into a_rows / b_rows.
inline void expand_deferred(Context& ctx, const DeferredTile* tiles, int64_t n_tiles, DeferredRows rows,
                            int64_t* a_rows, int64_t* b_rows) {
    Buffer<int64_t> chunks = ctx.alloc<int64_t>(n_tiles), chunk_ends = ctx.alloc<int64_t>(n_tiles);
    unsigned grid = unsigned(ceil_div<int64_t>(n_tiles, 128));
    count_chunks<<<grid, 128, 0, stream_of(ctx)>>>(tiles, n_tiles, chunks.data());
    launched("count_chunks");
    size_t bytes = 0;
    auto scan = [&](void* temp) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, chunks.data(), chunk_ends.data(), n_tiles, stream_of(ctx));
    };
    check(scan(nullptr), "DeviceScan::InclusiveSum");
    Buffer<unsigned char> temp = ctx.alloc<unsigned char>(bytes);
    check(scan(temp.data()), "DeviceScan::InclusiveSum");
    int64_t n_chunks = 0;
    check(cudaMemcpyAsync(&n_chunks, chunk_ends.data() + n_tiles - 1, sizeof n_chunks, cudaMemcpyDeviceToHost,
                          stream_of(ctx)),
          "chunk count");
    synchronize(ctx, "DeviceScan::InclusiveSum");
    if (n_chunks > INT32_MAX) throw Error("mergepath: pair_join output too large for one launch");
    Buffer<PathPoint> begins = ctx.alloc<PathPoint>(n_chunks), ends = ctx.alloc<PathPoint>(n_chunks);
    partition_chunks<<<unsigned(ceil_div<int64_t>(n_chunks, 128)), 128, 0, stream_of(ctx)>>>(
        tiles, chunk_ends.data(), n_tiles, n_chunks, rows, begins.data(), ends.data());
    launched("partition_chunks");
    expand_kernel<<<unsigned(n_chunks), ExpandBox::NT, 0, stream_of(ctx)>>>(begins.data(), ends.data(), rows, a_rows,
                                                                            b_rows);
    launched("expand_kernel");
    synchronize(ctx, "expand_kernel");
}

}  // namespace cuda
}  // namespace mergepath
