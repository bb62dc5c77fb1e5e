// path_search.h — the partitioning searches shared by the CUDA and CPU backends.
//
// Merge Path (Green, McColl & Bader; Baxter & Merrill): the merge of sorted A and B
// is a monotone path through the |A| x |B| grid; cross-diagonal d (the first d
// outputs) meets it at exactly one point, found by binary search over the diagonal.
// Each tile / thread / CPU chunk takes the outputs between two diagonals and
// merges them serially, with no coordination.
//
// Balanced Path (moderngpu, "Multisets"): for the multiset operations an element
// of rank r in A must stay with the element of rank r in B. The Merge Path point is
// moved inside the run of the key at the cut so that the consumed copies of that key
// are balanced between A and B; when a pair would straddle the cut the diagonal is
// "starred": the partition takes one extra B element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mergepath/types.h"

namespace mergepath {
namespace algo {

template <class T>
MP_HD T min_of(T x, T y) { return y < x ? y : x; }
template <class T>
MP_HD T max_of(T x, T y) { return x < y ? y : x; }

// How ties between equal keys of A and B are ordered along the path.
enum class Ties {
    AFirst,  // merge order: equal A elements come before B (stable merge; lower bound of A in B)
    BFirst,  // equal B elements come first (upper bound of A in B)
};

// First position in keys[begin, end) whose key is not less than x (Lower) or greater
// than x (!Lower).
template <bool Lower, class Keys, class I, class K>
MP_HD I binary_search(const Keys& keys, I begin, I end, const K& x) {
    while (begin < end) {
        I mid = begin + ((end - begin) >> 1);  // end > begin: a shift, not a signed division
        bool go_right = Lower ? keys[mid] < x : !(x < keys[mid]);
        if (go_right) begin = mid + 1; else end = mid;
    }
    return begin;
}

// Lower bound of x in keys[0, end) when the answer is probably close to end, given
// that keys[0, end) holds no key above x: step back over up to kLinearSteps copies of
// x one at a time (runs of duplicates are usually short), then gallop backwards (2, 4,
// 8, ... elements) to bracket the rest of the run and binary search the bracket. This
// is the biased search Balanced Path uses to find the start of a duplicate run.
template <class K, class I>
MP_HD I biased_lower_bound_from_end(const K* keys, I end, const K& x) {
    constexpr int kLinearSteps = 3;
    I hi = end;  // keys[hi, end) == x
    for (int k = 0; k < kLinearSteps; ++k) {
        if (hi == 0 || keys[hi - 1] < x) return hi;
        --hi;
    }
    for (I step = 2;; step *= 2) {
        if (hi == 0 || keys[hi - 1] < x) return hi;
        I next = hi > step ? hi - step : 0;
        if (keys[next] < x) return binary_search<true>(keys, next + 1, hi - 1, x);
        hi = next;
    }
}

// Upper bound of x in keys[begin, end) when the answer is probably close to begin,
// given that keys[begin, end) holds no key below x: steps over up to kLinearSteps
// copies of x one at a time, then binary searches the rest.
template <class Keys, class I, class K>
MP_HD I biased_upper_bound_from_begin(const Keys& keys, I begin, I end, const K& x) {
    constexpr int kLinearSteps = 3;
    for (int k = 0; k < kLinearSteps; ++k) {
        if (begin == end || x < keys[begin]) return begin;
        ++begin;
    }
    return binary_search<false>(keys, begin, end, x);
}

// Merge Path: the number of A elements among the first `diag` elements of the merge.
// A and B are anything indexable (pointers, or any type with operator[]).
template <Ties T, class AKeys, class BKeys, class I>
MP_HD I merge_path(const AKeys& a, I a_count, const BKeys& b, I b_count, I diag) {
    I begin = diag > b_count ? diag - b_count : 0;
    I end = min_of(diag, a_count);
    while (begin < end) {
        I mid = begin + ((end - begin) >> 1);  // end > begin: a shift, not a signed division
        const auto a_key = a[mid];
        const auto b_key = b[diag - 1 - mid];
        bool a_goes_first = (T == Ties::AFirst) ? !(b_key < a_key) : (a_key < b_key);
        if (a_goes_first) begin = mid + 1; else end = mid;
    }
    return begin;
}

// A point on the Balanced Path: `a` elements of A before the cut; `star` means the cut
// also takes the B element at index diag - a (the partner of the last A copy).
template <class I>
struct BalancedPoint {
    I a;
    bool star;
    MP_HD I b(I diag) const { return diag - a + (star ? 1 : 0); }
};

// Balanced Path: moves the Merge Path point so that the copies of the key at the cut
// are split between A and B by rank (pairs never straddle the cut).
template <class K, class I>
MP_HD BalancedPoint<I> balanced_path(const K* a, I a_count, const K* b, I b_count, I diag) {
    I a_index = merge_path<Ties::AFirst>(a, a_count, b, b_count, diag);
    I b_index = diag - a_index;
    if (b_index >= b_count) return {a_index, false};
    const K x = b[b_index];
    I a_start = biased_lower_bound_from_end(a, a_index, x);
    I b_start = biased_lower_bound_from_end(b, b_index, x);
    I a_run = a_index - a_start;         // copies of x taken from A before the cut
    I x_count = a_run + (b_index - b_start);  // copies of x before the cut, both sides
    // Balanced: ceil(x_count / 2) from A and floor from B, unless A has fewer copies.
    I b_advance = max_of<I>(x_count / 2, x_count - a_run);
    I b_limit = min_of<I>(b_count, b_start + b_advance + 1);
    I b_run = biased_upper_bound_from_begin(b, b_index, b_limit, x) - b_start;  // copies of x in B (capped)
    b_advance = min_of(b_advance, b_run);
    I a_advance = x_count - b_advance;
    bool star = (a_advance == b_advance + 1) && (b_advance < b_run);
    return {a_start + a_advance, star};
}

}  // namespace algo
}  // namespace mergepath
