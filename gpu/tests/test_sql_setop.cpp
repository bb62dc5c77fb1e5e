// test_sql_setop.cpp — the SqlSetOp<K> pipeline (the extension's INTERSECT / EXCEPT /
// UNION, ALL and DISTINCT, in its three shapes) on both backends and all key types.
// Each scenario's A and B are shuffled and added in uneven batches (some empty); the
// expected result is std::set_intersection / set_difference / set_union of the sorted
// sides, made distinct first (std::unique) for the DISTINCT forms, and std::merge for
// UNION ALL (sql_expected).
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

// in_sorted is the input sorted (the scenario's array).
template <class K>
::testing::AssertionResult check_side(const std::string& what, SqlSetOp<K>& p, Side side,
                                      const std::vector<K>& input, const std::vector<K>& in_sorted) {
    const std::vector<K>& keys = p.sorted_keys(side);
    const std::vector<uint64_t>& rows = p.sorted_rows(side);
    MP_RETURN_IF_FAILED(same_array(what + " sorted_keys", in_sorted, keys));
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

// One pipeline run; in_a/in_b are the shuffled inputs, c.a/c.b the same sorted.
template <class K>
::testing::AssertionResult check_pipeline(Context& ctx, const Case<K>& c, const std::vector<K>& in_a,
                                          const std::vector<K>& in_b, SetOp op, bool all, SetOpShape shape) {
    std::string tag = sql_form_name(op, all) + (shape == SetOpShape::Keys   ? " keys_only"
                                                : shape == SetOpShape::Rows ? " with_rows"
                                                                            : " sorted_sides");
    std::vector<K> expected = sql_expected(op, all, c.a, c.b);

    Rng rng(c.seed ^ 0xba7c4);
    SqlSetOp<K> p(ctx, op, all, shape);
    add_in_batches(p, Side::A, in_a, rng);
    add_in_batches(p, Side::B, in_b, rng);
    if (p.rows(Side::A) != in_a.size() || p.rows(Side::B) != in_b.size())
        return ::testing::AssertionFailure() << tag << ": rows() = " << p.rows(Side::A) << "/" << p.rows(Side::B)
                                             << ", expected " << in_a.size() << "/" << in_b.size();
    p.finish();
    const PipelineTimings& t = p.timings();
    if (!(t.transfer_ms >= 0 && t.sort_ms >= 0 && t.kernel_ms >= 0))
        return ::testing::AssertionFailure() << tag << ": negative or NaN timings";
    if (shape == SetOpShape::Keys) return same_array(tag + " result_keys", expected, p.result_keys());

    MP_RETURN_IF_FAILED(check_side(tag + " A", p, Side::A, in_a, c.a));
    MP_RETURN_IF_FAILED(check_side(tag + " B", p, Side::B, in_b, c.b));
    if (shape == SetOpShape::SortedSides) {  // the caller groups: no set operation ran
        if (p.result_positions().empty() && p.result_count() == 0) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << tag << ": results where only the sorted sides were asked for";
    }
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

// All sixteen forms (UNION has no with-rows shape); cases over 200k keys run a quarter of
// them (rotating by seed) to bound runtime.
template <class K>
::testing::AssertionResult check_all_forms(Context& ctx, const Case<K>& c) {
    Rng rng(c.seed ^ 0xabc);
    std::vector<K> in_a = c.a, in_b = c.b;
    std::shuffle(in_a.begin(), in_a.end(), rng);
    std::shuffle(in_b.begin(), in_b.end(), rng);
    const bool big = c.a.size() + c.b.size() > 200000;
    int form = 0;
    for (SetOp op : {SetOp::Intersection, SetOp::Difference, SetOp::Union})
        for (bool all : {true, false})
            for (SetOpShape shape : {SetOpShape::Keys, SetOpShape::Rows, SetOpShape::SortedSides}) {
                if (op == SetOp::Union && shape == SetOpShape::Rows) continue;
                if (!big || (form + c.seed) % 4 == 0)
                    MP_RETURN_IF_FAILED(check_pipeline(ctx, c, in_a, in_b, op, all, shape));
                ++form;
            }
    return ::testing::AssertionSuccess();
}

template <class C>
class SqlSetOpTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SqlSetOpTest, AllConfigs);

MP_GROUP_TESTS(SqlSetOpTest, check_all_forms)

}  // namespace
}  // namespace mptest
