// sql_setop.h — the SQL set-operation pipeline the PostgreSQL extension drives, a
// consumer of the sorted-sides stage (sorted_sides.h): batches or chunks of unsorted
// keys for the left (A) and right (B) input are added as they are read; finish() sorts
// both sides (runs shipped while reading, merged with Merge Path), keeps one key per
// run of A (UNION: and of B) for the DISTINCT forms (unique), and runs the Balanced Path
// set operation (UNION ALL: the Merge Path merge). SQL semantics: INTERSECT ALL =
// min(m, n) copies, EXCEPT ALL = max(m - n, 0) copies, UNION ALL = m + n copies;
// INTERSECT / EXCEPT / UNION emit each qualifying key once (sql_setop_copies).
//
// Three result shapes (SetOpShape):
//  - keys only (lossless key encodings): result_count() keys, sorted, read with
//    host_result_keys() or copied out with download_result_keys();
//  - with rows (hash keys): the sorted sides with their input row numbers (row =
//    position in the order added for that side) and the positions in sorted A
//    of the rows to emit, so the caller can verify equal hashes with the type's
//    equality operator before emitting a[a_rows[pos]];
//  - sorted sides only (hashes of row images, grouped by the caller itself): the
//    sorted sides with their row numbers, and no set operation run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mergepath/context.h"
#include "mergepath/sorted_sides.h"
#include "mergepath/sql_stage.h"
#include "mergepath/types.h"

namespace mergepath {

enum class SetOpShape { Keys, Rows, SortedSides };

// Adding keys, finish(), rebind(), timings(): see SqlStage (sql_stage.h).
template <class K>
class SqlSetOp : public SqlStage<K> {
public:
    // op: SetOp::Intersection, Difference or Union (SQL INTERSECT / EXCEPT / UNION);
    // Union has no with-rows shape (its results come from both sides).
    SqlSetOp(Context& ctx, SetOp op, bool all, SetOpShape shape);
    SqlSetOp(Context& ctx, SetOp op, bool all, bool with_rows)
        : SqlSetOp(ctx, op, all, with_rows ? SetOpShape::Rows : SetOpShape::Keys) {}
    ~SqlSetOp() override;

    // keys-only shape: the result keys, sorted. host_result_keys() points at them in
    // host memory (on the GPU a copy made on first use); download_result_keys() copies
    // consecutive result keys from `first` on into the host ranges `into`, in order.
    size_t result_count() const;
    const K* host_result_keys() const;
    void download_result_keys(size_t first, const std::vector<View<K>>& into);
    std::vector<K> result_keys() const;  // a copy, for tests
    // with-rows and sorted-sides shapes: every key added to the side, sorted (also
    // for the DISTINCT forms), with its row number
    const std::vector<K>& sorted_keys(Side side) const;
    const std::vector<uint64_t>& sorted_rows(Side side) const;
    const std::vector<uint64_t>& result_positions() const;  // with rows: into sorted A, ascending

private:
    void run() override;
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace mergepath
