// nocuda_pair_join.cpp — the CUDA backend of the kernel benchmark's pair join (sorted
// search + scan + load-balancing search into (a, b) row pairs; not what SQL runs: SQL
// uses sql_join.h's SqlJoin and the extension expands the pairs itself) in a build
// without nvcc. A context can never resolve to the CUDA backend there, so this only
// guards the link, throwing NoDevice as the library's stubs (gpu/src/nocuda) do.
#include "pair_join_backends.h"

namespace mergepath {
namespace cuda {

template <class K>
JoinResult pair_join(Context&, JoinKind, View<const K>, View<const K>) {
    throw NoDevice("mergepath: built without CUDA support");
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_PAIR_JOIN)

}  // namespace cuda
}  // namespace mergepath
