// gather.cu — CUDA backend of gather_rows: every tagged merge position (into A, or
// into B | kFromB) is replaced in place by the row it names, one element per thread
// (for_each_index). Queued on the context's stream; the caller's next synchronizing
// step (a download, a count) waits for it.
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

}  // namespace

void gather_rows(Context& ctx, View<uint64_t> tagged, View<const uint64_t> a_rows, View<const uint64_t> b_rows) {
    for_each_index(ctx, int64_t(tagged.size), GatherRows{tagged.data, a_rows.data, b_rows.data}, "gather_rows");
}

}  // namespace cuda
}  // namespace mergepath
