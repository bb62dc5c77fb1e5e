// sorted_runs.h — how one side of the sorted-sides stage (sorted_sides.cpp) becomes one
// sorted array in the context's space: the keys waiting since the last shipment are
// shipped as a run (the stage decides when: while keys arrive, or all at the end), and
// at the end the runs are merged pairwise, level by level (a tree of Merge Path merges:
// merge, or merge_pairs with rows). One run needs no merge.
//
// A run is the keys of consecutive host slices, concatenated and sorted stably in the
// context's own memory, each with its row number (its position in the side) when the
// stage has rows, or with the value its slice gives it when the side's slices carry
// values. On the CUDA backend the slices are copied through pinned staging
// buffers and radix-sorted on the device, queued on the stream without waiting
// (ship_run.h); on the CPU backend they are copied into a host buffer of the context
// and sorted there. The host slices are only read, never changed, so the same keys can
// be shipped again on another context after an out-of-memory. Runs are merged A-first
// in row order, so equal keys keep ascending row numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "mergepath/context.h"
#include "ship_run.h"

namespace mergepath {

// One side's keys, and rows when the stage has them, in the context's own memory.
template <class K>
struct SideArray {
    Buffer<K> keys;
    Buffer<uint64_t> rows;  // empty for keys only
    size_t count = 0;

    View<const K> ckeys() const { return View<const K>(keys.data(), keys.empty() ? 0 : count); }
    View<const uint64_t> crows() const { return View<const uint64_t>(rows.data(), rows.empty() ? 0 : count); }
};

// The runs shipped from one side, in row order.
template <class K>
class SortedRuns {
public:
    explicit SortedRuns(bool with_rows) : with_rows_(with_rows) {}
    SortedRuns(SortedRuns&&) = default;
    SortedRuns& operator=(SortedRuns&&) = default;

    size_t count() const { return runs_.size(); }

    // Adds the concatenated slices as one run whose first key has row number first_row.
    // On the CUDA backend it returns before the run is copied or sorted. ascending: the
    // concatenated keys ascend already (the CPU backend only copies them). If it
    // throws, no run was added.
    void ship(Context& ctx, const std::vector<HostSlice<K>>& slices, uint64_t first_row, bool ascending = false);

    // Merges the runs into one sorted array, consuming them (an empty side: count 0).
    SideArray<K> merge(Context& ctx);

    // Drops every run (device memory goes back to its pool).
    void clear() { runs_.clear(); }

private:
    bool with_rows_;
    std::vector<SideArray<K>> runs_;
};

}  // namespace mergepath
