// sql_join.h — the SQL equi-join stage the PostgreSQL extension drives, a consumer of
// the sorted-sides stage (sorted_sides.h) like the set-operation pipeline: batches or
// chunks of unsorted join keys of the outer (A) and inner (B) input are added as they
// are read; finish() sorts both sides with their row numbers (runs shipped while
// reading, merged with Merge Path) and runs the vectorized sorted search of sorted A in
// sorted B (one Merge Path walk per bound), so every key of A knows the range of equal
// keys in sorted B and every key of B whether some key of A equals it.
//
// The result is ranges, not pairs: the caller expands a[a_rows[i]] against
// b[b_rows[a_lower[i] + k]] for k < a_count[i] at its own pace, and emits the
// unmatched rows of an outer join from a_count[i] == 0 and b_match[j] == 0. Row
// numbers are positions in the order keys were added to their side; equal keys keep
// ascending row numbers (the sort is stable), so the pairs of one A row come in
// ascending B row order. B's keys may carry values of the caller's instead (add_chunk's
// values: a reference to each key's row), which b_rows then gives, in the order the
// keys were added within equal keys; A's keys always carry row numbers. The same ranges come by A row too (download_by_a_row): A row
// r pairs with b[b_rows[lower + k]], k < count, of range r, so a caller can walk A in
// the order it stored A's rows (sequential reads of them) instead of in key order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "mergepath/context.h"
#include "mergepath/sorted_sides.h"
#include "mergepath/sql_stage.h"
#include "mergepath/types.h"

namespace mergepath {

// Host arrays the caller owns: a_* sized rows(Side::A), b_* sized rows(Side::B). Each
// may be nullptr: then it is not copied (a join that emits no column of a side needs no
// row numbers of it; one that only counts pairs needs no lower bounds).
struct JoinRangesOut {
    uint64_t* a_rows;   // row number of each key of sorted A (row = position in the order added to A)
    uint64_t* a_lower;  // first position in sorted B whose key equals it (lower bound)
    uint64_t* a_count;  // how many keys of sorted B equal it (upper bound - lower bound)
    uint64_t* b_rows;   // row number (or carried value) of each key of sorted B
    uint8_t* b_match;   // 1 iff sorted B[j] equals some key of A (finish() must have computed them)
};

// Adding keys, finish(), rebind(), timings(): see SqlStage (sql_stage.h); timings'
// kernel_ms is the sorted search, transfer_ms includes download().
template <class K>
class SqlJoin : public SqlStage<K> {
public:
    explicit SqlJoin(Context& ctx);
    ~SqlJoin() override;

    // Whether finish() computes b_match (default true; an inner or left join needs no
    // flags for B). Set before finish().
    void set_want_b_match(bool want);
    // After a successful finish(): copies the sorted rows, ranges and (when out.b_match
    // is set; finish() must have computed them) flags into `out`. May be repeated.
    // Throws Error before a successful finish().
    void download(const JoinRangesOut& out);

    // Whether finish() keeps A's ranges by A row (download_by_a_row) instead of by sorted
    // position (download's a_rows, a_lower, a_count then throw). Default false. Set
    // before finish().
    void set_ranges_by_a_row(bool by_a_row);
    // After a successful finish() with ranges by A row: the ranges of A rows from
    // first_row on into the spans, in order (each span a whole number of ranges), so
    // that a caller can copy them out piece by piece, a piece straight into the places
    // its rows are kept, in one copy. Throws Error otherwise, or past the last A row.
    void download_by_a_row(uint64_t first_row, const HostSpan* spans, size_t count);
    // The same into one array: the ranges of A rows [first_row, first_row + n).
    void download_by_a_row(uint64_t first_row, size_t n, JoinRange* out) {
        if (n > SIZE_MAX / sizeof(JoinRange))
            throw Error("mergepath: SqlJoin::download_by_a_row past the last row of A");
        const HostSpan span{out, n * sizeof(JoinRange)};
        download_by_a_row(first_row, &span, 1);
    }

    // Whether finish() keeps sorted B's keys for download_b_keys (default false: they are
    // freed after the search). Set before finish(). A join whose outer side streams past
    // a small sorted B finds each outer key in them itself (key_directory.h).
    void set_keep_b_keys(bool keep);
    // After a successful finish() that kept them: sorted B's keys into `out` (rows(B)
    // elements). Throws Error otherwise.
    void download_b_keys(K* out);

private:
    // finish(): sorts both sides and searches sorted A in sorted B (and moves the ranges
    // to A row order, if asked). The ranges, the flags and the sorted rows stay in the
    // context's space until destruction; the sorted keys are freed.
    void run() override;
    bool accepts_values(Side side) const override { return side == Side::B; }  // A's ranges go by A row
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace mergepath
