// backends.h — the operations each backend implements (cpu:: in src/cpu, cuda:: in
// src/cuda). ops.cpp checks arguments and dispatches on the context's backend, and
// composes merge_pairs from merge and gather_rows.
#pragma once

#include "mergepath/ops.h"

#define MERGEPATH_DECLARE_BACKEND(NS)                                                          \
    namespace NS {                                                                             \
    template <class K>                                                                         \
    TaggedResult<K> merge(Context& ctx, View<const K> a, View<const K> b, Outputs want);       \
    template <class K>                                                                         \
    TaggedResult<K> set_op(Context& ctx, SetOp op, View<const K> a, View<const K> b,           \
                           Outputs want);                                                      \
    template <class K>                                                                         \
    UniqueResult<K> unique(Context& ctx, View<const K> keys);                                  \
    template <class K>                                                                         \
    SearchResult sorted_search(Context& ctx, View<const K> a, View<const K> b,                 \
                               SearchOutputs want);                                            \
    template <class K>                                                                         \
    void sort_pairs(Context& ctx, View<K> keys, View<uint64_t> rows);                          \
    template <class K>                                                                         \
    void sort_keys(Context& ctx, View<K> keys);                                                \
    /* Replaces every tagged position (into A, or into B | kFromB) by the row it names. */     \
    void gather_rows(Context& ctx, View<uint64_t> tagged, View<const uint64_t> a_rows,         \
                     View<const uint64_t> b_rows);                                             \
    /* by_row[rows[i]] = {lower[i], upper[i] - lower[i]}: sorted search ranges by A row. */    \
    void ranges_by_row(Context& ctx, View<const uint64_t> rows, View<const uint64_t> lower,     \
                       View<const uint64_t> upper, View<JoinRange> by_row);                    \
    }

namespace mergepath {
MERGEPATH_DECLARE_BACKEND(cpu)
MERGEPATH_DECLARE_BACKEND(cuda)
}  // namespace mergepath

// Explicit instantiation of one backend function template for the three key types.
#define MERGEPATH_FOR_EACH_KEY(MACRO) \
    MACRO(uint32_t)                   \
    MACRO(uint64_t)                   \
    MACRO(::mergepath::Key128)

// Explicit instantiation of the operations for key type K, by the file that
// implements them, in the namespace where the macro is expanded (the public front
// end, or a backend).
#define MERGEPATH_INSTANTIATE_MERGE_SET_OP(K)                                                      \
    template TaggedResult<K> merge<K>(Context&, View<const K>, View<const K>, Outputs);            \
    template TaggedResult<K> set_op<K>(Context&, SetOp, View<const K>, View<const K>, Outputs);
#define MERGEPATH_INSTANTIATE_SEARCH(K)                                                            \
    template SearchResult sorted_search<K>(Context&, View<const K>, View<const K>, SearchOutputs); \
    template UniqueResult<K> unique<K>(Context&, View<const K>);
#define MERGEPATH_INSTANTIATE_SORT(K)                                 \
    template void sort_pairs<K>(Context&, View<K>, View<uint64_t>);   \
    template void sort_keys<K>(Context&, View<K>);
#define MERGEPATH_INSTANTIATE_OPS(K)      \
    MERGEPATH_INSTANTIATE_MERGE_SET_OP(K) \
    MERGEPATH_INSTANTIATE_SEARCH(K)       \
    MERGEPATH_INSTANTIATE_SORT(K)

namespace mergepath {

// The row a tagged merge position names (gather_rows, both backends).
MP_HD uint64_t tagged_row(uint64_t tagged, const uint64_t* a_rows, const uint64_t* b_rows) {
    return is_from_b(tagged) ? b_rows[untag(tagged)] : a_rows[tagged];
}

// The result buffers sorted_search fills, as requested (both backends).
inline SearchResult allocate_search_result(Context& ctx, size_t na, size_t nb, const SearchOutputs& want) {
    SearchResult r;
    if (want.lower) r.a_lower = ctx.alloc<uint64_t>(na);
    if (want.upper) r.a_upper = ctx.alloc<uint64_t>(na);
    if (want.a_match) r.a_match = ctx.alloc<uint8_t>(na);
    if (want.b_match) r.b_match = ctx.alloc<uint8_t>(nb);
    return r;
}

}  // namespace mergepath
