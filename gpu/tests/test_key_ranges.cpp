// test_key_ranges.cpp — work split into key ranges over sorted runs (key_ranges.h), as the
// extension does when its input is larger than its memory limit: each side is cut into
// a few runs, each run sorted and sampled every `step` keys, plan_key_ranges picks the
// bounds, and the SQL set operation (SqlSetOp, all four forms) of each range alone,
// concatenated in range order, must equal the operation over the whole input. Also:
// the bounds ascend strictly; a range holds about the target (all its values but the
// most repeated one within the target plus the sampling error); and the streamed form
// (each key's copies from sql_setop_copies of its counts) equals the kernel's results.
// Run on every scenario group, both backends, all key types.
#include "mergepath/key_ranges.h"
#include "test_support.h"

namespace mptest {
namespace {

constexpr uint64_t kStep = 7;
constexpr int kRunsPerSide = 3;

template <class K>
struct SampledRuns {
    std::vector<std::vector<K>> runs[2];  // per side, each sorted
    std::vector<K> samples;
};

template <class K>
SampledRuns<K> cut_into_runs(const Case<K>& c, Rng& rng) {
    SampledRuns<K> s;
    const std::vector<K>* inputs[2] = {&c.a, &c.b};
    for (int side = 0; side < 2; ++side) {
        std::vector<K> shuffled = *inputs[side];
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        size_t per_run = shuffled.size() / kRunsPerSide + 1;
        for (size_t first = 0; first < shuffled.size(); first += per_run) {
            size_t last = std::min(shuffled.size(), first + per_run);
            std::vector<K> run = sorted(std::vector<K>(shuffled.begin() + first, shuffled.begin() + last));
            for (size_t i = 0; i < run.size(); i += kStep) s.samples.push_back(run[i]);
            s.runs[side].push_back(std::move(run));
        }
    }
    return s;
}

// The keys of one side in (lower, upper]; has_lower / has_upper false: unbounded.
template <class K>
std::vector<K> keys_in_range(const SampledRuns<K>& s, int side, const K* lower, const K* upper) {
    std::vector<K> out;
    for (const std::vector<K>& run : s.runs[side])
        for (const K& k : run)
            if ((!lower || *lower < k) && (!upper || !(*upper < k))) out.push_back(k);
    return out;
}

template <class K>
std::vector<K> sql_result(Context& ctx, const std::vector<K>& a, const std::vector<K>& b, SetOp op, bool all) {
    SqlSetOp<K> p(ctx, op, all, SetOpShape::Keys);
    p.add(Side::A, a.data(), a.size());
    p.add(Side::B, b.data(), b.size());
    p.finish();
    return p.result_keys();
}

// Every value but the most repeated one fits the target plus the sampling error.
template <class K>
::testing::AssertionResult range_size_ok(const std::vector<K>& a, const std::vector<K>& b, uint64_t target) {
    std::vector<K> all = sorted(concat(a, b));
    size_t most = 0;
    for (size_t i = 0; i < all.size();) {
        size_t j = i;
        while (j < all.size() && all[j] == all[i]) ++j;
        most = std::max(most, j - i);
        i = j;
    }
    uint64_t slack = 2 * 2 * kRunsPerSide * kStep;
    if (all.size() - most <= target + slack) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "a range of " << all.size() << " keys (" << most
                                         << " of one value) for a target of " << target;
}

// The streamed form: each key of either side (the smaller head first), its copies from
// its counts in sorted A and B.
template <class K>
std::vector<K> streamed_result(const std::vector<K>& a, const std::vector<K>& b, SetOp op, bool all) {
    std::vector<K> sa = sorted(a), sb = sorted(b), out;
    size_t i = 0, j = 0;
    while (i < sa.size() || j < sb.size()) {
        K key = j == sb.size() || (i < sa.size() && !(sb[j] < sa[i])) ? sa[i] : sb[j];
        size_t m = 0, n = 0;
        while (i < sa.size() && sa[i] == key) ++i, ++m;
        while (j < sb.size() && sb[j] == key) ++j, ++n;
        out.insert(out.end(), sql_setop_copies(op, all, m, n), key);
    }
    return out;
}

template <class K>
::testing::AssertionResult check_ranges(Context& ctx, const Case<K>& c) {
    Rng rng(c.seed ^ 0x7a9e);
    SampledRuns<K> s = cut_into_runs(c, rng);
    const uint64_t target = (c.a.size() + c.b.size()) / 5 + 1;
    std::vector<K> bounds = plan_key_ranges<K>(s.samples, kStep, target);
    for (size_t i = 1; i < bounds.size(); ++i)
        if (!(bounds[i - 1] < bounds[i])) return ::testing::AssertionFailure() << "bounds not ascending at " << i;
    const bool big = c.a.size() + c.b.size() > 200000;  // one form of four for big cases (runtime)
    int form_number = 0;
    for (SetOp op : {SetOp::Intersection, SetOp::Difference, SetOp::Union})
        for (bool all : {true, false}) {
            if (big && (form_number++ + c.seed) % 6 != 0) continue;
            std::string form = sql_form_name(op, all);
            std::vector<K> ranged;
            for (size_t r = 0; r <= bounds.size(); ++r) {
                const K* lower = r > 0 ? &bounds[r - 1] : nullptr;
                const K* upper = r < bounds.size() ? &bounds[r] : nullptr;
                std::vector<K> a = keys_in_range(s, 0, lower, upper), b = keys_in_range(s, 1, lower, upper);
                MP_RETURN_IF_FAILED(range_size_ok(a, b, target));
                std::vector<K> part = sql_result(ctx, a, b, op, all);
                ranged.insert(ranged.end(), part.begin(), part.end());
            }
            std::vector<K> whole = sql_result(ctx, c.a, c.b, op, all);
            MP_RETURN_IF_FAILED(same_array(form + " by " + std::to_string(bounds.size() + 1) + " ranges", whole, ranged));
            MP_RETURN_IF_FAILED(same_array(form + " streamed", whole, streamed_result(c.a, c.b, op, all)));
            MP_RETURN_IF_FAILED(same_array(form + " against std", sql_expected(op, all, c.a, c.b), whole));
        }
    return ::testing::AssertionSuccess();
}

template <class C>
class KeyRangesTest : public BackendTest<C> {};
TYPED_TEST_SUITE(KeyRangesTest, AllConfigs);

MP_GROUP_TESTS(KeyRangesTest, check_ranges)

// One key repeated past the target gets a range of its own, between its neighbours.
TEST(KeyRanges, HeavyKeyAlone) {
    std::vector<uint64_t> samples;
    for (uint64_t v = 0; v < 10; ++v) samples.push_back(v);
    samples.insert(samples.end(), 100, 5);
    std::vector<uint64_t> bounds = plan_key_ranges<uint64_t>(samples, 1, 4);
    ASSERT_NE(std::find(bounds.begin(), bounds.end(), 4), bounds.end());
    ASSERT_NE(std::find(bounds.begin(), bounds.end(), 5), bounds.end());
    EXPECT_EQ(plan_key_ranges<uint64_t>({}, 1, 4).size(), 0u);
    EXPECT_EQ(plan_key_ranges<uint64_t>({7, 7, 7}, 1, 100).size(), 0u);
}

}  // namespace
}  // namespace mptest
