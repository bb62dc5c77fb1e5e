// test_merge.cpp — merge (Merge Path) against std::merge on both backends and all key
// types: keys and tagged source positions (stable, A before B on ties), for every output
// selection, on every scenario group of test_support.h.
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
::testing::AssertionResult check_merge(Context& ctx, const Case<K>& c) {
    TaggedRef<K> ref = ref_merge(c.a, c.b);
    std::vector<K> std_keys(c.a.size() + c.b.size());
    std::merge(c.a.begin(), c.a.end(), c.b.begin(), c.b.end(), std_keys.begin());
    MP_RETURN_IF_FAILED(same_array("reference merge vs std::merge", std_keys, ref.keys));

    Buffer<K> a = put(ctx, c.a), b = put(ctx, c.b);
    const Outputs variants[] = {{true, true}, {true, false}, {false, true}};
    for (Outputs want : variants) {
        std::string tag = std::string("merge keys=") + (want.keys ? "1" : "0") +
                          " indices=" + (want.indices ? "1" : "0");
        TaggedResult<K> r = merge<K>(ctx, View<const K>(a), View<const K>(b), want);
        if (r.count != ref.keys.size())
            return ::testing::AssertionFailure()
                   << tag << ": count " << r.count << ", expected " << ref.keys.size();
        MP_RETURN_IF_FAILED(buffer_shape(tag + " keys", r.keys, r.count, want.keys));
        MP_RETURN_IF_FAILED(buffer_shape(tag + " indices", r.indices, r.count, want.indices));
        if (want.keys) MP_RETURN_IF_FAILED(same_array(tag + " keys", ref.keys, get(ctx, r.keys, r.count)));
        if (want.indices)
            MP_RETURN_IF_FAILED(same_array(tag + " indices", ref.indices, get(ctx, r.indices, r.count)));
        if (c.a.size() + c.b.size() > 1000000) break;  // large: one variant is enough
    }
    return ::testing::AssertionSuccess();
}

template <class C>
class MergeTest : public BackendTest<C> {};
TYPED_TEST_SUITE(MergeTest, AllConfigs);

MP_GROUP_TESTS(MergeTest, check_merge)

}  // namespace
}  // namespace mptest
