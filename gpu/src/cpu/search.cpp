// search.cpp — CPU backend of vectorized sorted search and unique. Sorted search walks
// needles A through haystack B along the Merge Path (cpu/search_walk.h; ties A-first for
// lower bounds and match flags, B-first for upper bounds); unique selects the first
// position of every run of equal keys.
#include "backends.h"
#include "cpu/search_walk.h"

namespace mergepath {
namespace cpu {

template <class K>
SearchResult sorted_search(Context& ctx, View<const K> a, View<const K> b, SearchOutputs want) {
    SearchResult r = allocate_search_result(ctx, a.size, b.size, want);
    const K* ak = a.data;
    const K* bk = b.data;
    if (want.lower || want.a_match || want.b_match) {
        walk_search<algo::Ties::AFirst>(
            ctx, ak, a.size, bk, b.size,
            [&](size_t i, size_t bound) {
                if (want.lower) r.a_lower.data()[i] = bound;
                if (want.a_match) r.a_match.data()[i] = bound < b.size && bk[bound] == ak[i];
            },
            [&](size_t j, size_t ai) {
                if (want.b_match) r.b_match.data()[j] = ai > 0 && ak[ai - 1] == bk[j];
            });
    }
    if (want.upper) {
        walk_search<algo::Ties::BFirst>(
            ctx, ak, a.size, bk, b.size, [&](size_t i, size_t bound) { r.a_upper.data()[i] = bound; },
            [](size_t, size_t) {});
    }
    return r;
}

template <class K>
UniqueResult<K> unique(Context& ctx, View<const K> keys) {
    UniqueResult<K> r;
    const K* k = keys.data;
    r.first_indices = select_positions<uint64_t>(
        ctx, keys.size, [&](size_t i) { return i == 0 || k[i - 1] != k[i]; }, &r.count);
    r.keys = ctx.alloc<K>(r.count);
    const uint64_t* first = r.first_indices.data();
    K* out = r.keys.data();
    size_t chunks = chunk_count(ctx, r.count);
    parallel_for(ctx, chunks, [&](size_t c) {
        for (size_t i = r.count * c / chunks; i < r.count * (c + 1) / chunks; ++i) out[i] = k[first[i]];
    });
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SEARCH)

}  // namespace cpu
}  // namespace mergepath
