// ops.cpp — the public operations: argument checks, then dispatch to the context's
// backend (cpu:: or cuda::). merge_pairs is the Merge Path merge with tagged
// positions followed by the backend's gather of the rows they name (in place over the
// positions). Instantiated for the three key types.
#include "backends.h"

namespace mergepath {
namespace {

template <class T>
void require(View<T> v, const char* what) {
    if (v.size && !v.data) throw Error(std::string("mergepath: ") + what + " has a size but no data");
}

}  // namespace

#define DISPATCH(ctx, call) ((ctx).backend() == Backend::Cuda ? cuda::call : cpu::call)

template <class K>
TaggedResult<K> merge(Context& ctx, View<const K> a, View<const K> b, Outputs want) {
    require(a, "merge input A");
    require(b, "merge input B");
    return DISPATCH(ctx, merge<K>(ctx, a, b, want));
}

void ranges_by_row(Context& ctx, View<const uint64_t> rows, View<const uint64_t> lower, View<const uint64_t> upper,
                   View<JoinRange> by_row) {
    require(rows, "ranges_by_row rows");
    require(by_row, "ranges_by_row output");
    if (lower.size != rows.size || upper.size != rows.size || by_row.size != rows.size)
        throw Error("mergepath: ranges_by_row needs one row, bound and output per sorted key");
    DISPATCH(ctx, ranges_by_row(ctx, rows, lower, upper, by_row));
}

template <class K>
PairsResult<K> merge_pairs(Context& ctx, View<const K> a, View<const uint64_t> a_rows, View<const K> b,
                           View<const uint64_t> b_rows) {
    require(a_rows, "merge_pairs rows of A");
    require(b_rows, "merge_pairs rows of B");
    if (a.size != a_rows.size || b.size != b_rows.size) throw Error("mergepath: merge_pairs needs one row per key");
    TaggedResult<K> m = merge<K>(ctx, a, b, Outputs{true, true});
    View<uint64_t> tagged(m.indices.data(), m.count);
    DISPATCH(ctx, gather_rows(ctx, tagged, a_rows, b_rows));
    PairsResult<K> r;
    r.keys = std::move(m.keys);
    r.rows = std::move(m.indices);
    r.count = m.count;
    return r;
}

template <class K>
TaggedResult<K> set_op(Context& ctx, SetOp op, View<const K> a, View<const K> b, Outputs want) {
    require(a, "set_op input A");
    require(b, "set_op input B");
    return DISPATCH(ctx, set_op<K>(ctx, op, a, b, want));
}

template <class K>
UniqueResult<K> unique(Context& ctx, View<const K> keys) {
    require(keys, "unique input");
    return DISPATCH(ctx, unique<K>(ctx, keys));
}

template <class K>
SearchResult sorted_search(Context& ctx, View<const K> a, View<const K> b, SearchOutputs want) {
    require(a, "sorted_search needles");
    require(b, "sorted_search haystack");
    return DISPATCH(ctx, sorted_search<K>(ctx, a, b, want));
}

template <class K>
void sort_pairs(Context& ctx, View<K> keys, View<uint64_t> rows) {
    require(keys, "sort_pairs keys");
    require(rows, "sort_pairs rows");
    if (keys.size != rows.size) throw Error("mergepath: sort_pairs needs as many rows as keys");
    DISPATCH(ctx, sort_pairs<K>(ctx, keys, rows));
}

template <class K>
void sort_keys(Context& ctx, View<K> keys) {
    require(keys, "sort_keys keys");
    DISPATCH(ctx, sort_keys<K>(ctx, keys));
}

#define INSTANTIATE_FRONT_END(K) \
    MERGEPATH_INSTANTIATE_OPS(K)  \
    template PairsResult<K> merge_pairs<K>(Context&, View<const K>, View<const uint64_t>, View<const K>, View<const uint64_t>);
MERGEPATH_FOR_EACH_KEY(INSTANTIATE_FRONT_END)

}  // namespace mergepath
