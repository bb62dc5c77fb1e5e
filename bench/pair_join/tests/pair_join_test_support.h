// pair_join_test_support.h — what the tests of the kernel benchmark's pair join
// (pair_join.h: sorted search + scan + load-balancing search into (a, b) row pairs; not
// what SQL runs, which is sql_join.h's SqlJoin and the extension's expansion) add to the
// library's test support (gpu/tests/test_support.h: configurations, BackendTest,
// generators, comparisons): the join kinds and their names, and the serial reference
// join (built on the reference equal ranges, ref_ranges).
#pragma once

#include "pair_join.h"
#include "test_support.h"

namespace mptest {

inline const char* join_name(JoinKind k) {
    switch (k) {
        case JoinKind::Inner: return "Inner";
        case JoinKind::Left: return "Left";
        case JoinKind::Right: return "Right";
        case JoinKind::Full: return "Full";
        case JoinKind::Semi: return "Semi";
        case JoinKind::Anti: return "Anti";
    }
    return "?";
}
constexpr JoinKind kAllJoinKinds[] = {JoinKind::Inner, JoinKind::Left, JoinKind::Right,
                                      JoinKind::Full,  JoinKind::Semi, JoinKind::Anti};

struct JoinRef {
    std::vector<int64_t> a_rows, b_rows;
};

// Pairs in A order, B ascending within an A row; Right/Full append unmatched B in B order.
template <class K>
JoinRef ref_join(JoinKind kind, const std::vector<K>& a, const std::vector<K>& b) {
    JoinRef r;
    std::vector<size_t> lo, hi;
    ref_ranges(a, b, lo, hi);
    std::vector<uint8_t> b_matched(b.size(), 0);
    for (size_t i = 0; i < a.size(); ++i) {
        switch (kind) {
            case JoinKind::Semi: if (lo[i] != hi[i]) r.a_rows.push_back(int64_t(i)); break;
            case JoinKind::Anti: if (lo[i] == hi[i]) r.a_rows.push_back(int64_t(i)); break;
            default:
                for (size_t j = lo[i]; j < hi[i]; ++j) {
                    r.a_rows.push_back(int64_t(i));
                    r.b_rows.push_back(int64_t(j));
                    b_matched[j] = 1;
                }
                if (lo[i] == hi[i] && (kind == JoinKind::Left || kind == JoinKind::Full)) {
                    r.a_rows.push_back(int64_t(i));
                    r.b_rows.push_back(kNoRow);
                }
        }
    }
    if (kind == JoinKind::Right || kind == JoinKind::Full)
        for (size_t j = 0; j < b.size(); ++j)
            if (!b_matched[j]) {
                r.a_rows.push_back(kNoRow);
                r.b_rows.push_back(int64_t(j));
            }
    return r;
}

}  // namespace mptest
