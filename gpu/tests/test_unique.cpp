// test_unique.cpp — unique (first element of every run of equal keys) against a serial
// reference cross-checked with std::unique, on both backends and all key types, on both
// inputs of every scenario.
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
::testing::AssertionResult check_unique_one(Context& ctx, const char* side, const std::vector<K>& v) {
    std::vector<uint64_t> ref = ref_unique(v);
    std::vector<K> std_keys = v;
    std_keys.erase(std::unique(std_keys.begin(), std_keys.end()), std_keys.end());
    std::vector<K> ref_keys;
    for (uint64_t i : ref) ref_keys.push_back(v[i]);
    MP_RETURN_IF_FAILED(same_array("reference vs std::unique", std_keys, ref_keys));

    Buffer<K> in = put(ctx, v);
    UniqueResult<K> r = unique<K>(ctx, View<const K>(in));
    std::string tag = std::string("unique(") + side + ")";
    if (r.count != ref.size())
        return ::testing::AssertionFailure() << tag << ": count " << r.count << ", expected " << ref.size();
    MP_RETURN_IF_FAILED(buffer_shape(tag, r.first_indices, r.count, true));
    return same_array(tag + " first_indices", ref, get(ctx, r.first_indices, r.count));
}

template <class K>
::testing::AssertionResult check_unique(Context& ctx, const Case<K>& c) {
    MP_RETURN_IF_FAILED(check_unique_one(ctx, "A", c.a));
    return check_unique_one(ctx, "B", c.b);
}

template <class C>
class UniqueTest : public BackendTest<C> {};
TYPED_TEST_SUITE(UniqueTest, AllConfigs);

MP_GROUP_TESTS(UniqueTest, check_unique)

}  // namespace
}  // namespace mptest
