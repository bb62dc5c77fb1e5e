// sort.cpp — CPU backend sorting: Boost.Sort's parallel sorts (stable for key + row
// pairs, block-indirect for keys alone) over the context's threads; keys alone on one
// thread (a context whose process shares the cores with others) with Boost's
// spreadsort, a radix hybrid, for integer keys. Sorting is not one of the seed
// algorithms: we use a library, as the GPU backend uses CUB.
#include <boost/sort/sort.hpp>
#include <boost/sort/spreadsort/integer_sort.hpp>
#include <type_traits>
#include <vector>

#include "backends.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {
namespace {

template <class K>
struct KeyRow {
    K key;
    uint64_t row;
};

}  // namespace

template <class K>
void sort_pairs(Context& ctx, View<K> keys, View<uint64_t> rows) {
    if (keys.size != rows.size) throw Error("mergepath: sort_pairs needs as many rows as keys");
    ctx.check_interrupt();
    SignalsBlocked blocked;  // Boost.Sort starts threads
    std::vector<KeyRow<K>> pairs(keys.size);
    for (size_t i = 0; i < keys.size; ++i) pairs[i] = {keys.data[i], rows.data[i]};
    boost::sort::parallel_stable_sort(pairs.begin(), pairs.end(),
                                      [](const KeyRow<K>& x, const KeyRow<K>& y) { return x.key < y.key; },
                                      static_cast<uint32_t>(ctx.cpu_threads()));
    ctx.check_interrupt();
    for (size_t i = 0; i < keys.size; ++i) {
        keys.data[i] = pairs[i].key;
        rows.data[i] = pairs[i].row;
    }
}

template <class K>
void sort_keys(Context& ctx, View<K> keys) {
    ctx.check_interrupt();
    if constexpr (std::is_integral<K>::value) {
        if (ctx.cpu_threads() == 1) return boost::sort::spreadsort::integer_sort(keys.data, keys.data + keys.size);
    }
    SignalsBlocked blocked;  // Boost.Sort starts threads
    boost::sort::block_indirect_sort(keys.data, keys.data + keys.size, std::less<K>(),
                                     static_cast<uint32_t>(ctx.cpu_threads()));
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SORT)

}  // namespace cpu
}  // namespace mergepath
