// test_sql_setop.cpp — the SqlSetOp<K> pipeline (the extension's INTERSECT / EXCEPT, ALL
// and DISTINCT, keys-only and with-rows shapes) on both backends and all key types.
// Each scenario's A and B are shuffled and added in uneven batches (some empty); the
// expected result is std::set_intersection / set_difference of the sorted sides, made
// distinct first (std::unique) for the DISTINCT forms.
//  - keys only: result_keys() equals that, sorted.
//  - with rows: sorted_keys(side) is the sorted input, sorted_rows(side) a permutation
//    of the input rows with sorted_keys[i] == input[sorted_rows[i]]; result_positions()
//    is ascending, in range, and the keys at those positions equal the expected result.
#include "test_support.h"

namespace mptest {
namespace {

template <class K>
void add_in_batches(SqlSetOp<K>& p, Side side, const std::vector<K>& keys, Rng& rng) {
    size_t pos = 0;
    int batch = 0;
    while (pos < keys.size() || batch == 0) {
        size_t left = keys.size() - pos;
        size_t n = batch % 4 == 1 ? 0 : std::min(left, size_t(rng() % (left / 2 + 2)));
        if (batch > 8) n = left;
        p.add(side, keys.data() + pos, n);
        pos += n;
        ++batch;
    }
}

template <class K>
::testing::AssertionResult check_side(const char* what, SqlSetOp<K>& p, Side side, const std::vector<K>& input) {
    const std::vector<K>& keys = p.sorted_keys(side);
    const std::vector<uint64_t>& rows = p.sorted_rows(side);
    MP_RETURN_IF_FAILED(same_array(std::string(what) + " sorted_keys", sorted(input), keys));
    if (rows.size() != input.size())
        return ::testing::AssertionFailure() << what << " sorted_rows: " << rows.size() << " rows, expected "
                                             << input.size();
    std::vector<uint8_t> seen(input.size(), 0);
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] >= input.size() || seen[rows[i]] || !(input[rows[i]] == keys[i]))
            return ::testing::AssertionFailure() << what << " sorted_rows[" << i << "] = " << rows[i]
                                                 << " is out of range, repeated, or not the row of key "
                                                 << key_str(keys[i]);
        seen[rows[i]] = 1;
    }
    return ::testing::AssertionSuccess();
}

template <class K>
::testing::AssertionResult check_pipeline(Context& ctx, const Case<K>& c, SetOp op, bool all, bool with_rows) {
    std::string tag = std::string(op == SetOp::Intersection ? "INTERSECT" : "EXCEPT") + (all ? " ALL" : "") +
                      (with_rows ? " with_rows" : " keys_only");
    Rng rng(c.seed ^ 0xabc);
    std::vector<K> in_a = c.a, in_b = c.b;
    std::shuffle(in_a.begin(), in_a.end(), rng);
    std::shuffle(in_b.begin(), in_b.end(), rng);

    std::vector<K> sa = c.a, sb = c.b;
    if (!all) {
        sa.erase(std::unique(sa.begin(), sa.end()), sa.end());
        sb.erase(std::unique(sb.begin(), sb.end()), sb.end());
    }
    std::vector<K> expected = std_set_op(op, sa, sb);

    SqlSetOp<K> p(ctx, op, all, with_rows);
    add_in_batches(p, Side::A, in_a, rng);
    add_in_batches(p, Side::B, in_b, rng);
    if (p.rows(Side::A) != in_a.size() || p.rows(Side::B) != in_b.size())
        return ::testing::AssertionFailure() << tag << ": rows() = " << p.rows(Side::A) << "/" << p.rows(Side::B)
                                             << ", expected " << in_a.size() << "/" << in_b.size();
    p.finish();
    const PipelineTimings& t = p.timings();
    if (!(t.transfer_ms >= 0 && t.sort_ms >= 0 && t.kernel_ms >= 0))
        return ::testing::AssertionFailure() << tag << ": negative or NaN timings";
    if (!with_rows) return same_array(tag + " result_keys", expected, p.result_keys());

    MP_RETURN_IF_FAILED(check_side((tag + " A").c_str(), p, Side::A, in_a));
    MP_RETURN_IF_FAILED(check_side((tag + " B").c_str(), p, Side::B, in_b));
    const std::vector<uint64_t>& pos = p.result_positions();
    const std::vector<K>& keys_a = p.sorted_keys(Side::A);
    std::vector<K> got;
    for (size_t i = 0; i < pos.size(); ++i) {
        if (pos[i] >= keys_a.size() || (i > 0 && pos[i] <= pos[i - 1]))
            return ::testing::AssertionFailure() << tag << ": result_positions[" << i << "] = " << pos[i]
                                                 << " out of range or not ascending";
        got.push_back(keys_a[pos[i]]);
    }
    return same_array(tag + " keys at result_positions", expected, got);
}

template <class K>
::testing::AssertionResult check_all_forms(Context& ctx, const Case<K>& c) {
    for (SetOp op : {SetOp::Intersection, SetOp::Difference})
        for (bool all : {true, false})
            for (bool with_rows : {false, true}) MP_RETURN_IF_FAILED(check_pipeline(ctx, c, op, all, with_rows));
    return ::testing::AssertionSuccess();
}

template <class C>
class SqlSetOpTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SqlSetOpTest, AllConfigs, ConfigNames);

MP_GROUP_TESTS(SqlSetOpTest, check_all_forms)

}  // namespace
}  // namespace mptest
