// sql_setop.h — the SQL set-operation pipeline the PostgreSQL extension drives:
// batches of unsorted keys for the left (A) and right (B) input are added as they
// are read; finish() sorts both sides (CUB radix sort / parallel CPU sort), keeps one
// key per run for the DISTINCT forms (unique), and runs the Balanced Path set
// operation. SQL semantics: INTERSECT ALL = min(m, n) copies, EXCEPT ALL =
// max(m - n, 0) copies; INTERSECT / EXCEPT emit each qualifying key once.
//
// Two result shapes:
//  - keys only (lossless key encodings): result_keys() holds the output keys, sorted;
//  - with rows (hash keys): the sorted sides with their input row numbers (row =
//    position in the order added for that side) and the positions in sorted A
//    of the rows to emit, so the caller can verify equal hashes with the type's
//    equality operator before emitting a[a_rows[pos]].
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mergepath/context.h"
#include "mergepath/types.h"

namespace mergepath {

enum class Side { A, B };

struct PipelineTimings {
    double transfer_ms = 0;  // host <-> device copies (0 on the CPU backend)
    double sort_ms = 0;      // sorting both sides (and unique for DISTINCT forms)
    double kernel_ms = 0;    // the set operation itself
};

template <class K>
class SqlSetOp {
public:
    // op must be SetOp::Intersection or SetOp::Difference (SQL INTERSECT / EXCEPT).
    SqlSetOp(Context& ctx, SetOp op, bool all, bool with_rows);
    ~SqlSetOp();
    SqlSetOp(const SqlSetOp&) = delete;
    SqlSetOp& operator=(const SqlSetOp&) = delete;

    // Appends a batch of keys (copied: the caller's buffer is free again on return).
    void add(Side side, const K* keys, size_t n);
    size_t rows(Side side) const;                   // keys added so far to that side
    void finish();                                  // runs the operation (once)

    // Moves the pipeline to another context, typically the CPU backend after the GPU
    // ran out of memory in finish(): the keys added so far are kept (each with its row
    // number: a failed finish() leaves them unchanged or sorted together) and finish()
    // may run again. Not after a finish() that succeeded.
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
