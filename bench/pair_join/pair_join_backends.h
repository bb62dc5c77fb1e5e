// pair_join_backends.h — inside the kernel benchmark's pair join (not what SQL runs:
// SQL uses sql_join.h's SqlJoin and expands pairs in the extension): the two backend
// implementations of the sorted search + scan + load-balancing search that pair_join.cpp
// dispatches to (cpu::pair_join in cpu_pair_join.cpp, cuda::pair_join in
// cuda_pair_join.cu, or its stub in nocuda_pair_join.cpp), and what both derive from the
// join kind. Built on the library's internal backends.h.
#pragma once

#include "backends.h"
#include "pair_join.h"

namespace mergepath {
namespace cpu {
template <class K>
JoinResult pair_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b);
}  // namespace cpu
namespace cuda {
template <class K>
JoinResult pair_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b);
}  // namespace cuda

// Explicit instantiation of pair_join for key type K, by the file that implements it,
// in the namespace where the macro is expanded (the front end, or a backend).
#define MERGEPATH_INSTANTIATE_PAIR_JOIN(K) \
    template JoinResult pair_join<K>(Context&, JoinKind, View<const K>, View<const K>);

// What join expansion of a kind needs, the same for both backends: semi and anti
// joins only select A rows by their match flag; the others expand bounds into pairs,
// keeping unmatched A rows (left, full) and appending unmatched B rows (right, full).
struct JoinShape {
    bool semi_anti;
    bool keep_unmatched_a;
    bool keep_unmatched_b;
    SearchOutputs search;  // what the sorted search must produce for it
};

inline JoinShape join_shape(JoinKind kind) {
    JoinShape s;
    s.semi_anti = kind == JoinKind::Semi || kind == JoinKind::Anti;
    s.keep_unmatched_a = kind == JoinKind::Left || kind == JoinKind::Full;
    s.keep_unmatched_b = kind == JoinKind::Right || kind == JoinKind::Full;
    s.search = {!s.semi_anti, !s.semi_anti, s.semi_anti, s.keep_unmatched_b};
    return s;
}

}  // namespace mergepath
