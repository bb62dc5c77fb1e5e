// sorted_sides.h — the "sorted sides" stage every SQL node of pg_mergepath is built on.
// The keys of two inputs (A and B) arrive in pieces, from any number of producers, in
// any order; the stage turns each side into one sorted array in the context's space:
//
//   producers --add / add_chunk--> host slices --ship--> sorted runs --sort()--> 2 sorted sides
//
//  - add() copies a batch into the stage's own host blocks; add_chunk() reads the
//    caller's memory in place (a chunk that another process filled in shared memory,
//    say) and never changes it. Both are safe to call from several threads at once.
//    Every key has a row number: its position in its side, in the order added. A chunk
//    whose keys ascend already (a piece of a sorted run read back from a file) is, on
//    the CPU backend, a run of its own that is merged but never sorted again.
//  - Sorting overlaps arrival: once ship_rows keys of a side are waiting, they are
//    shipped as a run. On the GPU a run is copied through pinned staging buffers and
//    radix-sorted there, queued on the context's stream while the producers go on; the
//    CPU backend ships everything at the end by default (one parallel sort per side).
//  - sort() ships the rest and merges each side's runs with Merge Path.
//  - Memory: the host keys the stage holds (copied or read in place, with their
//    values) are charged to the context's budget, together with its device memory. An
//    OutOfMemory leaves every key in place; rebind() then moves the stage to another
//    context (the CPU backend) and sort() can run again there.
// The set-operation pipeline (sql_setop.h) and the join are consumers of this stage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mergepath/context.h"
#include "mergepath/types.h"

namespace mergepath {

enum class Side { A, B };

// Host milliseconds spent by the stage: ship_ms inside add()/add_chunk() shipping runs,
// transfer_ms shipping the rest in sort() (GPU), sort_ms merging runs (and sorting the
// rest on the CPU).
struct StageTimings {
    double ship_ms = 0;
    double transfer_ms = 0;
    double sort_ms = 0;
    size_t runs = 0;  // runs shipped while keys arrived, both sides
};

template <class K>
class SortedSides {
public:
    SortedSides(Context& ctx, bool with_rows);
    ~SortedSides();
    SortedSides(const SortedSides&) = delete;
    SortedSides& operator=(const SortedSides&) = delete;

    static constexpr size_t kBackendDefault = 0;  // 1 << 22 on the GPU, no shipping on the CPU
    static constexpr size_t kNoShipping = SIZE_MAX;
    // A run is shipped once at least this many keys of a side are waiting. Set before
    // adding keys. A shipment that runs out of memory ends shipping: its runs are
    // dropped and sort() ships whole sides (throwing OutOfMemory if they do not fit).
    void set_ship_rows(size_t rows);

    // Appends a copy of keys[0, n) to the side; returns the row number of keys[0] (the
    // others follow). If it throws (OutOfMemory), nothing was added.
    uint64_t add(Side side, const K* keys, size_t n);
    // Appends keys[0, n) without copying: they are read in place until the stage is
    // destroyed, so the caller keeps them alive and unchanged that long (or until
    // sort() has succeeded, when no rebind() follows: sort() is their last reader).
    // ascending: keys[0, n) are in ascending order already. values: when given (read in
    // place like the keys), values[i] is what keys[i] carries through the sort instead
    // of its row number (sorted_rows then gives values); a side's keys all carry values
    // or none does (else Error, nothing added). add() keys carry row numbers.
    uint64_t add_chunk(Side side, const K* keys, size_t n, bool ascending = false, const uint64_t* values = nullptr);
    size_t rows(Side side) const;  // keys added to the side so far

    // Sorts both sides (stably: equal keys keep the order they were added in).
    void sort();
    bool sorted() const;

    // Moves the stage to another context (after an OutOfMemory): runs and sorted sides
    // are dropped, the keys stay, the charge moves.
    void rebind(Context& ctx);
    Context& context() const;

    // After sort(): each side sorted, in the context's space, and the row number of
    // every key (empty without rows). Valid until release() or rebind().
    View<const K> sorted_keys(Side side) const;
    View<const uint64_t> sorted_rows(Side side) const;
    void release();       // frees the sorted sides
    void release_keys();  // frees the sorted keys only (sorted_keys() is empty after it), keeps the rows

    const StageTimings& timings() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace mergepath
