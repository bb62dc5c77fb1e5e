// ops.cpp (no CUDA) — the CUDA backend's operations and run shipping (ship_run.h) in a
// build without nvcc. A context can never resolve to the CUDA backend there, so these
// only guard the link.
#include "backends.h"
#include "ship_run.h"

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
void sort_pairs(Context&, View<K>, View<uint64_t>) { no_cuda(); }
template <class K>
void sort_keys(Context&, View<K>) { no_cuda(); }
void gather_rows(Context&, View<uint64_t>, View<const uint64_t>, View<const uint64_t>) { no_cuda(); }
void ranges_by_row(Context&, View<const uint64_t>, View<const uint64_t>, View<const uint64_t>, View<JoinRange>) {
    no_cuda();
}
template <class K>
DeviceRun<K> ship_run(Context&, const HostSlice<K>*, size_t, uint64_t, bool) { no_cuda(); }

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_OPS)
MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SHIP_RUN)

}  // namespace cuda
}  // namespace mergepath
