// join.cu — CUDA backend of join expansion: sorted search (lower/upper bounds and
// match flags) -> per-A pair counts -> CUB inclusive scan -> load-balancing search
// (each output index j finds its A element as upper_bound(offsets, j) - 1: a
// Merge Path partition of the outputs against the scanned counts, then serial
// steps) -> (a, b) pairs. Semi/anti joins and the unmatched B rows of right/full
// joins are CUB selections over the match flags.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "backends.h"
#include "algo/serial_steps.h"
#include "cuda/common.cuh"

namespace mergepath {
namespace cuda {
namespace {

constexpr int kJoinNT = 256, kJoinVT = 8, kJoinNV = kJoinNT * kJoinVT;

__global__ void count_pairs(const uint64_t* lower, const uint64_t* upper, int64_t na, bool keep_unmatched,
                            uint64_t* counts) {
    int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= na) return;
    uint64_t c = upper[i] - lower[i];
    counts[i] = (keep_unmatched && c == 0) ? 1 : c;
}

// Load-balancing search: the path of outputs (0..pairs-1) against the scanned counts
// is cut into tiles by the partition kernel; thread t of a tile searches its start
// (diagonal t * VT) inside the tile's ranges only, then expands VT path steps.
// offsets has na + 1 entries (offsets[0] = 0, offsets[na] = pairs).
__global__ void __launch_bounds__(kJoinNT)
    expand_pairs(const PathPoint* points, const uint64_t* offsets, int64_t na, int64_t pairs,
                 const uint64_t* lower, const uint64_t* upper, int64_t* a_rows, int64_t* b_rows) {
    PathPoint p0 = points[blockIdx.x], p1 = points[blockIdx.x + 1];
    int64_t diag = int64_t(threadIdx.x) * kJoinVT;
    if (diag >= (p1.a - p0.a) + (p1.b - p0.b)) return;
    const int64_t* starts = reinterpret_cast<const int64_t*>(offsets);
    int64_t j = p0.a + algo::merge_path<algo::Ties::BFirst>(algo::Counting<int64_t>{p0.a}, p1.a - p0.a,
                                                              starts + p0.b, p1.b - p0.b, diag);
    int64_t i = p0.b + diag - (j - p0.a);
    algo::Cursor<algo::Counting<int64_t>, const int64_t*, int64_t, int64_t> c(algo::Counting<int64_t>{0}, j, p1.a,
                                                                               starts, i, p1.b);
    for (int step = 0; step < kJoinVT && !c.done(); ++step) {
        int64_t pos, bound;
        if (!algo::search_step<algo::Ties::BFirst>(c, pos, bound)) continue;
        int64_t a = bound - 1;
        bool matched = upper[a] > lower[a];
        a_rows[pos] = a;
        b_rows[pos] = matched ? int64_t(lower[a] + (pos - starts[a])) : kNoRow;
    }
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

// offsets[0] = 0, offsets[i + 1] = counts[0] + ... + counts[i]; returns offsets[n].
uint64_t scan_counts(Context& ctx, const uint64_t* counts, int64_t n, uint64_t* offsets) {
    check(cudaMemsetAsync(offsets, 0, sizeof(uint64_t), stream_of(ctx)), "memset");
    size_t bytes = 0;
    auto run = [&](void* temp) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, counts, offsets + 1, n, stream_of(ctx));
    };
    check(run(nullptr), "DeviceScan::InclusiveSum");
    Buffer<unsigned char> temp = ctx.alloc<unsigned char>(bytes);
    check(run(temp.data()), "DeviceScan::InclusiveSum");
    uint64_t total = 0;
    check(cudaMemcpyAsync(&total, offsets + n, sizeof total, cudaMemcpyDeviceToHost, stream_of(ctx)), "pair count");
    synchronize(ctx, "DeviceScan::InclusiveSum");
    return total;
}

}  // namespace

template <class K>
JoinResult join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    JoinResult r;
    const JoinShape shape = join_shape(kind);
    SearchResult s = cuda::sorted_search<K>(ctx, a, b, shape.search);
    if (shape.semi_anti) {
        r.a_rows = ctx.alloc<int64_t>(a.size);
        r.count = select_flagged(ctx, s.a_match.data(), kind == JoinKind::Semi, a.size, r.a_rows.data());
        return r;
    }
    int64_t na = a.size;
    Buffer<uint64_t> counts = ctx.alloc<uint64_t>(na), offsets = ctx.alloc<uint64_t>(na + 1);
    if (na) {
        count_pairs<<<unsigned(ceil_div<int64_t>(na, 256)), 256, 0, stream_of(ctx)>>>(s.a_lower.data(), s.a_upper.data(), na,
                                                                                      shape.keep_unmatched_a, counts.data());
        launched("count_pairs");
    }
    uint64_t pairs = na ? scan_counts(ctx, counts.data(), na, offsets.data()) : 0;
    size_t capacity = pairs + (shape.keep_unmatched_b ? b.size : 0);
    r.a_rows = ctx.alloc<int64_t>(capacity);
    r.b_rows = ctx.alloc<int64_t>(capacity);
    if (pairs) {
        int64_t num_tiles = ceil_div<int64_t>(int64_t(pairs) + na, kJoinNV);
        const int64_t* starts = reinterpret_cast<const int64_t*>(offsets.data());
        Buffer<PathPoint> points = partition<MergePathKind<algo::Ties::BFirst>>(
            ctx, algo::Counting<int64_t>{0}, int64_t(pairs), starts, na, kJoinNV, num_tiles);
        expand_pairs<<<unsigned(num_tiles), kJoinNT, 0, stream_of(ctx)>>>(points.data(), offsets.data(), na, pairs,
                                                                          s.a_lower.data(), s.a_upper.data(),
                                                                          r.a_rows.data(), r.b_rows.data());
        launched("expand_pairs");
    }
    size_t unmatched_b = shape.keep_unmatched_b ? select_flagged(ctx, s.b_match.data(), false, b.size, r.b_rows.data() + pairs) : 0;
    if (unmatched_b)
        check(cudaMemsetAsync(r.a_rows.data() + pairs, 0xff, unmatched_b * sizeof(int64_t), stream_of(ctx)), "memset");
    synchronize(ctx, "join");
    r.count = pairs + unmatched_b;
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_JOIN)

}  // namespace cuda
}  // namespace mergepath
