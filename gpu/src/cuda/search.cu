// search.cu — CUDA backend of vectorized sorted search (Baxter & Merrill): needles A
// and haystack B are walked together along the Merge Path, tile by tile, exactly
// like a merge. Ties A-first give lower bounds, A and B match flags; a second pass
// with ties B-first gives upper bounds. Also unique (CUB UniqueByKey with a
// counting payload: first index of each run).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "backends.h"
#include "cuda/search_tile.cuh"

namespace mergepath {
namespace cuda {
namespace {

struct SearchOut {
    uint64_t* bound;
    uint8_t* a_match;
    uint8_t* b_match;
};

// Per-tile search results staged in shared memory for coalesced stores.
template <class Box>
struct SearchStage {
    int bound[Box::NV + 1];
    uint8_t a_match[Box::NV + 1];
    uint8_t b_match[Box::NV + 1];
};

template <class Box>
__device__ void store_search(const SearchStage<Box>& st, const TileRange& r, SearchOut out) {
    for (int i = threadIdx.x; i < r.na; i += Box::NT) {
        if (out.bound) out.bound[r.a0 + i] = uint64_t(r.b0 + st.bound[i]);
        if (out.a_match) out.a_match[r.a0 + i] = st.a_match[i];
    }
    if (out.b_match)
        for (int j = threadIdx.x; j < r.nb; j += Box::NT) out.b_match[r.b0 + j] = st.b_match[j];
}

template <class Box, algo::Ties T, class K>
__global__ void __launch_bounds__(Box::NT)
    search_kernel(const K* a, const K* b, int64_t nb, const PathPoint* points, SearchOut out) {
    __shared__ K keys[Box::NV + 1];
    __shared__ int2 starts[Box::NT + 1];
    __shared__ SearchStage<Box> stage;
    TileRange r = tile_range(points, blockIdx.x);
    load_tile<Box>(a, b, r, keys);
    __syncthreads();
    ThreadRange t = thread_range<Box, MergePathKind<T>>(keys, r, starts);
    TileHaystack<K> hay{keys + r.na, r.nb, b, r.b0};
    walk_tile<Box, T>(
        keys, r, t,
        [&](int pos, int bound) {
            stage.bound[pos] = bound;
            if (out.a_match) stage.a_match[pos] = needle_matches(keys[pos], bound, hay, nb);
        },
        [&](int pos, int next_needle) {
            if (out.b_match) stage.b_match[pos] = haystack_matches(keys[r.na + pos], next_needle, r, keys, a);
        });
    __syncthreads();
    store_search<Box>(stage, r, out);
}

template <algo::Ties T, class K>
void launch_search(Context& ctx, View<const K> a, View<const K> b, SearchOut out) {
    using Box = SearchBox<K>;
    int64_t total = int64_t(a.size + b.size);
    if (total == 0) return;
    int64_t num_tiles = ceil_div<int64_t>(total, Box::NV);
    Buffer<PathPoint> points = partition<MergePathKind<T>>(ctx, a.data, a.size, b.data, b.size, Box::NV, num_tiles);
    search_kernel<Box, T><<<unsigned(num_tiles), Box::NT, 0, stream_of(ctx)>>>(a.data, b.data, b.size,
                                                                                 points.data(), out);
    launched("search_kernel");
    synchronize(ctx, "search_kernel");
}

}  // namespace

template <class K>
SearchResult sorted_search(Context& ctx, View<const K> a, View<const K> b, SearchOutputs want) {
    SearchResult r = allocate_search_result(ctx, a.size, b.size, want);
    if (want.lower || want.a_match || want.b_match)
        launch_search<algo::Ties::AFirst>(ctx, a, b, {r.a_lower.data(), r.a_match.data(), r.b_match.data()});
    if (want.upper) launch_search<algo::Ties::BFirst>(ctx, a, b, {r.a_upper.data(), nullptr, nullptr});
    return r;
}

template <class K>
UniqueResult<K> unique(Context& ctx, View<const K> keys) {
    UniqueResult<K> r;
    r.keys = ctx.alloc<K>(keys.size);
    r.first_indices = ctx.alloc<uint64_t>(keys.size);
    if (keys.size == 0) return r;
    Buffer<unsigned long long> selected = ctx.alloc<unsigned long long>(1);
    thrust::counting_iterator<uint64_t> positions(0);
    size_t bytes = 0;
    auto run = [&](void* temp) {
        return cub::DeviceSelect::UniqueByKey(temp, bytes, keys.data, positions, r.keys.data(), r.first_indices.data(),
                                              selected.data(), int64_t(keys.size), stream_of(ctx));
    };
    check(run(nullptr), "DeviceSelect::UniqueByKey");
    Buffer<unsigned char> temp = ctx.alloc<unsigned char>(bytes);
    check(run(temp.data()), "DeviceSelect::UniqueByKey");
    unsigned long long count = 0;
    check(cudaMemcpyAsync(&count, selected.data(), sizeof count, cudaMemcpyDeviceToHost, stream_of(ctx)), "unique count");
    synchronize(ctx, "unique");
    r.count = size_t(count);
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SEARCH)

}  // namespace cuda
}  // namespace mergepath
