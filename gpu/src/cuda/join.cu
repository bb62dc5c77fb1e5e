// join.cu — CUDA backend of join expansion, in two tile passes:
//  1. count: a vectorized sorted search of A in B (Merge Path tiles, ties A-first:
//     each needle's lower bound); then each thread gallops over the run of equal B
//     keys of each distinct needle it consumed (algo::equal_run_length) for the
//     pair counts, kept out of the unrolled walk to spare registers; the counts are
//     scanned inside the same kernel (block scan + decoupled look-back), so the pass
//     writes each A row's lower bound and output offset directly;
//  2. expand: load-balancing search — the outputs 0..pairs-1 against the row
//     offsets, cut into tiles by Merge Path (ties B-first: output j belongs to the
//     last row starting at or before j); each tile stages its rows' offsets and
//     bounds in shared memory, threads walk their path steps, and the (a, b) pairs
//     are stored coalesced.
// Semi/anti joins and the unmatched B rows of right/full joins are CUB selections
// over match flags.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "backends.h"
#include "cuda/search_tile.cuh"
#include "cuda/tile_scan.cuh"

namespace mergepath {
namespace cuda {
namespace {

// Launch boxes: the count pass needs room for keys, packed per-needle results and
// match flags in static shared memory; the expand pass for two int64 row arrays.
template <class K>
struct CountBox : LaunchBox<256, 13> {};
template <>
struct CountBox<Key128> : LaunchBox<128, 11> {};
using ExpandBox = LaunchBox<256, 8>;

constexpr uint64_t kUnmatched = ~uint64_t(0);  // lower bound of an unmatched row kept by left/full

// Per needle, the count pass keeps its tile-local lower bound and its run length in
// one word; a run too long for the field is marked and recomputed from global memory.
constexpr int kBoundBits = 12;
constexpr uint32_t kRunCap = (1u << (32 - kBoundBits)) - 1;
__device__ inline uint32_t pack(int bound, int64_t run) {
    return uint32_t(bound) | (uint32_t(run < kRunCap ? run : kRunCap) << kBoundBits);
}
__device__ inline int packed_bound(uint32_t p) { return int(p & ((1u << kBoundBits) - 1)); }
__device__ inline uint32_t packed_run(uint32_t p) { return p >> kBoundBits; }

__device__ inline int64_t pairs_of(int64_t run, bool keep_unmatched) { return run == 0 && keep_unmatched ? 1 : run; }

struct CountOut {
    uint64_t* lower;    // na: B position of the first match (kUnmatched: row kept without one)
    uint64_t* offsets;  // na + 1: first output of each row; offsets[na] = pairs
    uint8_t* b_match;   // nb, or null
    bool keep_unmatched;
};

template <class K>
struct CountArgs {
    const K* a;
    int64_t na;
    const K* b;
    int64_t nb;
};

// The run length of needle i of the tile (recomputed from global memory if capped).
template <class K>
__device__ int64_t needle_run(uint32_t p, int i, const TileRange& r, const CountArgs<K>& in) {
    uint32_t run = packed_run(p);
    if (run < kRunCap) return run;
    return algo::equal_run_length(in.b, r.b0 + packed_bound(p), in.nb, in.a[r.a0 + i]);
}

// Five blocks of 256 threads per SM: registers capped at 51, shared memory under
// 45 KB when no B match flags are staged (inner and left joins).
template <class Box, bool WithBMatch, class K>
__global__ void __launch_bounds__(Box::NT, 5)
    count_kernel(CountArgs<K> in, const PathPoint* points, CountOut out, TileState state) {
    static_assert(Box::NV < (1 << kBoundBits), "tile too large for the packed bound");
    constexpr int kWords = (Box::NV + 1) * (sizeof(K) > 8 ? sizeof(K) : 8) / 8;
    using BlockScan = cub::BlockScan<long long, Box::NT>;
    __shared__ typename BlockScan::TempStorage scan_temp;
    __shared__ TilePrefix::TempStorage prefix_temp;
    __shared__ uint64_t tile_words[kWords];  // the tile's keys, then the rows' offsets
    __shared__ int2 starts[Box::NT + 1];
    __shared__ uint32_t packed[Box::NV + 1];
    __shared__ uint8_t b_match[WithBMatch ? Box::NV + 1 : 1];
    K* keys = reinterpret_cast<K*>(tile_words);

    TileRange r = tile_range(points, blockIdx.x);
    load_tile<Box>(in.a, in.b, r, keys);
    __syncthreads();
    ThreadRange t = thread_range<Box, MergePathKind<algo::Ties::AFirst>>(keys, r, starts);
    TileHaystack<K> hay{keys + r.na, r.nb, in.b, r.b0};
    walk_tile<Box, algo::Ties::AFirst>(
        keys, r, t, [&](int pos, int bound) { packed[pos] = uint32_t(bound); },
        [&](int pos, int next_needle) {
            if (WithBMatch) b_match[pos] = haystack_matches(keys[r.na + pos], next_needle, r, keys, in.a);
        });
    // The thread's own needles (written above by itself): gallop once per distinct key.
    long long thread_pairs = 0;
    int64_t run = 0;
    for (int i = t.a; i < t.a_end; ++i) {
        int bound = int(packed[i]);
        if (i == t.a || keys[i - 1] != keys[i]) run = algo::equal_run_length(hay, int64_t(bound), in.nb - r.b0, keys[i]);
        thread_pairs += pairs_of(run, out.keep_unmatched);
        packed[i] = pack(bound, run);
    }
    long long thread_offset, tile_pairs;
    BlockScan(scan_temp).ExclusiveSum(thread_pairs, thread_offset, tile_pairs);
    long long tile_offset = look_back(state, prefix_temp, blockIdx.x, tile_pairs);
    __syncthreads();  // every walk is done: the keys' space now stages offsets
    long long* row_offsets = reinterpret_cast<long long*>(tile_words);
    long long next = tile_offset + thread_offset;
    for (int i = t.a; i < t.a_end; ++i) {
        row_offsets[i] = next;
        next += pairs_of(needle_run(packed[i], i, r, in), out.keep_unmatched);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < r.na; i += Box::NT) {
        uint32_t p = packed[i];
        bool unmatched = packed_run(p) == 0;
        out.lower[r.a0 + i] = unmatched && out.keep_unmatched ? kUnmatched : uint64_t(r.b0 + packed_bound(p));
        out.offsets[r.a0 + i] = uint64_t(row_offsets[i]);
    }
    if (WithBMatch)
        for (int j = threadIdx.x; j < r.nb; j += Box::NT) out.b_match[r.b0 + j] = b_match[j];
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) out.offsets[in.na] = uint64_t(tile_offset + tile_pairs);
}

// Pass 1: lower bounds, offsets (and B match flags); returns the number of pairs.
template <class K>
uint64_t count_pairs(Context& ctx, const CountArgs<K>& in, CountOut out) {
    using Box = CountBox<K>;
    int64_t total = in.na + in.nb;
    if (total == 0) return 0;
    int64_t num_tiles = ceil_div<int64_t>(total, Box::NV);
    Buffer<PathPoint> points =
        partition<MergePathKind<algo::Ties::AFirst>>(ctx, in.a, in.na, in.b, in.nb, Box::NV, num_tiles);
    Buffer<unsigned char> state_memory;
    TileState state = make_tile_state(ctx, num_tiles, state_memory);
    if (out.b_match)
        count_kernel<Box, true><<<unsigned(num_tiles), Box::NT, 0, stream_of(ctx)>>>(in, points.data(), out, state);
    else
        count_kernel<Box, false><<<unsigned(num_tiles), Box::NT, 0, stream_of(ctx)>>>(in, points.data(), out, state);
    launched("count_kernel");
    uint64_t pairs = 0;
    check(cudaMemcpyAsync(&pairs, out.offsets + in.na, sizeof pairs, cudaMemcpyDeviceToHost, stream_of(ctx)), "pair count");
    synchronize(ctx, "count_kernel");
    return pairs;
}

// Pass 2: the load-balancing search. Tile rows [first_row, p1.b) are staged (the row
// of a tile's first output may start in an earlier tile, hence first_row = p0.b - 1)
// as their first output and the distance from it to their first B match, so output
// j of row i pairs with B row j + delta[i].
constexpr int64_t kNoDelta = INT64_MIN;  // the row has no match (left/full)

__global__ void __launch_bounds__(ExpandBox::NT)
    expand_kernel(const PathPoint* points, const uint64_t* offsets, const uint64_t* lower, int64_t* a_rows,
                  int64_t* b_rows) {
    constexpr int NV = ExpandBox::NV;
    static_assert(NV + 2 < 65536, "tile rows are stored in 16 bits");
    __shared__ int64_t row_start[NV + 2];
    __shared__ int64_t row_delta[NV + 2];
    __shared__ int2 starts[ExpandBox::NT + 1];
    __shared__ uint16_t row_of[NV];
    PathPoint p0 = points[blockIdx.x], p1 = points[blockIdx.x + 1];
    int64_t first_row = p0.b > 0 ? p0.b - 1 : 0;
    int n_out = int(p1.a - p0.a), n_rows = int(p1.b - p0.b), staged = int(p1.b - first_row);
    for (int i = threadIdx.x; i < staged; i += ExpandBox::NT) {
        int64_t start = int64_t(offsets[first_row + i]);
        uint64_t lo = lower[first_row + i];
        row_start[i] = start;
        row_delta[i] = lo == kUnmatched ? kNoDelta : int64_t(lo) - start;
    }
    __syncthreads();
    const int64_t* tile_starts = row_start + (p0.b - first_row);
    algo::Counting<int64_t> outputs{p0.a};
    int diag = min(int(threadIdx.x) * ExpandBox::VT, n_out + n_rows);
    int oi = algo::merge_path<algo::Ties::BFirst>(outputs, n_out, tile_starts, n_rows, diag);
    starts[threadIdx.x] = make_int2(oi, diag - oi);
    if (threadIdx.x == 0) starts[ExpandBox::NT] = make_int2(n_out, n_rows);
    __syncthreads();
    int2 end = starts[threadIdx.x + 1];
    algo::Cursor<algo::Counting<int64_t>, const int64_t*, int64_t, int> c(outputs, oi, end.x, tile_starts, diag - oi, end.y);
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

void expand_pairs(Context& ctx, const uint64_t* offsets, int64_t na, uint64_t pairs, const uint64_t* lower,
                  int64_t* a_rows, int64_t* b_rows) {
    int64_t num_tiles = ceil_div<int64_t>(int64_t(pairs) + na, ExpandBox::NV);
    if (num_tiles > INT32_MAX) throw Error("mergepath: join output too large for one launch");
    const int64_t* starts = reinterpret_cast<const int64_t*>(offsets);
    Buffer<PathPoint> points = partition<MergePathKind<algo::Ties::BFirst>>(
        ctx, algo::Counting<int64_t>{0}, int64_t(pairs), starts, na, ExpandBox::NV, num_tiles);
    expand_kernel<<<unsigned(num_tiles), ExpandBox::NT, 0, stream_of(ctx)>>>(points.data(), offsets, lower, a_rows,
                                                                             b_rows);
    launched("expand_kernel");
}

struct FlagIs {
    const uint8_t* flags;
    bool want;
    __device__ bool operator()(int64_t i) const { return (flags[i] != 0) == want; }
};

// Positions i in [0, n) with flags[i] == want, ascending, written to out.
size_t select_flagged(Context& ctx, const uint8_t* flags, bool want, int64_t n, int64_t* out) {
    if (n == 0) return 0;
    Buffer<long long> selected = ctx.alloc<long long>(1);
    thrust::counting_iterator<int64_t> positions(0);
    size_t bytes = 0;
    auto run = [&](void* temp) {
        return cub::DeviceSelect::If(temp, bytes, positions, out, selected.data(), n, FlagIs{flags, want},
                                     stream_of(ctx));
    };
    check(run(nullptr), "DeviceSelect::If");
    Buffer<unsigned char> temp = ctx.alloc<unsigned char>(bytes);
    check(run(temp.data()), "DeviceSelect::If");
    long long count = 0;
    check(cudaMemcpyAsync(&count, selected.data(), sizeof count, cudaMemcpyDeviceToHost, stream_of(ctx)), "select count");
    synchronize(ctx, "DeviceSelect::If");
    return size_t(count);
}

template <class K>
JoinResult semi_anti_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    JoinResult r;
    SearchResult s = cuda::sorted_search<K>(ctx, a, b, join_shape(kind).search);
    r.a_rows = ctx.alloc<int64_t>(a.size);
    r.count = select_flagged(ctx, s.a_match.data(), kind == JoinKind::Semi, a.size, r.a_rows.data());
    return r;
}

}  // namespace

template <class K>
JoinResult join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    const JoinShape shape = join_shape(kind);
    if (shape.semi_anti) return semi_anti_join(ctx, kind, a, b);
    int64_t na = a.size, nb = b.size;
    Buffer<uint64_t> lower = ctx.alloc<uint64_t>(na), offsets = ctx.alloc<uint64_t>(na + 1);
    Buffer<uint8_t> b_match = shape.keep_unmatched_b ? ctx.alloc<uint8_t>(nb) : Buffer<uint8_t>();
    CountOut counted{lower.data(), offsets.data(), b_match.data(), shape.keep_unmatched_a};
    uint64_t pairs = count_pairs<K>(ctx, CountArgs<K>{a.data, na, b.data, nb}, counted);
    JoinResult r;
    size_t capacity = pairs + (shape.keep_unmatched_b ? nb : 0);
    r.a_rows = ctx.alloc<int64_t>(capacity);
    r.b_rows = ctx.alloc<int64_t>(capacity);
    if (pairs) expand_pairs(ctx, offsets.data(), na, pairs, lower.data(), r.a_rows.data(), r.b_rows.data());
    size_t unmatched_b = shape.keep_unmatched_b ? select_flagged(ctx, b_match.data(), false, nb, r.b_rows.data() + pairs) : 0;
    if (unmatched_b)
        check(cudaMemsetAsync(r.a_rows.data() + pairs, 0xff, unmatched_b * sizeof(int64_t), stream_of(ctx)), "memset");
    synchronize(ctx, "join");
    r.count = pairs + unmatched_b;
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_JOIN)

}  // namespace cuda
}  // namespace mergepath
