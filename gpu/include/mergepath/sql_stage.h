// sql_stage.h — what every SQL consumer of the sorted-sides stage (sorted_sides.h)
// shares: keys added as they are read (copied batches, or chunks read in place), the
// order of calls (no key after finish(), finish() once, rebind() only before a finish()
// that succeeded), moving to another context after an out-of-memory, and the stage's
// timings folded into the consumer's. SqlSetOp (sql_setop.h) and SqlJoin (sql_join.h)
// derive from it and add their operation (run()) and results.
#pragma once

#include <cstddef>
#include <cstdint>

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
    double kernel_ms = 0;    // the operation itself (set operation, sorted search)
    size_t runs = 0;         // runs shipped by add() while reading, both sides
    double ship_ms = 0;      // spent inside add() shipping them
};

template <class K>
class SqlStage {
public:
    SqlStage(const SqlStage&) = delete;
    SqlStage& operator=(const SqlStage&) = delete;

    // set_ship_rows(): see SortedSides (ship a run once this many keys of a side wait).
    static constexpr size_t kBackendDefault = SortedSides<K>::kBackendDefault;
    static constexpr size_t kNoShipping = SortedSides<K>::kNoShipping;
    void set_ship_rows(size_t rows);

    // Appends a batch of keys (copied: the caller's buffer is free again on return),
    // or a chunk read in place (the caller keeps it alive and unchanged until finish()
    // has succeeded: the pipeline never reads it after that, so the caller may even
    // reuse its memory for the results), and ships the keys waiting on that side as a
    // run when there are enough. On the GPU it does not wait for the run's copy or
    // sort. Safe from several threads at once. If it throws (OutOfMemory: the keys are
    // charged to the context's budget), the keys were not added.
    void add(Side side, const K* keys, size_t n);
    // ascending, values: see SortedSides::add_chunk
    void add_chunk(Side side, const K* keys, size_t n, bool ascending = false, const uint64_t* values = nullptr);
    size_t rows(Side side) const;  // keys added so far to that side
    void finish();                 // runs the operation (once)

    // Moves the pipeline to another context, typically the CPU backend after the GPU
    // ran out of memory: the keys added so far are kept, unchanged, with their row
    // numbers, and finish() may run again. Runs shipped so far are dropped; the new
    // context ships from the first row again. Not after a finish() that succeeded.
    void rebind(Context& ctx);
    Context& context() const;

    PipelineTimings timings() const;  // the consumer's own and the stage's

protected:
    // name: the consumer's class, for error messages.
    SqlStage(Context& ctx, bool with_rows, const char* name);
    virtual ~SqlStage();

    virtual void run() = 0;  // finish()'s work: sort the sides, compute the results
    // Whether keys of `side` may carry values instead of row numbers (add_chunk).
    virtual bool accepts_values(Side) const { return true; }
    SortedSides<K>& sides() { return sides_; }
    const SortedSides<K>& sides() const { return sides_; }
    bool finished() const { return finished_; }
    void require_success(const char* call) const;  // throws Error before a successful finish()
    PipelineTimings own_timings_;  // the consumer's kernel and downloads; the stage keeps its own

private:
    SortedSides<K> sides_;
    const char* name_;
    bool attempted_ = false, finished_ = false, succeeded_ = false;
};

}  // namespace mergepath
