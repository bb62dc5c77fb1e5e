// pair_join.h — the kernel benchmark's pair join (library mergepath_pair_join): join
// expansion of two sorted key arrays into (a, b) row pairs, by sorted search + scan +
// load-balancing search, on the CPU and CUDA backends of a mergepath::Context. The
// kernel benchmark (bench/kernel, op "join") measures and checks it; its tests are
// bench/pair_join/tests. It is not what SQL runs: the extension's join node uses the
// library's SqlJoin (sql_join.h: sorted search ranges, by A row) and expands the pairs
// itself, row by row, without materialising them.
#pragma once

#include <cstdint>

#include "mergepath/context.h"
#include "mergepath/types.h"

namespace mergepath {

// The join kinds the pair join produces pairs for.
enum class JoinKind { Inner, Left, Right, Full, Semi, Anti };

// The pair join marks the missing side of an outer-join pair with this row.
constexpr int64_t kNoRow = -1;

// The pairs of a join of sorted A and B on equal keys. Pairs come ordered by A position
// (matched pairs of one A element by ascending B position); Right and Full append the
// unmatched B rows (a_rows = kNoRow) after them in B order. Semi and Anti return A rows
// only (b_rows empty). Left/Full mark a missing B row with kNoRow. Rows are positions
// in A and B. The buffers live in the context's memory space and may be larger than
// count.
struct JoinResult {
    Buffer<int64_t> a_rows;
    Buffer<int64_t> b_rows;
    size_t count = 0;
};

// Join expansion on equal keys of sorted A and B (Views in the context's memory space),
// on the context's backend; exact, deterministic, 64-bit sizes. Key types K: uint32_t,
// uint64_t, Key128. Throws mergepath::Error (OutOfMemory, Cancelled, NoDevice) as the
// library's operations do.
template <class K>
JoinResult pair_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b);

}  // namespace mergepath
