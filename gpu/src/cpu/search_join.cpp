// search_join.cpp — CPU backend of vectorized sorted search, unique, and join
// expansion. Sorted search walks needles A through haystack B along the Merge Path
// (ties A-first for lower bounds and match flags, B-first for upper bounds). Join =
// one A-first walk (lower bound, pair count = the needle's run of equal B keys found
// by galloping, B match flags) -> exclusive scan -> load-balancing search (the
// output indices 0..total-1 searched in the scanned counts: an upper-bound sorted
// search of a counting sequence) -> (a, b) pairs. The CUDA backend does the same in
// two tile kernels (cuda/join.cu).
#include <algorithm>
#include <type_traits>

#include "algo/path_search.h"
#include "algo/serial_steps.h"
#include "backends.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {
namespace {

// Walks needles through the haystack along the path with the given tie rule, calling
// on_needle(i, bound, ai) and on_haystack(j, ai) for every consumed element.
template <algo::Ties T, class AKeys, class BKeys, class OnNeedle, class OnHaystack>
void walk_search(const Context& ctx, const AKeys& a, size_t na, const BKeys& b, size_t nb,
                 OnNeedle on_needle, OnHaystack on_haystack) {
    size_t total = na + nb;
    auto chunks = cut_path(total, chunk_count(ctx, total), [&](size_t d) {
        size_t ai = algo::merge_path<T>(a, na, b, nb, d);
        return PathPoint{ai, d - ai};
    });
    using V = std::decay_t<decltype(a[0])>;
    parallel_for(ctx, chunks.size(), [&](size_t i) {
        const PathChunk& ch = chunks[i];
        algo::Cursor<AKeys, BKeys, V, size_t> c(a, ch.a0, ch.a1, b, ch.b0, ch.b1);
        size_t pos, bound;
        while (!c.done()) {
            if (algo::search_step<T>(c, pos, bound))
                on_needle(pos, bound);
            else
                on_haystack(pos, c.ai);
        }
    });
}

// Positions i in [0, n) with keep(i), ascending (parallel count, scan, write).
template <class P, class Keep>
Buffer<P> select_positions(Context& ctx, size_t n, Keep keep, size_t* count) {
    size_t chunks = chunk_count(ctx, n);
    std::vector<size_t> offsets(chunks);
    auto bounds = [&](size_t c) { return std::make_pair(n * c / chunks, n * (c + 1) / chunks); };
    parallel_for(ctx, chunks, [&](size_t c) {
        size_t k = 0;
        for (size_t i = bounds(c).first; i < bounds(c).second; ++i) k += keep(i) ? 1 : 0;
        offsets[c] = k;
    });
    *count = exclusive_scan(offsets);
    Buffer<P> out = ctx.alloc<P>(*count);
    parallel_for(ctx, chunks, [&](size_t c) {
        size_t o = offsets[c];
        for (size_t i = bounds(c).first; i < bounds(c).second; ++i)
            if (keep(i)) out.data()[o++] = static_cast<P>(i);
    });
    return out;
}

// Exclusive scan of counts (n values, parallel in chunks); returns the total.
size_t scan_counts(Context& ctx, std::vector<size_t>& counts) {
    size_t n = counts.size(), chunks = chunk_count(ctx, n);
    std::vector<size_t> partial(chunks);
    auto lo = [&](size_t c) { return n * c / chunks; };
    parallel_for(ctx, chunks, [&](size_t c) {
        size_t s = 0;
        for (size_t i = lo(c); i < lo(c + 1); ++i) s += counts[i];
        partial[c] = s;
    });
    size_t total = exclusive_scan(partial);
    parallel_for(ctx, chunks, [&](size_t c) {
        size_t s = partial[c];
        for (size_t i = lo(c); i < lo(c + 1); ++i) {
            size_t v = counts[i];
            counts[i] = s;
            s += v;
        }
    });
    return total;
}

}  // namespace

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

template <class K>
JoinResult join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    JoinResult r;
    const JoinShape shape = join_shape(kind);
    if (shape.semi_anti) {
        SearchResult s = cpu::sorted_search<K>(ctx, a, b, shape.search);
        bool want = kind == JoinKind::Semi;
        r.a_rows = select_positions<int64_t>(ctx, a.size, [&](size_t i) { return (s.a_match.data()[i] != 0) == want; },
                                    &r.count);
        return r;
    }
    // One sorted-search walk: each A row's lower bound in B, its run of equal B keys
    // (galloping) as its pair count, and the B match flags.
    const K* ak = a.data;
    const K* bk = b.data;
    constexpr uint64_t kUnmatched = ~uint64_t(0);  // a left/full row kept without a match
    Buffer<uint64_t> lower = ctx.alloc<uint64_t>(a.size);
    Buffer<uint8_t> b_match = ctx.alloc<uint8_t>(shape.keep_unmatched_b ? b.size : 0);
    std::vector<size_t> offsets(a.size);
    walk_search<algo::Ties::AFirst>(
        ctx, ak, a.size, bk, b.size,
        [&](size_t i, size_t bound) {
            size_t run = algo::equal_run_length(bk, bound, b.size, ak[i]);
            bool kept = run == 0 && shape.keep_unmatched_a;
            lower.data()[i] = kept ? kUnmatched : bound;
            offsets[i] = kept ? 1 : run;
        },
        [&](size_t j, size_t ai) {
            if (shape.keep_unmatched_b) b_match.data()[j] = ai > 0 && ak[ai - 1] == bk[j];
        });
    size_t pairs = scan_counts(ctx, offsets);
    size_t unmatched_b = 0;
    Buffer<int64_t> b_only;
    if (shape.keep_unmatched_b)
        b_only = select_positions<int64_t>(ctx, b.size, [&](size_t j) { return b_match.data()[j] == 0; }, &unmatched_b);
    r.count = pairs + unmatched_b;
    r.a_rows = ctx.alloc<int64_t>(r.count);
    r.b_rows = ctx.alloc<int64_t>(r.count);
    // Load-balancing search: output j belongs to A element upper_bound(offsets, j) - 1.
    walk_search<algo::Ties::BFirst>(
        ctx, algo::Counting<size_t>{0}, pairs, offsets.data(), a.size,
        [&](size_t j, size_t bound) {
            size_t i = bound - 1;
            uint64_t lo = lower.data()[i];
            r.a_rows.data()[j] = static_cast<int64_t>(i);
            r.b_rows.data()[j] = lo == kUnmatched ? kNoRow : static_cast<int64_t>(lo + (j - offsets[i]));
        },
        [](size_t, size_t) {});
    for (size_t k = 0; k < unmatched_b; ++k) {
        r.a_rows.data()[pairs + k] = kNoRow;
        r.b_rows.data()[pairs + k] = b_only.data()[k];
    }
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SEARCH)
MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_JOIN)

}  // namespace cpu
}  // namespace mergepath
