// test_context.cpp — Context basics: backend selection (Auto picks CUDA only when a GPU
// is usable), describe(), the CPU thread-count option (results must not depend on how many
// threads the partition is split over), buffer round trips and memory accounting (the
// peak since a reset).
#include "test_support.h"

namespace mptest {
namespace {

TEST(Context, AutoPicksCudaOnlyWhenAvailable) {
    std::string why;
    bool gpu = Context::cuda_available(&why);
    if (!gpu) EXPECT_FALSE(why.empty()) << "cuda_available() is false but gives no reason";
    if (gpu) EXPECT_TRUE(why.empty()) << why;
    Context ctx;
    EXPECT_EQ(ctx.backend(), gpu ? Backend::Cuda : Backend::Cpu);
    EXPECT_FALSE(ctx.describe().empty());
}

TEST(Context, CpuThreadsOption) {
    for (int threads : {1, 2, 3, 7, 16}) {
        Options o;
        o.backend = Backend::Cpu;
        o.cpu_threads = threads;
        Context ctx(o);
        EXPECT_EQ(ctx.backend(), Backend::Cpu);
        EXPECT_EQ(ctx.cpu_threads(), threads);
        EXPECT_TRUE(ctx.host_memory());
        EXPECT_EQ(ctx.cuda_stream(), nullptr);
    }
    Options o;
    o.backend = Backend::Cpu;
    Context ctx(o);
    EXPECT_GE(ctx.cpu_threads(), 1);
}

// Odd thread counts split partitions at odd places: results must be the same.
TEST(Context, CpuResultsIndependentOfThreadCount) {
    const ThreadCountInputs in = thread_count_inputs();
    const std::vector<uint64_t>& a = in.a;
    const std::vector<uint64_t>& b = in.b;
    for (int threads : kOddThreadCounts) {
        SCOPED_TRACE("cpu_threads=" + std::to_string(threads));
        Context ctx(cpu_options(threads));
        Buffer<uint64_t> da = put(ctx, a), db = put(ctx, b);
        TaggedResult<uint64_t> m = merge<uint64_t>(ctx, View<const uint64_t>(da), View<const uint64_t>(db));
        TaggedRef<uint64_t> rm = ref_merge(a, b);
        ASSERT_EQ(m.count, rm.keys.size());
        EXPECT_TRUE(same_array("merge indices", rm.indices, get(ctx, m.indices, m.count)));
        for (SetOp op : kAllSetOps) {
            TaggedResult<uint64_t> s = set_op<uint64_t>(ctx, op, View<const uint64_t>(da), View<const uint64_t>(db));
            TaggedRef<uint64_t> rs = ref_set_op(op, a, b);
            ASSERT_EQ(s.count, rs.keys.size()) << setop_name(op);
            EXPECT_TRUE(same_array(std::string(setop_name(op)) + " indices", rs.indices, get(ctx, s.indices, s.count)));
        }
    }
}

class ContextOnBackend : public OnBackend {};

TEST_P(ContextOnBackend, BufferRoundTripAndAccounting) {
    Context ctx(options());
    EXPECT_EQ(ctx.backend(), GetParam());
    EXPECT_EQ(ctx.host_memory(), GetParam() == Backend::Cpu);
    const size_t base = ctx.memory_in_use();
    {
        Buffer<uint32_t> empty = ctx.alloc<uint32_t>(0);
        EXPECT_TRUE(empty.empty());
        std::vector<uint64_t> v(12345);
        for (size_t i = 0; i < v.size(); ++i) v[i] = i * 0x9E3779B97F4A7C15ull;
        Buffer<uint64_t> b = put(ctx, v);
        EXPECT_EQ(b.size(), v.size());
        EXPECT_GE(ctx.memory_in_use(), base + v.size() * sizeof(uint64_t));
        EXPECT_EQ(get(ctx, b, v.size()), v);
        Buffer<uint64_t> moved = std::move(b);
        EXPECT_TRUE(b.empty());  // NOLINT: moved-from state is specified (swap)
        EXPECT_EQ(get(ctx, moved, v.size()), v);
    }
    EXPECT_EQ(ctx.memory_in_use(), base) << "buffers not returned to the pool";
}

// The peak counts allocations and charges since the last reset, which starts it at
// what is in use then; device_memory_bytes() is the GPU's size, 0 on the CPU.
TEST_P(ContextOnBackend, MemoryPeakSinceReset) {
    Context ctx(options());
    EXPECT_EQ(ctx.device_memory_bytes() > 0, GetParam() == Backend::Cuda);
    ctx.reset_memory_peak();
    const size_t base = ctx.memory_in_use();
    {
        Buffer<uint8_t> a = ctx.alloc<uint8_t>(3 << 20);
        Buffer<uint8_t> b = ctx.alloc<uint8_t>(1 << 20);
    }
    ctx.charge_memory(2 << 20);
    EXPECT_EQ(ctx.memory_peak(), base + (4 << 20));
    ctx.reset_memory_peak();
    EXPECT_EQ(ctx.memory_peak(), base + (2 << 20)) << "a reset starts at what is in use";
    ctx.discharge_memory(2 << 20);
    EXPECT_EQ(ctx.ledger_wait_ms(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ContextOnBackend, ::testing::Values(Backend::Cpu, Backend::Cuda));

}  // namespace
}  // namespace mptest
