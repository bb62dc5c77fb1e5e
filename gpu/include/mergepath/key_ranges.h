// key_ranges.h — splitting work over sorted runs into key ranges that each fit a
// memory budget (bounded memory: the extension's runs spilled to temporary files are
// combined one range at a time, in key order).
//
// Every sorted run is sampled at positions 0, step, 2 * step, ...; plan_key_ranges()
// picks upper bounds among the samples so that each range holds about target_keys
// keys of all runs (both sides) together. Range i is every key in
// (bounds[i - 1], bounds[i]]; the first has no lower bound, and the range after the
// last bound has no upper bound. Ranges are cut between key values, so equal keys never
// straddle two ranges (the rule Balanced Path keeps for key + rank pairs, here by
// value): each range is combined alone, and the ranges' results, in order, are the
// whole result in key order. A key with more samples than target_keys / step gets a
// range of its own, which cannot be split further; the caller streams such a range.
#pragma once

#include <cstdint>
#include <vector>

#include "mergepath/types.h"

namespace mergepath {

// Upper bounds, ascending and distinct, from the samples of every run (any order).
// Each range's estimated size is the number of its samples times step.
template <class K>
std::vector<K> plan_key_ranges(std::vector<K> samples, uint64_t step, uint64_t target_keys);

// The copies of one key a SQL set operation emits when A holds m of them and B n:
// INTERSECT ALL min(m, n), EXCEPT ALL max(m - n, 0), INTERSECT / EXCEPT one when the key
// qualifies (nodeSetOp.c's rules), UNION one when either side holds it, UNION ALL m + n
// (SqlSetOp's results hold the same copies). op: Intersection, Difference or Union.
inline uint64_t sql_setop_copies(SetOp op, bool all, uint64_t m, uint64_t n) {
    if (op == SetOp::Union) return all ? m + n : (m + n > 0 ? 1 : 0);
    if (m == 0) return 0;
    if (op == SetOp::Intersection) return n == 0 ? 0 : all ? (m < n ? m : n) : 1;
    if (all) return m > n ? m - n : 0;
    return n == 0 ? 1 : 0;
}

}  // namespace mergepath
