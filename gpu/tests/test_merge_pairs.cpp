// test_merge_pairs.cpp — merge_pairs (Merge Path merge of keys that each carry a row)
// on both backends and all key types, on every scenario group of test_support.h: the
// merged keys equal std::merge, and every output row is the row of the input element
// the reference merge (stable, A before B on ties) puts there. Rows are distinct
// per element, so a row taken from the wrong side or position shows.
#include "test_support.h"

namespace mptest {
namespace {

std::vector<uint64_t> payload(size_t n, uint64_t salt) {
    std::vector<uint64_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = (uint64_t(i) * 0x9E3779B97F4A7C15ull) ^ salt;
    return rows;
}

template <class K>
::testing::AssertionResult check_merge_pairs(Context& ctx, const Case<K>& c) {
    TaggedRef<K> ref = ref_merge(c.a, c.b);
    std::vector<K> std_keys(c.a.size() + c.b.size());
    std::merge(c.a.begin(), c.a.end(), c.b.begin(), c.b.end(), std_keys.begin());
    MP_RETURN_IF_FAILED(same_array("reference merge vs std::merge", std_keys, ref.keys));

    std::vector<uint64_t> ra = payload(c.a.size(), 0xa), rb = payload(c.b.size(), 0xb);
    std::vector<uint64_t> want_rows(ref.indices.size());
    for (size_t i = 0; i < want_rows.size(); ++i) {
        uint64_t t = ref.indices[i];
        want_rows[i] = is_from_b(t) ? rb[untag(t)] : ra[t];
    }
    Buffer<K> a = put(ctx, c.a), b = put(ctx, c.b);
    Buffer<uint64_t> da = put(ctx, ra), db = put(ctx, rb);
    PairsResult<K> r = merge_pairs<K>(ctx, View<const K>(a), View<const uint64_t>(da), View<const K>(b),
                                      View<const uint64_t>(db));
    if (r.count != ref.keys.size())
        return ::testing::AssertionFailure() << "merge_pairs count " << r.count << ", expected " << ref.keys.size();
    MP_RETURN_IF_FAILED(buffer_shape("merge_pairs keys", r.keys, r.count, true));
    MP_RETURN_IF_FAILED(buffer_shape("merge_pairs rows", r.rows, r.count, true));
    MP_RETURN_IF_FAILED(same_array("merge_pairs keys", ref.keys, get(ctx, r.keys, r.count)));
    return same_array("merge_pairs rows", want_rows, get(ctx, r.rows, r.count));
}

template <class C>
class MergePairsTest : public BackendTest<C> {};
TYPED_TEST_SUITE(MergePairsTest, AllConfigs);

MP_GROUP_TESTS(MergePairsTest, check_merge_pairs)

class MergePairsOnBackend : public OnBackend {};

TEST_P(MergePairsOnBackend, RowsMustMatchKeys) {
    Context ctx(options());
    std::vector<uint64_t> k(10, 1), r(9, 0);
    Buffer<uint64_t> dk = put(ctx, k), dr = put(ctx, r);
    View<const uint64_t> keys(dk), rows(dr);
    EXPECT_THROW(merge_pairs<uint64_t>(ctx, keys, rows, keys, View<const uint64_t>(dk)), Error) << "|A rows| != |A|";
    EXPECT_THROW(merge_pairs<uint64_t>(ctx, keys, View<const uint64_t>(dk), keys, rows), Error) << "|B rows| != |B|";
}

INSTANTIATE_TEST_SUITE_P(Backends, MergePairsOnBackend, ::testing::Values(Backend::Cpu, Backend::Cuda));

}  // namespace
}  // namespace mptest
