// backends.h — the operations each backend implements (cpu:: in src/cpu, cuda:: in
// src/cuda). ops.cpp checks arguments and dispatches on the context's backend.
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
    JoinResult join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b);            \
    template <class K>                                                                         \
    void sort_pairs(Context& ctx, View<K> keys, View<uint64_t> rows);                          \
    template <class K>                                                                         \
    void sort_keys(Context& ctx, View<K> keys);                                                \
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

// Explicit instantiation of every operation for key type K, in the namespace where
// the macro is expanded (the public front end, or a backend).
#define MERGEPATH_INSTANTIATE_OPS(K)                                                               \
    template TaggedResult<K> merge<K>(Context&, View<const K>, View<const K>, Outputs);            \
    template TaggedResult<K> set_op<K>(Context&, SetOp, View<const K>, View<const K>, Outputs);    \
    template UniqueResult<K> unique<K>(Context&, View<const K>);                                   \
    template SearchResult sorted_search<K>(Context&, View<const K>, View<const K>, SearchOutputs); \
    template JoinResult join<K>(Context&, JoinKind, View<const K>, View<const K>);                 \
    template void sort_pairs<K>(Context&, View<K>, View<uint64_t>);                                \
    template void sort_keys<K>(Context&, View<K>);
