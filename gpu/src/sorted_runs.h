// sorted_runs.h — how one side of the SQL pipeline (sql_setop.cpp) becomes one sorted
// array in the context's space, in one of two ways with the same result:
//  - runs: while the side is read, the keys waiting since the last shipment are
//    shipped as a run. On the CUDA backend they are copied through pinned staging
//    buffers and radix-sorted on the device, queued on the stream without waiting
//    (ship_run.h); on the CPU backend the slice of the host vector is sorted in place
//    together with its row numbers. At the end the rest is shipped as a last run and
//    the runs are merged pairwise, level by level (a tree of Merge Path merges:
//    merge, or merge_pairs with rows). One run needs no merge.
//  - whole: the side uploaded as it is and sorted at once (no shipping, or shipping
//    ran out of memory).
// Runs are sorted stably and merged A-first in row order, so equal keys keep
// ascending row numbers either way: both give the same array.
//
// The host vectors: keys is the side in the order added. The GPU never changes it
// (it stays the copy to redo from after an out-of-memory); the CPU sorts slices of it
// in place. rows[i] is the row number of keys[i] for i < rows.size(); a key at
// i >= rows.size() has never moved and its row number is i (extend_rows).
#pragma once

#include <cstdint>
#include <vector>

#include "mergepath/context.h"

namespace mergepath {

// Gives keys [rows.size(), n) their row numbers (their positions).
void extend_rows(std::vector<uint64_t>& rows, size_t n);

// One side's keys, and rows when the pipeline has them, in the context's space.
template <class K>
struct SideArray {
    View<K> keys;
    View<uint64_t> rows;        // empty for keys only
    Buffer<K> key_store;        // what the views point into, unless they are the host vectors
    Buffer<uint64_t> row_store;

    View<const K> ckeys() const { return View<const K>(keys.data, keys.size); }
    View<const uint64_t> crows() const { return View<const uint64_t>(rows.data, rows.size); }
    // Leaves the array in the host vectors (a copy unless it is already there).
    // host_rows: null for keys only.
    void copy_to(Context& ctx, std::vector<K>& host_keys, std::vector<uint64_t>* host_rows) const;
};

// The whole side as it is, in the context's space: the host vectors themselves on the
// CPU backend, an upload on the GPU. With rows (non-null), every key gets its row first.
template <class K>
SideArray<K> upload_whole(Context& ctx, std::vector<K>& keys, std::vector<uint64_t>* rows);

// Sorts such an array in place (stably, with its rows).
template <class K>
void sort_whole(Context& ctx, SideArray<K>& side);

// The runs shipped from one side, in row order.
template <class K>
class SortedRuns {
public:
    explicit SortedRuns(bool with_rows) : with_rows_(with_rows) {}
    SortedRuns(SortedRuns&&) = default;
    SortedRuns& operator=(SortedRuns&&) = default;

    size_t shipped() const { return shipped_; }  // keys [0, shipped()) are in runs
    size_t count() const { return runs_.size(); }

    // Ships keys [shipped(), keys.size()) as one run (nothing when none are waiting).
    // On the CUDA backend it returns before the run is copied or sorted. If it throws,
    // no run was added and the host vectors still hold every key with its row number.
    void ship(Context& ctx, std::vector<K>& keys, std::vector<uint64_t>& rows);

    // Merges the runs into one sorted array, consuming them. Every key must have been
    // shipped (shipped() == keys.size()).
    SideArray<K> merge(Context& ctx, std::vector<K>& keys, std::vector<uint64_t>& rows);

    // Drops every run (device memory goes back to its pool); shipping restarts at row 0.
    void clear();

private:
    struct Run {
        size_t begin = 0, end = 0;  // rows [begin, end) of the side
        bool on_host = false;       // the host vectors' slice, sorted in place (CPU)
        Buffer<K> keys;             // otherwise the run's own sorted copy (GPU)
        Buffer<uint64_t> rows;
    };
    SideArray<K> array_of(Run& run, std::vector<K>& keys, std::vector<uint64_t>& rows) const;

    bool with_rows_;
    size_t shipped_ = 0;
    std::vector<Run> runs_;
};

}  // namespace mergepath
