// search_walk.h — the CPU backend's two building blocks of vectorized sorted search:
// walk_search, which walks needles A through haystack B along the Merge Path in
// parallel chunks (the path cut as for a merge; ties A-first give each needle its lower
// bound, B-first its upper bound), and select_positions, a parallel count + scan + write
// of the positions that pass a test. sorted_search and unique (search.cpp) are built on
// them; so is the kernel benchmark's pair join (bench/pair_join/cpu_pair_join.cpp),
// which is not part of the library.
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "algo/path_search.h"
#include "algo/serial_steps.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {

// Walks needles through the haystack along the path with the given tie rule, calling
// on_needle(i, bound) and on_haystack(j, ai) for every consumed element.
template <algo::Ties T, class AKeys, class BKeys, class OnNeedle, class OnHaystack>
void walk_search(const Context& ctx, const AKeys& a, size_t na, const BKeys& b, size_t nb, OnNeedle on_needle,
                 OnHaystack on_haystack) {
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

}  // namespace cpu
}  // namespace mergepath
