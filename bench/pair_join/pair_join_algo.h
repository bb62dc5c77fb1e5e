// pair_join_algo.h — the two serial helpers that only the kernel benchmark's pair join
// needs on top of the library's path searches (algo/path_search.h), for both of its
// backends: the galloping run length that turns a needle's lower bound into its pair
// count, and the counting sequence whose upper-bound search against the scanned counts
// is the load-balancing search (output j belongs to the last row starting at or before
// j). The pair join (sorted search + scan + load-balancing search) is not what SQL runs:
// SQL uses sql_join.h's SqlJoin and expands pairs in the extension.
#pragma once

#include "algo/path_search.h"

namespace mergepath {
namespace algo {

// Number of elements equal to x in keys[from, n), given that keys[from, n) holds
// no key below x (from is x's lower bound): gallop forwards (1, 2, 4, ... elements)
// past the run, then binary search the last bracket. O(log run length), so a needle
// that matches a huge run of duplicates costs no more than a binary search.
template <class Keys, class I, class K>
MP_HD I equal_run_length(const Keys& keys, I from, I n, const K& x) {
    if (from >= n || x < keys[from]) return 0;
    I lo = from + 1, step = 1;  // keys[lo - 1] == x
    I hi = n;
    while (lo < n) {
        I probe = lo + step - 1 < n ? lo + step - 1 : n - 1;
        if (x < keys[probe]) {
            hi = probe;
            break;
        }
        lo = probe + 1;
        step *= 2;
    }
    return binary_search<false>(keys, lo, hi, x) - from;
}

// The sequence 0, 1, 2, ... as an indexable "array" (load-balancing search needles).
template <class I>
struct Counting {
    I start;
    MP_HD I operator[](I i) const { return start + i; }
};

}  // namespace algo
}  // namespace mergepath
