// ops.h — the operations of the mergepath library on sorted key arrays. All inputs
// are Views in the context's memory space (device memory for CUDA, host memory for
// the CPU backend); results are Buffers in the same space with an explicit count.
// Every operation is exact, stable and deterministic; sizes and indices are 64-bit.
// Key types K: uint32_t, uint64_t, Key128.
//
//   merge          Merge Path: stable merge, A before B on equal keys.
//   merge_pairs    the same merge of keys that each carry a row (the merge's tagged
//                  positions, then a gather of the rows they name).
//   set_op         Balanced Path: std::set_intersection / difference / union /
//                  symmetric_difference semantics by key + rank (multisets).
//   unique         first element of each run of equal keys.
//   sorted_search  vectorized sorted search: lower/upper bound of every A in B and
//                  match flags for A and for B, O(|A| + |B|).
//   ranges_by_row  sorted search ranges moved from sorted A positions to A row numbers.
//   sort_pairs     CUB radix sort (CPU: parallel sort) of keys with a row payload.
#pragma once

#include <cstdint>

#include "mergepath/context.h"
#include "mergepath/types.h"

namespace mergepath {

// What an operation should write. Leaving an output out saves its memory traffic.
struct Outputs {
    bool keys = true;
    bool indices = true;
};

// Merge and set-op results: keys[i] and the tagged position it came from
// (index into A, or index into B | kFromB). Buffers not requested are empty.
template <class K>
struct TaggedResult {
    Buffer<K> keys;
    Buffer<uint64_t> indices;
    size_t count = 0;
};

template <class K>
TaggedResult<K> merge(Context& ctx, View<const K> a, View<const K> b, Outputs want = {});

// Merged keys with the row each carried: a_rows[i] travels with a[i], b_rows[j] with b[j].
template <class K>
struct PairsResult {
    Buffer<K> keys;
    Buffer<uint64_t> rows;
    size_t count = 0;
};

template <class K>
PairsResult<K> merge_pairs(Context& ctx, View<const K> a, View<const uint64_t> a_rows, View<const K> b,
                           View<const uint64_t> b_rows);

template <class K>
TaggedResult<K> set_op(Context& ctx, SetOp op, View<const K> a, View<const K> b, Outputs want = {});

// The first element of every run of equal keys: its position (into keys) and the
// key itself, ascending.
template <class K>
struct UniqueResult {
    Buffer<uint64_t> first_indices;
    Buffer<K> keys;
    size_t count = 0;
};

template <class K>
UniqueResult<K> unique(Context& ctx, View<const K> keys);

// Sorted search of needles A in haystack B (both sorted ascending).
//   a_lower[i] = first j with !(B[j] < A[i]); a_upper[i] = first j with A[i] < B[j];
//   a_match[i] = 1 iff A[i] occurs in B; b_match[j] = 1 iff B[j] occurs in A.
// The equal_range size of A[i] in B is a_upper[i] - a_lower[i].
struct SearchOutputs {
    bool lower = true;
    bool upper = true;
    bool a_match = true;
    bool b_match = true;
};

struct SearchResult {
    Buffer<uint64_t> a_lower;
    Buffer<uint64_t> a_upper;
    Buffer<uint8_t> a_match;
    Buffer<uint8_t> b_match;
};

template <class K>
SearchResult sorted_search(Context& ctx, View<const K> a, View<const K> b, SearchOutputs want = {});

// by_row[rows[i]] = {lower[i], upper[i] - lower[i]} for every sorted A position i: the
// ranges of a sorted search indexed by the row each A key came from (rows: a
// permutation of [0, n), the rows sort_pairs carried; by_row has n elements).
void ranges_by_row(Context& ctx, View<const uint64_t> rows, View<const uint64_t> lower, View<const uint64_t> upper,
                   View<JoinRange> by_row);

// Sorts keys ascending and permutes rows with them (stable), in place.
template <class K>
void sort_pairs(Context& ctx, View<K> keys, View<uint64_t> rows);

// Sorts keys ascending in place.
template <class K>
void sort_keys(Context& ctx, View<K> keys);

}  // namespace mergepath
