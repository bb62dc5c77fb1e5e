// test_sorted_search.cpp — vectorized sorted search against a serial reference checked
// with std::lower_bound / upper_bound / binary_search, on both backends and all key
// types: lower and upper bounds of every A in B, match flags of A and of B, for several
// output selections (unrequested outputs must come back empty).
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
::testing::AssertionResult check_search(Context& ctx, const Case<K>& c) {
    SearchRef ref = ref_search(c.a, c.b);
    Buffer<K> a = put(ctx, c.a), b = put(ctx, c.b);
    const size_t na = c.a.size(), nb = c.b.size();
    const SearchOutputs variants[] = {
        {true, true, true, true},    // everything
        {true, false, true, true},   // what the benchmark measures
        {false, true, false, false}, // upper only
        {false, false, true, false}, // a_match only
        {false, false, false, true}, // b_match only
    };
    for (SearchOutputs want : variants) {
        std::string tag = std::string("sorted_search lower=") + (want.lower ? "1" : "0") +
                          " upper=" + (want.upper ? "1" : "0") + " a_match=" + (want.a_match ? "1" : "0") +
                          " b_match=" + (want.b_match ? "1" : "0");
        SearchResult r = sorted_search<K>(ctx, View<const K>(a), View<const K>(b), want);
        MP_RETURN_IF_FAILED(buffer_shape(tag + " a_lower", r.a_lower, na, want.lower));
        MP_RETURN_IF_FAILED(buffer_shape(tag + " a_upper", r.a_upper, na, want.upper));
        MP_RETURN_IF_FAILED(buffer_shape(tag + " a_match", r.a_match, na, want.a_match));
        MP_RETURN_IF_FAILED(buffer_shape(tag + " b_match", r.b_match, nb, want.b_match));
        if (want.lower) MP_RETURN_IF_FAILED(same_array(tag + " a_lower", ref.lower, get(ctx, r.a_lower, na)));
        if (want.upper) MP_RETURN_IF_FAILED(same_array(tag + " a_upper", ref.upper, get(ctx, r.a_upper, na)));
        if (want.a_match)
            MP_RETURN_IF_FAILED(same_array(tag + " a_match", ref.a_match, get(ctx, r.a_match, na)));
        if (want.b_match)
            MP_RETURN_IF_FAILED(same_array(tag + " b_match", ref.b_match, get(ctx, r.b_match, nb)));
        if (na + nb > 1000000) break;
    }
    return ::testing::AssertionSuccess();
}

template <class C>
class SortedSearchTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SortedSearchTest, AllConfigs);

MP_GROUP_TESTS(SortedSearchTest, check_search)

}  // namespace
}  // namespace mptest
