// test_pair_join_errors.cpp — failures of the kernel benchmark's pair join (pair_join.h;
// not what SQL runs) come back as mergepath exceptions, never abort(), as the library's
// do (gpu/tests/test_errors.cpp):
//  - a budget too small for the join throws OutOfMemory for every kind, on both backends,
//    and leaves nothing allocated behind; the context stays usable;
//  - a budget that holds the exact result but not the CUDA join's speculative buffers
//    still gives the exact result;
//  - the interrupt callback makes the CPU join throw Cancelled for every kind, and the
//    same context works again once the callback says go on;
//  - inputs with a size but no data throw Error.
#include <atomic>

#include "pair_join_test_support.h"

namespace mptest {
namespace {

class PairJoinErrors : public OnBackend {};

TEST_P(PairJoinErrors, BeyondBudgetThrowsAndReleases) {
    Context ctx(options());
    const InputsOverBudget in = inputs_over_budget(ctx);
    View<const uint64_t> va(in.a), vb(in.b);
    for (JoinKind k : kAllJoinKinds) {
        EXPECT_THROW(pair_join<uint64_t>(ctx, k, va, vb), OutOfMemory) << join_name(k);
        EXPECT_EQ(ctx.memory_in_use(), in.base) << join_name(k) << " leaked after OutOfMemory";
    }
    ctx.set_memory_budget(0);  // no limit: the same context works again
    JoinResult r = pair_join<uint64_t>(ctx, JoinKind::Inner, va, vb);
    EXPECT_EQ(r.count, ref_join(JoinKind::Inner, in.ha, in.hb).a_rows.size()) << "join after OutOfMemory";
}

// A budget that holds a join's exact result but not the larger buffers the CUDA pair
// join first asks for (it then defers every tile): the result must still be exact.
TEST_P(PairJoinErrors, WithinBudgetForExactResultOnly) {
    Context ctx(options());
    Rng rng(base_seed());
    const size_t n = 1 << 20;
    std::vector<uint64_t> low = random_sorted<uint64_t>(rng, n, n, 0, 2 * n);
    std::vector<uint64_t> high = random_sorted<uint64_t>(rng, n, n, 4 * n, 6 * n), none;
    struct Shape {
        JoinKind kind;
        const std::vector<uint64_t>& a;
        const std::vector<uint64_t>& b;
        size_t bytes_per_row;  // budget: the exact result needs 16 a row, the CUDA join's scratch 16 an A row
    };
    // No pairs at all (right, full with empty A), and every A row unmatched (left).
    for (const Shape& t : {Shape{JoinKind::Right, low, high, 40}, Shape{JoinKind::Full, none, high, 30},
                           Shape{JoinKind::Left, low, high, 40}}) {
        Buffer<uint64_t> a = put(ctx, t.a), b = put(ctx, t.b);
        const size_t base = ctx.memory_in_use();
        ctx.set_memory_budget(base + t.bytes_per_row * n);
        JoinResult r = pair_join<uint64_t>(ctx, t.kind, View<const uint64_t>(a), View<const uint64_t>(b));
        JoinRef ref = ref_join(t.kind, t.a, t.b);
        std::string tag = std::string("join ") + join_name(t.kind) + " within budget";
        ASSERT_EQ(r.count, ref.a_rows.size()) << tag;
        EXPECT_TRUE(same_array(tag + " a_rows", ref.a_rows, get(ctx, r.a_rows, r.count)));
        EXPECT_TRUE(same_array(tag + " b_rows", ref.b_rows, get(ctx, r.b_rows, r.count)));
        ctx.set_memory_budget(0);
    }
}

TEST_P(PairJoinErrors, BadArgumentsThrowError) {
    Context ctx(options());
    std::vector<uint64_t> k(100, 1);
    Buffer<uint64_t> dk = put(ctx, k);
    View<const uint64_t> none(nullptr, 5), some(dk);
    for (JoinKind kind : kAllJoinKinds) {
        EXPECT_THROW(pair_join<uint64_t>(ctx, kind, none, some), Error) << join_name(kind) << ": A without data";
        EXPECT_THROW(pair_join<uint64_t>(ctx, kind, some, none), Error) << join_name(kind) << ": B without data";
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, PairJoinErrors, ::testing::Values(Backend::Cpu, Backend::Cuda));

// The CPU backend polls the interrupt callback between pieces of work: a join of every
// kind stops with Cancelled and leaves nothing allocated behind.
TEST(PairJoinInterrupt, EveryKindThrowsCancelled) {
    std::atomic<bool> stop{false};
    Options o;
    o.backend = Backend::Cpu;
    o.interrupt_requested = [&stop] { return stop.load(); };
    Context ctx(o);
    Rng rng(base_seed());
    const size_t n = 2 << 20;
    std::vector<uint64_t> ha = random_sorted<uint64_t>(rng, n, n / 2), hb = random_sorted<uint64_t>(rng, n, n / 2);
    Buffer<uint64_t> a = put(ctx, ha), b = put(ctx, hb);
    const size_t base = ctx.memory_in_use();
    stop = true;
    for (JoinKind k : kAllJoinKinds)
        EXPECT_THROW(pair_join<uint64_t>(ctx, k, View<const uint64_t>(a), View<const uint64_t>(b)), Cancelled)
            << join_name(k);
    EXPECT_EQ(ctx.memory_in_use(), base) << "memory left behind by cancelled joins";
    stop = false;  // the same context works again
    JoinResult r = pair_join<uint64_t>(ctx, JoinKind::Semi, View<const uint64_t>(a), View<const uint64_t>(b));
    EXPECT_EQ(r.count, ref_join(JoinKind::Semi, ha, hb).a_rows.size());
}

}  // namespace
}  // namespace mptest
