// cpu_pair_join.cpp — CPU backend of the kernel benchmark's pair join (join expansion
// into (a, b) row pairs; not what SQL runs: SQL uses sql_join.h's SqlJoin and the
// extension expands the pairs itself). Sorted search + scan + load-balancing search:
// one A-first walk of A through B along the Merge Path (cpu/search_walk.h: lower bound,
// pair count = the needle's run of equal B keys found by galloping, B match flags) ->
// exclusive scan -> load-balancing search (the output indices 0..total-1 searched in the
// scanned counts: an upper-bound sorted search of a counting sequence) -> (a, b) pairs.
// Semi and anti joins select A rows by the sorted search's match flags. The CUDA backend
// does the same in two tile kernels (cuda_pair_join.cu).
#include <vector>

#include "cpu/search_walk.h"
#include "pair_join_algo.h"
#include "pair_join_backends.h"

namespace mergepath {
namespace cpu {
namespace {

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
JoinResult pair_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    JoinResult r;
    const JoinShape shape = join_shape(kind);
    if (shape.semi_anti) {
        SearchResult s = cpu::sorted_search<K>(ctx, a, b, shape.search);
        bool want = kind == JoinKind::Semi;
        r.a_rows = select_positions<int64_t>(
            ctx, a.size, [&](size_t i) { return (s.a_match.data()[i] != 0) == want; }, &r.count);
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
        b_only = select_positions<int64_t>(
            ctx, b.size, [&](size_t j) { return b_match.data()[j] == 0; }, &unmatched_b);
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

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_PAIR_JOIN)

}  // namespace cpu
}  // namespace mergepath
