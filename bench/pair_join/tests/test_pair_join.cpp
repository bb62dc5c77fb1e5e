// test_pair_join.cpp — the kernel benchmark's pair join (pair_join.h; not what SQL runs)
// for all six kinds (inner, left, right, full, semi, anti) against a serial reference
// (equal ranges by a merge-like walk, spot-checked against std::lower_bound /
// upper_bound), on both backends and all key types. Pair order as documented in
// pair_join.h: by A position, matched B rows ascending within an A row, unmatched B rows
// (a = kNoRow) appended in B order for Right and Full; Semi/Anti return A rows only.
// Scenarios whose inner join would exceed kMaxPairs pairs (e.g. 100000 x 100000 equal
// keys) are skipped; cases over 1M pairs check Inner, Full, Semi and Anti only, to bound
// the runtime. Also: CPU results must not depend on the thread count.
#include "pair_join_test_support.h"

namespace mptest {
namespace {

constexpr uint64_t kMaxPairs = 3u << 20;

template <class K>
::testing::AssertionResult check_join(Context& ctx, const Case<K>& c) {
    const uint64_t pairs_inner = inner_pair_count(c.a, c.b);
    if (pairs_inner > kMaxPairs) return ::testing::AssertionSuccess();
    Buffer<K> a = put(ctx, c.a), b = put(ctx, c.b);
    for (JoinKind kind : kAllJoinKinds) {
        // Big outputs: Inner and Full cover the pair paths that Left and Right share.
        if (pairs_inner > (1u << 20) && (kind == JoinKind::Left || kind == JoinKind::Right)) continue;
        JoinRef ref = ref_join(kind, c.a, c.b);
        std::string tag = std::string("join ") + join_name(kind);
        JoinResult r = pair_join<K>(ctx, kind, View<const K>(a), View<const K>(b));
        if (r.count != ref.a_rows.size())
            return ::testing::AssertionFailure() << tag << ": count " << r.count << ", expected " << ref.a_rows.size();
        const bool pairs = kind != JoinKind::Semi && kind != JoinKind::Anti;
        MP_RETURN_IF_FAILED(buffer_shape(tag + " a_rows", r.a_rows, r.count, true));
        MP_RETURN_IF_FAILED(buffer_shape(tag + " b_rows", r.b_rows, r.count, pairs));
        MP_RETURN_IF_FAILED(same_array(tag + " a_rows", ref.a_rows, get(ctx, r.a_rows, r.count)));
        if (pairs) MP_RETURN_IF_FAILED(same_array(tag + " b_rows", ref.b_rows, get(ctx, r.b_rows, r.count)));
    }
    return ::testing::AssertionSuccess();
}

template <class C>
class PairJoinTest : public BackendTest<C> {};
TYPED_TEST_SUITE(PairJoinTest, AllConfigs);

MP_GROUP_TESTS(PairJoinTest, check_join)

// Odd thread counts split the CPU backend's partitions at odd places: a full join (its
// pairs, unmatched A rows and unmatched B rows) must be the same for every count.
TEST(PairJoinCpu, ResultsIndependentOfThreadCount) {
    const ThreadCountInputs in = thread_count_inputs();
    const JoinRef ref = ref_join(JoinKind::Full, in.a, in.b);
    for (int threads : kOddThreadCounts) {
        SCOPED_TRACE("cpu_threads=" + std::to_string(threads));
        Context ctx(cpu_options(threads));
        Buffer<uint64_t> a = put(ctx, in.a), b = put(ctx, in.b);
        JoinResult j = pair_join<uint64_t>(ctx, JoinKind::Full, View<const uint64_t>(a), View<const uint64_t>(b));
        ASSERT_EQ(j.count, ref.a_rows.size());
        EXPECT_TRUE(same_array("full join a_rows", ref.a_rows, get(ctx, j.a_rows, j.count)));
        EXPECT_TRUE(same_array("full join b_rows", ref.b_rows, get(ctx, j.b_rows, j.count)));
    }
}

}  // namespace
}  // namespace mptest
