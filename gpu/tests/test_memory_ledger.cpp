// test_memory_ledger.cpp — contexts sharing one memory budget through a MemoryLedger
// (PostgreSQL's backends share the GPU this way): allocations are reserved there first
// and held while the context works, given back when it goes idle (unless the ledger
// lets it keep them) or is destroyed;
// charged host memory is not reserved; with no room, a context holding nothing waits
// up to the ledger's patience (then OutOfMemory), proceeds when another context gives
// memory back, and a cancel ends the wait; a context that holds memory does not wait. Run on both backends (CUDA skipped without a GPU).
#include <atomic>
#include <chrono>
#include <thread>

#include "test_support.h"

namespace mptest {
namespace {

constexpr size_t kMiB = size_t(1) << 20;

// A ledger of `limit` bytes in one process (the extension's lives in shared memory).
class TestLedger final : public MemoryLedger {
public:
    TestLedger(size_t limit, double patience_ms, bool keep_idle = false)
        : limit_(limit), patience_ms_(patience_ms), keep_idle_(keep_idle) {}
    bool try_reserve(size_t bytes) noexcept override {
        size_t used = used_.load();
        do {
            if (used + bytes > limit_) return false;
        } while (!used_.compare_exchange_weak(used, used + bytes));
        return true;
    }
    void give_back(size_t bytes) noexcept override { used_ -= bytes; }
    double patience_ms() const noexcept override { return patience_ms_; }
    void set_waiting(bool waiting) noexcept override {
        if (waiting) waits_++;
        waiting_ += waiting ? 1 : -1;
    }
    bool keep_when_idle(size_t) noexcept override { return keep_idle_; }
    size_t used() const { return used_.load(); }
    int waits() const { return waits_.load(); }
    int waiting() const { return waiting_.load(); }

private:
    const size_t limit_;
    const double patience_ms_;
    const bool keep_idle_;
    std::atomic<size_t> used_{0};
    std::atomic<int> waits_{0}, waiting_{0};
};

// Runs `then` on a thread of its own as soon as a context waits in `ledger`.
std::thread when_someone_waits(const TestLedger& ledger, std::function<void()> then) {
    return std::thread([&ledger, then] {
        while (ledger.waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        then();
    });
}

// A context's Buffer freed and the context idle, so its reservation goes back.
void free_and_idle(Buffer<uint8_t>* held, Context* holder) {
    held->reset();
    holder->release_cached_memory();
}

class LedgerTest : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        std::string why;
        if (GetParam() == Backend::Cuda && !Context::cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    }
    std::unique_ptr<Context> open(MemoryLedger* ledger, std::function<bool()> interrupted = nullptr) {
        Options o;
        o.backend = GetParam();
        o.ledger = ledger;
        o.interrupt_requested = std::move(interrupted);
        return std::unique_ptr<Context>(new Context(o));
    }
};

TEST_P(LedgerTest, ReservesWhileWorkingAndGivesBackWhenIdle) {
    TestLedger ledger(64 * kMiB, 0);
    auto ctx = open(&ledger);
    {
        Buffer<uint8_t> a = ctx->alloc<uint8_t>(3 * kMiB);
        EXPECT_GE(ledger.used(), 3 * kMiB);
        EXPECT_EQ(ctx->ledger_reserved(), ledger.used());
        Buffer<uint8_t> small = ctx->alloc<uint8_t>(1000);  // fits in what is reserved (1 MiB steps)
        size_t held = ledger.used();
        a.reset();
        EXPECT_EQ(ledger.used(), held) << "freed memory stays reserved while the context works";
        ctx->release_cached_memory();
        EXPECT_EQ(ledger.used(), held) << "a live Buffer keeps the reservation";
    }
    ctx->release_cached_memory();
    EXPECT_EQ(ledger.used(), 0u);
    EXPECT_EQ(ctx->ledger_reserved(), 0u);
    Buffer<uint8_t> again = ctx->alloc<uint8_t>(2 * kMiB);
    EXPECT_GE(ledger.used(), 2 * kMiB) << "reserved again for the next piece of work";
}

TEST_P(LedgerTest, AnIdleContextKeepsItsReservationWhenTheLedgerLetsIt) {
    TestLedger ledger(64 * kMiB, 0, true);
    auto ctx = open(&ledger);
    { Buffer<uint8_t> a = ctx->alloc<uint8_t>(3 * kMiB); }
    size_t held = ledger.used();
    ctx->release_cached_memory();
    EXPECT_EQ(ledger.used(), held);
    EXPECT_EQ(ctx->ledger_reserved(), held);
    Buffer<uint8_t> again = ctx->alloc<uint8_t>(3 * kMiB);
    EXPECT_EQ(ledger.used(), held) << "the next piece of work uses what was kept";
}

TEST_P(LedgerTest, ReservingAheadWaitsOnceThenAllocationsDrawOnIt) {
    TestLedger ledger(16 * kMiB, 20000);
    auto holder = open(&ledger);
    auto ctx = open(&ledger);
    Buffer<uint8_t> held = holder->alloc<uint8_t>(8 * kMiB);
    std::thread other = when_someone_waits(ledger, [&] { free_and_idle(&held, holder.get()); });
    EXPECT_TRUE(ctx->reserve_memory(12 * kMiB)) << "it waits for the whole of it";
    other.join();
    EXPECT_EQ(ctx->ledger_reserved(), 12 * kMiB);
    {
        Buffer<uint8_t> a = ctx->alloc<uint8_t>(5 * kMiB);
        Buffer<uint8_t> b = ctx->alloc<uint8_t>(6 * kMiB);
        EXPECT_EQ(ledger.used(), 12 * kMiB) << "allocations draw on what was reserved";
    }
    EXPECT_TRUE(ctx->reserve_memory(2 * kMiB)) << "already held";
    TestLedger small(4 * kMiB, 20000);
    auto busy = open(&small);
    Buffer<uint8_t> c = busy->alloc<uint8_t>(kMiB);
    EXPECT_FALSE(busy->reserve_memory(8 * kMiB)) << "holding memory: no wait, no room";
    EXPECT_EQ(small.waits(), 0);
    EXPECT_EQ(busy->ledger_reserved(), kMiB);
}

// What an idle context kept does not let it skip the queue: reserving ahead with
// nothing allocated gives it back first and waits like any context holding nothing.
TEST_P(LedgerTest, ReservingAheadFromAKeptReservationQueues) {
    TestLedger ledger(8 * kMiB, 30, true);
    auto ctx = open(&ledger);
    { Buffer<uint8_t> a = ctx->alloc<uint8_t>(3 * kMiB); }
    ctx->release_cached_memory();
    EXPECT_EQ(ctx->ledger_reserved(), 3 * kMiB) << "kept while idle";
    auto holder = open(&ledger);
    Buffer<uint8_t> held = holder->alloc<uint8_t>(4 * kMiB);
    EXPECT_THROW(ctx->reserve_memory(6 * kMiB), OutOfMemory);
    EXPECT_EQ(ledger.waits(), 1) << "it waited for room";
    EXPECT_EQ(ctx->ledger_reserved(), 0u);
    EXPECT_EQ(ledger.used(), 4 * kMiB);
}

TEST_P(LedgerTest, DestroyingTheContextGivesBack) {
    TestLedger ledger(64 * kMiB, 0);
    {
        auto ctx = open(&ledger);
        { Buffer<uint8_t> a = ctx->alloc<uint8_t>(5 * kMiB); }
        EXPECT_GE(ledger.used(), 5 * kMiB);
    }
    EXPECT_EQ(ledger.used(), 0u);
}

TEST_P(LedgerTest, ChargedHostMemoryIsNotReserved) {
    TestLedger ledger(4 * kMiB, 0);
    auto ctx = open(&ledger);
    ctx->charge_memory(100 * kMiB);
    EXPECT_EQ(ledger.used(), 0u);
    EXPECT_EQ(ctx->memory_in_use(), 100 * kMiB);
    ctx->discharge_memory(100 * kMiB);
}

TEST_P(LedgerTest, NoRoomWaitsThenOutOfMemory) {
    TestLedger ledger(8 * kMiB, 30);
    auto holder = open(&ledger);
    Buffer<uint8_t> held = holder->alloc<uint8_t>(6 * kMiB);
    auto ctx = open(&ledger);
    auto begin = std::chrono::steady_clock::now();
    EXPECT_THROW(ctx->alloc<uint8_t>(4 * kMiB), OutOfMemory);
    double waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    EXPECT_GE(waited, 30.0) << "the allocation waits for the ledger's patience";
    EXPECT_GE(ctx->ledger_wait_ms(), 30.0) << "the context counts the wait";
    EXPECT_EQ(ledger.waits(), 1);
    EXPECT_EQ(ledger.waiting(), 0) << "the wait is over";
    EXPECT_EQ(ctx->ledger_reserved(), 0u) << "nothing half-reserved";
    Buffer<uint8_t> fits = ctx->alloc<uint8_t>(2 * kMiB);  // what is left still serves
    EXPECT_EQ(ledger.used(), 8 * kMiB);
}

TEST_P(LedgerTest, WaitingAllocationProceedsWhenMemoryComesBack) {
    TestLedger ledger(8 * kMiB, 20000);
    auto holder = open(&ledger);
    auto ctx = open(&ledger);
    Buffer<uint8_t> held = holder->alloc<uint8_t>(6 * kMiB);
    std::thread other = when_someone_waits(ledger, [&] { free_and_idle(&held, holder.get()); });
    Buffer<uint8_t> got = ctx->alloc<uint8_t>(5 * kMiB);
    other.join();
    EXPECT_EQ(got.size(), 5 * kMiB);
    EXPECT_EQ(ledger.waits(), 1);
    EXPECT_LE(ledger.used(), 8 * kMiB);
}

TEST_P(LedgerTest, CancelEndsTheWait) {
    std::atomic<bool> cancel{false};
    TestLedger ledger(2 * kMiB, 20000);
    auto holder = open(&ledger);
    Buffer<uint8_t> held = holder->alloc<uint8_t>(2 * kMiB);
    auto ctx = open(&ledger, [&] { return cancel.load(); });
    std::thread canceller = when_someone_waits(ledger, [&] { cancel = true; });
    EXPECT_THROW(ctx->alloc<uint8_t>(kMiB), Cancelled);
    canceller.join();
    EXPECT_EQ(ledger.waiting(), 0);
    EXPECT_EQ(ledger.used(), 2 * kMiB) << "only the holder's reservation";
}

TEST_P(LedgerTest, AContextHoldingMemoryDoesNotWait) {
    TestLedger ledger(4 * kMiB, 20000);
    auto ctx = open(&ledger);
    Buffer<uint8_t> first = ctx->alloc<uint8_t>(2 * kMiB);
    auto begin = std::chrono::steady_clock::now();
    EXPECT_THROW(ctx->alloc<uint8_t>(3 * kMiB), OutOfMemory);
    double waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    EXPECT_LT(waited, 5000.0) << "it must fail at once, not wait for the 20 s patience";
    EXPECT_EQ(ledger.waits(), 0);
    Buffer<uint8_t> fits = ctx->alloc<uint8_t>(2 * kMiB);
    EXPECT_EQ(ledger.used(), 4 * kMiB);
}

INSTANTIATE_TEST_SUITE_P(Backends, LedgerTest, ::testing::Values(Backend::Cpu, Backend::Cuda),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                             return std::string(info.param == Backend::Cpu ? "Cpu" : "Cuda");
                         });

}  // namespace
}  // namespace mptest
