// test_key_directory.cpp — the radix directory over a sorted key array (key_directory.h)
// against std::equal_range: every needle of A (present, absent, below and above the
// span) finds exactly the positions of its equal keys in sorted B, for every scenario
// group (duplicates, clustered spans, tiny and empty sides) and key type, and for spans
// that make the shift extreme (one distinct key, the whole 128-bit domain); filled in
// parts of the bucket range (as threads fill it), it equals the directory built whole.
#include <algorithm>

#include "mergepath/key_directory.h"
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
::testing::AssertionResult check_directory(const std::vector<K>& needles, const std::vector<K>& sorted_b) {
    std::vector<uint64_t> first(key_directory_buckets(sorted_b.size()) + 1);
    KeyDirectory<K> dir = key_directory_build(sorted_b.data(), sorted_b.size(), first.size() - 1, first.data());
    for (size_t i = 0; i < needles.size(); ++i) {
        auto want = std::equal_range(sorted_b.begin(), sorted_b.end(), needles[i]);
        uint64_t lower, upper;
        dir.equal_range(needles[i], &lower, &upper);
        uint64_t want_lower = want.first - sorted_b.begin(), want_upper = want.second - sorted_b.begin();
        if (want_lower == want_upper && lower == upper) continue;  // absent: any empty range
        if (lower != want_lower || upper != want_upper)
            return ::testing::AssertionFailure() << "needle " << i << ": [" << lower << ", " << upper
                                                 << ") instead of [" << want_lower << ", " << want_upper << ")";
    }
    return ::testing::AssertionSuccess();
}

// The directory filled in parts of `piece` buckets, the parts in reverse order (as
// threads may finish them in any), against the one built whole.
template <class K>
::testing::AssertionResult check_filled_in_parts(const std::vector<K>& sorted_b, uint64_t piece) {
    const uint64_t buckets = key_directory_buckets(sorted_b.size());
    std::vector<uint64_t> whole(buckets + 1), parts(buckets + 1, ~uint64_t(0));
    key_directory_build(sorted_b.data(), sorted_b.size(), buckets, whole.data());
    const KeyDirectory<K> view = key_directory_view(sorted_b.data(), sorted_b.size(), buckets, parts.data());
    for (uint64_t b0 = (buckets / piece) * piece;; b0 -= piece) {
        key_directory_fill(view, b0, std::min(b0 + piece, buckets + 1), parts.data());
        if (b0 == 0) break;
    }
    for (uint64_t b = 0; b <= buckets; ++b)
        if (parts[b] != whole[b])
            return ::testing::AssertionFailure() << "first[" << b << "] = " << parts[b] << " instead of " << whole[b]
                                                 << " (pieces of " << piece << ")";
    return ::testing::AssertionSuccess();
}

template <class K>
class KeyDirectoryTest : public ::testing::Test {};
using KeyTypes = ::testing::Types<uint32_t, uint64_t, Key128>;
TYPED_TEST_SUITE(KeyDirectoryTest, KeyTypes);

TYPED_TEST(KeyDirectoryTest, EveryGroupAgainstEqualRange) {
    using K = TypeParam;
    for (Group g : {Group::Small, Group::Tiles, Group::Dups, Group::Shapes}) {
        for_each_case<K>(g, [&](const Case<K>& c) {
            EXPECT_TRUE(check_directory(c.a, c.b)) << c.describe();
            EXPECT_TRUE(check_directory(c.b, c.a)) << c.describe() << " (sides swapped)";
        });
    }
}

TYPED_TEST(KeyDirectoryTest, ExtremeSpans) {
    using K = TypeParam;
    const K lo = KeyTraits<K>::spread(0, 1000), mid = KeyTraits<K>::spread(500, 1000),
            hi = KeyTraits<K>::spread(999, 1000);
    const std::vector<K> one_key(5000, mid);
    EXPECT_TRUE(check_directory(std::vector<K>{lo, mid, hi}, one_key));
    const K min_key{}, max_key = KeyTraits<K>::max();
    const std::vector<K> whole = {min_key, min_key, mid, max_key, max_key};
    EXPECT_TRUE(check_directory(concat(KeyTraits<K>::extremes(), {lo, mid, hi}), whole));
    EXPECT_TRUE(check_directory(whole, sorted(KeyTraits<K>::extremes())));
    EXPECT_TRUE(check_directory(std::vector<K>{lo, mid}, std::vector<K>{}));
}

TYPED_TEST(KeyDirectoryTest, FilledInPartsAsWhole) {
    using K = TypeParam;
    for (Group g : {Group::Small, Group::Dups, Group::Shapes}) {
        for_each_case<K>(g, [&](const Case<K>& c) {
            for (uint64_t piece : {uint64_t(1), uint64_t(3), uint64_t(64)}) {
                EXPECT_TRUE(check_filled_in_parts(c.b, piece)) << c.describe();
            }
        });
    }
    const std::vector<K> one_key(5000, KeyTraits<K>::spread(500, 1000));
    EXPECT_TRUE(check_filled_in_parts(one_key, 7));
    EXPECT_TRUE(check_filled_in_parts(std::vector<K>{}, 1));
}

}  // namespace
}  // namespace mptest
