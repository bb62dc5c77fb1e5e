// test_sort.cpp — sort_pairs (stable, rows permuted with their keys) against
// std::stable_sort and sort_keys against std::sort, on both backends and all key types;
// sort_keys also on a one-thread CPU context (its own path: a radix hybrid for integers).
// The unsorted input of each scenario is A and B concatenated and shuffled, so sorting
// sees the same sizes, duplicate runs and extreme keys as the other operations.
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
std::vector<K> shuffled_input(const Case<K>& c) {
    std::vector<K> v = c.a.size() + c.b.size() > 3000000 ? c.a : concat(c.a, c.b);  // bound runtime
    Rng rng(c.seed ^ 0x5107);
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

template <class K>
::testing::AssertionResult check_sort_pairs(Context& ctx, const Case<K>& c) {
    std::vector<K> keys = shuffled_input(c);
    std::vector<uint64_t> rows(keys.size());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = uint64_t(i) * 0x9E3779B97F4A7C15ull;
    std::vector<std::pair<K, uint64_t>> pairs(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) pairs[i] = {keys[i], rows[i]};
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<K> want_keys(keys.size());
    std::vector<uint64_t> want_rows(keys.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        want_keys[i] = pairs[i].first;
        want_rows[i] = pairs[i].second;
    }
    Buffer<K> k = put(ctx, keys);
    Buffer<uint64_t> r = put(ctx, rows);
    sort_pairs<K>(ctx, View<K>(k.data(), k.size()), View<uint64_t>(r.data(), r.size()));
    MP_RETURN_IF_FAILED(same_array("sort_pairs keys", want_keys, get(ctx, k, keys.size())));
    return same_array("sort_pairs rows (stable)", want_rows, get(ctx, r, rows.size()));
}

template <class K>
::testing::AssertionResult check_sort_keys(Context& ctx, const Case<K>& c) {
    std::vector<K> keys = shuffled_input(c);
    Buffer<K> k = put(ctx, keys);
    sort_keys<K>(ctx, View<K>(k.data(), k.size()));
    std::sort(keys.begin(), keys.end());
    return same_array("sort_keys", keys, get(ctx, k, keys.size()));
}

// The same on a CPU context of one thread (CPU configurations only).
template <class K>
::testing::AssertionResult check_sort_keys_one_thread(Context&, const Case<K>& c) {
    Options options;
    options.backend = Backend::Cpu;
    options.cpu_threads = 1;
    Context one(options);
    return check_sort_keys(one, c);
}

template <class C>
class SortPairsTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SortPairsTest, AllConfigs);
MP_GROUP_TESTS(SortPairsTest, check_sort_pairs)

template <class C>
class SortKeysTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SortKeysTest, AllConfigs);
MP_GROUP_TESTS(SortKeysTest, check_sort_keys)

template <class C>
class SortKeysOneThreadTest : public BackendTest<C> {};
using CpuConfigs = ::testing::Types<Cpu_u32, Cpu_u64, Cpu_k128>;
TYPED_TEST_SUITE(SortKeysOneThreadTest, CpuConfigs);
MP_GROUP_TESTS(SortKeysOneThreadTest, check_sort_keys_one_thread)

}  // namespace
}  // namespace mptest
