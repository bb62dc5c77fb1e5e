// pair_join.cpp — front end of the kernel benchmark's pair join (sorted search + scan +
// load-balancing search into (a, b) row pairs; not what SQL runs, which is sql_join.h's
// SqlJoin with the extension's own expansion): argument checks as the library's ops,
// then dispatch to the context's backend (cpu:: or cuda::). Instantiated for the three
// key types.
#include <string>

#include "pair_join_backends.h"

namespace mergepath {
namespace {

void require(const void* data, size_t size, const char* what) {
    if (size && !data) throw Error(std::string("mergepath: ") + what + " has a size but no data");
}

}  // namespace

template <class K>
JoinResult pair_join(Context& ctx, JoinKind kind, View<const K> a, View<const K> b) {
    require(a.data, a.size, "pair_join input A");
    require(b.data, b.size, "pair_join input B");
    return ctx.backend() == Backend::Cuda ? cuda::pair_join<K>(ctx, kind, a, b) : cpu::pair_join<K>(ctx, kind, a, b);
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_PAIR_JOIN)

}  // namespace mergepath
