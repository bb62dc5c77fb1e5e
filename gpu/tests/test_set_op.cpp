// test_set_op.cpp — the four multiset operations (Balanced Path) against
// std::set_intersection / set_difference / set_union / set_symmetric_difference by key +
// rank, on both backends and all key types: keys and tagged source positions (equal
// elements come from A, as in std), for every output selection and scenario group.
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
::testing::AssertionResult check_set_ops(Context& ctx, const Case<K>& c) {
    Buffer<K> a = put(ctx, c.a), b = put(ctx, c.b);
    const bool large = c.a.size() + c.b.size() > 1000000;
    for (SetOp op : kAllSetOps) {
        TaggedRef<K> ref = ref_set_op(op, c.a, c.b);
        MP_RETURN_IF_FAILED(same_array(std::string("reference vs std:: ") + setop_name(op),
                                       std_set_op(op, c.a, c.b), ref.keys));
        const Outputs variants[] = {{true, true}, {true, false}, {false, true}};
        for (Outputs want : variants) {
            std::string tag = std::string(setop_name(op)) + " keys=" + (want.keys ? "1" : "0") +
                              " indices=" + (want.indices ? "1" : "0");
            TaggedResult<K> r = set_op<K>(ctx, op, View<const K>(a), View<const K>(b), want);
            if (r.count != ref.keys.size())
                return ::testing::AssertionFailure()
                       << tag << ": count " << r.count << ", expected " << ref.keys.size();
            MP_RETURN_IF_FAILED(buffer_shape(tag + " keys", r.keys, r.count, want.keys));
            MP_RETURN_IF_FAILED(buffer_shape(tag + " indices", r.indices, r.count, want.indices));
            if (want.keys)
                MP_RETURN_IF_FAILED(same_array(tag + " keys", ref.keys, get(ctx, r.keys, r.count)));
            if (want.indices)
                MP_RETURN_IF_FAILED(same_array(tag + " indices", ref.indices, get(ctx, r.indices, r.count)));
            if (large) break;
        }
    }
    return ::testing::AssertionSuccess();
}

template <class C>
class SetOpTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SetOpTest, AllConfigs);

MP_GROUP_TESTS(SetOpTest, check_set_ops)

}  // namespace
}  // namespace mptest
