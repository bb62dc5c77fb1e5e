// sql_setop.h — the SQL set-operation pipeline the PostgreSQL extension drives:
// batches of unsorted keys for the left (A) and right (B) input are added as they
// are read; finish() sorts both sides (CUB radix sort / parallel CPU sort), keeps one
// key per run for the DISTINCT forms (unique), and runs the Balanced Path set
// operation. SQL semantics: INTERSECT ALL = min(m, n) copies, EXCEPT ALL =
// max(m - n, 0) copies; INTERSECT / EXCEPT emit each qualifying key once.
//
// Sorting overlaps reading: once ship_rows keys of a side are waiting, add() ships
// them as a run. On the GPU a run is copied through pinned staging buffers and
// radix-sorted there, queued on the context's stream while the caller goes on
// reading; finish() ships the rest and merges each side's runs with Merge Path. The
// keys stay on the host as added, so a GPU out-of-memory can still be redone
// elsewhere (rebind). On the CPU backend shipping is off by default (one sort at the
// end); set_ship_rows() turns it on (runs sorted in place, merged at the end).
//
// Two result shapes:
//  - keys only (lossless key encodings): result_keys() holds the output keys, sorted;
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
#include "mergepath/types.h"

namespace mergepath {

enum class Side { A, B };

// Host time in milliseconds: transfer_ms, sort_ms and kernel_ms in finish() (GPU work
// queued earlier is waited for where a step needs its result), ship_ms in add().
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

    // set_ship_rows(): ship a run once at least this many keys of a side are waiting.
    static constexpr size_t kBackendDefault = 0;  // 1 << 22 on the GPU, no shipping on the CPU
    static constexpr size_t kNoShipping = SIZE_MAX;
    // Set before adding keys. A shipment that runs out of memory ends shipping for this
    // pipeline: its runs are dropped and finish() moves and sorts whole sides, as
    // without shipping (throwing OutOfMemory if they do not fit either).
    void set_ship_rows(size_t rows);

    // Appends a batch of keys (copied: the caller's buffer is free again on return),
    // and ships the keys waiting on that side as a run when there are enough. On the
    // GPU it does not wait for the run's copy or sort.
    void add(Side side, const K* keys, size_t n);
    size_t rows(Side side) const;                   // keys added so far to that side
    void finish();                                  // runs the operation (once)

    // Moves the pipeline to another context, typically the CPU backend after the GPU
    // ran out of memory in finish(): the keys added so far are kept (each with its row
    // number: a failed finish() leaves them unchanged, or sorted in slices together
    // with their rows on the CPU) and finish() may run again. Runs shipped so far are
    // dropped; the new context ships from the first row again. Not after a finish()
    // that succeeded.
    void rebind(Context& ctx);

    // keys-only shape
    const std::vector<K>& result_keys() const;
    // with-rows shape: every key added to the side, sorted (also for the DISTINCT
    // forms), with its row number
    const std::vector<K>& sorted_keys(Side side) const;
    const std::vector<uint64_t>& sorted_rows(Side side) const;
    const std::vector<uint64_t>& result_positions() const;  // into sorted A, ascending

    const PipelineTimings& timings() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace mergepath
