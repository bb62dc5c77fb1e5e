// test_sql_rebind.cpp — SqlSetOp::rebind, the extension's way out of a GPU
// out-of-memory: a finish() that fails for lack of memory, or an add() whose keys do
// not fit the budget (the host keys are charged to it), then the same pipeline moved
// to an unlimited CPU context, must give exactly the answer of a fresh run, with every
// result row still naming the right input row.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "mergepath/sql_setop.h"

using namespace mergepath;

namespace {

std::vector<uint64_t> random_keys(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> v(n);
    for (auto& x : v) x = rng() % (n / 2 + 1);
    return v;
}

// The input keys of the emitted rows, sorted: what the SQL result contains.
std::vector<uint64_t> emitted_keys(const SqlSetOp<uint64_t>& op, const std::vector<uint64_t>& a) {
    std::vector<uint64_t> out;
    for (uint64_t pos : op.result_positions()) out.push_back(a[op.sorted_rows(Side::A)[pos]]);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(SqlSetOpRebind, FinishAfterOutOfMemoryOnAnotherContextIsExact) {
    const size_t n = 200000;
    std::vector<uint64_t> a = random_keys(n, 1), b = random_keys(n, 2);
    for (bool all : {true, false}) {
        Options tiny;
        tiny.backend = Backend::Cpu;
        tiny.memory_budget = 2 * n * sizeof(uint64_t) + 1024;  // the keys fit, the sort's buffers cannot
        Context small(tiny), big(Options{});
        SqlSetOp<uint64_t> op(small, SetOp::Difference, all, true);
        op.add(Side::A, a.data(), a.size());
        op.add(Side::B, b.data(), b.size());
        EXPECT_THROW(op.finish(), OutOfMemory);
        EXPECT_THROW(op.add(Side::A, a.data(), 1), Error);
        op.rebind(big);
        op.finish();
        EXPECT_THROW(op.rebind(big), Error);

        Context fresh_ctx(Options{});
        SqlSetOp<uint64_t> fresh(fresh_ctx, SetOp::Difference, all, true);
        fresh.add(Side::A, a.data(), a.size());
        fresh.add(Side::B, b.data(), b.size());
        fresh.finish();
        ASSERT_FALSE(fresh.result_positions().empty());
        EXPECT_EQ(emitted_keys(op, a), emitted_keys(fresh, a)) << "all=" << all;
        for (uint64_t pos : op.result_positions())
            ASSERT_EQ(op.sorted_keys(Side::A)[pos], a[op.sorted_rows(Side::A)[pos]]);
    }
}

TEST(SqlSetOpRebind, AddBeyondTheBudgetAddsNothingAndCanBeRedone) {
    const size_t n = 100000;
    std::vector<uint64_t> a = random_keys(n, 3), b = random_keys(n, 4);
    Options tiny;
    tiny.backend = Backend::Cpu;
    tiny.memory_budget = (n + n / 2) * sizeof(uint64_t);  // A fits, B does not
    Context small(tiny), big(Options{});
    SqlSetOp<uint64_t> op(small, SetOp::Intersection, true, true);
    op.add(Side::A, a.data(), a.size());
    EXPECT_EQ(small.memory_in_use(), n * sizeof(uint64_t)) << "the host keys are charged to the budget";
    EXPECT_THROW(op.add_chunk(Side::B, b.data(), b.size()), OutOfMemory);
    EXPECT_EQ(op.rows(Side::B), 0u) << "a chunk that did not fit was added";
    op.rebind(big);
    EXPECT_EQ(small.memory_in_use(), 0u) << "the charge stayed on the old context";
    op.add_chunk(Side::B, b.data(), b.size());
    op.finish();

    Context fresh_ctx(Options{});
    SqlSetOp<uint64_t> fresh(fresh_ctx, SetOp::Intersection, true, true);
    fresh.add(Side::A, a.data(), a.size());
    fresh.add(Side::B, b.data(), b.size());
    fresh.finish();
    ASSERT_FALSE(fresh.result_positions().empty());
    EXPECT_EQ(emitted_keys(op, a), emitted_keys(fresh, a));
}
