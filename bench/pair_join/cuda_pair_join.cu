// cuda_pair_join.cu — CUDA backend of the kernel benchmark's pair join (join expansion
// into (a, b) row pairs; not what SQL runs: SQL uses sql_join.h's SqlJoin and the
// extension expands the pairs itself). Sorted search + scan + load-balancing search, and
// one tile pass does most of the work:
//  1. sorted search: a vectorized sorted search of A in B (Merge Path tiles, ties
//     A-first: each needle's lower bound); then each thread gallops over the run of
//     equal B keys of each distinct needle it consumed (algo::equal_run_length) for
//     the pair counts, kept out of the unrolled walk to spare registers;
//  2. scan: the counts are scanned inside the same kernel (block scan + decoupled
//     look-back), which gives the tile its place in the output;
//  3. expansion: the tile writes its own pairs, coalesced, from a shared-memory list
//     of (row, B match) per output that each thread fills for its own needles.
// The output buffers are allocated before the count is known, for a speculative
// number of pairs; a tile with more pairs than its shared memory holds, or past that
// capacity, instead leaves its rows' offsets and bounds for the second pass
// (cuda_pair_join_deferred.cuh), a load-balancing search over all such tiles. So a join
// writes its pairs in one pass over the inputs unless its output is unusually large or
// skewed. Semi/anti joins and the unmatched B rows of right/full joins are CUB
// selections over match flags. The tile walk, scan and partition come from the
// library's CUDA backend headers (gpu/src/cuda).
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/search_tile.cuh"
#include "cuda/tile_scan.cuh"
#include "cuda_pair_join_deferred.cuh"
#include "pair_join_algo.h"
#include "pair_join_backends.h"

