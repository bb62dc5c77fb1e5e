// test_errors.cpp — failures come back as mergepath exceptions, never abort():
//  - Backend::Cuda without a usable GPU throws NoDevice (asserted only on GPU-less hosts);
//  - exceeding the memory budget throws OutOfMemory, from alloc and from inside every
//    operation, and leaves nothing allocated behind; the context stays usable;
//  - the interrupt callback makes running CPU operations throw Cancelled, and the same
//    context works again once the callback says go on;
//  - bad arguments throw Error.
#include <atomic>

#include "test_support.h"

namespace mptest {
namespace {

TEST(Errors, CudaWithoutGpuThrowsNoDevice) {
    std::string why;
    if (Context::cuda_available(&why)) GTEST_SKIP() << "a GPU is present: NoDevice cannot be provoked";
    Options o;
    o.backend = Backend::Cuda;
    EXPECT_THROW({ Context ctx(o); }, NoDevice);
    try {
        Context ctx(o);
    } catch (const NoDevice& e) {
        EXPECT_GT(std::string(e.what()).size(), 0u) << "NoDevice without a message";
    } catch (...) {
    }
}

class ErrorsOnBackend : public OnBackend {};

TEST_P(ErrorsOnBackend, AllocBeyondBudgetThrowsOutOfMemory) {
    Options o = options();
    o.memory_budget = 1 << 16;
    Context ctx(o);
    const size_t base = ctx.memory_in_use();
    EXPECT_EQ(ctx.memory_budget(), size_t(1) << 16);
    EXPECT_THROW(ctx.alloc<uint64_t>(1 << 20), OutOfMemory);
    std::vector<uint64_t> big(1 << 20, 7);
    EXPECT_THROW(put(ctx, big), OutOfMemory);
    EXPECT_EQ(ctx.memory_in_use(), base);
    Buffer<uint64_t> small = ctx.alloc<uint64_t>(100);  // still usable
    EXPECT_EQ(small.size(), 100u);
}

TEST_P(ErrorsOnBackend, OperationBeyondBudgetThrowsAndReleases) {
    Context ctx(options());
    const InputsOverBudget in = inputs_over_budget(ctx);
    View<const uint64_t> va(in.a), vb(in.b);
    const size_t base = in.base;
    EXPECT_EQ(ctx.memory_budget(), base + 4096);

    EXPECT_THROW(merge<uint64_t>(ctx, va, vb), OutOfMemory) << "merge";
    EXPECT_EQ(ctx.memory_in_use(), base) << "merge leaked after OutOfMemory";
    for (SetOp op : kAllSetOps) {
        EXPECT_THROW(set_op<uint64_t>(ctx, op, va, vb), OutOfMemory) << setop_name(op);
        EXPECT_EQ(ctx.memory_in_use(), base) << setop_name(op) << " leaked after OutOfMemory";
    }
    EXPECT_THROW(unique<uint64_t>(ctx, va), OutOfMemory) << "unique";
    EXPECT_THROW(sorted_search<uint64_t>(ctx, va, vb), OutOfMemory) << "sorted_search";
    EXPECT_EQ(ctx.memory_in_use(), base) << "sorted_search leaked after OutOfMemory";
    ctx.set_memory_budget(0);  // no limit: the same context works again
    TaggedResult<uint64_t> m = merge<uint64_t>(ctx, va, vb);
    EXPECT_EQ(m.count, in.ha.size() + in.hb.size());
    EXPECT_TRUE(same_array("merge after OutOfMemory", ref_merge(in.ha, in.hb).keys, get(ctx, m.keys, m.count)));
}

TEST_P(ErrorsOnBackend, PipelineBeyondBudgetThrowsOutOfMemory) {
    Context ctx(options());
    Rng rng(base_seed());
    const size_t n = 1 << 20;
    std::vector<uint64_t> ha = random_keys<uint64_t>(rng, n, n), hb = random_keys<uint64_t>(rng, n, n);
    const size_t base = ctx.memory_in_use();
    ctx.set_memory_budget(base + 4096);
    {
        SqlSetOp<uint64_t> p(ctx, SetOp::Intersection, true, true);
        EXPECT_THROW(
            {
                p.add(Side::A, ha.data(), ha.size());
                p.add(Side::B, hb.data(), hb.size());
                p.finish();
            },
            OutOfMemory);
    }
    EXPECT_EQ(ctx.memory_in_use(), base) << "SqlSetOp leaked after OutOfMemory";
}

TEST_P(ErrorsOnBackend, BadArgumentsThrowError) {
    Context ctx(options());
    std::vector<uint64_t> k(100, 1), r(99, 0);
    Buffer<uint64_t> dk = put(ctx, k), dr = put(ctx, r);
    EXPECT_THROW(sort_pairs<uint64_t>(ctx, View<uint64_t>(dk.data(), dk.size()), View<uint64_t>(dr.data(), dr.size())),
                 Error)
        << "sort_pairs with |keys| != |rows|";
    EXPECT_THROW(SqlSetOp<uint64_t>(ctx, SetOp::Union, false, SetOpShape::Rows), Error)
        << "UNION has no with-rows shape";
    EXPECT_THROW(SqlSetOp<uint64_t>(ctx, SetOp::SymmetricDifference, true, true), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, ErrorsOnBackend, ::testing::Values(Backend::Cpu, Backend::Cuda));

// The CPU backend polls the callback between pieces of work.
class Interrupt : public ::testing::Test {
protected:
    void SetUp() override {
        Options o;
        o.backend = Backend::Cpu;
        o.interrupt_requested = [this] {
            polls_.fetch_add(1);
            return stop_.load();
        };
        ctx_ = std::make_unique<Context>(o);
        Rng rng(base_seed());
        const size_t n = 2 << 20;
        ha_ = random_sorted<uint64_t>(rng, n, n / 2);
        hb_ = random_sorted<uint64_t>(rng, n, n / 2);
        a_ = put(*ctx_, ha_);
        b_ = put(*ctx_, hb_);
    }
    void TearDown() override {
        a_.reset();
        b_.reset();
        ctx_.reset();
    }
    View<const uint64_t> va() const { return View<const uint64_t>(a_); }
    View<const uint64_t> vb() const { return View<const uint64_t>(b_); }

    std::atomic<bool> stop_{false};
    std::atomic<long> polls_{0};
    std::unique_ptr<Context> ctx_;
    std::vector<uint64_t> ha_, hb_;
    Buffer<uint64_t> a_, b_;
};

TEST_F(Interrupt, CheckInterruptThrowsCancelled) {
    EXPECT_NO_THROW(ctx_->check_interrupt());
    stop_ = true;
    EXPECT_THROW(ctx_->check_interrupt(), Cancelled);
}

TEST_F(Interrupt, MergeSetOpsSearchUniqueThrowCancelled) {
    Context& ctx = *ctx_;
    const size_t base = ctx.memory_in_use();
    EXPECT_EQ(merge<uint64_t>(ctx, va(), vb()).count, ha_.size() + hb_.size());
    EXPECT_GT(polls_.load(), 0) << "merge of 2 x 4M keys never polled interrupt_requested";
    stop_ = true;
    EXPECT_THROW(merge<uint64_t>(ctx, va(), vb()), Cancelled) << "merge";
    for (SetOp op : kAllSetOps) EXPECT_THROW(set_op<uint64_t>(ctx, op, va(), vb()), Cancelled) << setop_name(op);
    EXPECT_THROW(unique<uint64_t>(ctx, va()), Cancelled) << "unique";
    EXPECT_THROW(sorted_search<uint64_t>(ctx, va(), vb()), Cancelled) << "sorted_search";
    EXPECT_EQ(ctx.memory_in_use(), base) << "memory left behind by cancelled operations";
    stop_ = false;  // the same context works again
    TaggedResult<uint64_t> r = set_op<uint64_t>(ctx, SetOp::Intersection, va(), vb());
    EXPECT_EQ(r.count, ref_set_op(SetOp::Intersection, ha_, hb_).keys.size());
}

// Cancelled in the middle: set operations chain their chunks (each waits for its
// predecessor's offset), so a chunk whose predecessor was cancelled must give up too:
// Cancelled, no hang, nothing left allocated.
TEST_F(Interrupt, SetOpsCancelledMidwayDoNotHang) {
    Context& ctx = *ctx_;
    const size_t base = ctx.memory_in_use();
    for (SetOp op : kAllSetOps) {
        for (long after : {3L, 17L, 40L}) {
            polls_ = 0;
            Options o;
            o.backend = Backend::Cpu;
            o.interrupt_requested = [this, after] { return polls_.fetch_add(1) >= after; };
            Context midway(o);
            Buffer<uint64_t> a = put(midway, ha_), b = put(midway, hb_);
            const size_t inputs = midway.memory_in_use();
            EXPECT_THROW(set_op<uint64_t>(midway, op, View<const uint64_t>(a), View<const uint64_t>(b)), Cancelled)
                << setop_name(op) << " cancelled after " << after << " polls";
            EXPECT_EQ(midway.memory_in_use(), inputs) << "memory left behind by a cancelled " << setop_name(op);
        }
    }
    EXPECT_EQ(ctx.memory_in_use(), base);
}

TEST_F(Interrupt, SortAndPipelineThrowCancelled) {
    Context& ctx = *ctx_;
    std::vector<uint64_t> keys = ha_;
    std::shuffle(keys.begin(), keys.end(), Rng(1));
    std::vector<uint64_t> rows(keys.size(), 0);
    Buffer<uint64_t> k = put(ctx, keys), r = put(ctx, rows);
    stop_ = true;
    EXPECT_THROW(sort_keys<uint64_t>(ctx, View<uint64_t>(k.data(), k.size())), Cancelled) << "sort_keys";
    EXPECT_THROW(sort_pairs<uint64_t>(ctx, View<uint64_t>(k.data(), k.size()), View<uint64_t>(r.data(), r.size())),
                 Cancelled)
        << "sort_pairs";
    SqlSetOp<uint64_t> p(ctx, SetOp::Difference, false, false);
    p.add(Side::A, keys.data(), keys.size());
    p.add(Side::B, hb_.data(), hb_.size());
    EXPECT_THROW(p.finish(), Cancelled) << "SqlSetOp::finish";
}

}  // namespace
}  // namespace mptest
