// ops.cpp (no CUDA) — the CUDA backend's operations in a build without nvcc. A
// context can never resolve to the CUDA backend there, so these only guard the link.
#include "backends.h"

namespace mergepath {
namespace cuda {
namespace {
[[noreturn]] void no_cuda() { throw NoDevice("mergepath: built without CUDA support"); }
}  // namespace

template <class K>
TaggedResult<K> merge(Context&, View<const K>, View<const K>, Outputs) { no_cuda(); }
template <class K>
TaggedResult<K> set_op(Context&, SetOp, View<const K>, View<const K>, Outputs) { no_cuda(); }
template <class K>
UniqueResult<K> unique(Context&, View<const K>) { no_cuda(); }
template <class K>
SearchResult sorted_search(Context&, View<const K>, View<const K>, SearchOutputs) { no_cuda(); }
template <class K>
JoinResult join(Context&, JoinKind, View<const K>, View<const K>) { no_cuda(); }
template <class K>
void sort_pairs(Context&, View<K>, View<uint64_t>) { no_cuda(); }
template <class K>
void sort_keys(Context&, View<K>) { no_cuda(); }

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_OPS)

}  // namespace cuda
}  // namespace mergepath