namespace mergepath {
namespace cuda {
namespace {

// Launch box of the tile pass: room for keys, packed per-needle results and match
// flags in static shared memory.
template <class K>
struct CountBox : LaunchBox<256, 13> {};
template <>
struct CountBox<Key128> : LaunchBox<128, 11> {};

// Per needle, the tile pass keeps its tile-local lower bound and its run length in
// one word; a run too long for the field is marked and recomputed from global memory.
constexpr int kBoundBits = 12;
constexpr uint32_t kRunCap = (1u << (32 - kBoundBits)) - 1;
__device__ inline uint32_t pack(int bound, int64_t run) {
    return uint32_t(bound) | (uint32_t(run < kRunCap ? run : kRunCap) << kBoundBits);
}
__device__ inline int packed_bound(uint32_t p) { return int(p & ((1u << kBoundBits) - 1)); }
__device__ inline uint32_t packed_run(uint32_t p) { return p >> kBoundBits; }

__device__ inline int64_t pairs_of(int64_t run, bool keep_unmatched) { return run == 0 && keep_unmatched ? 1 : run; }

// Where the tile pass writes: pairs in place while they fit, else the deferred rows.
struct JoinOut {
    int64_t* a_rows;
    int64_t* b_rows;
    uint64_t capacity;   // pairs the output buffers hold
    uint64_t* lower;     // na: rows of deferred tiles, first B match (kUnmatched: none)
    uint64_t* offsets;   // na: rows of deferred tiles, first output
    DeferredTile* deferred;
    unsigned long long* totals;  // [0]: pairs, [1]: deferred tiles
    uint8_t* b_match;    // nb, or null
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
// Shared memory of the tile pass: the tile's keys while searching, then the tile's
// outputs as (row | B match << 16), tile-local.
template <class Box, class K>
struct TileWords {
    static constexpr int kWords = (Box::NV + 1) * (sizeof(K) > 8 ? sizeof(K) : 8) / 8;
    static constexpr int kPairCapacity = 2 * kWords;  // 32-bit outputs
    static constexpr int kThreadPairLimit = 4 * kPairCapacity / Box::NT;  // 4x a thread's fair share
};
constexpr uint32_t kNoMatch16 = 0xffff;

// The tile writes its own pairs: each thread lists its needles' outputs in shared
// memory, then the block stores them coalesced.
template <class Box>
__device__ void expand_tile(const uint32_t* packed, const TileRange& r, const ThreadRange& t, int thread_offset,
                            int tile_pairs, int64_t tile_offset, uint32_t* outputs, const JoinOut& out) {
    int o = thread_offset;
    for (int i = t.a; i < t.a_end; ++i) {
        uint32_t p = packed[i];
        int run = int(packed_run(p)), bound = packed_bound(p);
        if (run == 0 && out.keep_unmatched) outputs[o++] = uint32_t(i) | kNoMatch16 << 16;
        for (int k = 0; k < run; ++k) outputs[o++] = uint32_t(i) | uint32_t(bound + k) << 16;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < tile_pairs; j += Box::NT) {
        uint32_t v = outputs[j];
        uint32_t b_local = v >> 16;
        out.a_rows[tile_offset + j] = r.a0 + int64_t(v & 0xffff);
        out.b_rows[tile_offset + j] = b_local == kNoMatch16 ? kNoRow : r.b0 + int64_t(b_local);
    }
}

// The tile leaves its rows' first output and first B match for the second pass.
template <class K>
__device__ void defer_tile(const uint32_t* packed, const TileRange& r, const ThreadRange& t, int64_t thread_offset,
                           int64_t tile_pairs, int64_t tile_offset, const CountArgs<K>& in, const JoinOut& out) {
    int64_t next = tile_offset + thread_offset;
    for (int i = t.a; i < t.a_end; ++i) {
        uint32_t p = packed[i];
        int64_t run = needle_run(p, i, r, in);
        out.offsets[r.a0 + i] = uint64_t(next);
        out.lower[r.a0 + i] = run == 0 && out.keep_unmatched ? kUnmatched : uint64_t(r.b0 + packed_bound(p));
        next += pairs_of(run, out.keep_unmatched);
    }
    if (threadIdx.x == 0) {
        unsigned long long slot = atomicAdd(&out.totals[1], 1ull);
        out.deferred[slot] = DeferredTile{r.a0, r.na, tile_offset, tile_pairs};
    }
}

// Five blocks of 256 threads per SM: registers capped at 51, shared memory under
// 45 KB when no B match flags are staged (inner and left joins).
template <class Box, bool WithBMatch, class K>
__global__ void __launch_bounds__(Box::NT, 5)
    join_tile_kernel(CountArgs<K> in, const PathPoint* points, JoinOut out, TileState state) {
    static_assert(Box::NV < (1 << kBoundBits), "tile too large for the packed bound");
    using Words = TileWords<Box, K>;
    static_assert(Box::NV + 1 + Words::kPairCapacity < int(kNoMatch16), "tile-local B positions fit 16 bits");
    using BlockScan = cub::BlockScan<long long, Box::NT>;
    __shared__ typename BlockScan::TempStorage scan_temp;
    __shared__ TilePrefix::TempStorage prefix_temp;
    __shared__ uint64_t tile_words[Words::kWords];  // the tile's keys, then its outputs
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
    // A thread listing many more outputs than the others would leave the block
    // waiting: such a tile goes to the load-balanced second pass.
    bool lopsided = __syncthreads_or(thread_pairs > Words::kThreadPairLimit);
    long long thread_offset, tile_pairs;
    BlockScan(scan_temp).ExclusiveSum(thread_pairs, thread_offset, tile_pairs);
    long long tile_offset = look_back(state, prefix_temp, blockIdx.x, tile_pairs);
    __syncthreads();  // every walk is done: the keys' space now holds the outputs
    if (!lopsided && tile_pairs <= Words::kPairCapacity && uint64_t(tile_offset + tile_pairs) <= out.capacity)
        expand_tile<Box>(packed, r, t, int(thread_offset), int(tile_pairs), tile_offset,
                         reinterpret_cast<uint32_t*>(tile_words), out);
    else
        defer_tile(packed, r, t, thread_offset, tile_pairs, tile_offset, in, out);
    if (WithBMatch)
        for (int j = threadIdx.x; j < r.nb; j += Box::NT) out.b_match[r.b0 + j] = b_match[j];
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) out.totals[0] = tile_offset + tile_pairs;
}

// The tile pass; returns {pairs, deferred tiles}.
template <class K>
std::pair<uint64_t, int64_t> join_tiles(Context& ctx, const CountArgs<K>& in, JoinOut out) {
    using Box = CountBox<K>;
    int64_t total = in.na + in.nb;
    if (total == 0) return {0, 0};
    int64_t num_tiles = ceil_div<int64_t>(total, Box::NV);
    Buffer<PathPoint> points =
        partition<MergePathKind<algo::Ties::AFirst>>(ctx, in.a, in.na, in.b, in.nb, Box::NV, num_tiles);
    Buffer<unsigned char> state_memory;
    TileState state = make_tile_state(ctx, num_tiles, state_memory);
    check(cudaMemsetAsync(out.totals, 0, 2 * sizeof(unsigned long long), stream_of(ctx)), "memset");
    if (out.b_match)
        join_tile_kernel<Box, true><<<unsigned(num_tiles), Box::NT, 0, stream_of(ctx)>>>(in, points.data(), out, state);
    else
        join_tile_kernel<Box, false><<<unsigned(num_tiles), Box::NT, 0, stream_of(ctx)>>>(in, points.data(), out, state);
    launched("join_tile_kernel");
    unsigned long long totals[2] = {0, 0};
    check(cudaMemcpyAsync(totals, out.totals, sizeof totals, cudaMemcpyDeviceToHost, stream_of(ctx)), "pair count");
    synchronize(ctx, "join_tile_kernel");
    return {totals[0], int64_t(totals[1])};
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

// Pairs the output buffers are first allocated for: enough for a key-to-key join and
// for the usual few copies per key (the tile pass writes in place up to here).
uint64_t speculative_pairs(int64_t na, int64_t nb) { return uint64_t(na + nb) + uint64_t(na + nb) / 4 + 1024; }

JoinResult allocate_join(Context& ctx, uint64_t pairs, uint64_t extra) {
    JoinResult r;
    r.a_rows = ctx.alloc<int64_t>(pairs + extra);
    r.b_rows = ctx.alloc<int64_t>(pairs + extra);
    return r;
}

// Output buffers for the speculative capacity, or none if the budget refuses them
// (then every tile is deferred, which needs no more memory than the exact result).
JoinResult allocate_speculative(Context& ctx, uint64_t pairs, uint64_t extra) {
    try {
        return allocate_join(ctx, pairs, extra);
    } catch (const OutOfMemory&) {
        return JoinResult();
    }
}

// The pairs the buffers hold before the unmatched B rows.
uint64_t pair_capacity(const JoinResult& r, uint64_t extra) { return r.a_rows.empty() ? 0 : r.a_rows.size() - extra; }

// Replaces rows by an array of `size` holding its first `keep` elements.
void resize_rows(Context& ctx, Buffer<int64_t>& rows, uint64_t size, uint64_t keep) {
    Buffer<int64_t> resized = ctx.alloc<int64_t>(size);
    if (keep)
        check(cudaMemcpyAsync(resized.data(), rows.data(), keep * sizeof(int64_t), cudaMemcpyDeviceToDevice,
                              stream_of(ctx)),
              "copy of join rows");
    synchronize(ctx, "copy of join rows");
    rows = std::move(resized);
}

// One side at a time, so the old and new arrays of both sides are never all alive.
void resize_join(Context& ctx, JoinResult& r, uint64_t size, uint64_t keep) {
    resize_rows(ctx, r.a_rows, size, keep);
    resize_rows(ctx, r.b_rows, size, keep);
}

template <class K>
struct JoinPass {
    Context& ctx;
    CountArgs<K> in;
    JoinOut out;
    uint64_t extra;  // room for unmatched B rows after the pairs

    // The tile pass into the speculative buffers, then exact buffers if the pairs did
    // not fit (keeping what was written), or, if the budget cannot hold both, the tile
    // pass again with every tile deferred.
    std::pair<uint64_t, int64_t> run(JoinResult& r) {
        auto [pairs, n_deferred] = join_tiles<K>(ctx, in, out);
        if (pairs + extra <= r.a_rows.size()) return {pairs, n_deferred};
        try {  // every pair below the capacity was written (or belongs to a deferred tile)
            resize_join(ctx, r, pairs + extra, out.capacity);
            return {pairs, n_deferred};
        } catch (const OutOfMemory&) {
            r = JoinResult();
            out.a_rows = out.b_rows = nullptr;
            out.capacity = 0;
            auto redone = join_tiles<K>(ctx, in, out);
            r = allocate_join(ctx, redone.first, extra);
            return redone;
        }
    }
};

// A result much smaller than the speculative buffers gets exact ones (the copy is
// as small as the result); kept as it is if the budget has no room for the copy.
void trim_join(Context& ctx, JoinResult& r) {
    if (r.count * 4 >= r.a_rows.size()) return;
    try {
        resize_join(ctx, r, r.count, r.count);
    } catch (const OutOfMemory&) {
    }
}

}  // namespace

template <class K>
JoinResult pair_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    const JoinShape shape = join_shape(kind);
    if (shape.semi_anti) return semi_anti_join(ctx, kind, a, b);
    int64_t na = a.size, nb = b.size;
    uint64_t extra = shape.keep_unmatched_b ? nb : 0;
    Buffer<uint64_t> lower = ctx.alloc<uint64_t>(na), offsets = ctx.alloc<uint64_t>(na);
    Buffer<uint8_t> b_match = shape.keep_unmatched_b ? ctx.alloc<uint8_t>(nb) : Buffer<uint8_t>();
    Buffer<DeferredTile> deferred = ctx.alloc<DeferredTile>(ceil_div<int64_t>(na + nb, CountBox<K>::NV) + 1);
    Buffer<unsigned long long> totals = ctx.alloc<unsigned long long>(2);
    JoinResult r = allocate_speculative(ctx, speculative_pairs(na, nb), extra);
    JoinOut out{r.a_rows.data(), r.b_rows.data(), pair_capacity(r, extra), lower.data(), offsets.data(), deferred.data(),
                totals.data(), b_match.data(), shape.keep_unmatched_a};
    JoinPass<K> pass{ctx, CountArgs<K>{a.data, na, b.data, nb}, out, extra};
    auto [pairs, n_deferred] = pass.run(r);
    if (n_deferred)
        expand_deferred(ctx, deferred.data(), n_deferred, DeferredRows{offsets.data(), lower.data()}, r.a_rows.data(),
                        r.b_rows.data());
    size_t unmatched_b = shape.keep_unmatched_b ? select_flagged(ctx, b_match.data(), false, nb, r.b_rows.data() + pairs) : 0;
    if (unmatched_b)
        check(cudaMemsetAsync(r.a_rows.data() + pairs, 0xff, unmatched_b * sizeof(int64_t), stream_of(ctx)), "memset");
    synchronize(ctx, "join");
    r.count = pairs + unmatched_b;
    trim_join(ctx, r);
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_PAIR_JOIN)

}  // namespace cuda
}  // namespace mergepath
