// gather.cpp — CPU backend of the moves between sorted positions and row numbers, in
// equal slices over the context's threads:
//   gather_rows    every tagged merge position (into A, or into B | kFromB) replaced in
//                  place by the row it names (merge_pairs, ops.cpp);
//   ranges_by_row  a join's sorted-search ranges scattered from sorted A positions to
//                  A row numbers (SqlJoin, for emitting in A's row order).
#include "backends.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {
namespace {

// f(i) for every i in [0, n), in equal slices over the context's threads.
template <class F>
void for_each_index(Context& ctx, size_t n, F f) {
    const size_t slices = chunk_count(ctx, n);
    parallel_for(ctx, slices, [&](size_t s) {
        for (size_t i = n * s / slices, end = n * (s + 1) / slices; i < end; ++i) f(i);
    });
}

}  // namespace

void gather_rows(Context& ctx, View<uint64_t> tagged, View<const uint64_t> a_rows, View<const uint64_t> b_rows) {
    for_each_index(ctx, tagged.size,
                   [&](size_t i) { tagged.data[i] = tagged_row(tagged.data[i], a_rows.data, b_rows.data); });
}

void ranges_by_row(Context& ctx, View<const uint64_t> rows, View<const uint64_t> lower, View<const uint64_t> upper,
                   View<JoinRange> by_row) {
    for_each_index(ctx, rows.size, [&](size_t i) {
        by_row.data[rows.data[i]] = JoinRange{lower.data[i], upper.data[i] - lower.data[i]};
    });
}

}  // namespace cpu
}  // namespace mergepath
