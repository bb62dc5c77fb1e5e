// gather.cpp — CPU backend of gather_rows: every tagged merge position (into A, or
// into B | kFromB) is replaced in place by the row it names, in equal slices over the
// context's threads. merge_pairs (ops.cpp) runs it on the positions of a merge.
#include "backends.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {

void gather_rows(Context& ctx, View<uint64_t> tagged, View<const uint64_t> a_rows, View<const uint64_t> b_rows) {
    const size_t n = tagged.size, slices = chunk_count(ctx, n);
    parallel_for(ctx, slices, [&](size_t s) {
        for (size_t i = n * s / slices, end = n * (s + 1) / slices; i < end; ++i)
            tagged.data[i] = tagged_row(tagged.data[i], a_rows.data, b_rows.data);
    });
}

}  // namespace cpu
}  // namespace mergepath
