// gather.cu — CUDA backend of the moves between sorted positions and row numbers, one
// element per thread (for_each_index), queued on the context's stream (the caller's
// next synchronizing step, a download or a count, waits for them):
//   gather_rows    every tagged merge position (into A, or into B | kFromB) replaced in
//                  place by the row it names;
//   ranges_by_row  a join's sorted-search ranges scattered from sorted A positions to
//                  A row numbers (SqlJoin), so that a join can be emitted in A's row order.
#include "backends.h"
#include "cuda/for_each.cuh"

namespace mergepath {
namespace cuda {
namespace {

struct GatherRows {
    uint64_t* tagged;
    const uint64_t* a_rows;
    const uint64_t* b_rows;
    __device__ void operator()(int64_t i) const { tagged[i] = tagged_row(tagged[i], a_rows, b_rows); }
};

struct RangesByRow {
    const uint64_t* rows;
    const uint64_t* lower;
    const uint64_t* upper;
    JoinRange* by_row;
    __device__ void operator()(int64_t i) const { by_row[rows[i]] = JoinRange{lower[i], upper[i] - lower[i]}; }
};

}  // namespace

void gather_rows(Context& ctx, View<uint64_t> tagged, View<const uint64_t> a_rows, View<const uint64_t> b_rows) {
    for_each_index(ctx, int64_t(tagged.size), GatherRows{tagged.data, a_rows.data, b_rows.data}, "gather_rows");
}

void ranges_by_row(Context& ctx, View<const uint64_t> rows, View<const uint64_t> lower, View<const uint64_t> upper,
                   View<JoinRange> by_row) {
    for_each_index(ctx, int64_t(rows.size), RangesByRow{rows.data, lower.data, upper.data, by_row.data},
                   "ranges_by_row");
}

}  // namespace cuda
}  // namespace mergepath
