// sql_setop.h — the SQL set-operation pipeline the PostgreSQL extension drives, a
// consumer of the sorted-sides stage (sorted_sides.h): batches or chunks of unsorted
// keys for the left (A) and right (B) input are added as they are read; finish() sorts
// both sides (runs shipped while reading, merged with Merge Path), keeps one key per
// run of A for the DISTINCT forms (unique), and runs the Balanced Path set operation.
// SQL semantics: INTERSECT ALL = min(m, n) copies, EXCEPT ALL = max(m - n, 0) copies;
// INTERSECT / EXCEPT emit each qualifying key once.
//
// Two result shapes:
//  - keys only (lossless key encodings): result_count() keys, sorted, read with
//    host_result_keys() or copied out with download_result_keys();
//  - with rows (hash keys): the sorted sides with their input row numbers (row =
//    position in the order added for that side) and the positions in sorted A
//    of the rows to emit, so the caller can verify equal hashes with the type's
//    equality operator before emitting a[a_rows[pos]].
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mergepath/context.h"
#include "mergepath/sorted_sides.h"
#include "mergepath/types.h"

namespace mergepath {

// Host time in milliseconds: transfer_ms, sort_ms and kernel_ms in finish() and the
// downloads (GPU work queued earlier is waited for where a step needs its result),
// ship_ms in add().
struct PipelineTimings {
    double transfer_ms = 0;  // host <-> device copies (0 on the CPU backend)
    double sort_ms = 0;      // sorting both sides or merging their runs (and unique for DISTINCT forms)
    double kernel_ms = 0;    // the set operation itself
    size_t runs = 0;         // runs shipped by add() while reading, both sides
    double ship_ms = 0;      // spent inside add() shipping them
};

template <class K>
class SqlSetOp {
public:
    // op must be SetOp::Intersection or SetOp::Difference (SQL INTERSECT / EXCEPT).
    SqlSetOp(Context& ctx, SetOp op, bool all, bool with_rows);
    ~SqlSetOp();
    SqlSetOp(const SqlSetOp&) = delete;
    SqlSetOp& operator=(const SqlSetOp&) = delete;

    // set_ship_rows(): see SortedSides (ship a run once this many keys of a side wait).
    static constexpr size_t kBackendDefault = SortedSides<K>::kBackendDefault;
    static constexpr size_t kNoShipping = SortedSides<K>::kNoShipping;
    void set_ship_rows(size_t rows);

    // Appends a batch of keys (copied: the caller's buffer is free again on return),
    // or a chunk read in place (the caller keeps it alive and unchanged until finish()
    // has succeeded: the pipeline never reads it after that, so the caller may even
    // reuse its memory for the results), and ships the keys waiting on that side as a run when
    // there are enough. On the GPU it does not wait for the run's copy or sort. Safe
    // from several threads at once. If it throws (OutOfMemory: the keys are charged to
    // the context's budget), the keys were not added.
    void add(Side side, const K* keys, size_t n);
    void add_chunk(Side side, const K* keys, size_t n);
    size_t rows(Side side) const;                   // keys added so far to that side
    void finish();                                  // runs the operation (once)

    // Moves the pipeline to another context, typically the CPU backend after the GPU
    // ran out of memory: the keys added so far are kept, unchanged, with their row
    // numbers, and finish() may run again. Runs shipped so far are dropped; the new
    // context ships from the first row again. Not after a finish() that succeeded.
    void rebind(Context& ctx);
    Context& context() const;

    // keys-only shape: the result keys, sorted. host_result_keys() points at them in
    // host memory (on the GPU a copy made on first use); download_result_keys() copies
    // consecutive result keys from `first` on into the host ranges `into`, in order.
    size_t result_count() const;
    const K* host_result_keys() const;
    void download_result_keys(size_t first, const std::vector<View<K>>& into);
    std::vector<K> result_keys() const;  // a copy, for tests
    // with-rows shape: every key added to the side, sorted (also for the DISTINCT
    // forms), with its row number
    const std::vector<K>& sorted_keys(Side side) const;
    const std::vector<uint64_t>& sorted_rows(Side side) const;
    const std::vector<uint64_t>& result_positions() const;  // into sorted A, ascending

    PipelineTimings timings() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace mergepath
